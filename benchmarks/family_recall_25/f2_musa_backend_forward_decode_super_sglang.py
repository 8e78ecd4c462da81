import torch


class FlashAttentionBackend:
    def __init__(self, model_runner):
        self.kv_cache_dtype = model_runner.kv_cache_dtype
        self.dtype = model_runner.dtype

    def _cache_for_decode(self, layer, forward_batch):
        return forward_batch.token_to_kv_pool.get_kv_buffer(layer.layer_id)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k_cache, v_cache = self._cache_for_decode(layer, forward_batch)
        return q.to(self.dtype), k_cache, v_cache  # negative: query


class MusaFlashAttentionBackend(FlashAttentionBackend):
    """MUSA flash kernels take fp16/bf16 only."""

    def _cache_for_decode(self, layer, forward_batch):
        k_cache, v_cache = super()._cache_for_decode(layer, forward_batch)
        if self.kv_cache_dtype != self.dtype:
            k_cache = k_cache.to(self.dtype)  # positive: f2 CL001 MUSA override widens the whole key buffer from super()
            v_cache = v_cache.to(self.dtype)  # positive: f2 CL001 MUSA override widens the whole value buffer from super()
        return k_cache, v_cache

    def init_forward_metadata(self, forward_batch):
        self.page_table = forward_batch.req_to_token_pool.req_to_token.to(torch.int32)  # negative: page table
