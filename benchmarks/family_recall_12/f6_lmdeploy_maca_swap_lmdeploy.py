import torch


class MacaCacheEngine:
    def __init__(self, gpu_cache, cpu_cache):
        self.gpu_cache = gpu_cache
        self.cpu_cache = cpu_cache

    def swap_in(self, src_to_dst):
        for (gk, gv), (ck, cv) in zip(self.gpu_cache, self.cpu_cache):
            for s, d in src_to_dst.items():
                gk[d].copy_(ck[s])  # negative: one block per mapping entry
                gv[d].copy_(cv[s])  # negative: one block per mapping entry


class MacaAttentionImpl:
    def __init__(self, num_heads, head_size, paged):
        self.paged = paged

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata,
                k_scales_zeros=None, v_scales_zeros=None, inplace=True):
        if not self.paged:
            k_full = k_cache.flatten(0, 1).to(query.dtype)  # positive: f6 CL001 maca non-paged path flattens and converts the whole cache
            v_full = v_cache.flatten(0, 1).to(query.dtype)  # positive: f6 CL001 same for the value cache
            return k_full, v_full
        kv_len = attn_metadata.kv_seqlens.to(torch.int32)  # negative: lengths
        return query, kv_len
