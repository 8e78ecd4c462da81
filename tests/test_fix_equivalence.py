"""Proof of equivalence: every castlint fix, run on a fake torch and a fake FlashInfer,
behaves like its input.

The original and the fixed module are executed side by side (tests/faketorch: pure
Python, no real torch) and driven the way an engine drives a backend. Criteria:

* CL003 (cast-after-gather) and the MLA rewrite's *fallback* branch: exactly the same
  behaviour - every call's result (dtype, device, shape, values) or exception type,
  the KV pool after each call, and every FlashInfer plan()/run() with its dtypes;
* the MLA rewrite's *native* branch (SM90, FlashInfer >= 0.6.14, FP8 KV): the fixed
  module plans the KV in the pool's dtype, run() gets the FP8 pool (the fake run()
  raises on any dtype that differs from the plan), and the outputs equal the
  original's within a tolerance.

The branch is chosen by the fake machine (capability, FlashInfer version, KV dtype),
so the guard the fix emits decides it itself; `force_guard` also forces every
bool-returning function the fix adds, whatever its name.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import sys
from pathlib import Path

import libcst as cst
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from castlint.fixes import FixError, FixOptions, fix_source
from castlint.models import FixSafety
from castlint.tables import load_tables
from conftest import FIXTURES
from faketorch import DTYPES, make_torch
from faketorch.flashinfer import make_flashinfer
from faketorch.harness import Env, Run, close, differences, execute, module_names, same_behaviour
from faketorch.paged import drive as drive_paged
from faketorch.paged import is_paged

TABLES = load_tables()
FIX_DIR = FIXTURES / "fix"


def _fix_options():
    sys.path.insert(0, str(Path(__file__).parent))
    from test_fixtures import FIX_OPTIONS

    return FIX_OPTIONS


FIX_OPTIONS = _fix_options()
FP8 = "torch.float8_e4m3fn"


def source_of(out_name: str) -> Path:
    return FIX_DIR / (out_name.split(".")[0] + ".in.py")


def fixed(source: bytes, options: FixOptions, name: str = "backend.py") -> bytes:
    return fix_source(source, name, TABLES, options).new_source


def added_modules(source: bytes, options: FixOptions, name: str = "backend.py") -> dict:
    """The modules the fix adds beside the file (path -> source): the profile's own."""
    return dict(fix_source(source, name, TABLES, options).companions)


def is_mla(source: bytes) -> bool:
    return b"BatchMLAPagedAttentionWrapper" in source


def min_flashinfer(fixed_source: bytes) -> tuple:
    """The oldest FlashInfer the fixed call forms run on: explicit run() scales need 0.6.14,
    the 0.7 keyword API needs 0.7 (castlint emits them only for releases that pin those)."""
    if b"metadata=" in fixed_source or b"query=" in fixed_source:
        return (0, 7, 0)
    if b"ckv_scale=" in fixed_source:
        return (0, 6, 14)
    return (0, 0, 0)


def _version(text: str) -> tuple:
    from castlint.common.versions import parse_version

    return parse_version(text)


# -- the fake torch and FlashInfer themselves --------------------------------------------


def test_fake_torch_models_what_the_proof_relies_on():
    torch = make_torch()
    pool = torch.tensor([0.1 * i - 1.0 for i in range(24)], device="cuda").reshape(4, 1, 6).to(torch.float8_e4m3fn)
    loc = torch.tensor([2, 0], device="cuda")
    assert pool.to(torch.float8_e4m3fn) is pool  # .to() of the same dtype is the tensor itself
    snapshot = pool.to(torch.bfloat16)  # a converted copy is a snapshot
    view = pool[:, :, :3]  # a view shares storage
    pool[loc] = torch.zeros(2, 1, 6, dtype=torch.float8_e4m3fn, device="cuda")
    assert view[2].tolist() == [[0.0, 0.0, 0.0]] and snapshot[2].tolist() != [[0.0] * 6]
    assert pool.to(torch.bfloat16)[loc].tolist() == pool[loc].to(torch.bfloat16).tolist()
    # fp8 is coarse: the order of casts shows
    x = torch.tensor([0.3, 1.1, 300.0, 500.0])
    assert x.to(torch.float8_e4m3fn).tolist()[:3] == [0.3125, 1.125, 288.0]
    assert str(x.to(torch.float8_e4m3fn).tolist()[3]) == "nan"
    assert x.to(torch.bfloat16).to(torch.float8_e4m3fn).tolist()[1] == 1.125
    with pytest.raises(RuntimeError, match="Float8"):
        torch.cat([pool[loc].to(torch.bfloat16), pool[loc]])  # the bug class of issue 10
    with pytest.raises(RuntimeError, match="Float8"):
        pool * 2
    with pytest.raises(RuntimeError, match="indices"):
        pool.to("cpu")[loc]  # a CPU tensor indexed on the GPU
    assert pool.view(torch.uint8).view(torch.float8_e4m3fn).tolist() == pool.tolist()
    assert DTYPES["bfloat16"].itemsize == 2 and torch.float8_e4m3fn.itemsize == 1
    assert torch.empty(1 << 27, dtype=torch.uint8).shape == (1 << 27,)  # workspaces stay lazy


