"""Round 36: constant indices a module unpacks from `range(...)`, and lists an instance grows with `+=`.

`_IDX, _BUF, _SCALE = range(3)` (or `range(start, stop)`) binds each name to its int as `_BUF = 1` would
(ModuleAnalysis.constant_indices, index_position; the pruner's CONSTANT_INDEX aliases), so `rec[_BUF]` of a
tuple record is the record's field 1 and `kv_cache[_KEY]` a whole plane. `self.records += [...]` (a display or
list comprehension) adds what the list holds, as `.extend` does.
"""

# ruff: noqa: E501
from __future__ import annotations

import pytest

from marked_cases import assert_marked_lines, assert_pruned_is_whole

CASES = {
    "trtllm_records_grown": """\
import torch

_LAYER, _POOL, _SCALE = range(3)


class DraftLayerRecords:
    def __init__(self, kv_cache_manager, num_layers):
        self.entries = []
        self.entries += [(i, kv_cache_manager.get_buffers(i), kv_cache_manager.kv_scale(i)) for i in range(num_layers)]

    def stage(self, attn_metadata, dtype: torch.dtype):
        staged = []
        for entry in self.entries:
            staged.append(entry[_POOL].to(dtype))  # positive: CL001 the layer's whole pool, field read by an unpacked constant
            picked = entry[_POOL][attn_metadata.block_ids].to(dtype)  # negative: the batch's blocks
            scale = entry[_SCALE].to(torch.float32)  # negative: the scale field
        return staged, picked, scale, [entry[_LAYER] for entry in self.entries]
""",
    "vllm_planes_range": """\
import torch

_KEY, _VALUE = range(2)


class FallbackImpl:
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        k_all = kv_cache[_KEY].to(query.dtype)  # positive: CL001 every key block of the layer
        v_rows = kv_cache[_VALUE][attn_metadata.block_table].to(query.dtype)  # negative: the batch's blocks
        k_scale = layer._k_scale.to(torch.float32)  # negative: a scale
        moved = kv_cache[_VALUE].to("cuda")  # negative: a device move
        return self._run(query, k_all, v_rows, k_scale, moved, output)
""",
    "sglang_entries_offset_range": """\
import torch

_K, _V, _SCALE = range(1, 4)


class SlotEntries:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.model_dtype = model_runner.dtype

    def entries(self):
        return [(i, self.pool.get_key_buffer(i), self.pool.get_value_buffer(i), self.pool.k_scale) for i in range(self.pool.layer_num)]

    def forward_decode(self, q, forward_batch):
        out = []
        for entry in self.entries():
            v_all = entry[_V].to(self.model_dtype)  # positive: CL001 a whole value buffer, read by an offset range constant
            k_rows = entry[_K][forward_batch.out_cache_loc].to(self.model_dtype)  # negative: the batch's rows
            scale = entry[_SCALE].to(torch.float32)  # negative: the scale field
            out.append((v_all, k_rows, scale))
        return out, q.to(self.model_dtype)  # negative: the query
""",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_marked_lines(tmp_path, name):
    assert_marked_lines(tmp_path, name, CASES[name])


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("filler", [False, True], ids=["as-is", "with-filler"])
def test_pruned_is_whole(tmp_path, name, filler):
    assert_pruned_is_whole(tmp_path, name, CASES[name], filler)
