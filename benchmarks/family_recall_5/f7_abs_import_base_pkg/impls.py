"""Implementations importing the base by absolute path."""

import torch

from f7_abs_import_base_pkg.base import KVReaderBase


class Fp32CheckImpl(KVReaderBase):
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output):
        c = self._layer_cache(layer.layer_idx)
        c32 = c.to(torch.float32)  # positive: f7 CL001 base-class method from another module returns the whole layer cache
        tail = self._recent_blocks(layer.layer_idx, attn_metadata.block_table[:, -1]).to(torch.float32)  # negative: gathered last blocks
        lens = self._lengths(attn_metadata.num_reqs).to(torch.int64)  # negative: lengths window
        torch.ops._C.ref_attn(output, query, c32, tail, lens)
        return output


class SuperReadImpl(Fp32CheckImpl):
    def _layer_cache(self, idx):
        return super()._layer_cache(idx).flatten(1, 2)

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output):
        flat = self._layer_cache(layer.layer_idx)
        torch.ops._C.ref_attn(output, query, flat.half(), None, None)  # positive: f7 CL001 override keeps super()'s whole cache (flatten), cast inline
        return output
