"""operator.getitem / itemgetter pick layers out of the pool's buffer lists."""

import operator

import torch


class OperatorBackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.dtype = model_runner.dtype
        self.pick_first = operator.itemgetter(0)

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kb = operator.getitem(self.pool.k_buffer, layer.layer_id)
        kd = kb.to(self.dtype)  # positive: f4 CL001 layer key buffer selected with operator.getitem
        vd = operator.itemgetter(layer.layer_id)(self.pool.v_buffer).to(self.dtype)  # positive: f4 CL001 value buffer via an itemgetter built inline
        rows = operator.getitem(kb, forward_batch.out_cache_loc).to(self.dtype)  # negative: getitem with the step's indices gathers first
        o = torch.empty_like(q)
        torch.ops.sgl_kernel.extend_attention(q, kd, vd, rows, o, forward_batch.extend_seq_lens)
        return o

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k0 = self.pick_first(self.pool.k_buffer)
        k0d = k0.to(self.dtype)  # positive: f4 CL001 stored itemgetter(0) returns layer 0's whole key buffer
        lens = operator.getitem(forward_batch.seq_lens, slice(None)).to(torch.int32)  # negative: batch lengths
        qh = self.pick_first(q.unbind(1)).to(self.dtype)  # negative: one head of the batch query
        o = torch.empty_like(q)
        torch.ops.sgl_kernel.decode_attention(qh, k0d, o, forward_batch.seq_lens)
        return o
