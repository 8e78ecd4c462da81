import torch
from flashinfer.mla import BatchMLAPagedAttentionWrapper


class RunnerDtypePlanBackend:
    def __init__(self, model_runner, workspace):
        self.model_runner = model_runner
        self.decode_wrapper = BatchMLAPagedAttentionWrapper(workspace)

    def _dtypes(self):
        compute = getattr(self.model_runner, "dtype")
        return {"q_data_type": compute, "kv_data_type": compute}

    def init_forward_metadata(self, forward_batch):
        kw = self._dtypes()
        plan = self.decode_wrapper.plan
        plan(  # positive: f4 CL002 bound plan called with model dtypes from a helper dict
            forward_batch.qo_indptr, forward_batch.kv_indptr, forward_batch.kv_indices,
            forward_batch.kv_lens, 16, 512, 64, 1, False, forward_batch.sm_scale, **kw,
        )
        kw_fp8 = dict(kw, kv_data_type=self.model_runner.kv_cache_dtype)
        plan(forward_batch.qo_indptr, forward_batch.kv_indptr, forward_batch.kv_indices, forward_batch.kv_lens, 16, 512, 64, 1, False, forward_batch.sm_scale, **kw_fp8)  # negative: kv dtype overridden to the pool's FP8
