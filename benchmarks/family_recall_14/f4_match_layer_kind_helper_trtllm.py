"""A helper that matches on the layer kind of a hybrid model before reading the manager."""
import enum

import torch


class LayerKind(enum.Enum):
    MLA = "mla"
    MHA = "mha"
    MAMBA = "mamba"


class HybridAttentionFallback:
    def __init__(self, layer_idx, kinds, conv_states):
        self.layer_idx = layer_idx
        self.kinds = kinds
        self.conv_states = conv_states

    def _layer_kv(self, kind, layer_idx, metadata, dtype):
        mgr = metadata.kv_cache_manager
        match kind:
            case LayerKind.MLA:
                return mgr.get_buffers(layer_idx).to(dtype)  # positive: f4 CL001 whole latent layer for MLA layers
            case LayerKind.MHA:
                block_ids = metadata.kv_cache_block_offsets[0, : metadata.num_seqs].flatten()
                return mgr.get_buffers(layer_idx)[block_ids].to(dtype)  # negative: gathered blocks
            case _:
                return self.conv_states[layer_idx].to(dtype)  # negative: a small mamba state, not the pool

    def forward(self, q, k, v, metadata, **kwargs):
        kv = self._layer_kv(self.kinds[self.layer_idx], self.layer_idx, metadata, q.dtype)
        return self._attend(q, kv, metadata)
