import torch

from .kv_views import DenseLayerView


class DenseKVGraphRunner:
    def __init__(self, kv_cache_manager, forward_fn):
        self.view = DenseLayerView(kv_cache_manager)
        self.forward_fn = forward_fn
        self.static = []
        self.graph = None

    def capture(self):
        self.static = [self.view[i].clone() for i in range(len(self.view))]
        self.graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(self.graph):
            self.forward_fn(self.static)

    def replay(self, attn_metadata):
        for i, dst in enumerate(self.static):
            dst.copy_(self.view[i])
        ids = attn_metadata.kv_cache_params.block_ids_per_seq
        first = self.view.blocks(0, ids[0])
        lens = attn_metadata.seq_lens.to(torch.int32)  # negative: lengths
        self.graph.replay()
        return first, lens
