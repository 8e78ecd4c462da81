"""Walrus-bound pool layers upcast under a dtype guard in forward_extend."""
import torch


class AiterStyleFallbackBackend:
    def __init__(self, model_runner):
        self.max_context_len = model_runner.model_config.context_len

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        if save_kv_cache:
            pool.set_kv_buffer(layer, forward_batch.out_cache_loc, k, v, layer.k_scale, layer.v_scale)
        if (k_cache := pool.get_key_buffer(layer.layer_id)).dtype != q.dtype:
            k_cache = k_cache.to(q.dtype)  # positive: f5 CL001 whole key layer bound by the walrus
        if (v_cache := pool.get_value_buffer(layer.layer_id)).dtype != q.dtype:
            v_cache = v_cache.to(q.dtype)  # positive: f5 CL001 whole value layer bound by the walrus
        if (prefix := forward_batch.extend_prefix_lens) is not None:
            prefix = prefix.to(torch.int32)  # negative: lengths
        if (h := getattr(forward_batch, "mm_hidden", None)) is not None:
            h = h.float()  # negative: hidden states
        o = self._extend(q, k_cache, v_cache, prefix, forward_batch)
        if (rows := self.forward_metadata.debug_rows) is not None:
            self._dump(pool.get_key_buffer(layer.layer_id)[rows].float())  # negative: a few rows
        return o
