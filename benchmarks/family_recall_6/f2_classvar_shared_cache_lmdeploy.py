"""A ClassVar holds the bound caches for all instances; instances read them in forward."""
from typing import ClassVar, List, Tuple

import torch


class PagedAttentionBase(torch.nn.Module):
    _shared_caches: ClassVar[List[Tuple[torch.Tensor, torch.Tensor]]] = []
    _shared_state: ClassVar[List[torch.Tensor]] = []

    @classmethod
    def bind(cls, gpu_cache, state_cache):
        cls._shared_caches = list(gpu_cache)
        cls._shared_state = list(state_cache)

    def __init__(self, layer_idx):
        super().__init__()
        self.layer_idx = layer_idx


class DequantAttention(PagedAttentionBase):
    def forward(self, query, attn_metadata):
        k_cache, v_cache = self._shared_caches[self.layer_idx]
        kf = k_cache.to(query.dtype)  # positive: f2 CL001 whole key cache held in the class variable
        vf = type(self)._shared_caches[self.layer_idx][1].float()  # positive: f2 CL001 whole value cache via type(self)
        ids = attn_metadata.block_offsets.to(torch.int64)  # negative: block table
        return kf, vf


class SSMStateReader(PagedAttentionBase):
    def forward(self, query, attn_metadata):
        state = self._shared_state[self.layer_idx][attn_metadata.state_ids]
        s = state.float()  # negative: per-request SSM state rows
        conv = PagedAttentionBase._shared_state[self.layer_idx].view(torch.uint8)  # negative: reinterpret
        return s, conv
