# lmdeploy CUDA graph runner for an int8 cache on a kernel that wants fp16: a mixin caches the widened
# layers in a functools.cached_property that the base runner drops before every replay.
import functools

import torch


class _DenseLayersMixin:
    compute_dtype = torch.float16

    @functools.cached_property
    def dense_layers(self):
        return [(k.to(self.compute_dtype), v.to(self.compute_dtype)) for k, v in self.cache_engine.gpu_cache]  # positive: f2 CL001 every layer's whole key and value caches (one comprehension), recomputed each replay

    def recent_layers(self, block_offsets):
        d = self.compute_dtype
        return [(k[block_offsets].to(d), v[block_offsets].to(d)) for k, v in self.cache_engine.gpu_cache]  # negative: block gathers


class CUDAGraphRunnerBase:
    def __init__(self, model, cache_engine):
        self.model = model
        self.cache_engine = cache_engine

    def __call__(self, input_ids, position_ids, attn_metadata):
        self.__dict__.pop("dense_layers", None)
        return self.graph_replay(input_ids, position_ids, self.past_kv(attn_metadata))


class DenseCacheGraphRunner(_DenseLayersMixin, CUDAGraphRunnerBase):
    def past_kv(self, attn_metadata):
        if attn_metadata.is_decoding:
            return self.dense_layers
        return self.recent_layers(attn_metadata.block_offsets)
