"""lmdeploy: a dict comprehension over enumerate(past_key_values) keeps the full-attention layers only."""
import torch


class PagedDecodeFallback:
    def __init__(self, model_config, dtype):
        self.window_layers = set(model_config.sliding_window_layers)
        self.window = model_config.sliding_window
        self.dtype = dtype

    def update_step_context(self, ctx):
        full = {i: (k, v) for i, (k, v) in enumerate(ctx.kv_caches) if i not in self.window_layers}
        window = {i: (k, v) for i, (k, v) in enumerate(ctx.kv_caches) if i in self.window_layers}
        dense = {}
        for i, (k, v) in full.items():
            dense[i] = (k.float(), v.float())  # positive: f3 CL001 whole caches of each full-attention layer (one line, one finding)
        for i, (k, v) in window.items():
            blocks = ctx.block_offsets[:, -self.window // k.size(1):]
            dense[i] = (k[blocks].float(), v[blocks].float())  # negative: window blocks gathered first
        ctx.dense_kv = dense
        ctx.kv_scales = [s.float() for s in ctx.kv_quant_scales]  # negative: scales
        return ctx
