import torch
import torch.nn.functional as F


def fill_kv_cache(key, value, k_cache, v_cache, q_start_loc, q_seq_length, kv_seq_length, max_q_seq_length, block_offsets):
    pass


class DefaultAttentionImpl:
    def __init__(self, num_heads, head_size, scale):
        self.num_heads = num_heads
        self.head_size = head_size
        self.scale = scale

    def _dense_paged(self, query, k_cache, v_cache, block_offsets):
        kc = k_cache.to(query.dtype)  # positive: f4 CL001 helper called only with the whole layer caches
        vc = v_cache.to(query.dtype)  # positive: f4 CL001 helper called only with the whole layer caches
        k = kc[block_offsets].flatten(1, 2)
        v = vc[block_offsets].flatten(1, 2)
        return F.scaled_dot_product_attention(query, k, v, scale=self.scale)

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None, inplace=True):
        key = key.to(k_cache.dtype)  # negative: the step's keys cast to the cache dtype before the write
        fill_kv_cache(key, value, k_cache, v_cache, attn_metadata.q_start_loc, attn_metadata.q_seqlens, attn_metadata.kv_seqlens, attn_metadata.max_q_seqlen, attn_metadata.block_offsets)
        return self._dense_paged(query, k_cache, v_cache, attn_metadata.block_offsets)
