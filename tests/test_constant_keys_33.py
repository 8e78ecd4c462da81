"""Round 33 (family_recall_29, helper H): constant keys and handed-in windows.
- an index bound once to an int literal is that literal wherever a literal index is read: a module constant
  (`KEY = 0`), a class attribute (`Planes.V`, `self.K` the instances never store), an IntEnum member
  (`KV.KEY`), a loop target over an enumeration class (`for kind in KV`): a plane of a [2, blocks, ...] cache
  is every block of it;
- `[start:]` whose start is handed in (a parameter, arithmetic of one) is a window, as `[-n:]` is; a literal
  start or one read off the object (`[self.start:]`) still covers (nearly) every slot.
Each positive has look-alikes beside it; the pruned analysis gives the whole file's findings."""

# ruff: noqa: E501
from __future__ import annotations

import pytest

from marked_cases import assert_marked_lines, assert_pruned_is_whole

CASES = {
    "intenum_member_index_vllm": """\
from enum import IntEnum

import torch


class Plane(IntEnum):
    K = 0
    V = 1


class EnumPlaneImpl:
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        k = kv_cache[Plane.K].to(query.dtype)  # positive: CL001 the whole key plane
        rows = kv_cache[Plane.V, attn_metadata.block_table].to(query.dtype)  # negative: blocks first
        s = layer._v_scale.to(torch.float32)  # negative: a scale
        return k, rows, s
""",
    "module_constant_index_vllm": """\
import torch

VALUE_PLANE = 1


class ConstPlaneImpl:
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        v = kv_cache[VALUE_PLANE].to(query.dtype)  # positive: CL001 the whole value plane
        q = query.to(torch.float32)  # negative: the query
        return v, q
""",
    "class_attribute_index_vllm": """\
import torch


class AttrPlaneImpl:
    KEY_SLOT = 0

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        k = kv_cache[AttrPlaneImpl.KEY_SLOT].to(query.dtype)  # positive: CL001 the whole key plane
        blocks = kv_cache[AttrPlaneImpl.KEY_SLOT][attn_metadata.block_table].to(query.dtype)  # negative: blocks first
        return k, blocks
""",
    "enum_dict_comprehension_vllm": """\
from enum import IntEnum

import torch


class Half(IntEnum):
    KEYS = 0
    VALUES = 1


class EnumDictImpl:
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        halves = {h: kv_cache[h] for h in Half}
        v = halves[Half.VALUES].float()  # positive: CL001 the whole value plane out of the dict
        few = halves[Half.KEYS][attn_metadata.block_table].float()  # negative: blocks first
        same = key.to(key.device)  # negative: a move
        return v, few, same
""",
    "handed_start_window_lmdeploy": """\
import torch


class ShadowSlot:
    def __init__(self, src: torch.Tensor, dtype: torch.dtype):
        self.src = src
        self.start = 0
        self.dst = torch.empty_like(src, dtype=dtype)  # negative: allocation

    def refill_from(self, first: int):
        self.dst[first:].copy_(self.src[first:].to(self.dst.dtype))  # negative: a window the caller chose

    def refill_after(self, first: int):
        self.dst[first + 1 :].copy_(self.src[first + 1 :].to(self.dst.dtype))  # negative: a window past a handed point

    def refill_all_but_one(self):
        self.dst[1:].copy_(self.src[1:].to(self.dst.dtype))  # positive: CL001 every block but the first

    def refill_own(self):
        self.dst[self.start :].copy_(self.src[self.start :].to(self.dst.dtype))  # positive: CL001 from the object's own start: every block


class ShadowRunner:
    def __init__(self, cache_engine):
        self.cache_engine = cache_engine
        self.slots = []

    def capture(self):
        for k_cache, v_cache in self.cache_engine.gpu_cache:
            self.slots.append(ShadowSlot(k_cache, torch.float16))
""",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_marked_lines(tmp_path, name):
    assert_marked_lines(tmp_path, name, CASES[name])


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("filler", [False, True])
def test_pruned_is_whole(tmp_path, name, filler):
    assert_pruned_is_whole(tmp_path, name, CASES[name], filler)
