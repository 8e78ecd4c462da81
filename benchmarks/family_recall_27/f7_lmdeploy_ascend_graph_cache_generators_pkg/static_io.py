import torch


def iter_dense_caches(past_key_values, dtype):
    """Yields each layer's caches widened for the graph kernels (no int8 route in graph mode)."""
    for k_cache, v_cache in past_key_values:
        yield k_cache.to(dtype), v_cache.to(dtype)  # positive: f7 CL001 both whole caches of each layer (one finding), consumed per replay by graph_runner


def iter_block_caches(past_key_values, block_offsets, dtype):
    """Yields only the blocks of the captured batch."""
    flat = block_offsets.flatten()
    for k_cache, v_cache in past_key_values:
        yield k_cache[flat].to(dtype), v_cache[flat].to(dtype)  # negative: block gather


def seqlens_for_graph(kv_seqlens, max_batch_size):
    out = torch.zeros(max_batch_size, dtype=torch.int32)
    out[: kv_seqlens.numel()] = kv_seqlens.to(torch.int32)  # negative: lengths
    return out
