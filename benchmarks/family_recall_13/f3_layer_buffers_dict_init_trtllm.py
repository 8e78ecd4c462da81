import torch


class StarAttentionFallback:
    def __init__(self, kv_cache_manager, num_layers, dtype):
        self.dtype = dtype
        self.layer_buffers = {i: kv_cache_manager.get_buffers(i) for i in range(num_layers)}
        self.block_scales = {i: torch.ones(1) for i in range(num_layers)}

    def forward(self, q, k, v, metadata, layer_idx):
        buf = self.layer_buffers[layer_idx]
        dense = buf.to(self.dtype)  # positive: f3 CL001 manager buffer read back from a dict filled in __init__
        scale = self.block_scales[layer_idx].to(self.dtype)  # negative: per-layer scale in a look-alike dict
        ctx = metadata.context_lens.to(torch.int32)  # negative: context lengths
        return self._attend(q, dense, scale, ctx)

    def _attend(self, q, kv, s, ctx):
        return q
