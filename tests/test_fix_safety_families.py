"""Issue 19, item 3: a fix is safe only when it is proven to behave like its input - for every fixer.

The rule, in each proof: any call (or store, `with`, `del`, `await`/`yield`, property read) not
proven read-only by rules/casts.toml [cast_motion] may write what the fix reads earlier or later
than the original did; a parameter may be the pool itself; every value that reaches a rewritten
consumer must be accounted for. Per fixer and hazard family, a case that the proof before this
change passed as safe:

* it is now refused or unsafe, with a reason naming the line;
* a mutation test: the proof with that check switched off (monkeypatched back to the weaker rule)
  passes it again - so the check is what catches it;
* the fix applied anyway changes behaviour (fake torch, fake paged kernels, CPU torch): the
  hazard is real;
* beside it, read-only look-alikes stay safe, and fixed they behave like the input.
"""

from __future__ import annotations

import importlib.util
import sys
import textwrap
import types
from pathlib import Path

import libcst as cst
import pytest

from castlint.analysis import (
    cast_motion,
    mla_sites,
    paged_reads,
    row_reads,
)
from castlint.checks.cast_before_gather import CastBeforeGather
from castlint.checks.whole_pool_conversion_helper import rows_getter_proof as row_getters
from castlint.config import Config
from castlint.engine import module_context
from castlint.fixes import FixOptions, fix_source
from castlint.models import FixSafety
from castlint.tables import load_tables
from conftest import FIXTURES
from faketorch.harness import Env, differences, execute, same_behaviour
from faketorch.paged import drive as drive_paged

TABLES = load_tables()
FIX = FIXTURES / "fix"


def fix(source, unsafe=False, path="backend.py"):
    source = source if isinstance(source, bytes) else source.encode()
    return fix_source(source, path, TABLES, FixOptions(unsafe=unsafe))


def context(source: bytes, path="backend.py"):
    return module_context(cst.parse_module(source), path, TABLES, Config().cost_model(TABLES))


def skipped(result) -> str:
    return " | ".join(why for _, why in result.skipped)


# == CL003, cast after gather: aliases the proof cannot see ====================================

ALIASES = (FIX / "cast_after_gather_aliases.in.py").read_bytes()
# the method holding the CL003 site -> (the method the engine calls, the code the reason names)
ALIAS_HAZARDS = {
    "_attend_store": ("forward_param_store", "writes into `k_cache[forward_batch.out_cache_loc]`"),
    "_attend_copy": ("forward_param_copy", "calls `k_cache.index_copy_(...)`"),
    "_attend_view": ("forward_param_view", "calls `rope.zero_(...)`"),
    "_attend_direct": ("forward_param_direct", "calls `k_cache.fill_(...)`"),
    "forward_property": ("forward_property", "reads `self.stager.flushed`, a property"),
}
ALIAS_LOOKALIKES = ("_fresh_scratch", "forward_plain_attribute")


def cl003_by_method(source: bytes) -> dict:
    return {f.function.rsplit(".", 1)[-1]: f for f in CastBeforeGather().check(context(source))}


def _line_of(source: bytes, method: str, code: str) -> int:
    lines = source.decode().splitlines()
    start = next(i for i, line in enumerate(lines) if f"def {method}(" in line)
    needle = code.split("`")[1].split("(")[0]
    return next(i + 1 for i in range(start, len(lines)) if needle in lines[i] and ".to(torch.bfloat16)" not in lines[i])


@pytest.mark.parametrize("method", sorted(ALIAS_HAZARDS))
def test_cl003_alias_hazard_is_unsafe_naming_the_line(method):
    finding = cl003_by_method(ALIASES)[method]
    assert finding.fix is not None and finding.fix.safety is FixSafety.UNSAFE, finding.unfixable_reason
    text = " ".join(finding.fix.description.split())
    assert ALIAS_HAZARDS[method][1] in text, text
    assert f"line {_line_of(ALIASES, method, ALIAS_HAZARDS[method][1])} " in text, text