def test_fake_flashinfer_checks_plan_against_run():
    torch = make_torch(capability=(9, 0))
    fi = make_flashinfer(torch, "0.7.2")
    ws = torch.empty(1 << 20, dtype=torch.uint8, device="cuda")
    w = fi.BatchMLAPagedAttentionWrapper(ws, backend="auto")
    idx = [torch.tensor(v, dtype=torch.int32, device="cuda") for v in ([0, 1], [0, 2], [0, 1], [2])]
    w.plan(*idx, 1, 512, 64, 1, False, 0.1, torch.bfloat16, torch.float8_e4m3fn)
    q = torch.zeros(1, 1, 512, dtype=torch.bfloat16, device="cuda")
    qr = torch.zeros(1, 1, 64, dtype=torch.bfloat16, device="cuda")
    kv = torch.zeros(3, 1, 576, dtype=torch.float8_e4m3fn, device="cuda")
    with pytest.raises(ValueError, match="does not match the planned kv_data_type"):
        w.run(q, qr, kv[..., :512].to(torch.bfloat16), kv[..., 512:].to(torch.bfloat16))
    with pytest.raises(ValueError, match="required"):
        w.run(q, qr, kv[..., :512], kv[..., 512:])
    out = w.run(q, qr, kv[..., :512], kv[..., 512:], ckv_scale=1.0, kpe_scale=1.0)
    assert out.dtype is torch.bfloat16 and tuple(out.shape) == (1, 1, 512)
    w.plan(*idx, 1, 512, 64, 1, False, 0.1, q_data_type=torch.bfloat16, kv_data_type=torch.bfloat16)
    assert [e["kv"] for e in fi.log if e["kind"] == "plan"] == [FP8, "torch.bfloat16"]
    old = make_flashinfer(make_torch(), "0.6.0")
    w = old.BatchMLAPagedAttentionWrapper(ws)
    with pytest.raises(RuntimeError, match="1-byte KV"):
        w.plan(*idx, 1, 512, 64, 1, False, 0.1, torch.bfloat16, torch.float8_e4m3fn)
    w.plan(*idx, 1, 512, 64, 1, False, 0.1, torch.bfloat16, torch.bfloat16)
    with pytest.raises(TypeError, match="ckv_scale"):
        w.run(q, qr, kv[..., :512], kv[..., 512:], ckv_scale=None, kpe_scale=None)
    sm120 = make_flashinfer(make_torch(capability=(12, 0)), "0.7.2")
    with pytest.raises(ValueError, match="SM90"):
        sm120.BatchMLAPagedAttentionWrapper(ws).plan(
            *idx, 1, 512, 64, 1, False, 0.1, torch.bfloat16, torch.float8_e4m3fn
        )


# -- criteria --------------------------------------------------------------------------


def assert_same(original: Run, fixed_run: Run, what: str):
    assert original.load_error is None, f"{what}: the original does not load: {original.load_error}"
    assert original.calls, f"{what}: nothing was driven"
    why = same_behaviour(original, fixed_run)
    assert why is None, f"{what}: the fix changed behaviour: {why}"


def _close(a, b) -> bool:
    from faketorch.tensor import Tensor

    if isinstance(a, Tensor) and isinstance(b, Tensor):
        return close(a, b)
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)) and len(a) == len(b):
        return all(_close(x, y) for x, y in zip(a, b))
    return type(a).__name__ == type(b).__name__


