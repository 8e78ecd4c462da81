"""A helper method returns the (q, kv) dtype pair used by the MLA plan."""

import torch
from flashinfer.mla import BatchMLAPagedAttentionWrapper


class PairPlanBackend:
    def __init__(self, model_runner, workspace):
        self.model_dtype = model_runner.dtype
        self.pool_dtype = model_runner.kv_cache_dtype  # torch.float8_e4m3fn
        self.native = False
        self.wrapper = BatchMLAPagedAttentionWrapper(workspace)
        self.num_heads = model_runner.model_config.num_attention_heads
        self.scaling = model_runner.model_config.scaling

    def _plan_dtypes(self):
        return self.model_dtype, self.model_dtype

    def _native_dtypes(self):
        return (self.model_dtype, self.pool_dtype)

    def init_forward_metadata(self, forward_batch):
        m = forward_batch.mla_meta
        q_dt, kv_dt = self._plan_dtypes()
        self.wrapper.plan(m.qo_indptr, m.kv_indptr, m.kv_indices, m.kv_lens, self.num_heads, 512, 64, 1, False, self.scaling, q_dt, kv_dt)  # positive: f4 CL002 kv dtype from a helper returning the model dtype twice

    def init_forward_metadata_native(self, forward_batch):
        m = forward_batch.mla_meta
        pair = self._native_dtypes()
        self.wrapper.plan(m.qo_indptr, m.kv_indptr, m.kv_indices, m.kv_lens, self.num_heads, 512, 64, 1, False, self.scaling, *pair)  # negative: the pair carries the pool's FP8 dtype


class PairPlanPrefillBackend(PairPlanBackend):
    def init_forward_metadata(self, forward_batch):
        m = forward_batch.mla_meta
        dts = self._plan_dtypes()
        self.wrapper.plan(m.qo_indptr, m.kv_indptr, m.kv_indices, m.kv_lens, self.num_heads, 512, 64, 1, True, self.scaling, *dts)  # positive: f4 CL002 the model-dtype pair splatted into the causal prefill plan
