import torch


class AscendFallbackAttentionImpl:
    def __init__(self, num_heads, head_size, scale):
        self.num_heads = num_heads
        self.head_size = head_size
        self.scale = scale

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None, inplace=True):
        # lmdeploy layout: [num_blocks, block_size, num_heads, head_dim]
        kt = k_cache.swapaxes(1, 2).contiguous().to(query.dtype)  # positive: f5 CL001 swapaxes + contiguous keep every block
        vt = v_cache.transpose(1, 2).reshape(v_cache.shape[0], -1, v_cache.shape[-1]).half()  # positive: f5 CL001 transpose + reshape keep every block
        kz = k_scales_zeros.swapaxes(1, 2).float() if k_scales_zeros is not None else None  # negative: scales/zeros, small
        blocks = attn_metadata.block_offsets.long()  # negative: block table
        qs = query.transpose(0, 1).contiguous().half()  # negative: the step's queries
        return self._npu(qs, kt, vt, kz, blocks)

    def _npu(self, *a):
        return a[0]
