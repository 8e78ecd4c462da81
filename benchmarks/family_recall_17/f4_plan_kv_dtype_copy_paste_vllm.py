"""vLLM FlashInfer MLA builder: the decode plan passes the query dtype twice (a copy-paste
slip), so the impl has to widen the cache to match it; the prefill plan is right."""
import torch


class FlashInferMLABuilder:
    def __init__(self, kv_cache_spec, layer_names, vllm_config, device):
        self.q_data_type = vllm_config.model_config.dtype
        self.kv_cache_dtype = kv_cache_spec.dtype
        self._decode_wrapper = None
        self._prefill_wrapper = None

    def build(self, common_prefix_len, common_attn_metadata, fast_build=False):
        m = common_attn_metadata
        self._decode_wrapper.plan(  # positive: f4 CL002 kv_data_type is the query dtype, the cache is FP8
            m.qo_indptr_cpu, m.paged_kv_indptr, m.paged_kv_indices, m.seq_lens_cpu, 16, 512, 64,
            m.block_size, False, m.sm_scale,
            q_data_type=self.q_data_type,
            kv_data_type=self.q_data_type,
        )
        self._prefill_wrapper.plan(  # negative: kv_data_type is the cache spec's dtype
            m.qo_indptr_cpu, m.paged_kv_indptr, m.paged_kv_indices, m.seq_lens_cpu, 16, 512, 64,
            m.block_size, True, m.sm_scale,
            q_data_type=self.q_data_type,
            kv_data_type=self.kv_cache_dtype,
        )
        return m


class FlashInferMLAImpl:
    def forward_mqa(self, q, kv_c_and_k_pe_cache, attn_metadata, layer):
        cache = kv_c_and_k_pe_cache.to(q.dtype)  # positive: f4 CL001 whole latent cache widened to fit the plan
        return attn_metadata.decode_wrapper.run(q, cache[..., :512], cache[..., 512:])
