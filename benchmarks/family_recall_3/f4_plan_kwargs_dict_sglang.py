import torch
from flashinfer.mla import BatchMLAPagedAttentionWrapper


class KwargsPlanBackend:
    def __init__(self, model_runner, workspace):
        self.wrapper = BatchMLAPagedAttentionWrapper(workspace)
        self.dtype = model_runner.dtype
        self.kv_cache_dtype = model_runner.kv_cache_dtype

    def _plan_kwargs(self):
        return dict(q_data_type=self.dtype, kv_data_type=self.dtype)

    def init_forward_metadata(self, forward_batch):
        md = forward_batch.plan_inputs
        args = (md.qo_indptr, md.kv_indptr, md.kv_indices, md.kv_lens, 16, 512, 64, 1, False, md.sm_scale)
        plan_kwargs = {"q_data_type": self.dtype, "kv_data_type": self.dtype}
        self.wrapper.plan(*args, **plan_kwargs)  # positive: f4 CL002 kv dtype via a **plan_kwargs dict
        self.wrapper.plan(*args, **self._plan_kwargs())  # positive: f4 CL002 kv dtype via a helper-returned kwargs dict
        good = {"q_data_type": self.dtype, "kv_data_type": self.kv_cache_dtype}
        self.wrapper.plan(*args, **good)  # negative: kv declared as the pool dtype
