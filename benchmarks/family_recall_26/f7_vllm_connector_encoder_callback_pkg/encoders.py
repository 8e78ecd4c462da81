import torch


def whole_layer(kv_layer, wire_dtype):
    if kv_layer.dtype == wire_dtype:
        return kv_layer
    return kv_layer.to(wire_dtype)  # positive: f7 CL001 whole layer, passed as a callable and invoked from connector.save_kv_layer


def new_slots(kv_layer, wire_dtype, slot_mapping):
    flat = kv_layer.flatten(1, 2)
    return flat[:, slot_mapping].to(wire_dtype)  # negative: this step's slots gathered before the cast


def as_bytes(kv_layer, wire_dtype):
    return kv_layer.view(torch.uint8)  # negative: reinterpret, zero copy
