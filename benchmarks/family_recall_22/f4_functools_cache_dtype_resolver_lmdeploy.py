import functools

import torch


@functools.cache
def compute_dtype(name: str) -> torch.dtype:
    return {"float16": torch.float16, "bfloat16": torch.bfloat16}.get(name, torch.float16)


class CudaGraphFreeAttention(torch.nn.Module):
    def __init__(self, dtype_name: str):
        super().__init__()
        self.dtype_name = dtype_name

    def forward(self, query, k_cache, v_cache, attn_metadata):
        dt = compute_dtype(self.dtype_name)
        k_dense = k_cache.to(dt)  # positive: f4 CL001 whole key cache widened to a dtype from a functools.cache resolver
        v_dense = v_cache.to(compute_dtype(self.dtype_name))  # positive: f4 CL001 whole value cache, resolver called inline
        q = query.to(dt)  # negative: query
        return q, k_dense, v_dense, attn_metadata.q_seqlens.to(torch.int32)  # negative: metadata
