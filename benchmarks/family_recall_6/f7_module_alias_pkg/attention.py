import torch

import f7_module_alias_pkg.kv_access as kva
from . import kv_access as A


class AliasedModuleAttention:
    def __init__(self, layer_idx):
        self.layer_idx = layer_idx

    def forward(self, q, k, v, metadata, **kwargs):
        mgr = metadata.kv_cache_manager
        kc = kva.k_half(mgr, self.layer_idx).to(q.dtype)  # positive: f7 CL001 every block's K half, via an absolute module alias
        vc = A.v_half(mgr, self.layer_idx).float()  # positive: f7 CL001 every block's V half, via a relative module alias
        sb = A.seq_blocks(mgr, self.layer_idx, metadata.kv_block_ids).to(q.dtype)  # negative: the sequence's blocks
        ids = metadata.kv_block_ids.to(torch.int64)  # negative: block ids
        return kc, vc, sb
