"""A TRT-LLM pytorch-style CUDA-graph runner that converts manager layers at replay."""
import torch


class TRTGraphRunnerLike:
    def __init__(self, kv_cache_manager, dtype, num_layers):
        self.mgr = kv_cache_manager
        self.dtype = dtype
        self.num_layers = num_layers
        self.graphs = {}
        self.static_inputs = {}

    def capture(self, batch_size, forward_fn):
        self.static_inputs[batch_size] = [self.mgr.get_buffers(i).to(self.dtype) for i in range(self.num_layers)]  # negative: capture, one-time
        self.graphs[batch_size] = torch.cuda.CUDAGraph()

    def replay(self, batch_size, inputs):
        staged = self.static_inputs[batch_size]
        for i in range(self.num_layers):
            staged[i].copy_(self.mgr.get_buffers(i).to(self.dtype))  # positive: f6 CL001 replay refreshes a converted copy of each layer
        ids = inputs["input_ids"].to(torch.int32)  # negative: input ids
        self.graphs[batch_size].replay()
        return ids
