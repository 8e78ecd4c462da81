"""Generic Base[P] backends: the type parameter is the pool class, the attribute holds the pool."""
from typing import Generic, TypeVar

import torch

P = TypeVar("P")


class Handle(Generic[P]):
    def __init__(self, value: P):
        self._value = value

    def get(self) -> P:
        return self._value


class TypedBackend(Generic[P]):
    def __init__(self, model_runner):
        self.pool_handle: Handle[P] = Handle(model_runner.token_to_kv_pool)
        max_bs = model_runner.server_args.max_running_requests
        self.lens_handle: Handle[torch.Tensor] = Handle(torch.zeros(max_bs, dtype=torch.int64))
        self.model_dtype = model_runner.dtype

    def pool(self) -> P:
        return self.pool_handle.get()


class MLATypedBackend(TypedBackend["MLATokenToKVPool"]):
    def __init__(self, model_runner):
        super().__init__(model_runner)
        self.kv_lora_rank = model_runner.model_config.kv_lora_rank
        self.kernel = model_runner.attn_kernels.mla

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        ckv = self.pool().get_key_buffer(layer.layer_id)
        ckv = ckv.to(self.model_dtype)  # positive: f2 CL001 generic base method returns the pool held in a Handle[P]
        lens = self.lens_handle.get().to(torch.int32)  # negative: Handle[Tensor] of per-request lengths
        return self.kernel(q, ckv, lens)

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        arena = self.pool_handle.get().get_value_buffer(layer.layer_id).bfloat16()  # positive: f2 CL001 value pool through the generic handle
        rows = self.pool().get_key_buffer(layer.layer_id)[forward_batch.out_cache_loc].bfloat16()  # negative: gathered rows
        return arena, rows
