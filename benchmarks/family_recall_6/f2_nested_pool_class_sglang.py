"""A backend defines its own pool type as a nested class and allocates it."""
import torch


class NativeSparseBackend:
    class _IndexerPool:
        def __init__(self, size, dim, layers):
            self.index_k = [torch.zeros(size + 1, dim, dtype=torch.float8_e4m3fn) for _ in range(layers)]
            self.index_scale = [torch.ones(size + 1, 1, dtype=torch.float32) for _ in range(layers)]

        def keys(self, layer_id):
            return self.index_k[layer_id]

    class _TopkScratch:
        def __init__(self, max_bs, topk):
            self.index_k = torch.zeros(max_bs, topk, dtype=torch.int32)

    def __init__(self, size, dim, layers, max_bs, topk):
        self.idx_pool = self._IndexerPool(size, dim, layers)
        self.scratch = NativeSparseBackend._TopkScratch(max_bs, topk)

    def forward_decode(self, q, k, v, layer, forward_batch):
        keys = self.idx_pool.keys(layer.layer_id).to(torch.bfloat16)  # positive: f2 CL001 the nested pool's whole index-key buffer
        raw = self.idx_pool.index_k[layer.layer_id]
        k32 = raw.float()  # positive: f2 CL001 the same whole buffer read directly
        sc = self.idx_pool.index_scale[layer.layer_id].to(torch.bfloat16)  # negative: per-token scales
        top = self.scratch.index_k.to(torch.int64)  # negative: per-batch top-k indices
        raw = self.idx_pool.keys(layer.layer_id).view(torch.uint8)  # negative: reinterpret
        return keys, k32, sc, top
