"""itertools.starmap and map apply Tensor.to / a lambda over the layer caches."""
import itertools

import torch


class ShadowCopyConnector:
    def __init__(self, dtype=torch.bfloat16):
        self.dtype = dtype
        self.kv_caches = {}

    def register_kv_caches(self, kv_caches):
        self.kv_caches = kv_caches

    def wait_for_save(self):
        pairs = ((t, self.dtype) for t in self.kv_caches.values())
        shadow = list(itertools.starmap(torch.Tensor.to, pairs))  # positive: f4 CL001 every whole layer cache through starmap(Tensor.to)
        halves = list(map(lambda t: t[0].float(), self.kv_caches.values()))  # positive: f4 CL001 every layer's whole K half through map(lambda)
        moved = list(map(lambda t: t.to("cpu"), self.kv_caches.values()))  # negative: device moves
        return shadow, halves

    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        slots = attn_metadata.slot_mapping
        rows = list(map(lambda t: t.flatten(1, 2)[:, slots].to(self.dtype), [kv_layer]))  # negative: gathered at the step's slots
        ids = list(itertools.starmap(torch.Tensor.to, [(slots, torch.int64)]))  # negative: slot mapping
        return rows, ids
