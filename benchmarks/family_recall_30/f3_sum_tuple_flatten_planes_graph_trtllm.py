"""TRT-LLM decode graph runner: per-layer (k, v) planes flattened with sum(pairs, ()) and copied into fp16 statics per replay."""
import torch


class PlanarDecodeGraphRunner:
    def __init__(self, kv_cache_manager, num_layers):
        self.mgr = kv_cache_manager
        self.num_layers = num_layers
        self.graphs = {}

    def _pairs(self):
        return [tuple(self.mgr.get_buffers(i).unbind(1)) for i in range(self.num_layers)]

    def capture(self, batch_size, body):
        self.static_planes = [torch.empty_like(p, dtype=torch.float16) for p in sum(self._pairs(), ())]  # negative: allocation at capture
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            self.out = body(self.static_planes)
        self.graphs[batch_size] = graph

    def replay(self, batch_size, inputs):
        flat = sum(self._pairs(), ())
        for dst, src in zip(self.static_planes, flat):
            dst.copy_(src.to(dst.dtype))  # positive: f3 CL001 whole k/v planes of every layer out of the flattened tuple
        n = inputs["num_blocks"]
        head = [p[:n].to(torch.float16) for p in flat]  # negative: prefix of n blocks
        self.graphs[batch_size].replay()
        return self.out, head
