import torch


def to_transfer_dtype(kv_layer, dtype=torch.float16):
    return kv_layer.to(dtype)  # positive: f7 CL001 helper in utils.py, only called with kv_layer / registered caches


def slots_tensor(slot_mapping):
    return slot_mapping.to(torch.int64)  # negative: slot mapping
