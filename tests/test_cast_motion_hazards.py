"""Issue 19: CL003's fix is safe only when nothing that may write the pool runs between the cast
and the gather - and under aliasing that is any call not proven read-only, not only a call that
receives the pool or its owner.

For each hazard family, a case that the older proof (it looked only at calls receiving the pool
or its owner) passed as safe: each is now reported unsafe with a reason naming the line and the
call; a proof weakened back to the old rule passes it (so the new rule is what catches it); and
on the fake torch, the fix applied anyway (--unsafe-fixes) changes what the method returns (so
the hazard is real). Beside them, read-only positives stay safe and keep every value.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import libcst as cst
import pytest

from castlint.analysis import cast_motion
from castlint.checks.cast_before_gather import CastBeforeGather
from castlint.config import Config
from castlint.engine import module_context
from castlint.fixes import FixOptions, fix_source
from castlint.models import FixSafety
from castlint.tables import load_tables
from conftest import FIXTURES
from faketorch.harness import Env, differences, execute, same_behaviour
from fix_safety_helpers import trust_lists

TABLES = load_tables()
HAZARDS_IN = FIXTURES / "fix" / "cast_after_gather_hazards.in.py"
READONLY_IN = FIXTURES / "fix" / "cast_after_gather_readonly.in.py"

# method of fixtures/fix/cast_after_gather_hazards.in.py -> (hazard family, the code the reason names)
HAZARDS = {
    "forward_helper_object": ("(a) an object holding the pool writes it", "calls `self.kv_io.store(...)`"),
    "forward_pointer_table": ("(b) a module function writes through a pointer table", "calls `_write_kv(...)`"),
    "forward_self_method": ("(c) a method of self not known read-only", "calls `self._save(...)`"),
    "forward_callback": ("(d) a callback stored in an attribute", "calls `self.on_store(...)`"),
    "forward_loop": ("(e) a call in a loop that repeats the gather", "calls `self.kv_io.store(...)`"),
    "forward_attribute_store": ("(f) an attribute assignment (property setter)", "assigns `self.kv_io.staged`"),
    "forward_context": ("(g) a context manager between two gathers", "enters and exits `with DeferredStore("),
    "forward_context_exit": ("(g) __exit__ of the with around the cast", "the `with DeferredStore("),
    "forward_index_store": ("a call in the gather's own index", "calls `self.kv_io.store(...)`"),
    "forward_enclosing_store": ("a call around one gather, before a later one", "calls `self.kv_io.store(...)`"),
    "forward_argument_store": ("an argument evaluated before the gather", "calls `self.kv_io.store(...)`"),
    "forward_conditional": ("the test of a conditional expression", "calls `self.kv_io.store(...)`"),
    "forward_item_store": (
        "an index assignment into an object holding the pool",
        "writes into `self.kv_io[forward_batch.out_cache_loc]`",
    ),
}


def findings(source: bytes):
    module = cst.parse_module(source)
    ctx = module_context(module, "backend.py", TABLES, Config().cost_model(TABLES))
    return CastBeforeGather().check(ctx)


def by_method(source: bytes) -> dict:
    out = {}
    for f in findings(source):
        out[f.function.rsplit(".", 1)[-1]] = f
    return out


def reason(finding) -> str:
    return " ".join((finding.fix.description if finding.fix else finding.unfixable_reason).split())


def hazard_line(method: str) -> int:
    """The line of the hazard in method: the first line after the cast that holds the reason's code
    (for the `with` around the cast: the `with` line)."""
    lines = HAZARDS_IN.read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if f"def {method}(" in line)
    code = HAZARDS[method][1].split("`")[1].split("(")[0]
    for i in range(start + 1, len(lines)):
        if code in lines[i] and ".to(torch.bfloat16)" not in lines[i]:
            return i + 1
    raise AssertionError(f"{code} not found in {method}")


def test_every_hazard_method_is_a_cl003_site():
    source = HAZARDS_IN.read_bytes()
    methods = [
        line.split("def ")[1].split("(")[0]
        for line in source.decode().splitlines()
        if line.strip().startswith("def forward")
    ]
    assert methods == list(HAZARDS)
    assert sorted(by_method(source)) == sorted(HAZARDS)


@pytest.mark.parametrize("method", list(HAZARDS))
def test_hazard_is_unsafe_with_a_reason_naming_the_call_and_line(method):
    finding = by_method(HAZARDS_IN.read_bytes())[method]
    assert finding.fix is not None and finding.fix.safety == FixSafety.UNSAFE, reason(finding)
    text = reason(finding)
    if method in ("forward_loop", "forward_conditional") and "runs `__exit__`" in text:
        # round 6: an earlier line runs implicit code first (an operator or truth test on a value not
        # proven a builtin value, in a file whose DeferredStore.__exit__ writes); the first reason names it
        return
    assert HAZARDS[method][1] in text, text
    line = hazard_line(method)
    assert f"line {line}" in text or f"(line {line})" in text, (line, text)


def _weaker_proof(monkeypatch):
    """The proof before issue 19: a call (or statement) is harmless unless it receives the pool,
    its owner or the dtype's owner; the region ends at each read's name."""
    real_call, real_effect, real_binding = (
        cast_motion._unproven_call,
        cast_motion._statement_effect,
        cast_motion._binding_problem,
    )

    def call(analysis, node, shown, moved, owners, aliases):
        why = real_call(analysis, node, shown, moved, owners, aliases)
        return why if why and ("pool or its owner" in why or "dtype" in why) else None

    def effect(analysis, node, **options):
        return real_effect(analysis, node, **options) if isinstance(node, (cst.Await, cst.Yield)) else None

    def binding(*args):
        problem = real_binding(*args)
        return problem if problem is not None and problem[0] else None  # only the refusals

    monkeypatch.setattr(cast_motion, "_unproven_call", call)
    monkeypatch.setattr(cast_motion, "_statement_effect", effect)
    monkeypatch.setattr(cast_motion, "_binding_problem", binding)
    monkeypatch.setattr(cast_motion, "_exits_between", lambda *a: None)
    trust_lists(monkeypatch)  # and round 6's general rule back to the construct lists


def test_a_weaker_proof_passes_every_hazard(monkeypatch):
    """The mutation test: with the rule of issue 19 switched off, every hazard is 'safe' again - the
    cases are exactly what a proof that follows only the pool and its owner gets wrong."""
    _weaker_proof(monkeypatch)
    got = {m: f.fix.safety for m, f in by_method(HAZARDS_IN.read_bytes()).items()}
    assert got == {m: FixSafety.SAFE for m in HAZARDS}


@pytest.mark.parametrize("method", list(HAZARDS))
def test_hazard_changes_behaviour_when_the_fix_is_applied_anyway(method):
    """--unsafe-fixes applies it; on the fake torch the method then gathers the values stored
    after the cast instead of the snapshot: the hazard is real."""
    source = HAZARDS_IN.read_bytes()
    result = fix_source(source, "backend.py", TABLES, FixOptions(unsafe=True))
    assert result.changed
    safe = fix_source(source, "backend.py", TABLES, FixOptions())
    assert safe.new_source == source and len(safe.skipped) == len(HAZARDS)  # nothing by default
    original = execute(source, Env(), "classes", only=method)
    assert original.load_error is None and not original.raised, original.errors
    assert differences(original, execute(result.new_source, Env(), "classes", only=method)) == [
        f"ToyHazardBackend.{method}"
    ]


# -- positives: only read-only code in between --------------------------------------------------


def test_read_only_cases_stay_safe_and_keep_every_value():
    source = READONLY_IN.read_bytes()
    found = by_method(source)
    assert found and all(f.fix is not None and f.fix.safety == FixSafety.SAFE for f in found.values()), {
        m: reason(f) for m, f in found.items()
    }
    new = fix_source(source, "backend.py", TABLES, FixOptions()).new_source
    assert new != source and not [f for f in findings(new) if f.fix]
    for env in (Env(), Env(capability=(12, 0), flashinfer="0.6.0")):
        original, fixed_run = execute(source, env, "classes"), execute(new, env, "classes")
        assert not original.raised and len(original.calls) >= len(found), original.errors
        assert same_behaviour(original, fixed_run) is None


# -- the same rule on engine-style snippets (what the fake torch need not run) --------------------

HEAD = "import torch\n\n\nclass Backend:\n"
DEF = "def forward_decode(self, q, layer, forward_batch):\n"
CAST = "    latent = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id).to(torch.bfloat16)\n"
READ = "    return latent[forward_batch.kv_indices]\n"

# name -> (body, safety, words of the reason)
SNIPPETS = {
    "getattr-callable": (
        DEF + CAST + "    getattr(self.kv_io, 'store')(layer, q)\n" + READ,
        "unsafe",
        "line 7 calls `getattr(self.kv_io, 'store')(...)`, a callable the proof cannot name",
    ),
    "lambda-called": (
        DEF + CAST + "    (lambda: self.kv_io.store(layer, q))()\n" + READ,
        "unsafe",
        "a callable the proof cannot name",
    ),
    "local-callable": (
        DEF + CAST + "    cb = self.on_store\n    cb(layer, q)\n" + READ,
        "unsafe",
        "line 8 calls `cb(...)`",
    ),
    "subscript-callable": (
        DEF + CAST + "    self.hooks[0](layer, q)\n" + READ,
        "unsafe",
        "line 7 calls `self.hooks[0](...)`",
    ),
    "constructor": (DEF + CAST + "    KVFlush(self.kv_io)\n" + READ, "unsafe", "line 7 calls `KVFlush(...)`"),
    "list-append-in-loop": (
        DEF + CAST + "    outs = []\n    for loc in forward_batch.spec_locs:\n"
        "        outs.append(latent[loc])\n    return outs\n",
        "unsafe",
        "line 8 iterates `forward_batch.spec_locs`, which is not proven a builtin container",
    ),
    "print-to-a-file": (DEF + CAST + "    print(q, file=self.kv_io)\n" + READ, "unsafe", "line 7 calls `print(...)`"),
    "out-keyword": (
        DEF + CAST + "    torch.cat([q, q], out=self.scratch)\n" + READ,
        "unsafe",
        "line 7 calls `torch.cat(...)`",
    ),
    "torch-not-imported-as-torch": (
        "def forward_decode(self, q, layer, forward_batch, torch=None):\n"
        + CAST.replace("torch.bfloat16", "q.dtype")
        + "    torch.zeros(3)\n"
        + READ,
        "unsafe",
        "line 7 calls `torch.zeros(...)`",
    ),
    "decorator": (
        DEF + CAST + "    @self.kv_io.register\n    def hook():\n        pass\n" + READ,
        "unsafe",
        "line 7 applies the decorator `@self.kv_io.register`",
    ),
    "class-definition": (DEF + CAST + "    class Hook:\n        pass\n" + READ, "unsafe", "defines the class `Hook`"),
    "import": (DEF + CAST + "    import kv_store_ext\n" + READ, "unsafe", "line 7 imports a module"),
    "del-attribute": (
        DEF + CAST + "    del self.kv_io.staged\n" + READ,
        "unsafe",
        "line 7 deletes `self.kv_io.staged`",
    ),
    "augmented-attribute": (
        DEF + CAST + "    self.kv_io.count += 1\n" + READ,
        "unsafe",
        "line 7 assigns `self.kv_io.count`",
    ),
    "write-into-local-from-attribute": (
        DEF + CAST + "    buf = self.scratch\n    buf[forward_batch.out_cache_loc] = q\n" + READ,
        "unsafe",
        "line 8 writes into `buf[forward_batch.out_cache_loc]`",
    ),
    "in-place-on-attribute": (
        DEF + CAST + "    self.scratch.zero_()\n" + READ,
        "unsafe",
        "line 7 calls `self.scratch.zero_(...)`",
    ),
    "async-with": (
        "async " + DEF + CAST + "    async with self.kv_io.lock():\n        pass\n" + READ,
        "unsafe",
        "enters and exits `with self.kv_io.lock()`",
    ),
    "comprehension-walrus": (
        DEF + CAST + "    [(latent := x) for x in (q,)]\n" + READ,
        None,
        "`latent` is also bound at line 7",
    ),
    # positives
    "shape-queries": (
        DEF + CAST + "    n = q.size(0)\n    m = q.shape[1]\n    k = len(forward_batch.kv_indices)\n"
        "    z = torch.empty_like(q)\n" + READ,
        "safe",
        "",
    ),
    "forward-mode": (
        DEF + CAST + "    if forward_batch.forward_mode.is_decode():\n        raise ValueError('decode only')\n" + READ,
        "safe",
        "",
    ),
    "store-after-the-last-gather": (
        DEF + CAST + "    self.rows = self.attend(latent[forward_batch.kv_indices])\n"
        "    self.kv_io.store(layer, q)\n    return self.rows\n",
        "safe",
        "",
    ),
}


def snippet(body: str):
    source = (HEAD + textwrap.indent(textwrap.dedent(body), "    ")).encode()
    got = [(f.fix.safety.value if f.fix else None, reason(f)) for f in findings(source)]
    assert len(got) == 1, got
    return got[0]


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_snippets(name):
    body, safety, words = SNIPPETS[name]
    got_safety, text = snippet(body)
    assert got_safety == safety, text
    assert words in text, text


def test_module_and_class_variables_are_unsafe():
    """Code elsewhere may read a module or class variable: its readers cannot all be rewritten."""
    for source in (
        "import torch\nlatent = pool.get_key_buffer(0).to(torch.float32)\nrows = latent[idx]\n",
        ("import torch\n\n\nclass C:\n    latent = pool.get_key_buffer(0).to(torch.float32)\n    rows = latent[idx]\n"),
    ):
        got = [(f.fix.safety, reason(f)) for f in findings(source.encode())]
        assert len(got) == 1 and got[0][0] == FixSafety.UNSAFE and "variable, not a local" in got[0][1], got


REACHING = b"""import torch


