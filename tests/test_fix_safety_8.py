"""CL003's proof, round 5 of the blind fix-behaviour benchmark (benchmarks/fix_behaviour_5).

The blind round found 22 safe-labelled rewrites that changed behaviour (real torch 2.13, CPU), in
eight families. Each is closed as a general rule in castlint.analysis.cast_motion with its facts in
rules/casts.toml [cast_motion] (docs/fix.md, "Round 5 of the blind benchmark"):

* nn.Module conversions: `.to`/`.half`/`.type`... of a module convert its Parameters in place, so a
  module_conversions name is read-only only on a receiver proven a tensor (in a file that may hold
  modules: module_markers);
* library code: a class of the file with a library base, class decorator or metaclass gets dunders
  that may call its members ([cast_motion.library_bases]; `_open_hit`);
* writers under read-only names: a callable not proven read-only passed on as a value, where an object
  may hold it under any name (a Mock, a record field, `__getattr__`): `_escaped_writer`;
* frame introspection: `locals()`, `vars()`, `inspect.currentframe().f_locals`, a traceback's frame
  see a local that the variable form changes (frame_functions, frame_attributes);
* `match` patterns run protocols on the subject (match_sequence, match_mapping, match_class, compare);
* hashing: `in` runs the item's `__hash__` (protocols.contains), set and dict comprehensions hash;
* a torch call runs its arguments' dunders (protocols.torch_arguments);
* an operator's result is new only where no class of the file defines that operator (`_operator_new`),
  and a new-value method's only on a tensor or where no object of the file may have that member.

For each family, spellings that differ from the benchmark's: the hazard is not fixed by default and its
reason names the rule; applied anyway (--unsafe-fixes) it changes what the code returns on CPU torch
(the hazard is real); a proof with that rule switched off passes it as safe (the rule is what catches
it); and its mutation (the same code without the write, or on a tensor or a builtin value) is fixed by
default and returns the same.
"""

from __future__ import annotations

import pytest

from castlint.analysis import cast_motion
from castlint.fixes import FixOptions, fix_source
from castlint.models import FixSafety
from fix_safety_helpers import TABLES, cl003, reason, torch_outcome, weaken

pytest.importorskip("torch")

TEMPLATE = """import collections
import dataclasses
import fractions
import functools
import inspect
import math
import operator
import sys
import types
import typing
from unittest import mock

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
{init}
{members}
    def forward(self, idx, other):
{body}


def run():
    backend = Backend(POOL)
    out = backend.forward(torch.tensor([3, 1]), {other})
    return out, POOL.k
"""

CAST = "k = self.pool.get_key_buffer(0).to(torch.bfloat16)\n"
# a float32 pool held as a Parameter: a half-precision conversion of its module loses what `.double()` keeps
EXACT = "k = self.pool.get_key_buffer(0).double()\n"
RET = "return k[idx]\n"
# an index that is a tensor the proof sees made (the file's dunders run on `other`, not on it)
FIXED_RET = "return k[torch.tensor([3, 1])]\n"
WRITES = "commit()"  # stores this step's row 3 (a value the FP8 snapshot did not hold)
READS = "POOL.k.shape"  # the same member, read-only


def source(parts: dict) -> bytes:
    def indent(text: str, by: str) -> str:
        return "".join(by + line + "\n" if line else "\n" for line in text.splitlines()).rstrip("\n")

    return TEMPLATE.format(
        prelude=parts.get("prelude", ""),
        pool_dtype=parts.get("pool_dtype", "float8_e4m3fn"),
        init=indent(parts.get("init", ""), "        "),
        members=parts.get("members", ""),
        body=indent(parts["body"], "        "),
        other=parts.get("other", "None"),
    ).encode()


def both(**parts) -> tuple:
    """(hazard, mutation): the parts with {effect} as the write, and as a read."""

    def fill(effect: str) -> dict:
        return {key: value.replace("{effect}", effect) for key, value in parts.items()}

    return fill(WRITES), fill(READS)


# -- the families: name -> (hazard parts, mutation parts, words of the hazard's reason, weaker proof) ---

MODULE = """

class Holder(torch.nn.Module):
    def __init__(self, buf):
        super().__init__()
        self.w = torch.nn.Parameter(buf, False)
"""
PARAMS = """

def as_parameters(pool):
    pool.k = torch.nn.Parameter(pool.k, False)
    return torch.nn.ParameterList([pool.k])
"""

