import itertools

import torch


class GroupedCacheRunner:
    def initialize_kv_cache(self, kv_cache_config):
        self.groups = kv_cache_config.kv_cache_groups
        self.kv_caches = {}
        for g in self.groups:
            for name in g.layer_names:
                self.kv_caches[name] = torch.zeros(g.kv_cache_spec.shape, dtype=torch.uint8)
        self.probe = self.kv_caches[self.groups[0].layer_names[0]].float()  # negative: one-time setup

    def execute_model(self, scheduler_output, intermediate_tensors=None):
        full = [g for g in self.groups if not g.kv_cache_spec.sliding_window]
        swa = list(itertools.filterfalse(lambda g: not g.kv_cache_spec.sliding_window, self.groups))
        dense = []
        for g in full:
            for name in g.layer_names:
                dense.append(self.kv_caches[name].to(torch.bfloat16))  # positive: f3 CL001 whole cache of each full-attention layer, group -> names -> dict
        for g in swa:
            name = g.layer_names[0]
            w = g.kv_cache_spec.sliding_window
            dense.append(self.kv_caches[name][:, -w:].to(torch.bfloat16))  # negative: last window blocks only
        counts = torch.tensor([len(g.layer_names) for g in self.groups]).to(torch.int32)  # negative: counts
        return dense, counts
