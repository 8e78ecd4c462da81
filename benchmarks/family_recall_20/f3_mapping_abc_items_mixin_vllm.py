from collections.abc import Mapping

import torch
from vllm.forward_context import get_forward_context


class LayerCacheMap(Mapping):
    """Read-only map layer_name -> kv_cache; items()/values() come from the Mapping mixin."""

    def __init__(self, forward_context):
        self._ctx = forward_context

    def __getitem__(self, name):
        return self._ctx.no_compile_layers[name].kv_cache[self._ctx.virtual_engine]

    def __iter__(self):
        return iter(self._ctx.no_compile_layers)

    def __len__(self):
        return len(self._ctx.no_compile_layers)


class BF16MirrorConnector:
    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        mirror = {}
        for name, cache in LayerCacheMap(get_forward_context()).items():
            mirror[name] = cache.to(torch.bfloat16)  # positive: f3 CL001 whole per-layer caches yielded by the Mapping mixin's items()
        stacked = torch.stack(list(LayerCacheMap(get_forward_context()).values())).half()  # positive: f3 CL001 whole layers from the mixin's values(), stacked then converted
        slots = kv_layer[:, attn_metadata.slot_mapping // 16].to(torch.bfloat16)  # negative: blocks selected before the cast
        return mirror, stacked, slots
