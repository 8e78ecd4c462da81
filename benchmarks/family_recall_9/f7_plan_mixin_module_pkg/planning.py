class PlanMixin:
    def _plan_decode(self, wrapper, m):
        wrapper.plan(m.qo_indptr, m.kv_indptr, m.kv_indices, m.kv_lens, self.num_heads, 512, 64, 1, False, self.sm_scale, self.model_dtype, self.model_dtype)  # positive: f7 CL002 kv dtype = the model dtype set in backend.py

    def _plan_native(self, wrapper, m):
        wrapper.plan(m.qo_indptr, m.kv_indptr, m.kv_indices, m.kv_lens, self.num_heads, 512, 64, 1, False, self.sm_scale, self.model_dtype, self.kv_cache_dtype)  # negative: the pool's FP8 dtype
