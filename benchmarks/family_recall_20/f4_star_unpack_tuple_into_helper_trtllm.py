import torch


def _widen(buf, dtype, non_blocking=False):
    return buf.to(dtype, non_blocking=non_blocking)  # positive: f4 CL001 every call site unpacks a whole layer buffer into this helper


def _move(buf, device):
    return buf.to(device)  # negative: .to(device)


class MLAGenerationFallback:
    def __init__(self, kv_cache_manager, dtype=torch.bfloat16):
        self.kv_cache_manager = kv_cache_manager
        self.dtype = dtype

    def forward(self, q, compressed_kv, k_pe, metadata, layer_idx):
        job = (self.kv_cache_manager.get_buffers(layer_idx), self.dtype)
        latent = _widen(*job, **{"non_blocking": True})
        host = _move(*(self.kv_cache_manager.get_buffers(layer_idx), "cpu"))
        new = compressed_kv.to(self.dtype)  # negative: this step's latent, not the cache
        return latent, host, new
