"""Readers of the target KV cache manager used by the MTP worker."""
import torch


def target_layer(mgr, layer_idx, dtype):
    return mgr.get_buffers(layer_idx).to(dtype)  # positive: f7 CL001 whole target layer buffer; called as MTPWorker._target_view in forward


def target_rows(mgr, layer_idx, block_ids, dtype):
    return mgr.get_buffers(layer_idx)[block_ids].to(dtype)  # negative: blocks gathered first


def accepted_scale(mgr, dtype):
    return mgr.kv_scale_orig_quant.to(dtype)  # negative: scale
