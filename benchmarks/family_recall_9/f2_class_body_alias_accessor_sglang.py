"""Accessors aliased in class bodies: `get_value_buffer = get_key_buffer`, `latent = Base.get_key_buffer`."""
import torch


class MLAPoolBase:
    def __init__(self, size, num_layers, store_dtype=torch.float8_e4m3fn, device="cuda"):
        self.start_layer = 0
        self.kv_buffer = [torch.zeros(size + 64, 1, 576, dtype=store_dtype, device=device) for _ in range(num_layers)]

    def get_key_buffer(self, layer_id):
        return self.kv_buffer[layer_id - self.start_layer]

    get_value_buffer = get_key_buffer

    def get_rows(self, layer_id, loc):
        return self.kv_buffer[layer_id - self.start_layer][loc]


class LatentPool(MLAPoolBase):
    latent = MLAPoolBase.get_key_buffer
    rows = MLAPoolBase.get_rows


class AliasBackend:
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool: LatentPool = forward_batch.token_to_kv_pool
        a = pool.latent(layer.layer_id).to(q.dtype)  # positive: f2 CL001 accessor aliased as `latent` in a subclass body
        b = pool.get_value_buffer(layer.layer_id)[..., :512].to(q.dtype)  # positive: f2 CL001 latent part via the aliased value accessor
        c = pool.rows(layer.layer_id, forward_batch.out_cache_loc).to(q.dtype)  # negative: gathered rows via an aliased accessor
        return a, b, c
