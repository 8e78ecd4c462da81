"""f6: a FlashMLA-style backend: pool layer viewed as pages and upcast; a v4-style unified accessor."""
import torch


class FlashMLABackendLite:
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.page_size = 64
        self.kv_cache_dim = 576

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k_cache = self.token_to_kv_pool.get_key_buffer(layer.layer_id)
        paged = k_cache.view(-1, self.page_size, 1, self.kv_cache_dim)
        return self._run(q, paged.to(q.dtype), forward_batch)  # positive: f6 CL001 every page upcast inside the call

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        unified = self.token_to_kv_pool.get_unified_kv(layer.layer_id)
        dense = unified.float()  # positive: f6 CL001 unified per-layer buffer upcast
        swa = self.token_to_kv_pool.get_swa_raw_buffer(layer.layer_id).view(torch.uint8)  # negative: reinterpret
        lens = forward_batch.extend_seq_lens.to(torch.int32)  # negative: lengths
        return dense, swa, lens

    def _run(self, q, pages, forward_batch):
        return q
