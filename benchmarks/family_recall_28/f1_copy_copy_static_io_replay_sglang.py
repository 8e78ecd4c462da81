"""sglang MLA CUDA graph runner: replay works on a copy.copy of the static IO holder that carries the pool."""
import copy
from dataclasses import dataclass

import torch


@dataclass
class _StaticIO:
    pool: object
    out_cache_loc: torch.Tensor
    dtype: torch.dtype


class MLACudaGraphRunner:
    def __init__(self, model_runner, max_bs):
        loc = torch.zeros(max_bs, dtype=torch.int64, device="cuda")
        self.static_io = _StaticIO(model_runner.token_to_kv_pool, loc, model_runner.dtype)
        self.dense = {}

    def capture(self, layers):
        for layer in layers:
            buf = self.static_io.pool.get_key_buffer(layer.layer_id)
            self.dense[layer.layer_id] = torch.empty_like(buf, dtype=self.static_io.dtype)  # negative: allocation at capture (setup)

    def replay(self, forward_batch, layers):
        io = copy.copy(self.static_io)
        io.out_cache_loc = forward_batch.out_cache_loc
        new_rows = []
        for layer in layers:
            kbuf = io.pool.get_key_buffer(layer.layer_id)
            self.dense[layer.layer_id].copy_(kbuf.to(io.dtype))  # positive: f1 CL001 whole per-layer key buffer of the pool carried by the copied holder
            new_rows.append(kbuf[io.out_cache_loc].to(io.dtype))  # negative: this batch's rows gathered first
            new_rows.append(io.pool.get_value_buffer(layer.layer_id).to(io.dtype))  # positive: f1 CL001 whole value view (last-dim part of every slot)
        return new_rows
