from flashinfer.mla import BatchMLAPagedAttentionWrapper

from . import dtypes


class PlannedMLABackend:
    def __init__(self, model_runner, workspace):
        self.model_runner = model_runner
        self.wrapper = BatchMLAPagedAttentionWrapper(workspace)
        self.native = BatchMLAPagedAttentionWrapper(workspace)

    def init_forward_metadata(self, fb):
        qd, kd = dtypes.plan_dtypes(self.model_runner)
        self.wrapper.plan(fb.qo_indptr, fb.kv_indptr, fb.kv_indices, fb.kv_lens, 16, 512, 64, 1, False, fb.sm_scale, qd, kd)  # positive: f7 CL002 kv dtype from dtypes.py is the model dtype
        nq, nk = dtypes.native_plan_dtypes(self.model_runner)
        self.native.plan(fb.qo_indptr, fb.kv_indptr, fb.kv_indices, fb.kv_lens, 16, 512, 64, 1, False, fb.sm_scale, nq, nk)  # negative: pool FP8 dtype
        self.wrapper.plan(fb.qo_indptr, fb.kv_indptr, fb.kv_indices, fb.kv_lens, 16, 512, 64, 1, False, fb.sm_scale, dtypes.COMPUTE_DTYPE, dtypes.COMPUTE_DTYPE)  # positive: f7 CL002 module constants, compute dtype for kv
