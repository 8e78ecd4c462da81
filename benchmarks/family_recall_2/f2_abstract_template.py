# Template-method backends: the base casts what an abstract hook returns; subclasses supply it.
from abc import ABC, abstractmethod

import torch


class PagedAttnTemplate(ABC):
    compute_dtype = torch.bfloat16

    @abstractmethod
    def cache_for(self, layer_id: int) -> torch.Tensor:
        ...

    @abstractmethod
    def rows_for(self, layer_id: int, loc: torch.Tensor) -> torch.Tensor:
        ...

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        cache = self.cache_for(layer.layer_id)
        cache_c = cache.to(self.compute_dtype)  # positive: f2 CL001 a subclass's cache_for returns the whole pool
        rows_c = self.rows_for(layer.layer_id, forward_batch.out_cache_loc).to(self.compute_dtype)  # negative: every rows_for gathers
        return cache_c, rows_c


class PoolBackedAttn(PagedAttnTemplate):
    def __init__(self, pool):
        self.pool = pool

    def cache_for(self, layer_id: int) -> torch.Tensor:
        return self.pool.get_key_buffer(layer_id)

    def rows_for(self, layer_id: int, loc: torch.Tensor) -> torch.Tensor:
        return self.pool.get_key_buffer(layer_id).index_select(0, loc)


class ScratchBackedAttn(PagedAttnTemplate):
    def __init__(self, max_bs: int, dim: int):
        self.scratch = torch.empty((max_bs, dim), dtype=torch.float8_e4m3fn, device="cuda")

    def cache_for(self, layer_id: int) -> torch.Tensor:
        return self.scratch

    def rows_for(self, layer_id: int, loc: torch.Tensor) -> torch.Tensor:
        return self.scratch[loc]


class TwoStageTemplate(ABC):
    @abstractmethod
    def _kv(self, layer_id: int):
        raise NotImplementedError

    def prefill(self, q, layer):
        k_cache, v_cache = self._kv(layer.layer_id)
        k32 = k_cache.float()  # positive: f2 CL001 first half of the subclass's whole kv pair
        v32 = v_cache.float()  # positive: f2 CL001 second half of the subclass's whole kv pair
        return k32, v32


class MHATwoStage(TwoStageTemplate):
    def __init__(self, pool):
        self._pool = pool

    def _kv(self, layer_id: int):
        return self._pool.get_kv_buffer(layer_id)
