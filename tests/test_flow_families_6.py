"""Issue 19, round 6 (families f3, f4, f5, f6), in sglang, vLLM, lmdeploy and TRT-LLM styles: iteration
that keeps elements (`itertools.chain`, `chain.from_iterable`, `islice`, `filter`, `takewhile`; rules/
accessors.toml [iteration], [containers] keep_elements), starred self-attribute targets, merged mappings
(`ChainMap`, `dict(a, **b)`, `a | b`), a record's fields read by iterated name (`getattr(rec, f.name)` of
`dataclasses.fields(rec)`, `_fields`, `vars()`; [records] field_*), `operator.getitem` and
`reduce(getitem, ...)` ([callables] subscript_functions), a plan's argument list grown in its block
(`args.extend([dt, dt]); w.plan(*args)`), whole copies (`clone`, `cpu`, `.data`; [views] whole_copy_*),
an index read by structure from a table the file builds (`self.slot[layer_id][1]`), and a TRT-LLM
dict of unbound manager buffers. Each shape has look-alikes beside it (per-request metadata, gathers,
index tensors, the pool's own dtype); the pruned analysis gives the whole file's findings."""

from __future__ import annotations

import pytest

from castlint.tables import load_tables
from marked_cases import FILLER
from marked_cases import check as _check

TABLES = load_tables()

