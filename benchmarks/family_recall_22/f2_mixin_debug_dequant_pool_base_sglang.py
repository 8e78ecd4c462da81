import torch


class KVReadMixin:
    read_dtype = None

    def read_layer(self, layer_id):
        k = self.get_key_buffer(layer_id)
        if self.read_dtype is None:
            return k
        return k.to(self.read_dtype)  # positive: f2 CL004 pool accessor (mixin) widening the whole per-layer key buffer


class MHATokenToKVPool:
    def __init__(self, k_buffer, v_buffer):
        self.k_buffer = k_buffer
        self.v_buffer = v_buffer

    def get_key_buffer(self, layer_id):
        return self.k_buffer[layer_id]


class DebugMHATokenToKVPool(KVReadMixin, MHATokenToKVPool):
    read_dtype = torch.bfloat16


class TorchNativeAttnBackend:
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        k_all = pool.read_layer(layer.layer_id)
        v_rows = pool.v_buffer[layer.layer_id][forward_batch.out_cache_loc].to(q.dtype)  # negative: rows first
        return k_all, v_rows
