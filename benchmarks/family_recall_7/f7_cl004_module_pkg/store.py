import torch


class ConvertingStore:
    def __init__(self, size, layer_num, dtype, device):
        self.compute_dtype = dtype
        self.layers = [torch.zeros((size + 1, 1, 576), dtype=torch.float8_e4m3fn, device=device) for _ in range(layer_num)]

    def dense_layer(self, layer_id):
        return self.layers[layer_id].to(self.compute_dtype)  # positive: f7 CL004 accessor converts the whole layer

    def raw_layer(self, layer_id):
        return self.layers[layer_id]

    def dense_rows(self, layer_id, loc):
        return self.layers[layer_id][loc].to(self.compute_dtype)  # negative: gathered rows
