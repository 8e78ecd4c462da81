"""CL003's proof and the code that runs *implicitly* between a moved cast and its gather.

A call the tables list as read-only (`len`, `sorted`, `tuple`, `getattr`, an accessor) and a
construct that calls nothing by name (`for`, unpacking, `if x:`, `x == y`, `x[i]`, an f-string)
still run code: a generator's body, a `key=` callable, a dunder or a property getter of a class of
the file. Each family below has a hazard (that code stores K/V: the fix is not offered by default)
and its mutation (the same file with the store removed, or with the iterable made a builtin
container: the fix is offered and keeps every value). On the fake torch, the hazard's fix applied
anyway (--unsafe-fixes) changes what the code returns: the hazard is real. A proof with the
implicit-code rule switched off passes every hazard (it is what catches them).

Written for these tests in other spellings than benchmarks/fix_behaviour (the blind measure).
"""

from __future__ import annotations

import libcst as cst
import pytest

from castlint.analysis import cast_motion
from castlint.checks.cast_before_gather import CastBeforeGather
from castlint.config import Config
from castlint.engine import module_context
from castlint.fixes import FixOptions, fix_source
from castlint.models import FixSafety
from castlint.tables import load_tables
from faketorch.module import make_torch

TABLES = load_tables()

TEMPLATE = """import torch


class Pool:
    def __init__(self, torch):
        self.k = torch.zeros(8, 2, dtype=torch.float8_e4m3fn)
        self.staged = []

    def get_key_buffer(self, layer_id):
        return self.k

    def set_kv_buffer(self, layer_id, loc, k):
        self.k[loc] = k.to(self.k.dtype)
{extra}

def write(pool, loc):
    pool.set_kv_buffer(0, loc, torch.ones(1, 2))
    return 1


def key_of(value):
    return 0


def write_key(value):
    write(POOL[0], value)
    return 0


POOL = []


class Backend:
    def __init__(self, pool):
        self.pool = pool

    def _store_key(self, value):
        self.pool.set_kv_buffer(0, self.pool.staged[0], torch.ones(1, 2))
        return value

    def forward(self, idx, loc, name="ready"):
{body}


def run(torch):
    pool = Pool(torch)
    POOL.append(pool)
    pool.staged.append(torch.tensor([3]))
    out = Backend(pool).forward(torch.tensor([3, 1]), torch.tensor([3]))
    return out.to(torch.float32).tolist(), pool.k.to(torch.float32).tolist()
"""

# a dunder/property body that stores the staged rows, and the same body without the store
FLUSH = "        self.k[self.staged[0]] = torch.ones(1, 2).to(self.k.dtype)\n"
CAST = "k = self.pool.get_key_buffer(0).to(torch.bfloat16)\n"


def method(header: str, store: bool, returns: str = "True") -> str:
    return f"\n    {header}\n" + (FLUSH if store else "") + f"        return {returns}\n"


