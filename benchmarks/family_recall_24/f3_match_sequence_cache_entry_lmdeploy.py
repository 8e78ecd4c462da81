# lmdeploy: past_key_values entries are (k, v) or (k, v, k_scales_zeros, v_scales_zeros);
# the MLU fallback impl destructures them with a match statement.
import torch


def unpack_layer(entry, compute_dtype, block_offsets):
    match entry:
        case [k_cache, v_cache]:
            return k_cache.to(compute_dtype), v_cache.to(compute_dtype)  # positive: f3 CL001 both whole caches
        case [k_cache, v_cache, k_sz, v_sz]:
            k = k_cache[block_offsets].to(compute_dtype) * k_sz[block_offsets, ..., :1]  # negative: blocks first
            return k, v_cache[block_offsets].to(compute_dtype)  # negative: blocks first
        case _:
            raise ValueError(f"unexpected cache entry of length {len(entry)}")


class CambAttentionImpl:
    def forward(self, query, key, value, past_key_value, attn_metadata):
        k, v = unpack_layer(past_key_value, query.dtype, attn_metadata.block_offsets)
        return self._sdpa(query, k, v, attn_metadata)
