import torch
from flashinfer.mla import BatchMLAPagedAttentionWrapper


class StarArgsPlanBackend:
    def __init__(self, model_runner, workspace):
        self.wrapper = BatchMLAPagedAttentionWrapper(workspace)
        self.data_type = model_runner.dtype
        self.q_data_type = model_runner.dtype
        self.kv_cache_dtype = model_runner.kv_cache_dtype

    def _plan_dtypes(self):
        return self.q_data_type, self.data_type

    def _native_dtypes(self):
        return self.q_data_type, self.kv_cache_dtype

    def init_forward_metadata(self, forward_batch):
        md = forward_batch.plan_inputs
        dtypes = (self.data_type, self.data_type)
        self.wrapper.plan(md.qo_indptr, md.kv_indptr, md.kv_indices, md.kv_lens, 16, 512, 64, 1, False, md.sm_scale, *dtypes)  # positive: f4 CL002 dtype pair through *args tuple
        self.wrapper.plan(md.qo_indptr, md.kv_indptr, md.kv_indices, md.kv_lens, 16, 512, 64, 1, False, md.sm_scale, *self._plan_dtypes())  # positive: f4 CL002 helper returns (model dtype, model dtype)
        self.wrapper.plan(md.qo_indptr, md.kv_indptr, md.kv_indices, md.kv_lens, 16, 512, 64, 1, False, md.sm_scale, *self._native_dtypes())  # negative: helper returns the pool dtype for kv
