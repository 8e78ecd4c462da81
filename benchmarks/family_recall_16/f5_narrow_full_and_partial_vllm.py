"""Per-step attention path (narrow full and partial vllm).

Look-alikes sit beside each whole-cache conversion.
"""
import torch


class CPUPagedAttnImpl:
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        key_cache = kv_cache[0]
        value_cache = kv_cache[1]
        n = key_cache.shape[0]
        k_all = key_cache.narrow(0, 0, n).to(query.dtype)  # positive: f5 CL001 narrow over the full extent
        v_all = value_cache.narrow(0, 0, value_cache.size(0)).float()  # positive: f5 CL001 narrow(0, 0, size(0)) keeps every block
        used = attn_metadata.num_used_blocks
        k_used = key_cache.narrow(0, 0, used).to(query.dtype)  # negative: leading used blocks
        v_head = value_cache.narrow(-1, 0, 64).float()  # positive: f5 CL001 last-dim narrow keeps every block
        k_one = key_cache.narrow(0, 3, 1).to(query.dtype)  # negative: one block
        return k_all, v_all, k_used, v_head, k_one
