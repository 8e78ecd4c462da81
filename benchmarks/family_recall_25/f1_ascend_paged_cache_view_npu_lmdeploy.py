import torch


class AscendCacheView:
    """ND-layout view of one layer's cache for the Ascend paged kernels (no FP8 read)."""

    def __init__(self, k_cache, v_cache):
        self.k_cache = k_cache
        self.v_cache = v_cache

    def nd(self):
        return self.k_cache, self.v_cache

    def blocks(self, block_offsets):
        return self.k_cache[block_offsets], self.v_cache[block_offsets]


class AscendAttentionImpl:
    def forward(self, query, key, value, k_cache, v_cache, attn_metadata):
        view = AscendCacheView(k_cache, v_cache)
        if attn_metadata.is_decoding:
            k_nd, v_nd = view.nd()
            k_nd = k_nd.to(torch.float16)  # positive: f1 CL001 whole key cache returned by the view object
            v_nd = v_nd.half()  # positive: f1 CL001 whole value cache returned by the view object
        else:
            k_nd, v_nd = view.blocks(attn_metadata.block_offsets)
            k_nd, v_nd = k_nd.half(), v_nd.half()  # negative: blocks selected before the cast
        key = key.to(torch.float16)  # negative: new tokens
        return k_nd, v_nd, key
