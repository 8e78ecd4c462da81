# TensorRT-LLM decode CUDA graph, reference attention: the layer's K and V planes are packed along the last
# dim with functools.reduce over torch.cat, then widened for the fp16 kernel inside the graph.
import functools

import torch


def _pack(planes):
    return functools.reduce(lambda a, b: torch.cat((a, b), dim=-1), planes)


class PackedPlaneGraphAttention:
    def __init__(self, layer_idx, kv_cache_manager):
        self.layer_idx = layer_idx
        self.mgr = kv_cache_manager

    def forward(self, q, attn_metadata):
        buf = self.mgr.get_buffers(self.layer_idx)  # [blocks, 2, tokens_per_block, heads, dim]
        if attn_metadata.is_cuda_graph:
            kv = _pack(buf.unbind(1)).to(torch.float16)  # positive: f5 CL001 both whole planes packed side by side
            return self._packed_decode(q, kv, attn_metadata)
        sel = _pack(buf[attn_metadata.block_ids].unbind(1))
        return self._packed_decode(q, sel.to(torch.float16), attn_metadata)  # negative: the batch's blocks, packed
