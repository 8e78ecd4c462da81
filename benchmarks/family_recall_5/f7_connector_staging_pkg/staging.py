"""Staging helpers used by connector.py."""

import torch


def stage_layer(kv_layer, dtype=torch.bfloat16):
    wide = kv_layer.to(dtype)  # positive: f7 CL001 every caller passes save_kv_layer's whole kv_layer
    return wide.to("cpu", non_blocking=True)


def stage_slots(kv_layer, slot_mapping, dtype=torch.bfloat16):
    flat = kv_layer.flatten(1, 2)
    return flat[:, slot_mapping].to(dtype)  # negative: gather-then-cast of this step's slots


def pin(t):
    return t.pin_memory()
