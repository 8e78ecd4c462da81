import torch


class Pool:
    def __init__(self, size, layer_num, heads, dim, dtype):
        self._arena = torch.empty((layer_num, size + 1, heads, dim), dtype=dtype, device="cuda")

    def plane(self, layer_id):
        return self._arena[layer_id]

    def rows(self, layer_id, loc):
        return self._arena[layer_id][loc]
