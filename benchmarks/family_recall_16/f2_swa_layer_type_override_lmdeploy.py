import torch


class AttentionImplBase:
    def window_cache(self, k_cache, attn_metadata):
        return k_cache

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata):
        k = self.window_cache(k_cache, attn_metadata)
        return query @ k.flatten(0, 1).T, v_cache


class SlidingWindowImpl(AttentionImplBase):
    def __init__(self, window, block_size):
        self.window_blocks = window // block_size

    def window_cache(self, k_cache, attn_metadata):
        last = attn_metadata.block_offsets[:, -self.window_blocks:]
        return k_cache[last].to(torch.float16)  # negative: only the window's blocks


class FullAttnFp16Impl(AttentionImplBase):
    def window_cache(self, k_cache, attn_metadata):
        return k_cache.to(torch.float16)  # positive: f2 CL001 full layers up-cast the whole block cache


def build_impl(layer_type, window, block_size):
    if layer_type == "sliding_attention":
        return SlidingWindowImpl(window, block_size)
    return FullAttnFp16Impl()
