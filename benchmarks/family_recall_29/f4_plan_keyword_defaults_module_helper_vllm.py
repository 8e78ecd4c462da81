"""vLLM FlashInfer MLA: a module helper whose keyword defaults fix both plan dtypes to BF16."""
import torch


def _plan_decode(wrapper, indptr, indices, kv_lens, num_heads, sm_scale,
                 q_data_type=torch.bfloat16, kv_data_type=torch.bfloat16):
    wrapper.plan(indptr, indices, kv_lens, num_heads, 512, 64, 1, False, sm_scale,  # positive: f4 CL002 both dtypes default to BF16 while the cache is FP8
                 q_data_type=q_data_type, kv_data_type=kv_data_type)


class FlashInferMLAMetadataBuilder:
    def __init__(self, kv_cache_spec, vllm_config, device):
        self.kv_cache_dtype = kv_cache_spec.dtype
        self.model_dtype = vllm_config.model_config.dtype

    def build(self, common_prefix_len, common_attn_metadata, fast_build=False):
        m = common_attn_metadata
        _plan_decode(self.decode_wrapper, m.query_start_loc, m.block_table_tensor, m.seq_lens, self.num_heads, self.scale)
        self.prefill_wrapper.plan(m.query_start_loc, m.block_table_tensor, m.seq_lens, self.num_heads,  # negative: kv dtype is the cache's own
                                  512, 64, 1, True, self.scale, self.model_dtype, self.kv_cache_dtype)
        return m


class FlashInferMLAImpl:
    def _forward_decode(self, q, kv_c_and_k_pe_cache, attn_metadata, layer):
        ckv = kv_c_and_k_pe_cache[..., :512].to(q.dtype)  # positive: f4 CL001 whole latent part (last-dim split) widened for the BF16 plan
        kpe = kv_c_and_k_pe_cache[..., 512:].to(q.dtype)  # positive: f4 CL001 whole rope part
        q_scale = layer._q_scale.to(q.dtype)  # negative: a scale
        return self.decode_wrapper.run(q[..., :512], q[..., 512:], ckv, kpe) * q_scale
