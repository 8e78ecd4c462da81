"""Whole-layer and row-wise widening helpers for the shadow graph runner."""
import torch


def widen_layer(buf, dtype=torch.bfloat16):
    return buf.to(dtype)  # positive: f7 CL001 whole latent layer (mapped over the pool's layers in graph_runner.replay)


def widen_rows(buf, rows, dtype=torch.bfloat16):
    return buf[rows].to(dtype)  # negative: rows gathered first


def to_device(buf, device):
    return buf.to(device)  # negative: device move
