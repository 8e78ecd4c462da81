from operator import itemgetter

import torch


class FlashInferMLAMetadataBuilder:
    def __init__(self, vllm_config, kv_cache_spec):
        self.model_dtype = vllm_config.model_config.dtype
        self.kv_cache_dtype = kv_cache_spec.dtype
        self.dtype_map = {"q": self.model_dtype, "kv": self.model_dtype}
        self.native_map = {"q": self.model_dtype, "kv": self.kv_cache_dtype}

    def build(self, common_prefix_len, common_attn_metadata, fast_build=False):
        q_dt, kv_dt = itemgetter("q", "kv")(self.dtype_map)
        self.decode_wrapper.plan(  # positive: f4 CL002 both plan dtypes are the model dtype (itemgetter over dtype_map)
            common_attn_metadata.qo_indptr, common_attn_metadata.kv_indptr, common_attn_metadata.kv_indices,
            common_attn_metadata.kv_len, 16, 512, 64, 1, False, 0.1, q_dt, kv_dt,
        )

    def build_native(self, common_attn_metadata):
        q_dt, kv_dt = itemgetter("q", "kv")(self.native_map)
        self.decode_wrapper.plan(  # negative: kv dtype is the cache dtype
            common_attn_metadata.qo_indptr, common_attn_metadata.kv_indptr, common_attn_metadata.kv_indices,
            common_attn_metadata.kv_len, 16, 512, 64, 1, False, 0.1, q_dt, kv_dt,
        )
        return torch.empty(0, dtype=q_dt)
