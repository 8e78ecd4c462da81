import torch


def fused_paged_attention(query, k_cache, v_cache, block_offsets):
    raise NotImplementedError


class FallbackAttentionImpl:
    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        try:
            return fused_paged_attention(query, k_cache, v_cache, attn_metadata.block_offsets)
        except NotImplementedError:
            kd = k_cache.to(query.dtype)  # positive: f4 CL001 fallback path converts the whole k_cache
            vd = v_cache.to(query.dtype)  # positive: f4 CL001 fallback path converts the whole v_cache
            return kd, vd
        except RuntimeError:
            blocks = attn_metadata.block_offsets
            return k_cache[blocks].to(query.dtype)  # negative: gathered blocks
        finally:
            _ = attn_metadata.q_seqlens.to(torch.int32)  # negative: lengths
