import torch


def _dense_layer(kv_cache_manager, layer_idx, dtype):
    with torch.inference_mode():
        return kv_cache_manager.get_buffers(layer_idx).to(dtype)  # positive: f4 CL001 helper called per step with a whole layer


def _dense_blocks(kv_cache_manager, layer_idx, block_ids, dtype):
    with torch.no_grad():
        return kv_cache_manager.get_buffers(layer_idx)[block_ids].to(dtype)  # negative: chosen blocks


class VanillaAttentionFallback:
    def __init__(self, layer_idx):
        self.layer_idx = layer_idx

    def forward(self, q, k, v, attn_metadata):
        mgr = attn_metadata.kv_cache_manager
        if attn_metadata.is_generation:
            return q, _dense_layer(mgr, self.layer_idx, q.dtype)
        ids = attn_metadata.kv_cache_block_offsets[0, 0]
        return q, _dense_blocks(mgr, self.layer_idx, ids, q.dtype)
