import torch


class PagedKVViews:
    """Thin wrapper exposing the key/value planes of one layer's [2, blocks, ...] cache."""

    def __init__(self, kv_cache: torch.Tensor):
        self._cache = kv_cache

    @property
    def key(self) -> torch.Tensor:
        return self._cache[0]

    @property
    def value(self) -> torch.Tensor:
        return self._cache[1]


class TorchSDPAFallbackImpl:
    def __init__(self, num_heads, head_size, scale):
        self.num_heads = num_heads
        self.scale = scale

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        views = PagedKVViews(kv_cache)
        k_all = views.key.to(query.dtype)  # positive: f1 CL001 whole key plane through a views property
        v_all = views.value.to(dtype=query.dtype)  # positive: f1 CL001 whole value plane
        k_rows = views.key[attn_metadata.block_table[:, 0]].to(query.dtype)  # negative: block rows
        v_same = views.value.to(dtype=views.value.dtype)  # negative: same dtype
        return k_all, v_all, k_rows, v_same
