"""torch.* functional forms of transpose/permute/squeeze keep the cache whole."""

import torch


class FunctionalAttention:
    def __init__(self, cache_engine, dtype=torch.float16):
        self.gpu_cache = cache_engine.gpu_cache
        self.dtype = dtype

    def forward(self, query, key, value, attn_metadata, layer_idx):
        k_cache, v_cache = self.gpu_cache[layer_idx]
        kt = torch.transpose(k_cache, 1, 2)
        kd = kt.to(self.dtype)  # positive: f5 CL001 torch.transpose of the whole k cache, then cast
        vp = torch.permute(v_cache, (0, 2, 1, 3)).to(self.dtype)  # positive: f5 CL001 torch.permute of the whole v cache, then cast
        ks = torch.unsqueeze(torch.squeeze(k_cache, -1), 0)
        ksd = ks.float()  # positive: f5 CL001 torch.squeeze/unsqueeze of the whole k cache
        qt = torch.transpose(query, 0, 1).to(self.dtype)  # negative: batch query
        sel = torch.index_select(k_cache, 0, attn_metadata.block_offsets.flatten()).to(self.dtype)  # negative: gather-then-cast
        return torch.ops.lmdeploy.ref_attn(qt, kd, vp, ksd, sel)

    def forward_decode(self, query, attn_metadata, layer_idx):
        k_cache, v_cache = self.gpu_cache[layer_idx]
        vflat = torch.flatten(v_cache, 0, 1).to(self.dtype)  # positive: f5 CL001 torch.flatten of the whole v cache
        kview = torch.transpose(k_cache, 1, 2).view(torch.int8)  # negative: transpose then reinterpret
        kq = torch.transpose(query, 0, 1).contiguous().to(self.dtype)  # negative: batch query
        kk = torch.squeeze(k_cache[attn_metadata.block_offsets[0]], -1).float()  # negative: one sequence's blocks
        same = torch.flatten(k_cache, 0, 1).to(k_cache.dtype)  # negative: own dtype, no conversion
        lens = torch.unsqueeze(attn_metadata.kv_seqlens, 0).long()  # negative: lengths
        return torch.ops.lmdeploy.ref_attn(kq, vflat, kview, kk, same, lens)
