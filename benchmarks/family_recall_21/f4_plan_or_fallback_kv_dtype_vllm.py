import torch


class FlashInferMLAMetadataBuilder:
    def __init__(self, vllm_config, kv_cache_spec, decode_wrapper):
        self.model_dtype = vllm_config.model_config.dtype
        self.kv_cache_dtype = kv_cache_spec.dtype
        self._decode_wrapper = decode_wrapper
        self.native_fp8 = False

    def _plan_decode(self, indptr, indices, lens, num_heads, page_size, sm_scale, q_dtype=None, kv_dtype=None):
        q_dtype = q_dtype or self.model_dtype
        kv_dtype = kv_dtype or q_dtype
        self._decode_wrapper.plan(  # positive: f4 CL002 kv_dtype falls back to the model dtype through `or` (default caller below)
            torch.arange(len(lens) + 1, dtype=torch.int32, device=indptr.device),
            indptr,
            indices,
            lens,
            num_heads,
            512,
            64,
            page_size,
            False,
            sm_scale,
            q_dtype,
            kv_dtype,
        )

    def build(self, common_prefix_len, common_attn_metadata, indptr, indices, lens, num_heads, page_size, sm_scale):
        if self.native_fp8:
            self._plan_decode(indptr, indices, lens, num_heads, page_size, sm_scale, kv_dtype=self.kv_cache_dtype)  # negative: native FP8 plan
        else:
            self._plan_decode(indptr, indices, lens, num_heads, page_size, sm_scale)  # note: per-step caller with no kv_dtype, makes the plan above mixed
