import torch


class ClosurePool:
    def __init__(self, size, layer_num, heads, dim, dtype, device, start_layer=0):
        self.start_layer = start_layer
        self.k_buffer = [torch.empty((size + 1, heads, dim), dtype=dtype, device=device) for _ in range(layer_num)]
