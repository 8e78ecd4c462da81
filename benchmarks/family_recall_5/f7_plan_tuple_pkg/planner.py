"""Planners that call wrapper.plan with dtype pairs from dtypes.py."""

from .dtypes import mla_plan_dtypes, native_plan_dtypes


class DecodePlanner:
    def __init__(self, model_runner, wrapper):
        self.wrapper = wrapper
        self.pair = mla_plan_dtypes(model_runner)
        self.heads = model_runner.model_config.num_attention_heads // model_runner.tp_size
        self.sm_scale = model_runner.model_config.scaling

    def update(self, m):
        self.wrapper.plan(m.qo_indptr, m.kv_indptr, m.kv_indices, m.kv_lens, self.heads, 512, 64, 1, False, self.sm_scale, *self.pair)  # positive: f7 CL002 dtype pair from dtypes.py is the model dtype twice


class NativeDecodePlanner(DecodePlanner):
    def __init__(self, model_runner, wrapper):
        super().__init__(model_runner, wrapper)
        self.pair = native_plan_dtypes(model_runner)

    def update(self, m):
        q_dt, kv_dt = self.pair
        self.wrapper.plan(m.qo_indptr, m.kv_indptr, m.kv_indices, m.kv_lens, self.heads, 512, 64, 1, False, self.sm_scale, q_data_type=q_dt, kv_data_type=kv_dt)  # negative: kv dtype is the pool's FP8 dtype
