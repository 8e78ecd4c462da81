"""lmdeploy CUDA graph runner: layers needing a widen picked by itertools.compress(layers, flags)."""
import itertools

import torch


class Fp8FallbackGraphRunner:
    def __init__(self, cache_engine, layer_types, compute_dtype=torch.bfloat16):
        self.layers = list(cache_engine.gpu_cache)
        self.flags = [t == "full_attention" for t in layer_types]
        self.sliding = [t == "sliding_attention" for t in layer_types]
        self.compute_dtype = compute_dtype

    def __call__(self, graph, step_ctx):
        dense = [
            (k.to(self.compute_dtype), v.to(self.compute_dtype))  # positive: f3 CL001 both whole layer caches of every flagged layer (one line)
            for k, v in itertools.compress(self.layers, self.flags)
        ]
        window = step_ctx.block_offsets[:, -step_ctx.window_blocks:]
        recent = [
            (k[window].to(self.compute_dtype), v[window].to(self.compute_dtype))  # negative: window blocks gathered first
            for k, v in itertools.compress(self.layers, self.sliding)
        ]
        step_ctx.q_seqlens.copy_(step_ctx.new_q_seqlens.to(step_ctx.q_seqlens.dtype))  # negative: lengths
        graph.replay()
        return dense, recent
