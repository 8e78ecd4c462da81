"""Per-layer pre-attention hooks kept in a list; registered hooks convert the kv_cache argument."""
import torch


class HookedAttentionImpl:
    def __init__(self, compute_dtype=torch.bfloat16):
        self.compute_dtype = compute_dtype
        self._kv_hooks = []
        self._q_hooks = []

    def register_kv_hook(self, fn):
        self._kv_hooks.append(fn)
        return fn

    def register_q_hook(self, fn):
        self._q_hooks.append(fn)
        return fn

    def _dequant_hook(self, kv_cache):
        return kv_cache.to(self.compute_dtype)  # positive: f4 CL001 registered as a kv hook only; gets forward's whole kv_cache

    def _q_cast_hook(self, query):
        return query.to(self.compute_dtype)  # negative: the batch query

    def install(self):
        self.register_kv_hook(self._dequant_hook)
        self.register_q_hook(self._q_cast_hook)

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        for hook in self._kv_hooks:
            kv_cache = hook(kv_cache)
        for hook in self._q_hooks:
            query = hook(query)
        tables = attn_metadata.block_table.to(torch.int32)  # negative: block table
        return query, kv_cache, tables


class LambdaHookImpl(HookedAttentionImpl):
    def install(self):
        self.register_kv_hook(lambda c: c.float())  # positive: f4 CL001 the lambda is a kv hook applied to forward's whole kv_cache
