import torch


class _CacheOwnerImpl:
    def __init__(self, cache_engine, num_heads):
        self.__engine = cache_engine
        self.num_heads = num_heads

    def _layer_cache(self, idx):
        return self.__engine.gpu_cache[idx]


class Fp16FallbackImpl(_CacheOwnerImpl):
    def forward(self, query, key, value, attn_metadata, layer_idx):
        k_cache, v_cache = self._layer_cache(layer_idx)
        k16 = k_cache.half()  # positive: f2 CL001 gpu_cache layer behind a name-mangled base attribute
        eng = self._CacheOwnerImpl__engine
        v16 = eng.gpu_cache[layer_idx][1].half()  # positive: f2 CL001 the mangled name spelled out in the subclass
        q16 = query.half()  # negative: batch query
        offs = attn_metadata.block_offsets.long()  # negative: block offsets
        return q16, k16, v16, offs
