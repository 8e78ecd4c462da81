import torch


class AttentionBackend:
    def __init__(self, layer_idx, num_heads, head_dim):
        self.layer_idx = layer_idx
        self.num_heads = num_heads
        self.head_dim = head_dim

    def kv_buffer(self, metadata):
        return metadata.kv_cache_manager.get_buffers(self.layer_idx)

    def kv_scale(self, metadata):
        return metadata.kv_cache_manager.kv_cache_scales[self.layer_idx]


class VanillaAttentionSM75(AttentionBackend):
    """Turing: no FP8 read in the vanilla kernels, so the forward widens what the base returns."""

    def forward(self, q, k, v, metadata, **kwargs):
        buf = self.kv_buffer(metadata)
        if buf.dtype == torch.float8_e4m3fn:
            buf = buf.to(torch.float16)  # positive: f2 CL001 whole layer buffer returned by the base-class method through self
        scale = self.kv_scale(metadata).to(torch.float16)  # negative: scale from the sibling base method
        q = q.to(torch.float16)  # negative: query
        return buf, scale, q
