import operator

import torch


class FlashInferMLAMetadataBuilder:
    def __init__(self, kv_cache_spec, layer_names, vllm_config, device):
        self.model_dtype = vllm_config.model_config.dtype
        self.kv_cache_dtype = kv_cache_spec.dtype
        self.num_heads = vllm_config.model_config.get_num_attention_heads(vllm_config.parallel_config)
        self._warm = operator.methodcaller("plan", q_data_type=self.model_dtype, kv_data_type=self.kv_cache_dtype)

    def build(self, common_prefix_len, common_attn_metadata, fast_build=False):
        meta = common_attn_metadata
        planner = operator.methodcaller(
            "plan",
            meta.query_start_loc, meta.paged_kv_indptr, meta.paged_kv_indices, meta.seq_lens,
            num_heads=self.num_heads,
            q_data_type=self.model_dtype,
            kv_data_type=self.model_dtype,
        )
        planner(self._decode_wrapper)  # positive: f4 CL002 the methodcaller invokes wrapper.plan with the model dtype as kv dtype on an FP8 cache
        self._warm(self._prefill_wrapper)  # negative: this methodcaller carries the cache's own dtype
        return meta


class FlashInferMLAImpl:
    def forward(self, layer, q, k_c_normed, k_pe, kv_cache, attn_metadata, output=None):
        kv_c = k_c_normed.to(q.dtype)  # negative: the step's new latent, not the cache
        return kv_c, kv_cache.to(q.device)  # negative: .to(device)
