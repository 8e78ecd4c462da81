"""lmdeploy-style impl for quantized (int8/fp8) caches, with a quant service object."""
from dataclasses import dataclass

import torch

from lmdeploy.pytorch.backends.attention import AttentionImpl
from lmdeploy.pytorch.kernels.cuda import dequantize_kv_tensor


class KVQuantService:
    def __init__(self, quant_policy: int):
        self.quant_policy = quant_policy

    def raw(self, k_cache):
        return k_cache

    def scales(self, k_scales_zeros):
        return k_scales_zeros[..., 0], k_scales_zeros[..., 1]


@dataclass
class QuantMeta:
    block_offsets: torch.Tensor
    kv_seqlens: torch.Tensor
    max_kv_seqlen: int


class QuantizedCacheImpl(AttentionImpl):
    def __init__(self, num_heads, head_size, scale, quant_policy=8):
        self.num_heads = num_heads
        self.head_size = head_size
        self.scale = scale
        self.quant = KVQuantService(quant_policy)

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata: QuantMeta, k_scales_zeros=None, v_scales_zeros=None, inplace=True):
        s, z = self.quant.scales(k_scales_zeros)  # negative: scale tensors only
        k_deq = dequantize_kv_tensor(self.quant.raw(k_cache), k_scales_zeros, query.dtype)  # positive: f1 CL004 whole cache through service object into dequant
        v_deq = dequantize_kv_tensor(v_cache, v_scales_zeros, query.dtype)  # positive: f1 CL004 dequant of the whole value cache
        offs = attn_metadata.block_offsets
        k_live = dequantize_kv_tensor(k_cache[offs], k_scales_zeros[offs], query.dtype)  # negative: dequant of gathered blocks
        return k_deq, v_deq, k_live, s, z
