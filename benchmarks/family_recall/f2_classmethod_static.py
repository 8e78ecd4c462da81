"""Static and class helpers on a backend class that reach the pool."""
import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class StaticHelperBackend(AttentionBackend):
    STAGING_DTYPE = torch.float16

    @staticmethod
    def _whole_k(pool, layer_id):
        return pool.get_key_buffer(layer_id)

    @staticmethod
    def _rows(pool, layer_id, loc):
        return pool.get_value_buffer(layer_id)[loc]

    @classmethod
    def _staged_v(cls, pool, layer_id):
        return pool.get_value_buffer(layer_id).to(cls.STAGING_DTYPE)  # positive: f2 CL001 conversion inside a classmethod

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        k_half = StaticHelperBackend._whole_k(pool, layer.layer_id).half()  # positive: f2 CL001 staticmethod returns the pool
        k_again = self._whole_k(pool, layer.layer_id).to(q.dtype)  # positive: f2 CL001 staticmethod via self
        v_half = self._staged_v(pool, layer.layer_id)
        v_rows = self._rows(pool, layer.layer_id, forward_batch.out_cache_loc).half()  # negative: staticmethod gathers first
        return k_half, k_again, v_half, v_rows
