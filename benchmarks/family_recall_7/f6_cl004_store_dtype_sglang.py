"""f6: a pool whose accessors themselves convert the whole per-layer buffer when store != compute dtype (CL004)."""
import torch


class MixedStoreKVPool:
    def __init__(self, size, layer_num, heads, dim, dtype, store_dtype, device, start_layer=0):
        self.dtype = dtype
        self.store_dtype = store_dtype
        self.start_layer = start_layer
        self.k_buffer = [torch.zeros((size + 1, heads, dim), dtype=store_dtype, device=device) for _ in range(layer_num)]
        self.v_buffer = [torch.zeros((size + 1, heads, dim), dtype=store_dtype, device=device) for _ in range(layer_num)]

    def get_key_buffer(self, layer_id):
        buf = self.k_buffer[layer_id - self.start_layer]
        if self.store_dtype != self.dtype:
            return buf.view(torch.float8_e4m3fn).to(self.dtype)  # positive: f6 CL004 accessor converts the whole layer
        return buf

    def get_dense_pair(self, layer_id):
        i = layer_id - self.start_layer
        k = self.k_buffer[i].view(torch.float8_e4m3fn)
        v = self.v_buffer[i].view(torch.float8_e4m3fn).float()  # positive: f6 CL004 pair accessor converts the whole V layer
        return k, v

    def get_key_rows(self, layer_id, loc):
        return self.k_buffer[layer_id - self.start_layer][loc].view(torch.float8_e4m3fn).to(self.dtype)  # negative: gathered rows

    def get_raw_key_buffer(self, layer_id):
        return self.k_buffer[layer_id - self.start_layer].view(torch.float8_e4m3fn)  # negative: reinterpret only


class MixedBackend:
    def __init__(self, pool: MixedStoreKVPool):
        self.pool = pool

    def forward_decode(self, q, k, v, layer, forward_batch):
        keys = self.pool.get_key_buffer(layer.layer_id)
        _, vals = self.pool.get_dense_pair(layer.layer_id)
        new = self.pool.get_key_rows(layer.layer_id, forward_batch.out_cache_loc)
        return keys, vals, new
