import torch

READERS = {}


def register(fmt):
    def deco(fn):
        READERS[fmt] = fn
        return fn

    return deco


@register("int8")
def read_int8(cache_engine, idx):
    k, v = cache_engine.gpu_cache[idx]
    kf = k.float()  # positive: f7 CL001 registered reader converts the engine's whole K cache
    vf = v.float()  # positive: f7 CL001 registered reader converts the engine's whole V cache
    return kf, vf


@register("offsets")
def read_offsets(attn_metadata, idx):
    return attn_metadata.block_offsets.to(torch.int64)  # negative: block offsets
