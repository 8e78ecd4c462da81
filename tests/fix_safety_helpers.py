"""What the CL003 fix-safety test files share (tests/test_fix_safety_5.py ... _9.py and
test_fix_reach_7.py ... _10.py): run CL003 on one file's source, read a finding's reason, weaken the
proof the way a family's mutation test asks, run a module on CPU torch (real FP8) to compare what it
returns, and build and judge a reach file's case."""

from __future__ import annotations

import sys
import types

import libcst as cst

from castlint.analysis import cast_motion
from castlint.checks.cast_before_gather import CastBeforeGather
from castlint.config import Config
from castlint.engine import module_context
from castlint.fixes import FixOptions, fix_source
from castlint.models import FixSafety
from castlint.tables import load_tables

TABLES = load_tables()


def cl003(src: bytes, tables=TABLES):
    """The CL003 findings of one file's source (its fix attached)."""
    module = cst.parse_module(src)
    ctx = module_context(module, "backend.py", tables, Config().cost_model(tables))
    return CastBeforeGather().check(ctx)


def reason(finding) -> str:
    """Why a finding's fix is unsafe or not offered, on one line ("" for a safe fix)."""
    return " ".join((finding.fix.description if finding.fix else finding.unfixable_reason or "").split())


def weaken(monkeypatch, weaker) -> None:
    """Switch a check of the proof back to the rule before it: ("patch", function, replacement),
    ("table", attribute, value), ("protocol", construct, dunder to drop), ("callback", builtin,
    dunder to drop), or a list of those (where two checks catch the family)."""
    if isinstance(weaker, list):
        for one in weaker:
            weaken(monkeypatch, one)
        return
    kind, where, what = weaker
    trust_lists(monkeypatch)  # round 6's general rule would catch the family too
    if kind == "patch":
        monkeypatch.setattr(cast_motion, where, what)
    elif kind == "table":
        monkeypatch.setattr(TABLES, where, what)
    elif kind == "protocol":
        monkeypatch.setitem(TABLES.protocols, where, TABLES.protocols[where] - {what})
    else:
        entry = dict(TABLES.callbacks[where], dunders=TABLES.callbacks[where]["dunders"] - {what})
        monkeypatch.setitem(TABLES.callbacks, where, entry)


def _listed_hit(analysis, dunders):
    """The rule of rounds 1-5: a construct runs only the dunders its table entry lists."""
    if not dunders:
        return None
    hit = sorted(set(dunders) & cast_motion.effectful_members(analysis))
    if hit and cast_motion.is_effectful(analysis, hit[0]):
        return hit[0]
    return cast_motion._open_hit(analysis)


def trust_lists(monkeypatch) -> None:
    """Switch round 6's general rule (any implicit member of the file, whatever the construct) back to
    the per-construct dunder lists, so that dropping one dunder from a list is the weaker proof."""
    monkeypatch.setattr(cast_motion, "_effectful_hit", _listed_hit)
    monkeypatch.setattr(cast_motion, "_implicit_hit", lambda analysis, construction=False: None)


def assert_not_fixed_by_default(src: bytes, words: str) -> None:
    """One CL003 finding on src, not safe, its reason naming words; a default fix leaves src as it is."""
    found = cl003(src)
    assert len(found) == 1, found
    assert found[0].fix is None or found[0].fix.safety == FixSafety.UNSAFE, reason(found[0])
    assert words in reason(found[0]), reason(found[0])
    assert fix_source(src, "backend.py", TABLES, FixOptions()).new_source == src


def assert_safe(src: bytes) -> None:
    """One CL003 finding on src, its fix safe."""
    found = cl003(src)
    assert len(found) == 1 and found[0].fix is not None and found[0].fix.safety == FixSafety.SAFE, reason(found[0])


def assert_fixed(src: bytes) -> None:
    """One CL003 finding on src, its fix safe, and a default fix rewrites src."""
    assert_safe(src)
    new = fix_source(src, "backend.py", TABLES, FixOptions()).new_source
    assert new != src


