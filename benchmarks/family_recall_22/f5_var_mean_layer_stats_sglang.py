import torch


class KVDriftMonitor:
    def __init__(self, token_to_kv_pool):
        self.pool = token_to_kv_pool

    def stats(self, layer_id):
        v = self.pool.get_value_buffer(layer_id)
        var, mean = torch.var_mean(v.to(torch.float32), dim=0)  # positive: f5 CL001 whole value buffer widened for var_mean
        head_var = torch.var(v[:1024].to(torch.float32))  # negative: first 1024 slots only
        return var, mean, head_var


class ModelRunner:
    def __init__(self, pool, num_layers):
        self.monitor = KVDriftMonitor(pool)
        self.num_layers = num_layers

    def forward(self, forward_batch, skip_attn_backend_init=False):
        return [self.monitor.stats(i) for i in range(self.num_layers)]
