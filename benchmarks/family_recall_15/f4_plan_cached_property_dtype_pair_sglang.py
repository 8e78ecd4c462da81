import functools


class FlashInferMLADecodeBackend:
    def __init__(self, model_runner):
        self.model_runner = model_runner
        self.kv_cache_dtype = model_runner.kv_cache_dtype
        self.decode_wrapper = model_runner.make_mla_wrapper()

    @functools.cached_property
    def _plan_dtypes(self):
        return (self.model_runner.dtype, self.model_runner.dtype)

    @functools.cached_property
    def _native_plan_dtypes(self):
        return (self.model_runner.dtype, self.kv_cache_dtype)

    def init_forward_metadata(self, forward_batch):
        q_dt, kv_dt = self._plan_dtypes
        self.decode_wrapper.plan(  # positive: f4 CL002 kv dtype from a cached_property pair is the model dtype
            forward_batch.qo_indptr, forward_batch.kv_indptr, forward_batch.kv_indices, forward_batch.kv_lens,
            16, 512, 64, 1, False, 0.1, q_dt, kv_dt,
        )

    def init_forward_metadata_native(self, forward_batch):
        q_dt, kv_dt = self._native_plan_dtypes
        self.decode_wrapper.plan(  # negative: kv dtype is the pool's
            forward_batch.qo_indptr, forward_batch.kv_indptr, forward_batch.kv_indices, forward_batch.kv_lens,
            16, 512, 64, 1, False, 0.1, q_dt, kv_dt,
        )
