# TensorRT-LLM vanilla attention inside the decode CUDA graph on SM75: the per-layer KV preparation is a
# tuple of stage functions folded over the layer buffer with itertools.accumulate(..., initial=buf).
import itertools

import torch


def _select_planes(buf):
    return buf.unbind(1)


def _widen_planes(planes):
    return tuple(p.to(torch.float16) for p in planes)  # positive: f4 CL001 both whole planes of the layer buffer, reached through the accumulate fold


def _widen_tail(planes, block_ids):
    return tuple(p[block_ids].to(torch.float16) for p in planes)  # negative: the batch's last blocks


class VanillaSM75GraphAttention:
    stages = (_select_planes, _widen_planes)

    def __init__(self, layer_idx, kv_cache_manager):
        self.layer_idx = layer_idx
        self.mgr = kv_cache_manager

    def forward(self, q, attn_metadata):
        buf = self.mgr.get_buffers(self.layer_idx)
        *_, (k, v) = itertools.accumulate(self.stages, lambda acc, stage: stage(acc), initial=buf)
        tail = _widen_tail(buf.unbind(1), attn_metadata.block_ids[:, -1])
        return self._sdpa(q, k, v, tail)
