from flashinfer.mla import BatchMLAPagedAttentionWrapper

from .config import dtypes_for, native_dtypes


class ConfigPlanBackend:
    def __init__(self, model_runner, workspace):
        self.model_runner = model_runner
        self.kv_cache_dtype = model_runner.kv_cache_dtype  # float8_e4m3fn for this pool
        self.decode_wrapper = BatchMLAPagedAttentionWrapper(workspace, backend="fa3")
        self.prefill_wrapper = BatchMLAPagedAttentionWrapper(workspace, backend="fa3")
        self.native_wrapper = BatchMLAPagedAttentionWrapper(workspace, backend="fa3")

    def init_forward_metadata(self, forward_batch):
        qo, kv_indptr, kv_indices, kv_lens = forward_batch.mla_indices
        d = dtypes_for(self.model_runner)
        self.decode_wrapper.plan(qo, kv_indptr, kv_indices, kv_lens, 16, 512, 64, 1, False, 0.1, d.q, d.kv)  # positive: f7 CL002 kv dtype from config.py is the model dtype
        self.prefill_wrapper.plan(qo, kv_indptr, kv_indices, kv_lens, 16, 512, 64, 1, True, 0.1, q_data_type=d.q, kv_data_type=d.kv)  # positive: f7 CL002 keyword form
        n = native_dtypes(self.model_runner)
        self.native_wrapper.plan(qo, kv_indptr, kv_indices, kv_lens, 16, 512, 64, 1, False, 0.1, n.q, n.kv)  # negative: kv dtype is the pool's FP8 dtype
