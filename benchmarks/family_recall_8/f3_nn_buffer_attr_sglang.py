import torch
from torch import nn


class BufferedMLAPool(nn.Module):
    def __init__(self, layers, size, width):
        super().__init__()
        for i in range(layers):
            setattr(self, f"kv_{i}", nn.Buffer(torch.zeros(size, 1, width, dtype=torch.float8_e4m3fn), persistent=False))

    def get_key_buffer(self, layer_id):
        return getattr(self, f"kv_{layer_id}")


class NNBufferBackend:
    def __init__(self, pool: BufferedMLAPool):
        self.pool = pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        named = dict(self.pool.named_buffers())
        lat = named[f"kv_{layer.layer_id}"]
        up = lat.to(q.dtype)  # positive: f3 CL001 nn.Buffer found by name in named_buffers()
        every = torch.stack(list(self.pool.buffers())).bfloat16()  # positive: f3 CL001 stack of all buffers
        return up, every

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        lat = self.pool.get_key_buffer(layer.layer_id)
        return lat[forward_batch.out_cache_loc].to(q.dtype)  # negative: gathered rows
