import torch


def layer_sink(dtype):
    result = None
    while True:
        kv_cache = yield result
        result = kv_cache.to(dtype)  # positive: f7 CL001 whole layer caches arrive through send() from the runner in the other module


def value_plane_sink(dtype):
    result = None
    while True:
        kv_cache = yield result
        result = kv_cache[1].float().to(dtype)  # positive: f7 CL001 the value plane keeps every block; widened (two conversions on one line, one finding)


def block_picker(block_ids, dtype):
    result = None
    while True:
        kv_cache = yield result
        result = kv_cache[:, block_ids].to(dtype)  # negative: blocks selected before the cast
