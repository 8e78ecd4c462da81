import torch

from tensorrt_llm._torch.attention_backend.interface import AttentionBackend, AttentionMetadata


class LayerCacheBase(AttentionBackend):
    def __init__(self, layer_idx, num_heads, head_dim, **kwargs):
        self.layer_idx = layer_idx
        self.num_heads = num_heads
        self.head_dim = head_dim

    def get_layer_kv(self, metadata: AttentionMetadata) -> torch.Tensor:
        return metadata.kv_cache_manager.get_buffers(self.layer_idx)


class VanillaUpcastAttention(LayerCacheBase):
    def forward(self, q, k, v, metadata: AttentionMetadata, *, attention_mask=None, **kwargs):
        kv = self.get_layer_kv(metadata)
        kv = kv.to(q.dtype)  # positive: f2 CL001 base method returns get_buffers(layer_idx)
        kv_dev = self.get_layer_kv(metadata).to(q.device, non_blocking=True)  # negative: device only
        return kv, kv_dev


class VanillaUpcastAttentionV2(VanillaUpcastAttention):
    def forward(self, q, k, v, metadata: AttentionMetadata, *, attention_mask=None, **kwargs):
        cache = super().get_layer_kv(metadata)
        k_cache = cache[:, 0].to(q.device, q.dtype)  # positive: f2 CL001 device+dtype conversion of whole k plane
        return k_cache
