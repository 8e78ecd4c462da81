import torch


class FlashInferMLAMetadataBuilder:
    def __init__(self, kv_cache_spec, vllm_config, device):
        self.kv_cache_spec = kv_cache_spec
        self.model_dtype = vllm_config.model_config.dtype
        self.wrapper = None

    @staticmethod
    def _plan_decode(wrapper, indptr, indices, lens, num_heads, dtype):
        wrapper.plan(  # positive: f4 CL002 build() passes the model dtype as the KV dtype
            qo_indptr=indptr, kv_indptr=indptr, kv_indices=indices, kv_len_arr=lens,
            num_heads=num_heads, head_dim_ckv=512, head_dim_kpe=64, page_size=64,
            causal=False, sm_scale=0.1, q_data_type=dtype, kv_data_type=dtype,
        )

    def build(self, common_prefix_len, common_attn_metadata, fast_build=False):
        m = common_attn_metadata
        self._plan_decode(self.wrapper, m.query_start_loc, m.block_table_tensor.flatten(), m.seq_lens, 16, self.model_dtype)
        lens = m.seq_lens.to(torch.int32)  # negative: lengths
        return lens

    def build_for_cudagraph_capture(self, common_attn_metadata):
        self.wrapper.plan(  # negative: kv dtype is the cache spec's
            qo_indptr=None, kv_indptr=None, kv_indices=None, kv_len_arr=None,
            num_heads=16, head_dim_ckv=512, head_dim_kpe=64, page_size=64,
            causal=False, sm_scale=0.1, q_data_type=self.model_dtype, kv_data_type=self.kv_cache_spec.dtype,
        )
