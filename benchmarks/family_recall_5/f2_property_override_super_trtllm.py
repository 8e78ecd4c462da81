"""A property overridden in a subclass that reshapes super()'s value."""

import torch


class KVResource:
    def __init__(self, kv_cache_manager, layer_idx):
        self._mgr = kv_cache_manager
        self._layer = layer_idx

    @property
    def blocks(self):
        return self._mgr.get_buffers(self._layer)

    @property
    def offsets(self):
        return self._mgr.kv_cache_block_offsets


class PagedKVResource(KVResource):
    @property
    def blocks(self):
        b = super().blocks
        return b.reshape(b.shape[0], 2, -1)


class WindowedKVResource(KVResource):
    @property
    def blocks(self):
        return super().blocks[: self._mgr.max_blocks_per_seq]


class ResourceAttention:
    def __init__(self, resource, dtype=torch.bfloat16):
        self.resource = resource
        self.dtype = dtype

    def forward(self, q, k, v, attn_metadata):
        dense = self.resource.blocks.to(self.dtype)  # positive: f2 CL001 resource property (base or reshaping override) is the whole layer pool
        offs = self.resource.offsets.to(torch.int64)  # negative: block offsets
        out = torch.empty_like(q)
        torch.ops.trtllm.context_attention(q, dense, offs, out)
        return out


def make_attention(kv_cache_manager, layer_idx):
    return ResourceAttention(PagedKVResource(kv_cache_manager, layer_idx))


class WindowAttention(ResourceAttention):
    def __init__(self, kv_cache_manager, layer_idx):
        super().__init__(WindowedKVResource(kv_cache_manager, layer_idx))

    def forward(self, q, k, v, attn_metadata):
        head = self.resource.blocks.to(self.dtype)  # negative: the windowed override keeps only the first max_blocks_per_seq blocks
        out = torch.empty_like(q)
        torch.ops.trtllm.context_attention(q, head, self.resource.offsets, out)
        return out
