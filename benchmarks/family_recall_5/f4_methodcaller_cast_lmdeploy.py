"""operator.methodcaller("to", dtype) and map over cache planes."""

import operator

import torch

to_f32 = operator.methodcaller("to", torch.float32)
to_dev = operator.methodcaller("to", "cuda", non_blocking=True)
as_bytes = operator.methodcaller("view", torch.uint8)


class MethodCallerAttention:
    def __init__(self, cache_engine):
        self.gpu_cache = cache_engine.gpu_cache
        self.host_cache = cache_engine.cpu_cache
        self.host_probe = to_f32(self.host_cache[0][0])  # negative: __init__-time conversion of a host cache

    def forward(self, query, key, value, attn_metadata, layer_idx):
        k_cache, v_cache = self.gpu_cache[layer_idx]
        kf = to_f32(k_cache)  # positive: f4 CL001 methodcaller("to", float32) applied to the whole k cache
        vf, _ = map(to_f32, (v_cache, attn_metadata.kv_seqlens))  # positive: f4 CL001 map of the methodcaller over the whole v cache (and lengths)
        qf = to_f32(query)  # negative: batch query
        hk = to_dev(attn_metadata.block_offsets)  # negative: .to(device) without a dtype
        return torch.ops.lmdeploy.ref_attn(qf, kf, vf, hk)

    def forward_lookalikes(self, query, attn_metadata, layer_idx):
        k_cache, v_cache = self.gpu_cache[layer_idx]
        kb = as_bytes(k_cache)  # negative: methodcaller of view(dtype), a reinterpret
        vd = to_dev(v_cache)  # negative: methodcaller of .to(device)
        rows = to_f32(k_cache[attn_metadata.block_offsets])  # negative: gather-then-cast through the methodcaller
        return torch.ops.lmdeploy.ref_attn(query, kb, vd, rows)
