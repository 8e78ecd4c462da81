import torch
import torch.nn.functional as F


class SDPADecodeFallback:
    """lmdeploy fallback for devices whose paged kernel cannot read int8/FP8 caches.

    k_cache layout here: [num_blocks, num_heads, head_dim, block_size] (key transposed).
    """

    def __init__(self, compute_dtype=torch.float16):
        self.compute_dtype = compute_dtype

    def forward(self, query, k_cache, v_cache, attn_metadata):
        keys = k_cache.mT.to(self.compute_dtype)  # positive: f5 CL001 .mT swaps the last two dims; every block stays
        values = v_cache.to(self.compute_dtype)  # positive: f5 CL001 value cache, whole
        blocks = attn_metadata.block_offsets[0]
        k_seq = k_cache[blocks].mT.to(self.compute_dtype)  # negative: one request's blocks gathered first
        q = query.to(self.compute_dtype)  # negative: query
        return F.scaled_dot_product_attention(q, keys.flatten(0, 1), values.flatten(0, 1)), k_seq
