"""vLLM CPU backend: a CPU KV pool whose layer getter returns the whole fp8 layer as bf16 (CL004)."""
import torch


class CPUKVPool:
    def __init__(self, num_layers, num_blocks, block_size, num_heads, head_size, cache_dtype=torch.float8_e5m2):
        shape = (2, num_blocks, block_size, num_heads, head_size)
        self.caches = [torch.zeros(shape, dtype=cache_dtype) for _ in range(num_layers)]  # negative: allocation
        self.compute_dtype = torch.bfloat16

    def layer(self, idx):
        return self.caches[idx].to(self.compute_dtype)  # positive: f6 CL004 the pool's accessor converts the whole layer

    def layer_blocks(self, idx, block_ids):
        return self.caches[idx][:, block_ids].to(self.compute_dtype)  # negative: block gather


class CPUSDPAImpl:
    def __init__(self, pool, layer_idx):
        self.pool = pool
        self.layer_idx = layer_idx

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        if attn_metadata.num_decode_tokens:
            kv = self.pool.layer(self.layer_idx)
        else:
            kv = self.pool.layer_blocks(self.layer_idx, attn_metadata.block_tables[:, 0])
        return query.to(torch.bfloat16), kv  # negative: query
