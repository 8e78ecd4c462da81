from typing import cast

import torch

from sglang.srt.mem_cache.memory_pool import MLATokenToKVPool


class CastTypedMLABackend:
    def __init__(self, model_runner):
        self.model_runner = model_runner
        self.kv_lora_rank = 512

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = cast(MLATokenToKVPool, forward_batch.token_to_kv_pool)
        lat = pool.get_key_buffer(layer.layer_id)
        full = lat.to(q.dtype)  # positive: f1 CL001 typing.cast keeps the pool, whole latent layer
        step = cast(torch.Tensor, k).to(q.dtype)  # negative: the step's keys
        return full, step

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        p = cast("MLATokenToKVPool", self.model_runner.token_to_kv_pool)
        t = cast(torch.Tensor, p.get_key_buffer(layer.layer_id))
        out = t.bfloat16()  # positive: f1 CL001 string-typed cast of the runner's pool
        locs = forward_batch.out_cache_loc.to(torch.int32)  # negative: slot indices
        return out, locs
