"""vLLM: with_dense_kv(base) builds a subclass that widens the layer cache before super().forward; used for FA2 under a FULL cudagraph."""
import torch

from vllm.v1.attention.backends.flash_attn import FlashAttentionImpl


def with_dense_kv(base):
    class _DenseKV(base):
        supports_fp8_read = False

        def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None, **kw):
            if self.kv_cache_dtype.startswith("fp8") and not self.supports_fp8_read:
                kv_cache = kv_cache.to(query.dtype)  # positive: f2 CL001 whole layer cache widened before the base forward (captured in the FULL graph)
                key, value = key.to(query.dtype), value.to(query.dtype)  # negative: new tokens
                self._q_descale = layer._q_scale.to(torch.float32)  # negative: scale
            return super().forward(layer, query, key, value, kv_cache, attn_metadata, output=output, **kw)

    _DenseKV.__name__ = "Dense" + base.__name__
    return _DenseKV


FA2DenseImpl = with_dense_kv(FlashAttentionImpl)
