"""clone / detach / contiguous / .data keep the whole cache; then a cast."""

import torch


class CloneImpl:
    def __init__(self, num_heads, head_size, kv_cache_dtype):
        self.num_heads = num_heads
        self.head_size = head_size
        self.kv_cache_dtype = kv_cache_dtype

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output):
        snap = kv_cache.detach().clone()
        sd = snap.to(query.dtype)  # positive: f5 CL001 detached clone of the whole kv_cache, then cast
        raw = kv_cache.data
        rd = raw.contiguous().to(torch.float32)  # positive: f5 CL001 .data then .contiguous() keep the whole cache
        if self.kv_cache_dtype.startswith("fp8"):
            fp8 = kv_cache.view(torch.float8_e4m3fn)  # negative: view(dtype) reinterpret
            torch.ops._C.fp8_paged_attn(output, query, fp8, attn_metadata.block_table)
        keys = key.detach().clone().to(torch.float32)  # negative: batch key
        torch.ops._C.ref_attn(output, query, sd, rd, keys)
        return output


class CloneGatherImpl(CloneImpl):
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output):
        blocks = attn_metadata.block_table.flatten()
        g = kv_cache.clone().to(query.dtype)[:, blocks]  # positive: f5 CL003 cast of a whole clone, then block gather
        h = kv_cache[:, blocks].clone().to(query.dtype)  # negative: gather-then-cast
        torch.ops._C.ref_attn(output, query, g, h)
        return output
