"""A vLLM FlashInfer-MLA metadata builder whose per-step build() plans with the model dtype."""
import torch


class FlashInferMLAMetadataBuilder:
    def __init__(self, kv_cache_spec, layer_names, vllm_config, device):
        self.kv_cache_spec = kv_cache_spec
        self.model_dtype = vllm_config.model_config.dtype
        self.native_fp8_kv = vllm_config.attention_config.use_native_fp8_mla
        hf = vllm_config.model_config.hf_text_config
        self.num_heads = vllm_config.model_config.get_num_attention_heads(vllm_config.parallel_config)
        self.kv_lora_rank = hf.kv_lora_rank
        self.rope_dim = hf.qk_rope_head_dim
        self.sm_scale = (hf.qk_nope_head_dim + hf.qk_rope_head_dim) ** -0.5

    def build(self, common_prefix_len, common_attn_metadata, fast_build=False):
        m = common_attn_metadata
        kv_indptr, kv_indices, kv_lens = self._paged_indices(m)
        qo_indptr = m.query_start_loc
        if not self.native_fp8_kv:
            self._decode_wrapper.plan(  # positive: f4 CL002 kv_data_type is the model dtype while the spec dtype is FP8
                qo_indptr, kv_indptr, kv_indices, kv_lens, self.num_heads, self.kv_lora_rank, self.rope_dim,
                self.page_size, False, self.sm_scale, q_data_type=self.model_dtype, kv_data_type=self.model_dtype,
            )
        else:
            self._decode_wrapper.plan(  # negative: kv_data_type is the cache spec's dtype
                qo_indptr, kv_indptr, kv_indices, kv_lens, self.num_heads, self.kv_lora_rank, self.rope_dim,
                self.page_size, False, self.sm_scale, q_data_type=self.model_dtype, kv_data_type=self.kv_cache_spec.dtype,
            )
        seq_lens = m.seq_lens.to(torch.int32)  # negative: lengths
        return self._metadata_cls(seq_lens=seq_lens, wrapper=self._decode_wrapper)
