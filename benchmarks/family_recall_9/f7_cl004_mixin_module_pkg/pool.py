import torch

from .accessors import DenseAccessMixin


class MixedMHAPool(DenseAccessMixin):
    def __init__(self, size, head_num, head_dim, layer_num, dtype, device="cuda"):
        self.dtype = dtype
        self.start_layer = 0
        self.k_buffer = [torch.zeros(size, head_num, head_dim, dtype=torch.float8_e5m2, device=device) for _ in range(layer_num)]
        self.v_buffer = [torch.zeros(size, head_num, head_dim, dtype=torch.float8_e5m2, device=device) for _ in range(layer_num)]
        self.req_lens = torch.zeros(512, dtype=torch.int32, device=device)
