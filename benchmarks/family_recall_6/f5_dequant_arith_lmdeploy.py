"""Dequantization arithmetic on the whole int8/fp8 caches (cast, subtract zeros, multiply scales)."""
import torch


class QuantFallbackAttention(torch.nn.Module):
    def __init__(self, quant_policy=8):
        super().__init__()
        self.quant_policy = quant_policy

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        ks, kz = k_scales_zeros.unbind(-1)
        vs, vz = v_scales_zeros.unbind(-1)
        kd = (k_cache.to(query.dtype) - kz.unsqueeze(-1)) * ks.unsqueeze(-1)  # positive: f5 CL001 whole key cache cast inside the dequant expression
        vd = torch.mul(v_cache.float(), vs.unsqueeze(-1))  # positive: f5 CL001 whole value cache cast inside torch.mul
        kd2 = torch.addcmul(kz.unsqueeze(-1), k_cache.half(), ks.unsqueeze(-1))  # positive: f5 CL001 whole key cache cast inside addcmul
        blk = attn_metadata.block_offsets
        part = (v_cache[blk].to(query.dtype) - vz[blk].unsqueeze(-1)) * vs[blk].unsqueeze(-1)  # negative: gather-then-cast
        s = ks.to(query.dtype)  # negative: scales
        kq = torch.round(key.float() / ks[0, 0]).to(torch.int8)  # negative: quantizing the step's keys for the writer
        return kd, vd, kd2, part, s
