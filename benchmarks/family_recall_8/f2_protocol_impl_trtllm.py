from typing import Protocol, runtime_checkable

import torch


@runtime_checkable
class BufferSource(Protocol):
    def get_buffers(self, layer_idx: int) -> torch.Tensor: ...


class PoolSource:
    def __init__(self, manager):
        self.manager = manager

    def get_buffers(self, layer_idx):
        return self.manager.get_buffers(layer_idx)


class BlockSource:
    def __init__(self, manager, block_ids):
        self.manager = manager
        self.block_ids = block_ids

    def get_buffers(self, layer_idx):
        return self.manager.get_buffers(layer_idx)[self.block_ids]


class ProtoAttention:
    def __init__(self, layer_idx, source: BufferSource, blocks: BlockSource):
        self.layer_idx = layer_idx
        self.source = source
        self.blocks = blocks

    def forward(self, q, k, v, metadata):
        src = self.source
        if isinstance(src, BufferSource):
            t = src.get_buffers(self.layer_idx).to(q.dtype)  # positive: f2 CL001 implementation of the Protocol returns the whole pool layer
        b = self.blocks.get_buffers(self.layer_idx).to(q.dtype)  # negative: block-gathering implementation
        return t, b


def build_attention(manager, layer_idx, block_ids):
    return ProtoAttention(layer_idx, PoolSource(manager), BlockSource(manager, block_ids))
