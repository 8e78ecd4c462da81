import torch


class LoopSearchAttention:
    def __init__(self, kv_cache_manager, layer_idx, layer_ids):
        self.mgr = kv_cache_manager
        self.layer_idx = layer_idx
        self.layer_ids = layer_ids

    def _find(self):
        found = None
        for lid in self.layer_ids:
            if lid == self.layer_idx:
                found = self.mgr.get_buffers(lid)
                break
        else:
            found = self.mgr.get_buffers(0)
        return found

    def forward(self, q, k, v, metadata):
        buf = self._find()
        up = buf.to(q.dtype)  # positive: f4 CL001 buffer found by a loop with break / else
        while True:
            cand = self.mgr.get_buffers(self.layer_idx)
            if cand is not None:
                break
        again = cand.float()  # positive: f4 CL001 assigned in a while-True loop before break
        pos = metadata.position_ids.to(torch.int64)  # negative: positions
        return up, again, pos
