import torch

__all__ = ["layer_keys", "layer_values", "batch_blocks"]


def layer_keys(past_key_values, layer_idx):
    return past_key_values[layer_idx][0]


def layer_values(past_key_values, layer_idx):
    return past_key_values[layer_idx][1]


def batch_blocks(cache, block_offsets):
    return cache[block_offsets]


def _flat(cache):
    return cache.flatten(0, 1)
