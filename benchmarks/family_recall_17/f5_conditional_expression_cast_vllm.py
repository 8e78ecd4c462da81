"""vLLM: conversions inside conditional expressions; the dtype test does not make the
conversion partial."""
import torch


class XPUFallbackImpl:
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        kc, vc = kv_cache.unbind(0)
        kc = kc if kc.dtype == query.dtype else kc.to(query.dtype)  # positive: f5 CL001 whole key plane when dtypes differ
        vc = vc.to(query.dtype) if vc.dtype != query.dtype else vc  # positive: f5 CL001 whole value plane when dtypes differ
        slots = attn_metadata.slot_mapping
        new = kc.flatten(0, 1)[slots] if slots is not None else None
        new = new.to(query.dtype) if new is not None else None  # negative: this step's slots
        return self._ipex(query, kc, vc, new, output)

    def _ipex(self, query, kc, vc, new, output):
        return output
