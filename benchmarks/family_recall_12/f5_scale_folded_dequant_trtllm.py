import torch


class ScaleFoldAttention:
    def __init__(self, layer_idx, dtype, kv_scale):
        self.layer_idx = layer_idx
        self.dtype = dtype
        self.kv_scale = kv_scale

    def forward(self, q, k, v, attn_metadata, **kwargs):
        buf = attn_metadata.kv_cache_manager.get_buffers(self.layer_idx)
        k_half = buf.select(1, 0)
        deq = torch.mul(k_half, 1.0).to(self.dtype)  # positive: f5 CL001 multiply-by-one then convert keeps the whole K half
        fold = (k_half.float() * self.kv_scale).to(self.dtype)  # positive: f5 CL001 fp32 dequant of the whole K half
        s = torch.tensor(self.kv_scale).to(self.dtype)  # negative: scalar scale
        return deq, fold, s
