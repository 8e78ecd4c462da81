# Lambdas and closures that read or convert the cache.
from typing import Callable

import torch


def make_reader(pool) -> Callable[[int], torch.Tensor]:
    def read(layer_id: int) -> torch.Tensor:
        return pool.get_key_buffer(layer_id)

    return read


def make_caster(dtype: torch.dtype) -> Callable[[torch.Tensor], torch.Tensor]:
    def cast(t: torch.Tensor) -> torch.Tensor:
        return t.to(dtype)  # note: generic closure; attributed to the pool-passing call sites

    return cast


class ClosureBackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.compute_dtype = model_runner.dtype
        self.up = lambda t: t.to(self.compute_dtype)  # note: generic lambda; attributed to the pool-passing call sites
        self.read_k = make_reader(self.pool)
        self.read_v = lambda i: self.pool.get_value_buffer(i)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k_up = self.up(self.pool.get_key_buffer(layer.layer_id))  # positive: f4 CL001 lambda attribute casts the whole key pool
        q_up = self.up(q)  # negative: the same lambda on q
        k_all = self.read_k(layer.layer_id).to(q.dtype)  # positive: f4 CL001 closure from make_reader returns the whole pool
        v_all = self.read_v(layer.layer_id).bfloat16()  # positive: f4 CL001 lambda accessor returns the whole value pool
        to_bf16 = make_caster(torch.bfloat16)
        v_bf16 = to_bf16(self.pool.get_value_buffer(layer.layer_id))  # positive: f4 CL001 closure cast of the whole value pool
        k_bf16 = to_bf16(k)  # negative: closure cast of the new k
        v_rows = self.read_v(layer.layer_id)[forward_batch.out_cache_loc].float()  # negative: gathered first
        return k_up, q_up, k_all, v_all, v_bf16, k_bf16, v_rows

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        latent = self.pool.get_key_buffer(layer.layer_id)

        def widened():
            return latent.float()  # positive: f4 CL001 nested function casts the enclosing scope's whole pool

        def narrowed(n: int):
            return latent[:n].float()  # negative: active prefix in a nested function

        return widened(), narrowed(forward_batch.extend_num_tokens)
