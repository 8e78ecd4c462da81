import torch


class HPUPagedKVPool:
    """Gaudi: per-layer flat caches [num_blocks * block_size, num_kv_heads, head_size]."""

    def __init__(self, num_layers, num_blocks, block_size, num_kv_heads, head_size, cache_dtype, compute_dtype):
        shape = (num_blocks * block_size, num_kv_heads, head_size)
        self.k_caches = [torch.zeros(shape, dtype=cache_dtype, device="hpu") for _ in range(num_layers)]
        self.v_caches = [torch.zeros(shape, dtype=cache_dtype, device="hpu") for _ in range(num_layers)]
        self.block_size = block_size
        self.compute_dtype = compute_dtype

    def get_key_cache(self, layer_idx):
        return self.k_caches[layer_idx].to(self.compute_dtype)  # positive: f6 CL004 the pool's accessor widens the whole per-layer cache

    def fetch_value_blocks(self, layer_idx, block_indices):
        blocks = self.v_caches[layer_idx].unflatten(0, (-1, self.block_size))
        return blocks.index_select(0, block_indices).to(self.compute_dtype)  # negative: blocks of the batch

    def write(self, layer_idx, slots, key, value):
        self.k_caches[layer_idx].index_copy_(0, slots, key.to(self.k_caches[layer_idx].dtype))  # negative: new tokens


class HPUAttentionImpl:
    def forward(self, layer, query, key, value, kv_pool, attn_metadata, output=None):
        kv_pool.write(layer.layer_idx, attn_metadata.slot_mapping, key, value)
        keys = kv_pool.get_key_cache(layer.layer_idx)
        values = kv_pool.fetch_value_blocks(layer.layer_idx, attn_metadata.block_list)
        return self._flat_pa(query, keys, values, attn_metadata)
