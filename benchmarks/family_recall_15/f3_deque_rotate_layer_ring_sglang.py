import collections

import torch


class LayerPrefetchRing:
    """Keeps the next few layers' buffers at the front; rotated once per layer during decode."""

    def __init__(self, pool, depth=2):
        self.pool = pool
        self.ring = collections.deque(
            (lid, pool.get_key_buffer(lid)) for lid in range(pool.start_layer, pool.end_layer)
        )
        self.depth = depth

    def advance(self):
        self.ring.rotate(-1)


class PrefetchDecodeBackend:
    def __init__(self, ring, model_dtype):
        self.ring = ring
        self.model_dtype = model_dtype

    def forward_decode(self, q, k, v, layer, forward_batch):
        lid, buf = self.ring[0]
        dense = buf.to(self.model_dtype)  # positive: f3 CL001 whole layer buffer from the front of the deque
        idx = forward_batch.out_cache_loc
        nxt = self.ring[1][1][idx].to(self.model_dtype)  # negative: next layer's gathered rows
        self.ring.advance()
        meta = torch.tensor([lid, len(self.ring)], dtype=torch.int32)  # negative: metadata
        return q @ dense.transpose(-1, -2), nxt, meta
