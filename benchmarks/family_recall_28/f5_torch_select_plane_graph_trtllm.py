"""TensorRT-LLM decode CUDA graph runner: torch.select picks a plane (whole) or a block (not) before widening."""
import torch


class PlaneSelectGraphRunner:
    def __init__(self, kv_cache_manager, layer_ids):
        self.mgr = kv_cache_manager
        self.layer_ids = layer_ids
        self.static_k = {i: torch.empty_like(torch.select(kv_cache_manager.get_buffers(i), 1, 0), dtype=torch.bfloat16) for i in layer_ids}  # negative: allocation in __init__ (setup)
        self.graphs = {}

    def capture(self, batch_size, forward_fn):
        self.graphs[batch_size] = torch.cuda.CUDAGraph()
        with torch.cuda.graph(self.graphs[batch_size]):
            forward_fn(self.static_k)

    def replay(self, batch_size, last_block):
        for i in self.layer_ids:
            buf = self.mgr.get_buffers(i)  # [num_blocks, kv_factor, ...]
            self.static_k[i].copy_(torch.select(buf, 1, 0).to(torch.bfloat16))  # positive: f5 CL001 the K plane of every block
            tail = torch.select(buf, 0, last_block).to(torch.bfloat16)  # negative: one block of both planes
            self.static_k[i][last_block].copy_(tail[0])
        self.graphs[batch_size].replay()
