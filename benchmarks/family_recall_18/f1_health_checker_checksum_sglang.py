"""sglang-style model runner with a KV health checker that checksums each layer every N steps."""
import torch


class KVHealthChecker:
    def __init__(self, token_to_kv_pool, start_layer, end_layer, every_n=64):
        self.pool = token_to_kv_pool
        self.layer_ids = range(start_layer, end_layer)
        self.every_n = every_n
        self.k_sums = {}
        self.v_amax = {}
        self.live_sums = {}
        self.step = 0

    def after_step(self, forward_batch):
        self.step += 1
        if self.step % self.every_n:
            return
        for layer_id in self.layer_ids:
            k = self.pool.get_key_buffer(layer_id)
            v = self.pool.get_value_buffer(layer_id)
            self.k_sums[layer_id] = k.float().sum().item()  # positive: f1 CL001 checksum widens every slot of the key layer
            self.v_amax[layer_id] = v.to(torch.float32).abs().max().item()  # positive: f1 CL001 whole value layer widened for amax
            live = k[forward_batch.out_cache_loc]
            self.live_sums[layer_id] = live.float().sum().item()  # negative: only the slots written this step


class ModelRunner:
    def __init__(self, model, token_to_kv_pool, start_layer, end_layer):
        self.model = model
        self.token_to_kv_pool = token_to_kv_pool
        self.kv_health = KVHealthChecker(token_to_kv_pool, start_layer, end_layer)
        first = token_to_kv_pool.get_key_buffer(start_layer)
        self.baseline = first.float().norm().item()  # negative: one-time baseline in __init__

    def forward(self, forward_batch):
        out = self.model.forward(forward_batch.input_ids, forward_batch.positions, forward_batch)
        self.kv_health.after_step(forward_batch)
        return out
