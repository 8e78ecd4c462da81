"""Round 36 (issue 19), in sglang, vLLM, lmdeploy and TensorRT-LLM styles other than the blind corpora's:
a fold that gives every step (`itertools.accumulate(fns, lambda acc, f: f(acc), initial=buf)`, its
arguments in another order than `functools.reduce`'s, read through the same code with that order as data:
rules/accessors.toml [fold_arguments], [callables] step_fold_functions). Its steps are the initial value
and each function's result on the one before; a cast among the functions converts what the fold hands it.

Each positive has look-alikes beside it (blocks or rows gathered first, a scale, the query, a device move,
a prefix sum of lengths); pruned and whole analysis agree."""

# ruff: noqa: E501
from __future__ import annotations

import pytest

from marked_cases import assert_marked_lines, assert_pruned_is_whole

CASES = {
    "accumulate_last_step_sglang": """\
import itertools

import torch


def _flat(buf):
    return buf.flatten(0, 1)


def _up(buf):
    return buf.to(torch.bfloat16)  # positive: CL001 the whole layer's keys, the fold's last step


class AscendDecodeBackend:
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        keys = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)
        *_, dense = itertools.accumulate((_flat, _up), lambda acc, f: f(acc), initial=keys)
        rows = keys[forward_batch.out_cache_loc].to(torch.bfloat16)  # negative: rows of the batch
        offsets = list(itertools.accumulate(forward_batch.seq_lens_cpu.tolist(), initial=0))  # negative: a prefix sum
        return dense, rows, offsets
""",
    "accumulate_keyword_func_vllm": """\
from itertools import accumulate

import torch


def _contig(cache):
    return cache.contiguous()


def _widen(cache):
    return cache.float()  # positive: CL001 both planes of every block, the fold's last step


class XPUStagedImpl:
    stages = [_contig, _widen]

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        steps = list(accumulate(self.stages, func=lambda acc, stage: stage(acc), initial=kv_cache))
        whole = steps[-1]
        blocks = kv_cache[:, attn_metadata.block_tables[0]].float()  # negative: blocks of one request
        s = layer._k_scale.float()  # negative: a scale
        q = query.to("cpu")  # negative: a device move
        return whole, blocks, s, q
""",
    "accumulate_planes_lmdeploy": """\
import itertools

import torch


def _split(cache):
    return cache.unbind(0)


def _half_all(planes):
    return [p.half() for p in planes]  # positive: CL001 each whole plane of the cache, a step of the fold


def _half_rows(planes, offsets):
    return [p[offsets].half() for p in planes]  # negative: the batch's blocks


class CambPagedAttention:
    def forward(self, hidden_states, past_key_value, attn_metadata):
        k_cache, v_cache = past_key_value
        for planes in itertools.accumulate([_split, _half_all], lambda acc, f: f(acc), initial=k_cache):
            hidden_states = hidden_states + 0
        rows = _half_rows(v_cache.unbind(0), attn_metadata.block_offsets)
        return hidden_states, planes, rows
""",
    "accumulate_gather_after_trtllm": """\
import itertools

import torch


def _planes(buf):
    return buf.unbind(1)


def _keys(planes):
    return planes[0]


class VanillaGraphAttention:
    def __init__(self, layer_idx, kv_cache_manager):
        self.layer_idx = layer_idx
        self.mgr = kv_cache_manager

    def forward(self, q, attn_metadata):
        buf = self.mgr.get_buffers(self.layer_idx)
        *_, k = itertools.accumulate((_planes, _keys), lambda acc, f: f(acc), initial=buf)
        k16 = k[attn_metadata.block_ids].to(torch.float16)  # negative: the batch's blocks, gathered after the fold
        whole = k.to(torch.float16)  # positive: CL001 the whole key plane of the layer, the fold's last step
        qf = q.to(torch.float32)  # negative: the query
        return k16, whole, qf
""",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_marked_lines(tmp_path, name):
    assert_marked_lines(tmp_path, name, CASES[name])


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("filler", [False, True], ids=["as-is", "with-filler"])
def test_pruned_is_whole(tmp_path, name, filler):
    assert_pruned_is_whole(tmp_path, name, CASES[name], filler)
