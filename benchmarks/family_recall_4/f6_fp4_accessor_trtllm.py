"""A TRT-LLM-style manager with an FP4 pool whose accessor unpacks and converts the layer."""
import torch


class NVFP4KVCacheManager:
    def __init__(self, num_layers, num_blocks, tokens_per_block, num_kv_heads, head_dim, device):
        self.head_dim = head_dim
        self.packed = torch.empty(
            (num_layers, num_blocks, 2, tokens_per_block, num_kv_heads, head_dim // 2), dtype=torch.uint8, device=device
        )
        self.block_scales = torch.empty(
            (num_layers, num_blocks, 2, tokens_per_block, num_kv_heads, head_dim // 16), dtype=torch.float8_e4m3fn, device=device
        )
        self.compute_dtype = torch.bfloat16

    def get_buffers(self, layer_idx: int):
        return self.packed[layer_idx]

    def get_dequantized_buffers(self, layer_idx: int):
        nib = self.packed[layer_idx]
        lo = (nib & 0x0F).to(self.compute_dtype)  # positive: f6 CL004 accessor converts the low nibbles of the whole layer
        hi = (nib >> 4).to(self.compute_dtype)  # positive: f6 CL004 accessor converts the high nibbles of the whole layer
        sc = self.block_scales[layer_idx].to(self.compute_dtype)  # negative: block scales, not a slot buffer
        return torch.stack([lo, hi], dim=-1).flatten(-2) * sc.repeat_interleave(16, dim=-1)

    def get_block_scales(self, layer_idx: int):
        return self.block_scales[layer_idx]


class FP4Attention:
    def __init__(self, layer_idx, num_heads, head_dim):
        self.layer_idx = layer_idx
        self.num_heads = num_heads
        self.head_dim = head_dim

    def forward(self, q, k, v, metadata, **kwargs):
        mgr: NVFP4KVCacheManager = metadata.kv_cache_manager
        dq = mgr.get_dequantized_buffers(self.layer_idx)
        raw = mgr.get_buffers(self.layer_idx)
        used = raw[metadata.block_ids].to(torch.int16)  # negative: blocks gathered first
        ids = metadata.block_ids.to(torch.int32)  # negative: block ids
        return self._attend(q, dq, used, ids)

    def _attend(self, q, *tensors):
        return torch.empty_like(q)
