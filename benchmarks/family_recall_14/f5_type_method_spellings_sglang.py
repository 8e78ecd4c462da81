"""Tensor.type(...) spellings in an XPU-style extend fallback (unusual: a type string from q)."""
import torch


class XPUExtendFallbackBackend:
    def __init__(self, model_runner):
        self.dtype = model_runner.dtype

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        if save_kv_cache:
            pool.set_kv_buffer(layer, forward_batch.out_cache_loc, k, v)
        k_buf = pool.get_key_buffer(layer.layer_id)
        v_buf = pool.get_value_buffer(layer.layer_id)
        type_name = k_buf.type()  # negative: returns the type string, converts nothing
        if type_name.endswith("BFloat16Tensor"):
            k_wide, v_wide = k_buf, v_buf.type(v_buf.dtype)  # negative: same dtype
        else:
            k_wide = k_buf.type(torch.bfloat16)  # positive: f5 CL001 whole key layer via Tensor.type(dtype)
            v_wide = v_buf.type(q.type())  # positive: f5 CL001 whole value layer via Tensor.type(type string of q)
        prefix_rows = k_buf[forward_batch.extend_prefix_locs].type(torch.bfloat16)  # negative: gathered rows
        return self._extend_sdpa(q, k_wide, v_wide, prefix_rows, forward_batch)
