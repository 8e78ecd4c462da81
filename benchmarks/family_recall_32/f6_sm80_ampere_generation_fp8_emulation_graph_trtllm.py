"""TRT-LLM on SM80 (A100, no FP8 tensor cores): generation widens the FP8 layer inside the decode graph."""
import torch


class Sm80Fp8KVFallbackAttention:
    def __init__(self, layer_idx, sm_version, dtype=torch.bfloat16):
        self.layer_idx = layer_idx
        self.sm_version = sm_version
        self.dtype = dtype

    def forward_generation(self, q, metadata):
        """Called from the decode CUDA graph body on every replay."""
        buf = metadata.kv_cache_manager.get_buffers(self.layer_idx)
        if self.sm_version == 80 and buf.dtype == torch.float8_e4m3fn:
            kv = buf.to(self.dtype)  # positive: f6 CL001 whole layer every generation step on SM80
        else:
            kv = buf
        q = q.to(self.dtype)  # negative: query
        return self._mmha(q, kv, metadata)

    def forward_context(self, q, metadata):
        ids = metadata.kv_cache_block_offsets[:, 0]
        kv = metadata.kv_cache_manager.get_buffers(self.layer_idx)[ids].to(self.dtype)  # negative: context blocks gathered
        return self._mmha(q, kv, metadata)

    def _mmha(self, q, kv, m):
        return q, kv