def assert_native(original: Run, fixed_run: Run, what: str):
    """The mixed-precision form: FP8 KV planned and passed, results within tolerance."""
    assert original.load_error is None and fixed_run.load_error is None, (original.load_error, fixed_run.load_error)
    assert not original.raised, f"{what}: the original fails here: {original.errors}"
    assert not fixed_run.raised, f"{what}: the fixed module fails on the native branch: {fixed_run.errors}"
    runs = [e for e in fixed_run.log if e["kind"] == "run"]
    plans = [e for e in fixed_run.log if e["kind"] == "plan"]
    decode = [
        e
        for label, _, _ in fixed_run.calls
        if label.startswith("forward_decode")
        for e in fixed_run.log_of(label)
        if e["kind"] == "run"
    ]
    assert decode and all(e["ckv"] == FP8 and e["kpe"] == FP8 for e in decode), (
        f"{what}: decode does not read the FP8 pool: {decode}"
    )
    for run in runs:
        assert run["ckv"] == run["planned_kv"], run
        if run["ckv"] == FP8:
            assert (run["ckv_scale"], run["kpe_scale"]) == (1.0, 1.0), run
    fp8_wrappers = {r["wrapper"] for r in runs if r["ckv"] == FP8}
    assert all(p["kv"] == FP8 for p in plans if p["wrapper"] in fp8_wrappers), plans
    assert all(p["q"] == "torch.bfloat16" for p in plans), plans
    assert [c[0] for c in original.calls] == [c[0] for c in fixed_run.calls]
    for (label, _, pool_a), (_, _, pool_b) in zip(original.calls, fixed_run.calls):
        assert pool_a == pool_b, f"{what}: {label} left a different KV pool"
        if label in original.tensors:
            assert _close(original.tensors[label], fixed_run.tensors.get(label)), f"{what}: {label} differs"


@functools.lru_cache(maxsize=None)
def run_original(source: bytes, env: Env, driver: str, only=None) -> Run:
    """The input's behaviour (the same for every variant of a fixture's fix: computed once)."""
    return execute(source, env, driver, only=only)


def check_pair(source: bytes, new: bytes, env: Env, companions=None) -> tuple:
    driver = "mla" if is_mla(source) else "classes"
    baseline = module_names(source, env) if env.force_guard is not None else None
    original = run_original(source, dataclasses.replace(env, force_guard=None), driver)
    return original, execute(new, env, driver, baseline, companions=companions)


def assert_decode_only(original: Run, fixed_run: Run, what: str):
    """--profile minimal: every driven call that is not a decode one (extend, prefill, their
    plans) behaves exactly as the original's, FlashInfer calls included: its plan keeps the
    model dtype and its forward the whole-pool cast."""
    words = TABLES.decode_step_exclude_words  # extend, prefill: what minimal leaves alone
    rest = [label for label, _, _ in original.calls if any(w in label for w in words) and label in fixed_run.spans]
    assert any(e["kind"] == "run" for label in rest for e in original.log_of(label)), f"{what}: no extend run driven"
    outcomes = {label: outcome for label, outcome, _ in fixed_run.calls}
    for label, outcome, _ in original.calls:
        if label in rest:
            assert outcomes[label] == outcome, f"{what}: {label}"
            assert _calls(fixed_run, label) == _calls(original, label), f"{what}: {label} changed its FlashInfer calls"


def _calls(run: Run, label: str) -> list:
    """A driven call's FlashInfer calls, without the wrappers' object ids."""
    return [{k: v for k, v in e.items() if k != "wrapper"} for e in run.log_of(label)]


# -- every fixture pair ------------------------------------------------------------------

CL003_ENVS = [Env(), Env(capability=(12, 0), flashinfer="0.6.0")]
PROVED = {"fixtures": 0, "calls": 0, "mla_branches": 0}


# The rows-read pairs (issue 24): one fix spans the pool module and the backend, so they run
# together, on CPU torch with packed FP4-style data (tests/test_rows_read.py drives them).
ROWS_READ = {"fp4_pool.out.py", "row_kernel_backend.out.py"}


