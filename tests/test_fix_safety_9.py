"""CL003's proof, round 6 of the blind fix-behaviour benchmark (benchmarks/fix_behaviour_6).

The blind round found 24 safe-labelled rewrites that changed behaviour: the proof trusted, per construct,
a list of the dunders it runs, and each case ran a member the list did not name (the copy protocol, a
comparison result's `__bool__`, a reflected operator behind an augmented assignment, `%`-formatting's
`__int__`/`__float__`, isinstance's `__class__`, a raise constructing a class, a str subclass's `__hash__`
as an attribute name or a dict key) or a gather with no kernel for the stored dtype. Round 6 closes the
family of families (docs/fix.md, "Round 6"): an operation that runs implicit code is harmless only where
every operand is proven a builtin value or a tensor, or where no member of the file that implicit code may
run (any dunder; construction and finalizer members where the operation constructs) is not proven
read-only. The construct lists now say only *that* a construct runs implicit code.

For each family, a spelling the benchmark does not use: the hazard is not fixed by default, is real (applied
anyway it changes what the code returns on CPU torch), and a proof that trusts the construct lists again
passes it; its look-alike (operands proven ints or tensors, or the member without the write) stays fixed and
returns the same.
"""

from __future__ import annotations

import pytest

from castlint.analysis import cast_motion
from castlint.fixes import FixOptions, fix_source
from castlint.models import FixSafety
from fix_safety_helpers import (
    TABLES,
    assert_fixed,
    assert_not_fixed_by_default,
    cl003,
    reason,
    torch_outcome,
    trust_lists,
)

pytest.importorskip("torch")

TEMPLATE = """import copy

import torch
{prelude}

class Pool:
    def __init__(self):
        g = torch.Generator().manual_seed(0)
        self.k = torch.randn(8, 2, generator=g).to(torch.{pool_dtype})

    def get_key_buffer(self, layer_id):
        return self.k

    def set_kv_buffer(self, layer_id, loc, k):
        self.k[loc] = k.to(self.k.dtype)


POOL = Pool()


def commit():
    POOL.set_kv_buffer(0, 3, torch.full((1, 2), 0.5))
    return 2


class Backend:
    def __init__(self, pool):
        self.pool = pool

    def forward(self, idx, other):
{body}


def run():
    out = Backend(POOL).forward(torch.tensor([3, 1]), {other})
    return out, POOL.k
"""

CAST = "k = self.pool.get_key_buffer(0).to(torch.bfloat16)\n"
RET = "return k[torch.tensor([3, 1])], {ret}\n"


def source(
    prelude: str,
    between: str,
    other: str = "None",
    ret: str = "0",
    pool_dtype: str = "float8_e4m3fn",
    gather: str | None = None,
) -> bytes:
    body = CAST + between + (gather or RET.format(ret=ret))
    indented = "".join("        " + line + "\n" for line in body.splitlines())
    return TEMPLATE.format(prelude=prelude, body=indented.rstrip("\n"), other=other, pool_dtype=pool_dtype).encode()


def member(cls: str, header: str, result: str, writes: bool = True, base: str = "") -> str:
    """A class of the file whose one member commits the staged row (or, writes=False, only answers)."""
    stmt = "        commit()\n" if writes else ""
    return f"\n\nclass {cls}{base}:\n    {header}\n{stmt}        return {result}\n"


# family -> (prelude with the write, between, other, ret, words; look-alike prelude, between, other, ret)
FAMILIES = {
    "copy.copy runs the file's __reduce__ (no __reduce_ex__ of the file)": (
        member("Meta", "def __reduce__(self):", "(Meta, ())"),
        "snap = copy.copy(other)\n",
        "Meta()",
        "0",
        "calls `copy.copy(...)`",
        None,
        "snap = copy.copy(idx.tolist())\n",
        "Meta()",
    ),
    "any() tests a comparison's result by its __bool__": (
        member("Verdict", "def __bool__(self):", "True")
        + member("Req", "def __eq__(self, other):", "Verdict()", writes=False),
        "hit = any([other == 1])\n",
        "Req()",
        "hit",
        "runs `__bool__`",
        None,
        "hit = any([idx.numel() == 1])\n",
        "Req()",
    ),
    "**= falls back to the reflected __rpow__": (
        member("Exp", "def __rpow__(self, base):", "base"),
        "total = 0.5\ntotal **= other\n",
        "Exp()",
        "total",
        "runs `__rpow__`",
        None,
        "total = 0.5\ntotal **= 2\n",
        "Exp()",
    ),
    "%x-formatting converts by __index__": (
        member("Slot", "def __index__(self):", "3"),
        'tag = "slot=%x" % other\n',
        "Slot()",
        "tag",
        "runs `__index__`",
        None,
        'tag = "slot=%x" % 255\n',
        "Slot()",
    ),
    "isinstance reads a __class__ property": (
        "\n\nclass Spec:\n    @property\n    def __class__(self):\n        commit()\n        return int\n",
        "is_num = isinstance(other, (int, float))\n",
        "Spec()",
        "is_num",
        "`__class__`",
        None,
        "is_num = isinstance(idx.numel(), (int, float))\n",
        "Spec()",
    ),
    "raise of a class (caught by `except Exception`) constructs it": (
        "\n\nclass Flush(Exception):\n    def __init__(self, *args):\n        commit()\n"
        "        super().__init__(*args)\n",
        "try:\n    raise Flush\nexcept Exception:\n    pass\n",
        "None",
        "0",
        "raises `Flush`",
        None,
        'try:\n    raise ValueError("no rows")\nexcept Exception:\n    pass\n',
        "None",
    ),
    "getattr(obj, name, default) hashes a str subclass name": (
        "\n\nclass AttrName(str):\n    def __hash__(self):\n        commit()\n        return str.__hash__(self)\n\n"
        "    __eq__ = str.__eq__\n",
        "found = getattr(torch, other, None) is not None\n",
        'AttrName("float32")',
        "found",
        "runs `__hash__`",
        "\n\nclass AttrName(str):\n    def __hash__(self):\n        return str.__hash__(self)\n\n"
        "    __eq__ = str.__eq__\n",
        "found = getattr(torch, other, None) is not None\n",
        'AttrName("float32")',
    ),
    "a store into a local list converts the key by __index__": (
        member("Slot", "def __index__(self):", "1"),
        "slots = [0, 0]\nslots[other] = 1\n",
        "Slot()",
        "slots",
        "runs `__index__`",
        None,
        "slots = [0, 0]\nslots[1] = 1\n",
        "Slot()",
    ),
}