def _weaker_cl003(monkeypatch):
    """The proof before this change: a parameter is never the pool, a property read is a read."""
    real = cast_motion._distinct_name

    def params_distinct(analysis, name, depth):
        scope = analysis.scopes.get(name)
        nodes = [a.node for a in scope.assignments[name.value]] if scope is not None else []
        if nodes and all(isinstance(n if isinstance(n, cst.Param) else analysis.parent(n), cst.Param) for n in nodes):
            return True
        return real(analysis, name, depth)

    monkeypatch.setattr(cast_motion, "_distinct_name", params_distinct)
    monkeypatch.setattr(cast_motion, "_property_read", lambda analysis, node: None)


def test_cl003_a_weaker_proof_passes_every_alias_hazard(monkeypatch):
    _weaker_cl003(monkeypatch)
    found = cl003_by_method(ALIASES)
    assert {m: found[m].fix.safety for m in ALIAS_HAZARDS} == {m: FixSafety.SAFE for m in ALIAS_HAZARDS}


@pytest.mark.parametrize("method", sorted(ALIAS_HAZARDS))
def test_cl003_alias_hazard_changes_behaviour_when_applied(method):
    caller = ALIAS_HAZARDS[method][0]
    forced = fix(ALIASES, unsafe=True).new_source
    original = execute(ALIASES, Env(), "classes", only=caller)
    assert original.load_error is None and not original.raised, original.errors
    assert differences(original, execute(forced, Env(), "classes", only=caller)) == [f"ToyAliasBackend.{caller}"]


def test_cl003_alias_lookalikes_stay_safe_and_equal():
    found = cl003_by_method(ALIASES)
    assert all(found[m].fix.safety is FixSafety.SAFE for m in ALIAS_LOOKALIKES)
    result = fix(ALIASES)
    assert result.changed and len(result.skipped) == len(ALIAS_HAZARDS)
    original = execute(ALIASES, Env(), "classes")
    assert same_behaviour(original, execute(result.new_source, Env(), "classes")) is None


PROPERTY_SNIPPET = """import torch


class Stager:
    def __init__(self):
        self.pending = None

    @property
    def waiting(self):
        return {getter}


class Backend:
    def forward_decode(self, q, layer, forward_batch):
        latent = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id).to(torch.bfloat16)
        waiting = self.stager.waiting
        return latent[forward_batch.kv_indices], waiting
"""


@pytest.mark.parametrize(
    "getter, safety", [("self.pending is not None", FixSafety.SAFE), ("self.flush()", FixSafety.UNSAFE)]
)
def test_cl003_a_property_is_a_call_only_when_its_getter_may_write(getter, safety):
    (finding,) = cl003_by_method(PROPERTY_SNIPPET.format(getter=getter).encode()).values()
    assert finding.fix.safety is safety, finding.fix.description


# == the paged read (FA3/FA4, xpu, musa): the page table is read at the cast ===================

PAGED_HEAD = """import torch
from sglang.kernels.ops.attention.flash_attention import flash_attn_with_kvcache
from sglang.srt.mem_cache.layout.paged_view import paged_view


class PagedHazards:
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.page_size = model_runner.page_size
        self.forward_metadata = None
        self.expand_metadata = None

    def advance(self, metadata):
        metadata.page_table = self.expand_metadata.page_table
        metadata.cache_seqlens_int32 = self.expand_metadata.cache_seqlens_int32

    def prep(self, q):
        self.advance(self.forward_metadata)
        return q

    def forward_decode(self, q, q_rope, layer, forward_batch):
        metadata = self.forward_metadata
        kv = self.token_to_kv_pool.get_key_buffer(layer.layer_id).to(q.dtype)
"""
PAGED_KERNEL = """        return flash_attn_with_kvcache(
            q=q_rope,
            k_cache=paged_view(kv, self.page_size),
            v_cache=paged_view(kv, self.page_size),
            page_table=metadata.page_table,
            cache_seqlens=metadata.cache_seqlens_int32,
        )
"""
PAGED_LOOP = (
    "        outs = ()\n        for step in range(2):\n"
    + textwrap.indent(PAGED_KERNEL.replace("return ", "o = "), "    ")
    + "            outs = outs + (o,)\n            self.advance(metadata)\n        return outs\n"
)
# family -> (code between the cast and the kernel, or the whole tail; words of the reason)
PAGED_HAZARDS = {
    "attribute store": (
        "        metadata.page_table = self.expand_metadata.page_table\n" + PAGED_KERNEL,
        "line 24 assigns `metadata.page_table`",
    ),
    "index store": (
        "        metadata.page_table[0, 0] = 3\n" + PAGED_KERNEL,
        "line 24 writes into `metadata.page_table[0, 0]`",
    ),
    "augmented index store": (
        "        metadata.cache_seqlens_int32[1] += 1\n" + PAGED_KERNEL,
        "line 24 writes into `metadata.cache_seqlens_int32[1]`",
    ),
    "page size store": (
        "        self.page_size = 2 * self.page_size\n" + PAGED_KERNEL,
        "line 24 assigns `self.page_size`",
    ),
    "call in the kernel's arguments": (
        PAGED_KERNEL.replace("q=q_rope", "q=self.prep(q_rope)"),
        "line 25 calls `self.prep(...)`",
    ),
    "loop repeating the kernel": (PAGED_LOOP, "line 34 calls `self.advance(...)`"),
}
PAGED_LOOKALIKES = {
    "shape queries": "        n = q.size(0)\n        width = kv.shape[-1] + n\n" + PAGED_KERNEL,
    "local rebinding": "        q_rope = q_rope * 1\n" + PAGED_KERNEL,
}


