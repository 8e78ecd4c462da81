import torch


class LeasePool:
    def __init__(self, size, layer_num, heads, dim, dtype, device):
        self.k_buffer = [torch.empty((size + 1, heads, dim), dtype=dtype, device=device) for _ in range(layer_num)]
        self.v_buffer = [torch.empty((size + 1, heads, dim), dtype=dtype, device=device) for _ in range(layer_num)]
