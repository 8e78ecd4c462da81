"""TRT-LLM vanilla FP8 fallback (SM80): widening done by callable instances stored on the attention module."""
import torch

from tensorrt_llm._torch.attention_backend.vanilla import VanillaAttention


class _KVWidener:
    def __init__(self, dtype):
        self.dtype = dtype

    def __call__(self, buf):
        return buf.to(self.dtype)  # positive: f4 CL001 whole layer buffer handed to the instance


class _RowWidener(_KVWidener):
    def __call__(self, buf, ids):
        return buf[ids].to(self.dtype)  # negative: blocks selected first


class SM80VanillaFp8Fallback(VanillaAttention):
    def __init__(self, layer_idx, num_heads, head_dim, **kwargs):
        super().__init__(layer_idx, num_heads, head_dim, **kwargs)
        self.widen = _KVWidener(torch.bfloat16)
        self.widen_rows = _RowWidener(torch.bfloat16)

    def forward(self, q, k, v, metadata, **kwargs):
        buf = metadata.kv_cache_manager.get_buffers(self.layer_idx)
        if metadata.num_contexts == 0:
            kv = self.widen(buf)
        else:
            kv = self.widen_rows(buf, metadata.kv_cache_block_offsets[0, :, 0])
        return self._sdpa(q.to(torch.bfloat16), kv[:, 0], kv[:, 1], metadata)  # negative: the query