def _paged(body: str) -> bytes:
    return (PAGED_HEAD + body).encode()


def _paged_runs(source: bytes, result) -> list:
    companions = {Path(p).stem: text for p, text in result.companions.items()}
    return [(drive_paged(source, {}, size)[0], drive_paged(result.new_source, companions, size)[0]) for size in (1, 4)]


@pytest.mark.parametrize("family", sorted(PAGED_HAZARDS))
def test_paged_hazard_is_unsafe_and_real(family):
    body, words = PAGED_HAZARDS[family]
    source = _paged(body)
    result = fix(source)
    assert not result.changed and "unsafe" in skipped(result) and words in skipped(result), skipped(result)
    forced = fix(source, unsafe=True)
    assert forced.changed
    assert any(before != after for before, after in _paged_runs(source, forced)), family


def _old_unproven_between(self, statement, reader):
    """The paged proof before this change: only calls between the cast and the kernel call."""
    analysis = self.analysis
    start, end = analysis.position(statement).end, analysis.position(reader.call).start
    inside = {id(n) for n in paged_reads.iter_nodes(reader.call, cst.Call)}
    for call in paged_reads.iter_nodes(self.function, cst.Call):
        pos = analysis.position(call).start
        if not ((start.line, start.column) <= (pos.line, pos.column) < (end.line, end.column)):
            continue
        if id(call) in inside or self.is_page_view(call) or self.not_on_the_way(call, reader.call):
            continue
        if not paged_reads.is_read_only(analysis, call):
            return "not read-only"
    return None


def test_paged_a_weaker_proof_passes_every_hazard(monkeypatch):
    monkeypatch.setattr(paged_reads._Site, "unproven_between", _old_unproven_between)
    for family, (body, _) in PAGED_HAZARDS.items():
        assert fix(_paged(body)).changed, family


@pytest.mark.parametrize("family", sorted(PAGED_LOOKALIKES))
def test_paged_lookalike_is_safe_and_equal(family):
    source = _paged(PAGED_LOOKALIKES[family])
    result = fix(source)
    assert result.changed, skipped(result)
    assert all(before == after for before, after in _paged_runs(source, result))


# == the rows read (Triton decode/extend on FP4 pools) ============================================

ROW_BACKEND = (FIX / "row_kernel_backend.in.py").read_text()
ROW_CALL = """        self.decode_attention_fwd(
            q,
            self.token_to_kv_pool.get_key_buffer(layer.layer_id),
            self.token_to_kv_pool.get_value_buffer(layer.layer_id),
            o,
            kv_indptr,
            kv_indices,
            layer.scaling,
            page_size=4,
        )
"""
ROW_METHODS = """    def layer_of(self, layer):
        self.lookups = getattr(self, "lookups", 0) + 1
        return layer.layer_id

    @property
    def scale_now(self):
        self.reads = getattr(self, "reads", 0) + 1
        return 0.3

    @property
    def scale_plain(self):
        return 0.3

"""


def _rows_variant(old: str, new: str) -> str:
    assert ROW_CALL in ROW_BACKEND and old in ROW_CALL
    source = ROW_BACKEND.replace(ROW_CALL, ROW_CALL.replace(old, new), 1)
    return source.replace(
        "    def forward_decode(self, q, layer):", ROW_METHODS + "    def forward_decode(self, q, layer):", 1
    )


