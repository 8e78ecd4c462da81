import torch


class EncoderOutputCache:
    """Multimodal encoder outputs kept per request (not the KV pool)."""

    def __init__(self):
        self.cached = {}

    def get(self, req_id):
        return self.cached[req_id]


class CrossAttentionImpl:
    def __init__(self, encoder_cache):
        self.encoder_cache = encoder_cache

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        enc = self.encoder_cache.get(attn_metadata.req_ids[0]).to(query.dtype)  # negative: encoder embeddings, not the pool
        cross_k, cross_v = kv_cache[0], kv_cache[1]
        if attn_metadata.is_cross:
            k_all = cross_k.to(query.dtype)  # positive: f1 CL001 whole cross-attention key cache
            v_rows = cross_v[attn_metadata.cross_slot_mapping].to(query.dtype)  # negative: encoder slots only
            return query @ k_all.flatten(0, 1).T, v_rows, enc
        return query, enc
