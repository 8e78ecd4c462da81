import torch


class PagedCache:
    def __init__(self, num_layers, num_blocks, block_size, num_heads, head_size, device, compute_dtype=torch.float16):
        shape = (num_blocks, block_size, num_heads, head_size)
        self.compute_dtype = compute_dtype
        self.k = [torch.empty(shape, dtype=torch.int8, device=device) for _ in range(num_layers)]
        self.v = [torch.empty(shape, dtype=torch.int8, device=device) for _ in range(num_layers)]
        self.zeros = [torch.zeros((num_blocks, block_size, num_heads, 2), dtype=torch.float16, device=device) for _ in range(num_layers)]

    def layer(self, idx: int):
        return self.k[idx], self.v[idx]

    def dequant_values(self, idx: int):
        return self.v[idx].to(self.compute_dtype)  # positive: f7 CL004 accessor converts the whole per-layer v cache

    def scales_zeros(self, idx: int):
        return self.zeros[idx]
