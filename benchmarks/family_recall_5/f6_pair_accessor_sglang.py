"""A pool whose accessors have unusual names: one returns a (k, v) pair, one converts."""

import torch


class PairedTokenPool:
    def __init__(self, size, head_num, head_dim, layer_num, dtype, device):
        self.dtype = dtype
        self.compute_dtype = torch.bfloat16
        self._keys = [torch.zeros(size + 1, head_num, head_dim, dtype=dtype, device=device) for _ in range(layer_num)]
        self._vals = [torch.zeros(size + 1, head_num, head_dim, dtype=dtype, device=device) for _ in range(layer_num)]

    def planes_for(self, layer_id):
        return self._keys[layer_id], self._vals[layer_id]

    def dense_for(self, layer_id):
        k = self._keys[layer_id].to(self.compute_dtype)  # positive: f6 CL004 accessor converts the whole key plane of the layer
        return k, self._vals[layer_id]

    def rows_for(self, layer_id, loc):
        return self._keys[layer_id][loc].to(self.compute_dtype)  # negative: gather-then-cast inside a row getter

    def put(self, layer_id, loc, k, v):
        self._keys[layer_id][loc] = k.to(self.dtype)  # negative: writer casts the new tokens
        self._vals[layer_id][loc] = v.to(self.dtype)  # negative: writer casts the new tokens


class PairedBackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool  # a PairedTokenPool
        self.dtype = model_runner.dtype

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kp, vp = self.pool.planes_for(layer.layer_id)
        kx = kp.to(self.dtype)  # positive: f6 CL001 key plane from the pool's planes_for accessor
        vx = vp.to(self.dtype)  # positive: f6 CL001 value plane from planes_for
        o = torch.empty_like(q)
        torch.ops.sgl_kernel.extend_attention(q, kx, vx, o, forward_batch.extend_seq_lens)
        return o

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kd, vraw = self.pool.dense_for(layer.layer_id)
        o = torch.empty_like(q)
        torch.ops.sgl_kernel.decode_attention(q, kd, vraw, o, forward_batch.seq_lens)
        return o
