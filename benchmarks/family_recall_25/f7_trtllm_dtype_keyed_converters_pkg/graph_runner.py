import torch

from .converters import CONVERTERS, _int8_rows


class FallbackGraphRunner:
    def __init__(self, layer_ids):
        self.layer_ids = layer_ids
        self.static_kv = {}

    def capture(self, bs, kv_cache_manager):
        self.static_kv[bs] = [torch.empty_like(kv_cache_manager.get_buffers(i), dtype=torch.bfloat16) for i in self.layer_ids]

    def replay(self, bs, kv_cache_manager, rows=None, scale=None):
        for dst, i in zip(self.static_kv[bs], self.layer_ids):
            buf = kv_cache_manager.get_buffers(i)
            if rows is not None:
                dst[: rows.numel()].copy_(_int8_rows(buf, rows, scale))
            else:
                dst.copy_(CONVERTERS[buf.dtype](buf))
        return self.static_kv[bs]
