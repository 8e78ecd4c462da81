import torch


class MHATokenToKVPool:
    def __init__(self, size, dtype, head_num, head_dim, layer_num, start_layer=0):
        self.dtype = dtype
        self.start_layer = start_layer
        self.k_buffer = [torch.zeros(size, head_num, head_dim, dtype=dtype) for _ in range(layer_num)]
        self.v_buffer = [torch.zeros(size, head_num, head_dim, dtype=dtype) for _ in range(layer_num)]


class PPAwareKVPool(MHATokenToKVPool):
    def get_kv_pair(self, layer_id):
        i = layer_id - self.start_layer
        return self.k_buffer[i], self.v_buffer[i]

    def get_rows(self, layer_id, loc):
        i = layer_id - self.start_layer
        return self.k_buffer[i][loc], self.v_buffer[i][loc]


class FlexFallbackBackend:
    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        kb, vb = pool.get_kv_pair(layer.layer_id)
        kb = kb.to(q.dtype)  # positive: f2 CL001 subclass pool method returns the whole per-layer key buffer
        vb = vb.to(q.dtype)  # positive: f2 CL001 subclass pool method returns the whole per-layer value buffer
        kr, vr = pool.get_rows(layer.layer_id, forward_batch.out_cache_loc)
        kr = kr.to(q.dtype)  # negative: rows gathered by the subclass method
        return self._flex(q, kb, vb, kr)

    def _flex(self, q, k, v, kr):
        return q
