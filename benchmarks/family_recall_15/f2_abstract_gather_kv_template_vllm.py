import abc

import torch


class MLADecodeImplBase(abc.ABC):
    def __init__(self, kv_lora_rank, model_dtype):
        self.kv_lora_rank = kv_lora_rank
        self.model_dtype = model_dtype

    @abc.abstractmethod
    def _latent(self, kv_c_and_k_pe_cache, attn_metadata):
        ...

    def forward_mqa(self, q, kv_c_and_k_pe_cache, attn_metadata, layer):
        latent = self._latent(kv_c_and_k_pe_cache, attn_metadata)
        return torch.einsum("bhd,bnd->bhn", q, latent)


class TorchRefMLAImpl(MLADecodeImplBase):
    def _latent(self, kv_c_and_k_pe_cache, attn_metadata):
        return kv_c_and_k_pe_cache[..., : self.kv_lora_rank].to(self.model_dtype)  # positive: f2 CL001 last-dim slice keeps every slot, reached from the base forward_mqa


class BlockTableMLAImpl(MLADecodeImplBase):
    def _latent(self, kv_c_and_k_pe_cache, attn_metadata):
        blocks = attn_metadata.decode.block_table
        return kv_c_and_k_pe_cache[blocks].to(self.model_dtype)  # negative: block-table gather


class Fp8StatsImpl(BlockTableMLAImpl):
    def stats(self, kv_c_and_k_pe_cache):
        return kv_c_and_k_pe_cache.view(torch.uint8).bincount()  # negative: not a per-step path, and a reinterpret
