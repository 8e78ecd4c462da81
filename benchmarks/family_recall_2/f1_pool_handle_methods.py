# sglang-style attention backend that keeps a thin "handle" object instead of
# the token_to_kv_pool itself; the handle's methods return whole layer buffers.
from typing import Optional, Tuple

import torch

from sglang.srt.layers.radix_attention import RadixAttention
from sglang.srt.model_executor.forward_batch_info import ForwardBatch


class KVPoolHandle:
    """Indirection kept by backends so that the pool can be swapped at runtime."""

    def __init__(self, pool, start_layer: int = 0):
        self._pool = pool
        self._start = start_layer

    def keys(self, layer_id: int) -> torch.Tensor:
        return self._pool.get_key_buffer(layer_id)

    def values(self, layer_id: int) -> torch.Tensor:
        return self._pool.get_value_buffer(layer_id)

    def pair(self, layer_id: int) -> Tuple[torch.Tensor, torch.Tensor]:
        return self._pool.get_kv_buffer(layer_id)

    def latent(self, layer: RadixAttention) -> torch.Tensor:
        buf = self._pool.get_key_buffer(layer.layer_id)
        return buf

    def rows(self, layer_id: int, loc: torch.Tensor) -> torch.Tensor:
        return self._pool.get_key_buffer(layer_id)[loc]


class _HandleHolder:
    def __init__(self, handle: KVPoolHandle):
        self.handle = handle

    def get(self) -> KVPoolHandle:
        return self.handle


class HandleMLABackend:
    def __init__(self, model_runner, skip_prefill: bool = False):
        self.device = model_runner.device
        self.kv_cache_dtype = model_runner.kv_cache_dtype
        self.data_type = model_runner.dtype
        self.handle = KVPoolHandle(model_runner.token_to_kv_pool, model_runner.start_layer)
        self.holder = _HandleHolder(self.handle)

    def forward_decode(
        self,
        q: torch.Tensor,
        k: torch.Tensor,
        v: torch.Tensor,
        layer: RadixAttention,
        forward_batch: ForwardBatch,
        save_kv_cache: bool = True,
    ):
        k_buffer = self.handle.keys(layer.layer_id).to(q.dtype)  # positive: f1 CL001 handle.keys() returns the whole key pool
        q_nope = q.view(-1, layer.tp_q_head_num, layer.head_dim).to(self.data_type)  # negative: q of the current tokens
        return self._run(q_nope, k_buffer, forward_batch)

    def forward_extend(
        self,
        q: torch.Tensor,
        k: torch.Tensor,
        v: torch.Tensor,
        layer: RadixAttention,
        forward_batch: ForwardBatch,
        save_kv_cache: bool = True,
    ):
        k_cache, v_cache = self.handle.pair(layer.layer_id)
        v_cache_bf16 = v_cache.to(torch.bfloat16)  # positive: f1 CL001 second element of handle.pair() is the whole value pool
        k_rows = k_cache[forward_batch.out_cache_loc].to(torch.bfloat16)  # negative: rows gathered before the cast
        k_new = k.to(k_cache.dtype)  # negative: k of the tokens being written
        v_dev = self.handle.values(layer.layer_id).to(self.device)  # negative: device move of the pool, no dtype change
        return self._run(q, k_rows, forward_batch), v_cache_bf16, k_new, v_dev

    def forward_mixed(self, q, layer: RadixAttention, forward_batch: ForwardBatch):
        latent = self.handle.latent(layer)
        latent32 = latent.float()  # positive: f1 CL001 latent() returns the whole MLA pool
        sel = self.handle.rows(layer.layer_id, forward_batch.out_cache_loc).float()  # negative: rows() gathers before returning
        vals = self.holder.get().values(layer.layer_id).half()  # positive: f1 CL001 holder.get().values() chains two objects to the whole value pool
        return latent32, sel, vals

    def _run(self, q, kv, forward_batch):
        return q
