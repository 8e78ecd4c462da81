import torch


class KVScaleRecalibrator:
    """Online recalibration of the fp8 k/v scales from the live cache."""

    def __init__(self, q=0.999):
        self.q = q

    def recalibrate(self, kv_cache: torch.Tensor, k_scale: torch.Tensor):
        real = kv_cache[0].float() * k_scale  # positive: f5 CL001 whole key plane widened to dequantize
        sample = kv_cache[0, :8].float().flatten()  # negative: eight blocks only
        k_scale.copy_(torch.quantile(sample.abs(), self.q) / 448.0)
        return real.abs().amax(), k_scale.float()  # negative: scale tensor


class FlashAttentionImpl:
    def __init__(self):
        self.recal = KVScaleRecalibrator()

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        if attn_metadata.recalibrate:
            self.recal.recalibrate(kv_cache, layer._k_scale)
        return output
