import torch


class RunnerBoundImplBase:
    def __init__(self, runner, layer_idx):
        self._runner = runner
        self.layer_idx = layer_idx

    @property
    def layer_cache(self):
        return self._runner.kv_caches[self.layer_idx]

    @property
    def layer_scale(self):
        return self._runner.kv_scales[self.layer_idx]


class TreeAttentionImpl(RunnerBoundImplBase):
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        if attn_metadata.tree_attn_bias is not None:
            cache = self.layer_cache.to(query.dtype)  # positive: f2 CL001 runner cache through an inherited property (tree verify)
            bias = attn_metadata.tree_attn_bias.to(query.dtype)  # negative: per-step tree bias
            return cache, bias
        s = self.layer_scale.to(query.dtype)  # negative: per-layer scale
        return s
