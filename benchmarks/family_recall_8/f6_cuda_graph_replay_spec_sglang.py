import torch


class GraphMLABackend:
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.dtype = model_runner.dtype
        self.graph_kv = {}

    def init_cuda_graph_state(self, max_bs, max_num_tokens):
        for lid in range(self.token_to_kv_pool.layer_num):
            self.graph_kv[lid] = self.token_to_kv_pool.get_key_buffer(lid).to(self.dtype)  # negative: one-time graph state

    def init_forward_metadata_capture_cuda_graph(self, bs, num_tokens, req_pool_indices, seq_lens, encoder_lens, forward_mode, spec_info):
        self.captured = self.token_to_kv_pool.get_key_buffer(0).to(self.dtype)  # negative: capture is one-time

    def init_forward_metadata_replay_cuda_graph(self, bs, req_pool_indices, seq_lens, seq_lens_sum, encoder_lens, forward_mode, spec_info, seq_lens_cpu):
        for lid, dst in self.graph_kv.items():
            dst.copy_(self.token_to_kv_pool.get_key_buffer(lid))  # positive: f6 CL001 replay refreshes the bf16 copy of every FP8 layer
        if spec_info is not None:
            draft = spec_info.draft_token.to(torch.int64)  # negative: draft tokens
            return draft
