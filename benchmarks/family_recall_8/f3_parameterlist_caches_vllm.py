import torch
from torch import nn


class ParamCacheRunner(nn.Module):
    def __init__(self, num_layers, shape):
        super().__init__()
        self.kv = nn.ParameterList(
            nn.Parameter(torch.zeros(shape, dtype=torch.float8_e4m3fn), requires_grad=False)
            for _ in range(num_layers)
        )

    def execute_model(self, scheduler_output, intermediate_tensors=None):
        first = self.kv[0]
        up = first.data.to(torch.bfloat16)  # positive: f3 CL001 ParameterList entry's data, whole layer
        all_up = [p.detach().half() for p in self.kv.parameters()]  # positive: f3 CL001 every registered cache
        lens = torch.tensor(scheduler_output.num_scheduled_tokens, dtype=torch.int32)  # negative: counts
        return up, all_up, lens

    def forward(self, layer_idx, slots, query):
        rows = self.kv[layer_idx][slots].to(query.dtype)  # negative: gathered slots
        return rows
