"""TensorRT-LLM: an as_strided view with the buffer's own shape and strides is the whole
buffer; one with a smaller leading size is a prefix of blocks."""
import torch


class StridedVanillaAttention:
    def __init__(self, layer_idx, dtype):
        self.layer_idx = layer_idx
        self.dtype = dtype

    def forward(self, q, k, v, metadata):
        buf = metadata.kv_cache_manager.get_buffers(self.layer_idx)
        same = buf.as_strided(buf.shape, buf.stride())
        dense = same.to(self.dtype)  # positive: f5 CL001 as_strided with the full shape is the whole layer
        used = metadata.num_used_blocks
        prefix = buf.as_strided((used, *buf.shape[1:]), buf.stride()).to(self.dtype)  # negative: used blocks only
        return self._sdpa(q, dense, prefix)

    def _sdpa(self, q, dense, prefix):
        return q
