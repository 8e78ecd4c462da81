import torch


class FlashInferMLAMetadataBuilder:
    def __init__(self, kv_cache_spec, vllm_config, wrapper):
        self.kv_cache_spec = kv_cache_spec
        self.model_config = vllm_config.model_config
        self.wrapper = wrapper
        self.compute_attr = "dtype"

    def _compute_dtype(self):
        return getattr(self.model_config, self.compute_attr)

    def build(self, common_prefix_len, common_attn_metadata, fast_build=False):
        m = common_attn_metadata
        dt = self._compute_dtype()
        self.wrapper.plan(m.qo_indptr, m.paged_kv_indptr, m.paged_kv_indices, m.seq_lens, 16, 512, 64, 16, True, 0.1, dt, dt)  # positive: f4 CL002 both dtypes from the model config via getattr
        return m

    def build_for_cudagraph_capture(self, common_attn_metadata):
        m = common_attn_metadata
        kv = self.kv_cache_spec.dtype
        self.wrapper.plan(m.qo_indptr, m.paged_kv_indptr, m.paged_kv_indices, m.seq_lens, 16, 512, 64, 16, True, 0.1, self._compute_dtype(), kv)  # negative: kv dtype is the cache spec's
        return torch.empty(0)
