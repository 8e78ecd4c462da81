"""Hand-written engine-style fixtures: exact findings, golden fixes, idempotence."""

import shutil
from pathlib import Path

import libcst as cst
import pytest

from castlint.config import Config
from castlint.engine import analyze_module
from castlint.fixes import FixOptions, fix_source
from castlint.tables import load_tables
from conftest import FIXTURES

TABLES = load_tables()
CONFIG = Config()
CHECK = sorted((FIXTURES / "check").glob("*.py"))
# Golden pairs, TorchFix style: name.in.py -> name.out.py; name.VARIANT.out.py is the same
# input fixed with other options.
FIX_OPTIONS = {
    "mla_backend.out.py": FixOptions(),
    "mla_backend.fi072.out.py": FixOptions(flashinfer_version="0.7.2"),
    "mla_backend.keyword.out.py": FixOptions(flashinfer_api="keyword", flashinfer_version="0.7.2"),
    # --profile minimal: the decode native read only; extend/prefill keep their plans and cast
    "mla_backend.minimal.out.py": FixOptions(profile="minimal", flashinfer_version="0.7.2"),
    "cast_before_gather.out.py": FixOptions(),
    "cast_after_gather_safe.out.py": FixOptions(),
    "cast_after_gather_refused.out.py": FixOptions(unsafe=True),  # nothing is offered, even unsafe
    "cast_after_gather_unsafe.out.py": FixOptions(),  # nothing applied without the flag
    "cast_after_gather_unsafe.unsafe.out.py": FixOptions(unsafe=True),
    "cast_after_gather_hazards.out.py": FixOptions(),  # issue 19: every move is unsafe, none applied
    "cast_after_gather_hazards.unsafe.out.py": FixOptions(unsafe=True),  # applied: each changes its method
    "cast_after_gather_readonly.out.py": FixOptions(),  # only read-only code in between: safe
    "cast_after_gather_decorated.out.py": FixOptions(),  # issue 19: the pool comes back through decorators
    "cast_after_gather_aliases.out.py": FixOptions(),  # issue 19: a parameter or a property writes the pool
    "cast_after_gather_aliases.unsafe.out.py": FixOptions(unsafe=True),  # applied: each hazard changes its method
    "mla_two_sources.out.py": FixOptions(),  # refused: run() also reads a draft buffer
    "paged_backend.out.py": FixOptions(),  # issue 24: paged kernels read only the pages listed
    "paged_refused.out.py": FixOptions(),  # refused: another reader, k= writes, a late table, two tables
    "paged_refused.unsafe.out.py": FixOptions(unsafe=True),  # only the unsafe one: a condition read again
    "fp4_pool.out.py": FixOptions(),  # issue 24: a rows getter beside each dequantizing accessor
    "row_kernel_backend.out.py": FixOptions(),  # issue 24: row-index kernels read only their rows
}
FIX = sorted((FIXTURES / "fix").glob("*.out.py"))


def findings(path: Path, source: bytes = None):
    source = source if source is not None else path.read_bytes()
    module = cst.parse_module(source)
    return analyze_module(module, str(path), module.code, TABLES, CONFIG, CONFIG.cost_model(TABLES))


def expected(path: Path):
    lines = path.with_suffix(".expected").read_text().splitlines()
    return [tuple(line.split()) for line in lines if line.strip() and not line.startswith("#")]


@pytest.mark.parametrize("path", CHECK, ids=lambda p: p.stem)
def test_check_fixture_exact_findings(path):
    got = [(f"{f.start.line}:{f.start.column}", f.code) for f in findings(path)]
    assert got == expected(path)


def source_of(out_path: Path) -> Path:
    return out_path.parent / (out_path.name.split(".")[0] + ".in.py")


def test_fixture_pairs_are_complete():
    assert {p.name for p in FIX} == set(FIX_OPTIONS)
    for out in FIX:
        assert source_of(out).exists()


@pytest.mark.parametrize("path", FIX, ids=lambda p: p.name[: -len(".out.py")])
def test_fix_golden_and_idempotent(path, tmp_path):
    target = tmp_path / "backend.py"
    shutil.copy(source_of(path), target)
    options = FIX_OPTIONS[path.name]
    result = fix_source(target.read_bytes(), str(target), TABLES, options)
    golden = path.read_bytes()
    assert result.new_source == golden
    compile(result.new_source, str(target), "exec")
    again = fix_source(result.new_source, str(target), TABLES, options)
    assert again.new_source == result.new_source, "a second fix must change nothing"
    # (--profile minimal too: the extend cast it keeps is not offered once the decode plans
    # declare the pool's dtype through the added module)
    left = {f.code for f in findings(target, result.new_source) if f.fixable and f.fix.safety.value == "safe"}
    assert left == set()


def test_mla_fix_changes_only_the_intended_lines():
    src = (FIXTURES / "fix" / "mla_backend.in.py").read_text().splitlines()
    out = (FIXTURES / "fix" / "mla_backend.out.py").read_text().splitlines()
    import difflib

    removed = [line for line in difflib.ndiff(src, out) if line.startswith("- ")]
    # the casts, and the callee of each plan (the plan's arguments stay as they are)
    assert all(
        ("get_key_buffer" in line and ".to(q.dtype)" in line) or line.rstrip().endswith(".plan(") or "out=None)" in line
        for line in removed
    ), removed


def test_unsafe_cast_before_gather_needs_flag(tmp_path):
    target = tmp_path / "x.py"
    shutil.copy(FIXTURES / "fix" / "cast_before_gather.in.py", target)
    safe = fix_source(target.read_bytes(), str(target), TABLES, FixOptions())
    assert b".to(q)[loc]" in safe.new_source
    assert any("unsafe" in why for _, why in safe.skipped)
    unsafe = fix_source(target.read_bytes(), str(target), TABLES, FixOptions(unsafe=True))
    assert b"[loc].to(q)" in unsafe.new_source
