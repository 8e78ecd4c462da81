"""A module-level plan helper takes the wrapper and both dtypes; the backend's callers choose them."""
import torch


def mla_decode_plan(wrapper, qo_indptr, kv_indptr, kv_indices, kv_len_arr, num_heads, sm_scale, q_data_type, kv_data_type):
    wrapper.plan(  # note: module-level plan helper; labelled at the callers that pass the model dtype as kv dtype
        qo_indptr, kv_indptr, kv_indices, kv_len_arr, num_heads, 512, 64, 1, False, sm_scale,
        q_data_type, kv_data_type,
    )


class HelperPlanMLABackend:
    def __init__(self, model_runner, wrapper):
        self.decode_wrapper = wrapper
        self.data_type = model_runner.dtype
        self.kv_cache_dtype = model_runner.kv_cache_dtype
        self.q_data_type = model_runner.dtype

    def init_forward_metadata(self, forward_batch):
        m = forward_batch.plan_inputs
        mla_decode_plan(self.decode_wrapper, m.qo, m.kv, m.idx, m.lens, m.heads, m.scale, self.q_data_type, self.data_type)  # positive: f4 CL002 kv dtype is the model dtype

    def init_forward_metadata_replay_cuda_graph(self, bs, forward_batch):
        m = forward_batch.plan_inputs
        mla_decode_plan(
            self.decode_wrapper, m.qo, m.kv, m.idx, m.lens, m.heads, m.scale,
            q_data_type=self.q_data_type, kv_data_type=self.kv_cache_dtype,
        )  # negative: kv dtype is the cache dtype
