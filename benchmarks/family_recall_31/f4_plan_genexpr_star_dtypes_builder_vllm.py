# vLLM FlashInfer MLA metadata builder for an FP8 cache: the decode plan's two dtypes come from a
# generator expression star-unpacked after the positional arguments.
import torch


class FlashInferMLAMetadataBuilder:
    def __init__(self, kv_cache_spec, vllm_config, device):
        self.model_dtype = vllm_config.model_config.dtype
        self.kv_cache_dtype = kv_cache_spec.dtype
        self.num_heads = vllm_config.model_config.get_num_attention_heads(vllm_config.parallel_config)

    def _plan_decode(self, wrapper, qo_indptr, kv_indptr, kv_indices, kv_lens, sm_scale):
        wrapper.plan(  # positive: f4 CL002 both dtypes the model dtype from the generator expression while the cache is FP8
            qo_indptr, kv_indptr, kv_indices, kv_lens, self.num_heads, 512, 64, 1, False, sm_scale,
            *(self.model_dtype for _ in range(2)),
        )

    def _plan_prefill(self, wrapper, qo_indptr, kv_indptr, kv_indices, kv_lens, sm_scale):
        wrapper.plan(  # negative: plans the cache's own kv dtype
            qo_indptr, kv_indptr, kv_indices, kv_lens, self.num_heads, 512, 64, 1, True, sm_scale,
            *(dt for dt in (self.model_dtype, self.kv_cache_dtype)),
        )

    def build(self, common_prefix_len, common_attn_metadata, fast_build=False):
        m = common_attn_metadata
        seq_lens = m.seq_lens.to(torch.int32)  # negative: lengths
        self._plan_decode(self.decode_wrapper, m.query_start_loc, m.kv_indptr, m.kv_indices, seq_lens, m.scale)
        self._plan_prefill(self.prefill_wrapper, m.query_start_loc, m.kv_indptr, m.kv_indices, seq_lens, m.scale)
        return m
