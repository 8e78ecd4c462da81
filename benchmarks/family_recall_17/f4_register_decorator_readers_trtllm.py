"""TensorRT-LLM: module-level KV readers registered by a decorator into a dict; the
attention module picks one by name at init and calls it with the layer buffer."""
import torch

_READERS = {}


def register(name):
    def deco(fn):
        _READERS[name] = fn
        return fn

    return deco


@register("native")
def _read_native(buf, dtype):
    return buf


@register("upcast")
def _read_upcast(buf, dtype):
    return buf.to(dtype)  # positive: f4 CL001 reached through the registry with the whole layer buffer


def _read_blocks(buf, dtype, blocks):
    return buf[blocks].to(dtype)  # negative: gathered blocks


class RegistryAttention:
    def __init__(self, layer_idx, sm_version):
        self.layer_idx = layer_idx
        self.read_mode = "native" if sm_version >= 89 else "upcast"

    def forward(self, q, k, v, metadata):
        buf = metadata.kv_cache_manager.get_buffers(self.layer_idx)
        dense = _READERS[self.read_mode](buf, q.dtype)
        ctx = _read_blocks(buf, q.dtype, metadata.kv_cache_block_offsets[0, 0])
        return q, dense, ctx
