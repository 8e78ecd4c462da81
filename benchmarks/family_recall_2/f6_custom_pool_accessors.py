# Engine-defined pool classes with accessors of their own naming.
from typing import Optional, Tuple

import torch


class ArenaPool:
    def __init__(self, size: int, page_size: int, head_num: int, head_dim: int, layer_num: int, dtype: torch.dtype, device: str, start_layer: int = 0):
        self.size = size
        self.page_size = page_size
        self.start_layer = start_layer
        self.dtype = dtype
        self.k_buffer = [torch.zeros((size + page_size, head_num, head_dim), dtype=dtype, device=device) for _ in range(layer_num)]
        self.v_buffer = [torch.zeros((size + page_size, head_num, head_dim), dtype=dtype, device=device) for _ in range(layer_num)]

    def _local(self, layer_id: int) -> int:
        return layer_id - self.start_layer

    def layer_arena(self, layer_id: int) -> torch.Tensor:
        return self.k_buffer[self._local(layer_id)]

    def value_arena(self, layer_id: int) -> torch.Tensor:
        return self.v_buffer[layer_id - self.start_layer]

    def fetch(self, lid: int) -> Tuple[torch.Tensor, torch.Tensor]:
        return self.layer_arena(lid), self.value_arena(lid)

    def slot_rows(self, layer_id: int, loc: torch.Tensor) -> torch.Tensor:
        return self.k_buffer[layer_id - self.start_layer][loc]

    def head_slice(self, layer_id: int, h0: int, h1: int) -> torch.Tensor:
        return self.k_buffer[layer_id - self.start_layer][:, h0:h1]

    def arena_fp32(self, layer_id: int) -> torch.Tensor:
        return self.k_buffer[layer_id - self.start_layer].float()  # positive: f6 CL001 the pool converts its own arena in a custom accessor


class DelegatingPool:
    """Wraps a pool for pipeline stages; layer ids are shifted by an offset."""

    def __init__(self, inner: ArenaPool, offset: int):
        self.inner = inner
        self.offset = offset

    def layer_arena(self, layer_id: int) -> torch.Tensor:
        return self.inner.layer_arena(layer_id + self.offset)


class ArenaBackend:
    def __init__(self, pool: ArenaPool, staged: DelegatingPool, dtype: torch.dtype):
        self.pool = pool
        self.staged = staged
        self.dtype = dtype

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        a = self.pool.layer_arena(layer.layer_id).to(q.dtype)  # positive: f6 CL001 custom accessor with a computed local index
        kk, vv = self.pool.fetch(layer.layer_id)
        b = vv.half()  # positive: f6 CL001 fetch() pairs two custom accessors
        c = self.staged.layer_arena(layer.layer_id).bfloat16()  # positive: f6 CL001 delegation to another pool's accessor
        d = self.pool.head_slice(layer.layer_id, 0, 4).to(self.dtype)  # positive: f6 CL001 a head slice still holds every slot
        e = self.pool.slot_rows(layer.layer_id, forward_batch.out_cache_loc).to(q.dtype)  # negative: custom accessor that gathers
        f = self.pool.arena_fp32(layer.layer_id)
        return a, b, c, d, e, f
