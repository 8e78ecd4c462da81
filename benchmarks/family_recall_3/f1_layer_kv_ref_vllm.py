"""vLLM Attention layer reading its own bound kv_cache list."""
import torch
from torch import nn

from vllm.forward_context import get_forward_context


class CastingAttention(nn.Module):
    def __init__(self, num_heads, head_size, scale, impl):
        super().__init__()
        self.kv_cache = [torch.tensor([]) for _ in range(1)]
        self.impl = impl
        self.layer_name = "model.layers.0.self_attn.attn"

    def forward(self, query: torch.Tensor, key: torch.Tensor, value: torch.Tensor) -> torch.Tensor:
        forward_context = get_forward_context()
        attn_metadata = forward_context.attn_metadata
        self_kv_cache = self.kv_cache[forward_context.virtual_engine]
        if self.impl.needs_upcast:
            self_kv_cache = self_kv_cache.to(query.dtype)  # positive: f1 CL001 the layer's whole bound kv_cache
        key = key.to(self_kv_cache.dtype)  # negative: batch key
        return self.impl.forward(self, query, key, value, self_kv_cache, attn_metadata)


class MetaReader:
    def __init__(self, layer: CastingAttention):
        self.layer = layer

    def cache(self) -> torch.Tensor:
        return self.layer.kv_cache[get_forward_context().virtual_engine]

    def __call__(self, query: torch.Tensor) -> torch.Tensor:
        c = self.cache().float()  # positive: f1 CL001 reader object returns the layer's whole kv_cache
        return query.float() @ c[0, :, 0].T
