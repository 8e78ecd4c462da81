"""lmdeploy EAGLE target-verify fallback: a NamedTuple record of one layer's caches with dense()/rows() methods."""
from typing import NamedTuple

import torch


class _LayerKV(NamedTuple):
    k: torch.Tensor
    v: torch.Tensor

    def dense(self, dtype):
        return self.k.to(dtype), self.v.to(dtype)  # positive: f1 CL001 both caches of the layer (one line, one finding)

    def rows(self, blocks, dtype):
        return self.k[blocks].to(dtype), self.v[blocks].to(dtype)  # negative: blocks selected first


class EagleVerifyFallbackAttention:
    def __init__(self, cache_engine, scale):
        self.cache_engine = cache_engine
        self.scale = scale

    def forward(self, query, attn_metadata, layer_idx):
        entry = _LayerKV(*self.cache_engine.gpu_cache[layer_idx])
        if attn_metadata.is_verify:
            k, v = entry.dense(query.dtype)
        else:
            k, v = entry.rows(attn_metadata.block_offsets, query.dtype)
        mask = attn_metadata.tree_mask.to(query.dtype)  # negative: tree mask
        scores = torch.einsum("qhd,bthd->qhbt", query, k) * self.scale + mask
        return torch.einsum("qhbt,bthd->qhd", scores.flatten(-2).softmax(-1).view_as(scores), v)
