"""MLA backend using the re-exported helpers through a relative package import."""

import torch

from . import index_table, plane_of, step_rows


class ReexportBackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.dtype = model_runner.dtype

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        lat = plane_of(self.pool, layer.layer_id).to(q.dtype)  # positive: f7 CL001 re-exported helper returns the whole key buffer
        idx = index_table(forward_batch).to(torch.int32)  # negative: index table
        o = torch.empty_like(q)
        torch.ops.sgl_kernel.mla_decode(q, lat, idx, o, forward_batch.seq_lens)
        return o

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        rows = step_rows(self.pool, layer.layer_id, forward_batch.out_cache_loc).to(q.dtype)  # negative: helper gathers the step's rows first
        o = torch.empty_like(q)
        torch.ops.sgl_kernel.mla_extend(q, rows, o, forward_batch.extend_seq_lens)
        return o
