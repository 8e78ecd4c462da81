import torch


class LayerwiseFp8Attention:
    def __init__(self, fp8_layers, kv_cache_manager):
        self.fp8_layers = frozenset(fp8_layers)
        self.mgr = kv_cache_manager

    def forward(self, q, k, v, attn_metadata, layer_idx):
        buf = self.mgr.get_buffers(layer_idx)
        if layer_idx in self.fp8_layers:
            dense = buf.to(q.dtype)  # positive: f3 CL001 FP8 layers chosen by set membership
        else:
            dense = buf
        scale = attn_metadata.kv_scales[layer_idx].to(q.dtype)  # negative: per-layer scale
        return q, dense, scale

    def refresh(self, layer_idx, block_ids):
        if layer_idx not in self.fp8_layers:
            return None
        return self.mgr.get_buffers(layer_idx)[block_ids].to(torch.bfloat16)  # negative: chosen blocks
