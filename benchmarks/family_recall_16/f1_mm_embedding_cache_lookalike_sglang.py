import torch


class MultimodalEmbeddingCache:
    def __init__(self, capacity, hidden, dtype):
        self.buffer = torch.empty(capacity, hidden, dtype=dtype)

    def get_all(self):
        return self.buffer


class VisionAwareBackend:
    def __init__(self, model_runner, mm_cache):
        self.mm_cache = mm_cache
        self.runner = model_runner

    def forward_extend(self, q, k, v, layer, forward_batch):
        mm = self.mm_cache.get_all().to(q.dtype)  # negative: multimodal embedding cache, not a KV pool
        pool = forward_batch.token_to_kv_pool
        key = pool.get_key_buffer(layer.layer_id)
        val = pool.get_value_buffer(layer.layer_id)
        k16, v16 = key.to(q.dtype), val.to(q.dtype)  # positive: f1 CL001 two whole-layer casts on one line, one finding
        prefix = key[: forward_batch.extend_prefix_lens.sum()].to(q.dtype)  # negative: batch prefix
        return mm, k16, v16, prefix
