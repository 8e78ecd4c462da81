import torch


class GraphStateMLABackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.dtype = model_runner.dtype
        self.graph_state = {}

    def init_cuda_graph_state(self, max_bs, max_num_tokens):
        self.cuda_graph_kv_indices = torch.zeros(max_bs * 4096, dtype=torch.int32)

    def init_forward_metadata_capture_cuda_graph(self, bs, num_tokens, req_pool_indices, seq_lens, encoder_lens, forward_mode, spec_info):
        layers = [self.pool.get_key_buffer(i) for i in range(self.pool.layer_num)]
        self.graph_state[bs] = {
            "layers": layers,
            "shadow": [t.to(self.dtype) for t in layers],  # negative: conversion at capture time (one-time)
            "seq_lens": seq_lens,
        }

    def init_forward_metadata_replay_cuda_graph(self, bs, req_pool_indices, seq_lens, seq_lens_sum, encoder_lens, forward_mode, spec_info, seq_lens_cpu):
        st = self.graph_state[bs]
        st["seq_lens"].copy_(seq_lens.to(torch.int32))  # negative: lengths
        for i, src in enumerate(st["layers"]):
            st["shadow"][i].copy_(src)  # positive: f3 CL001 whole FP8 layer buffer copied into its bf16 shadow at replay
        st["last"] = st["layers"][-1].to(self.dtype)  # positive: f3 CL001 last layer's whole buffer from the per-bs state dict
        st["rows"] = st["layers"][0][: bs * 16].to(self.dtype)  # negative: rows bounded by the batch
