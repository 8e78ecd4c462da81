import heapq

import torch


class PriorityPrefetchAttention:
    """Unusual: layers queued by priority in a heap of (prio, idx, tensor)."""

    def __init__(self, kv_cache_manager, num_layers):
        self.heap = []
        for i in range(num_layers):
            heapq.heappush(self.heap, (i % 4, i, kv_cache_manager.get_buffers(i)))
        self.small = [(0, 0, torch.zeros(4))]

    def forward(self, q, k, v, metadata):
        prio, idx, buf = heapq.heappop(self.heap)
        widened = buf.to(q.dtype)  # positive: f3 CL001 buffer popped from a heap of manager layers
        _, _, tiny = self.small[0]
        t = tiny.to(q.dtype)  # negative: small tensor in a look-alike list
        heapq.heappush(self.heap, (prio + 4, idx, buf))
        return self._run(q, widened, t)

    def _run(self, q, kv, t):
        return q
