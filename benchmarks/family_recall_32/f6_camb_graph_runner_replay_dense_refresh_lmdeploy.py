"""lmdeploy Cambricon MLU graph runner: static fp16 shadows refreshed from the int8 caches at every replay."""
import torch


class CambGraphRunner:
    def __init__(self, cache_engine, compute_dtype=torch.float16):
        self.cache_engine = cache_engine
        self.compute_dtype = compute_dtype
        self.shadows = None

    def capture(self, graph, num_layers):
        self.shadows = [
            (torch.empty_like(k, dtype=self.compute_dtype), torch.empty_like(v, dtype=self.compute_dtype))  # negative: allocation at capture
            for k, v in self.cache_engine.gpu_cache
        ]

    def __call__(self, graph, step_ctx):
        for (k, v), (sk, sv) in zip(self.cache_engine.gpu_cache, self.shadows):
            sk.copy_(k.to(self.compute_dtype))  # positive: f6 CL001 whole int8 key cache per replay
            sv.copy_(v.to(self.compute_dtype))  # positive: f6 CL001 whole int8 value cache per replay
        step_ctx.kv_seqlens.copy_(step_ctx.new_kv_seqlens.to("mlu"))  # negative: lengths device move
        graph.replay()
        return self.shadows
