import torch


class PagedAttentionImpl:
    def _dense(self, k_cache, v_cache, dtype):
        return k_cache, v_cache

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata):
        k, v = self._dense(k_cache, v_cache, query.dtype)
        return k, v


class _UpcastMixin:
    def _dense(self, k_cache, v_cache, dtype):
        return k_cache.to(dtype), v_cache.to(dtype)  # positive: f2 CL001 mixin widens both whole caches (one line)


class _RowsMixin:
    def _dense(self, k_cache, v_cache, dtype):
        ids = self.block_ids
        return k_cache[ids].to(dtype), v_cache[ids].to(dtype)  # negative: block rows


def build_impl(has_fp8_kernel: bool):
    bases = (PagedAttentionImpl,) if has_fp8_kernel else (_UpcastMixin, PagedAttentionImpl)
    return type("MacaPagedAttentionImpl", bases, {})()
