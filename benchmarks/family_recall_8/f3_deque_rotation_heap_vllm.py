import heapq

import torch


class HeapOrderedConnector:
    def __init__(self):
        self.heap = []
        self.small = []

    def register_kv_caches(self, kv_caches):
        for order, (name, t) in enumerate(kv_caches.items()):
            heapq.heappush(self.heap, (order, name, t))
            heapq.heappush(self.small, (order, name, t.new_zeros(4)))

    def start_load_kv(self, forward_context, **kwargs):
        _, _, first = self.heap[0]
        up = first.to(torch.float16)  # positive: f3 CL001 heap entry's tensor is a registered cache
        largest = heapq.nlargest(1, self.heap, key=lambda e: e[0])[0][2].float()  # positive: f3 CL001 nlargest entry
        tiny = self.small[0][2].float()  # negative: 4-element tensor
        return up, largest, tiny
