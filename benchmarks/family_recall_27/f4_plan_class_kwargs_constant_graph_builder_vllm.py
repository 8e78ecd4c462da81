import torch


class FlashInferMLAMetadataBuilder:
    PLAN_DTYPES = {"q_data_type": torch.bfloat16, "kv_data_type": torch.bfloat16}

    def __init__(self, kv_cache_spec, layer_names, vllm_config, device):
        self.kv_cache_dtype = kv_cache_spec.dtype  # fp8_e4m3 with --kv-cache-dtype fp8
        self.num_heads = vllm_config.model_config.get_num_attention_heads(vllm_config.parallel_config)
        self.wrapper = self._make_wrapper(device)

    def _plan(self, m):
        self.wrapper.plan(  # positive: f4 CL002 both dtypes bf16 from the class-level kwargs dict, cache fp8
            m.qo_indptr, m.paged_kv_indptr, m.paged_kv_indices, m.seq_lens,
            self.num_heads, 512, 64, m.page_size, False, m.sm_scale,
            **self.PLAN_DTYPES,
        )

    def build_for_cudagraph_capture(self, common_attn_metadata):
        return self.build(0, common_attn_metadata)

    def build(self, common_prefix_len, common_attn_metadata):
        m = self._decode_inputs(common_attn_metadata)
        self._plan(m)
        return m


class FlashInferMLAImpl:
    def _forward_decode(self, q, kv_c_and_k_pe_cache, attn_metadata, layer):
        q = q.to(FlashInferMLAMetadataBuilder.PLAN_DTYPES["q_data_type"])  # negative: the query
        cache = kv_c_and_k_pe_cache.to(q.dtype)  # positive: f4 CL001 whole MLA cache of the layer, matching the bf16 plan
        bt = attn_metadata.decode.block_table.to(torch.int32)  # negative: block table
        return attn_metadata.wrapper.run(q[..., :512], q[..., 512:], cache[..., :512], cache[..., 512:]), bt
