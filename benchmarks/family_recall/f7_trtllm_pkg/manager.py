"""A KV cache manager with per-layer buffers (TRT-LLM pytorch-flow style)."""
import torch


class SimpleKVCacheManager:
    def __init__(self, num_layers, num_blocks, tokens_per_block, num_kv_heads, head_dim, dtype=torch.float8_e4m3fn):
        self.dtype = dtype
        self.tokens_per_block = tokens_per_block
        self.pools = [
            torch.zeros((num_blocks, 2, tokens_per_block, num_kv_heads, head_dim), dtype=dtype, device="cuda")
            for _ in range(num_layers)
        ]
        self.block_ids_per_seq = {}

    def get_buffers(self, layer_idx: int) -> torch.Tensor:
        return self.pools[layer_idx]

    def get_batch_cache_indices(self, request_ids):
        return [self.block_ids_per_seq[r] for r in request_ids]
