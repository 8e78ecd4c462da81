"""Helpers: whole-layer widening used by decode, row gathers used by extend."""
import torch


def dense_latent(pool, layer_id, dtype):
    return pool.get_key_buffer(layer_id).to(dtype)  # positive: f7 CL001 called from backend.forward_decode with the pool; whole latent layer


def dense_rope(k_buf, kv_lora_rank, dtype):
    return k_buf[..., kv_lora_rank:].to(dtype)  # positive: f7 CL001 last-dim rope part of every slot


def prefix_rows(pool, layer_id, loc, dtype):
    return pool.get_key_buffer(layer_id)[loc].to(dtype)  # negative: prefix rows only
