"""Layer taps: generators yielding each layer, widened whole or as the newly written blocks."""
import torch


def widened_layers(kv_cache_manager, dtype):
    for layer_idx in range(kv_cache_manager.num_local_layers):
        yield layer_idx, kv_cache_manager.get_buffers(layer_idx).to(dtype)  # positive: f7 CL001 generator consumed by executor._forward_step; whole layer


def block_rows(kv_cache_manager, blocks, dtype):
    for layer_idx in range(kv_cache_manager.num_local_layers):
        yield layer_idx, kv_cache_manager.get_buffers(layer_idx)[blocks].to(dtype)  # negative: new blocks only