KERNEL_DEF = "def decode_attention_fwd(q, k_buffer, v_buffer, o, kv_indptr, kv_indices, sm_scale, page_size=1):\n"
SINKS_KERNEL = (
    "def decode_attention_fwd(q, k_buffer, v_buffer, o, kv_indptr, kv_indices, sm_scale, page_size=1, "
    "sinks=None):\n    if sinks is not None:\n        o[:] = k_buffer[sinks[:1].long()].float().sum()\n"
    "        return o\n"
)
# family -> (old, new in the kernel call; refused (True) or unsafe; words of the reason)
ROW_HAZARDS = {
    "call in the layer expression": (
        "(layer.layer_id)",
        "(self.layer_of(layer))",
        False,
        "calls `self.layer_of(...)` in the kernel's statement",
    ),
    "walrus in the statement": (
        "kv_indices,\n",
        "(kv_indices := kv_indices[:12]),\n",
        False,
        "binds `kv_indices` (`:=`)",
    ),
    "effectful property": ("layer.scaling", "self.scale_now", False, "reads `self.scale_now`, a property"),
    "index through a second argument": (
        "page_size=4,",
        "page_size=4,\n            sinks=kv_indices,",
        True,
        "also gets the index (`kv_indices`)",
    ),
    "pool through a second argument": (
        "page_size=4,",
        "page_size=4,\n            sinks=self.token_to_kv_pool.get_key_buffer(layer.layer_id)",
        True,
        "also gets the key buffer",
    ),
}


def _decode_site(source: str):
    analysis = context(source.encode()).analysis
    for site in row_reads.row_reads(analysis):
        function = analysis.enclosing_function(site.kernel)
        if function is not None and function.name.value == "forward_decode":
            return site
    raise AssertionError("no rows read in forward_decode")


@pytest.mark.parametrize("family", sorted(ROW_HAZARDS))
def test_rows_read_hazard_is_refused_or_unsafe(family):
    old, new, refused, words = ROW_HAZARDS[family]
    site = _decode_site(_rows_variant(old, new))
    why = site.refused if refused else site.unsafe
    assert why is not None and words in why, (site.refused, site.unsafe)
    if not refused:
        assert site.refused is None


def test_rows_read_a_weaker_proof_passes_every_hazard(monkeypatch):
    monkeypatch.setattr(row_reads, "_unaccounted", lambda *a: None)
    monkeypatch.setattr(row_reads, "_moved_over", lambda *a: None)
    for family, (old, new, _, _) in ROW_HAZARDS.items():
        site = _decode_site(_rows_variant(old, new))
        assert site.refused is None and site.unsafe is None, family


def test_rows_read_lookalikes_stay_safe():
    for old, new in (("layer.scaling", "self.scale_plain"), ("            o,\n", "            o.view(o.shape),\n")):
        site = _decode_site(_rows_variant(old, new))
        assert site.refused is None and site.unsafe is None, (site.refused, site.unsafe)


def _load(name: str, source: bytes) -> types.ModuleType:
    spec = importlib.util.spec_from_loader(name, loader=None)
    module = importlib.util.module_from_spec(spec)
    exec(compile(source, name, "exec"), module.__dict__)
    sys.modules[name] = module
    return module


def _rows_run(backend_source: str, fixed: bool, monkeypatch, unsafe=False):
    """The fixture's FP4 pool and a backend variant, original or fixed, on CPU torch: the output and
    what the backend counted."""
    real_torch = pytest.importorskip("torch")
    pool_src = (FIX / "fp4_pool.in.py").read_bytes()
    backend_src = backend_source.encode()
    if fixed:
        pool_src = fix_source(pool_src, str(FIX / "fp4_pool.in.py"), TABLES).new_source
        result = fix_source(backend_src, "backend.py", TABLES, FixOptions(unsafe=unsafe))
        assert result.changed, result.skipped
        backend_src = result.new_source
        (companion,) = result.companions.values()
        _load("kv_rows_read", companion)
    pools, backends = _load("fp4_pool", pool_src), _load("row_backend", backend_src)
    gen = real_torch.Generator().manual_seed(0)
    pool = pools.Fp4KVPool(64, 2, 8, 2)
    for b in (*pool.k_buffer, *pool.v_buffer):
        b.copy_(real_torch.randint(0, 255, b.shape, generator=gen, dtype=real_torch.uint8))
    backend = backends.RowBackend(pool)
    rows = real_torch.tensor([3, 9, 9, 17, 40, 2, 5, 60, 61, 33, 3, 12])
    backend.forward_metadata = backends.Metadata(real_torch.tensor([0, 5, 12]), rows)
    q = real_torch.randn(2, 2, 8, generator=real_torch.Generator().manual_seed(1)).to(real_torch.bfloat16)
    layer = types.SimpleNamespace(layer_id=1, scaling=0.3)
    out = backend.forward_decode(q, layer)
    return out, getattr(backend, "lookups", 0), getattr(backend, "reads", 0)


