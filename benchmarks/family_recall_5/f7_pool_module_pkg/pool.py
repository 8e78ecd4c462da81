"""One arena tensor for all layers; per-layer segments are views of it."""

import torch


class BlockLatentPool:
    def __init__(self, size, layer_num, dim, device):
        self.store_dtype = torch.float8_e4m3fn
        self._arena = torch.zeros(layer_num, size + 1, dim, dtype=self.store_dtype, device=device)
        self.scales = torch.ones(layer_num, dtype=torch.float32, device=device)

    def segment(self, layer_id):
        return self._arena[layer_id]

    def segment_f32(self, layer_id):
        return self._arena[layer_id].to(torch.float32) * self.scales[layer_id]  # positive: f7 CL004 accessor dequantizes the whole layer segment

    def write(self, layer_id, loc, latent):
        self._arena[layer_id][loc] = latent.to(self.store_dtype)  # negative: writer casts the new tokens
