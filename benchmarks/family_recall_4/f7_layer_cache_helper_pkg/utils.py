import torch


def layer_cache(forward_context, layer_name: str) -> torch.Tensor:
    layer = forward_context.no_compile_layers[layer_name]
    return layer.kv_cache[forward_context.virtual_engine]


def used_blocks(forward_context, layer_name: str, block_table: torch.Tensor) -> torch.Tensor:
    return layer_cache(forward_context, layer_name)[:, block_table.flatten()]


def slot_mapping(forward_context, layer_name: str) -> torch.Tensor:
    return forward_context.attn_metadata[layer_name].slot_mapping
