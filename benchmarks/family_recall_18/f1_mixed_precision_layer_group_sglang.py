"""sglang-style torch backend over layer groups whose keys are stored FP8 and values BF16."""
from dataclasses import dataclass

import torch


class SplitPrecisionKVPool:
    def __init__(self, size, head_num, head_dim, layer_num, device):
        shape = (size + 1, head_num, head_dim)
        self.k_buffer = [torch.zeros(shape, dtype=torch.float8_e4m3fn, device=device) for _ in range(layer_num)]
        self.v_buffer = [torch.zeros(shape, dtype=torch.bfloat16, device=device) for _ in range(layer_num)]


@dataclass
class LayerGroup:
    pool: SplitPrecisionKVPool
    first_layer: int

    def planes(self, layer_id):
        i = layer_id - self.first_layer
        return self.pool.k_buffer[i], self.pool.v_buffer[i]


class GroupedTorchDecodeBackend:
    def __init__(self, groups, layers_per_group):
        self.groups = groups
        self.layers_per_group = layers_per_group

    def forward_decode(self, q, k, v, layer, forward_batch):
        group = self.groups[layer.layer_id // self.layers_per_group]
        k_buf, v_buf = group.planes(layer.layer_id)
        keys = k_buf.to(q.dtype)  # positive: f1 CL001 the group's FP8 key layer widened whole each step
        values = v_buf.to(torch.bfloat16)  # negative: the value plane is allocated bf16, same dtype
        return self._attend(q, keys, values, forward_batch)

    def forward_extend(self, q, k, v, layer, forward_batch):
        group = self.groups[layer.layer_id // self.layers_per_group]
        k_buf, v_buf = group.planes(layer.layer_id)
        prefix = k_buf[forward_batch.prefix_slots].to(q.dtype)  # negative: gathered prefix rows
        keys = k_buf.float()  # positive: f1 CL001 whole key layer widened for the fp32 extend path
        return self._attend(q.float(), keys, v_buf[forward_batch.prefix_slots].float(), forward_batch, prefix)  # negative: gathered value rows

    def _attend(self, q, keys, values, forward_batch, prefix=None):
        return q
