# vLLM v1 FlashInfer metadata builder: plan keywords are assembled per build(); when the
# kernel path has no FP8-KV support the KV dtype defaults to the q dtype.
import torch


class FlashInferMetadataBuilder:
    def __init__(self, kv_cache_spec, vllm_config, device):
        self.model_dtype = vllm_config.model_config.dtype
        self.kv_cache_dtype = kv_cache_spec.dtype
        self.native_fp8 = vllm_config.cache_config.cache_dtype == "fp8" and self._has_fp8_decode()

    def _plan_kwargs(self):
        kwargs = {"q_data_type": self.model_dtype, "pos_encoding_mode": "NONE"}
        if self.native_fp8:
            kwargs["kv_data_type"] = self.kv_cache_dtype
        return kwargs

    def build(self, common_prefix_len, common_attn_metadata, fast_build=False):
        kwargs = self._plan_kwargs()
        kwargs.setdefault("kv_data_type", kwargs["q_data_type"])
        self._decode_wrapper.plan(self.paged_kv_indptr, self.paged_kv_indices, self.paged_kv_last_page_len, self.num_qo_heads, self.num_kv_heads, self.head_dim, self.page_size, **kwargs)  # positive: f4 CL002 kv dtype defaults to the model dtype on an fp8 pool
        self._prefill_wrapper.plan(self.qo_indptr, self.paged_kv_indptr, self.paged_kv_indices, self.paged_kv_last_page_len, self.num_qo_heads, self.num_kv_heads, self.head_dim, self.page_size, q_data_type=self.model_dtype, kv_data_type=self.kv_cache_dtype)  # negative: planned at the pool dtype
        return self._metadata()
