import torch


def _blocks(kv_cache, block_table, dtype):
    return kv_cache[:, block_table[:, 0]].to(dtype)  # negative: first-block gather


def _dense(kv_cache, block_table, dtype):
    return kv_cache.to(dtype)  # positive: f7 CL001 whole target layer, reached as handlers["dense"] from the proposer


def _scales(layer, block_table, dtype):
    return layer._k_scale.to(dtype)  # negative: scale


BASE = {"blocks": _blocks, "scales": _scales}
SPEC = {"dense": _dense}
