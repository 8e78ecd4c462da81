import torch

from . import batch_blocks, layer_keys, layer_values
from .cache_views import _flat


class StarImportAttention(torch.nn.Module):
    def __init__(self, layer_idx):
        super().__init__()
        self.layer_idx = layer_idx

    def forward(self, query, past_key_values, attn_metadata):
        k = layer_keys(past_key_values, self.layer_idx)
        kf = _flat(k).to(query.dtype)  # positive: f7 CL001 the layer's whole key cache, flattened by a private helper
        vf = layer_values(past_key_values, self.layer_idx).half()  # positive: f7 CL001 the layer's whole value cache
        kb = batch_blocks(k, attn_metadata.block_offsets).to(query.dtype)  # negative: gathered blocks
        q_len = attn_metadata.q_seqlens.to(torch.int32)  # negative: lengths
        return kf, vf, kb, q_len


class ModelForwardLite(torch.nn.Module):
    def __init__(self, layers):
        super().__init__()
        self.layers = torch.nn.ModuleList(layers)

    def forward(self, input_ids, past_key_values, attn_metadata, cache_engine=None):
        if cache_engine is not None:
            past_key_values = cache_engine.gpu_cache
        return [layer(input_ids, past_key_values, attn_metadata) for layer in self.layers]
