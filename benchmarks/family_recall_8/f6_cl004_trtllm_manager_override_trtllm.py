import torch


class KVCacheManager:
    def __init__(self, num_layers, blocks, tokens, heads, dim):
        self._pools = [torch.empty(blocks, 2, heads, tokens, dim, dtype=torch.float8_e4m3fn) for _ in range(num_layers)]

    def get_buffers(self, layer_idx, kv_layout="NHD"):
        return self._pools[layer_idx]

    def get_block_ids_per_seq(self, request_ids):
        return [[0, 1]] * len(request_ids)


class BF16ViewKVCacheManager(KVCacheManager):
    def get_buffers(self, layer_idx, kv_layout="NHD"):
        buf = super().get_buffers(layer_idx, kv_layout)
        return buf.to(torch.bfloat16)  # positive: f6 CL004 manager override converts the whole layer it returns

    def get_block_ids_per_seq(self, request_ids):
        ids = super().get_block_ids_per_seq(request_ids)
        return torch.tensor(ids, dtype=torch.int32)  # negative: block ids


class ManagerAttention:
    def __init__(self, layer_idx, manager: KVCacheManager):
        self.layer_idx = layer_idx
        self.manager = manager

    def forward(self, q, k, v, metadata):
        buf = self.manager.get_buffers(self.layer_idx, kv_layout="HND")
        return buf.to(q.dtype)  # positive: f6 CL001 base manager's FP8 layer converted per step


def build(num_layers, layer_idx):
    return ManagerAttention(layer_idx, KVCacheManager(num_layers, 64, 32, 8, 128))
