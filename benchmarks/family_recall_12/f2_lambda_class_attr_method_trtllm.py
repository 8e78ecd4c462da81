import torch


class GenAttentionBase:
    fetch = lambda self, md: md.kv_cache_manager.get_block_ids_per_seq(self.layer_idx)

    def __init__(self, layer_idx, dtype):
        self.layer_idx = layer_idx
        self.dtype = dtype

    def forward(self, q, k, v, attn_metadata, **kwargs):
        got = self.fetch(attn_metadata)
        return self._consume(q, got)

    def _consume(self, q, got):
        return got.to(torch.int32)  # negative: block ids in the base class


class DenseFallbackAttention(GenAttentionBase):
    fetch = lambda self, md: md.kv_cache_manager.get_buffers(self.layer_idx)

    def _consume(self, q, got):
        return got.to(self.dtype)  # positive: f2 CL001 manager buffer from a lambda class attribute overriding the base's


class LatentOnlyAttention(DenseFallbackAttention):
    def _consume(self, q, got):
        lat = got[..., :512]
        return lat.to(self.dtype)  # positive: f2 CL001 latent part of the whole layer buffer (inherited lambda)
