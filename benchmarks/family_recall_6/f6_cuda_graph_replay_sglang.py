"""CUDA-graph capture (one-time) versus replay (every step) of an attention backend."""
import torch


class GraphMLABackend:
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.dtype = model_runner.dtype
        self.graph_kv = {}

    def init_cuda_graph_state(self, max_bs, max_num_tokens):
        self.cuda_graph_kv_indices = torch.zeros(max_num_tokens, dtype=torch.int32)
        self.warm = self.token_to_kv_pool.get_key_buffer(0).to(self.dtype)  # negative: one-time setup

    def init_forward_metadata_capture_cuda_graph(self, bs, num_tokens, req_pool_indices, seq_lens, encoder_lens, forward_mode, spec_info):
        for lid in range(self.token_to_kv_pool.layer_num):
            self.graph_kv[lid] = self.token_to_kv_pool.get_key_buffer(lid).to(self.dtype)  # negative: capture-time, runs once per batch size

    def init_forward_metadata_replay_cuda_graph(self, bs, req_pool_indices, seq_lens, seq_lens_sum, encoder_lens, forward_mode, spec_info, seq_lens_cpu):
        for lid, dst in self.graph_kv.items():
            dst.copy_(self.token_to_kv_pool.get_key_buffer(lid).to(self.dtype))  # positive: f6 CL001 every replay re-converts each layer's whole buffer
        self.cuda_graph_kv_indices[:bs].copy_(req_pool_indices.to(torch.int32))  # negative: request indices


class GraphRunnerLite:
    def __init__(self, model_runner):
        self.model_runner = model_runner
        self.attn_backend = model_runner.attn_backend

    def replay(self, forward_batch):
        pool = self.model_runner.token_to_kv_pool
        last = pool.get_value_buffer(pool.layer_num - 1).float()  # positive: f6 CL001 whole value buffer in the replay step
        bs = forward_batch.batch_size
        seq = forward_batch.seq_lens[:bs].to(torch.int32)  # negative: sequence lengths
        return last, seq
