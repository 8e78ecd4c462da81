"""f6: an lmdeploy-style int8 cache engine whose getter dequantizes whole layers (CL004)."""
import torch


class QuantCacheEngine:
    def __init__(self, num_layers, num_blocks, block_size, heads, dim):
        shape = (num_blocks, block_size, heads, dim)
        self.gpu_cache = [
            (torch.empty(shape, dtype=torch.int8, device="cuda"), torch.empty(shape, dtype=torch.int8, device="cuda"))
            for _ in range(num_layers)
        ]
        sz = (num_blocks, block_size, heads, 2)
        self.scales_zeros = [
            (torch.ones(sz, dtype=torch.float16, device="cuda"), torch.ones(sz, dtype=torch.float16, device="cuda"))
            for _ in range(num_layers)
        ]

    def get_dequant_cache(self, layer):
        k, v = self.gpu_cache[layer]
        ks, vs = self.scales_zeros[layer]
        k_deq = (k.to(torch.float16) - ks[..., 1:]) * ks[..., :1]  # positive: f6 CL004 getter dequantizes the whole K layer
        v_deq = (v.half() - vs[..., 1:]) * vs[..., :1]  # positive: f6 CL004 and the whole V layer
        return k_deq, v_deq

    def get_block_dequant(self, layer, block_offsets):
        k, _ = self.gpu_cache[layer]
        ks, _ = self.scales_zeros[layer]
        return (k[block_offsets].half() - ks[block_offsets][..., 1:]) * ks[block_offsets][..., :1]  # negative: the step's blocks

    def get_scales(self, layer):
        return self.scales_zeros[layer][0].float()  # negative: scales/zeros


class DequantAttention:
    def __init__(self, engine: QuantCacheEngine, layer_idx):
        self.engine = engine
        self.layer_idx = layer_idx

    def forward(self, query, key, value, attn_metadata):
        k_deq, v_deq = self.engine.get_dequant_cache(self.layer_idx)
        return query, k_deq, v_deq
