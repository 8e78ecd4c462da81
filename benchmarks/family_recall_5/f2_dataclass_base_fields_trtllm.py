"""Inherited dataclass fields carry the layer pool into a callable subclass."""

from dataclasses import dataclass, field

import torch


@dataclass
class AttentionParamsBase:
    kv_pool: torch.Tensor
    block_offsets: torch.Tensor
    out_dtype: torch.dtype = torch.bfloat16


@dataclass
class XQAParams(AttentionParamsBase):
    num_heads: int = 8
    semaphores: torch.Tensor = field(default_factory=lambda: torch.zeros(128, dtype=torch.uint32))

    def __call__(self, q):
        kvd = self.kv_pool.to(self.out_dtype)  # positive: f2 CL001 pool field inherited from the base dataclass, whole cast per call
        offs = self.block_offsets.to(torch.int64)  # negative: inherited block offsets
        sem = self.semaphores.to(torch.int32)  # negative: small semaphore array
        return torch.ops.trtllm.xqa(q, kvd, offs, sem, self.num_heads)


@dataclass
class XQASlotParams(XQAParams):
    slots: torch.Tensor = field(default_factory=lambda: torch.zeros(0, dtype=torch.int64))

    def __call__(self, q):
        rows = self.kv_pool[self.slots].to(self.out_dtype)  # negative: gather-then-cast
        return torch.ops.trtllm.xqa(q, rows, self.block_offsets, self.semaphores, self.num_heads)


class XQAAttention:
    def __init__(self, layer_idx):
        self.layer_idx = layer_idx

    def forward(self, q, k, v, attn_metadata):
        mgr = attn_metadata.kv_cache_manager
        params = XQAParams(mgr.get_buffers(self.layer_idx), attn_metadata.kv_cache_block_offsets)
        return params(q)
