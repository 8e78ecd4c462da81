"""Issue 19, round 9, call indirection (f4), in sglang, vLLM, lmdeploy and TRT-LLM styles, in shapes other
than family_recall_7's: attribute and method names folded from constants (a loop over a tuple of names in an
f-string, a concatenation bound to a name), `d.get(k, default)` whose default is a bound accessor,
`types.MethodType` binding a module function as a method, `functools.reduce(getattr, ...)` reaching a bound
accessor, an unbound Tensor method picked from a table by a computed key, a callable object whose `__call__`
converts and is only ever given the whole cache, and CL002 plans through a lambda's `*args`, a ternary or
walrus dtype and `**dict(zip(names, dtypes))`. Each positive has look-alikes beside it (gathers, batch
tensors, the cache dtype); the pruned analysis gives the whole file's findings."""

from __future__ import annotations

import pytest

from castlint.tables import load_tables
from marked_cases import FILLER
from marked_cases import check as _check

TABLES = load_tables()

CASES = {
    "folded_names_sglang": """\
import torch


class FoldedNamesBackend:
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.dtype = model_runner.dtype

    def forward_decode(self, q, k, v, layer, forward_batch):
        planes = []
        for side in ("k", "v"):
            whole = getattr(self.token_to_kv_pool, f"{side}_buffer")[layer.layer_id]
            planes.append(whole.to(self.dtype))  # positive: CL001
        loc = forward_batch.out_cache_loc
        for side in ("k", "v"):
            rows = getattr(self.token_to_kv_pool, side + "_buffer")[layer.layer_id][loc]
            planes.append(rows.to(self.dtype))  # negative: rows
        lens = getattr(forward_batch, f"{'seq'}_lens").to(torch.int64)  # negative: lengths
        new_k = self.token_to_kv_pool.get_key_buffer(layer.layer_id)[loc].to(self.dtype)  # negative: rows
        return planes, lens, new_k
""",
    "folded_method_name_trtllm": """\
import torch


class PoolManager:
    def __init__(self, num_layers, blocks, tpb, heads, dim, dtype):
        self.pools = [torch.empty((blocks, 2, tpb, heads, dim), dtype=dtype, device="cuda") for _ in range(num_layers)]

    def get_buffers(self, layer_idx):
        return self.pools[layer_idx]


class NamedCallAttention:
    def __init__(self, layer_idx, mgr: PoolManager):
        self.layer_idx = layer_idx
        self.mgr = mgr

    def forward(self, q, metadata):
        which = "get_" "buffers"
        whole = getattr(self.mgr, which)(self.layer_idx).to(q.dtype)  # positive: CL001
        moved = getattr(self.mgr, which)(self.layer_idx).to("cuda")  # negative: a device move
        blocks = getattr(self.mgr, which)(self.layer_idx)[metadata.block_ids].to(q.dtype)  # negative: blocks
        return whole, moved, blocks
""",
    "get_default_accessor_vllm": """\
import torch


class DefaultReaderImpl:
    def __init__(self, model_runner):
        pool = model_runner.token_to_kv_pool
        self.pool = pool
        self.readers = {"rows": lambda lid, loc: pool.get_key_buffer(lid)[loc]}
        self.fallback = pool.get_value_buffer
        self.rows_fallback = lambda lid: pool.get_value_buffer(lid)[:16]

    def forward_decode(self, q, k, v, layer, forward_batch):
        vv = self.readers.get("whole", self.fallback)(layer.layer_id).to(q.dtype)  # positive: CL001
        head = self.readers.get("head", self.rows_fallback)(layer.layer_id).to(q.dtype)  # negative: 16 slots
        pos = forward_batch.positions.to(torch.int64)  # negative: positions
        return vv, head, pos
""",
    "methodtype_bound_lmdeploy": """\
from types import MethodType

import torch


def _whole_keys(self, layer_idx):
    return self.token_to_kv_pool.get_key_buffer(layer_idx)


def _step_keys(self, layer_idx, loc):
    return self.token_to_kv_pool.get_key_buffer(layer_idx).index_select(0, loc)


class MethodTypeBackend:
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.keys = MethodType(_whole_keys, self)
        self.step_keys = MethodType(_step_keys, self)

    def forward_decode(self, q, k, v, layer, forward_batch):
        whole = self.keys(layer.layer_id).float()  # positive: CL001
        rows = self.step_keys(layer.layer_id, forward_batch.out_cache_loc).float()  # negative: gathered
        fresh = MethodType(_whole_keys, self)(layer.layer_id).half()  # positive: CL001
        return whole, rows, fresh
""",
    "reduce_bound_accessor_sglang": """\
import functools

import torch


class ReduceReaderBackend:
    def __init__(self, model_runner):
        self.runner = model_runner
        self.dtype = model_runner.dtype

    def forward_extend(self, q, k, v, layer, forward_batch):
        read_v = functools.reduce(getattr, ("runner", "token_to_kv_pool", "get_value_buffer"), self)
        whole = read_v(layer.layer_id).to(self.dtype)  # positive: CL001
        rows = read_v(layer.layer_id)[forward_batch.out_cache_loc].to(self.dtype)  # negative: the step's rows
        pos = functools.reduce(getattr, ("positions",), forward_batch).to(torch.int64)  # negative: positions
        return whole, rows, pos
""",
    "unbound_cast_table_sglang": """\
import torch

_WIDEN = {"bf16": torch.Tensor.bfloat16, "fp32": torch.Tensor.float}


class TableCastBackend:
    def __init__(self, model_runner, mode="bf16"):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.widen = _WIDEN[mode]

    def forward_decode(self, q, k, v, layer, forward_batch):
        keys = self.widen(self.token_to_kv_pool.get_key_buffer(layer.layer_id))  # positive: CL001
        query = self.widen(q)  # negative: the batch query
        loc = forward_batch.out_cache_loc
        rows = self.widen(self.token_to_kv_pool.get_key_buffer(layer.layer_id)[loc])  # negative: rows
        return keys, query, rows
""",
    "callable_converter_vllm": """\
import torch


class Densify:
    def __init__(self, dtype):
        self.dtype = dtype

    def __call__(self, cache):
        return cache.to(self.dtype)  # positive: CL001


class QueryCast:
    def __init__(self, dtype):
        self.dtype = dtype

    def __call__(self, x):
        return x.to(self.dtype)  # negative: only ever given the query


class DensifyImpl:
    def __init__(self, num_heads, head_size):
        self.densify = Densify(torch.bfloat16)
        self.qcast = QueryCast(torch.bfloat16)
        self.num_heads = num_heads

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        dense = self.densify(kv_cache)
        q = self.qcast(query)
        lens = attn_metadata.seq_lens.to(torch.int32)  # negative: lengths
        return dense, q, lens
""",
    "callable_converter_mixed_lmdeploy": """\
import torch


class Widen:
    def __init__(self, dtype):
        self.dtype = dtype

    def __call__(self, t):
        return t.to(self.dtype)  # negative: given the batch query as well


class WidenAttention:
    def __init__(self, dtype):
        self.widen = Widen(dtype)

    def forward(self, query, key, value, past_key_value, attn_metadata):
        k_cache, v_cache = past_key_value
        keys = self.widen(k_cache)  # positive: CL001
        q = self.widen(query)  # negative: the batch query
        return keys, q
""",
    "plan_lambda_star_sglang": """\
from flashinfer.mla import BatchMLAPagedAttentionWrapper


class LambdaPlanBackend:
    def __init__(self, model_runner, workspace):
        self.data_type = model_runner.dtype
        self.q_data_type = model_runner.dtype
        self.kv_cache_dtype = model_runner.kv_cache_dtype
        self.decode_wrapper = BatchMLAPagedAttentionWrapper(workspace, backend="fa2")
        self.draft_wrapper = BatchMLAPagedAttentionWrapper(workspace, backend="fa2")
        self._plan_same = lambda w, *rest: w.plan(*rest, self.q_data_type, self.data_type)  # positive: CL002
        self._plan_native = lambda w, *a: w.plan(*a, self.q_data_type, self.kv_cache_dtype)  # negative: cache dtype

    def init_forward_metadata(self, fb):
        qo, kv_indptr, kv_indices, kv_lens = fb.mla_indices
        self._plan_same(self.decode_wrapper, qo, kv_indptr, kv_indices, kv_lens, 16, 512, 64, 1, False, 0.1)
        self._plan_native(self.draft_wrapper, qo, kv_indptr, kv_indices, kv_lens, 16, 512, 64, 1, False, 0.1)
""",
    "plan_ternary_walrus_sglang": """\
from flashinfer.mla import BatchMLAPagedAttentionWrapper


class TernaryPlanBackend:
    def __init__(self, model_runner, workspace):
        self.data_type = model_runner.dtype
        self.q_data_type = model_runner.dtype
        self.kv_cache_dtype = model_runner.kv_cache_dtype
        self.wrapper = BatchMLAPagedAttentionWrapper(workspace, backend="fa2")
        self.other = BatchMLAPagedAttentionWrapper(workspace, backend="fa2")

    def init_forward_metadata(self, fb):
        qo, ip, ix, ln = fb.mla_indices
        same = self.data_type if fb.forward_mode.is_decode() else self.q_data_type
        native = self.kv_cache_dtype if fb.forward_mode.is_decode() else self.data_type
        self.wrapper.plan(qo, ip, ix, ln, 16, 512, 64, 1, False, 0.1, self.q_data_type, same)  # positive: CL002
        self.other.plan(qo, ip, ix, ln, 16, 512, 64, 1, False, 0.1, self.q_data_type, native)  # negative: one
        self.wrapper.plan(qo, ip, ix, ln, 16, 512, 64, 1, False, 0.1, (d := self.q_data_type), d)  # positive: CL002
        self.other.plan(qo, ip, ix, ln, 16, 512, 64, 1, False, 0.1, (e := d), self.kv_cache_dtype)  # negative: cache
""",
    "plan_zip_kwargs_trtllm": """\
from flashinfer.mla import BatchMLAPagedAttentionWrapper

_KEYS = ["q_data_type", "kv_data_type"]


class ZipPlanner:
    def __init__(self, model_runner, workspace):
        self.data_type = model_runner.dtype
        self.kv_cache_dtype = model_runner.kv_cache_dtype
        self.wrapper = BatchMLAPagedAttentionWrapper(workspace, backend="fa2")

    def prepare(self, fb):
        geo = (fb.qo_indptr, fb.kv_indptr, fb.kv_indices, fb.kv_lens, 16, 512, 64, 1, False, 0.1)
        same = dict(zip(_KEYS, [self.data_type, self.data_type]))
        self.wrapper.plan(*geo, **same)  # positive: CL002
        mixed = dict(zip(_KEYS, [self.data_type, self.kv_cache_dtype]))
        self.wrapper.plan(*geo, **mixed)  # negative: kv dtype is the cache dtype
""",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_marked_lines(tmp_path, name):
    path = tmp_path / f"{name}.py"
    path.write_text(CASES[name])
    lines = CASES[name].splitlines()
    found = {(code, line) for code, line, _ in _check(path, False)}
    positives = {
        (text.split("# positive: ")[1].split()[0], i) for i, text in enumerate(lines, 1) if "# positive" in text
    }
    negatives = {i for i, text in enumerate(lines, 1) if "# negative" in text}
    assert positives and negatives
    assert positives - found == set()
    assert {line for _, line in found} & negatives == set()


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("filler", [False, True], ids=["as-is", "with-filler"])
def test_pruned_is_whole(tmp_path, name, filler):
    path = tmp_path / f"{name}.py"
    path.write_text(CASES[name] + (FILLER if filler else ""))
    assert _check(path, True) == _check(path, False)
