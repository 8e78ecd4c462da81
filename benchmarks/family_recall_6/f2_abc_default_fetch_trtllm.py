"""An ABC with an abstract compute step and a concrete default fetch that one subclass replaces."""
import abc

import torch


class MLAAttentionBase(abc.ABC):
    def __init__(self, layer_idx, kv_lora_rank):
        self.layer_idx = layer_idx
        self.kv_lora_rank = kv_lora_rank

    def fetch_latent(self, metadata):
        return metadata.kv_cache_manager.get_buffers(self.layer_idx).squeeze(1)

    @abc.abstractmethod
    def compute(self, q, latent):
        ...

    def forward(self, q, metadata):
        return self.compute(q, self.fetch_latent(metadata))


class BF16FallbackMLA(MLAAttentionBase):
    def compute(self, q, latent):
        return latent.to(q.dtype)  # positive: f2 CL001 the base fetch hands the whole latent cache


class PagedGatherMLA(MLAAttentionBase):
    def fetch_latent(self, metadata):
        buf = super().fetch_latent(metadata)
        return buf[metadata.kv_block_ids]

    def compute(self, q, latent):
        return latent.to(q.dtype)  # negative: this subclass's fetch gathers the batch's blocks


class NopeOnlyMLA(MLAAttentionBase):
    def compute(self, q, latent):
        return latent[..., : self.kv_lora_rank].to(q.dtype)  # positive: f2 CL001 every token's latent part, via the inherited fetch

class FP8QueryMLA(MLAAttentionBase):
    def compute(self, q, latent):
        return q.to(latent.dtype), latent  # negative: quantizes the batch query to the cache dtype
