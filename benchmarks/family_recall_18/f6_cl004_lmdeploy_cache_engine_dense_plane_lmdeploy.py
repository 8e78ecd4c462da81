"""lmdeploy-style cache engine storing FP8 KV as uint8 with a dense-plane accessor for kernels without FP8."""
import torch


class CacheEngine:
    def __init__(self, num_layers, num_blocks, block_size, heads, dim, model_dtype=torch.bfloat16):
        shape = (num_blocks, block_size, heads, dim)
        self.model_dtype = model_dtype
        self.local_gpu_cache = [(torch.empty(shape, dtype=torch.uint8), torch.empty(shape, dtype=torch.uint8)) for _ in range(num_layers)]
        self.local_cpu_cache = [(torch.empty(shape, dtype=torch.uint8), torch.empty(shape, dtype=torch.uint8)) for _ in range(num_layers)]

    @property
    def gpu_cache(self):
        return self.local_gpu_cache

    def dense_plane(self, layer_idx, which):
        return self.local_gpu_cache[layer_idx][which].view(torch.float8_e4m3fn).to(self.model_dtype)  # positive: f6 CL004 accessor dequantizes a whole plane per call

    def dense_blocks(self, layer_idx, which, blocks):
        return self.local_gpu_cache[layer_idx][which][blocks].view(torch.float8_e4m3fn).to(self.model_dtype)  # negative: the requested blocks

    def swap_out(self, src_to_dst: dict):
        src, dst = list(src_to_dst), list(src_to_dst.values())
        for (gk, gv), (ck, cv) in zip(self.local_gpu_cache, self.local_cpu_cache):
            ck[dst] = gk[src].cpu()  # negative: block copy, same dtype


class NoFp8KernelAttention:
    def __init__(self, layer_idx, cache_engine: CacheEngine):
        self.layer_idx = layer_idx
        self.cache_engine = cache_engine

    def forward(self, query, attn_metadata):
        k = self.cache_engine.dense_plane(self.layer_idx, 0)  # note: per-step caller of the CL004 accessor
        v = self.cache_engine.dense_plane(self.layer_idx, 1)  # note: per-step caller of the CL004 accessor
        pre = self.cache_engine.dense_blocks(self.layer_idx, 0, attn_metadata.block_offsets.flatten())
        return query, k, v, pre
