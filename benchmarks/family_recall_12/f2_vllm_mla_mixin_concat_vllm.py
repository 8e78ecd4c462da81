import torch


class LatentConcatMixin:
    def _latent_and_rope(self, kv_c_and_k_pe_cache):
        lat = kv_c_and_k_pe_cache[..., : self.kv_lora_rank]
        pe = kv_c_and_k_pe_cache[..., self.kv_lora_rank:]
        return lat, pe


class MLACommonImplBase:
    def __init__(self, kv_lora_rank, dtype):
        self.kv_lora_rank = kv_lora_rank
        self.dtype = dtype

    def forward_mqa(self, q, kv_c_and_k_pe_cache, attn_metadata, layer):
        raise NotImplementedError


class TorchRefMLAImpl(LatentConcatMixin, MLACommonImplBase):
    def forward_mqa(self, q, kv_c_and_k_pe_cache, attn_metadata, layer):
        lat, pe = self._latent_and_rope(kv_c_and_k_pe_cache)
        lat16 = lat.to(self.dtype)  # positive: f2 CL001 latent part of the whole cache from a sibling mixin
        pe16 = pe.to(self.dtype)  # positive: f2 CL001 rope part of the whole cache from a sibling mixin
        bt = attn_metadata.decode.block_table.to(torch.int32)  # negative: block table
        return lat16, pe16, bt

    def forward_mha(self, q, kv_c_normed, k_pe, kv_c_and_k_pe_cache, attn_metadata, k_scale, output):
        return kv_c_normed.to(self.dtype)  # negative: the step's new latent rows
