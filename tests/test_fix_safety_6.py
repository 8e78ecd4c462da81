"""CL003's proof, round 3 of the blind fix-behaviour benchmark (benchmarks/fix_behaviour_3).

The blind round found 17 safe-labelled rewrites that changed behaviour (real torch 2.13, CPU).
Each family below is one hole of the proof, closed in castlint.analysis.cast_motion with the facts
in rules/casts.toml [cast_motion] (docs/fix.md, "Round 3 of the blind benchmark"):

* implicit code the protocol tables missed: a dict subclass's `__missing__` on a subscript, a
  tuple-subclass index's `__iter__` (torch iterates it), an ABC's `__subclasshook__` behind
  `isinstance` (table entries);
* dunders a class gets outside its class statement: `C.__bool__ = f`, `setattr(C, "__len__", f)`,
  `type(name, bases, {"__len__": f})` (`_dunders_bound_outside`);
* a property through a decorator that is not a known property decorator (`prop = property`, a
  subclass of property): any decorator not proven a plain method's (`_getter_decorator`);
* a rebinding that drops the last reference to an object with a `__del__`, or to a suspended
  generator with a `finally` (`_drops_finalizable`);
* a gather that is not defined for the stored dtype (`.gather`, `.take_along_dim` on FP8):
  `_check_gather_dtype`;
* a handler of IndexError around a cast whose target is not proven convertible (the cast can fail;
  the gather's IndexError then comes first): `_convertible_target`;
* whole-module facts: a trace/profile hook installed, autograd in use (the pool may require
  grad: grad_fn and backward's accumulation dtype change), a tensor subclass of the file
  (`_module_problems`).

For each family: the hazard is not fixed by default and its reason names the hole; a proof with
that check switched back to the weaker rule passes it as safe (the check is what catches it); and a
look-alike without the hazard is still fixed by default. That the hazards are real is shown on
real torch by the benchmark (benchmarks/fix_behaviour_3/validate_hazards.py and run.py); the fake
torch of the other test files has no FP8 kernels, hooks or autograd to show it here.
"""

from __future__ import annotations

import libcst as cst
import pytest

from castlint.models import FixSafety
from fix_safety_helpers import assert_fixed, assert_not_fixed_by_default, assert_safe, cl003, reason, weaken

TEMPLATE = """import abc
import sys

import torch
{prelude}

class Pool:
    def __init__(self):
        self.k = torch.zeros(8, 2, dtype=torch.float8_e4m3fn)

    def get_key_buffer(self, layer_id):
        return self.k

    def set_kv_buffer(self, layer_id, loc, k):
        self.k[loc] = k.to(self.k.dtype)


def commit(pool):
    pool.set_kv_buffer(0, 3, torch.ones(1, 2))
    return True


class Backend:
    def __init__(self, pool):
        self.pool = pool
{members}
    def forward(self, idx, loc, other):
{body}
"""

CAST = "k = self.pool.get_key_buffer(0).to(torch.bfloat16)\n"
GETTER = "\n    @{dec}\n    def scale(self):\n        {stmt}\n        return 1.0\n"

