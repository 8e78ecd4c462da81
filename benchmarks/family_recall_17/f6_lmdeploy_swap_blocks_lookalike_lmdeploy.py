"""lmdeploy CacheEngine: swap_in/swap_out copy selected blocks between host and device
(look-alikes); a host snapshot of every layer in fp16 per step is a whole conversion."""
import torch


class SnapshotCacheEngine:
    def __init__(self, gpu_cache, cpu_cache, snapshot_dtype=torch.float16):
        self.gpu_cache = gpu_cache
        self.cpu_cache = cpu_cache
        self.snapshot_dtype = snapshot_dtype

    def swap_out(self, src_to_dst):
        for (g_k, g_v), (c_k, c_v) in zip(self.gpu_cache, self.cpu_cache):
            for src, dst in src_to_dst.items():
                c_k[dst].copy_(g_k[src].to(c_k.dtype))  # negative: one block
                c_v[dst].copy_(g_v[src])

    def snapshot(self):
        return [k.to("cpu", self.snapshot_dtype) for k, _ in self.gpu_cache]  # positive: f6 CL001 every layer's whole key cache


class SnapshotAgent:
    async def _async_model_forward(self, inputs, swap_in_map, swap_out_map):
        self.cache_engine.swap_out(swap_out_map)
        out = await self.model.forward_async(inputs, self.cache_engine.gpu_cache)
        self.snapshots.append(self.cache_engine.snapshot())
        return out
