# sglang torch-native style fallback: the backend hands the per-layer buffers to a
# module-level SDPA helper through a keyword dict.
import torch
import torch.nn.functional as F


def _sdpa_over_pool(q, *, k, v, out_dtype, scaling):
    k = k.to(out_dtype)  # positive: f4 CL001 whole key buffer arriving as a keyword argument
    v = v.to(out_dtype)  # positive: f4 CL001 whole value buffer arriving as a keyword argument
    return F.scaled_dot_product_attention(q, k.unsqueeze(0), v.unsqueeze(0), scale=scaling)


def _sdpa_over_rows(q, *, k, v, rows, out_dtype, scaling):
    k = k[rows].to(out_dtype)  # negative: request rows first
    v = v[rows].to(out_dtype)  # negative: request rows first
    return F.scaled_dot_product_attention(q, k.unsqueeze(0), v.unsqueeze(0), scale=scaling)


class FallbackDecodeBackend:
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        bufs = {"k": pool.get_key_buffer(layer.layer_id), "v": pool.get_value_buffer(layer.layer_id)}
        if self.debug_whole_pool:
            return _sdpa_over_pool(q, **bufs, out_dtype=q.dtype, scaling=layer.scaling)
        rows = forward_batch.req_to_token_pool.req_to_token[forward_batch.req_pool_indices].flatten()
        return _sdpa_over_rows(q, **bufs, rows=rows, out_dtype=q.dtype, scaling=layer.scaling)
