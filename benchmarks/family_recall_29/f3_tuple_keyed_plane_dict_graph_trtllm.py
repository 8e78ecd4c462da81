"""TensorRT-LLM decode graph runner: a dict keyed by (layer, plane) tuples, rebuilt before each replay."""
import torch

K, V = 0, 1


class FallbackDecodeGraphRunner:
    def __init__(self, manager, dtype=torch.float16):
        self.manager = manager
        self.dtype = dtype
        self.static = {(i, p): torch.empty_like(manager.get_buffers(i)[:, p], dtype=dtype)  # negative: capture-time allocation
                       for i in range(manager.num_local_layers) for p in (K, V)}

    def _planes(self):
        return {(i, p): self.manager.get_buffers(i)[:, p]
                for i in range(self.manager.num_local_layers) for p in (K, V)}

    def replay(self, batch):
        planes = self._planes()
        for key, dst in self.static.items():
            dst.copy_(planes[key].to(self.dtype))  # positive: f3 CL001 each (layer, plane) entry is a whole plane
        first = {key: planes[key][batch.block_ids].to(self.dtype) for key in planes if key[1] == K}  # negative: blocks gathered first
        self.graph.replay()
        return first
