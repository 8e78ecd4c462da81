class FlashInferMLADecodeUpdater:
    def __init__(self, model_runner, wrapper):
        self.wrapper = wrapper
        self.q_data_type = model_runner.dtype
        self.model_dtype = model_runner.dtype
        self.kv_cache_dtype = model_runner.kv_cache_dtype
        self.num_heads = model_runner.model_config.num_attention_heads
        self.sm_scale = model_runner.model_config.scaling

    def _geometry(self, qo_indptr, kv_indptr, kv_indices, kv_lens):
        return (qo_indptr, kv_indptr, kv_indices, kv_lens, self.num_heads, 512, 64, 1, False, self.sm_scale)

    def update(self, qo_indptr, kv_indptr, kv_indices, kv_lens):
        args = self._geometry(qo_indptr, kv_indptr, kv_indices, kv_lens) + (self.q_data_type, self.model_dtype)
        self.wrapper.plan(*args)  # positive: f4 CL002 kv dtype is the model dtype, appended to a star-args tuple

    def update_native(self, qo_indptr, kv_indptr, kv_indices, kv_lens):
        args = self._geometry(qo_indptr, kv_indptr, kv_indices, kv_lens) + (self.q_data_type, self.kv_cache_dtype)
        self.wrapper.plan(*args)  # negative: kv dtype is the pool dtype


class FlashInferMLABackend:
    def __init__(self, model_runner, wrapper, native_fp8):
        self.updater = FlashInferMLADecodeUpdater(model_runner, wrapper)
        self.native_fp8 = native_fp8

    def init_forward_metadata(self, forward_batch):
        m = forward_batch.mla_indices
        if self.native_fp8:
            self.updater.update_native(m.qo_indptr, m.kv_indptr, m.kv_indices, m.kv_lens)
        else:
            self.updater.update(m.qo_indptr, m.kv_indptr, m.kv_indices, m.kv_lens)
