import torch


class FlashInferMetadataBuilder:
    def __init__(self, kv_cache_spec, layer_names, vllm_config, device):
        self.model_dtype = vllm_config.model_config.dtype
        self.kv_cache_dtype = kv_cache_spec.dtype
        self.native_fp8 = False

    def _plan_dtypes(self):
        if self.native_fp8:
            return self.model_dtype, self.kv_cache_dtype
        return self.model_dtype, self.model_dtype

    def build(self, common_prefix_len, common_attn_metadata, fast_build=False):
        q_dtype, kv_dtype = self._plan_dtypes()
        self._decode_wrapper.plan(  # positive: f4 CL002 kv_data_type comes from a helper returning the query dtype twice
            common_attn_metadata.paged_kv_indptr,
            common_attn_metadata.paged_kv_indices,
            common_attn_metadata.paged_kv_last_page_len,
            self.num_qo_heads,
            self.num_kv_heads,
            self.head_dim,
            self.page_size,
            q_data_type=q_dtype,
            kv_data_type=kv_dtype,
        )
        lens = common_attn_metadata.seq_lens.to(torch.int32)  # negative: lengths
        return lens
