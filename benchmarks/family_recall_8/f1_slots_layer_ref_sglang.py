import torch


class LayerRef:
    __slots__ = ("keys", "vals", "layer_id")

    def __init__(self, keys, vals, layer_id):
        self.keys = keys
        self.vals = vals
        self.layer_id = layer_id


class TokenKVPool:
    def __init__(self, size, heads, dim, layers, dtype):
        self.k_buffer = [torch.empty(size, heads, dim, dtype=dtype, device="cuda") for _ in range(layers)]
        self.v_buffer = [torch.empty(size, heads, dim, dtype=dtype, device="cuda") for _ in range(layers)]

    def ref(self, layer_id):
        return LayerRef(self.k_buffer[layer_id], self.v_buffer[layer_id], layer_id)


class SlotsBackend:
    def __init__(self, pool):
        self.pool = pool

    def forward_decode(self, q, layer, forward_batch):
        r = self.pool.ref(layer.layer_id)
        k = r.keys.to(q.dtype)  # positive: f1 CL001 slots record holds the whole layer K buffer
        v = r.vals.half()  # positive: f1 CL001 slots record holds the whole layer V buffer
        rows = r.keys[forward_batch.out_cache_loc].to(q.dtype)  # negative: gathered rows of the step
        lid = torch.tensor(r.layer_id, dtype=torch.int64)  # negative: metadata scalar
        return q @ k.transpose(-1, -2), v, rows, lid