def test_rows_read_hazards_change_behaviour_when_applied(monkeypatch):
    real_torch = pytest.importorskip("torch")
    # evaluated once instead of twice: the backend sees one layer lookup, not two
    source = _rows_variant("(layer.layer_id)", "(self.layer_of(layer))")
    before, after = _rows_run(source, False, monkeypatch), _rows_run(source, True, monkeypatch, unsafe=True)
    assert real_torch.equal(before[0], after[0]) and (before[1], after[1]) == (2, 1)
    # a second argument that gets the index: with the proof's refusal switched off, the kernel
    # reads the compact buffer by the pool's indices
    source = _rows_variant("page_size=4,", "page_size=4,\n            sinks=kv_indices,")
    source = source.replace(KERNEL_DEF, SINKS_KERNEL, 1)
    assert "sinks=None" in source
    before = _rows_run(source, False, monkeypatch)
    monkeypatch.setattr(row_reads, "_unaccounted", lambda *a: None)
    after = _rows_run(source, True, monkeypatch)
    assert not real_torch.equal(before[0], after[0])


# == the rows getter beside a dequantizing accessor ================================================

POOL = (FIX / "fp4_pool.in.py").read_text()
DEQUANTIZE = "            dequantized = Fp4Util.batched_dequantize(packed, scales)\n            return dequantized\n"
WAIT = "    def get_key_buffer(self, layer_id: int):\n        if self.layer_transfer_counter"
# family -> (old, new, the accessor that gets no sibling, words of the reason)
GETTER_HAZARDS = {
    "dequantized buffer stored on self": (
        DEQUANTIZE,
        DEQUANTIZE.replace("            return", "            self.last_k = dequantized\n            return"),
        "_get_key_buffer",
        "reads the dequantized",
    ),
    "dequantized buffer checked": (
        DEQUANTIZE,
        DEQUANTIZE.replace(
            "            return", "            assert dequantized.shape[0] == self.size + 1\n            return"
        ),
        "_get_key_buffer",
        "reads the dequantized",
    ),
    "index write into the dequantized buffer": (
        DEQUANTIZE,
        DEQUANTIZE.replace("            return", "            dequantized[self.size] = 0\n            return"),
        "_get_key_buffer",
        "reads the dequantized",
    ),
    "effect before `read as stored`": (
        WAIT,
        WAIT.replace("        if self", "        self.reads += 1\n        if self"),
        "get_key_buffer",
        "would run twice",
    ),
    "sibling already inherited": (
        "class Fp4KVPool(KVPool):",
        "class Fp4Base(KVPool):\n    def _get_key_buffer_rows(self, "
        "layer_id, rows):\n        return None\n\n\nclass Fp4KVPool(Fp4Base):",
        "_get_key_buffer",
        "already defined above it",
    ),
    "attribute of the sibling's name": (
        "        self.k_scale_buffer = [",
        "        self._get_key_buffer_rows = None\n        self.k_scale_buffer = [",
        "_get_key_buffer",
        "would hide it",
    ),
}


def _getters(source: str):
    analysis = context(source.encode(), "pool.py").analysis
    analysis.derived.clear()
    return row_getters._rows_getters(analysis)


def _sibling_of(getters, cls: str, accessor: str):
    return next((g for g in getters if g.cls.name.value == cls and g.method.name.value == accessor), None)


