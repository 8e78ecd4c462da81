import torch


class LatentPool:
    def __init__(self, layers, size, width):
        self.kv_buffer = [torch.zeros(size, 1, width, dtype=torch.float8_e4m3fn, device="cuda") for _ in range(layers)]

    def latent(self, layer_id):
        return self.kv_buffer[layer_id]
