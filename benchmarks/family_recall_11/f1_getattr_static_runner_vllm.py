import inspect

import torch


class StaticLookupImpl:
    """Reads runner attributes past any descriptor with inspect.getattr_static."""

    def __init__(self, runner, layer_idx):
        self.runner = runner
        self.layer_idx = layer_idx

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        caches = inspect.getattr_static(self.runner, "kv_caches")
        own = caches[self.layer_idx]
        k_plane, v_plane = own.unbind(0)
        k_dense = k_plane.to(query.dtype)  # positive: f1 CL001 K plane of a registered cache found by getattr_static
        v_dense = v_plane.half()  # positive: f1 CL001 V plane of the same whole cache
        seq = inspect.getattr_static(self.runner, "seq_lens_cpu")
        seq = seq.to(torch.int32)  # negative: per-request lengths
        bt = attn_metadata.block_table.to(torch.int64)  # negative: block table
        rows = k_plane[bt[:, 0]].to(query.dtype)  # negative: gathered first blocks
        return k_dense, v_dense, seq, rows
