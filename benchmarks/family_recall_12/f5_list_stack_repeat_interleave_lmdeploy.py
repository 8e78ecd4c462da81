import torch


class PageListImpl:
    def __init__(self, block_size):
        self.block_size = block_size

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata,
                k_scales_zeros=None, v_scales_zeros=None, inplace=True):
        pages = list(k_cache)
        k_all = torch.stack(pages).half()  # positive: f5 CL001 every page of k_cache, re-stacked
        v_rep = v_cache.repeat_interleave(1, dim=0).half()  # positive: f5 CL001 repeat_interleave by 1 keeps the whole cache
        first = torch.stack(pages[:1]).half()  # negative: one page
        rep = attn_metadata.kv_seqlens.repeat_interleave(2).long()  # negative: lengths
        return k_all, v_rep, first, rep

    def fill_cache(self, key, k_cache, attn_metadata):
        k_cache[attn_metadata.fill_blocks] = key.to(k_cache.dtype)  # negative: writer of the step's keys
        return k_cache
