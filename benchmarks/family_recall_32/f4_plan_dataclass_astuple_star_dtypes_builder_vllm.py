"""vLLM FlashInfer MLA metadata builder: plan dtypes from *dataclasses.astuple(PlanDtypes(...))."""
import dataclasses

import torch


@dataclasses.dataclass(frozen=True)
class PlanDtypes:
    q: torch.dtype
    kv: torch.dtype


class FlashInferMLAMetadataBuilder:
    def __init__(self, vllm_config, wrapper):
        self.model_dtype = vllm_config.model_config.dtype
        self.kv_cache_dtype = torch.float8_e4m3fn
        self.wrapper = wrapper
        self.decode_dtypes = PlanDtypes(self.model_dtype, self.model_dtype)
        self.prefill_dtypes = PlanDtypes(self.model_dtype, self.kv_cache_dtype)

    def build(self, common_prefix_len, common_attn_metadata):
        m = common_attn_metadata
        if m.max_query_len == 1:
            self.wrapper.plan(m.qo_indptr, m.kv_indptr, m.kv_indices, m.kv_lens, 16, 512, 64, 1, False,  # positive: f4 CL002 q and kv dtypes both the model dtype
                              0.1, *dataclasses.astuple(self.decode_dtypes))
        else:
            self.wrapper.plan(m.qo_indptr, m.kv_indptr, m.kv_indices, m.kv_lens, 16, 512, 64, 1, True,  # negative: kv dtype is the cache's FP8
                              0.1, *dataclasses.astuple(self.prefill_dtypes))
        lens = m.seq_lens.to(self.wrapper.device, non_blocking=True)  # negative: lengths device move
        return lens