@pytest.mark.parametrize("family", sorted(GETTER_HAZARDS))
def test_rows_getter_hazard_is_refused(family):
    old, new, accessor, words = GETTER_HAZARDS[family]
    assert old in POOL
    getters, refused = _getters(POOL.replace(old, new, 1))
    owner = "KVPool" if accessor == "get_key_buffer" else "Fp4KVPool"
    assert _sibling_of(getters, owner, accessor) is None
    assert any(words in why and accessor in why for why in refused.values()), refused
    assert _sibling_of(getters, "Fp4KVPool", "_get_value_buffer") is not None  # V keeps its getter


def test_rows_getter_a_weaker_proof_passes_every_hazard(monkeypatch):
    monkeypatch.setattr(row_getters, "_unsound", lambda *a, **k: None)
    for family, (old, new, accessor, _) in GETTER_HAZARDS.items():
        getters, _ = _getters(POOL.replace(old, new, 1))
        owner = "KVPool" if accessor == "get_key_buffer" else "Fp4KVPool"
        assert _sibling_of(getters, owner, accessor) is not None, family


def _pool_reads(source: str, fixed: bool, monkeypatch, stored: bool = False):
    """K and V as read_kv_rows gives them to a row kernel, at rows, and the pool's own state after."""
    real_torch = pytest.importorskip("torch")
    pool_src = source.encode()
    if fixed:
        pool_src = fix_source(pool_src, "pool.py", TABLES).new_source
    backend = fix_source((FIX / "row_kernel_backend.in.py").read_bytes(), "backend.py", TABLES)
    (companion,) = backend.companions.values()
    reader = _load("kv_rows_read", companion).read_kv_rows
    pools = _load("fp4_pool_variant", pool_src)
    if stored:  # a pool that stores what it reads: its getters answer None (read as stored)
        pool = pools.KVPool(16, 2, 8, 2, real_torch.bfloat16, real_torch.bfloat16)
        pool.k_scale_buffer = pool.v_scale_buffer = None
    else:
        pool = pools.Fp4KVPool(16, 2, 8, 2)
    pool.reads = 0
    gen = real_torch.Generator().manual_seed(0)
    for b in (*pool.k_buffer, *pool.v_buffer):
        b.copy_(real_torch.randint(0, 255, b.shape, generator=gen, dtype=real_torch.uint8).to(b.dtype))
    rows = real_torch.tensor([3, 1, 7])
    k, v, index = reader(pool, 1, rows)
    state = {n: getattr(pool, n) for n in ("reads", "last_k") if hasattr(pool, n)}
    return k[index], v[index], {n: (tuple(x.shape) if hasattr(x, "shape") else x) for n, x in state.items()}


@pytest.mark.parametrize("family", ["dequantized buffer stored on self", "effect before `read as stored`"])
def test_rows_getter_hazard_changes_behaviour_when_added(family, monkeypatch):
    real_torch = pytest.importorskip("torch")
    old, new, _, _ = GETTER_HAZARDS[family]
    source = POOL.replace(old, new, 1)
    stored = family == "effect before `read as stored`"
    before = _pool_reads(source, False, monkeypatch, stored)
    safe = _pool_reads(source, True, monkeypatch, stored)  # the proof refuses the hazardous sibling
    assert all(real_torch.equal(a, b) for a, b in zip(before[:2], safe[:2])) and before[2] == safe[2]
    monkeypatch.setattr(row_getters, "_unsound", lambda *a, **k: None)
    forced = _pool_reads(source, True, monkeypatch, stored)
    assert all(real_torch.equal(a, b) for a, b in zip(before[:2], forced[:2]))  # the values agree...
    assert forced[2] != before[2], (before[2], forced[2])  # ...what the pool saw does not


# == the FlashInfer MLA rewrite: the native read hands run() the pool itself ========================

MLA = (FIX / "mla_backend.in.py").read_text()
MLA_INIT = "        self.prefill_updater = PrefillUpdater(model_runner, self)\n"
MLA_RUN = (
    "        o = self.decode_wrapper.run(q_nope, q_rope, k_buffer[:, :, :512], k_buffer[:, :, 512:], out=None)\n"
    "        return o\n"
)
MLA_STORE = (
    "        forward_batch.token_to_kv_pool.set_kv_buffer(layer, forward_batch.out_cache_loc, q[:, :1, :] * 0.5)\n"
)
DRAFT_INIT = MLA_INIT + "        self.draft_kv = torch.zeros((24, 1, 576), dtype=model_runner.dtype, device='cuda')\n"
DRAFT_RUN = MLA_RUN.replace("        return o\n", "") + (
    "        draft = self.draft_kv\n        o2 = self.decode_wrapper.run(q_nope, q_rope, draft[:, :, :512], "
    "draft[:, :, 512:])\n        return o, o2\n"
)


