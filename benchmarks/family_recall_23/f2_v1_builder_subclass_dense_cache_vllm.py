# vLLM v1 metadata builder: the base build() asks a hook for the cache it hands to the kernel.
import torch


class CommonAttentionBuilder:
    def __init__(self, kv_cache_spec, layer_names, vllm_config, device):
        self.kv_cache_spec = kv_cache_spec
        self.model_dtype = vllm_config.model_config.dtype

    def _cache_for_kernel(self, kv_cache):
        return kv_cache

    def build(self, common_prefix_len, common_attn_metadata, fast_build=False):
        kv_cache = self.runner_kv_caches[self.layer_idx]
        md = self._make_metadata(common_attn_metadata)
        md.kv_cache = self._cache_for_kernel(kv_cache)
        md.block_table = common_attn_metadata.block_table_tensor.to(torch.int32)  # negative: block table
        return md


class TuringAttentionBuilder(CommonAttentionBuilder):
    def _cache_for_kernel(self, kv_cache):
        if kv_cache.dtype == self.model_dtype:
            return kv_cache.to(self.model_dtype)  # negative: same dtype, no conversion
        return kv_cache.to(self.model_dtype)  # positive: f2 CL001 override widens the whole layer cache in build()
