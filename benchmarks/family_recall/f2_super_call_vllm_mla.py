# SPDX-License-Identifier: Apache-2.0
"""A vLLM MLA decode impl that subclasses MLACommonImpl and upcasts the latent cache."""
from typing import Optional

import torch

from vllm.v1.attention.backends.mla.common import MLACommonBackend, MLACommonImpl, MLACommonMetadata


class PortableMLABackend(MLACommonBackend):
    @staticmethod
    def get_name() -> str:
        return "PORTABLE_MLA"

    @staticmethod
    def get_impl_cls():
        return PortableMLAImpl


class _LatentSplitImpl(MLACommonImpl[MLACommonMetadata]):
    def _latent(self, kv_c_and_k_pe_cache: torch.Tensor) -> torch.Tensor:
        return kv_c_and_k_pe_cache[..., : self.kv_lora_rank]

    def _rope(self, kv_c_and_k_pe_cache: torch.Tensor) -> torch.Tensor:
        return kv_c_and_k_pe_cache[..., self.kv_lora_rank:]


class PortableMLAImpl(_LatentSplitImpl):
    def _forward_decode(self, q, kv_c_and_k_pe_cache: torch.Tensor, attn_metadata: MLACommonMetadata, layer) -> tuple[torch.Tensor, Optional[torch.Tensor]]:
        assert attn_metadata.decode is not None
        if isinstance(q, tuple):
            q = torch.cat(q, dim=-1)
        kv_c = super()._latent(kv_c_and_k_pe_cache).to(q.dtype)  # positive: f2 CL001 super() method returns a view of the cache
        k_pe = self._rope(kv_c_and_k_pe_cache).to(q.dtype)  # positive: f2 CL001 inherited method returns a view of the cache
        block_table = attn_metadata.decode.block_table
        kv_live = kv_c_and_k_pe_cache[block_table].to(q.dtype)  # negative: block-table gather first
        q_fp8 = q.to(kv_c_and_k_pe_cache.dtype)  # negative: casts the query to the cache dtype
        return self._paged_mla(q, kv_c, k_pe, kv_live, q_fp8, attn_metadata), None

    def _paged_mla(self, *args):
        return torch.empty_like(args[0][..., : self.kv_lora_rank])
