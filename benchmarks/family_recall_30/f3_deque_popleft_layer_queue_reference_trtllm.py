"""TRT-LLM layerwise reference attention: prepare() fills a deque of (idx, buffer); forward drains it with popleft()."""
import collections

import torch


class LayerwiseReferenceAttention:
    def __init__(self, kv_cache_manager, layer_ids):
        self.mgr = kv_cache_manager
        self.layer_ids = layer_ids
        self.pending = collections.deque()

    def prepare(self, metadata):
        self.block_ids = metadata.kv_cache_block_offsets[0, :, 0]
        self.pending = collections.deque((i, self.mgr.get_buffers(i)) for i in self.layer_ids)

    def forward(self, q_by_layer):
        out, recent = {}, {}
        while self.pending:
            idx, buf = self.pending.popleft()
            q = q_by_layer[idx]
            out[idx] = self._attend(q, buf[:, 0].to(q.dtype), buf[:, 1].to(q.dtype))  # positive: f3 CL001 both whole planes (one line)
            recent[idx] = self._attend(q, buf[self.block_ids, 0].to(q.dtype), buf[self.block_ids, 1].to(q.dtype))  # negative: blocks of the batch
        return out, recent

    def _attend(self, q, k, v):
        w = torch.einsum("thd,bphd->thbp", q, k).flatten(-2).softmax(-1)
        return torch.einsum("thn,nhd->thd", w, v.flatten(0, 1))
