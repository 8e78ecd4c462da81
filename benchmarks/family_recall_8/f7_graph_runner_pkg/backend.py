import torch

from .graph_runner import HoldingGraphRunner


class ReplayBackend:
    def __init__(self, model_runner):
        self.graph_runner = HoldingGraphRunner(model_runner)

    def init_forward_metadata_replay_cuda_graph(self, bs, req_pool_indices, seq_lens, *args):
        for dst, src in zip(self.graph_runner.warm, self.graph_runner.layer_bufs):
            dst.copy_(src)  # positive: f7 CL001 replay copies every FP8 layer into the bf16 buffers from graph_runner.py
        return seq_lens[:bs].to(torch.int32)  # negative: bounded lengths