@pytest.mark.parametrize("out_name", sorted(FIX_OPTIONS), ids=lambda n: n[: -len(".out.py")])
def test_every_fixture_fix_behaves_like_its_input(out_name):
    options = FIX_OPTIONS[out_name]
    source = source_of(out_name).read_bytes()
    new = fixed(source, options)
    if out_name in ROWS_READ:
        torch = pytest.importorskip("torch")
        import test_rows_read

        with pytest.MonkeyPatch.context() as patch:
            for extend in (False, True):
                before, _, _ = test_rows_read._run(False, patch, extend=extend)
                after, seen, _ = test_rows_read._run(True, patch, extend=extend)
                assert torch.equal(before, after), f"{out_name}: extend={extend}"
                assert seen == [12, 12], seen  # only the rows the kernel reads were dequantized
        return
    if is_paged(source):
        fix = fix_source(source, "backend.py", TABLES, options)
        companions = {Path(p).stem: text for p, text in fix.companions.items()}
        if fix.new_source == source:  # refused: nothing changed, nothing added
            assert not companions
            return
        if options.unsafe and FixSafety.UNSAFE.value in out_name:
            return  # unsafe fixes are not claimed to keep behaviour
        for page_size in (1, 4):
            for capturing in (False, True):
                before, _ = drive_paged(source, {}, page_size, capturing)
                after, _ = drive_paged(fix.new_source, companions, page_size, capturing)
                assert after == before, f"{out_name}: page size {page_size}, capturing {capturing}"
        return
    if is_mla(source):
        companions = added_modules(source, options)
        for env in mla_envs(new):
            original, fixed_run = check_pair(source, new, env, companions)
            native = any(e["kind"] == "run" and e["ckv"] == FP8 for e in fixed_run.log)
            if native:
                assert_native(original, fixed_run, f"{out_name} on {env.label()}")
            else:
                assert_same(original, fixed_run, f"{out_name} on {env.label()}")
            if options.profile == "minimal":
                assert_decode_only(original, fixed_run, f"{out_name} on {env.label()}")
            expected = env_is_native(env) and new != source  # a refused fix (out == in) reads nothing natively
            assert native == expected, f"{out_name}: the guard chose the wrong branch on {env.label()}"
        return
    for env in CL003_ENVS:
        original, fixed_run = check_pair(source, new, env)
        if options.unsafe and FixSafety.UNSAFE.value in out_name:
            continue  # unsafe fixes are not claimed to keep behaviour: test_unsafe_... below
        assert_same(original, fixed_run, f"{out_name} on {env.label()}")
        assert not original.raised, f"{out_name}: a fixture method fails on the fake torch: {original.errors}"


# -- the MLA rewrite: both branches of its guard -------------------------------------------

# (FlashInfer, capability): the guard's version boundary on SM90, and another GPU
MACHINES = (("0.6.0", (9, 0)), ("0.6.13", (9, 0)), ("0.6.14", (9, 0)), ("0.7.2", (9, 0)), ("0.7.2", (12, 0)))


def env_is_native(env: Env) -> bool:
    """What the FP8-KV capability matrix (rules/flashinfer.toml) says for the fake machine."""
    if env.force_guard is not None:
        return env.force_guard
    return (
        env.capability == (9, 0)
        and _version(env.flashinfer) >= (0, 6, 14)
        and env.kv_dtype == "float8_e4m3fn"
        and env.model_dtype == "bfloat16"
    )


def mla_envs(new: bytes):
    lowest = min_flashinfer(new)
    envs = [Env(flashinfer=v, capability=c) for v, c in MACHINES if _version(v) >= lowest]
    envs.append(Env(kv_dtype="bfloat16"))  # a BF16 KV cache: nothing to do
    envs.append(Env(kv_dtype="float8_e5m2"))  # an e5m2 pool: no FP8-KV kernel, the compact read
    envs.append(Env(force_guard=False))  # SM90 + FlashInfer 0.7.2, the fix's functions forced off
    return envs


MLA_VARIANTS = sorted(
    n
    for n in FIX_OPTIONS
    if is_mla(source_of(n).read_bytes()) and (FIX_DIR / n).read_bytes() != source_of(n).read_bytes()
)  # the fixes that apply


@pytest.mark.parametrize("out_name", MLA_VARIANTS)
def test_mla_guard_forced_off(out_name):
    """Whatever the guard is called: forcing the fix's decisions off (bool -> False, a
    capability record -> None) gives the input's behaviour exactly, on the machine where
    the guard says yes."""
    source = source_of(out_name).read_bytes()
    new = fixed(source, FIX_OPTIONS[out_name])
    companions = added_modules(source, FIX_OPTIONS[out_name])
    native = Env(flashinfer="0.7.2", capability=(9, 0))
    original, on = check_pair(source, new, native, companions)
    assert_native(original, on, f"{out_name}, native")
    original, off = check_pair(source, new, dataclasses.replace(native, force_guard=False), companions)
    assert_same(original, off, f"{out_name}, guard forced off")
    added = module_names(new, native) - module_names(source, native)
    assert added, "the fix added no module-level function: nothing was forced"