def mla_variant(*pairs) -> str:
    source = MLA
    for old, new in pairs:
        assert old in source, old
        source = source.replace(old, new, 1)
    return source


# family -> (the variant, words of CL001's reason)
MLA_HAZARDS = {
    "a store between the cast and run()": (
        mla_variant((MLA_RUN, MLA_STORE + MLA_RUN)),
        "calls `forward_batch.token_to_kv_pool.set_kv_buffer(...)` between the cast",
    ),
    "a helper call between the cast and run()": (
        mla_variant(
            (MLA_RUN, "        self.stage(layer, forward_batch, q)\n" + MLA_RUN),
            (
                "    def forward_decode(",
                "    def stage(self, layer, forward_batch, q):\n" + MLA_STORE + "\n    def forward_decode(",
            ),
        ),
        "calls `self.stage(...)` between the cast",
    ),
    "a second buffer into the same run()": (
        mla_variant((MLA_INIT, DRAFT_INIT), (MLA_RUN, DRAFT_RUN)),
        "reads a buffer that no cast the fix rewrites feeds",
    ),
}


def _mla_reasons(source: str) -> list:
    from castlint.engine import analyze_module

    module, config = cst.parse_module(source), Config()
    return [
        f.unfixable_reason or ""
        for f in analyze_module(module, "backend.py", module.code, TABLES, config, config.cost_model(TABLES))
        if f.code == "CL001"
    ]


@pytest.mark.parametrize("family", sorted(MLA_HAZARDS))
def test_mla_hazard_is_refused(family):
    source, words = MLA_HAZARDS[family]
    result = fix(source)
    assert not result.changed
    reasons = _mla_reasons(source)
    assert reasons and any(words in r for r in reasons), reasons


def _weaker_mla(monkeypatch):
    monkeypatch.setattr(mla_sites, "_check_between", lambda *a: None)
    monkeypatch.setattr(mla_sites, "_unaccounted_run", lambda *a: None)


@pytest.mark.parametrize("family", sorted(MLA_HAZARDS))
def test_mla_hazard_passes_a_weaker_proof_and_changes_behaviour(family, monkeypatch):
    from test_fix_equivalence import assert_native, check_pair

    source, _ = MLA_HAZARDS[family]
    _weaker_mla(monkeypatch)
    result = fix(source)
    monkeypatch.undo()
    assert result.changed
    original, native = check_pair(source.encode(), result.new_source, Env(flashinfer="0.7.2", capability=(9, 0)))
    with pytest.raises(AssertionError):
        assert_native(original, native, family)


def test_mla_read_only_code_between_stays_fixed_and_equal():
    from test_fix_equivalence import assert_native, assert_same, check_pair

    source = mla_variant((MLA_RUN, "        n = q_nope.size(0)\n        width = q_rope.shape[-1] + n\n" + MLA_RUN))
    result = fix(source)
    assert result.changed, result.skipped
    original, native = check_pair(source.encode(), result.new_source, Env(flashinfer="0.7.2", capability=(9, 0)))
    assert_native(original, native, "native")
    original, fallback = check_pair(source.encode(), result.new_source, Env(flashinfer="0.7.2", capability=(12, 0)))
    assert_same(original, fallback, "fallback")


# == the rule lives in the tables ===================================================================


def test_read_only_facts_are_data():
    """The proofs name no method: the read-only, new-value, property and idempotent sets come from
    rules/casts.toml [cast_motion]."""
    for module in (cast_motion, paged_reads, row_reads, row_getters, mla_sites):
        text = Path(module.__file__).read_text()
        for name in ("wait_until", "needs_plain_kv_dequant_read", "zeros_like", "cached_property"):
            assert f'"{name}"' not in text, (module.__name__, name)
    assert {"wait_until"} <= TABLES.idempotent_methods and "property" in TABLES.property_decorators
