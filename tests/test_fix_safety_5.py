"""CL003's proof, round 2 of the blind fix-behaviour benchmark (benchmarks/fix_behaviour_2).

The blind round found four safe-labelled rewrites that changed behaviour, in three holes of the
proof; each family below is one hole, closed in castlint.analysis.cast_motion:

* a dunder a class binds by assignment (`__bool__ = _flush`, `__eq__ = flush_eq`,
  `__len__ = lambda self: ...`): the effectful members were only the defs of that name
  (`_bound_member_effectful`); and only the defs at the top of the class body, not one under an
  `if` of it (`_class_statements`: found while closing the first, not by the benchmark);
* the gather's own index runs a dunder (`__index__`) before the gather reads: after the fix that
  is before the pool is read, where the cast had already copied it (`_check_gather_index`);
* the fix swaps the cast and the gather, so a receiver that is not a tensor raises another
  exception (`None.float()` is AttributeError, `None[idx]` TypeError): an accessor of the file that
  may answer None (`_may_answer_none`), a handler around them that may catch either
  (`_check_handlers`: `try`/`except`, `with contextlib.suppress(...)`).

For each family: the hazard is not fixed by default and its reason names the hole; applied anyway
(--unsafe-fixes) it changes what the code returns or raises on the fake torch (the hazard is
real); a proof with that check switched back to the weaker rule passes it as safe (the check is
what catches it); and its mutation (the same file without the store, or with a tensor accessor)
is fixed by default and keeps every value. Spellings differ from the benchmark's cases.
"""

from __future__ import annotations

import pytest

from castlint.analysis import cast_motion
from castlint.fixes import FixOptions, fix_source
from castlint.models import FixSafety
from faketorch.module import make_torch
from fix_safety_helpers import TABLES, cl003, reason, trust_lists

TEMPLATE = """import contextlib

import torch
{prelude}

class Pool:
    def __init__(self, torch):
        self.k = torch.zeros(8, 2, dtype=torch.float8_e4m3fn)
        self.staged = []
        self.bufs = {{0: None, 1: self.k}}  # a layer not on this rank has no buffer

    def get_key_buffer(self, layer_id):
        {accessor}

    def set_kv_buffer(self, layer_id, loc, k):
        self.k[loc] = k.to(self.k.dtype)
{extra}

def write(pool, loc):
    pool.set_kv_buffer(0, loc, torch.ones(1, 2))
    return 1


class Cursor:
    def __init__(self, pool):
        self.pool = pool

    def __index__(self):
{cursor}        return 3


class Backend:
    def __init__(self, pool):
        self.pool = pool
        self.cursor = Cursor(pool)

    def forward(self, idx, loc):
{body}


def run(torch):
    pool = Pool(torch)
    pool.staged.append(torch.tensor([3]))
    out = Backend(pool).forward(torch.tensor([3, 1]), torch.tensor([3]))
    return out.to(torch.float32).tolist(), pool.k.to(torch.float32).tolist()
"""

TENSOR_ACCESSOR = "return self.k"
STORE = "self.k[self.staged[0]] = torch.ones(1, 2).to(self.k.dtype)\n"
CURSOR_STORE = "        self.pool.k[3] = torch.ones(2).to(self.pool.k.dtype)\n"
CAST = "k = self.pool.get_key_buffer(0).to(torch.bfloat16)\n"


def bound(member: str, value: str, helper: str = "") -> str:
    """Pool members: a helper method and `member = value` (the helper bound under a dunder)."""
    return helper + f"\n    {member} = {value}\n"


def helper_method(name: str, store: bool, returns: str) -> str:
    return f"\n    def {name}(self, *args):\n" + (f"        {STORE}" if store else "") + f"        return {returns}\n"


