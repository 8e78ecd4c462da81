import torch


def densify_caches(past_key_values, dtype):
    out = []
    for k_cache, v_cache in past_key_values:
        out.append((k_cache.to(dtype), v_cache))  # positive: f7 CL001 every layer key cache, called from the runner's __call__
    return out


def cast_offsets(block_offsets):
    return block_offsets.to(torch.int32)  # negative: block offsets
