"""sglang torch MLA fallback: the pool's bound get_key_buffer is passed as reader= to module helpers that call it."""
import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


def _attend_dense(q, *, reader, layer_id, dtype, scaling):
    latent = reader(layer_id).to(dtype)  # positive: f4 CL001 whole latent layer read through the handed-in accessor
    return torch.einsum("thd,sd->ths", q, latent.squeeze(1)) * scaling


def _attend_rows(q, *, reader, layer_id, rows, dtype, scaling):
    latent = reader(layer_id)[rows].to(dtype)  # negative: rows gathered first
    return torch.einsum("thd,sd->ths", q, latent.squeeze(1)) * scaling


class TorchMLAFallbackBackend(AttentionBackend):
    def __init__(self, model_runner):
        self.dense_fallback = model_runner.server_args.kv_cache_dtype.startswith("fp8")

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        if self.dense_fallback:
            return _attend_dense(q, reader=pool.get_key_buffer, layer_id=layer.layer_id, dtype=q.dtype, scaling=layer.scaling)
        rows = forward_batch.req_to_token_pool.req_to_token[forward_batch.req_pool_indices].flatten()
        return _attend_rows(q, reader=pool.get_key_buffer, layer_id=layer.layer_id, rows=rows, dtype=q.dtype, scaling=layer.scaling)
