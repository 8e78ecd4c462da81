import functools

import torch


def upcast_kv(dtype):
    def deco(fn):
        @functools.wraps(fn)
        def inner(self, q, kv_buffer, *args, **kwargs):
            return fn(self, q, kv_buffer.to(dtype), *args, **kwargs)  # positive: f4 CL001 decorator widens the whole layer buffer passed by forward
        return inner
    return deco


def count_calls(fn):
    @functools.wraps(fn)
    def inner(self, *args, **kwargs):
        self.calls += 1
        return fn(self, *args, **kwargs)
    return inner


class TorchSdpaGeneration:
    calls = 0

    @count_calls
    @upcast_kv(torch.float16)
    def _attend(self, q, kv_buffer, attn_metadata):
        return q @ kv_buffer.flatten(0, -2).T

    def forward(self, q, k, v, attn_metadata, layer_idx):
        buf = attn_metadata.kv_cache_manager.get_buffers(layer_idx)
        ids = attn_metadata.kv_cache_block_offsets[0, 0]
        _ = buf[ids].to(torch.float16)  # negative: blocks of the first request
        return self._attend(q, buf, attn_metadata)