class ToyReaching:
    def forward_decode(self, q, layer, forward_batch):
        latent = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id).to(torch.float32)
        [(latent := x) for x in (forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id),)]
        return latent[forward_batch.kv_indices]
"""


def test_another_binding_that_reaches_the_gather_is_refused(monkeypatch):
    """A walrus in a comprehension binds the function's variable (libcst files it under the
    comprehension): the gather then reads the unconverted pool, and the rewrite would convert it."""
    assert [f.fix for f in findings(REACHING)] == [None]  # refused, even unsafe
    real = cast_motion.assess

    def forced(analysis, call):
        import dataclasses

        move = real(analysis, call)
        return None if move is None else dataclasses.replace(move, safety=FixSafety.SAFE, reason="")

    monkeypatch.setattr(cast_motion, "assess", forced)
    new = fix_source(REACHING, "backend.py", TABLES, FixOptions()).new_source
    monkeypatch.undo()
    assert b"latent[forward_batch.kv_indices].to(torch.float32)" in new
    original = execute(REACHING, Env(), "classes")
    assert not original.raised, original.errors
    assert differences(original, execute(new, Env(), "classes")) == ["ToyReaching.forward_decode"]


def test_rule_lives_in_the_tables():
    """The read-only set is data: a method the tables do not list is unsafe; listed (as a user's
    extend-rules table would), the same code is safe."""
    import dataclasses

    body = DEF + CAST + "    q.peek_shape()\n" + READ
    assert snippet(body)[0] == "unsafe"
    more = dataclasses.replace(TABLES, read_methods=set(TABLES.read_methods) | {"peek_shape"})
    source = (HEAD + textwrap.indent(body, "    ")).encode()
    module = cst.parse_module(source)
    ctx = module_context(module, "backend.py", more, Config().cost_model(more))
    assert [f.fix.safety for f in CastBeforeGather().check(ctx)] == [FixSafety.SAFE]
    assert Path(cast_motion.__file__).read_text().count('"peek_shape"') == 0
