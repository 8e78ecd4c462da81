"""The per-version FlashInfer facts in rules/flashinfer.toml, checked against released wheels.

The wheels are downloaded (pure-Python wheels; cached outside the repo), unzipped,
and their signatures read with `ast` (signatures only: no source is rewritten); nothing
from them is imported or committed.
"""

import ast
import functools

import pytest

from castlint.tables import load_tables, parse_version
from conftest import unpacked_wheel

TABLES = load_tables()
VERSIONS = [row["version"] for row in TABLES.mla_signatures]


@functools.cache
def wheel_root(version):
    return (
        unpacked_wheel(
            f"flashinfer-python=={version}", "flashinfer/", extra=("--only-binary=:all:", "--python-version", "3.12")
        )
        / "flashinfer"
    )


@functools.cache
def _classes(path):
    """name -> [ClassDef, ...] of one file (each file parsed once per session)."""
    classes = {}
    for node in ast.walk(ast.parse(path.read_bytes(), str(path))):
        if isinstance(node, ast.ClassDef):
            classes.setdefault(node.name, []).append(node)
    return classes


def class_methods(root, class_name):
    """name -> [FunctionDef, ...] (overloads included) of class_name anywhere under root."""
    methods = {}
    for path in sorted(root.rglob("*.py")):
        if f"class {class_name}" not in path.read_text(encoding="utf-8", errors="replace"):
            continue
        for cls in _classes(path).get(class_name, []):
            for fn in cls.body:
                if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    methods.setdefault(fn.name, []).append(fn)
    return methods


def positional(fn):
    return [a.arg for a in fn.args.args][1:]


def keyword_only(fn):
    return [a.arg for a in fn.args.kwonlyargs]


@pytest.mark.network
@pytest.mark.parametrize("version", VERSIONS)
def test_mla_wrapper_signature_matches_table(version):
    row = next(r for r in TABLES.mla_signatures if r["version"] == version)
    methods = class_methods(wheel_root(version), "BatchMLAPagedAttentionWrapper")
    plans, runs = methods["plan"], methods["run"]
    # the legacy positional plan() that sglang calls: dtypes at the table's indices
    legacy = [fn for fn in plans if positional(fn)[: len(row["plan_positional"])] == row["plan_positional"]]
    assert legacy, f"no positional plan() in {version}"
    wrapper = next(w for w in TABLES.wrappers if w.cls == "BatchMLAPagedAttentionWrapper")
    params = positional(legacy[0])
    assert params[wrapper.q_dtype.index] == wrapper.q_dtype.keyword
    assert params[wrapper.kv_dtype.index] == wrapper.kv_dtype.keyword
    # run() takes the FP8 scales as keywords (the fix emits ckv_scale=/kpe_scale=)
    for scale in row["run_scales"]:
        assert any(scale in keyword_only(fn) or scale in positional(fn) for fn in runs), scale
    assert any(positional(fn)[:4] == row["run_positional"] for fn in runs)
    if row.get("keyword_form"):
        all_plan = {name for fn in plans for name in positional(fn) + keyword_only(fn)}
        all_run = {name for fn in runs for name in positional(fn) + keyword_only(fn)}
        assert set(row["plan_keywords"]) <= all_plan
        assert {"query_layout", "kv_cache_layout"} <= all_plan  # the fix passes both as "split"
        assert set(row["run_keywords"]) <= all_run
        init = (wheel_root(version) / "mla" / "__init__.py").read_text()
        core = "\n".join(p.read_text() for p in (wheel_root(version) / "mla").glob("*.py"))
        assert "MLAPlanMetadata" in init or "MLAPlanMetadata" in core  # importable from flashinfer.mla


@pytest.mark.network
@pytest.mark.parametrize("version", VERSIONS)
def test_paged_wrappers_dtype_parameters(version):
    """Decode/prefill wrappers: the dtype keywords (and data_type alias) the table lists exist."""
    root = wheel_root(version)
    for wrapper in TABLES.wrappers:
        if wrapper.function or wrapper.cls == "BatchMLAPagedAttentionWrapper":
            continue
        methods = class_methods(root, wrapper.cls)
        names = {n for fn in methods.get("plan", []) for n in positional(fn) + keyword_only(fn)}
        has_kwargs = any(fn.args.kwarg is not None for fn in methods.get("plan", []))
        assert wrapper.q_dtype.keyword in names or has_kwargs, (wrapper.cls, version)
        assert wrapper.kv_dtype.keyword in names or has_kwargs, (wrapper.cls, version)
        plan = methods["plan"][0]
        until = wrapper.positional_until
        if wrapper.q_dtype.index is not None and (until is None or parse_version(version) <= parse_version(until)):
            assert positional(plan)[wrapper.q_dtype.index] == wrapper.q_dtype.keyword
            assert positional(plan)[wrapper.kv_dtype.index] == wrapper.kv_dtype.keyword
        elif wrapper.q_dtype.index is not None:
            assert len(positional(plan)) <= wrapper.q_dtype.index and has_kwargs, (wrapper.cls, version)


def test_guard_matrix_rows_are_ordered_and_complete():
    rows = TABLES.fp8_kv_rows()
    assert [r["since"] for r in rows] == ["0.6.18", "0.6.14"]
    assert rows[1]["backends"] == ["fa3"] and set(rows[0]["backends"]) == {"fa2", "fa3"}
    assert 0 in rows[0]["head_dim_kpe"] and rows[1]["head_dim_kpe"] == [64]
