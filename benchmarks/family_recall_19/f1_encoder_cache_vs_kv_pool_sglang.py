import torch


class MultimodalEmbeddingCache:
    def __init__(self):
        self._entries = {}

    def get(self, mm_hash):
        return self._entries.get(mm_hash)


class Qwen2VLAttentionRunner:
    def __init__(self, model_runner):
        self.model_runner = model_runner
        self.mm_cache = MultimodalEmbeddingCache()

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        for mm_hash in forward_batch.mm_hashes:
            emb = self.mm_cache.get(mm_hash)
            if emb is not None:
                emb = emb.to(q.dtype)  # negative: encoder embedding cache entry, not the KV pool
        pool = self.model_runner.token_to_kv_pool
        k_buf = pool.get_key_buffer(layer.layer_id).to(q.dtype)  # positive: f1 CL001 whole key pool via model_runner
        v_buf = pool.get_value_buffer(layer.layer_id).to(q.dtype)  # positive: f1 CL001 whole value pool
        prefix_k = pool.get_key_buffer(layer.layer_id)[forward_batch.prefix_loc].to(q.dtype)  # negative: prefix rows
        return k_buf, v_buf, prefix_k
