"""Iterating map(manager.get_buffers, layer_ids)."""

import torch


class MapAttentionRunner:
    def __init__(self, kv_cache_manager, layer_ids, dtype=torch.bfloat16):
        self.mgr = kv_cache_manager
        self.layer_ids = list(layer_ids)
        self.dtype = dtype
        self.warm = [b.to(dtype) for b in map(kv_cache_manager.get_buffers, self.layer_ids[:1])]  # negative: __init__-time conversion (warm-up), not per step

    def forward(self, q, attn_metadata):
        outs = []
        for lid, buf in zip(self.layer_ids, map(self.mgr.get_buffers, self.layer_ids)):
            dense = buf.to(self.dtype)  # positive: f3 CL001 each layer buffer produced by map over the manager accessor
            outs.append(torch.ops.trtllm.attn(q[lid], dense, attn_metadata.kv_cache_block_offsets))
        lens = list(map(lambda t: t.to(torch.int64), attn_metadata.seq_lens_list))  # negative: per-request lengths
        return outs, lens


class FilteredMapRunner(MapAttentionRunner):
    def forward(self, q, attn_metadata):
        live = filter(lambda i: i in attn_metadata.active_layers, self.layer_ids)
        bufs = list(map(self.mgr.get_buffers, live))
        halves = [b.half() for b in bufs]  # positive: f3 CL001 whole buffers of the layers kept by filter, then map
        firsts = [b[attn_metadata.block_ids].half() for b in bufs]  # negative: gather-then-cast
        return halves, firsts


class ZipScalesRunner(MapAttentionRunner):
    def forward(self, q, attn_metadata):
        scales = attn_metadata.kv_scales_per_layer
        out = []
        for lid, s in zip(self.layer_ids, map(lambda t: t.to(self.dtype), scales)):  # negative: per-layer scales
            out.append(s)
        return out
