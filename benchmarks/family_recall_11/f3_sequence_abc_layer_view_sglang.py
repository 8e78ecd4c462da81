from collections.abc import Sequence

import torch


class LayerSeq(Sequence):
    """Read-only sequence of the pool's per-layer key buffers."""

    def __init__(self, pool):
        self._pool = pool

    def __len__(self):
        return len(self._pool.k_buffer)

    def __getitem__(self, i):
        return self._pool.k_buffer[i]


class SeqBackend:
    def init_forward_metadata(self, forward_batch):
        self.layers = LayerSeq(forward_batch.token_to_kv_pool)
        self.tail = [t.to(torch.bfloat16) for t in reversed(self.layers)][:1]  # positive: f3 CL001 every layer's whole buffer through Sequence.__reversed__

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kbuf = self.layers[layer.layer_id]
        kd = kbuf.to(q.dtype)  # positive: f3 CL001 whole key buffer through the Sequence's __getitem__
        pos = len(self.layers) - 1
        lens = forward_batch.seq_lens.to(torch.int32)  # negative: lengths
        return kd, pos, lens
