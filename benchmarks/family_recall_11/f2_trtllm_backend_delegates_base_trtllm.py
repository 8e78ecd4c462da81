import torch


class AttentionBackendBase:
    def __init__(self, layer_idx, kv_lora_rank=512):
        self.layer_idx = layer_idx
        self.kv_lora_rank = kv_lora_rank

    def _layer_cache(self, metadata):
        return metadata.kv_cache_manager.get_buffers(self.layer_idx)

    def forward(self, q, k, v, metadata, **kwargs):
        cache = self._layer_cache(metadata)
        q8 = q.to(cache.dtype)  # negative: the step's q cast to the cache dtype
        return q8, cache


class FallbackMLABackend(AttentionBackendBase):
    def forward(self, q, k, v, metadata, **kwargs):
        if metadata.num_generations == 0:
            return super().forward(q, k, v, metadata, **kwargs)
        return self._generation(q, metadata)

    def _generation(self, q, metadata):
        cache = self._layer_cache(metadata)
        latent = cache.squeeze(1)[..., : self.kv_lora_rank].to(q.dtype)  # positive: f2 CL001 latent part of the whole layer buffer from the base helper
        rope = cache.squeeze(1)[..., self.kv_lora_rank :]
        rope = rope.to(q.dtype)  # positive: f2 CL001 rope part of every slot
        idx = metadata.kv_cache_manager.get_batch_cache_indices(metadata.request_ids)
        return latent, rope, idx
