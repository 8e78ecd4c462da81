import torch


class Fallback:
    @staticmethod
    def widen_layer(buf, dtype=torch.bfloat16):
        return buf.to(dtype)  # positive: f7 CL001 whole layer from attention.forward

    @staticmethod
    def widen_scale(scale, dtype=torch.float32):
        return scale.to(dtype)  # negative: scale only