@pytest.mark.parametrize("switch", [None, "auto", "native", "compact", "off"])
@pytest.mark.parametrize("out_name", ["mla_backend.out.py", "mla_backend.minimal.out.py"])
def test_each_switch_value_gives_its_path(out_name, switch, monkeypatch):
    """SGLANG_MLA_KV_READ on the machine where every read is allowed (SM90, FlashInfer 0.7.2,
    e4m3 pool): auto (and unset) and native read decode natively; compact never does, and
    converts the rows a plan reads instead (full profile; the minimal module has no compact
    read and keeps the cast); off is the input's behaviour exactly."""
    from faketorch import harness

    variable = TABLES.kv_read_switch["variable"]
    if switch is None:
        monkeypatch.delenv(variable, raising=False)
    else:
        monkeypatch.setenv(variable, switch)
    # the pool reports many more rows than the world holds (the fixture never reads its size), so
    # that converting the rows a plan reads costs less than the whole-pool cast
    init = harness.FakePool.__init__

    def big_pool(self, *args, **kwargs):
        init(self, *args, **kwargs)
        self.size = 100_000

    monkeypatch.setattr(harness.FakePool, "__init__", big_pool)
    run_original.cache_clear()
    source = source_of(out_name).read_bytes()
    options = FIX_OPTIONS[out_name]
    new = fixed(source, options)
    original, fixed_run = check_pair(
        source, new, Env(flashinfer="0.7.2", capability=(9, 0)), added_modules(source, options)
    )
    what = f"{out_name}, {variable}={switch}"
    decode = fixed_run.reads["forward_decode"]["decode_wrapper"]
    if switch in (None, "auto", "native"):
        assert_native(original, fixed_run, what)
        assert decode == "native", fixed_run.reads
    else:
        assert_same(original, fixed_run, what)
        assert not any(e["kind"] == "run" and e["ckv"] == FP8 for e in fixed_run.log), what
        minimal = options.profile == "minimal"
        assert decode == ("compact" if switch == "compact" and not minimal else "cast"), fixed_run.reads
    if switch == "off":
        assert set(fixed_run.reads["forward_extend"].values()) == {"cast"}, fixed_run.reads
    run_original.cache_clear()


def test_mla_fix_follows_a_shape_only_view_of_the_cast_buffer():
    source = source_of("mla_backend.out.py").read_text()
    cast = "        k_buf = self.token_to_kv_pool.get_key_buffer(layer.layer_id).to(q.dtype)\n"
    assert cast in source
    source = source.replace(cast, cast + "        k_buf = k_buf.view(-1, 1, k_buf.shape[-1])\n").encode()
    result = fix_source(source, "backend.py", TABLES, FixOptions())
    assert result.changed, result.skipped
    for env in (Env(flashinfer="0.7.2", capability=(9, 0)), Env(flashinfer="0.7.2", capability=(12, 0))):
        original, fixed_run = check_pair(source, result.new_source, env)
        (assert_native if env_is_native(env) else assert_same)(original, fixed_run, env.label())


# -- the harness has teeth: broken fixes are caught ----------------------------------------


def _forced_safe(monkeypatch):
    """castlint's CL003 codemod with its safety proof switched off (what it did before)."""
    import dataclasses

    from castlint.analysis import cast_motion

    real = cast_motion.assess

    def everything_safe(a, call):
        move = real(a, call)
        return None if move is None else dataclasses.replace(move, safety=FixSafety.SAFE, reason="")

    monkeypatch.setattr(cast_motion, "assess", everything_safe)


def test_every_refused_cl003_rewrite_would_change_behaviour(monkeypatch):
    """Apply the refused rewrites anyway (castlint before issue 10 did): each one changes what
    its method returns or leaves in the pool - run alone, in a fresh world - or is not even
    valid code. So each refusal is needed, and the harness sees each failure."""
    text = (FIX_DIR / "cast_after_gather_refused.in.py").read_text()
    start, end = text.index("    def forward_write_converted"), text.index("    def forward_carried")
    rest = (text[:start] + text[end:]).encode()
    _forced_safe(monkeypatch)
    with pytest.raises(FixError, match="invalid code"):
        fixed(text.encode(), FixOptions())  # `latent[loc].to(d) = ...`
    new = fixed(rest, FixOptions())
    monkeypatch.undo()
    methods = [
        line.split("def ")[1].split("(")[0]
        for line in rest.decode().splitlines()
        if line.strip().startswith("def forward")
    ]
    assert len(methods) == 11
    unchanged = []
    for method in methods:
        original = run_original(rest, Env(), "classes", only=method)
        assert not original.raised, original.errors
        if not differences(original, execute(new, Env(), "classes", only=method)):
            unchanged.append(method)
    assert unchanged == []