# family -> (hazard parts, look-alike parts, words of the hazard's reason, the weaker proof)
FAMILIES = {
    "__missing__ of a dict subclass": (
        dict(
            prelude="\n\nclass Scales(dict):\n    def __missing__(self, key):\n"
            "        commit(POOL)\n        return 1.0\n",
            body=CAST + "s = other[0]\nreturn k[idx]\n",
        ),
        dict(
            prelude="\n\nclass Scales(dict):\n    def __missing__(self, key):\n        return 1.0\n",
            body=CAST + "s = other[0]\nreturn k[idx]\n",
        ),
        "runs `__missing__`",
        ("protocol", "subscript", "__missing__"),
    ),
    "__iter__ of a tuple-subclass index": (
        dict(
            prelude="\n\nclass Slots(tuple):\n    def __iter__(self):\n        commit(POOL)\n"
            "        return super().__iter__()\n",
            body=CAST + "return k[other]\n",
        ),
        dict(
            prelude="\n\nclass Slots(tuple):\n    def __repr__(self):\n        return 'Slots'\n",
            body=CAST + "return k[other]\n",
        ),
        "runs `__iter__`",
        ("protocol", "gather_index", "__iter__"),
    ),
    "__subclasshook__ behind isinstance": (
        dict(
            prelude="\n\nclass Paged(abc.ABC):\n    @classmethod\n    def __subclasshook__(cls, c):\n"
            "        commit(POOL)\n        return True\n",
            body=CAST + "p = isinstance(other, Paged)\nreturn k[idx]\n",
        ),
        dict(
            prelude="\n\nclass Paged(abc.ABC):\n    @classmethod\n"
            "    def __subclasshook__(cls, c):\n        return True\n",
            body=CAST + "p = isinstance(other, Paged)\nreturn k[idx]\n",
        ),
        "runs `__subclasshook__`",
        # round 5: ABCMeta's checks calling a member of the class are also library code (_open_hit)
        [("callback", "isinstance", "__subclasshook__"), ("patch", "_open_hit", lambda analysis: None)],
    ),
    "a dunder bound after the class statement": (
        dict(
            prelude="\n\nclass Flags:\n    pass\n\n\ndef _flush(self):\n    return commit(POOL)\n\n\n"
            "Flags.__bool__ = _flush\n",
            body=CAST + "if other:\n    pass\nreturn k[idx]\n",
        ),
        dict(
            prelude="\n\nclass Flags:\n    pass\n\n\ndef _flush(self):\n    return True\n\n\nFlags.__bool__ = _flush\n",
            body=CAST + "if other:\n    pass\nreturn k[idx]\n",
        ),
        "runs `__bool__`",
        ("patch", "_dunders_bound_outside", lambda analysis: []),
    ),
    "a dunder in the namespace of type(name, bases, dict)": (
        dict(
            prelude="\n\ndef _len(self):\n    commit(POOL)\n    return 2\n\n\n"
            "Batch = type('Batch', (), {'__len__': _len})\n",
            body=CAST + "n = len(other)\nreturn k[idx]\n",
        ),
        dict(
            prelude="\n\ndef _len(self):\n    return 2\n\n\nBatch = type('Batch', (), {'__len__': _len})\n",
            body=CAST + "n = len(other)\nreturn k[idx]\n",
        ),
        "`__len__`",
        ("patch", "_dunders_bound_outside", lambda analysis: []),
    ),
    "a property through an aliased decorator": (
        dict(
            prelude="\nprop = property\n",
            members=GETTER.format(dec="prop", stmt="commit(self.pool)"),
            body=CAST + "s = self.scale\nreturn k[idx]\n",
        ),
        dict(
            prelude="\nprop = property\n",
            members=GETTER.format(dec="prop", stmt="pass"),
            body=CAST + "s = self.scale\nreturn k[idx]\n",
        ),
        "reads `self.scale`, a property",
        ("patch", "_getter_decorator", lambda analysis, d: cst.ensure_type(d, cst.Decorator) and False),
    ),
    "a property through a subclass of property": (
        dict(
            prelude="\n\nclass lazy(property):\n    pass\n",
            members=GETTER.format(dec="lazy", stmt="commit(self.pool)"),
            body=CAST + "s = self.scale\nreturn k[idx]\n",
        ),
        dict(
            prelude="\n\nclass lazy(property):\n    pass\n",
            members=GETTER.format(dec="lazy", stmt="pass"),
            body=CAST + "s = self.scale\nreturn k[idx]\n",
        ),
        "reads `self.scale`, a property",
        ("patch", "_getter_decorator", lambda analysis, d: False),
    ),
    "a rebinding runs __del__ of the old value": (
        dict(
            prelude="\n\nclass Ticket:\n    def __init__(self, pool):\n        self.pool = pool\n\n"
            "    def __del__(self):\n        commit(self.pool)\n",
            body="t = Ticket(self.pool)\n" + CAST + "t = None\nreturn k[idx]\n",
        ),
        dict(
            prelude="\n\nclass Ticket:\n    def __init__(self, pool):\n        self.pool = pool\n\n"
            "    def __del__(self):\n        commit(self.pool)\n",
            body="t = 0\n" + CAST + "t = None\nreturn k[idx]\n",
        ),
        "rebinds `t`, dropping its old value",
        ("patch", "_drops_finalizable", lambda analysis, leaf: None),
    ),
    "a rebinding closes a suspended generator (finally)": (
        dict(
            prelude="\n\ndef writer(pool):\n    try:\n        yield 1\n    finally:\n        commit(pool)\n",
            body="it = writer(self.pool)\nnext(it)\n" + CAST + "it = None\nreturn k[idx]\n",
        ),
        dict(
            prelude="\n\ndef writer(pool):\n    yield 1\n",
            body="it = writer(self.pool)\nnext(it)\n" + CAST + "it = None\nreturn k[idx]\n",
        ),
        "the generator `writer`'s `finally`/`with`",
        ("patch", "_drops_finalizable", lambda analysis, leaf: None),
    ),
    "a gather not defined for the stored dtype (.gather)": (
        dict(body=CAST + "return k.gather(0, idx)\n"),
        dict(body=CAST + "return k.index_select(0, idx)\n"),
        "the gather `gather` is not proven defined for every stored dtype",
        ("patch", "_check_gather_dtype", lambda *args: None),
    ),
    "a gather not defined for the stored dtype (one expression .take_along_dim)": (
        dict(body="return self.pool.get_key_buffer(0).to(torch.bfloat16).take_along_dim(idx, dim=0)\n"),
        dict(body="return self.pool.get_key_buffer(0).to(torch.bfloat16)[idx]\n"),
        "the gather `take_along_dim`",
        ("patch", "_check_gather_dtype", lambda *args: None),
    ),
    "IndexError handler around a cast whose target may fail": (
        dict(
            body="try:\n    return self.pool.get_key_buffer(0).to(self.kv_cache_dtype)[idx]\n"
            "except IndexError:\n    return None\n"
        ),
        dict(
            body="try:\n    return self.pool.get_key_buffer(0).to(torch.bfloat16)[idx]\nexcept IndexError:\n"
            "    return None\n"
        ),
        "may catch `IndexError`",
        ("patch", "_convertible_target", lambda analysis, cast: True),
    ),
    "a trace hook installed by the module": (
        dict(prelude="\n\ndef install(f):\n    sys.settrace(f)\n", body=CAST + "s = 0.5\nreturn k[idx]\n"),
        dict(prelude="\n\ndef install(f):\n    return f\n", body=CAST + "s = 0.5\nreturn k[idx]\n"),
        "installs a hook (`sys.settrace`)",
        ("patch", "_module_problems", lambda analysis: []),
    ),
    "autograd in the module (the pool may require grad)": (
        dict(
            prelude="\n\ndef train(t):\n    t.requires_grad_()\n",
            body="return self.pool.get_key_buffer(0).float()[idx]\n",
        ),
        dict(prelude="\n\ndef train(t):\n    return t\n", body="return self.pool.get_key_buffer(0).float()[idx]\n"),
        "uses autograd (`requires_grad_`)",
        ("patch", "_module_problems", lambda analysis: []),
    ),
    "a tensor subclass of the file (the pool may be one)": (
        dict(
            prelude="\n\nclass Scaled(torch.Tensor):\n    def float(self):\n"
            "        return self.as_subclass(torch.Tensor)\n",
            body=CAST + "return k[idx]\n",
        ),
        dict(
            prelude="\n\nclass Scaled:\n    def float(self):\n        return 1.0\n",
            body=CAST + "return k[idx]\n",
        ),
        "is a tensor subclass",
        # round 5: torch.Tensor is also a library base whose code may call the subclass's `float`
        [("patch", "_module_problems", lambda analysis: []), ("patch", "_open_hit", lambda analysis: None)],
    ),
}


