"""Mostly near misses: state pools read per request, small tables, init copies."""
import torch


class StatePool:
    def __init__(self, size, num_layers, conv_dim, device):
        self.conv_state = torch.zeros((num_layers, size + 1, conv_dim, 4), dtype=torch.bfloat16, device=device)
        self.kv_like = [torch.zeros((size + 1, 8, 128), dtype=torch.float8_e4m3fn, device=device) for _ in range(num_layers)]
        self.cpu_mirror = [t.to(torch.bfloat16) for t in self.kv_like]  # negative: init-time

    def layer_state(self, layer_id: int):
        return self.conv_state[layer_id]

    def layer_cache(self, layer_id: int):
        return self.kv_like[layer_id]


class StateBackend:
    def __init__(self, model_runner):
        self.pool: StatePool = model_runner.req_to_token_pool.mamba_pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        req = forward_batch.req_pool_indices
        st = self.pool.layer_state(layer.layer_id)[req].float()  # negative: per-request rows
        cache = self.pool.layer_cache(layer.layer_id).float()  # positive: f6 CL001 custom layer_cache accessor of an in-tree pool
        idx = req.to(torch.int64)  # negative: indices
        return st, cache, idx
