"""first, *rest unpacking of the pool's per-layer buffers."""

import torch


class StarUnpackBackend:
    def __init__(self, model_runner):
        pool = model_runner.token_to_kv_pool
        self.first, *self.rest = pool.kv_buffer
        self.loc_scratch, *self.other_scratch = [
            torch.zeros(512, dtype=torch.int64, device="cuda") for _ in range(3)
        ]
        self.dtype = model_runner.dtype

    def _layer(self, layer_id):
        return self.first if layer_id == 0 else self.rest[layer_id - 1]

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kv = self._layer(layer.layer_id)
        kvd = kv.to(self.dtype)  # positive: f3 CL001 layer buffer from first/*rest unpacking of kv_buffer
        loc = self.loc_scratch.to(torch.int32)  # negative: index scratch
        o = torch.empty_like(q)
        torch.ops.sgl_kernel.mla_decode(q, kvd, o, loc)
        return o

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        *head, last = self.rest
        if layer.layer_id == len(self.rest):
            tail = last.to(self.dtype)  # positive: f3 CL001 last layer's buffer from *head, last unpacking
        else:
            tail = head[layer.layer_id - 1][forward_batch.out_cache_loc].to(self.dtype)  # negative: gather-then-cast
        o = torch.empty_like(q)
        torch.ops.sgl_kernel.mla_extend(q, tail, o, forward_batch.extend_seq_lens)
        return o
