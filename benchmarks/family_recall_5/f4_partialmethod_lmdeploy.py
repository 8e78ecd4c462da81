"""A generic caster exposed through functools.partialmethod."""

from functools import partialmethod

import torch


class CastOps:
    def _cast(self, t, dtype):
        return t.to(dtype)  # note: generic, called with caches and with batch tensors; labelled at the callers

    to_half = partialmethod(_cast, dtype=torch.float16)
    to_fp32 = partialmethod(_cast, dtype=torch.float32)

    def _move(self, t, device):
        return t.to(device)

    to_gpu = partialmethod(_move, device="cuda")


class PartialMethodAttention(CastOps):
    def __init__(self, cache_engine):
        self.cache_engine = cache_engine

    def forward(self, query, key, value, attn_metadata, layer_idx):
        k_cache, v_cache = self.cache_engine.gpu_cache[layer_idx]
        kh = self.to_half(k_cache)  # positive: f4 CL001 partialmethod cast of the whole k cache
        vh = self.to_fp32(v_cache)  # positive: f4 CL001 partialmethod cast of the whole v cache
        qh = self.to_half(query)  # negative: batch query through the same partialmethod
        kv_lens = self.to_fp32(attn_metadata.kv_seqlens)  # negative: kv lengths
        return torch.ops.lmdeploy.paged_attn(qh, kh, vh, kv_lens, attn_metadata.block_offsets)

    def forward_decode(self, query, attn_metadata, layer_idx):
        k_cache, _ = self.cache_engine.gpu_cache[layer_idx]
        kg = self.to_gpu(k_cache)  # negative: partialmethod of a device move
        kb = self.to_half(k_cache[attn_metadata.block_offsets])  # negative: gathered blocks through the partialmethod
        return torch.ops.lmdeploy.decode_attn(query, kg, kb)
