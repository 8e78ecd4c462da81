import torch

from .store import ConvertingStore


class StoreBackend:
    def __init__(self, store: ConvertingStore):
        self.store = store

    def forward_decode(self, q, layer, forward_batch):
        dense = self.store.dense_layer(layer.layer_id)
        raw = self.store.raw_layer(layer.layer_id).to(torch.bfloat16)  # positive: f7 CL001 raw accessor from store.py, whole layer
        rows = self.store.dense_rows(layer.layer_id, forward_batch.out_cache_loc)
        q32 = q.float()  # negative: the batch's query
        return dense, raw, rows, q32
