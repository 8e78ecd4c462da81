import torch

from .registry import register_pool


@register_pool("mla")
class RegisteredMLAPool:
    def __init__(self, size, layer_num, dtype, device):
        self.slabs = [torch.zeros((size + 1, 1, 576), dtype=dtype, device=device) for _ in range(layer_num)]

    def latent_slab(self, layer_id):
        return self.slabs[layer_id]

    def latent_rows(self, layer_id, loc):
        return self.slabs[layer_id][loc]
