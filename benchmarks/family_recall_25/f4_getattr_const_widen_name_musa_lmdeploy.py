import torch


class MUSAPagedAttentionImpl:
    """MUSA paged attention: no FP8/int8 cache read; widen through a named tensor method."""

    WIDEN = "half"

    def __init__(self, num_heads, head_size, scale):
        self.num_heads = num_heads
        self.head_size = head_size
        self.scale = scale

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        widen = getattr(k_cache, self.WIDEN)
        k_dense = widen()  # positive: f4 CL001 bound k_cache.half via getattr with a class constant, whole cache
        v_dense = getattr(v_cache, "half")()  # positive: f4 CL001 getattr with a literal name, whole value cache
        kz = getattr(k_scales_zeros, self.WIDEN)() if k_scales_zeros is not None else None  # negative: scales/zeros
        q = getattr(query, self.WIDEN)()  # negative: query
        return k_dense, v_dense, kz, q
