import torch


class TargetPool:
    def __init__(self, layers, size, width):
        self.kv_buffer = [torch.zeros(size, 1, width, dtype=torch.float8_e4m3fn) for _ in range(layers)]

    def get_key_buffer(self, layer_id):
        return self.kv_buffer[layer_id]


class TargetRunner:
    def __init__(self, layers, size, width):
        self.token_to_kv_pool = TargetPool(layers, size, width)
