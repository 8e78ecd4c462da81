"""mT, flatten(-2) and a per-head index keep every slot; a block index and offsets do not."""
import torch


class FlashAttnDecodeFallbackImpl:
    def __init__(self, num_heads, head_size, scale=None, debug_head0=False):
        self.num_heads = num_heads
        self.head_size = head_size
        self.scale = scale or head_size**-0.5
        self.debug_head0 = debug_head0

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        kt = k_cache.mT.float()  # positive: f5 CL001 transpose of the last two dims, every slot
        v_all = v_cache.flatten(-2).to(torch.float16)  # positive: f5 CL001 heads*dim merged, every slot
        if self.debug_head0:
            self._log(k_cache[..., 0, :].float().norm())  # positive: f5 CL001 one head of every slot
        k_blocks = k_cache[attn_metadata.block_offsets].float()  # negative: the batch's blocks
        k_first = k_cache[0].float()  # negative: a single block
        if k_scales_zeros is not None:
            k_scales_zeros = k_scales_zeros.float()  # negative: scales/zeros
        return self._decode(query.float(), kt, v_all, k_blocks, k_first, k_scales_zeros)  # negative: the step's queries