# family -> dict(prelude, extra, accessor, cursor, body) of the hazard, the same of its mutation,
# words of the hazard's reason, the check that the weaker proof drops
FAMILIES = {
    "__bool__ bound to a method that stores": (
        dict(
            extra=bound("__bool__", "_flush", helper_method("_flush", True, "True")),
            body=CAST + "if self.pool:\n    pass\nreturn k[idx]\n",
        ),
        dict(
            extra=bound("__bool__", "_flush", helper_method("_flush", False, "True")),
            body=CAST + "if self.pool:\n    pass\nreturn k[idx]\n",
        ),
        "runs `__bool__`",
        "_bound_member_effectful",
    ),
    "__eq__ bound to a module function that stores": (
        dict(
            prelude="\n\ndef flush_eq(self, other):\n    self.k[self.staged[0]] = torch.ones(1, 2).to(self.k.dtype)\n"
            "    return False\n",
            extra=bound("__eq__", "flush_eq") + "    __hash__ = object.__hash__\n",
            body=CAST + "same = self.pool == 0\nreturn k[idx]\n",
        ),
        dict(
            prelude="\n\ndef flush_eq(self, other):\n    return False\n",
            extra=bound("__eq__", "flush_eq") + "    __hash__ = object.__hash__\n",
            body=CAST + "same = self.pool == 0\nreturn k[idx]\n",
        ),
        "runs `__eq__`",
        "_bound_member_effectful",
    ),
    "__len__ bound to a lambda that stores": (
        dict(
            extra=bound("__len__", "lambda self: write(self, self.staged[0]) + 7"),
            body=CAST + "n = len(self.pool)\nreturn k[idx]\n",
        ),
        dict(extra=bound("__len__", "lambda self: 8"), body=CAST + "n = len(self.pool)\nreturn k[idx]\n"),
        "`__len__`",
        "_bound_member_effectful",
    ),
    "__bool__ defined under an `if` of the class body": (
        dict(
            extra="\n    if True:\n        def __bool__(self):\n            " + STORE + "            return True\n",
            body=CAST + "if self.pool:\n    pass\nreturn k[idx]\n",
        ),
        dict(
            extra="\n    if True:\n        def __bool__(self):\n            return True\n",
            body=CAST + "if self.pool:\n    pass\nreturn k[idx]\n",
        ),
        "runs `__bool__`",
        "_class_statements",
    ),
    "__index__ of the gather's index (variable form)": (
        dict(cursor=CURSOR_STORE, body=CAST + "return k[self.cursor]\n"),
        dict(cursor="", body=CAST + "return k[self.cursor]\n"),
        "runs `__index__`",
        "_check_gather_index",
    ),
    "__index__ of the gather's index (one expression)": (
        dict(cursor=CURSOR_STORE, body="return self.pool.get_key_buffer(0).to(torch.bfloat16)[self.cursor]\n"),
        dict(cursor="", body="return self.pool.get_key_buffer(0).to(torch.bfloat16)[self.cursor]\n"),
        "runs `__index__`",
        "_check_gather_index",
    ),
    "an accessor of the file that may answer None": (
        dict(
            accessor="return self.k if layer_id == 1 else None",
            body="return self.pool.get_key_buffer(0).to(torch.bfloat16)[idx]\n",
        ),
        dict(
            accessor="return self.k if layer_id == 1 else self.k[:]",
            body="return self.pool.get_key_buffer(0).to(torch.bfloat16)[idx]\n",
        ),
        "may answer None",
        "_may_answer_none",
    ),
    "try/except AttributeError around the swapped cast and gather": (
        dict(
            accessor="return self.bufs[layer_id]",
            body="try:\n    return self.pool.get_key_buffer(0).to(torch.bfloat16)[idx]\n"
            "except AttributeError:\n    return torch.zeros(2, 2)\n",
        ),
        dict(body=CAST + "try:\n    return k[idx]\nexcept IndexError:\n    return torch.zeros(2, 2)\n"),
        "that may catch `AttributeError`",
        "_check_handlers",
    ),
    "with contextlib.suppress(AttributeError) around the swapped cast and gather": (
        dict(
            accessor="return self.bufs[layer_id]",
            body="out = torch.zeros(2, 2)\nwith contextlib.suppress(AttributeError):\n"
            "    out = self.pool.get_key_buffer(0).to(torch.bfloat16)[idx]\nreturn out\n",
        ),
        dict(
            body="out = torch.zeros(2, 2)\nwith contextlib.suppress(IndexError):\n"
            "    out = self.pool.get_key_buffer(0).to(torch.bfloat16)[idx]\nreturn out\n"
        ),
        "that may catch `AttributeError`",
        "_check_handlers",
    ),
}

