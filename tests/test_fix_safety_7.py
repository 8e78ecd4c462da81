"""CL003's proof, round 4 of the blind fix-behaviour benchmark (benchmarks/fix_behaviour_4).

The blind round found 4 safe-labelled rewrites that changed behaviour (real torch 2.13, CPU). Each
family below is one hole of the proof, closed in castlint.analysis.cast_motion with the facts in
rules/casts.toml [cast_motion] (docs/fix.md, "Round 4 of the blind benchmark"):

* a method with a read-only name (`item`, `tolist`, ...) called on an object whose attribute of that
  name was bound outside a class statement - a keyword of a call (`SimpleNamespace(item=self._sync)`)
  or an attribute store / `setattr` - to a callable of the file that writes (`_members_bound_outside`);
* `+t` is `Tensor.positive()`, the tensor itself: an alias made by it was read as a new tensor, so a
  store into it was not a store into the pool (identity_operators);
* a rebinding that drops an object with a `weakref.finalize` (or `weakref.ref` callback): the callback
  runs then, though no class of the file defines `__del__` (finalizer_registrars);
* a cast whose target is not proven convertible may raise, and after the fix the gather's
  `IndexError` escapes first: a handler in a caller (anywhere in the module) sees another exception
  (`_module_handler`).

For each family: the hazard is not fixed by default and its reason names the hole; a proof with that
check switched back to the weaker rule passes it as safe (the check is what catches it); and a
look-alike without the hazard is still fixed by default. That the hazards are real is shown on real
torch by the benchmark (benchmarks/fix_behaviour_4/validate_hazards.py and run.py).
"""

from __future__ import annotations

import pytest

from castlint.models import FixSafety
from fix_safety_helpers import assert_fixed, assert_not_fixed_by_default, assert_safe, cl003, reason, weaken

TEMPLATE = """import types
import weakref

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
    def __init__(self, pool, kv_cache_dtype):
        self.pool = pool
        self.kv_cache_dtype = kv_cache_dtype
{members}
    def forward(self, idx, loc, other):
{body}
"""

CAST = "k = self.pool.get_key_buffer(0).to(torch.bfloat16)\n"
SYNC = "\n    def _sync(self):\n        {stmt}\n        return 2\n"
ALIAS = (
    "buf = self.pool.get_key_buffer(0)\nalias = {op}buf\nk = buf.to(torch.bfloat16)\nalias[3] = 1.0\nreturn k[idx]\n"
)
CALLER = (
    "\n\ndef step(backend, idx):\n    try:\n        return backend.forward(idx, 0, 0)\n"
    "    except NotImplementedError:\n        return None\n"
)
STAGED = "\n\nclass Staged:\n    pass\n"

# family -> (hazard parts, look-alike parts, words of the hazard's reason, the weaker proof)
FAMILIES = {
    "a read-only method name bound by a keyword (SimpleNamespace(item=...))": (
        dict(
            members=SYNC.format(stmt="commit(self.pool)"),
            body="hooks = types.SimpleNamespace(item=self._sync)\n" + CAST + "n = hooks.item()\nreturn k[idx]\n",
        ),
        dict(
            members=SYNC.format(stmt="pass"),
            body="hooks = types.SimpleNamespace(item=self._sync)\n" + CAST + "n = hooks.item()\nreturn k[idx]\n",
        ),
        "`item`",
        # round 5: the bound method passed on as a value is also an escaping writer (_escaped_writer)
        [("patch", "_members_bound_outside", lambda analysis: []), ("patch", "_escaped_writer", lambda analysis: None)],
    ),
    "a read-only method name bound by an attribute store": (
        dict(
            members=SYNC.format(stmt="commit(self.pool)"),
            body="other.tolist = self._sync\n" + CAST + "n = other.tolist()\nreturn k[idx]\n",
        ),
        dict(
            members=SYNC.format(stmt="pass"),
            body="other.tolist = self._sync\n" + CAST + "n = other.tolist()\nreturn k[idx]\n",
        ),
        "`tolist`",
        [("patch", "_members_bound_outside", lambda analysis: []), ("patch", "_escaped_writer", lambda analysis: None)],
    ),
    "an alias made by unary + (Tensor.positive returns the tensor itself)": (
        dict(body=ALIAS.format(op="+")),
        dict(body=ALIAS.format(op="-")),
        # (`+buf` is read as the pool itself since round 11, `-buf` as a new tensor made from it: the
        # store is then a write into the pool, where it was one into what may be or hold the pool)
        "writes into the pool (`alias[3] = ...`)",
        ("table", "identity_operators", set()),
    ),
    "a rebinding runs a weakref.finalize callback": (
        dict(
            prelude=STAGED,
            body="s = Staged()\nweakref.finalize(s, commit, self.pool)\n" + CAST + "s = None\nreturn k[idx]\n",
        ),
        dict(prelude=STAGED, body="s = Staged()\nr = weakref.ref(s)\n" + CAST + "s = None\nreturn k[idx]\n"),
        "the callback registered by `weakref.finalize(...)`",
        ("table", "finalizer_registrars", set()),
    ),
    "a caller's handler sees the gather's IndexError instead of the cast's error": (
        dict(prelude=CALLER, body="return self.pool.get_key_buffer(0).to(self.kv_cache_dtype)[idx]\n"),
        dict(prelude=CALLER, body="return self.pool.get_key_buffer(0).to(torch.bfloat16)[idx]\n"),
        "a handler of `NotImplementedError`",
        ("patch", "_module_handler", lambda analysis, catches: None),
    ),
}


def source(parts: dict) -> bytes:
    body = "".join("        " + line + "\n" for line in parts["body"].splitlines())
    return TEMPLATE.format(
        prelude=parts.get("prelude", ""), members=parts.get("members", ""), body=body.rstrip("\n")
    ).encode()


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


def test_a_parameter_stored_under_a_read_only_name_stays_data():
    """`self.size = size` (the pools of every engine) binds data, not a callable of the file:
    `.size()` between the cast and the gather stays proven read-only."""
    src = source(dict(body="other.size = loc\n" + CAST + "n = idx.size(0)\nreturn k[idx]\n"))
    (finding,) = cl003(src)
    assert finding.fix is not None and finding.fix.safety == FixSafety.SAFE, reason(finding)
