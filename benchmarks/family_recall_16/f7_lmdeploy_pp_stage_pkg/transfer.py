import torch


def pack_stage_layer(layer_caches, wire_dtype=torch.float16):
    k_cache, v_cache = layer_caches
    packed_k = k_cache.to(wire_dtype)  # positive: f7 CL001 whole key cache of a stage layer
    packed_v = v_cache.to(wire_dtype)  # positive: f7 CL001 whole value cache of a stage layer
    return packed_k, packed_v


def pack_blocks(layer_caches, block_ids, wire_dtype=torch.float16):
    k_cache, _ = layer_caches
    return k_cache[block_ids].to(wire_dtype)  # negative: chosen blocks