WEAKER = {
    "_bound_member_effectful": lambda *args: False,
    "_class_statements": lambda statements: iter(statements),
    "_check_gather_index": lambda *args: None,
    "_may_answer_none": lambda *args: None,
    "_check_handlers": lambda *args: None,
}


def source(parts: dict) -> bytes:
    body = "".join("        " + line + "\n" for line in parts["body"].splitlines())
    return TEMPLATE.format(
        prelude=parts.get("prelude", ""),
        extra=parts.get("extra", ""),
        accessor=parts.get("accessor", TENSOR_ACCESSOR),
        cursor=parts.get("cursor", ""),
        body=body.rstrip("\n"),
    ).encode()


def outcome(src: bytes):
    """What running the code gives: ("ok", values) or ("raises", the exception's type)."""
    torch = make_torch()
    namespace = {"__name__": "castlint_safety5_subject", "torch": torch}
    code = src.decode().replace("import torch\n", "", 1)
    try:
        exec(compile(code, "subject.py", "exec"), namespace)
        return "ok", namespace["run"](torch)
    except Exception as e:  # noqa: BLE001 - the exception's type is the behaviour compared
        return "raises", type(e).__name__


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
    assert outcome(forced) != outcome(src)  # other rows, or another exception


@pytest.mark.parametrize("family", list(FAMILIES))
def test_a_weaker_proof_passes_the_hazard(family, monkeypatch):
    """The mutation of the proof: with this family's check back to the rule before, the hazard is
    'safe' - the check is what catches it."""
    hazard, _, _, check = FAMILIES[family]
    monkeypatch.setattr(cast_motion, check, WEAKER[check])
    trust_lists(monkeypatch)  # round 6's general rule catches the family too
    found = cl003(source(hazard))
    assert len(found) == 1 and found[0].fix is not None and found[0].fix.safety == FixSafety.SAFE, reason(found[0])


@pytest.mark.parametrize("family", list(FAMILIES))
def test_mutation_is_fixed_and_keeps_every_value(family):
    _, clean, _, _ = FAMILIES[family]
    src = source(clean)
    found = cl003(src)
    assert len(found) == 1 and found[0].fix is not None and found[0].fix.safety == FixSafety.SAFE, reason(found[0])
    new = fix_source(src, "backend.py", TABLES, FixOptions()).new_source
    assert new != src and b".to(torch.bfloat16)" in new
    assert outcome(new) == outcome(src) and outcome(src)[0] == "ok"


@pytest.mark.parametrize(
    "binding", ["__hash__ = None", "__hash__ = object.__hash__", "rows = 4", "__repr__ = object.__repr__"]
)
def test_harmless_class_level_bindings_keep_the_fix_safe(binding):
    src = source(
        dict(extra=f"\n    {binding}\n", body=CAST + "if self.pool:\n    pass\nsame = self.pool == 0\nreturn k[idx]\n")
    )
    (finding,) = cl003(src)
    assert finding.fix is not None and finding.fix.safety == FixSafety.SAFE, reason(finding)


def test_a_dunder_bound_to_an_unknown_callable_is_not_proven():
    src = source(
        dict(
            extra="\n    __bool__ = functools.partialmethod(write, 0)\n",
            body=CAST + "if self.pool:\n    pass\nreturn k[idx]\n",
        )
    )
    (finding,) = cl003(src)
    assert finding.fix is not None and finding.fix.safety == FixSafety.UNSAFE, reason(finding)
    assert "`__bool__`" in reason(finding)
