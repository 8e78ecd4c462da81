import torch


class OffsetKVManager:
    """One big arena; each layer is a fixed slice of it."""

    def __init__(self, num_layers, num_blocks, tokens_per_block, num_kv_heads, head_dim, dtype, device):
        self.pool_tensor = torch.empty(
            (num_layers, num_blocks, 2, tokens_per_block, num_kv_heads, head_dim), dtype=dtype, device=device
        )
        self.layer_offsets = {i: i for i in range(num_layers)}
        self.block_tables = torch.zeros((256, num_blocks), dtype=torch.int32, device=device)

    def get_layer_pool(self, layer_idx: int) -> torch.Tensor:
        return self.pool_tensor[self.layer_offsets[layer_idx]]

    def get_block_table(self, request_ids) -> torch.Tensor:
        return self.block_tables[request_ids]


class OffsetAttention:
    def __init__(self, layer_idx):
        self.layer_idx = layer_idx

    def forward(self, q, k, v, metadata, **kwargs):
        mgr: OffsetKVManager = metadata.kv_cache_manager
        layer_pool = mgr.get_layer_pool(self.layer_idx).to(q.dtype)  # positive: f6 CL001 custom manager accessor returns a layer slice of the arena
        table = mgr.get_block_table(metadata.request_ids).to(torch.int64)  # negative: block table
        everything = mgr.pool_tensor.float()  # positive: f6 CL001 the whole arena, all layers
        return layer_pool, table, everything
