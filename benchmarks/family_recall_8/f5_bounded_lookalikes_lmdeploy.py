import torch


class LookalikeAttentionImpl:
    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        n = attn_metadata.block_offsets.size(0)
        a = k_cache[:n].to(query.dtype)  # negative: first n blocks, bounded by the batch
        b = k_cache.narrow(0, 0, n).float()  # negative: narrowed to the batch's block count
        c = v_cache.view(torch.uint8)  # negative: reinterpret
        d = v_cache.to("cuda:1")  # negative: device move
        e = torch.index_select(k_cache, 0, attn_metadata.block_offsets.flatten()).half()  # negative: index_select of the step's blocks
        f = k_cache.new_zeros(4, dtype=torch.float32)  # negative: allocation
        g = k_cache.shape[0] * torch.ones(1, dtype=torch.int32)  # negative: shape metadata
        h = v_scales_zeros.float()  # negative: scales/zeros
        i = torch.stack([k_cache, v_cache], dim=0).to(query.dtype)  # positive: f5 CL001 stack of both whole caches
        return a, b, c, d, e, f, g, h, i
