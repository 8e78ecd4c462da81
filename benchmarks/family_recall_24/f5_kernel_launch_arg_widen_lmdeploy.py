# lmdeploy Triton fallback kernel launcher: the caches are widened in the launcher and the
# strides come from the widened tensors.
import torch
import triton


def paged_decode_fp16(q, k_cache, v_cache, block_offsets, kv_seqlens, out, sm_scale):
    k16 = k_cache.to(torch.float16).contiguous()  # positive: f5 CL001 whole key cache, then contiguous
    v16 = v_cache.contiguous().to(torch.float16)  # positive: f5 CL001 whole value cache, contiguous first
    grid = (q.size(0), q.size(1))
    _paged_decode_kernel[grid](
        q, k16, v16, block_offsets, kv_seqlens, out, sm_scale,
        k16.stride(0), k16.stride(1), k16.stride(2), v16.stride(0), v16.stride(1), v16.stride(2),
        BLOCK=triton.next_power_of_2(k_cache.size(1)),
    )
    return out


def paged_decode_scales(k_scales_zeros, v_scales_zeros):
    return k_scales_zeros.to(torch.float16), v_scales_zeros.to(torch.float16)  # negative: scales/zeros


class TritonFallbackImpl:
    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        out = torch.empty_like(query)
        return paged_decode_fp16(query, k_cache, v_cache, attn_metadata.block_offsets, attn_metadata.kv_seqlens, out, self.scale)
