import torch


def encode_layer(kv_layer: torch.Tensor) -> torch.Tensor:
    # Only the connector calls this, always with the whole layer cache.
    return kv_layer.to(torch.float16).contiguous()  # positive: f7 CL001 every caller passes the whole layer kv cache


def encode_slots(kv_layer: torch.Tensor, slot_mapping: torch.Tensor) -> torch.Tensor:
    flat = kv_layer.flatten(1, 2)
    return flat[:, slot_mapping].to(torch.float16)  # negative: gathered slots
