"""einops repeat/rearrange of whole caches before a cast."""
import einops
import torch
from einops import rearrange, repeat


class EinopsAttention:
    def __init__(self, num_heads, num_kv_heads, head_size, scale):
        self.num_heads = num_heads
        self.num_kv_heads = num_kv_heads
        self.num_groups = num_heads // num_kv_heads
        self.head_size = head_size
        self.scale = scale

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None, **kwargs):
        kr = repeat(k_cache, "b s h d -> b s (h g) d", g=self.num_groups).to(query.dtype)  # positive: f5 CL001 repeat of the whole k cache then cast
        vr = rearrange(v_cache, "b s h d -> (b s) h d")
        vr = vr.half()  # positive: f5 CL001 rearranged whole v cache
        qr = rearrange(query, "t (h d) -> t h d", d=self.head_size).float()  # negative: query
        picked = rearrange(k_cache[attn_metadata.block_offsets[0]], "b s h d -> (b s) h d").to(query.dtype)  # negative: gathered blocks first
        both = einops.rearrange(torch.stack([k_cache, v_cache]), "two b s h d -> b s two h d").bfloat16()  # positive: f5 CL001 stack of both caches, rearranged, cast
        zs = k_scales_zeros.to(query.dtype) if k_scales_zeros is not None else None  # negative: scales/zeros
        return self._decode(qr, kr, vr, picked, both, zs)

    def _decode(self, q, *tensors):
        return torch.empty_like(q)


class EinopsPrefill(EinopsAttention):
    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None, **kwargs):
        kk = repeat(key, "t h d -> t (h g) d", g=self.num_groups).to(query.dtype)  # negative: batch key
        vv = rearrange(value, "t h d -> h t d").to(query.dtype)  # negative: batch value
        offs = rearrange(attn_metadata.block_offsets, "b n -> (b n)").to(torch.int64)  # negative: block table
        last = einops.rearrange(v_cache[attn_metadata.block_offsets[-1]], "b s h d -> (b s) h d").float()  # negative: gathered blocks
        return self._decode(query, kk, vv, offs, last)


def expand_scales(k_scales_zeros, num_groups):
    return repeat(k_scales_zeros, "b s h d -> b s (h g) d", g=num_groups).float()  # negative: scales and zeros


def kv_heads(k_cache):
    return k_cache.shape[2]
