import torch


class Fp16FullGraphWrapper:
    """Full CUDA graph around an fp16-only fallback backend; v1 caches are [2, num_blocks, ...] per layer."""

    def __init__(self, runnable, kv_caches, dtype=torch.float16):
        self.runnable = runnable
        self.dtype = dtype
        pairs = [kv.unbind(0) for kv in kv_caches]
        self.keys, self.values = zip(*pairs)
        self.static_k = [torch.empty_like(k, dtype=dtype) for k in self.keys]  # negative: allocation at construction
        self.static_v = [torch.empty_like(v, dtype=dtype) for v in self.values]  # negative: allocation at construction
        self.graph = None

    def __call__(self, *args, **kwargs):
        for src, dst in zip(self.keys, self.static_k):
            dst.copy_(src.to(self.dtype))  # positive: f3 CL001 key planes regrouped by zip(*pairs), whole per replay
        for src, dst in zip(self.values, self.static_v):
            dst.copy_(src.to(self.dtype))  # positive: f3 CL001 value planes, same
        if self.graph is None:
            return self.runnable(*args, **kwargs)
        self.graph.replay()
        return None

    def sink_blocks(self):
        return [v[:1].to(self.dtype) for v in self.values]  # negative: first block only
