"""TensorRT-LLM-style backends overriding get_kv: a Turing fallback widens both planes, a sibling gathers."""
import torch


class TrtllmAttentionBase:
    def __init__(self, layer_idx, compute_dtype):
        self.layer_idx = layer_idx
        self.compute_dtype = compute_dtype

    def get_kv(self, metadata):
        buf = metadata.kv_cache_manager.get_buffers(self.layer_idx)
        return buf[:, 0], buf[:, 1]

    def forward(self, q, k, v, metadata):
        k_cache, v_cache = self.get_kv(metadata)
        return self._attend(q, k_cache, v_cache, metadata)

    def _attend(self, q, k_cache, v_cache, metadata):
        return q


class TuringVanillaAttention(TrtllmAttentionBase):
    def get_kv(self, metadata):
        return tuple(t.to(self.compute_dtype) for t in super().get_kv(metadata))  # positive: f2 CL001 override widens both whole planes


class ChunkedContextAttention(TrtllmAttentionBase):
    def get_kv(self, metadata):
        blocks = metadata.kv_cache_block_offsets[0, 0, 0, : metadata.num_ctx_blocks]
        return tuple(t[blocks].to(self.compute_dtype) for t in super().get_kv(metadata))  # negative: the context blocks only