def source(parts: dict) -> bytes:
    body = "".join("        " + line + "\n" for line in parts["body"].splitlines())
    prelude = parts.get("prelude", "")
    if "POOL" in prelude:
        prelude += "\n\nPOOL = None\n"
    return TEMPLATE.format(prelude=prelude, members=parts.get("members", ""), body=body.rstrip("\n")).encode()


@pytest.mark.parametrize("family", list(FAMILIES))
def test_hazard_is_not_fixed_by_default(family):
    hazard, _, words, _ = FAMILIES[family]
    assert_not_fixed_by_default(source(hazard), words)


@pytest.mark.parametrize("family", list(FAMILIES))
def test_a_weaker_proof_passes_the_hazard(family, monkeypatch):
    """The mutation of the proof: with this family's check back to the rule before, the hazard is
    'safe' - the check is what catches it."""
    hazard, _, _, weaker = FAMILIES[family]
    weaken(monkeypatch, weaker)
    assert_safe(source(hazard))


@pytest.mark.parametrize("family", list(FAMILIES))
def test_look_alike_is_still_fixed(family):
    _, clean, _, _ = FAMILIES[family]
    assert_fixed(source(clean))


@pytest.mark.parametrize(
    "decorator", ["staticmethod", "classmethod", "torch.no_grad()", "functools.lru_cache(maxsize=None)"]
)
def test_plain_method_decorators_keep_the_fix_safe(decorator):
    members = f"\n    @{decorator}\n    def helper(*args):\n        commit(args[-1])\n        return 1.0\n"
    src = source(dict(members=members, body=CAST + "s = self.pool\nreturn k[idx]\n"))
    (finding,) = cl003(src)
    assert finding.fix is not None and finding.fix.safety == FixSafety.SAFE, reason(finding)
