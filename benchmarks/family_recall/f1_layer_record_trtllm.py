"""TRT-LLM pytorch-flow style attention where a per-layer record carries the KV buffer."""
from dataclasses import dataclass, field
from typing import Optional

import torch

from tensorrt_llm._torch.attention_backend.interface import AttentionBackend, AttentionMetadata
from tensorrt_llm._torch.pyexecutor.resource_manager import KVCacheManager


@dataclass
class LayerKVRecord:
    layer_idx: int
    kv: torch.Tensor
    scale: Optional[torch.Tensor] = None
    extra: dict = field(default_factory=dict)


class VanillaRecordMetadata(AttentionMetadata):
    kv_cache_manager: KVCacheManager

    def layer_record(self, layer_idx: int) -> LayerKVRecord:
        buf = self.kv_cache_manager.get_buffers(layer_idx)
        return LayerKVRecord(layer_idx=layer_idx, kv=buf)


class VanillaRecordAttention(AttentionBackend):
    def __init__(self, layer_idx, num_heads, head_dim, num_kv_heads=None, quant_config=None):
        self.layer_idx = layer_idx
        self.num_heads = num_heads
        self.head_dim = head_dim
        self.num_kv_heads = num_kv_heads or num_heads

    def forward(self, q, k, v, metadata: VanillaRecordMetadata, **kwargs):
        rec = metadata.layer_record(self.layer_idx)
        kv_bf16 = rec.kv.to(torch.bfloat16)  # positive: f1 CL001 record object carries the layer buffer
        rec.extra["upcast"] = kv_bf16
        return self._attend(q, kv_bf16, metadata)

    def forward_generation(self, q, metadata: VanillaRecordMetadata):
        rec = LayerKVRecord(self.layer_idx, metadata.kv_cache_manager.get_buffers(self.layer_idx))
        block_ids = metadata.kv_cache_manager.get_batch_cache_indices(metadata.request_ids)
        idx = torch.tensor(block_ids[0], device=q.device)
        live = rec.kv[idx].to(q.dtype)  # negative: gather of the request's blocks first
        whole = rec.kv.float()  # positive: f1 CL001 record object carries the layer buffer
        return live, whole

    def _attend(self, q, kv, metadata):
        return torch.empty_like(q)
