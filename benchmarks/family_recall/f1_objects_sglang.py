"""MLA decode backend that routes every KV access through a small IO helper object."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional

import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.layers.attention.triton_ops.decode_attention import decode_attention_fwd

if TYPE_CHECKING:
    from sglang.srt.layers.radix_attention import RadixAttention
    from sglang.srt.model_executor.forward_batch_info import ForwardBatch
    from sglang.srt.model_executor.model_runner import ModelRunner


class _LatentKVIO:
    """Keeps the MLA pool so the backend never names it directly."""

    def __init__(self, pool):
        self.pool = pool

    def latent(self, layer):
        return self.pool.get_key_buffer(layer.layer_id)

    def latent_rows(self, layer, loc):
        return self.pool.get_key_buffer(layer.layer_id)[loc]

    def write(self, layer, loc, cache_k):
        self.pool.set_kv_buffer(layer, loc, cache_k, None)


@dataclass
class DecodeMeta:
    kv_indptr: torch.Tensor
    kv_indices: torch.Tensor
    num_kv_splits: torch.Tensor
    attn_logits: torch.Tensor
    attn_lse: torch.Tensor
    total_kv_tokens: int = 0


class IOHelperMLABackend(AttentionBackend):
    def __init__(self, model_runner: ModelRunner):
        super().__init__()
        self.kv_io = _LatentKVIO(model_runner.token_to_kv_pool)
        self.kv_lora_rank = model_runner.model_config.kv_lora_rank
        self.meta: Optional[DecodeMeta] = None

    def forward_decode(self, q, k, v, layer: RadixAttention, forward_batch: ForwardBatch, save_kv_cache=True):
        if save_kv_cache:
            self.kv_io.write(layer, forward_batch.out_cache_loc, k)
        kv = self.kv_io.latent(layer).to(q.dtype)  # positive: f1 CL001 helper-object method returns the pool
        o = torch.empty_like(q[..., : self.kv_lora_rank])
        m = self.meta
        decode_attention_fwd(
            q, kv, kv[..., : self.kv_lora_rank], o,
            m.kv_indptr, m.kv_indices, m.attn_logits, m.attn_lse, m.num_kv_splits,
            8, layer.scaling,
        )
        return o

    def forward_extend(self, q, k, v, layer: RadixAttention, forward_batch: ForwardBatch, save_kv_cache=True):
        if save_kv_cache:
            self.kv_io.write(layer, forward_batch.out_cache_loc, k)
        rows = self.kv_io.latent_rows(layer, forward_batch.out_cache_loc).to(q.dtype)  # negative: helper gathers rows first
        live = self.kv_io.latent(layer)[: self.meta.total_kv_tokens].to(q.dtype)  # negative: active-prefix slice
        return rows, live

    def forward_verify(self, q, layer: RadixAttention, forward_batch: ForwardBatch):
        # target-verify path of speculative decoding
        kv_full = self.kv_io.latent(layer).float()  # positive: f1 CL001 helper-object method returns the pool
        picked = self.kv_io.latent(layer).to(torch.bfloat16)[forward_batch.out_cache_loc]  # positive: f1 CL003 cast before gather through helper
        return kv_full, picked

    def debug_dump(self, layer):
        return self.kv_io.latent(layer).to("cpu")  # negative: device move, dtype unchanged
