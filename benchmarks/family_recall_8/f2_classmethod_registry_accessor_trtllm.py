import torch


class SharedPoolRegistry:
    _pools = {}

    @classmethod
    def publish(cls, layer_idx, buf):
        cls._pools[layer_idx] = buf

    @classmethod
    def fetch(cls, layer_idx):
        return cls._pools[layer_idx]


class KVManagerLite:
    def __init__(self, num_layers, blocks, tokens, heads, dim):
        for i in range(num_layers):
            SharedPoolRegistry.publish(i, torch.empty(blocks, 2, heads, tokens, dim, dtype=torch.float8_e4m3fn))


class RegistryAttention(SharedPoolRegistry):
    def __init__(self, layer_idx):
        self.layer_idx = layer_idx

    def forward(self, q, k, v, metadata):
        buf = self.fetch(self.layer_idx)
        up = buf.to(torch.bfloat16)  # positive: f2 CL001 inherited classmethod fetch of the published pool
        kv = type(self).fetch(self.layer_idx)[:, 1].float()  # positive: f2 CL001 V half of every block through type(self)
        ctx = metadata.context_lens.to(torch.int32)  # negative: lengths
        return up, kv, ctx
