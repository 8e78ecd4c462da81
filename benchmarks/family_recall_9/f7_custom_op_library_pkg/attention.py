import torch

from .ops import upcast_layer


class CustomOpAttention:
    def __init__(self, layer_idx):
        self.layer_idx = layer_idx

    def forward(self, q, k, v, metadata):
        mgr = metadata.kv_cache_manager
        dense = upcast_layer(mgr.get_buffers(self.layer_idx), 0)
        also = torch.ops.corpus9.upcast_layer(mgr.get_buffers(self.layer_idx + 1), 1)
        blk = torch.tensor(mgr.get_block_ids_per_seq(metadata.request_ids[0]), dtype=torch.int32)  # negative: block ids
        return dense, also, blk
