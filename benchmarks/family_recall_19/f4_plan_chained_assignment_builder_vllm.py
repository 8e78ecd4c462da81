import torch


class FlashInferMetadataBuilder:
    def __init__(self, kv_cache_spec, vllm_config, decode_wrapper):
        self.kv_cache_spec = kv_cache_spec
        self.model_config = vllm_config.model_config
        self.decode_wrapper = decode_wrapper

    def build(self, common_prefix_len, common_attn_metadata, fast_build=False):
        q_dt = kv_dt = self.model_config.dtype
        self.decode_wrapper.plan(  # positive: f4 CL002 chained assignment gives the KV side the model dtype
            common_attn_metadata.paged_kv_indptr, common_attn_metadata.paged_kv_indices,
            common_attn_metadata.paged_kv_last_page_len, 32, 8, 128, 16,
            q_data_type=q_dt, kv_data_type=kv_dt,
        )
        return common_attn_metadata

    def build_for_cudagraph_capture(self, common_attn_metadata):
        self.decode_wrapper.plan(  # negative: capture plan uses the cache spec dtype
            common_attn_metadata.paged_kv_indptr, common_attn_metadata.paged_kv_indices,
            common_attn_metadata.paged_kv_last_page_len, 32, 8, 128, 16,
            q_data_type=self.model_config.dtype, kv_data_type=self.kv_cache_spec.dtype,
        )
        return common_attn_metadata
