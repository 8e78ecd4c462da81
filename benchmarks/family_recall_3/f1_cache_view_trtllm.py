"""TensorRT-LLM PyTorch-backend style: a view object over the KV cache manager."""
import torch

from tensorrt_llm._torch.attention_backend.interface import AttentionMetadata


class CacheView:
    def __init__(self, kv_cache_manager):
        self.manager = kv_cache_manager

    def layer(self, layer_idx: int) -> torch.Tensor:
        return self.manager.get_buffers(layer_idx)

    def blocks(self, layer_idx: int, block_ids: torch.Tensor) -> torch.Tensor:
        return self.manager.get_buffers(layer_idx)[block_ids]


class ViewAttention:
    def __init__(self, layer_idx: int, num_heads: int, head_dim: int):
        self.layer_idx = layer_idx
        self.num_heads = num_heads
        self.head_dim = head_dim

    def forward(self, q: torch.Tensor, k, v, metadata: AttentionMetadata, **kwargs):
        view = CacheView(metadata.kv_cache_manager)
        kv = view.layer(self.layer_idx).to(q.dtype)  # positive: f1 CL001 view.layer returns get_buffers(layer_idx)
        picked = view.blocks(self.layer_idx, metadata.block_ids).to(q.dtype)  # negative: blocks() gathers first
        kv_dev = view.layer(self.layer_idx).to(q.device)  # negative: device only
        early = view.layer(self.layer_idx).to(q.dtype)[metadata.block_ids]  # positive: f1 CL003 view.layer cast then blocks picked
        return kv, picked, kv_dev, early