FAMILIES = {
    # -- nn.Module conversions (module_conversions, module_markers)
    "a module converted through a local alias (`mod.half()`)": (
        dict(
            prelude=MODULE,
            pool_dtype="float32",
            init="self.mirror = Holder(pool.k)\npool.k = self.mirror.w",
            body=EXACT + "mod = self.mirror\nmod.half()\n" + RET,
        ),
        dict(
            prelude=MODULE,
            pool_dtype="float32",
            init="self.mirror = Holder(pool.k)\npool.k = self.mirror.w",
            body=EXACT + "mod = self.pool.get_key_buffer(0)\nmod.half()\n" + RET,
        ),
        "converts in place if `mod` is an `nn.Module`",
        ("table", "module_conversions", set()),
    ),
    "a ParameterList converted by keyword (`.to(dtype=...)`)": (
        dict(
            prelude=PARAMS,
            pool_dtype="float32",
            init="self.params = as_parameters(pool)",
            body=EXACT + "self.params.to(dtype=torch.float16)\n" + RET,
        ),
        dict(
            prelude=PARAMS,
            pool_dtype="float32",
            init="self.params = as_parameters(pool)",
            body=EXACT + "self.pool.get_key_buffer(0).to(dtype=torch.float16)\n" + RET,
        ),
        "converts in place if `self.params` is an `nn.Module`",
        ("table", "module_conversions", set()),
    ),
    # -- library code that calls the file's members ([cast_motion.library_bases])
    "UserString's __str__ reads a `data` property (an f-string)": (
        *both(
            prelude="\n\nclass Tag(collections.UserString):\n    def __init__(self):\n        pass\n\n"
            "    @property\n    def data(self):\n        {effect}\n        return 'decode'\n",
            body=CAST + "label = f'{other}'\n" + RET,
            other="Tag()",
        ),
        "may run code of `collections.UserString`",
        ("patch", "_open_hit", lambda analysis: None),
    ),
    "Fraction's __floor__ reads a `denominator` property (math.floor)": (
        *both(
            prelude="\n\nclass Budget(fractions.Fraction):\n    @property\n    def denominator(self):\n"
            "        {effect}\n        return self._denominator\n",
            body=CAST + "pages = math.floor(other)\n" + RET,
            other="Budget(7, 2)",
        ),
        "may run code of `fractions.Fraction`",
        ("patch", "_open_hit", lambda analysis: None),
    ),
    "a dataclass's generated __eq__ reads a property of the subclass": (
        *both(
            prelude="\n\n@dataclasses.dataclass\nclass Req:\n    rid: int\n\n\nclass LiveReq(Req):\n"
            "    @property\n    def rid(self):\n        {effect}\n        return 7\n\n"
            "    @rid.setter\n    def rid(self, value):\n        pass\n",
            body=CAST + "same = other == other\n" + RET,
            other="LiveReq(7)",
        ),
        "may run code of `dataclasses.dataclass`",
        ("patch", "_open_hit", lambda analysis: None),
    ),
    "a class made by type() with a UserList base reads a `data` property (len)": (
        *both(
            prelude="\n\ndef _get(self):\n    {effect}\n    return [1, 2]\n\n\ndef _set(self, value):\n    pass\n\n\n"
            "Pending = type('Pending', (collections.UserList,), {'data': property(_get, _set)})\n",
            body=CAST + "n = len(other)\n" + RET,
            other="Pending()",
        ),
        "may run code of `collections.UserList`",
        ("patch", "_type_call_hit", lambda analysis: None),
    ),
    # -- writers called under a read-only name (_escaped_writer)
    "SimpleNamespace(**{'item': writer})": (
        *both(
            prelude="\n\ndef sync():\n    {effect}\n    return 2\n",
            init="self.hooks = types.SimpleNamespace(**{'item': sync})",
            body=CAST + "n = self.hooks.item()\n" + RET,
        ),
        "may call a writer under the name `item`",
        ("patch", "_escaped_writer", lambda analysis: None),
    ),
    "a typing.NamedTuple field `tolist` filled positionally": (
        *both(
            prelude="\n\nclass Sched(typing.NamedTuple):\n    tolist: object\n\n\ndef admit():\n"
            "    {effect}\n    return [3, 1]\n",
            init="self.sched = Sched(admit)",
            body=CAST + "slots = self.sched.tolist()\n" + RET,
        ),
        "may call a writer under the name `tolist`",
        ("patch", "_escaped_writer", lambda analysis: None),
    ),
    "a plain class storing its argument as `item`": (
        *both(
            prelude="\n\nclass Hooks:\n    def __init__(self, fn):\n        self.item = fn\n\n\ndef sync():\n"
            "    {effect}\n    return 2\n",
            init="self.hooks = Hooks(sync)",
            body=CAST + "n = self.hooks.item()\n" + RET,
        ),
        "may call a writer under the name `item`",
        [
            ("patch", "_escaped_writer", lambda analysis: None),
            ("patch", "_members_bound_outside", lambda analysis: []),
        ],
    ),
    "a Mock's side_effect that is a library writer (partial of operator.setitem)": (
        dict(
            init="self.sched = mock.Mock(**{'tolist.side_effect': "
            "functools.partial(operator.setitem, pool.k, 3, torch.full((2,), 0.5))})",
            body=CAST + "slots = self.sched.tolist()\n" + RET,
        ),
        dict(
            init="self.sched = mock.Mock(**{'tolist.side_effect': functools.partial(operator.getitem, pool.k, 3)})",
            body=CAST + "slots = self.sched.tolist()\n" + RET,
        ),
        "may call a writer under the name `tolist`",
        ("patch", "_escaped_writer", lambda analysis: None),
    ),
    # -- frame introspection (frame_functions, frame_attributes)
    "inspect.currentframe().f_locals after the gather": (
        dict(body=CAST + "rows = k[idx]\nseen = inspect.currentframe().f_locals['k']\nreturn rows, seen.dtype\n"),
        dict(
            body="rows = self.pool.get_key_buffer(0).to(torch.bfloat16)[idx]\nseen = inspect.currentframe()\n"
            "return rows, seen.f_lineno > 0\n"
        ),
        "reads frames' local variables (`inspect.currentframe().f_locals`",
        ("patch", "_frame_reader", lambda analysis: None),
    ),
    "vars() after the gather": (
        dict(body=CAST + "rows = k[idx]\nreturn rows, str(vars()['k'].dtype)\n"),
        dict(body="return self.pool.get_key_buffer(0).to(torch.bfloat16)[idx], sorted(vars())\n"),
        "reads frames' local variables (`vars`",
        ("patch", "_frame_reader", lambda analysis: None),
    ),
    # -- match statements (protocols.match_*, compare; class pattern attribute reads)
    "a match value pattern in an or-pattern (`__eq__`)": (
        *both(
            prelude="\n\nclass Phase:\n    def __eq__(self, other):\n        {effect}\n"
            "        return other == 'idle'\n\n    __hash__ = object.__hash__\n",
            body=CAST + "match other:\n    case 'decode' | 'idle':\n        return k[idx]\nreturn None\n",
            other="Phase()",
        ),
        "runs `__eq__`",
        ("patch", "_match_effect", lambda analysis, pattern: None),
    ),
    "a positional class pattern (`__match_args__` reads a property)": (
        *both(
            prelude="\n\nclass Batch:\n    __match_args__ = ('slots',)\n\n    @property\n    def slots(self):\n"
            "        {effect}\n        return 2\n",
            body=CAST + "match other:\n    case Batch(n):\n        return k[idx[:n]]\nreturn None\n",
            other="Batch()",
        ),
        "positional class patterns",
        ("patch", "_match_effect", lambda analysis, pattern: None),
    ),
    # -- hashing (protocols.contains, set/dict comprehensions)
    "a set comprehension hashes its element": (
        *both(
            prelude="\n\nclass Req:\n    def __hash__(self):\n        {effect}\n        return 7\n",
            body=CAST + "seen = {r for r in (other,)}\n" + RET,
            other="Req()",
        ),
        "runs `__hash__`",
        ("protocol", "hash", "__hash__"),
    ),
    "`not in` a frozenset hashes the item": (
        *both(
            prelude="\n\nclass Req:\n    def __hash__(self):\n        {effect}\n        return 7\n",
            body=CAST + "fresh = other not in frozenset(('pad',))\n" + RET,
            other="Req()",
        ),
        "runs `__hash__`",
        ("protocol", "contains", "__hash__"),
    ),
    # -- a torch call runs its arguments' dunders (protocols.torch_arguments)
    "torch.full((n,), ...) runs n's `__index__`": (
        *both(
            prelude="\n\nclass Count:\n    def __index__(self):\n        {effect}\n        return 2\n",
            body=CAST + "pad = torch.full((other,), 0)\n" + FIXED_RET,
            other="Count()",
        ),
        "runs `__index__`",
        ("protocol", "torch_arguments", "__index__"),
    ),
    "idx.new_tensor(src) reads src's items": (
        *both(
            prelude="\n\nclass Slots:\n    def __len__(self):\n        return 2\n\n    def __getitem__(self, i):\n"
            "        {effect}\n        if i >= 2:\n            raise IndexError(i)\n        return [3, 1][i]\n",
            body=CAST + "sel = idx.new_tensor(other)\n" + FIXED_RET,
            other="Slots()",
        ),
        "runs `__getitem__`",
        ("protocol", "torch_arguments", "__getitem__"),
    ),
    # -- an operator's (or a new-value method's) result aliasing the pool (_operator_new, _may_provide)
    "the file's __mul__ answers the pool's buffer": (
        dict(
            prelude="\n\nclass Table:\n    def __mul__(self, i):\n        return POOL.k\n",
            init="self.table = Table()",
            body=CAST + "alias = self.table * 1\nalias[3] = 0.5\n" + RET,
        ),
        dict(
            prelude="\n\nclass Table:\n    def __mul__(self, i):\n        return POOL.k\n",
            init="self.table = Table()",
            body=CAST + "alias = torch.zeros(8) * 1\nalias[3] = 0.5\n" + RET,
        ),
        "writes into `alias[3]`, which may be or hold the pool",
        ("patch", "_operator_new", lambda analysis, construct, operands: True),
    ),
    "the file's __neg__ answers the pool's buffer": (
        dict(
            prelude="\n\nclass Table:\n    def __neg__(self):\n        return POOL.k\n",
            init="self.table = Table()",
            body=CAST + "alias = -self.table\nalias[3] = 0.5\n" + RET,
        ),
        dict(
            prelude="\n\nclass Table:\n    def __neg__(self):\n        return POOL.k\n",
            init="self.table = Table()",
            body=CAST + "alias = -torch.zeros(8)\nalias[3] = 0.5\n" + RET,
        ),
        "writes into `alias[3]`, which may be or hold the pool",
        ("patch", "_operator_new", lambda analysis, construct, operands: True),
    ),
    "a new list made by an operator holds the pool's buffer (`layers + []`)": (
        dict(init="self.layers = [pool.k]", body=CAST + "bufs = self.layers + []\nbufs[0][3] = 0.5\n" + RET),
        dict(init="self.layers = [pool.k]", body=CAST + "bufs = [torch.zeros(8)] + []\nbufs[0][3] = 0.5\n" + RET),
        "writes into `bufs[0][3]`, which may be or hold the pool",
        ("patch", "_elements_distinct", lambda analysis, expr, depth: cast_motion._distinct(analysis, expr, depth)),
    ),
    "a class of the file whose `clone()` answers the pool's buffer": (
        dict(
            prelude="\n\nclass Table:\n    def clone(self):\n        return POOL.k\n",
            init="self.table = Table()",
            body=CAST + "alias = self.table.clone()\nalias[3] = 0.5\n" + RET,
        ),
        dict(
            prelude="\n\nclass Table:\n    def clone(self):\n        return POOL.k\n",
            init="self.table = Table()",
            body=CAST + "alias = torch.zeros(8).clone()\nalias[3] = 0.5\n" + RET,
        ),
        "writes into `alias[3]`, which may be or hold the pool",
        ("patch", "_may_provide", lambda analysis, name: False),
    ),
}


