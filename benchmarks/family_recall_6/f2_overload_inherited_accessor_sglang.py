"""A typed pool with @overload accessors; a subclass inherits them; backends call through the subclass."""
from typing import Literal, Tuple, overload

import torch


class TypedKVPool:
    def __init__(self, size, heads, dim, layers, dtype):
        self.k_buffer = [torch.zeros(size + 1, heads, dim, dtype=dtype) for _ in range(layers)]
        self.v_buffer = [torch.zeros(size + 1, heads, dim, dtype=dtype) for _ in range(layers)]

    @overload
    def buffer(self, layer_id: int) -> Tuple[torch.Tensor, torch.Tensor]: ...
    @overload
    def buffer(self, layer_id: int, which: Literal["k", "v"]) -> torch.Tensor: ...

    def buffer(self, layer_id, which=None):
        if which is None:
            return self.k_buffer[layer_id], self.v_buffer[layer_id]
        return self.k_buffer[layer_id] if which == "k" else self.v_buffer[layer_id]


class TypedFP8KVPool(TypedKVPool):
    def __init__(self, size, heads, dim, layers):
        super().__init__(size, heads, dim, layers, torch.float8_e5m2)
        self.k_scale = torch.ones(layers)


class TorchNativeBackend:
    def __init__(self, pool: TypedFP8KVPool):
        self.pool = pool

    def forward_extend(self, q, k, v, layer, forward_batch):
        kb, vb = self.pool.buffer(layer.layer_id)
        k32 = kb.float()  # positive: f2 CL001 the inherited accessor returns the whole key plane
        v16 = self.pool.buffer(layer.layer_id, "v").to(q.dtype)  # positive: f2 CL001 whole value plane
        ks = self.pool.k_scale[layer.layer_id].to(q.dtype)  # negative: a scale
        rows = kb[forward_batch.out_cache_loc].to(q.dtype)  # negative: gather-then-cast
        same = kb.to(torch.float8_e5m2)  # negative: the plane's own dtype
        return k32, v16, ks, rows