def test_the_old_partial_rewrite_of_comprehensions_is_caught():
    """Issue 10: only the direct gather was rewritten, not the one in the comprehension."""
    source = (FIX_DIR / "cast_after_gather_safe.in.py").read_bytes()
    good = fixed(source, FixOptions())
    partial = good.replace(b"drafts = [latent[loc].to(torch.bfloat16) for", b"drafts = [latent[loc] for")
    assert partial != good
    original = run_original(source, Env(), "classes")
    assert differences(original, execute(partial, Env(), "classes")) == ["ToyGatherBackend.forward_spec"]
    assert execute(partial, Env(), "classes").errors["ToyGatherBackend.forward_spec"].startswith("RuntimeError")


class _ForwardFollowsAnotherWrapper(cst.CSTTransformer):
    """A broken MLA fix: forward_decode reads the pool, and gives run() the scales, as the prefill
    wrapper's plan chose, not as its own decode plan (which declared the FP8 pool) did."""

    def leave_Call(self, original, updated):
        func = updated.func
        if (
            isinstance(func, cst.Attribute)
            and func.attr.value in ("convert", "scales")
            and updated.args
            and cst.Module([]).code_for_node(updated.args[0].value) == "self.decode_wrapper"
        ):
            first = updated.args[0].with_changes(value=cst.parse_expression("self.prefill_wrapper"))
            return updated.with_changes(args=[first, *updated.args[1:]])
        return updated


def _module_keeps_the_model_dtype() -> dict:
    """A broken module: call_plan() chooses the native read but the plan keeps q's dtype, while
    the forward gets the FP8 pool."""
    from castlint.fixes.kv_read_module import kv_read_module

    added = kv_read_module(str(FIX_DIR / "mla_backend.in.py"), TABLES)
    broken = {}
    for path, source in added.companions.items():
        text = source.decode()
        for old, new in (
            ("kwargs = {**kwargs, kv_dtype_at: kv_dtype}", "kwargs = dict(kwargs)"),
            ("args[kv_dtype_at] = kv_dtype", "args[kv_dtype_at] = args[kv_dtype_at]"),
        ):
            assert old in text, old
            text = text.replace(old, new)
        broken[path] = text.encode()
    return broken


class _ScaleTwo(cst.CSTTransformer):
    def leave_Float(self, original, updated):
        return updated.with_changes(value="2.0") if updated.value == "1.0" else updated


@pytest.mark.parametrize(
    "mutation",
    [_ForwardFollowsAnotherWrapper, _ScaleTwo, _module_keeps_the_model_dtype],
    ids=lambda m: m.__name__.strip("_"),
)
def test_a_broken_mla_fix_is_caught_on_the_native_branch(mutation):
    source = source_of("mla_backend.out.py").read_bytes()
    new = fixed(source, FixOptions())
    companions = None
    if isinstance(mutation, type):
        broken = cst.parse_module(new).visit(mutation()).bytes
        if broken == new:
            pytest.skip("nothing to mutate in this version of the fix")
    else:
        broken, companions = new, mutation()
    env = Env(flashinfer="0.7.2", capability=(9, 0))
    original, good = check_pair(source, new, env)
    assert_native(original, good, "the real fix")
    original, bad = check_pair(source, broken, env, companions)
    with pytest.raises(AssertionError):
        assert_native(original, bad, "the broken fix")
    # and on the fallback branch the mutation is invisible, as it should be
    original, off = check_pair(source, broken, Env(flashinfer="0.7.2", capability=(12, 0)), companions)
    assert_same(original, off, "the broken fix, fallback")


def test_unsafe_fixes_are_unsafe_for_a_reason():
    """--unsafe-fixes: the helper that stores into the pool changes the rows (why it is not
    safe); the harmless helper, the lambda and the host copy keep them."""
    source = (FIX_DIR / "cast_after_gather_unsafe.in.py").read_bytes()
    new = fixed(source, FixOptions(unsafe=True))
    original = run_original(source, Env(), "classes")
    assert differences(original, execute(new, Env(), "classes")) == ["ToyUnsafeBackend.forward_decode"]


# -- fuzz-generated backends ---------------------------------------------------------------

FUZZ_EXAMPLES = int(os.environ.get("CASTLINT_EQUIVALENCE_EXAMPLES", "12"))
FUZZ_STATS = {"examples": 0, "changed": 0}


