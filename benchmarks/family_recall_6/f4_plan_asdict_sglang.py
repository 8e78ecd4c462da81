"""MLA plan arguments from dataclasses.asdict and a tuple-multiplied dtype pair."""
import dataclasses

import torch


@dataclasses.dataclass
class PlanDtypes:
    q_data_type: torch.dtype
    kv_data_type: torch.dtype


class AsdictMLAPlanner:
    def __init__(self, model_runner, decode_wrapper, prefill_wrapper):
        self.decode_wrapper = decode_wrapper
        self.prefill_wrapper = prefill_wrapper
        self.model_dtype = model_runner.dtype
        self.kv_cache_dtype = model_runner.kv_cache_dtype
        self.model_dtypes = PlanDtypes(model_runner.dtype, model_runner.dtype)
        self.mixed_dtypes = PlanDtypes(model_runner.dtype, model_runner.kv_cache_dtype)
        self.page_size = 1

    def init_forward_metadata(self, forward_batch, qo_indptr, kv_indptr, kv_indices, kv_lens, heads, sm_scale):
        geo = (qo_indptr, kv_indptr, kv_indices, kv_lens, heads, 512, 64, self.page_size, False, sm_scale)
        if forward_batch.forward_mode.is_decode():
            self.decode_wrapper.plan(*geo, **dataclasses.asdict(self.model_dtypes))  # positive: f4 CL002 kv dtype is the model dtype, from asdict
        elif forward_batch.forward_mode.is_target_verify():
            self.prefill_wrapper.plan(*geo, *(self.model_dtype,) * 2)  # positive: f4 CL002 q and kv dtypes both the model dtype (tuple repeat)
        else:
            self.prefill_wrapper.plan(*geo, **dataclasses.asdict(self.mixed_dtypes))  # negative: kv dtype is the cache dtype
