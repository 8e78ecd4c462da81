"""A NamedTuple of planes walked with `for f in rec._fields: getattr(rec, f)`."""
from typing import NamedTuple

import torch


class Planes(NamedTuple):
    key: torch.Tensor
    value: torch.Tensor


class StepInfo(NamedTuple):
    slot_mapping: torch.Tensor
    seq_lens: torch.Tensor


class FieldsImpl:
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        rec = Planes(*kv_cache.unbind(0))
        dense = {}
        for f in rec._fields:
            dense[f] = getattr(rec, f).to(query.dtype)  # positive: f3 CL001 each whole plane of kv_cache via _fields/getattr
        info = StepInfo(attn_metadata.slot_mapping, attn_metadata.seq_lens)
        for f in info._fields:
            dense[f] = getattr(info, f).to(torch.int64)  # negative: slot mapping and lengths
        first = getattr(rec, Planes._fields[0]).float()  # positive: f3 CL001 key plane named by _fields[0]
        return dense, first
