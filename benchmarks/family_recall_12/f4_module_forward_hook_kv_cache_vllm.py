import torch
from torch import nn


def _upcast_hook(module, args, output):
    module.kv_dense = module.kv_cache[0].to(torch.bfloat16)  # positive: f4 CL001 forward hook converts the module's bound kv_cache every forward
    return output


def _count_hook(module, args, output):
    module.calls = module.calls.to(torch.int64) + 1  # negative: a one-element counter


class HookedAttention(nn.Module):
    def __init__(self, num_heads, head_size):
        super().__init__()
        self.kv_cache = [torch.tensor([])]
        self.calls = torch.zeros(1, dtype=torch.int32)
        self.register_forward_hook(_upcast_hook)
        self.register_forward_hook(_count_hook)

    def forward(self, query, key, value):
        return query.to(torch.bfloat16)  # negative: batch query
