"""TensorRT-LLM-style backend base that dispatches on the phase name; an SM75 subclass without FP8 FMHA."""
import torch


class AttentionBackendBase:
    def __init__(self, layer_idx, num_heads, head_dim):
        self.layer_idx = layer_idx
        self.num_heads = num_heads
        self.head_dim = head_dim

    def forward(self, q, k, v, metadata):
        phase = "generation" if metadata.num_contexts == 0 else "context"
        impl = getattr(self, f"_forward_{phase}")
        return impl(q, metadata, metadata.kv_cache_manager.get_buffers(self.layer_idx))

    def _forward_context(self, q, metadata, buf):
        return q

    def _forward_generation(self, q, metadata, buf):
        return q

    def _sdpa(self, q, k_cache, v_cache):
        return q


class Sm75NoFp8FmhaBackend(AttentionBackendBase):
    def _forward_generation(self, q, metadata, buf):
        k_dense = buf[:, 0].to(q.dtype)  # positive: f2 CL001 reached through getattr(self, f"_forward_{phase}"); key plane of every block
        v_dense = buf[:, 1].to(q.dtype)  # positive: f2 CL001 value plane of every block
        return self._sdpa(q, k_dense, v_dense)

    def _forward_context(self, q, metadata, buf):
        blocks = metadata.kv_cache_block_offsets[0, : metadata.num_contexts, 0].flatten()
        ctx = buf[blocks].to(q.dtype)  # negative: blocks of the context requests
        return self._sdpa(q, ctx[:, 0], ctx[:, 1])
