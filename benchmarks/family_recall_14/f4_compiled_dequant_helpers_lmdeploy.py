"""torch.compile'd module-level dequant helpers: one always gets whole caches, one gathered rows."""
import torch


@torch.compile(dynamic=True)
def dequant_cache(cache, scales_zeros, out_dtype):
    scale, zero = scales_zeros.unbind(-1)
    return ((cache.to(torch.float32) - zero.unsqueeze(-1)) * scale.unsqueeze(-1)).to(out_dtype)  # positive: f4 CL001 every caller passes a whole k/v cache (one finding)


@torch.compile(dynamic=True)
def dequant_rows(rows, scales_zeros, out_dtype):
    scale, zero = scales_zeros.unbind(-1)
    return ((rows.to(torch.float32) - zero.unsqueeze(-1)) * scale.unsqueeze(-1)).to(out_dtype)  # negative: callers pass gathered rows


class Int8EagerAttentionImpl:
    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        if attn_metadata.is_decoding:
            k = dequant_cache(k_cache, k_scales_zeros, query.dtype)
            v = dequant_cache(v_cache, v_scales_zeros, query.dtype)
            return self._decode(query, k, v, attn_metadata)
        offs = attn_metadata.block_offsets
        k = dequant_rows(k_cache[offs], k_scales_zeros[offs], query.dtype)
        v = dequant_rows(v_cache[offs], v_scales_zeros[offs], query.dtype)
        return self._prefill(query, key, value, k, v, attn_metadata)
