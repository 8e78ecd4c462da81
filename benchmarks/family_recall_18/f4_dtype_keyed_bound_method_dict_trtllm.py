"""TensorRT-LLM-style fallback attention choosing a reader from a dict keyed by the buffer's dtype."""
import torch


class FlashInferFallbackAttention:
    def __init__(self, layer_idx, compute_dtype=torch.bfloat16):
        self.layer_idx = layer_idx
        self.compute_dtype = compute_dtype
        self._readers = {
            torch.float8_e4m3fn: self._widen,
            torch.bfloat16: self._as_is,
            torch.float16: self._as_is,
        }

    def _widen(self, buf):
        return buf.to(self.compute_dtype)  # positive: f4 CL001 bound method looked up by dtype; every caller passes a whole layer

    def _as_is(self, buf):
        return buf

    def forward(self, q, k, v, metadata):
        buf = metadata.kv_cache_manager.get_buffers(self.layer_idx)
        dense = self._readers[buf.dtype](buf)
        first = metadata.kv_cache_block_offsets[0, 0, 0, 0]
        head_block = buf[first].to(self.compute_dtype)  # negative: a single block
        return self._attend(q, dense[:, 0], dense[:, 1], head_block)

    def _attend(self, q, k_cache, v_cache, head_block):
        return q