def comparable(value, torch):
    """A value with its tensors spelled out (dtype, shape, values as float32), to compare two runs."""
    if isinstance(value, torch.Tensor):
        return ("tensor", str(value.dtype), tuple(value.shape), value.detach().to(torch.float32).tolist())
    if isinstance(value, (list, tuple)):
        return type(value).__name__, [comparable(v, torch) for v in value]
    if isinstance(value, dict):
        return "dict", sorted((repr(k), comparable(v, torch)) for k, v in value.items())
    return value


def torch_outcome(src: bytes, entry: str = "run"):
    """Execute a module's source on CPU torch (a module of its own, registered while it runs, so that
    dataclasses and frames see it) and call its `run()`: what it returns, or the exception it raises
    (type and message), with tensors spelled out."""
    import torch

    name = f"castlint_fix_safety_subject_{abs(hash(src))}"
    module = types.ModuleType(name)
    sys.modules[name] = module
    try:
        exec(compile(src, "backend.py", "exec"), module.__dict__)
        try:
            return comparable(module.__dict__[entry](), torch)
        except Exception as exc:  # noqa: BLE001 - the outcome is the exception
            return ("raised", type(exc).__name__, str(exc))
    finally:
        sys.modules.pop(name, None)


REACH_MODULE = """{imports}
import torch
{prelude}

class Pool:
    def __init__(self):
        g = torch.Generator().manual_seed(0)
        self.k = torch.randn(8, 2, generator=g).to(torch.float8_e4m3fn)

    def get_key_buffer(self, layer_id):
        return self.k

    def set_kv_buffer(self, layer_id, loc, k):
        self.k[loc] = k.to(self.k.dtype)


POOL = Pool()


def commit():
    POOL.set_kv_buffer(0, {commit_row}, torch.full((1, 2), 0.5))
    return 2


class Layer:
    def __init__(self, layer_id):
        self.layer_id = layer_id
        self.head_dim = 4


class Backend:
    def __init__(self, pool):
        self.pool = pool
{init}

    def forward(self, kv_indices, layer):
{body}


def run():
    old = torch.get_default_dtype()
    try:
        backend = Backend(POOL)
        out = backend.forward(torch.tensor([3, 1]), Layer(0))
        return out, POOL.k
    finally:
        torch.set_default_dtype(old)
"""


def reach_source(
    imports: str,
    prelude: str,
    between: str,
    ret: str = "0",
    gather: str = "k[kv_indices]",
    init: str = "",
    commit_row: int = 3,
    methods: str = "",
) -> bytes:
    """A reach round's module (REACH_MODULE): the round's imports, the prelude before the classes, the
    cast, the code between, the gather and what it returns in the backend's forward, init in the
    backend's __init__, methods after the forward; commit() stores into row commit_row of the pool (a row
    the gather reads)."""
    body = "k = self.pool.get_key_buffer(0).to(torch.bfloat16)\n" + between + f"return {gather}, {ret}\n"
    indented = "".join("        " + line + "\n" for line in body.splitlines())
    init_lines = "".join("        " + line + "\n" for line in (init or "pass").splitlines())
    if methods:
        indented = indented.rstrip("\n") + "\n" + "".join("    " + line + "\n" for line in methods.splitlines())
    return REACH_MODULE.format(
        imports=imports.strip("\n"),
        prelude=prelude,
        body=indented.rstrip("\n"),
        init=init_lines.rstrip("\n"),
        commit_row=commit_row,
    ).encode()


def assert_exact(src: bytes) -> None:
    """Fixed by default, and the fixed code returns exactly what the input returns."""
    assert_fixed(src)
    new = fix_source(src, "backend.py", TABLES, FixOptions()).new_source
    assert torch_outcome(new) == torch_outcome(src)


def assert_hazard(src: bytes, words: str) -> None:
    """Not fixed by default (the reason naming words), and real: forced, it changes the result."""
    assert_not_fixed_by_default(src, words)
    forced = fix_source(src, "backend.py", TABLES, FixOptions(unsafe=True)).new_source
    assert forced != src
    assert torch_outcome(forced) != torch_outcome(src)
