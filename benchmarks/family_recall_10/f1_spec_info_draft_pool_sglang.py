"""The draft pool carried on forward_batch.spec_info and read by the draft-extend path."""
from dataclasses import dataclass, field
from typing import Any

import torch


@dataclass
class DraftSpecInfo:
    draft_pool: Any = None
    draft_token: torch.Tensor = field(default_factory=lambda: torch.zeros(4, dtype=torch.int64))
    accept_length: torch.Tensor = field(default_factory=lambda: torch.zeros(4, dtype=torch.int32))


class DraftExtendBackend:
    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        info: DraftSpecInfo = forward_batch.spec_info
        if forward_batch.forward_mode.is_draft_extend():
            pool = info.draft_pool
            lat = pool.get_key_buffer(layer.layer_id).to(q.dtype)  # positive: f1 CL001 draft pool from spec_info
            acc = info.accept_length.to(torch.int64)  # negative: accept lengths
            return lat, acc
        tok = info.draft_token.to(torch.int32)  # negative: draft tokens
        return forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)[:tok.numel()], tok  # negative: no conversion
