import torch

CODECS = {}


def register(name):
    def deco(fn):
        CODECS[name] = fn
        return fn
    return deco


@register("int8")
def decode_int8(cache, scales_zeros):
    sz = scales_zeros.to(torch.float16)  # negative: scales/zeros
    return (cache.to(torch.float16) - sz[..., 1:]) * sz[..., :1]  # positive: f7 CL001 registered codec only ever given whole caches by impl.forward


@register("int4")
def decode_int4(cache, scales_zeros):
    lo = cache & 0xF
    return lo.to(torch.float16) * scales_zeros[..., :1]  # positive: f7 CL001 low nibbles of the whole int4 cache converted
