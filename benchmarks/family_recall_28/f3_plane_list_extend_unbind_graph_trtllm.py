"""TensorRT-LLM decode CUDA graph runner: a flat list extended with both planes of every layer, widened per replay."""
import torch


class DenseKVGraphRunner:
    def __init__(self, kv_cache_manager, layer_ids):
        self.planes = []
        self.scales = []
        for i in layer_ids:
            buf = kv_cache_manager.get_buffers(i)  # [num_blocks, kv_factor, ...]
            self.planes.extend(buf.unbind(1))
            self.scales.append(kv_cache_manager.kv_scale_orig_quant)
        self.static = [torch.empty_like(p, dtype=torch.bfloat16) for p in self.planes]  # negative: allocation in __init__ (setup)
        self.graph = None

    def capture(self, forward_fn):
        self.graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(self.graph):
            forward_fn(self.static)

    def replay(self, block_ids):
        for dst, plane in zip(self.static, self.planes):
            dst.copy_(plane.to(torch.bfloat16))  # positive: f3 CL001 each list item is one whole plane of a layer
        scales = [s.to(torch.bfloat16) for s in self.scales]  # negative: scales
        first = self.planes[0][block_ids].to(torch.bfloat16)  # negative: blocks gathered first
        self.graph.replay()
        return scales, first
