"""CL002: an unbound `BatchMLAPagedAttentionWrapper.plan` in a partial, and dtypes from a property pair."""
import functools

import torch
from flashinfer.mla import BatchMLAPagedAttentionWrapper


class PartialPlanMLABackend:
    def __init__(self, model_runner, workspace):
        self.data_type = model_runner.dtype
        self.kv_cache_dtype = model_runner.kv_cache_dtype  # the pool is FP8 (e4m3)
        self.num_heads = model_runner.model_config.num_attention_heads
        self.sm_scale = model_runner.model_config.scaling
        self.decode_wrapper = BatchMLAPagedAttentionWrapper(workspace, backend="fa3")
        self.prefill_wrapper = BatchMLAPagedAttentionWrapper(workspace, backend="fa3")
        self.native_wrapper = BatchMLAPagedAttentionWrapper(workspace, backend="fa3")
        self._plan_decode = functools.partial(BatchMLAPagedAttentionWrapper.plan, self.decode_wrapper)

    @property
    def plan_dtypes(self):
        return self.data_type, self.data_type

    @property
    def native_dtypes(self):
        return self.data_type, self.kv_cache_dtype

    def init_forward_metadata(self, forward_batch):
        m = forward_batch.mla_indices
        self._plan_decode(m.qo_indptr, m.kv_indptr, m.kv_indices, m.kv_lens, self.num_heads, 512, 64, 1, False, self.sm_scale, self.data_type, self.data_type)  # positive: f4 CL002 partial of the unbound plan, kv dtype = model dtype
        self.prefill_wrapper.plan(m.qo_indptr, m.kv_indptr, m.kv_indices, m.kv_lens, self.num_heads, 512, 64, 1, True, self.sm_scale, *self.plan_dtypes)  # positive: f4 CL002 dtype pair from a property, both the model dtype
        self.native_wrapper.plan(m.qo_indptr, m.kv_indptr, m.kv_indices, m.kv_lens, self.num_heads, 512, 64, 1, False, self.sm_scale, *self.native_dtypes)  # negative: kv dtype is the pool's FP8 dtype
        self.lens_f = forward_batch.seq_lens.to(torch.int32)  # negative: lengths
