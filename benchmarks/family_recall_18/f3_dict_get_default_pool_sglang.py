"""sglang-style torch decode backend for a hybrid SWA model: window layers map to the SWA pool, others default."""
import torch


class HybridTorchDecodeBackend:
    def __init__(self, model_runner):
        pool = model_runner.token_to_kv_pool
        self.full_pool = pool.full_kv_pool
        self.window_pools = {lid: pool.swa_kv_pool for lid in model_runner.model_config.swa_layer_ids}
        self.window_loc = {}

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = self.window_pools.get(layer.layer_id, self.full_pool)
        keys = pool.get_key_buffer(layer.layer_id).to(q.dtype)  # positive: f3 CL001 pool picked by dict.get with a default; whole key layer
        values = pool.get_value_buffer(layer.layer_id).to(q.dtype)  # positive: f3 CL001 whole value layer
        loc = self.window_loc.get(layer.layer_id, forward_batch.out_cache_loc)
        recent = pool.get_key_buffer(layer.layer_id)[loc].to(q.dtype)  # negative: rows picked by the window map
        return self._sdpa(q, keys, values, recent, forward_batch)

    def init_forward_metadata(self, forward_batch):
        for lid in self.window_pools:
            self.window_loc[lid] = forward_batch.swa_out_cache_loc

    def _sdpa(self, q, keys, values, recent, forward_batch):
        return q
