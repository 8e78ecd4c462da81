"""CL002: plan dtypes from a NamedTuple with default fields and from a SimpleNamespace."""
import types
from typing import NamedTuple

import torch
from flashinfer.mla import BatchMLAPagedAttentionWrapper


class PlanTypes(NamedTuple):
    q: torch.dtype = torch.bfloat16
    kv: torch.dtype = torch.bfloat16


class DefaultsPlanBackend:
    def __init__(self, model_runner, workspace):
        self.kv_cache_dtype = model_runner.kv_cache_dtype  # FP8 e4m3 pool, bf16 model
        self.cfg = types.SimpleNamespace(q=model_runner.dtype, kv=model_runner.dtype, heads=16)
        self.decode = BatchMLAPagedAttentionWrapper(workspace)
        self.extend = BatchMLAPagedAttentionWrapper(workspace)
        self.native = BatchMLAPagedAttentionWrapper(workspace)

    def init_forward_metadata(self, forward_batch):
        m = forward_batch.mla_indices
        self.decode.plan(m.qo_indptr, m.kv_indptr, m.kv_indices, m.kv_lens, 16, 512, 64, 1, False, m.sm_scale, *PlanTypes())  # positive: f4 CL002 NamedTuple defaults: kv dtype bf16 over an FP8 pool
        self.extend.plan(metadata=m.csr, num_heads=self.cfg.heads, q_data_type=self.cfg.q, kv_data_type=self.cfg.kv)  # positive: f4 CL002 kv dtype from a SimpleNamespace holding the model dtype
        self.native.plan(m.qo_indptr, m.kv_indptr, m.kv_indices, m.kv_lens, 16, 512, 64, 1, False, m.sm_scale, *PlanTypes(kv=self.kv_cache_dtype))  # negative: kv field replaced by the pool dtype
