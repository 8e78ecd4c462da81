"""Per-layer (key, value) halves kept in dict(zip(range(n), zip(keys, values)))."""
import torch


class DenseKVFallbackAttention:
    def __init__(self, kv_cache_manager, num_layers):
        keys = [kv_cache_manager.get_buffers(i)[:, 0] for i in range(num_layers)]
        values = [kv_cache_manager.get_buffers(i)[:, 1] for i in range(num_layers)]
        self.kv = dict(zip(range(num_layers), zip(keys, values)))
        self.warm = keys[0].to(torch.bfloat16)  # negative: one-time setup in __init__

    def forward(self, q, k, v, metadata, layer_idx):
        key_buf, value_buf = self.kv[layer_idx]
        if metadata.use_paged_gather:
            block_ids = metadata.kv_cache_block_offsets[0, : metadata.num_seqs].flatten()
            key_rows = key_buf[block_ids].to(q.dtype)  # negative: gathered blocks
            value_rows = value_buf[block_ids].to(q.dtype)  # negative: gathered blocks
            return self._sdpa(q, key_rows, value_rows, metadata)
        key_dense = key_buf.to(q.dtype)  # positive: f3 CL001 key half of every block of the layer
        value_dense = value_buf.to(q.dtype)  # positive: f3 CL001 value half of every block of the layer
        return self._sdpa(q, key_dense, value_dense, metadata)
