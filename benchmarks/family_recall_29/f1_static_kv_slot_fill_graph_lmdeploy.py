"""lmdeploy CUDA graph runner: one _StaticKVSlot object per layer, refilled on every replay."""
import torch


class _StaticKVSlot:
    def __init__(self, src: torch.Tensor, dtype: torch.dtype):
        self.src = src
        self.dst = torch.empty_like(src, dtype=dtype)  # negative: allocation at capture

    def fill(self):
        self.dst.copy_(self.src.to(self.dst.dtype))  # positive: f1 CL001 whole source layer cache converted on every replay

    def fill_tail(self, start: int):
        self.dst[start:].copy_(self.src[start:].to(self.dst.dtype))  # negative: block window selected first


class FP16ShadowGraphRunner:
    def __init__(self, model, cache_engine, compute_dtype=torch.float16):
        self.model = model
        self.slots = []
        self.graphs = {}
        self.cache_engine = cache_engine
        self.compute_dtype = compute_dtype

    def capture(self, batch_size: int):
        for k_cache, v_cache in self.cache_engine.gpu_cache:
            self.slots.append(_StaticKVSlot(k_cache, self.compute_dtype))
            self.slots.append(_StaticKVSlot(v_cache, self.compute_dtype))

    def __call__(self, batch_size: int, **inputs):
        for slot in self.slots:
            slot.fill()
        self.graphs[batch_size].replay()
        return self.model.output_buffers[batch_size]
