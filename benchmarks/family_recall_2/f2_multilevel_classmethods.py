# Multi-level pool hierarchy with class- and static-method accessors.
from typing import List, Optional

import torch


class KVCacheBase:
    def __init__(self, size: int, page_size: int, dtype: torch.dtype, layer_num: int, device: str, start_layer: Optional[int] = None):
        self.size = size
        self.page_size = page_size
        self.dtype = dtype
        self.layer_num = layer_num
        self.device = device
        self.start_layer = start_layer or 0

    @staticmethod
    def whole_layer(buffers: List[torch.Tensor], local_id: int) -> torch.Tensor:
        return buffers[local_id]

    @classmethod
    def layer_of(cls, pool: "KVCacheBase", layer_id: int) -> torch.Tensor:
        return cls.whole_layer(pool.k_buffer, layer_id - pool.start_layer)


class MHAPoolLike(KVCacheBase):
    def __init__(self, size, page_size, dtype, head_num, head_dim, layer_num, device, start_layer=None):
        super().__init__(size, page_size, dtype, layer_num, device, start_layer)
        self.k_buffer = [
            torch.zeros((size + page_size, head_num, head_dim), dtype=dtype, device=device)
            for _ in range(layer_num)
        ]
        self.v_buffer = [
            torch.zeros((size + page_size, head_num, head_dim), dtype=dtype, device=device)
            for _ in range(layer_num)
        ]


class SWAPoolLike(MHAPoolLike):
    def swa_values(self, layer_id: int) -> torch.Tensor:
        return KVCacheBase.whole_layer(self.v_buffer, layer_id - self.start_layer)


class ClassmethodBackend:
    def __init__(self, pool: SWAPoolLike, compute_dtype: torch.dtype):
        self.pool = pool
        self.compute_dtype = compute_dtype

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k_all = SWAPoolLike.layer_of(self.pool, layer.layer_id).to(q.dtype)  # positive: f2 CL001 classmethod inherited two levels up returns a whole layer
        v_all = self.pool.swa_values(layer.layer_id).to(self.compute_dtype)  # positive: f2 CL001 subclass method using the base's staticmethod
        direct = KVCacheBase.whole_layer(self.pool.k_buffer, 0).float()  # positive: f2 CL001 staticmethod called on the base class
        rows = SWAPoolLike.layer_of(self.pool, layer.layer_id)[forward_batch.out_cache_loc].to(q.dtype)  # negative: gathered rows
        tokens = KVCacheBase.whole_layer([k, v], 0).to(q.dtype)  # negative: the staticmethod over batch tensors returns k
        return k_all, v_all, direct, rows, tokens
