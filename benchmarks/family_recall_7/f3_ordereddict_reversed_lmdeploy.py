"""f3: caches held in an OrderedDict; the newest layer via next(reversed(values())), others via move_to_end."""
from collections import OrderedDict

import torch


class OrderedCacheEngine:
    def __init__(self, num_layers, num_blocks, block_size, heads, dim, dtype):
        self.caches = OrderedDict()
        for i in range(num_layers):
            self.caches[i] = (
                torch.empty((num_blocks, block_size, heads, dim), dtype=dtype, device="cuda"),
                torch.empty((num_blocks, block_size, heads, dim), dtype=dtype, device="cuda"),
            )
        self.block_tables = OrderedDict()


class OrderedAttention:
    def __init__(self, engine: OrderedCacheEngine, layer_idx):
        self.engine = engine
        self.layer_idx = layer_idx

    def forward(self, query, key, value, attn_metadata):
        last_k, last_v = next(reversed(self.engine.caches.values()))
        tail = last_k.to(query.dtype)  # positive: f3 CL001 last layer's whole K cache
        tail_rows = last_k[attn_metadata.block_offsets[0]].to(query.dtype)  # negative: one request's blocks
        self.engine.caches.move_to_end(self.layer_idx)
        _, (k_c, v_c) = self.engine.caches.popitem(last=True)
        self.engine.caches[self.layer_idx] = (k_c, v_c)
        mine = v_c.float()  # positive: f3 CL001 popitem returns this layer's whole V cache
        self.engine.block_tables[self.layer_idx] = attn_metadata.block_offsets
        tables = next(reversed(self.engine.block_tables.values())).to(torch.int64)  # negative: block offsets
        return tail, mine, tables, tail_rows
