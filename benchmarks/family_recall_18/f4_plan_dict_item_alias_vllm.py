"""vLLM-style FlashInfer MLA metadata builder: the kv dtype keyword aliases the q dtype item of a local dict."""
import torch


class FlashInferMLAMetadataBuilder:
    def __init__(self, kv_cache_spec, layer_names, vllm_config, device, wrapper):
        self.kv_cache_spec = kv_cache_spec
        self.model_config = vllm_config.model_config
        self.num_heads = self.model_config.get_num_attention_heads(vllm_config.parallel_config)
        self.kv_lora_rank = self.model_config.hf_text_config.kv_lora_rank
        self.rope_dim = self.model_config.hf_text_config.qk_rope_head_dim
        self.sm_scale = 1.0 / (self.kv_lora_rank + self.rope_dim) ** 0.5
        self._wrapper = wrapper

    def build(self, common_prefix_len, common_attn_metadata, fast_build=False):
        m = common_attn_metadata
        dtypes = {}
        dtypes["q_data_type"] = self.model_config.dtype
        dtypes["kv_data_type"] = dtypes["q_data_type"]
        self._wrapper.plan(m.qo_indptr, m.kv_indptr, m.kv_indices, m.kv_lens, self.num_heads, self.kv_lora_rank, self.rope_dim, m.page_size, False, self.sm_scale, **dtypes)  # positive: f4 CL002 kv dtype aliased to the model dtype
        return m

    def build_for_cudagraph_capture(self, common_attn_metadata):
        m = common_attn_metadata
        self._wrapper.plan(m.qo_indptr, m.kv_indptr, m.kv_indices, m.kv_lens, self.num_heads, self.kv_lora_rank, self.rope_dim, m.page_size, False, self.sm_scale, q_data_type=self.model_config.dtype, kv_data_type=self.kv_cache_spec.dtype)  # negative: native plan with the spec dtype
        return m


class FlashInferMLAImpl:
    def forward_mqa(self, q, kv_c_and_k_pe_cache, attn_metadata, layer):
        cache = kv_c_and_k_pe_cache.view(torch.float8_e4m3fn).to(q.dtype)  # positive: f4 CL001 the conversion the bf16 plan forces
        return attn_metadata.wrapper.run(q, cache)
