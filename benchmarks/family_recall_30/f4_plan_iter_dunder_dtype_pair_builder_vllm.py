"""vLLM FlashInfer MLA metadata builder (FP8 cache): plan dtypes come from star-unpacking an object whose __iter__ yields them."""
import torch

from vllm.v1.attention.backends.mla.common import MLACommonMetadataBuilder


class _PlanDtypes:
    def __init__(self, q, kv):
        self.q, self.kv = q, kv

    def __iter__(self):
        yield self.q
        yield self.kv


class FlashInferMLAFp8MetadataBuilder(MLACommonMetadataBuilder):
    def __init__(self, kv_cache_spec, layer_names, vllm_config, device):
        super().__init__(kv_cache_spec, layer_names, vllm_config, device)
        self.model_dtype = vllm_config.model_config.dtype
        self.kv_cache_dtype = kv_cache_spec.dtype  # torch.float8_e4m3fn
        self.decode_dtypes = _PlanDtypes(self.model_dtype, self.model_dtype)
        self.context_dtypes = _PlanDtypes(self.model_dtype, self.kv_cache_dtype)

    def build(self, common_prefix_len, common_attn_metadata, fast_build=False):
        m = self._csr(common_attn_metadata)
        seq_lens = common_attn_metadata.seq_lens.to(torch.int32)  # negative: lengths
        self._decode_wrapper.plan(m.qo_indptr, m.kv_indptr, m.kv_indices, seq_lens, self.num_heads, self.kv_lora_rank, self.qk_rope_head_dim, self.page_size, False, self.scale, *self.decode_dtypes)  # positive: f4 CL002 bf16/bf16 from the __iter__ pair while the cache is FP8
        self._context_wrapper.plan(m.qo_indptr, m.kv_indptr, m.kv_indices, seq_lens, self.num_heads, self.kv_lora_rank, self.qk_rope_head_dim, self.page_size, True, self.scale, *self.context_dtypes)  # negative: kv dtype is the cache's
        return self._metadata(m, common_attn_metadata)
