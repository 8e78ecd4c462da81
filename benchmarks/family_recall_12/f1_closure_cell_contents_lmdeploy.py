import torch


def make_reader(k_cache, v_cache):
    def read(block_offsets):
        return k_cache[block_offsets], v_cache[block_offsets]
    return read


class CellPeekAttentionImpl:
    def __init__(self, num_heads, head_size):
        self.num_heads = num_heads
        self.head_size = head_size

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata,
                k_scales_zeros=None, v_scales_zeros=None, inplace=True):
        reader = make_reader(k_cache, v_cache)
        cells = reader.__closure__
        kc = cells[0].cell_contents.to(query.dtype)  # positive: f1 CL001 k_cache taken back out of a closure cell
        kb, vb = reader(attn_metadata.block_offsets)
        vb = vb.to(query.dtype)  # negative: gathered blocks
        ks = k_scales_zeros.to(query.dtype)  # negative: scales/zeros
        return kc, kb, vb, ks
