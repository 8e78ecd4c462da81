"""Registered caches bound by `with nullcontext(...) as c` and ExitStack.enter_context."""
import contextlib

import torch


class NullContextConnector:
    def register_kv_caches(self, kv_caches):
        self.kv_caches = kv_caches
        self.slot_counts = {n: torch.zeros(4, dtype=torch.int32) for n in kv_caches}

    def start_load_kv(self, forward_context, **kwargs):
        for name in self.kv_caches:
            with contextlib.nullcontext(self.kv_caches[name]) as c:
                self._stage(name, c.to(torch.float16))  # positive: f1 CL001 registered cache bound by nullcontext

    def wait_for_layer_load(self, layer_name):
        with contextlib.ExitStack() as stack:
            cache = stack.enter_context(contextlib.nullcontext(self.kv_caches[layer_name]))
            counts = stack.enter_context(contextlib.nullcontext(self.slot_counts[layer_name]))
            self._stage(layer_name, cache.float())  # positive: f1 CL001 cache bound via ExitStack.enter_context
            self._stage(layer_name, counts.to(torch.int64))  # negative: per-layer counters

    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        with contextlib.nullcontext(kv_layer[:, attn_metadata.slot_mapping]) as rows:
            self._stage(layer_name, rows.to(torch.float16))  # negative: gathered slots of this step

    def _stage(self, name, t):
        return t
