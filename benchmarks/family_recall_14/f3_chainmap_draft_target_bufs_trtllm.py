"""Draft and target layer buffers merged with collections.ChainMap (one-model spec decoding)."""
from collections import ChainMap

import torch


class OneModelDraftAttention:
    def __init__(self, target_mgr, draft_mgr, target_layers, draft_layers):
        self.target_bufs = {i: target_mgr.get_buffers(i) for i in target_layers}
        self.draft_bufs = {i: draft_mgr.get_buffers(i) for i in draft_layers}
        self.layers = ChainMap(self.draft_bufs, self.target_bufs)
        self.scratch = torch.empty(4096, 128, dtype=torch.float8_e4m3fn, device="cuda")

    def forward(self, q, k, v, metadata, layer_idx):
        buf = self.layers[layer_idx]
        dense = buf.to(q.dtype)  # positive: f3 CL001 whole layer buffer found in the ChainMap
        block_ids = metadata.kv_cache_block_offsets[0, : metadata.num_seqs].flatten()
        for idx, target in self.layers.maps[1].items():
            if idx == layer_idx:
                prefix = target[block_ids].to(q.dtype)  # negative: gathered blocks
        tmp = self.layers.new_child({layer_idx: self.scratch})[layer_idx].float()  # negative: the scratch tensor shadows the buffer
        return self._attend(q, dense, tmp, metadata)
