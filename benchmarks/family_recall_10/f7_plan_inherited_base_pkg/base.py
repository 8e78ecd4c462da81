class MLAPlannerBase:
    def __init__(self, model_runner):
        self.data_type = model_runner.dtype
        self.kv_cache_dtype = model_runner.kv_cache_dtype

    def _plan_decode(self, wrapper, m, heads, scale):
        wrapper.plan(m.qo_indptr, m.kv_indptr, m.kv_indices, m.kv_lens, heads, 512, 64, 1, False, scale, self.data_type, self.data_type)  # positive: f7 CL002 kv dtype is the model dtype

    def _plan_verify(self, wrapper, m, heads, scale):
        wrapper.plan(m.qo_indptr, m.kv_indptr, m.kv_indices, m.kv_lens, heads, 512, 64, 1, True, scale, self.data_type, self.kv_cache_dtype)  # negative: kv dtype is the pool's
