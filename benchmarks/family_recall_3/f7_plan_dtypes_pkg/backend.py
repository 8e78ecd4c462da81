from flashinfer.mla import BatchMLAPagedAttentionWrapper

from .plan_utils import fast_mla_decode_plan, mla_native_dtypes, mla_plan_dtypes


class HelperPlanBackend:
    def __init__(self, model_runner, workspace):
        self.runner = model_runner
        self.wrapper = BatchMLAPagedAttentionWrapper(workspace)
        self.data_type = model_runner.dtype
        self.kv_cache_dtype = model_runner.kv_cache_dtype

    def init_forward_metadata(self, forward_batch):
        md = forward_batch.plan_inputs
        self.wrapper.plan(md.qo_indptr, md.kv_indptr, md.kv_indices, md.kv_lens, 16, 512, 64, 1, False, md.sm_scale, *mla_plan_dtypes(self.runner))  # positive: f7 CL002 dtype pair from a helper in plan_utils.py
        self.wrapper.plan(md.qo_indptr, md.kv_indptr, md.kv_indices, md.kv_lens, 16, 512, 64, 1, False, md.sm_scale, *mla_native_dtypes(self.runner))  # negative: helper returns the pool dtype for kv
        fast_mla_decode_plan(self.wrapper, md.qo_indptr, md.kv_indptr, md.kv_indices, md.kv_lens, 16, md.sm_scale, self.data_type, self.data_type)  # positive: f7 CL002 module-level plan helper called with kv in model dtype
        fast_mla_decode_plan(self.wrapper, md.qo_indptr, md.kv_indptr, md.kv_indices, md.kv_lens, 16, md.sm_scale, self.data_type, self.kv_cache_dtype)  # negative: kv in pool dtype