@pytest.mark.parametrize("family", list(FAMILIES))
def test_hazard_is_not_fixed_by_default_and_is_real(family):
    hazard, _, words, _ = FAMILIES[family]
    src = source(hazard)
    found = cl003(src)
    assert len(found) == 1, found
    assert found[0].fix is None or found[0].fix.safety == FixSafety.UNSAFE, reason(found[0])
    assert words in reason(found[0]), reason(found[0])
    assert fix_source(src, "backend.py", TABLES, FixOptions()).new_source == src
    forced = fix_source(src, "backend.py", TABLES, FixOptions(unsafe=True)).new_source
    assert forced != src
    assert torch_outcome(forced) != torch_outcome(src)  # the moved cast reads what was written between


@pytest.mark.parametrize("family", list(FAMILIES))
def test_a_weaker_proof_passes_the_hazard(family, monkeypatch):
    """The mutation of the proof: with this family's rule switched off, the hazard is 'safe'."""
    hazard, _, _, weaker = FAMILIES[family]
    weaken(monkeypatch, weaker)
    found = cl003(source(hazard))
    assert len(found) == 1 and found[0].fix is not None and found[0].fix.safety == FixSafety.SAFE, reason(found[0])


@pytest.mark.parametrize("family", list(FAMILIES))
def test_mutation_is_fixed_and_keeps_every_value(family):
    _, clean, _, _ = FAMILIES[family]
    src = source(clean)
    found = cl003(src)
    assert len(found) == 1 and found[0].fix is not None and found[0].fix.safety == FixSafety.SAFE, reason(found[0])
    new = fix_source(src, "backend.py", TABLES, FixOptions()).new_source
    assert new != src
    assert torch_outcome(new) == torch_outcome(src)


