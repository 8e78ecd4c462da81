"""A (manager, layer) tuple returned by one method, unpacked, passed on through two more."""
import torch


class TupleHopAttention:
    def __init__(self, layer_idx, compute_dtype=torch.bfloat16):
        self.layer_idx = layer_idx
        self.compute_dtype = compute_dtype

    def _where(self, metadata):
        return metadata.kv_cache_manager, self.layer_idx

    def _fetch(self, manager, idx):
        return manager.get_buffers(idx), manager.get_block_ids_per_seq(idx)

    def _prepare(self, pair):
        buf, blocks = pair
        dense = buf.to(self.compute_dtype)  # positive: f1 CL001 manager buffer after three tuple hops
        blk = blocks.to(torch.int32)  # negative: block ids per sequence
        return dense, blk

    def forward(self, q, k, v, metadata):
        mgr, idx = self._where(metadata)
        dense, blk = self._prepare(self._fetch(mgr, idx))
        _, again = self._where(metadata)
        raw, _ = self._fetch(mgr, again)
        half = raw[:, 1].half()  # positive: f1 CL001 V half of the manager buffer from the tuple
        q_c = q.to(self.compute_dtype)  # negative: batch query
        return q_c, dense, half, blk
