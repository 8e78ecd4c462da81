"""TRT-LLM style attention hierarchy with the layer buffer behind a property."""
import torch

from tensorrt_llm._torch.attention_backend.interface import AttentionBackend, AttentionMetadata


class _CacheBoundAttention(AttentionBackend):
    def __init__(self, layer_idx, num_heads, head_dim):
        self.layer_idx = layer_idx
        self.num_heads = num_heads
        self.head_dim = head_dim
        self._metadata = None

    def bind(self, metadata: AttentionMetadata):
        self._metadata = metadata

    @property
    def layer_cache(self) -> torch.Tensor:
        return self._metadata.kv_cache_manager.get_buffers(self.layer_idx)

    @property
    def cache_dtype(self):
        return self._metadata.kv_cache_manager.dtype


class ReferenceAttention(_CacheBoundAttention):
    def forward(self, q, k, v, metadata: AttentionMetadata, **kwargs):
        self.bind(metadata)
        cache = self.layer_cache.to(q.dtype)  # positive: f2 CL001 inherited property returns the layer buffer
        k_cache = self.layer_cache[:, 0].float()  # positive: f2 CL001 K half of whole buffer via property
        blocks = metadata.kv_cache_manager.get_batch_cache_indices(metadata.request_ids)
        ids = torch.tensor(sum(blocks, []), device=q.device)
        live = self.layer_cache[ids].to(q.dtype)  # negative: block gather first
        same = self.layer_cache.to(q.device)  # negative: device move only
        return cache, k_cache, live, same
