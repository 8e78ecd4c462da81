import torch


def dense_caches(k_cache, v_cache, dtype=torch.float16):
    return [c.to(dtype) for c in (k_cache, v_cache)]  # positive: f7 CL001 both whole caches from agent._async_model_forward


def dense_rows(k_cache, block_offsets, dtype=torch.float16):
    return k_cache[block_offsets].to(dtype)  # negative: blocks first
