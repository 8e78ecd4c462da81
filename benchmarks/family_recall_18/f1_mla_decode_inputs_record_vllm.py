"""vLLM-style MLA impl that bundles its per-step decode inputs (including the cache) into a record."""
from dataclasses import dataclass

import torch


@dataclass
class _DecodeInputs:
    q_nope: torch.Tensor
    q_pe: torch.Tensor
    cache: torch.Tensor
    block_table: torch.Tensor
    seq_lens: torch.Tensor


class TorchRefMLAImpl:
    def __init__(self, kv_lora_rank, qk_rope_head_dim, scale):
        self.kv_lora_rank = kv_lora_rank
        self.qk_rope_head_dim = qk_rope_head_dim
        self.scale = scale

    def forward_mqa(self, q, kv_c_and_k_pe_cache, attn_metadata, layer):
        q_nope, q_pe = q.split([self.kv_lora_rank, self.qk_rope_head_dim], dim=-1)
        inputs = _DecodeInputs(q_nope, q_pe, kv_c_and_k_pe_cache, attn_metadata.decode.block_table, attn_metadata.decode.seq_lens)
        return self._run_decode(inputs)

    def _run_decode(self, inputs: _DecodeInputs):
        latent = inputs.cache.to(inputs.q_nope.dtype)  # positive: f1 CL001 the record's cache is the whole latent cache
        first_blocks = inputs.cache[inputs.block_table[:, 0]].to(inputs.q_nope.dtype)  # negative: one block per request
        kv_c = latent[..., : self.kv_lora_rank]
        k_pe = latent[..., self.kv_lora_rank:]
        return self._attend(inputs.q_nope, inputs.q_pe, kv_c, k_pe, first_blocks)

    def _attend(self, q_nope, q_pe, kv_c, k_pe, first_blocks):
        return q_nope