# what the rules above leave proven: look-alikes in files that have the construct without the hazard
LOOK_ALIKES = {
    "a kernel kept under an attribute no table lists (`self.kern = kern`), a read-only call between": dict(
        prelude="\n\ndef kern(x):\n    commit()\n    return x\n",
        init="self.kern = kern",
        body=CAST + "n = idx.size(0)\n" + RET,
    ),
    "torch.nn.functional makes no module: `.half()` of a parameter": dict(
        prelude="\nimport torch.nn.functional as F\n", body=CAST + "q = idx.half()\n" + RET
    ),
    "a module class in the file, a conversion of a tensor": dict(
        prelude=MODULE, body=CAST + "v = self.pool.get_key_buffer(0).float()\n" + RET
    ),
    "an exception subclass (a builtin base) with a storing __init__, len() between": dict(
        prelude="\n\nclass E(Exception):\n    def __init__(self, pool):\n        super().__init__('x')\n"
        "        self.pool = pool\n",
        body=CAST + "n = len(idx)\n" + RET,
    ),
    "a library base whose members are read-only (UserList)": dict(
        prelude="\n\nclass Slots(collections.UserList):\n    def first(self):\n        return self.data[0]\n",
        body=CAST + "n = len(other)\n" + RET,
        other="Slots([3])",
    ),
    "frame introspection in a file whose fix changes no local (the direct form)": dict(
        body="return self.pool.get_key_buffer(0).to(torch.bfloat16)[idx], sorted(locals())\n"
    ),
}