# family -> (pool class extra with the store, extra without it, body with the hazard, body without it,
#            words of the hazard's reason)
FAMILIES = {
    "generator drained by tuple()": (
        "",
        "",
        "pending = (write(self.pool, l) for l in [loc])\n" + CAST + "tuple(pending)\nreturn k[idx]\n",
        "pending = [loc]\n" + CAST + "tuple(pending)\nreturn k[idx]\n",
        "iterates `pending`",
    ),
    "generator drained by a comprehension": (
        "",
        "",
        "pending = (write(self.pool, l) for l in [loc])\n" + CAST + "done = [1 for _ in pending]\nreturn k[idx]\n",
        "pending = (loc,)\n" + CAST + "done = [1 for _ in pending]\nreturn k[idx]\n",
        "iterates `pending`",
    ),
    "generator unpacked": (
        "",
        "",
        "pending = (write(self.pool, l) for l in [loc])\n" + CAST + "first, = pending\nreturn k[idx]\n",
        "pending = [loc]\n" + CAST + "first, = pending\nreturn k[idx]\n",
        "unpacks `pending`",
    ),
    "generator starred into a display": (
        "",
        "",
        "pending = (write(self.pool, l) for l in [loc])\n" + CAST + "n = len([*pending])\nreturn k[idx]\n",
        "pending = [loc]\n" + CAST + "n = len([*pending])\nreturn k[idx]\n",
        "unpacks `*pending`",
    ),
    "key= method of self": (
        "",
        "",
        CAST + "best = max([2, 1], key=self._store_key)\nreturn k[idx]\n",
        CAST + "best = max([2, 1], key=abs)\nreturn k[idx]\n",
        "calls `self._store_key` back",
    ),
    "key= function of the module": (
        "",
        "",
        CAST + "order = sorted([loc], key=write_key)\nreturn k[idx]\n",
        CAST + "order = sorted([loc], key=key_of)\nreturn k[idx]\n",
        "calls `write_key` back",
    ),
    "map() of a lambda that stores": (
        "",
        "",
        CAST + "list(map(lambda l: self.pool.set_kv_buffer(0, l, torch.ones(1, 2)), [loc]))\nreturn k[idx]\n",
        CAST + "list(map(lambda l: l, [loc]))\nreturn k[idx]\n",
        "calls `lambda l:",
    ),
    "truth test: __bool__": (
        method("def __bool__(self):", True),
        method("def __bool__(self):", False),
        CAST + "if self.pool:\n    pass\nreturn k[idx]\n",
        CAST + "if self.pool:\n    pass\nreturn k[idx]\n",
        "runs `__bool__`",
    ),
    "comparison: __eq__": (
        method("def __eq__(self, other):", True, "False"),
        method("def __eq__(self, other):", False, "False"),
        CAST + "same = self.pool == 0\nreturn k[idx]\n",
        CAST + "same = self.pool == 0\nreturn k[idx]\n",
        "runs `__eq__`",
    ),
    "index: __getitem__ of the holder": (
        method("def __getitem__(self, i):", True, "0"),
        method("def __getitem__(self, i):", False, "0"),
        CAST + "first = self.pool[0]\nreturn k[idx]\n",
        CAST + "first = self.pool[0]\nreturn k[idx]\n",
        "runs `__getitem__`",
    ),
    "format: __format__ in an f-string": (
        method("def __format__(self, spec):", True, "'pool'"),
        method("def __format__(self, spec):", False, "'pool'"),
        CAST + "label = f'{self.pool}'\nreturn k[idx]\n",
        CAST + "label = f'{self.pool}'\nreturn k[idx]\n",
        "runs `__format__`",
    ),
    "hasattr of a property": (
        "\n    @property" + method("def ready(self):", True),
        "\n    @property" + method("def ready(self):", False),
        CAST + "ok = hasattr(self.pool, 'ready')\nreturn k[idx]\n",
        CAST + "ok = hasattr(self.pool, 'ready')\nreturn k[idx]\n",
        "reads `ready`, a property",
    ),
    "getattr by a name that is not a literal": (
        "\n    @property" + method("def ready(self):", True),
        "\n    @property" + method("def ready(self):", False),
        CAST + "ok = getattr(self.pool, name)\nreturn k[idx]\n",
        CAST + "ok = getattr(self.pool, name)\nreturn k[idx]\n",
        "not a literal",
    ),
    "a listed read method (numel) the pool class defines with a store": (
        method("def numel(self):", True, "16"),
        method("def numel(self):", False, "16"),
        CAST + "n = self.pool.numel()\nreturn k[idx]\n",
        CAST + "n = self.pool.numel()\nreturn k[idx]\n",
        "runs `numel`",
    ),
    "an accessor a class of the file defines with a store": (
        "\n\nclass FlushingPool(Pool):" + method("def get_value_buffer(self, layer_id):", True, "self.k"),
        "\n\nclass FlushingPool(Pool):" + method("def get_value_buffer(self, layer_id):", False, "self.k"),
        CAST + "v = self.pool.get_value_buffer(0)\nreturn k[idx]\n",
        CAST + "v = self.pool.get_value_buffer(0)\nreturn k[idx]\n",
        "runs `get_value_buffer`",
    ),
}

# new fixed shapes: proven read-only, the fix offered by default and every value kept
POSITIVES = {
    "gather function": "return torch.index_select(self.pool.get_key_buffer(0).float(), 0, idx)\n",
    "gather function, read-only index": (
        "n = len(idx)\nreturn torch.index_select(self.pool.get_key_buffer(0).float(), 0, idx[:n])\n"
    ),
    "shape reads of the converted pool": CAST + "n = k.shape[0] + k.size(0) * k.dim()\nassert idx.dim() == 1\n"
    "return k[idx % n]\n",
    "loop over a tuple, sorted with a pure lambda": "spec = (idx,)\n" + CAST + "total = 0\nfor i in spec:\n"
    "    total = total + len(i)\n"
    "order = sorted([3, 1], key=lambda v: -v)\nreturn k[idx]\n",
}


def source(extra: str, body: str) -> bytes:
    indented = "".join("        " + line + "\n" for line in body.splitlines())
    # the accessor override: the backend's pool is a FlushingPool
    text = TEMPLATE.format(extra=extra, body=indented.rstrip("\n"))
    if "class FlushingPool" in extra:
        text = text.replace("    pool = Pool(torch)\n", "    pool = FlushingPool(torch)\n")
    return text.encode()


def cl003(src: bytes):
    module = cst.parse_module(src)
    ctx = module_context(module, "backend.py", TABLES, Config().cost_model(TABLES))
    return CastBeforeGather().check(ctx)


