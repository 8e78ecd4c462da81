import torch


class FlashInferFallbackAttention:
    def __init__(self, layer_idx, dtype):
        self.layer_idx = layer_idx
        self.dtype = dtype

    def forward(self, q, k, v, metadata, **kwargs):
        def widen(t):
            return t.to(self.dtype)  # positive: f4 CL001 nested function applied only to the manager buffer

        def widen_rows(t, rows):
            return t[rows].to(self.dtype)  # negative: gathers the given rows first

        mgr = metadata.kv_cache_manager
        buf = mgr.get_buffers(self.layer_idx)
        full = widen(buf)
        rows = metadata.kv_cache_block_offsets[0].flatten()
        part = widen_rows(buf, rows)
        return self._attend(q, full, part)

    def _attend(self, q, a, b):
        return q
