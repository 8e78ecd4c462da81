"""lmdeploy model agent: an object with __iter__ yields one layer's key and value caches for unpacking."""
import torch


class _LayerPair:
    def __init__(self, cache_engine, idx):
        self._engine = cache_engine
        self._idx = idx

    def __iter__(self):
        k_cache, v_cache = self._engine.gpu_cache[self._idx]
        yield k_cache
        yield v_cache


class LongContextAgent:
    def __init__(self, model, cache_engine, dtype):
        self.model = model
        self.cache_engine = cache_engine
        self.dtype = dtype

    async def _async_model_forward(self, inputs, block_offsets, num_layers):
        dense = []
        for i in range(num_layers):
            k, v = _LayerPair(self.cache_engine, i)
            k_full = k.to(self.dtype)  # positive: f1 CL001 whole key cache unpacked from the pair object
            v_used = v[block_offsets].to(self.dtype)  # negative: blocks gathered first
            dense.append((k_full, v_used))
        hidden = inputs.input_embeddings.to(self.dtype)  # negative: embeddings
        return self.model(inputs.input_ids, hidden, dense)
