"""vLLM: a fallback backend's get_impl_cls returns an impl subclass that widens before super().forward (FULL cudagraph)."""
import torch


class FlashAttentionImpl:
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        return self._flash(query, kv_cache, attn_metadata, output)


class FlashAttentionBackend:
    @staticmethod
    def get_impl_cls():
        return FlashAttentionImpl


class _Fp8FallbackImpl(FlashAttentionImpl):
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        if kv_cache.dtype == torch.uint8:
            kv_cache = kv_cache.view(torch.float8_e4m3fn).to(query.dtype)  # positive: f2 CL001 whole layer cache, inside the FULL cudagraph body
        scale = layer._k_scale.to(query.dtype)  # negative: a scale
        return super().forward(layer, query, key, value, kv_cache, attn_metadata, output) * scale


class Fp8FallbackFlashAttentionBackend(FlashAttentionBackend):
    @staticmethod
    def get_impl_cls():
        return _Fp8FallbackImpl

    @staticmethod
    def build_for_cudagraph_capture(kv_cache):
        return torch.zeros_like(kv_cache, dtype=torch.bfloat16)  # negative: capture-time allocation