@pytest.mark.parametrize("name", list(LOOK_ALIKES))
def test_look_alikes_stay_fixed_and_equal(name):
    src = source(LOOK_ALIKES[name])
    found = cl003(src)
    assert len(found) == 1 and found[0].fix is not None and found[0].fix.safety == FixSafety.SAFE, reason(found[0])
    new = fix_source(src, "backend.py", TABLES, FixOptions()).new_source
    assert new != src
    assert torch_outcome(new) == torch_outcome(src)


def test_a_project_base_is_outside_reach():
    """A class whose base is the project's own (imported from another of its files) gets no library code:
    its members are trusted by name, as other files' classes are (docs/fix.md, "Round 5")."""
    src = source(
        dict(
            prelude="\nfrom kvstore.backends import AttentionBackend\n\n\nclass Mine(AttentionBackend):\n"
            "    def forward(self, q):\n        commit()\n        return q\n",
            body=CAST + "n = len(other)\n" + RET,
        )
    )
    (finding,) = cl003(src)
    assert finding.fix is not None and finding.fix.safety == FixSafety.SAFE, reason(finding)


def test_the_facts_are_data():
    """Which conversions a module has, which names read frames, what a library base may call and what a
    torch call runs on its arguments are rules/casts.toml data."""
    assert {"to", "half", "bfloat16", "type"} <= TABLES.module_conversions
    assert {"locals", "eval", "sys._getframe"} <= TABLES.frame_functions and "f_locals" in TABLES.frame_attributes
    assert TABLES.library_bases["object"] == frozenset() and "__subclasses__" in TABLES.library_bases["abc.ABC"]
    assert "__index__" in TABLES.protocols["torch_arguments"] and "__hash__" in TABLES.protocols["contains"]
