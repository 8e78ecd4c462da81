import torch


class FlashInferSpecVerifyPlanner:
    """Tree verify over the target pool, TensorRT-LLM FlashInfer backend."""

    def __init__(self, num_heads, num_kv_heads, head_dim, page_size, model_dtype=torch.bfloat16):
        self.shape_args = (num_heads, num_kv_heads, head_dim, page_size)
        self.model_dtype = model_dtype

    def prepare(self, metadata, wrapper, kv_cache_dtype):
        index_args = (metadata.qo_indptr, metadata.paged_kv_indptr, metadata.paged_kv_indices,
                      metadata.paged_kv_last_page_len)
        dtype_args = (self.model_dtype, self.model_dtype)
        wrapper.plan(*(index_args + self.shape_args), causal=True,  # positive: f4 CL002 index/shape args concatenated into *args, dtypes indexed from a local pair (kv = model dtype)
                     q_data_type=dtype_args[0], kv_data_type=dtype_args[1])
        if kv_cache_dtype == self.model_dtype:
            metadata.mask = metadata.spec_mask.to(torch.bool)  # negative: mask
        return metadata

    def prepare_native(self, metadata, wrapper, kv_cache_dtype):
        wrapper.plan(metadata.qo_indptr, metadata.paged_kv_indptr, *self.shape_args,  # negative: kv dtype is the pool's
                     q_data_type=self.model_dtype, kv_data_type=kv_cache_dtype)
