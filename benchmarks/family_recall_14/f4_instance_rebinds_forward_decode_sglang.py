"""__init__ rebinds self.forward_decode to an upcasting variant when no FP8 kernel exists."""
import torch


def _fp8_flashmla_available() -> bool:
    return hasattr(torch.ops, "sgl_kernel") and hasattr(torch.ops.sgl_kernel, "flash_mla_fp8")


class FlashMLABackend:
    def __init__(self, model_runner):
        self.kv_cache_dtype = model_runner.kv_cache_dtype
        self.dtype = model_runner.dtype
        pool = model_runner.token_to_kv_pool
        self.probe = pool.get_key_buffer(pool.start_layer).to(self.dtype)  # negative: one-time check in __init__
        if self.kv_cache_dtype != self.dtype and not _fp8_flashmla_available():
            self.forward_decode = self._forward_decode_upcast

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k_cache = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)
        k_cache = k_cache.view(self.kv_cache_dtype)  # negative: zero-copy reinterpret
        return self._flash_mla(q, k_cache, layer, forward_batch)

    def _forward_decode_upcast(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k_cache = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)
        k_cache = k_cache.to(self.dtype)  # positive: f4 CL001 runs as forward_decode on instances rebound in __init__
        block_table = self.forward_metadata.block_table.to(torch.int32)  # negative: block table
        return self._flash_mla(q, k_cache, layer, forward_batch, block_table)
