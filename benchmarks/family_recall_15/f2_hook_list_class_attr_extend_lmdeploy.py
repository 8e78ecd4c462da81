import torch


def _identity(k_cache, v_cache, ctx):
    return k_cache, v_cache


def _upcast(k_cache, v_cache, ctx):
    return k_cache.to(ctx.dtype), v_cache.to(ctx.dtype)  # positive: f2 CL001 registered in the subclass's hook list, called by forward on whole caches


def _rows(k_cache, v_cache, ctx):
    return k_cache[ctx.block_offsets].to(ctx.dtype), v_cache[ctx.block_offsets].to(ctx.dtype)  # negative: block rows


class TritonAttentionImpl:
    pre_attn_hooks = [_identity]

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata):
        for hook in self.pre_attn_hooks:
            k_cache, v_cache = hook(k_cache, v_cache, attn_metadata)
        return self._paged(query, k_cache, v_cache, attn_metadata)

    def _paged(self, q, k, v, meta):
        return q


class NoFp8TritonImpl(TritonAttentionImpl):
    pre_attn_hooks = TritonAttentionImpl.pre_attn_hooks + [_upcast]


class SlidingRowsImpl(TritonAttentionImpl):
    pre_attn_hooks = [_rows]
