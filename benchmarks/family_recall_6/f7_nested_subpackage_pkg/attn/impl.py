import torch

from ..mem import BlockArena


class ArenaImpl:
    def __init__(self, layer_names, num_blocks, block_size, heads, head_size):
        self.arena = BlockArena(layer_names, num_blocks, block_size, heads, head_size)

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        lane = self.arena.layer_view(layer.layer_name)
        k_all = lane[0].to(query.dtype)  # positive: f7 CL001 every block's K of the arena's layer view
        dense = self.arena.layer_view_bf16(layer.layer_name)
        part = self.arena.blocks(layer.layer_name, attn_metadata.block_table[0]).to(query.dtype)  # negative: the request's blocks
        raw = lane.view(torch.uint8)  # negative: reinterpret
        return k_all, dense, part
