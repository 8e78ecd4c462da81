"""Slices to the full extent spelled with len()/size()/shape, against windows of blocks in use."""
import torch


class ExtentAttention(torch.nn.Module):
    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        a = k_cache[: len(k_cache)].to(query.dtype)  # positive: f5 CL001 [:len(x)] is the whole key cache
        b = v_cache[: v_cache.size(0)].to(query.dtype)  # positive: f5 CL001 [:size(0)] is the whole value cache
        c = k_cache[0 : k_cache.shape[0], :, :].float()  # positive: f5 CL001 explicit full extent
        d = v_cache[..., : v_cache.shape[-1]].half()  # positive: f5 CL001 the full head-dim extent of every block
        n_used = attn_metadata.num_blocks_used
        e = k_cache[:n_used].to(query.dtype)  # negative: the blocks in use
        f = v_cache[: attn_metadata.max_kv_seqlen // k_cache.size(1)].to(query.dtype)  # negative: a window
        g = k_scales_zeros[: len(k_scales_zeros)].to(query.dtype)  # negative: scales/zeros
        h = k_cache[: attn_metadata.block_offsets.size(1)].half()  # negative: as many blocks as the widest sequence, a window
        return a, b, c, d, e, f, g
