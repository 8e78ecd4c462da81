"""Subclass views marked with typing_extensions.override: one permutes super()'s buffer, one gathers."""
import torch
from typing_extensions import override


class ManagerView:
    def __init__(self, manager):
        self.manager = manager

    def layer(self, idx):
        return self.manager.get_buffers(idx)


class HNDView(ManagerView):
    @override
    def layer(self, idx):
        return super().layer(idx).permute(0, 1, 3, 2, 4)


class SeqView(ManagerView):
    def __init__(self, manager, request_ids):
        super().__init__(manager)
        self.request_ids = request_ids

    @override
    def layer(self, idx):
        return super().layer(idx)[self.manager.get_batch_cache_indices(self.request_ids)[0]]


class OverrideAttention:
    def __init__(self, layer_idx):
        self.layer_idx = layer_idx

    def forward(self, q, k, v, metadata):
        hnd = HNDView(metadata.kv_cache_manager).layer(self.layer_idx).to(q.dtype)  # positive: f2 CL001 permuted whole buffer from an @override
        seq = SeqView(metadata.kv_cache_manager, metadata.request_ids).layer(self.layer_idx).to(q.dtype)  # negative: blocks of the step's sequence
        k_plane = ManagerView(metadata.kv_cache_manager).layer(self.layer_idx)[:, 0].float()  # positive: f2 CL001 K half of the base view's buffer
        return hnd, seq, k_plane
