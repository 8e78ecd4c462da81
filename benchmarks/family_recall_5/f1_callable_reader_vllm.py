"""A callable reader object built from the runner's kv_caches list."""

import torch


class LayerReader:
    """reader(i) returns layer i's whole paged cache."""

    def __init__(self, kv_caches):
        self._caches = kv_caches

    def __call__(self, i):
        return self._caches[i]


class SlotReader:
    """reader(i) returns only this step's slots of layer i (already gathered)."""

    def __init__(self, kv_caches, slot_mapping):
        self._caches = kv_caches
        self._slots = slot_mapping

    def __call__(self, i):
        return self._caches[i].flatten(1, 2)[:, self._slots]


class ReaderImpl:
    def __init__(self, runner):
        self.read = LayerReader(runner.kv_caches)
        self.runner = runner

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output):
        layer_cache = self.read(layer.layer_idx)
        kc, vc = layer_cache.unbind(0)
        k32 = kc.to(torch.float32)  # positive: f1 CL001 key plane of the whole layer cache from a callable reader
        v32 = vc.to(torch.float32)  # positive: f1 CL001 value plane of the same whole layer cache
        some = SlotReader(self.runner.kv_caches, attn_metadata.slot_mapping)
        cur = some(layer.layer_idx).to(torch.float32)  # negative: reader returns the step's gathered slots
        torch.ops._C.ref_attention(output, query, k32, v32, cur, attn_metadata.block_table)
        return output