def _fuzz_settings():
    return settings(
        max_examples=FUZZ_EXAMPLES,
        deadline=None,
        database=None,
        derandomize=not os.environ.get("CASTLINT_FUZZ_RANDOM"),
        suppress_health_check=list(HealthCheck),
    )


def _backends():
    from test_fuzz import backends

    return backends()


@_fuzz_settings()
@given(source=_backends())
def test_fuzz_generated_backends_keep_their_behaviour(source):
    """Random backend-like classes (tests/test_fuzz.py's generator): whatever `castlint fix`
    (safe fixes) does to them, they behave the same on the fake torch, and every finding
    marked [*] is gone afterwards."""
    try:
        result = fix_source(source, "backend.py", TABLES, FixOptions())
    except (SyntaxError, FixError):
        return
    FUZZ_STATS["examples"] += 1
    if not result.changed:
        return
    FUZZ_STATS["changed"] += 1
    env = Env(capability=(12, 0))  # the MLA rewrite's fallback branch: exact equality
    original = execute(source, env, "classes")
    fixed_run = execute(result.new_source, env, "classes")
    why = same_behaviour(original, fixed_run)
    assert why is None, f"{why}\n--- source ---\n{source.decode()}\n--- fixed ---\n{result.new_source.decode()}"


# -- fuzz: CL003 forms with random code (and hazards) between the cast and its gathers -------------

CASTS = [
    ".to(torch.bfloat16)",
    ".to(q.dtype)",
    ".float()",
    ".half()",
    ".to(dtype=torch.float16)",
    ".to(q.dtype, non_blocking=True)",
    ".bfloat16()",
    ".to(self.data_type)",
    ".to(torch.float32).half()",
]
GATHERS = [
    "{v}[loc]",
    "{v}.index_select(0, loc)",
    "{v}[loc[:3]]",
    "torch.cat([{v}[i] for i in (loc, loc[:2])])",
    "{{0: {v}[loc]}}",
    "tuple({v}[i] for i in (loc,))",
    "(lambda i: {v}[i])(loc)",
    "{v}[loc][:, :, :512]",
]
# engine statements that rebind what the cast reads, write the pool, or just happen in between
BETWEEN = [
    "q = q.float()",
    "q = q[:, :, :576] * 1",
    "self.data_type = torch.float16",
    "loc = loc[:3]",
    "forward_batch.token_to_kv_pool.set_kv_buffer(layer, forward_batch.out_cache_loc, q[:, :1, :])",
    "self.pool.get_key_buffer(layer.layer_id)[forward_batch.out_cache_loc] = q[:, :1, :].to(torch.float8_e4m3fn)",
    "self.token_to_kv_pool.get_key_buffer(layer.layer_id).index_copy_(0, forward_batch.out_cache_loc, "
    "q[:, :1, :].to(torch.float8_e4m3fn))",
    "self._store(layer, forward_batch, q)",
    "self._noop(layer)",
    "for q in (q.half(),):\n    pass",
    "if flag:\n    q = q.float()\nelse:\n    loc = loc[:4]",
    "x = q * 2",
    "o = self.wrapper.run(q, q)",
    "q_nope = q[:, :, :512]\nq_nope.mul_(0.5)",
    "{v}[forward_batch.out_cache_loc[0]].zero_()",
    "{v}[forward_batch.out_cache_loc] = q[:, :1, :].to({v}.dtype)",
]
POOL_READS = [
    "self.pool.get_key_buffer(layer.layer_id)",
    "self.token_to_kv_pool.get_key_buffer(layer.layer_id)",
    "forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)",
    "self.k_buffer",
    "self.pool.kv_buffer[layer.layer_id]",
]
GATHER_CLASS = """import torch


class GatherBackend:
    def _store(self, layer, forward_batch, q):
        # a new value on every call
        old = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)[forward_batch.out_cache_loc]
        forward_batch.token_to_kv_pool.set_kv_buffer(layer, forward_batch.out_cache_loc, old.float() * -0.5 + 0.25)

    def _noop(self, layer):
        return layer.layer_id

    def forward_decode(self, q, layer, forward_batch, loc, flag=False):
{body}
"""


def _block(lines, indent="        "):
    return "\n".join(indent + line for text in lines for line in text.split("\n"))


