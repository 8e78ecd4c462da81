import torch


class StackedTrtllmAttention:
    def __init__(self, layer_idx, dtype):
        self.layer_idx = layer_idx
        self.dtype = dtype
        self._frames = []

    def forward(self, q, k, v, attn_metadata, **kwargs):
        self._frames.append((attn_metadata.kv_cache_manager, self.layer_idx))
        try:
            return self._generation(q, attn_metadata)
        finally:
            self._frames.pop()

    def _top_buffer(self):
        mgr, idx = self._frames[-1]
        return mgr.get_buffers(idx)

    def _generation(self, q, attn_metadata):
        buf = self._top_buffer()
        dense = buf.to(self.dtype)  # positive: f1 CL001 manager buffer of the frame on top of a list used as a stack
        blk = attn_metadata.kv_cache_block_offsets.to(torch.int32)  # negative: block offsets table
        q16 = q.to(self.dtype)  # negative: batch query
        return q16, dense, blk
