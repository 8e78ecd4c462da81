# lmdeploy CUDA graph runner: caches are a tagged tensor subclass (CacheTensor); before each replay the
# runner drops the subclass with as_subclass(torch.Tensor) and widens each layer into static inputs.
import torch


class CacheTensor(torch.Tensor):
    quant_policy: int = 0


class TaggedCacheGraphRunner:
    def __init__(self, model, cache_engine, dtype=torch.float16):
        self.model = model
        self.cache_engine = cache_engine
        self.dtype = dtype
        self.static = []

    def capture(self, input_ids, attn_metadata):
        for k_cache, v_cache in self.cache_engine.gpu_cache:
            self.static.append((torch.zeros_like(k_cache, dtype=self.dtype), torch.zeros_like(v_cache, dtype=self.dtype)))  # negative: allocation at capture

    def __call__(self, input_ids, attn_metadata):
        for (sk, sv), (k_cache, v_cache) in zip(self.static, self.cache_engine.gpu_cache):
            sk.copy_(k_cache.as_subclass(torch.Tensor).to(self.dtype))  # positive: f5 CL001 whole key cache of the layer, subclass dropped as a view
            sv.copy_(v_cache.as_subclass(torch.Tensor).to(self.dtype))  # positive: f5 CL001 whole value cache of the layer
        offsets = attn_metadata.block_offsets.as_subclass(torch.Tensor).to(torch.int32)  # negative: block table
        return self.graph.replay(input_ids, offsets)
