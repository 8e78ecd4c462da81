import torch
from flashinfer.mla import BatchMLAPagedAttentionWrapper


class FlashInferMLAAttnBackend:
    def __init__(self, model_runner):
        self.dtype = model_runner.dtype
        self.kv_cache_dtype = model_runner.kv_cache_dtype
        self.kv_lora_rank = model_runner.model_config.kv_lora_rank
        self.qk_rope_head_dim = model_runner.model_config.qk_rope_head_dim
        self.num_local_heads = model_runner.model_config.num_attention_heads // model_runner.tp_size
        self.graph_wrappers = {}

    def init_forward_metadata_capture_cuda_graph(self, bs, num_tokens, req_pool_indices, seq_lens, forward_mode, spec_info):
        w = BatchMLAPagedAttentionWrapper(self.workspace, use_cuda_graph=True)
        w.plan(self.qo_indptr[: bs + 1], self.kv_indptr[: bs + 1], self.kv_indices, seq_lens, self.num_local_heads, self.kv_lora_rank, self.qk_rope_head_dim, 1, False, self.scaling, self.dtype, self.kv_cache_dtype)  # negative: kv dtype is the pool's dtype
        self.graph_wrappers[bs] = w

    def init_forward_metadata_replay_cuda_graph(self, bs, req_pool_indices, seq_lens, seq_lens_sum, forward_mode, spec_info, seq_lens_cpu):
        if forward_mode.is_decode_or_idle():
            w = self.graph_wrappers[bs]
            w.plan(  # positive: f4 CL002 replay re-plan declares kv_data_type as the model dtype
                qo_indptr=self.qo_indptr[: bs + 1],
                kv_indptr=self.kv_indptr[: bs + 1],
                kv_indices=self.kv_indices,
                kv_len_arr=seq_lens.to(torch.int32),
                num_heads=self.num_local_heads,
                head_dim_ckv=self.kv_lora_rank,
                head_dim_kpe=self.qk_rope_head_dim,
                page_size=1,
                causal=False,
                sm_scale=self.scaling,
                q_data_type=self.dtype,
                kv_data_type=self.dtype,
            )
