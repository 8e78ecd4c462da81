import torch


class UnbindImpl:
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        k_plane, v_plane = kv_cache.unbind(0)
        k_plane = k_plane.to(query.dtype)  # positive: f5 CL001 unbind keeps every slot of the key plane
        halves = kv_cache.chunk(2, dim=0)
        v_full = halves[1].to(query.dtype)  # positive: f5 CL001 chunk keeps every slot
        k_col = kv_cache[:, :, 0].half()  # positive: f5 CL001 slicing a head keeps every block
        used = kv_cache[:, attn_metadata.block_table[0]].to(query.dtype)  # negative: indexed by a block table
        return k_plane, v_full, k_col, used
