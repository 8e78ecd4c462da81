"""Real engines, whole trees: sglang 0.4.9 and 0.5.23, vLLM and lmdeploy, fetched from the package index.

The wheels are downloaded once into ~/.cache/castlint (CASTLINT_TEST_CACHE) and
never committed. For each tree:

- `castlint check` and `castlint fix --diff` run over every .py file with no
  crash, no internal error and no traceback;
- every file that fix would touch, with the fix the diff shows applied (in a
  copy), still compiles, and a second fix is a no-op;
- the engine's shortcut (castlint.prune: analysing only the functions that can
  matter) gives exactly the findings of analysing every file whole.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest

from castlint.checks import ALL_RULES
from castlint.config import Config
from castlint.discover import discover
from castlint.engine import check_file, check_paths
from castlint.tables import load_tables
from conftest import FIXTURES, apply_unified_diff, corpus_check, corpus_fix_diff, corpus_tree, run_castlint

# The newest vLLM release when this was written; CASTLINT_VLLM_VERSION picks another.
VLLM_VERSION = os.environ.get("CASTLINT_VLLM_VERSION", "0.33.0")
# The oldest release with the FlashInfer MLA backend's cast and the newest. The releases between
# are checked by backend (tests/test_sglang_releases.py, test_fix_releases.py) and, 0.4.6.post4/5 and
# 0.5.4, by a whole-tree run that must not crash; each whole tree here costs 3 runs (check,
# whole-file analysis, fix --diff), about 40 CPU-s for a 0.5.x tree.
SGLANG_VERSIONS = ("0.4.9", "0.5.23")
LMDEPLOY_VERSION = os.environ.get("CASTLINT_LMDEPLOY_VERSION", "0.18.0")
CORPORA = [f"sglang=={v}" for v in SGLANG_VERSIONS] + [f"vllm=={VLLM_VERSION}"]
# lmdeploy has no fixable site: its findings are pinned and its pruning compared (in-process)
CHECKED = CORPORA + [f"lmdeploy=={LMDEPLOY_VERSION}"]
# Every finding castlint reports on these releases, each judged in docs/analysis.md
# ("Findings on released engines"): (path in the package, line, code), in the order a run
# reports them (by path, then line).
EXPECTED_FINDINGS = {
    "sglang==0.5.23": [
        ("srt/hardware_backend/musa/attention/flashattention_backend.py", 570, "CL001"),
        ("srt/hardware_backend/musa/attention/flashattention_backend.py", 849, "CL001"),
        ("srt/hardware_backend/npu/attention/ascend_dsv4_backend.py", 858, "CL001"),  # learnt accessor
        ("srt/layers/attention/aiter_backend.py", 4258, "CL004"),
        ("srt/layers/attention/dsa_backend.py", 3344, "CL004"),
        ("srt/layers/attention/flashattention_backend.py", 1944, "CL001"),
        ("srt/layers/attention/flashattention_backend.py", 2350, "CL001"),
        ("srt/layers/attention/flashinfer_mla_backend.py", 761, "CL001"),
        ("srt/layers/attention/flashinfer_mla_backend.py", 822, "CL001"),
        ("srt/layers/attention/flashinfer_mla_backend.py", 959, "CL002"),
        ("srt/layers/attention/flashinfer_mla_backend.py", 974, "CL002"),
        ("srt/layers/attention/flashinfer_mla_backend.py", 1134, "CL002"),
        ("srt/layers/attention/flashinfer_mla_backend.py", 1168, "CL002"),
        ("srt/layers/attention/triton_backend.py", 2033, "CL004"),
        ("srt/layers/attention/triton_backend.py", 2263, "CL004"),
        ("srt/layers/attention/triton_backend.py", 2441, "CL004"),
        ("srt/layers/attention/triton_backend.py", 2474, "CL004"),
        ("srt/layers/attention/xpu_backend.py", 1021, "CL001"),
        ("srt/layers/attention/xpu_backend.py", 1595, "CL001"),
        ("srt/mem_cache/memory_pool.py", 2843, "CL004"),
        ("srt/mem_cache/memory_pool.py", 2867, "CL004"),
        ("srt/mem_cache/memory_pool.py", 3689, "CL004"),
        ("srt/mem_cache/memory_pool.py", 3707, "CL004"),
        ("srt/mem_cache/memory_pool.py", 5185, "CL004"),
    ],
    "vllm==0.33.0": [],
    "lmdeploy==0.18.0": [],
}
TABLES = load_tables()


def _finding_key(f):
    return (
        f.path,
        f.start,
        f.end,
        f.code,
        f.severity.value,
        f.message,
        repr(f.fix),
        f.unfixable_reason,
        f.function,
        repr(f.cost),
    )


@pytest.mark.network
@pytest.mark.parametrize("name", CORPORA)
def test_check_whole_tree(name):
    proc, _ = corpus_check(name)
    assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
    report = json.loads(proc.stdout)
    assert [e for e in report["errors"] if e["kind"] == "internal"] == []
    assert report["errors"] == [], report["errors"][:5]  # these releases are all valid Python
    assert proc.returncode in (0, 1)
    assert report["summary"]["files_checked"] > 300


@pytest.mark.network
@pytest.mark.parametrize("name", CORPORA)
def test_fix_diff_whole_tree_and_idempotent(name, tmp_path):
    tree = corpus_tree(name)
    # On the cache the session's cold check of this release left (conftest.corpus_fix_diff): only
    # the files with a fixable finding are analysed again, in fix mode (a fix needs the analysis
    # itself); every other file's fix-mode analysis (the whole file, parsed and checked) is the
    # whole-file analysis test_pruned_analysis_gives_the_whole_file_findings makes, error-free.
    proc = corpus_fix_diff(name)
    assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr, proc.stderr[-3000:]
    assert proc.returncode in (0, 1), proc.stderr[-3000:]
    touched = sorted({tree.parent / p for p in re.findall(r"^\+\+\+ b/(.+)$", proc.stdout, re.M)})
    added = [p for p in touched if not p.exists()]
    # the modules the paged read and the rows read add
    assert all(p.name in ("environ.py", "mla_kv_read.py", "kv_rows_read.py") for p in added), added
    touched = [p for p in touched if p not in added]
    assert all(p.is_file() for p in touched), touched
    if name.startswith("sglang=="):
        assert touched, "every listed sglang release has a fixable whole-pool cast"
    # The fix the whole-tree run printed, applied to a copy of every touched file (and the
    # modules it adds) that keeps what fix reads around it (sglang/version.py decides the
    # FlashInfer call form); the fixed files compile and a second fix is a no-op. That the
    # diff is byte for byte what `castlint fix` writes is tests/test_pr_body.py's (the patch
    # turns the original tree into the one fix wrote); fixing the copies for real here
    # repeated the whole analysis and fix of every fixable file.
    package_root = tree
    copy_root = tmp_path / tree.name
    for version_file in ("version.py", "_version.py"):
        if (package_root / version_file).exists():
            copy_root.mkdir(parents=True, exist_ok=True)
            shutil.copy2(package_root / version_file, copy_root / version_file)
    fixed = apply_unified_diff(proc.stdout, tree.parent)
    assert sorted(tree.parent / rel for rel in fixed) == sorted([*touched, *added])
    copies = []
    for rel, text in sorted(fixed.items()):
        path = tree.parent / rel
        target = copy_root / Path(path).resolve().relative_to(package_root.resolve())
        target.parent.mkdir(parents=True, exist_ok=True)
        if path in touched:
            shutil.copy2(path, target)  # the original's mode, then the fixed text
            assert text != path.read_text(encoding="utf-8"), f"{path} is in the diff but the diff does not change it"
            copies.append(target)
        target.write_text(text, encoding="utf-8")
        compile(target.read_bytes(), str(target), "exec", dont_inherit=True)
    if not copies:
        return
    second = run_castlint("fix", "--diff", "--no-cache", *copies)  # a second fix changes nothing
    assert second.returncode in (0, 1) and second.stdout == "", second.stdout[:3000]


@pytest.mark.network
@pytest.mark.parametrize("name", CHECKED)
def test_pruned_analysis_gives_the_whole_file_findings(name):
    """castlint.prune is only a shortcut: every finding (line, column, message,
    severity, fix) must be the one the whole-file analysis gives."""
    tree = corpus_tree(name)
    proc, calls = corpus_check(name)  # the CLI's own pruned run of the whole tree (shared with test_check_whole_tree)
    assert proc.returncode in (0, 1) and "Traceback" not in proc.stderr, proc.stderr[-3000:]
    if calls:
        assert len(calls) == 1, len(calls)  # one config for the tree: one run
        files, tables, config, kwargs, pruned = calls[0]
        assert kwargs.get("prune", True) is True and kwargs.get("prefilter", True) is True, kwargs
        # -f json shows the fixes' edits: a describing fixer, which checks each file pruned as a
        # plain check does and analyses whole only the files with a fixable finding
        fixer = kwargs.get("fixer")
        assert fixer is None or fixer.describe, kwargs
        assert pruned.stats["cached"] == 0, pruned.stats  # cold: every file computed, none from the cache
    else:  # the CLI ran in a child process: the same pruned run, here
        tables, config = TABLES, Config(root=tree)
        files, errors = discover([str(tree)], config)
        assert errors == []
        pruned = check_paths(files, tables, config, jobs=2, prune=True, cache=False)
    walked, errors = discover([str(tree)], Config(root=tree))
    assert errors == [] and sorted(walked) == sorted(files)  # every file of the tree
    assert len(files) == json.loads(proc.stdout)["summary"]["files_checked"] > 300
    # The files the text prefilter skips never reach the pruner (engine._scan_batch decides them,
    # the same way whatever prune says): they have no finding and their syntax check is the same
    # function of the same bytes in both runs. The whole-file run is made on every other file.
    by_path = {r.path: r for r in pruned.results}
    assert sorted(by_path) == sorted(files)
    skipped = {p for p, r in by_path.items() if r.skipped}
    assert all(not by_path[p].findings and not by_path[p].mode for p in skipped)
    assert len(skipped) == pruned.stats.get("skipped", 0) and len(skipped) < len(files)
    # The files the pruned run analysed whole (mode `full`: the pruner kept all of it, or the file
    # links definitions of the tree) went through the very code the whole-file run takes
    # (engine._analyze_bytes: parse the whole file, analyze_module), with the same tables and
    # config: comparing them compared one function of the same bytes with itself. The
    # whole-file run is made on the files the shortcut was taken for (`pruned`, `nothing`).
    full = {p for p, r in by_path.items() if r.mode == "full"}
    analysed = [p for p in files if p not in skipped and p not in full]
    assert all(by_path[p].mode in ("pruned", "nothing") for p in analysed)
    whole = check_paths(analysed, tables, config, jobs=2, prune=False, cache=False)
    assert sorted(r.path for r in whole.results) == sorted(analysed)
    assert not any(r.skipped for r in whole.results)  # the same prefilter: none skipped
    assert all(r.mode == "full" for r in whole.results)
    # the same findings with the same fixes (a proof on a pruned copy that meets a member whose
    # body the pruner dropped is decided on the whole file: engine.PrunedTooFar)
    shortcut = [f for f in pruned.findings if f.path not in full]
    assert [_finding_key(f) for f in shortcut] == [_finding_key(f) for f in whole.findings]
    assert [e.to_dict() for e in pruned.all_errors if e.path not in skipped and e.path not in full] == [
        e.to_dict() for e in whole.all_errors
    ]
    if name in EXPECTED_FINDINGS:  # no finding that docs/analysis.md has not judged
        every = sorted([f for f in pruned.findings if f.path in full] + whole.findings, key=lambda f: f.sort_key())
        got = [(Path(f.path).resolve().relative_to(tree.resolve()).as_posix(), f.start.line, f.code) for f in every]
        assert got == EXPECTED_FINDINGS[name]
    # and the shortcut was taken: most files that pass the text prefilter skip libcst or shrink
    assert pruned.stats.get("nothing", 0) + pruned.stats.get("pruned", 0) > pruned.stats.get("full", 0)


def _examples():
    for rule in ALL_RULES:
        for i, src in enumerate(rule.VALID):
            yield f"{rule.code}-valid-{i}", src.encode()
        for i, (src, _) in enumerate(rule.INVALID):
            yield f"{rule.code}-invalid-{i}", src.encode()
    for path in sorted(FIXTURES.rglob("*.py")):
        yield str(path.relative_to(FIXTURES)), path.read_bytes()


@pytest.mark.parametrize("label,source", list(_examples()), ids=lambda v: v if isinstance(v, str) else "")
def test_pruned_analysis_agrees_on_rule_examples_and_fixtures(tmp_path, label, source):
    target = tmp_path / "example.py"
    target.write_bytes(source)
    config = Config(root=tmp_path)
    cost_model = config.cost_model(TABLES)
    whole = check_file(str(target), TABLES, config, cost_model, prune=False)
    pruned = check_file(str(target), TABLES, config, cost_model, prune=True)
    assert [_finding_key(f) for f in pruned.findings] == [_finding_key(f) for f in whole.findings]
    assert pruned.errors == whole.errors
