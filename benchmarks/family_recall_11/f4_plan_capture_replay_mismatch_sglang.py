import torch


class GraphPlanMLABackend:
    def __init__(self, model_runner):
        self.q_data_type = model_runner.dtype
        self.kv_cache_dtype = model_runner.kv_cache_dtype
        self.num_heads = model_runner.model_config.num_attention_heads
        self.graph_wrappers = {}

    def _plan_kwargs(self, bs, seq_lens):
        return dict(
            qo_indptr=self.qo_indptr[: bs + 1],
            kv_indptr=self.kv_indptr[: bs + 1],
            kv_indices=self.kv_indices,
            kv_len_arr=seq_lens.to(torch.int32),  # negative: lengths
            num_heads=self.num_heads,
            head_dim_ckv=512,
            head_dim_kpe=64,
            page_size=1,
            causal=False,
            sm_scale=0.1352,
        )

    def init_forward_metadata_capture_cuda_graph(self, bs, num_tokens, req_pool_indices, seq_lens, encoder_lens, forward_mode, spec_info):
        wrapper = self.graph_wrappers[bs]
        wrapper.plan(**self._plan_kwargs(bs, seq_lens), q_data_type=self.q_data_type, kv_data_type=self.kv_cache_dtype)  # negative: capture plans kv with the FP8 pool dtype

    def init_forward_metadata_replay_cuda_graph(self, bs, req_pool_indices, seq_lens, seq_lens_sum, encoder_lens, forward_mode, spec_info, seq_lens_cpu):
        wrapper = self.graph_wrappers[bs]
        kw = self._plan_kwargs(bs, seq_lens[:bs])
        wrapper.plan(**kw, q_data_type=self.q_data_type, kv_data_type=self.q_data_type)  # positive: f4 CL002 replay re-plans kv with the model dtype
