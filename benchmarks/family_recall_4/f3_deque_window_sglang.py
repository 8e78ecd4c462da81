"""Per-layer buffers kept in deques next to a deque of recent (small) location tensors."""
import collections

import torch


class DequeBackend:
    def __init__(self, model_runner):
        pool = model_runner.token_to_kv_pool
        self.start = pool.start_layer
        self.k_ring = collections.deque(pool.k_buffer)
        self.v_ring = collections.deque(pool.v_buffer)
        self.recent_locs = collections.deque(maxlen=4)
        self.pending = collections.deque()
        self.kernel = model_runner.attn_kernels.extend

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        self.recent_locs.append(forward_batch.out_cache_loc)
        i = layer.layer_id - self.start
        t = self.k_ring[i]
        t = t.to(q.dtype)  # positive: f3 CL001 deque of per-layer k buffers
        last = self.recent_locs[-1].to(torch.int64)  # negative: deque of per-step location tensors
        vv = list(self.v_ring)[i].half()  # positive: f3 CL001 list() of the value deque, one layer's whole buffer
        early = self.k_ring[i].float()[forward_batch.out_cache_loc]  # positive: f3 CL003 whole layer buffer cast, then rows picked
        late = self.v_ring[i][forward_batch.out_cache_loc].float()  # negative: gather then cast
        return self.kernel(q, t, vv, last, early, late)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        self.pending.append((layer.layer_id, self.k_ring[layer.layer_id - self.start]))
        lid, src = self.pending.popleft()
        arena = src.bfloat16()  # positive: f3 CL001 (layer, buffer) pair popped from a deque
        return arena, lid


def drain_locations(ring):
    out = []
    while ring:
        out.append(ring.popleft().to(torch.int64))  # negative: deque of location tensors
    return torch.cat(out) if out else None


def ring_summary(ring):
    return [tuple(t.shape) for t in ring]
