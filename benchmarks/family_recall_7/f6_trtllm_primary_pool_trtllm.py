"""f6: TRT-LLM KV manager getters: get_unique_primary_pool (all layers) and get_buffers, against id getters."""
import torch


class TrtllmAttentionLite:
    def __init__(self, layer_idx, num_heads, head_dim, num_kv_heads):
        self.layer_idx = layer_idx
        self.num_heads = num_heads
        self.head_dim = head_dim
        self.num_kv_heads = num_kv_heads

    def forward(self, q, k, v, metadata, attention_mask=None):
        mgr = metadata.kv_cache_manager
        primary = mgr.get_unique_primary_pool()
        everything = primary.to(torch.bfloat16)  # positive: f6 CL001 the whole primary pool, all layers
        layer = mgr.get_buffers(self.layer_idx)
        k_plane = layer[:, 0].float()  # positive: f6 CL001 K of every block of this layer
        ids = mgr.get_block_ids_per_seq(metadata.request_ids).to(torch.int64)  # negative: block ids
        idx = mgr.get_batch_cache_indices(metadata.request_ids)
        offsets = torch.tensor(idx, dtype=torch.int32)  # negative: cache indices from Python lists
        return everything, k_plane, ids, offsets


class MLATrtllmAttentionLite(TrtllmAttentionLite):
    def forward(self, q, k, v, metadata, attention_mask=None):
        mgr = metadata.kv_cache_manager
        lat = mgr.get_buffers(self.layer_idx).squeeze(1)[..., :512].to(q.dtype)  # positive: f6 CL001 latent of every token
        used = mgr.get_buffers(self.layer_idx)[metadata.kv_cache_block_offsets[0]].to(q.dtype)  # negative: first request's blocks
        return lat, used
