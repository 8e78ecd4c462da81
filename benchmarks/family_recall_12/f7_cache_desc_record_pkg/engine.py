import torch

from .desc import CacheDesc, Kind


def resolve(engine, desc: CacheDesc):
    if desc.kind == Kind.SCALE:
        return engine.kv_scales[desc.layer]
    return engine.gpu_cache[desc.layer][int(desc.kind)]


def num_layers(engine):
    return len(engine.gpu_cache)


def block_bytes(engine):
    k, v = engine.gpu_cache[0]
    return k[0].numel() * k.element_size() * 2
