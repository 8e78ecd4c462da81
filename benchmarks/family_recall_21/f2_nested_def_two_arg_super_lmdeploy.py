import torch


class PagedAttentionImpl:
    def __init__(self, num_heads, head_size, kv_cache_dtype=torch.float8_e4m3fn):
        self.num_heads = num_heads
        self.head_size = head_size
        self.kv_cache_dtype = kv_cache_dtype

    def read_caches(self, k_cache, v_cache):
        return k_cache, v_cache


class RocmPagedAttentionImpl(PagedAttentionImpl):
    """MI250 (gfx90a): no FP8 paged decode; widen through a nested reader."""

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata):
        def reader(kc, vc):
            base_k, base_v = super(RocmPagedAttentionImpl, self).read_caches(kc, vc)
            return base_k.to(query.dtype), base_v.to(query.dtype)  # positive: f2 CL001 both whole caches (one finding per line)

        k_dense, v_dense = reader(k_cache, v_cache)
        new_k = key.to(query.dtype)  # negative: new-token key tensor
        blocks = attn_metadata.block_offsets
        k_used = k_cache[blocks].to(query.dtype)  # negative: block offsets gathered first
        return k_dense, v_dense, new_k, k_used
