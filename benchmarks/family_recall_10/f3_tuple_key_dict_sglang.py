"""Per-layer buffers stored in a dict keyed by (layer_id, half) tuples."""
import torch


class TupleKeyBackend:
    def __init__(self, pool):
        self.planes = {}
        for i, (kb, vb) in enumerate(zip(pool.k_buffer, pool.v_buffer)):
            self.planes[(i, "k")] = kb
            self.planes[(i, "v")] = vb
        self.planes[(-1, "lens")] = torch.zeros(16, dtype=torch.int32)

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        lid = layer.layer_id
        kb = self.planes[lid, "k"].to(q.dtype)  # positive: f3 CL001 K plane under a (layer, "k") key
        key = (lid, "v")
        vb = self.planes.get(key).to(q.dtype)  # positive: f3 CL001 V plane under a tuple key via get
        lens = self.planes[(-1, "lens")].to(torch.int64)  # negative: lengths under a tuple key
        return kb, vb, lens
