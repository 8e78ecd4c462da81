# vLLM v1 connector: layers waiting to be saved are kept in a priority list, drained in wait_for_save.
import heapq

import torch


class LayerwiseSaveConnector:
    def __init__(self):
        self._pending = []

    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        heapq.heappush(self._pending, (self._layer_order[layer_name], layer_name, kv_layer))

    def wait_for_save(self):
        while self._pending:
            _, name, kv_layer = heapq.heappop(self._pending)
            if self._wire_dtype != kv_layer.dtype:
                self._send(name, kv_layer.to(self._wire_dtype))  # positive: f3 CL001 whole layer popped from the heap
            else:
                self._send(name, kv_layer.to(self._wire_dtype))  # negative: same dtype branch
