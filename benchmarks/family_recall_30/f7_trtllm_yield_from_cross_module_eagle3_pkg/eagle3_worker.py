"""EAGLE3 one-model worker reading the target layers through kv_io's generators."""
import torch

from . import kv_io


def iter_target_layers(mgr, layer_ids, dtype=torch.bfloat16):
    yield from kv_io.dense_each(mgr, layer_ids, dtype)


class Eagle3TargetReader:
    def __init__(self, target_mgr, capture_layer_ids, kv_scales):
        self.mgr = target_mgr
        self.layer_ids = capture_layer_ids
        self.kv_scales = kv_scales

    def forward(self, input_ids, position_ids, hidden_states, attn_metadata, spec_metadata):
        dense = dict(zip(self.layer_ids, iter_target_layers(self.mgr, self.layer_ids)))
        ids = attn_metadata.kv_cache_block_offsets[0, :, 0]
        recent = list(kv_io.blocks_each(self.mgr, self.layer_ids, ids, torch.bfloat16))
        scales = list(kv_io.scale_each(self.kv_scales, torch.float32))
        return dense, recent, scales
