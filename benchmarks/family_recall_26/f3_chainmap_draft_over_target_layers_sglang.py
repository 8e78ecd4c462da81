from collections import ChainMap

import torch


class MultiLayerDraftRunner:
    """Draft model whose upper layers are its own and whose lower layers alias target layers."""

    def __init__(self, draft_pool, target_pool, shared_ids, own_ids):
        self.own = {i: draft_pool.get_key_buffer(i) for i in own_ids}
        self.shared = {i: target_pool.get_key_buffer(i) for i in shared_ids}
        self.layers = ChainMap(self.own, self.shared)
        self.compute_dtype = torch.bfloat16

    def forward_draft_extend(self, forward_batch, spec_info):
        keys = {}
        for layer_id, buf in sorted(self.layers.items()):
            if buf.dtype != self.compute_dtype:
                keys[layer_id] = buf.to(self.compute_dtype)  # positive: f3 CL001 whole layers from a ChainMap of own and target layers, per draft step
            else:
                keys[layer_id] = buf
        accepted = spec_info.accept_index
        first = self.layers.maps[1]
        tails = {i: b[accepted].to(self.compute_dtype) for i, b in first.items()}  # negative: accepted rows gathered before the cast
        return keys, tails
