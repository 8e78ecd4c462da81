"""lmdeploy-like cache engine: list of (k, v) per layer, with swap and a debug dump."""
from typing import List, Tuple

import torch


class CacheEngineLike:
    def __init__(self, num_layers, num_blocks, block_size, num_heads, head_size, dtype=torch.float8_e4m3fn):
        self.gpu_cache: List[Tuple[torch.Tensor, torch.Tensor]] = [
            (
                torch.empty((num_blocks, block_size, num_heads, head_size), dtype=dtype, device="cuda"),
                torch.empty((num_blocks, block_size, num_heads, head_size), dtype=dtype, device="cuda"),
            )
            for _ in range(num_layers)
        ]
        self.cpu_cache = [(torch.empty_like(k, device="cpu"), torch.empty_like(v, device="cpu")) for k, v in self.gpu_cache]  # negative: allocation, same dtype
        self.fp16_mirror = [torch.empty((num_blocks, block_size, num_heads, head_size), dtype=torch.float16, device="cuda") for _ in range(num_layers)]

    def swap_out(self, src_to_dst: dict):
        for (gk, gv), (ck, cv) in zip(self.gpu_cache, self.cpu_cache):
            for s, d in src_to_dst.items():
                ck[d].copy_(gk[s], non_blocking=True)  # negative: per-block copy, same dtype
                cv[d].copy_(gv[s], non_blocking=True)  # negative: per-block copy, same dtype

    def mirror_fp16(self, layer_idx):
        k_cache, _ = self.gpu_cache[layer_idx]
        self.fp16_mirror[layer_idx].copy_(k_cache)  # positive: f3 CL001 copy_ of a whole layer into a buffer of another dtype

    def dump(self, layer_idx):
        k_cache, v_cache = self.gpu_cache[layer_idx]
        return k_cache.float().cpu(), v_cache.float().cpu()  # positive: f3 CL001 whole layer upcast for dump
