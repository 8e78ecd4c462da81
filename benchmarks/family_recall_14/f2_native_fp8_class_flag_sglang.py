"""A base backend whose decode upcasts when a subclass declares no FP8 KV read (XPU style)."""
import torch


class FlashAttentionLikeBackend:
    supports_fp8_kv_read = True

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        key_cache = pool.get_key_buffer(layer.layer_id)
        value_cache = pool.get_value_buffer(layer.layer_id)
        if not self.supports_fp8_kv_read and key_cache.dtype != q.dtype:
            key_cache = key_cache.to(q.dtype)  # positive: f2 CL001 reached by XPUAttentionBackend, which turns the flag off
            value_cache = value_cache.to(q.dtype)  # positive: f2 CL001 same, value layer
        return self._paged_decode(q, key_cache, value_cache, layer, forward_batch)


class CudaFA3Backend(FlashAttentionLikeBackend):
    def _paged_decode(self, q, key_cache, value_cache, layer, forward_batch):
        k_fp8 = key_cache.view(torch.float8_e4m3fn)  # negative: zero-copy reinterpret
        k_descale = layer.k_scale.float()  # negative: the layer's scale
        return self._fa3(q, k_fp8, value_cache, k_descale, forward_batch)


class XPUAttentionBackend(FlashAttentionLikeBackend):
    supports_fp8_kv_read = False

    def _paged_decode(self, q, key_cache, value_cache, layer, forward_batch):
        page_table = self.forward_metadata.page_table.to(torch.int32)  # negative: page table
        return self._xpu_flash(q, key_cache, value_cache, page_table)
