"""functools.partial layered twice, over Tensor.to and over the pool accessor."""
from functools import partial

import torch

_to = partial(torch.Tensor.to)
to_bf16 = partial(_to, dtype=torch.bfloat16)  # note: cast made where the partial is applied


class PartialPartialBackend:
    def __init__(self, model_runner):
        self.dtype = model_runner.dtype
        self.pool = model_runner.token_to_kv_pool
        self.read_kv = partial(partial(self.pool.get_kv_buffer))
        self.upcast = partial(partial(torch.Tensor.to, non_blocking=True), dtype=model_runner.dtype)  # note: applied at the calls
        self.kernel = model_runner.attn_kernels.decode

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kb = to_bf16(forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id))  # positive: f4 CL001 partial of partial of Tensor.to on the whole key pool
        qb = to_bf16(q)  # negative: batch q
        kv = self.read_kv(layer.layer_id)
        vb = kv[1].to(q.dtype)  # positive: f4 CL001 partial of partial of get_kv_buffer, value half
        up = self.upcast(kv[0])  # positive: f4 CL001 nested partial cast given the whole key half
        kk = self.upcast(k)  # negative: batch k
        return self.kernel(qb, kb, vb, up, kk)

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        loc = forward_batch.out_cache_loc
        rows = to_bf16(self.read_kv(layer.layer_id)[0][loc])  # negative: rows gathered before the partial cast
        locs = partial(torch.Tensor.to, dtype=torch.int64)(loc)  # negative: index tensor
        return rows, locs


def make_loc_caster():
    to_i32 = partial(partial(torch.Tensor.to), dtype=torch.int32)
    return to_i32


class PartialPlanInputs:
    def __init__(self, forward_batch):
        cast = make_loc_caster()
        self.seq_lens = cast(forward_batch.seq_lens)  # negative: sequence lengths
        self.req_idx = cast(forward_batch.req_pool_indices)  # negative: request indices
