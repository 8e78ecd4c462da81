"""f4: MLA plans through a closure with a ternary dtype and through a lambda stored at init (FP8 pool)."""
from flashinfer import BatchPrefillWithRaggedKVCacheWrapper
from flashinfer.mla import BatchMLAPagedAttentionWrapper


class ClosurePlanBackend:
    def __init__(self, model_runner, workspace):
        self.data_type = model_runner.dtype
        self.q_data_type = model_runner.dtype
        self.kv_cache_dtype = model_runner.kv_cache_dtype  # float8_e4m3fn for this pool
        self.decode_wrapper = BatchMLAPagedAttentionWrapper(workspace, backend="fa2")
        self.verify_wrapper = BatchMLAPagedAttentionWrapper(workspace, backend="fa2")
        self.draft_wrapper = BatchMLAPagedAttentionWrapper(workspace, backend="fa2")
        self.sm_scale = model_runner.model_config.scaling
        self.ragged = BatchPrefillWithRaggedKVCacheWrapper(workspace, "NHD")
        self._plan_verify = lambda w, *a: w.plan(*a, self.q_data_type, self.data_type)  # positive: f4 CL002 lambda plans with the model dtype for kv

    def init_forward_metadata(self, forward_batch):
        qo, kv_indptr, kv_indices, kv_lens = forward_batch.mla_indices
        kv_dt = self.data_type if forward_batch.forward_mode.is_decode() else self.q_data_type

        def _plan(wrapper):
            wrapper.plan(  # positive: f4 CL002 both ternary branches are the model dtype
                qo, kv_indptr, kv_indices, kv_lens, 16, 512, 64, 1, False, self.sm_scale,
                self.q_data_type, kv_dt,
            )

        _plan(self.decode_wrapper)
        self._plan_verify(self.verify_wrapper, qo, kv_indptr, kv_indices, kv_lens, 16, 512, 64, 1, True, self.sm_scale)
        self.draft_wrapper.plan(  # negative: kv dtype is the pool's FP8 dtype
            qo, kv_indptr, kv_indices, kv_lens, 16, 512, 64, 1, False, self.sm_scale,
            self.q_data_type, self.kv_cache_dtype,
        )
        self.ragged.plan(qo, qo, 16, 16, 192, 128, q_data_type=kv_dt, kv_data_type=kv_dt)  # negative: ragged prefill over the batch's k/v