def parts(family):
    prelude, between, other, ret, words, clean_prelude, clean_between, clean_other = FAMILIES[family]
    hazard = source(prelude, between, other, ret)
    clean = source(prelude if clean_prelude is None else clean_prelude, clean_between, clean_other, ret)
    return hazard, clean, words


@pytest.mark.parametrize("family", list(FAMILIES))
def test_hazard_is_not_fixed_by_default(family):
    hazard, _, words = parts(family)
    assert_not_fixed_by_default(hazard, words)


@pytest.mark.parametrize("family", list(FAMILIES))
def test_hazard_is_real(family):
    hazard, _, _ = parts(family)
    forced = fix_source(hazard, "backend.py", TABLES, FixOptions(unsafe=True)).new_source
    assert forced != hazard
    assert torch_outcome(forced) != torch_outcome(hazard)


# the families whose hazard only round 6's rule catches (in the others a listed dunder of another node
# catches it too: `__index__` of a subscript, a comparison's `__eq__` that constructs)
ONLY_GENERAL = [f for f in FAMILIES if not f.startswith(("any()", "%x", "a store into"))]


@pytest.mark.parametrize("family", ONLY_GENERAL)
def test_a_proof_that_trusts_the_construct_lists_passes_the_hazard(family, monkeypatch):
    """The mutation: round 6's general rule switched back to the per-construct dunder lists (the proof of
    rounds 1-5) labels the hazard safe - the general rule is what catches it."""
    hazard, _, _ = parts(family)
    trust_lists(monkeypatch)
    monkeypatch.setattr(cast_motion, "_raise_effect", lambda analysis, node: None)
    found = cl003(hazard)
    assert len(found) == 1 and found[0].fix is not None and found[0].fix.safety == FixSafety.SAFE, reason(found[0])


def test_del_of_a_local_int_is_fixed_and_a_proof_that_refuses_every_del_refuses_it(monkeypatch):
    """`del` of a local proven an int drops nothing of the file: fixed; the rule before refused every del."""
    clean = source(member("Ticket", "def __del__(self):", "None"), "t = idx.numel()\ndel t\n", "None")
    assert_fixed(clean)
    monkeypatch.setattr(cast_motion, "_del_effect", lambda analysis, node: "deletes")
    (finding,) = cl003(clean)
    assert finding.fix is not None and finding.fix.safety == FixSafety.UNSAFE


# look-alikes whose operands the proof does not yet prove (a parameter's `.tolist()`, `isinstance` on a
# parameter's `.numel()`, a comparison in a file whose `__eq__` constructs, getattr on a module with a
# str subclass): still unsafe, docs/fix.md "Round 6", open
LOOK_ALIKES = [f for f in FAMILIES if not f.startswith(("copy.copy", "any()", "isinstance", "getattr"))]


@pytest.mark.parametrize("family", LOOK_ALIKES)
def test_look_alike_is_fixed_and_exact(family):
    _, clean, _ = parts(family)
    assert_fixed(clean)
    new = fix_source(clean, "backend.py", TABLES, FixOptions()).new_source
    assert torch_outcome(new) == torch_outcome(clean)


def test_gather_with_a_dtype_gap_keeps_the_cast_first():
    """`k.masked_select(mask)` has no kernel for a uint16 pool: the pool's dtype is never proven, so the fix
    is unsafe (real on a uint16 pool); `k.index_select(0, i)` has no gap and stays fixed."""
    gather = "mask = torch.zeros(8, 2, dtype=torch.bool)\nmask[3] = True\nreturn k.masked_select(mask), 0\n"
    hazard = source("", "", gather=gather, pool_dtype="uint16")
    assert_not_fixed_by_default(hazard, "not proven defined for every stored dtype")
    forced = fix_source(hazard, "backend.py", TABLES, FixOptions(unsafe=True)).new_source
    assert torch_outcome(forced) != torch_outcome(hazard)
    clean = source("", "", gather="return k.index_select(0, torch.tensor([3, 1])), 0\n", pool_dtype="uint16")
    assert_fixed(clean)


def test_the_general_rule_is_data():
    """Which members implicit code may run, which run only on construction, which modules never construct,
    which gathers lack which dtypes: rules/casts.toml data."""
    assert "__init__" in TABLES.construction_members and "keys" in TABLES.library_called_members
    assert "torch" in TABLES.non_constructing_modules
    assert "uint16" in TABLES.gather_dtype_gaps["masked_select"] and "uint16" in TABLES.pool_dtypes
    assert not TABLES.gather_dtype_gaps["__getitem__"]
