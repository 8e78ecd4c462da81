# vLLM v1 FlashInfer impl: the base forward converts the cache only when the kernel's
# KV dtype differs; the SM120 subclass reports the model dtype as the kernel KV dtype.
import torch


class FlashInferImpl:
    def __init__(self, kv_cache_dtype, model_dtype):
        self.kv_cache_dtype = kv_cache_dtype
        self.model_dtype = model_dtype

    @property
    def kernel_kv_dtype(self):
        return self.kv_cache_dtype

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        if kv_cache.dtype != self.kernel_kv_dtype:
            kv_cache = kv_cache.to(self.kernel_kv_dtype)  # positive: f2 CL001 whole cache when the subclass reports bf16
        prefill = attn_metadata.prefill_wrapper
        decode_q = query[attn_metadata.num_prefill_tokens:].to(self.kernel_q_dtype)  # negative: query rows
        return self._run(prefill, decode_q, kv_cache, output)

    @property
    def kernel_q_dtype(self):
        return self.model_dtype


class FlashInferSM120Impl(FlashInferImpl):
    @property
    def kernel_kv_dtype(self):
        return self.model_dtype