CASES = {
    "itertools_iteration_vllm": """
import itertools
from itertools import islice as window, takewhile

import torch


class MirrorConnector:
    def __init__(self, runner):
        self.k_caches = [c.unbind(0)[0] for c in runner.kv_caches]
        self.v_caches = [c.unbind(0)[1] for c in runner.kv_caches]
        self.req_lens = [torch.zeros(8, dtype=torch.int32) for _ in range(4)]

    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        out = []
        for plane in itertools.chain(self.k_caches, self.v_caches):
            out.append(plane.to(torch.bfloat16))  # positive: every K and V plane of every layer
        for c in window(self.k_caches, 2, 4):
            out.append(c.half())  # positive: islice under an import alias keeps the layers
        for c in filter(lambda t: t is not None, self.v_caches):
            out.append(c.float())  # positive: filter keeps some layers, each whole
        for c in takewhile(lambda t: t.numel() > 0, self.k_caches):
            out.append(c.float())  # positive: takewhile over the layers
        for n in itertools.chain(self.req_lens):
            out.append(n.to(torch.int64))  # negative: per-request lengths
        for n in filter(None, self.req_lens):
            out.append(n.long())  # negative: per-request lengths through filter
        for c in window(self.k_caches, 0, 1):
            out.append(c[:, attn_metadata.block_ids].float())  # negative: gather-then-cast
        return out
""",
    "flatten_pairs_sglang": """
from itertools import chain

import torch


class FlatBackend:
    def __init__(self, model_runner):
        pool = model_runner.token_to_kv_pool
        self.pairs = [(pool.get_key_buffer(i), pool.get_value_buffer(i)) for i in range(pool.layer_num)]
        self.locs = [[torch.zeros(16, dtype=torch.int64)] for _ in range(3)]
        self.dtype = model_runner.dtype

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        wide = [t.to(self.dtype) for t in chain.from_iterable(self.pairs)]  # positive: every K and V arena
        idx = [t.to(torch.int32) for t in chain.from_iterable(self.locs)]  # negative: index tensors
        return wide, idx
""",
    "starred_attributes_lmdeploy": """
import torch


class StarImpl:
    def __init__(self, cache_engine):
        self.first_k, *self.middle_k, self.last_k = [kv[0] for kv in cache_engine.gpu_cache]
        self.lens_first, *self.lens_rest = [torch.zeros(4, dtype=torch.int32) for _ in range(3)]

    def forward(self, query, key, value, attn_metadata):
        a = self.first_k.to(query.dtype)  # positive: the first layer's whole K cache
        b = self.middle_k[attn_metadata.layer_idx - 1].half()  # positive: a middle layer's K cache
        c = self.last_k.float()  # positive: the last layer's K cache
        d = self.lens_first.long()  # negative: per-request lengths
        e = self.lens_rest[0].long()  # negative: per-request lengths
        f = self.middle_k[0][attn_metadata.block_offsets].float()  # negative: gather-then-cast
        return a, b, c, d, e, f
""",
    "merged_mappings_sglang": """
import torch


class MergedBackend:
    def __init__(self, model_runner, full_ids, swa_ids):
        pool = model_runner.token_to_kv_pool
        full = {i: pool.get_key_buffer(i) for i in full_ids}
        swa = {i: pool.get_value_buffer(i) for i in swa_ids}
        self.by_id = dict(full, **{"extra": pool.get_key_buffer(0)})
        self.union = full | swa
        meta = {i: torch.zeros(8, dtype=torch.int32) for i in full_ids}
        self.meta = dict(meta) | {"pad": torch.zeros(1, dtype=torch.int32)}
        self.dtype = model_runner.dtype

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        a = self.by_id[layer.layer_id].to(self.dtype)  # positive: dict(base, **extra) keeps the arenas
        b = self.union[layer.layer_id].float()  # positive: a | b of dicts of arenas
        c = self.meta[layer.layer_id].long()  # negative: per-layer metadata
        d = self.union[layer.layer_id][forward_batch.out_cache_loc].float()  # negative: gather-then-cast
        return a, b, c, d
""",
    "record_fields_by_name_trtllm": """
import dataclasses
from typing import NamedTuple

import attr
import torch


@dataclasses.dataclass
class Planes:
    key: torch.Tensor
    value: torch.Tensor


class Lens(NamedTuple):
    seq: torch.Tensor
    ctx: torch.Tensor


@attr.s
class Slots:
    kv = attr.ib()


class FieldsAttention:
    def __init__(self, kv_cache_manager, layer_idx):
        buf = kv_cache_manager.get_buffers(layer_idx)
        self.planes = Planes(buf[:, 0], buf[:, 1])
        self.slots = Slots(buf)

    def forward(self, q, k, v, metadata, **kwargs):
        out = []
        for f in dataclasses.fields(self.planes):
            out.append(getattr(self.planes, f.name).to(q.dtype))  # positive: every plane, by field name
        for name in vars(self.slots):
            out.append(getattr(self.slots, name).float())  # positive: the manager buffer, by vars() key
        lens = Lens(metadata.seq_lens, metadata.ctx_lens)
        for name in Lens._fields:
            out.append(getattr(lens, name).long())  # negative: per-request lengths
        for f in dataclasses.fields(self.planes):
            out.append(getattr(self.planes, f.name)[metadata.block_ids].float())  # negative: gathered blocks
        return out
""",
    "operator_getitem_sglang": """
import functools
import operator
from operator import getitem as pick

import torch


class PickBackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.dtype = model_runner.dtype

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kb = pick(self.pool.k_buffer, layer.layer_id)
        a = kb.to(self.dtype)  # positive: getitem under an import alias selects the layer
        vb = functools.reduce(operator.getitem, (layer.layer_id,), self.pool.v_buffer)
        b = vb.float()  # positive: reduce(getitem, ...) selects the layer
        c = pick(kb, forward_batch.out_cache_loc).to(self.dtype)  # negative: the step's rows
        d = operator.getitem(forward_batch.seq_lens, 0).long()  # negative: a batch length
        return a, b, c, d
""",
    "grown_plan_arguments_sglang": """
import torch
from flashinfer.mla import BatchMLAPagedAttentionWrapper


class GrownPlanBackend:
    def __init__(self, model_runner, workspace):
        self.dtype = model_runner.dtype
        self.kv_cache_dtype = model_runner.kv_cache_dtype
        self.wrapper = BatchMLAPagedAttentionWrapper(workspace, backend="fa2")
        self.heads = model_runner.model_config.num_attention_heads
        self.scale = model_runner.model_config.scaling

    def _indptrs(self, m):
        out = [m.qo_indptr]
        out.append(m.kv_indptr)
        out += [m.kv_indices, m.kv_lens]
        return out

    def init_forward_metadata(self, forward_batch):
        args = self._indptrs(forward_batch.meta)
        args += [self.heads, 512, 64, 1, False, self.scale]
        args.append(self.dtype)
        args.append(self.dtype)
        self.wrapper.plan(*args)  # positive: kv planned in the model dtype

    def init_forward_metadata_native(self, forward_batch):
        args = self._indptrs(forward_batch.meta)
        args.extend([self.heads, 512, 64, 1, False, self.scale])
        args.extend([self.dtype, self.kv_cache_dtype])
        self.wrapper.plan(*args)  # negative: kv planned in the pool's dtype

    def init_forward_metadata_inserted(self, forward_batch):
        args = [self.heads, 512, 64, 1, False, self.scale, self.dtype, self.kv_cache_dtype]
        for part in reversed(self._indptrs(forward_batch.meta)):
            args.insert(0, part)
        self.wrapper.plan(*args)  # negative: kv planned in the pool's dtype
""",
    "whole_copies_vllm": """
import torch


class CopyImpl:
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output):
        host = kv_cache.cpu().float()  # positive: a host copy of the whole cache, converted
        raw = kv_cache.data.to(query.dtype)  # positive: .data is the whole cache
        pinned = kv_cache.pin_memory()
        p16 = pinned.half()  # positive: the pinned copy holds every block
        g = kv_cache.cpu().to(query.dtype)[:, attn_metadata.block_table]  # positive: cast, then block gather
        rows = kv_cache[:, attn_metadata.block_table].clone().float()  # negative: gather-then-cast
        q32 = query.clone().float()  # negative: the batch query
        same = kv_cache.clone().to(kv_cache.dtype)  # negative: to its own dtype
        torch.ops._C.ref_attn(output, query, host, raw, p16, g, rows, q32, same)
        return output
""",
    "structured_index_accessor_sglang": """
import torch


class PlanePool:
    def __init__(self, size, ids, head_num, head_dim, dtype, device):
        self.where = {lid: ("main", i) for i, lid in enumerate(ids)}
        self.picks = {lid: ("rows", torch.arange(8)) for lid in ids}
        self.planes = [torch.zeros(size + 1, head_num, head_dim, dtype=dtype, device=device) for _ in ids]

    def plane_fp32(self, layer_id):
        return self.planes[self.where[layer_id][1]].float()  # positive: the accessor converts the whole plane

    def picked_fp32(self, layer_id):
        return self.planes[0][self.picks[layer_id][1]].float()  # negative: rows of an index tensor


class PlaneBackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        p = self.pool.plane_fp32(layer.layer_id)
        r = self.pool.picked_fp32(layer.layer_id)
        return torch.ops.sgl_kernel.decode(q, p, r)
""",
    "unbound_manager_dict_trtllm": """
import torch


class UnbindAttention:
    def __init__(self, kv_cache_manager, layers):
        mgr = kv_cache_manager
        self.bufs = {i: mgr.get_buffers(i).unbind(1) for i in layers}
        self.halves = {i: torch.chunk(mgr.get_buffers(i), 2, dim=1) for i in layers}
        self.offsets = {i: torch.zeros(4, dtype=torch.int32).unbind(0) for i in layers}

    def forward(self, q, k, v, metadata, **kwargs):
        kc, vc = self.bufs[metadata.layer_idx]
        kd = kc.to(q.dtype)  # positive: the K plane of every block of the layer
        vd = vc[metadata.block_ids].to(q.dtype)  # negative: gather-then-cast
        kh, _ = self.halves[metadata.layer_idx]
        k16 = kh.half()  # positive: chunk keeps every block
        o0, o1 = self.offsets[metadata.layer_idx]
        o = o0.long()  # negative: offsets
        return kd, vd, k16, o
""",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_marked_lines(tmp_path, name):
    path = tmp_path / f"{name}.py"
    path.write_text(CASES[name])
    lines = CASES[name].splitlines()
    found = {line for _, line, _ in _check(path, False)}
    positives = {i for i, text in enumerate(lines, 1) if "# positive" in text}
    negatives = {i for i, text in enumerate(lines, 1) if "# negative" in text}
    assert positives and negatives
    assert positives - found == set()
    assert found & negatives == set()


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("filler", [False, True], ids=["as-is", "with-filler"])
def test_pruned_is_whole(tmp_path, name, filler):
    path = tmp_path / f"{name}.py"
    path.write_text(CASES[name] + (FILLER if filler else ""))
    assert _check(path, True) == _check(path, False)
