# TensorRT-LLM (PyTorch flow) style: the kv_cache_manager is wrapped in provider objects.
from dataclasses import dataclass
from typing import Optional

import torch


class KVBufferProvider:
    def __init__(self, kv_cache_manager):
        self.mgr = kv_cache_manager

    def layer_buffers(self, layer_idx: int) -> torch.Tensor:
        # [num_blocks, kv_factor, tokens_per_block, num_kv_heads, head_dim]
        return self.mgr.get_buffers(layer_idx)

    def block_ids(self, request_ids):
        return self.mgr.get_batch_cache_indices(request_ids)


class AttentionContext:
    def __init__(self, metadata):
        self.metadata = metadata
        self.provider = KVBufferProvider(metadata.kv_cache_manager)

    def provider_of(self) -> KVBufferProvider:
        return self.provider


@dataclass
class VanillaAttentionMetadataLike:
    kv_cache_manager: object
    request_ids: list
    seq_lens: torch.Tensor
    num_contexts: int = 0


class VanillaUpcastAttention:
    def __init__(self, layer_idx: int, num_heads: int, head_dim: int, dtype: torch.dtype = torch.bfloat16):
        self.layer_idx = layer_idx
        self.num_heads = num_heads
        self.head_dim = head_dim
        self.dtype = dtype

    def forward(self, q: torch.Tensor, k: Optional[torch.Tensor], v: Optional[torch.Tensor], metadata: VanillaAttentionMetadataLike, **kwargs):
        ctx = AttentionContext(metadata)
        kv_cache = ctx.provider.layer_buffers(self.layer_idx).to(self.dtype)  # positive: f1 CL001 provider wraps kv_cache_manager.get_buffers()
        also = ctx.provider_of().layer_buffers(self.layer_idx).float()  # positive: f1 CL001 provider reached through a method of the context
        direct = metadata.kv_cache_manager.get_buffers(self.layer_idx).to(torch.float32)  # positive: f1 CL001 the manager's whole layer buffer
        ids = torch.tensor(ctx.provider.block_ids(metadata.request_ids)).to(torch.int32)  # negative: block indices, not the cache
        k_cache = kv_cache[:, 0]
        k_tok = k.to(self.dtype)  # negative: k of the current tokens
        seq = metadata.seq_lens.to(q.device)  # negative: device move of lengths
        return self._attend(q, k_cache, ids, k_tok, seq, also, direct)

    def forward_gathered(self, q, metadata: VanillaAttentionMetadataLike, block_ids: torch.Tensor):
        buffers = KVBufferProvider(metadata.kv_cache_manager).layer_buffers(self.layer_idx)
        blocks = buffers[block_ids].to(self.dtype)  # negative: blocks of the batch gathered before the cast
        return blocks

    def _attend(self, *args):
        return args[0]