@st.composite
def gather_backends(draw):
    """A method with a CL003 form - direct or through a variable, a chain of casts - and random
    statements (test_fuzz's, plus the hazards above) before, between and after its gathers."""
    from test_fuzz import statements

    v = draw(st.sampled_from(["latent", "k_cache", "kv"]))
    pool = draw(st.sampled_from(POOL_READS))
    cast = draw(st.sampled_from(CASTS))

    def noise():
        out = []
        for _ in range(draw(st.integers(0, 2))):
            if draw(st.booleans()):
                out.append(draw(st.sampled_from(BETWEEN)).format(v=v))
            else:
                out.append("\n".join(line.replace("\t", "    ") for line in draw(statements())))
        return out

    body = noise()
    if draw(st.booleans()):
        body.append(f"{v} = {pool}{cast}")
        body += noise()
        body.append("first = " + draw(st.sampled_from(GATHERS)).format(v=v))
        body += noise()
        body.append("return first, " + draw(st.sampled_from(GATHERS)).format(v=v))
    else:
        gather = draw(st.sampled_from(["{p}{c}[loc]", "{p}{c}.index_select(0, loc)", "{p}{c}[loc[:2]]"]))
        body.append("first = " + gather.format(p=pool, c=cast))
        body += noise()
        body.append("return first")
    return GATHER_CLASS.format(body=_block(body)).encode()


GATHER_STATS = {"examples": 0, "changed": 0, "refused_or_unsafe": 0}


@_fuzz_settings()
@given(source=gather_backends())
def test_fuzz_cl003_with_hazards_in_between(source):
    """Random engine code around a cast-before-gather: the safe fix either leaves the method
    alone or keeps every result and the pool exactly; refused and unsafe verdicts are counted."""
    try:
        result = fix_source(source, "backend.py", TABLES, FixOptions())
    except (SyntaxError, FixError):
        return
    GATHER_STATS["examples"] += 1
    GATHER_STATS["refused_or_unsafe"] += bool(result.skipped) or b"[loc]" in source and not result.changed
    if not result.changed:
        return
    GATHER_STATS["changed"] += 1
    env = Env()
    original = execute(source, env, "classes")
    fixed_run = execute(result.new_source, env, "classes")
    why = same_behaviour(original, fixed_run)
    assert why is None, f"{why}\n--- source ---\n{source.decode()}\n--- fixed ---\n{result.new_source.decode()}"
    # [*] only where the codemod applies: nothing safe is left to fix
    from castlint.checks.cast_before_gather import CastBeforeGather
    from castlint.config import Config
    from castlint.engine import module_context

    ctx = module_context(cst.parse_module(result.new_source), "backend.py", TABLES, Config().cost_model(TABLES))
    assert not [f for f in CastBeforeGather().check(ctx) if f.fix and f.fix.safety == FixSafety.SAFE]


# -- released sglang --------------------------------------------------------------------------


def release_envs(version: str):
    """Fake machines at or above the FlashInfer the release pins (an older one is not a
    valid install: the fix may then use call forms that release's FlashInfer has)."""
    pin = _version(TABLES.flashinfer_pin(version) or "0.0.0")
    native = [Env(flashinfer=v, capability=(9, 0)) for v in ("0.6.14", "0.7.2") if _version(v) >= pin]
    return native + [
        Env(flashinfer="0.7.2", capability=(12, 0)),
        Env(flashinfer="0.7.2", capability=(9, 0), force_guard=False),
    ]


@pytest.mark.network
@pytest.mark.parametrize("profile", ["full", "minimal"])
@pytest.mark.parametrize("version", ["0.5.16", "0.5.23"])
def test_released_sglang_mla_backend(version, profile):
    """sglang's own flashinfer_mla_backend.py, built from a fake model runner and driven through
    init_forward_metadata -> forward_decode and the paged forward_extend (new tokens stored
    first), original and fixed, on each fake machine."""
    from conftest import sglang_tree
    from faketorch.sglang import drive_release

    path = sglang_tree(version) / "srt" / "layers" / "attention" / "flashinfer_mla_backend.py"
    source = path.read_bytes()
    result = fix_source(source, str(path), TABLES, FixOptions(profile=profile))
    new = result.new_source
    assert new != source
    for env in release_envs(version):
        original, fixed_run = drive_release(source, new, env, dict(result.companions))
        what = f"sglang {version} ({profile}) on {env.label()}"
        if env_is_native(env):
            assert_native(original, fixed_run, what)
        else:
            assert_same(original, fixed_run, what)
        if profile == "minimal":
            assert_decode_only(original, fixed_run, what)
