# TensorRT-LLM FlashInfer attention backend: the decode wrapper's plan is bound once with
# the q dtype; prepare() supplies the rest, including the KV dtype.
import functools

import torch


class FlashInferAttentionMetadata:
    def __post_init__(self):
        self._decode_plan = functools.partial(self.decode_wrapper.plan, q_data_type=self.model_dtype)
        self._native_plan = functools.partial(self.decode_wrapper.plan, q_data_type=self.kv_cache_dtype)

    def prepare(self):
        kv = self.kv_cache_manager
        if self.kv_cache_dtype == torch.float8_e4m3fn and not self.native_fp8:
            self._decode_plan(self.paged_kv_indptr, self.paged_kv_indices, self.paged_kv_last_page_len, self.num_heads, self.num_kv_heads, self.head_dim, kv.tokens_per_block, kv_data_type=self.model_dtype)  # positive: f4 CL002 fp8 pool planned as bf16 through partial
        else:
            self._native_plan(self.paged_kv_indptr, self.paged_kv_indices, self.paged_kv_last_page_len, self.num_heads, self.num_kv_heads, self.head_dim, kv.tokens_per_block, kv_data_type=self.kv_cache_dtype)  # negative: planned at the pool dtype
