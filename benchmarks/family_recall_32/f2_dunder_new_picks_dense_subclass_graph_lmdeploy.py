"""lmdeploy CUDA graph runner: __new__ returns a dense subclass when the cache is int8."""
import torch


class GraphRunner:
    def __new__(cls, cache_engine, *args, **kwargs):
        if cls is GraphRunner and cache_engine.cache_config.quant_policy == 8:
            cls = _DenseInt8GraphRunner
        return super().__new__(cls)

    def __init__(self, cache_engine, compute_dtype=torch.float16):
        self.cache_engine = cache_engine
        self.compute_dtype = compute_dtype

    def _refresh(self, layer_idx, block_offsets):
        k, v = self.cache_engine.gpu_cache[layer_idx]
        return k[block_offsets[:, -1]], v[block_offsets[:, -1]]  # negative: last-block views, no conversion

    def __call__(self, graph, num_layers, block_offsets):
        caches = [self._refresh(i, block_offsets) for i in range(num_layers)]
        graph.replay()
        return caches


class _DenseInt8GraphRunner(GraphRunner):
    def _refresh(self, layer_idx, block_offsets):
        k, v = self.cache_engine.gpu_cache[layer_idx]
        return k.to(self.compute_dtype), v.to(self.compute_dtype)  # positive: f2 CL001 both whole int8 layers every replay (one line)

    def capture(self, num_layers):
        return [torch.empty_like(self.cache_engine.gpu_cache[i][0], dtype=self.compute_dtype) for i in range(num_layers)]  # negative: allocation at capture
