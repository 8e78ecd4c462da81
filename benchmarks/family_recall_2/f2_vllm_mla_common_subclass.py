# vLLM-style MLA: a common impl and backend impls that subclass it.
from typing import Optional

import torch

from vllm.model_executor.layers.attention.mla_attention import MLACommonImpl, MLACommonMetadata
from vllm.v1.attention.backend import AttentionLayer


class _CommonDecodeHelpers:
    kv_lora_rank: int

    def _latent_view(self, kv_c_and_k_pe_cache: torch.Tensor) -> torch.Tensor:
        # [num_blocks, block_size, kv_lora_rank + rope_dim] -> [num_blocks * block_size, 1, d]
        return kv_c_and_k_pe_cache.view(-1, 1, kv_c_and_k_pe_cache.shape[-1])

    def _nope_part(self, kv_c_and_k_pe_cache: torch.Tensor) -> torch.Tensor:
        return kv_c_and_k_pe_cache[..., : self.kv_lora_rank]


class UpcastMLAImpl(_CommonDecodeHelpers, MLACommonImpl[MLACommonMetadata]):
    def __init__(self, num_heads, head_size, scale, num_kv_heads, alibi_slopes, sliding_window, kv_cache_dtype, logits_soft_cap, attn_type, kv_sharing_target_layer_name, **mla_args):
        super().__init__(num_heads, head_size, scale, num_kv_heads, alibi_slopes, sliding_window, kv_cache_dtype, logits_soft_cap, attn_type, kv_sharing_target_layer_name, **mla_args)
        self.compute_dtype = torch.bfloat16

    def forward_mqa(
        self,
        q: torch.Tensor | tuple[torch.Tensor, torch.Tensor],
        kv_c_and_k_pe_cache: torch.Tensor,
        attn_metadata: MLACommonMetadata,
        layer: AttentionLayer,
    ) -> tuple[torch.Tensor, torch.Tensor | None]:
        if type(q) is tuple:
            q = torch.cat(q, dim=-1)
        kv_bf16 = kv_c_and_k_pe_cache.to(q.dtype)  # positive: f2 CL001 the whole MLA cache handed in by vLLM's convention
        latent = super()._latent_view(kv_c_and_k_pe_cache).float()  # positive: f2 CL001 base helper view of the whole cache via super()
        q_c = q.to(self.compute_dtype)  # negative: q of the decode tokens
        block_table = attn_metadata.decode.block_table
        blocks = kv_c_and_k_pe_cache[block_table].to(q.dtype)  # negative: blocks of the batch gathered first
        return self._decode(q_c, kv_bf16, latent, blocks), None

    def _decode(self, *args):
        return args[0]


class NopeOnlyMLAImpl(UpcastMLAImpl):
    def forward_mqa(self, q, kv_c_and_k_pe_cache, attn_metadata, layer):
        nope = self._nope_part(kv_c_and_k_pe_cache).to(torch.float16)  # positive: f2 CL001 inherited helper slices the last dim of the whole cache
        scale = layer._k_scale.to(torch.float32)  # negative: a scalar scale
        return self._decode(q, nope, scale), None

    def forward_mha(
        self,
        q: torch.Tensor,
        kv_c_normed: torch.Tensor,
        k_pe: torch.Tensor,
        kv_c_and_k_pe_cache: torch.Tensor,
        attn_metadata: MLACommonMetadata,
        k_scale: torch.Tensor,
        output: torch.Tensor,
    ) -> None:
        kv_c = kv_c_normed.to(q.dtype)  # negative: normalized latent of the prefill tokens
        k_pe_c = k_pe.to(q.dtype)  # negative: rope keys of the prefill tokens
        output.copy_(self._decode(q, kv_c, k_pe_c))
