import torch


class RocmPagedAttentionImpl:
    """gfx90a decode kernel wants one packed [blocks, block_size, heads, 2*dim] fp16 cache."""

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        if attn_metadata.is_decoding:
            packed = torch.cat((k_cache, v_cache), dim=-1)
            packed = packed.to(torch.float16)  # positive: f5 CL001 K and V planes packed on the last dim keep every slot, then widened
            return self._decode(query, packed, attn_metadata)
        blocks = attn_metadata.block_offsets[:, :1].flatten()
        first = torch.cat((k_cache[blocks], v_cache[blocks]), dim=-1).to(torch.float16)  # negative: blocks gathered before cat and cast
        zeros = torch.cat((k_scales_zeros, v_scales_zeros), dim=-1).half() if k_scales_zeros is not None else None  # negative: scales/zeros
        return first, zeros

    def _decode(self, query, packed, attn_metadata):
        return query.half(), packed  # negative: query
