import torch


class ChunkedKVPool:
    def __init__(self, size, heads, dim, layers, dtype):
        self.k = torch.zeros(layers, size + 1, heads, dim, dtype=dtype)
        self.v = torch.zeros(layers, size + 1, heads, dim, dtype=dtype)
        self.k_scale = torch.ones(layers, dtype=torch.float32)

    def layer(self, layer_id):
        return self.k[layer_id], self.v[layer_id]

    def recent(self, layer_id, loc):
        return self.k[layer_id, loc], self.v[layer_id, loc]
