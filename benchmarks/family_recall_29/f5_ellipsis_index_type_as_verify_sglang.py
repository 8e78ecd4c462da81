"""sglang EAGLE target verify (Triton fallback): buf[...] is the whole buffer; type_as converts it."""
import torch


class TritonTargetVerifyBackend:
    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        if save_kv_cache:
            pool.set_kv_buffer(layer, forward_batch.out_cache_loc, k, v)
        if forward_batch.forward_mode.is_target_verify():
            k_all = pool.get_key_buffer(layer.layer_id)[...]
            v_all = pool.get_value_buffer(layer.layer_id)[...]
            keys = k_all.type_as(q)  # positive: f5 CL001 Ellipsis index keeps every slot; type_as converts
            values = v_all.type_as(q)  # positive: f5 CL001 whole value buffer
        else:
            loc = forward_batch.out_cache_loc
            keys = pool.get_key_buffer(layer.layer_id)[loc, ...].type_as(q)  # negative: rows first
            values = v.type_as(q)  # negative: new tokens
        mask = forward_batch.spec_info.custom_mask.type_as(q)  # negative: tree mask
        return self._tree_extend(q, keys, values, mask, forward_batch)
