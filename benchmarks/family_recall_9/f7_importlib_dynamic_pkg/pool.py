import torch


class FP8LatentPool:
    def __init__(self, size, num_layers, device="cuda"):
        self.kv = [torch.zeros(size, 1, 576, dtype=torch.float8_e4m3fn, device=device) for _ in range(num_layers)]
        self.req_lens = torch.zeros(1024, dtype=torch.int32, device=device)

    def latent(self, layer_id):
        return self.kv[layer_id]
