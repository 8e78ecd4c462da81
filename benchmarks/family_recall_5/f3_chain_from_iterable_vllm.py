"""Iterating every plane of every layer with itertools.chain.from_iterable."""

import itertools

import torch


class PlaneMirrorConnector:
    """Copies the whole cache to a bf16 mirror every step (debug connector)."""

    def __init__(self, runner):
        self.layer_pairs = [tuple(c.unbind(0)) for c in runner.kv_caches]
        self.req_meta = [torch.zeros(16, dtype=torch.int32) for _ in range(4)]

    def execute_model(self, scheduler_output):
        mirror = []
        for plane in itertools.chain.from_iterable(self.layer_pairs):
            mirror.append(plane.to(torch.bfloat16))  # positive: f3 CL001 every k/v plane of every layer through chain.from_iterable
        for m in itertools.chain(self.req_meta):
            m.to(torch.int64)  # negative: per-request metadata arrays
        return mirror

    def first_two(self):
        k0, v0 = next(iter(self.layer_pairs))
        return k0.to(torch.bfloat16), v0  # note: helper not called per step


class IsliceImpl:
    def __init__(self, kv_caches):
        self.kv_caches = kv_caches

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output):
        for c in itertools.islice(self.kv_caches, layer.layer_idx, layer.layer_idx + 1):
            cf = c.float()  # positive: f3 CL001 the layer's whole cache through itertools.islice
            torch.ops._C.ref_attention(output, query.float(), cf, attn_metadata.block_table)  # negative: batch query
        return output
