# TensorRT-LLM FlashInfer backend: plan arguments are assembled as a tuple and star-unpacked.
import torch


class FlashInferAttentionMetadata:
    def prepare(self):
        dtypes = (self.q_dtype, self.q_dtype)  # both the activation dtype
        args = (self.paged_kv_indptr, self.paged_kv_indices, self.paged_kv_last_page_len,
                self.num_heads, self.num_kv_heads, self.head_dim, self.page_size)
        self.decode_wrapper.plan(*args, q_data_type=dtypes[0], kv_data_type=dtypes[1])  # positive: f4 CL002 kv dtype is the q dtype from the tuple
        kv_dt = self.kv_cache_manager.dtype
        self.prefill_wrapper.plan(self.qo_indptr, *args, q_data_type=self.q_dtype, kv_data_type=kv_dt)  # negative: cache dtype
