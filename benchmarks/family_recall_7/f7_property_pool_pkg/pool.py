import torch


class LatentPool:
    def __init__(self, size, layer_num, dtype, device):
        self._kv = [torch.zeros((size + 1, 1, 576), dtype=dtype, device=device) for _ in range(layer_num)]
        self._req_to_token = torch.zeros((512, 8192), dtype=torch.int32, device=device)

    @property
    def latent_planes(self):
        return self._kv

    @property
    def token_table(self):
        return self._req_to_token