def run(src: bytes):
    torch = make_torch()
    namespace = {"__name__": "castlint_implicit_subject", "torch": torch}
    exec(compile(src.decode().replace("import torch\n", "", 1), "subject.py", "exec"), namespace)
    return namespace["run"](torch)


def reason(finding) -> str:
    return " ".join((finding.fix.description if finding.fix else finding.unfixable_reason or "").split())


@pytest.mark.parametrize("family", list(FAMILIES))
def test_hazard_is_not_fixed_by_default_and_is_real(family):
    extra, _, body, _, words = FAMILIES[family]
    src = source(extra, body)
    found = cl003(src)
    assert len(found) == 1, found
    assert found[0].fix is None or found[0].fix.safety == FixSafety.UNSAFE, reason(found[0])
    assert words in reason(found[0]), reason(found[0])
    assert fix_source(src, "backend.py", TABLES, FixOptions()).new_source == src
    forced = fix_source(src, "backend.py", TABLES, FixOptions(unsafe=True)).new_source
    assert forced != src
    assert run(forced) != run(src)  # the moved cast gathers the rows stored in between


@pytest.mark.parametrize("family", list(FAMILIES))
def test_mutation_without_the_store_is_fixed_and_keeps_every_value(family):
    _, clean_extra, _, clean_body, _ = FAMILIES[family]
    src = source(clean_extra, clean_body)
    found = cl003(src)
    assert len(found) == 1 and found[0].fix is not None and found[0].fix.safety == FixSafety.SAFE, reason(found[0])
    new = fix_source(src, "backend.py", TABLES, FixOptions()).new_source
    assert new != src and b"k[idx].to(torch.bfloat16)" in new
    assert run(new) == run(src)


@pytest.mark.parametrize("name", list(POSITIVES))
def test_new_fixed_shapes_keep_every_value(name):
    src = source("", POSITIVES[name])
    found = cl003(src)
    assert len(found) == 1 and found[0].fix is not None and found[0].fix.safety == FixSafety.SAFE, reason(found[0])
    new = fix_source(src, "backend.py", TABLES, FixOptions()).new_source
    assert new != src and not [f for f in cl003(new) if f.fix]
    assert run(new) == run(src)


def test_shape_reads_stay_on_the_pool_and_a_dtype_read_is_refused():
    new = fix_source(
        source("", POSITIVES["shape reads of the converted pool"]), "backend.py", TABLES, FixOptions()
    ).new_source
    assert b"k.shape[0] + k.size(0) * k.dim()" in new and b"k = self.pool.get_key_buffer(0)\n" in new
    found = cl003(source("", CAST + "assert k.dtype == torch.bfloat16\nreturn k[idx]\n"))
    assert [f.fix for f in found] == [None] and found[0].unfixable_reason  # `.dtype` would change


def test_a_proof_without_the_implicit_code_rule_passes_every_hazard(monkeypatch):
    """The mutation of the proof: with iteration, callbacks, dunders and the class-defined methods
    taken as read-only again (the rule before), every hazard above is 'safe'."""
    monkeypatch.setattr(cast_motion, "implicit_effect", lambda analysis, node: None)
    monkeypatch.setattr(cast_motion, "_call_effect", lambda analysis, call: None)
    monkeypatch.setattr(cast_motion, "effectful_members", lambda analysis: frozenset())
    got = {}
    for family, (extra, _, body, _, _) in FAMILIES.items():
        found = cl003(source(extra, body))
        got[family] = found[0].fix.safety if found and found[0].fix else None
    assert got == {family: FixSafety.SAFE for family in FAMILIES}


def test_the_facts_are_data():
    """What a builtin calls back into and which dunders a construct runs are rules/casts.toml data."""
    assert TABLES.callbacks["sorted"]["calls"] == frozenset({"key"})
    assert "__len__" in TABLES.callbacks["len"]["dunders"]
    assert "__bool__" in TABLES.protocols["truth"]
    import dataclasses

    # round 6: a construct's list says only *that* it runs implicit code (then any member of the file
    # not proven read-only may run); with neither the truth test, the attribute read nor the gather's
    # index running any, the fix is safe
    src = source(method("def __bool__(self):", True), CAST + "if self.pool:\n    pass\nreturn k[idx]\n")
    quiet = {name: frozenset() for name in ("truth", "attribute", "gather_index")}
    fewer = dataclasses.replace(TABLES, protocols={**TABLES.protocols, **quiet})
    module = cst.parse_module(src)
    ctx = module_context(module, "backend.py", fewer, Config().cost_model(fewer))
    assert [f.fix.safety for f in CastBeforeGather().check(ctx)] == [FixSafety.SAFE]
