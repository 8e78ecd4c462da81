import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class PoolReadingBase(AttentionBackend):
    def _layer_keys(self, layer, forward_batch) -> torch.Tensor:
        return forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)

    def _layer_values(self, layer, forward_batch) -> torch.Tensor:
        return forward_batch.token_to_kv_pool.get_value_buffer(layer.layer_id)

    def _layer_rows(self, layer, forward_batch) -> torch.Tensor:
        pool = forward_batch.token_to_kv_pool
        return pool.get_key_buffer(layer.layer_id)[forward_batch.out_cache_loc]


class MusaLikeBackend(PoolReadingBase):
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k_cache = self._layer_keys(layer, forward_batch).to(q.dtype)  # positive: f2 CL001 base-class method returns the whole key pool
        v_cache = self._layer_values(layer, forward_batch)
        v_cache = v_cache.to(q.dtype)  # positive: f2 CL001 base-class method returns the whole value pool
        rows = self._layer_rows(layer, forward_batch).to(q.dtype)  # negative: base method gathers before returning
        return k_cache, v_cache, rows
