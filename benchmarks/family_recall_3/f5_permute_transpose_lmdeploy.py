import torch


class PermutedCacheAttention:
    def forward(self, query, key, value, past_key_value, attn_metadata):
        k_cache, v_cache = past_key_value
        kc = k_cache.permute(0, 2, 1, 3).contiguous().to(query.dtype)  # positive: f5 CL001 permute+contiguous of the whole k cache then cast
        vc = v_cache.transpose(1, 2).float()  # positive: f5 CL001 transpose of the whole v cache then float
        qt = query.transpose(0, 1).float()  # negative: query
        offs = attn_metadata.block_offsets.permute(1, 0).to(torch.int64)  # negative: block table
        return kc, vc, qt, offs
