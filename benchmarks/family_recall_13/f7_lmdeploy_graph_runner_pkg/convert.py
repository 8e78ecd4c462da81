import torch


def densify_caches(past_key_values, dtype):
    out = []
    for k_cache, v_cache in past_key_values:
        out.append((k_cache.to(dtype), v_cache))  # positive: f7 CL001 every layer key cache, called from the runner's __call__
    return out


def cast_offsets(block_offsets):
    return block_offsets.to(torch.int32)  # negative: block offsets


def cast_seqlens(seqlens):
    return seqlens.to(torch.int32)  # negative: lengths


def page_bytes(k_cache):
    return k_cache[0].numel() * k_cache.element_size()
