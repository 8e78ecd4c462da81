"""A walker object whose __iter__ yields every layer's buffer from the KV cache manager."""
import torch


class KVCacheManager:
    def __init__(self, num_layers, num_blocks, tokens_per_block, kv_heads, head_dim):
        self.pool = torch.empty(
            (num_layers, num_blocks, 2, tokens_per_block, kv_heads, head_dim),
            dtype=torch.float8_e4m3fn,
            device="cuda",
        )
        self.num_layers = num_layers

    def get_buffers(self, layer_idx):
        return self.pool[layer_idx]

    def get_batch_cache_indices(self, request_ids):
        return [[0, 1, 2] for _ in request_ids]


class LayerWalker:
    def __init__(self, manager):
        self.manager = manager

    def __len__(self):
        return self.manager.num_layers

    def __iter__(self):
        for i in range(len(self)):
            yield self.manager.get_buffers(i)


class BlockIdWalker:
    def __init__(self, manager, request_ids):
        self.rows = manager.get_batch_cache_indices(request_ids)

    def __iter__(self):
        for row in self.rows:
            yield torch.tensor(row, dtype=torch.int32)


class KVDebugDumper:
    def __init__(self, manager):
        self.walker = LayerWalker(manager)

    def forward(self, scheduled_requests, dtype=torch.bfloat16):
        dumped = []
        for buf in self.walker:
            dumped.append(buf.to(dtype))  # positive: f1 CL001 each yielded item is a whole layer buffer
        first = next(iter(self.walker)).float()  # positive: f1 CL001 first layer's whole buffer
        ids = [b.to(torch.int64) for b in BlockIdWalker(self.walker.manager, scheduled_requests)]  # negative: block ids
        peek = next(iter(self.walker)).view(torch.uint8)  # negative: reinterpret
        return dumped, first, ids
