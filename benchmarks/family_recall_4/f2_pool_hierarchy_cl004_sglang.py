"""A pool hierarchy whose lower classes convert inside their accessors."""
from abc import ABC, abstractmethod

import torch


class KVCache(ABC):
    @abstractmethod
    def get_key_buffer(self, layer_id: int) -> torch.Tensor: ...

    @abstractmethod
    def get_value_buffer(self, layer_id: int) -> torch.Tensor: ...


class PagedTokenToKVPool(KVCache):
    def __init__(self, size, head_num, head_dim, dtype, layer_num, device, start_layer=0):
        self.dtype = dtype
        self.store_dtype = torch.uint8 if dtype in (torch.float8_e4m3fn, torch.float8_e5m2) else dtype
        self.start_layer = start_layer
        self.k_buffer = [torch.zeros((size + 1, head_num, head_dim), dtype=self.store_dtype, device=device) for _ in range(layer_num)]
        self.v_buffer = [torch.zeros((size + 1, head_num, head_dim), dtype=self.store_dtype, device=device) for _ in range(layer_num)]

    def _slot(self, bufs, layer_id: int):
        return bufs[layer_id - self.start_layer]

    def get_key_buffer(self, layer_id: int):
        return self._slot(self.k_buffer, layer_id).view(self.dtype)  # negative: .view(dtype) reinterpret

    def get_value_buffer(self, layer_id: int):
        return self._slot(self.v_buffer, layer_id).view(self.dtype)  # negative: .view(dtype) reinterpret


class UpcastingTokenToKVPool(PagedTokenToKVPool):
    def __init__(self, *args, compute_dtype=torch.bfloat16, **kwargs):
        super().__init__(*args, **kwargs)
        self.compute_dtype = compute_dtype
        self._probe = self.k_buffer[0].view(self.dtype).to(compute_dtype)  # negative: __init__-time conversion

    def get_kv_buffer(self, layer_id: int):
        return (
            self.get_key_buffer(layer_id).to(self.compute_dtype),  # positive: f2 CL004 accessor upcasts the whole per-layer key buffer
            self.get_value_buffer(layer_id).to(self.compute_dtype),  # positive: f2 CL004 accessor upcasts the whole per-layer value buffer
        )


class StagedUpcastPool(UpcastingTokenToKVPool):
    def get_key_buffer(self, layer_id: int):
        base = super().get_key_buffer(layer_id)
        if self.compute_dtype != self.dtype:
            base = base.type(self.compute_dtype)  # positive: f2 CL004 overriding accessor converts the whole layer buffer
        return base

    def get_key_rows(self, layer_id: int, loc: torch.Tensor):
        return self._slot(self.k_buffer, layer_id)[loc].view(self.dtype).to(self.compute_dtype)  # negative: rows gathered first


class HierarchyBackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.kernel = model_runner.attn_kernels.extend

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kb, vb = self.pool.get_kv_buffer(layer.layer_id)
        return self.kernel(q, kb, vb)
