import torch


class DenseViewManager:
    def __init__(self, num_layers, blocks, tokens, heads, dim):
        self.pools = [torch.empty(blocks, 2, heads, tokens, dim, dtype=torch.float8_e4m3fn) for _ in range(num_layers)]

    def get_dense_buffers(self, layer_idx):
        return self.pools[layer_idx].to(torch.bfloat16)  # positive: f7 CL004 manager accessor converts the whole layer

    def get_buffers(self, layer_idx):
        return self.pools[layer_idx]

    def get_block_ids_per_seq(self, request_ids):
        return torch.zeros(len(request_ids), 4, dtype=torch.int32)  # negative: block ids allocation
