# lmdeploy MetaX MACA backend: the cache's 64-slot blocks are merged pairwise into the 128-slot pages the
# MACA decode kernel expects (unflatten the block axis, flatten the pairs), then widened.
import torch


class MacaPagedDecode:
    def __init__(self, block_size=64, kernel_block_size=128, compute_dtype=torch.float16):
        self.group = kernel_block_size // block_size
        self.compute_dtype = compute_dtype

    def _merge(self, cache):
        # [blocks, block_size, heads, dim] -> [blocks // g, g * block_size, heads, dim]
        return cache.unflatten(0, (-1, self.group)).flatten(1, 2)

    def forward(self, query, k_cache, v_cache, attn_metadata):
        k = self._merge(k_cache).to(self.compute_dtype)  # positive: f5 CL001 every block of the key cache, pairwise merged
        v = self._merge(v_cache).to(self.compute_dtype)  # positive: f5 CL001 every block of the value cache, pairwise merged
        pages = attn_metadata.block_offsets // self.group
        first = self._merge(k_cache)[pages[:, 0]].to(self.compute_dtype)  # negative: first merged page of each sequence
        return self.maca_paged_attention(query, k, v, first, pages.to(torch.int32))  # negative: the page table
