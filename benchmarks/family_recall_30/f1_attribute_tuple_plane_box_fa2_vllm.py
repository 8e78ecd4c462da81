"""vLLM FA2 (Ampere, no FP8 read): a small box whose attributes are set by tuple assignment from kv_cache.unbind(0)."""
import torch

from vllm.v1.attention.backends.flash_attn import FlashAttentionImpl


class _PlaneBox:
    """Key/value planes of one layer, set per forward."""


class AmpereFp8FallbackImpl(FlashAttentionImpl):
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None, **kw):
        box = _PlaneBox()
        box.k, box.v = kv_cache.unbind(0)
        if self.kv_cache_dtype.startswith("fp8"):
            return self._attend(box, query, attn_metadata, output)
        return super().forward(layer, query, key, value, kv_cache, attn_metadata, output, **kw)

    def _attend(self, box, query, attn_metadata, output):
        k = box.k.to(query.dtype)  # positive: f1 CL001 whole key plane carried by the box
        v = box.v[attn_metadata.block_table[:, :1]].to(query.dtype)  # negative: first block of each request
        q = query.to(torch.float32)  # negative: the query
        k_scale = self.k_scale_float if hasattr(self, "k_scale_float") else 1.0
        return self._sdpa(q, k * k_scale, v, attn_metadata, output)
