import functools

import torch
from flashinfer.mla import BatchMLAPagedAttentionWrapper


class PartialPlanMLABackend:
    def __init__(self, model_runner, workspace):
        self.decode_wrapper = BatchMLAPagedAttentionWrapper(workspace)
        self.prefill_wrapper = BatchMLAPagedAttentionWrapper(workspace)
        self.q_data_type = model_runner.dtype
        self.data_type = model_runner.dtype
        self.kv_cache_dtype = model_runner.kv_cache_dtype

    def init_forward_metadata(self, forward_batch):
        md = forward_batch.plan_inputs
        plan = functools.partial(self.decode_wrapper.plan, q_data_type=self.q_data_type, kv_data_type=self.data_type)
        plan(md.qo_indptr, md.kv_indptr, md.kv_indices, md.kv_lens, 16, 512, 64, 1, False, md.sm_scale)  # positive: f4 CL002 partial(wrapper.plan) fixes kv in the model dtype
        native = functools.partial(self.prefill_wrapper.plan, q_data_type=self.q_data_type, kv_data_type=self.kv_cache_dtype)
        native(md.qo_indptr, md.kv_indptr, md.kv_indices, md.kv_lens, 16, 512, 64, 1, True, md.sm_scale)  # negative: kv declared in the pool dtype
