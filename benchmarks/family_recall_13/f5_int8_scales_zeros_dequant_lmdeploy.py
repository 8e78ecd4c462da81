import torch


class TritonAttentionImplRef:
    """Reference path for quant_policy=8 used when the kernel check fails."""

    def __init__(self, num_heads, head_size, scale, quant_policy=8):
        self.num_heads = num_heads
        self.head_size = head_size
        self.scale = scale
        self.quant_policy = quant_policy

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None, inplace=True):
        k_s, k_z = k_scales_zeros.unbind(-1)
        v_s, v_z = v_scales_zeros.unbind(-1)
        k_deq = (k_cache.float() - k_z.unsqueeze(-1)) * k_s.unsqueeze(-1)  # positive: f5 CL001 float() of the whole int8 key cache inside the dequant expression
        v_deq = torch.sub(v_cache.to(torch.float32), v_z.unsqueeze(-1)) * v_s.unsqueeze(-1)  # positive: f5 CL001 whole int8 value cache widened inside torch.sub
        zs = k_scales_zeros.float()  # negative: scales and zeros
        rows = k_cache[attn_metadata.block_offsets[0]].float()  # negative: one sequence's blocks gathered
        return self._ref(query, k_deq, v_deq, zs, rows)

    def _ref(self, *a):
        return a[0]
