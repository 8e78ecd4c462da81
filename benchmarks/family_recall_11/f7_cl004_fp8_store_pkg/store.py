import torch


class Fp8LayerStore:
    def __init__(self, num_layers, num_blocks, block_size, dim, compute_dtype):
        self.compute_dtype = compute_dtype
        self.data = [torch.empty(num_blocks, block_size, dim, dtype=torch.float8_e4m3fn) for _ in range(num_layers)]
        self.scale = torch.ones(num_layers)

    def layer(self, idx):
        return self.data[idx]

    def layer_compute(self, idx):
        return self.data[idx].to(self.compute_dtype) * self.scale[idx].to(self.compute_dtype)  # positive: f7 CL004 store accessor converting the whole layer
