import torch

from . import Manager


class AliasAttention:
    def __init__(self, layer_idx, mgr: Manager):
        self.layer_idx = layer_idx
        self.mgr = mgr

    def forward(self, q, k, v, metadata):
        v_all = self.mgr.layer_view(self.layer_idx)[:, 1].half()  # positive: f7 CL001 V of every block via the re-exported manager
        dense = self.mgr.layer_view(self.layer_idx).to(q.dtype)  # positive: f7 CL001 the whole layer
        ids = self.mgr.ids(metadata.request_ids).to(torch.int64)  # negative: block ids
        return v_all, dense, ids
