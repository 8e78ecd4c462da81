import torch


class Int4KVUnpacker:
    @staticmethod
    def unpack(packed: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
        lo = (packed & 0xF).to(dtype)  # positive: f4 CL001 low nibbles of the whole packed cache
        hi = (packed >> 4).to(dtype)  # positive: f4 CL001 high nibbles of the whole packed cache
        return torch.stack([lo, hi], dim=-1).flatten(-2)

    @staticmethod
    def unpack_blocks(packed, block_ids, dtype):
        rows = packed[block_ids]
        return torch.stack([(rows & 0xF).to(dtype), (rows >> 4).to(dtype)], -1)  # negative: gathered blocks


class W4KVPagedAttention(torch.nn.Module):
    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros, v_scales_zeros):
        k_dense = Int4KVUnpacker.unpack(k_cache, query.dtype)
        v_dense = Int4KVUnpacker.unpack_blocks(v_cache, attn_metadata.block_offsets[0], query.dtype)
        zeros = k_scales_zeros.to(query.dtype)  # negative: scales/zeros
        return k_dense, v_dense, zeros
