"""A TRT-LLM VanillaAttention-style path: per-request cache slices, and an FP8 whole-layer fallback."""
import torch


class VanillaAttentionLike:
    def __init__(self, layer_idx):
        self.layer_idx = layer_idx

    def _single_request(self, q, k, v, kv_cache, cache_idx, past, kv_len):
        kv_cache[cache_idx, 0, :, past:past + k.shape[1]] = k  # negative: writer, no conversion
        key_states = kv_cache[cache_idx, 0][..., :kv_len, :].to(q.dtype)  # negative: one request's rows
        return key_states

    def forward(self, q, k, v, metadata, attention_mask=None):
        kv_cache = metadata.kv_cache_manager.get_buffers(self.layer_idx)
        if kv_cache.dtype == torch.float8_e4m3fn:
            kv_cache = kv_cache.to(q.dtype)  # positive: f6 CL001 FP8 fallback upcasts the whole layer
        outs = []
        for i, (past, kv_len) in enumerate(zip(metadata.past_seen, metadata.kv_lens)):
            outs.append(self._single_request(q, k, v, kv_cache, metadata.cache_indices[i], past, kv_len))
        return outs
