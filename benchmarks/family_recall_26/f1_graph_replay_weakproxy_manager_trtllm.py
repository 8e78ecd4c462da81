import weakref

import torch


class DecodeCUDAGraphRunner:
    """Replays captured decode graphs; holds the KV cache manager through a weak proxy."""

    def __init__(self, kv_cache_manager, num_layers, io_dtype=torch.float16):
        self._mgr = weakref.proxy(kv_cache_manager)
        self.num_layers = num_layers
        self.io_dtype = io_dtype
        self.static_kv = {}
        self.graphs = {}

    def capture(self, batch_size, forward_fn):
        for i in range(self.num_layers):
            self.static_kv[i] = self._mgr.get_buffers(i).to(self.io_dtype)  # negative: capture, setup time
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            forward_fn(self.static_kv)
        self.graphs[batch_size] = g

    def replay(self, batch_size, block_ids):
        for i in range(self.num_layers):
            self.static_kv[i].copy_(self._mgr.get_buffers(i).to(self.io_dtype))  # positive: f1 CL001 whole layer through the proxied manager, every replay
            warm = self._mgr.get_buffers(i)[block_ids].to(self.io_dtype)  # negative: blocks selected before the cast
            del warm
        self.graphs[batch_size].replay()
