# DSA-style pool with an indexer key cache beside the latent cache; the indexer reads it.
from typing import Optional

import torch

from sglang.kernels.ops.quantization.dsa_quant_k_cache import quantize_k_cache
from sglang.kernels.ops.attention.dsa.dequant_k_cache import dequantize_k_cache


class IndexedLatentPool:
    quant_block_size = 128

    def __init__(self, size: int, page_size: int, kv_cache_dim: int, index_head_dim: int, layer_num: int, device: str, start_layer: int = 0):
        self.size = size
        self.page_size = page_size
        self.start_layer = start_layer
        self.kv_buffer = [torch.zeros((size + page_size, 1, kv_cache_dim), dtype=torch.uint8, device=device) for _ in range(layer_num)]
        self.index_k_with_scale_buffer = [
            torch.zeros(((size + page_size) // page_size, page_size * (index_head_dim + index_head_dim // self.quant_block_size * 4)), dtype=torch.uint8, device=device)
            for _ in range(layer_num)
        ]

    def get_index_k_with_scale_buffer(self, layer_id: int) -> torch.Tensor:
        return self.index_k_with_scale_buffer[layer_id - self.start_layer]

    def latent_of(self, layer_id: int) -> torch.Tensor:
        return self.kv_buffer[layer_id - self.start_layer]


class IndexerLike:
    def __init__(self, pool: IndexedLatentPool, index_head_dim: int):
        self.pool = pool
        self.index_head_dim = index_head_dim

    def score_all(self, q_index: torch.Tensor, layer_id: int):
        idx_cache = self.pool.get_index_k_with_scale_buffer(layer_id)
        as_float = idx_cache.view(torch.float8_e4m3fn).float()  # positive: f6 CL001 reinterpret then upcast of every page of the indexer cache
        pages = idx_cache[: self.pool.size // self.pool.page_size].to(torch.float32)  # positive: f6 CL001 slice bounded by the pool's own extent keeps every page
        return as_float, pages

    def score_pages(self, q_index: torch.Tensor, layer_id: int, page_ids: torch.Tensor):
        idx_cache = self.pool.get_index_k_with_scale_buffer(layer_id)
        sel = idx_cache[page_ids].view(torch.float8_e4m3fn).float()  # negative: pages gathered before the upcast
        qi = q_index.to(torch.float32)  # negative: indexer query of this step
        return sel, qi


class DSALikeBackend:
    def __init__(self, pool: IndexedLatentPool):
        self.pool = pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kv_cache = self.pool.latent_of(layer.layer_id)
        requant = quantize_k_cache(kv_cache)  # positive: f6 CL004 whole latent cache re-quantized by the DSA helper
        deq = dequantize_k_cache(self.pool.latent_of(layer.layer_id))  # positive: f6 CL004 whole latent cache dequantized
        new_q = quantize_k_cache(k)  # negative: quantizes the new k only
        return requant, deq, new_q
