"""TRT-LLM EAGLE3 draft FlashInfer MLA (FP8 manager): the draft plan keywords come from a @functools.cache module helper."""
import functools

import torch

from tensorrt_llm._torch.attention_backend.flashinfer import FlashInferAttentionMetadata


@functools.cache
def _mla_plan_dtypes(model_dtype):
    return {"q_data_type": model_dtype, "kv_data_type": model_dtype}


class Eagle3DraftMLAMetadata(FlashInferAttentionMetadata):
    def prepare(self):
        super().prepare()
        kw = _mla_plan_dtypes(self.model_dtype)
        lens = self.kv_lens_cuda.to(torch.int32)  # negative: lengths
        self.draft_wrapper.plan(self.qo_indptr, self.paged_kv_indptr, self.paged_kv_indices, lens, self.num_heads, self.kv_lora_rank, self.qk_rope_head_dim, self.tokens_per_block, True, self.sm_scale, **kw)  # positive: f4 CL002 both dtypes the model dtype (cached helper) while the manager is FP8
        self.target_wrapper.plan(self.qo_indptr, self.paged_kv_indptr, self.paged_kv_indices, lens, self.num_heads, self.kv_lora_rank, self.qk_rope_head_dim, self.tokens_per_block, True, self.sm_scale, q_data_type=self.model_dtype, kv_data_type=self.kv_cache_manager.dtype)  # negative: kv dtype is the manager's
        self.spec_mask = self.spec_decoding_packed_mask.to(torch.int32)  # negative: tree mask
