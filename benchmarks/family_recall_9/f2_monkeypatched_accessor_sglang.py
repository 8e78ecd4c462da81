"""Accessors patched onto a pool class after its definition (setattr and plain assignment)."""
import torch


class PlainMHAPool:
    def __init__(self, size, head_num, head_dim, layer_num, device="cuda"):
        self.k_buffer = [torch.zeros(size, head_num, head_dim, dtype=torch.float8_e4m3fn, device=device) for _ in range(layer_num)]
        self.v_buffer = [torch.zeros(size, head_num, head_dim, dtype=torch.float8_e4m3fn, device=device) for _ in range(layer_num)]


def _flat_key(self, layer_id):
    return self.k_buffer[layer_id].flatten(1)


PlainMHAPool.get_flat_key = _flat_key
setattr(PlainMHAPool, "get_value_planes", lambda self, layer_id: self.v_buffer[layer_id].transpose(0, 1))
PlainMHAPool.get_rows = lambda self, layer_id, loc: self.k_buffer[layer_id][loc]


class PatchedPoolBackend:
    def __init__(self, pool: PlainMHAPool):
        self.pool = pool

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kf = self.pool.get_flat_key(layer.layer_id).to(q.dtype)  # positive: f2 CL001 flattened whole K layer via an assigned method
        vp = self.pool.get_value_planes(layer.layer_id).half()  # positive: f2 CL001 transposed whole V layer via a setattr'd method
        rows = self.pool.get_rows(layer.layer_id, forward_batch.out_cache_loc).to(q.dtype)  # negative: gathered rows via a patched method
        return q, kf, vp, rows
