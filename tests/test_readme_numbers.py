"""README.md's numbers are what the CLI prints (benchmarks/readme_numbers.py regenerates them)."""

from __future__ import annotations

import importlib.util

import pytest

from conftest import ROOT, corpus_check, run_castlint


def _script():
    spec = importlib.util.spec_from_file_location("readme_numbers", ROOT / "benchmarks" / "readme_numbers.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_sentence_is_found_and_rewritten():
    script = _script()
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert script.README_STEP.search(readme), "README lost the sentence benchmarks/readme_numbers.py updates"
    new = script.updated(readme, f"On sglang {script.STEP_RELEASE}:\n`hot-path casts move 1.0 GB per decode step`")
    assert "`hot-path casts move 1.0 GB per decode step`" in new and new.count(f"On sglang {script.STEP_RELEASE}:") == 1


@pytest.mark.network
def test_readme_step_total_matches_the_cli(monkeypatch):
    """sglang 0.5.23: the README's decode-step sentence is the CLI's (memory-pool classes are not
    backends: their accessors' costs are paid by the backends that read through them)."""
    script = _script()
    tree = script.sglang_tree(script.STEP_RELEASE)
    corpus_check(f"sglang=={script.STEP_RELEASE}")  # the session's cold check of the tree, once
    calls = []

    def castlint(*args):
        # The script's `python -m castlint check --no-cache TREE`, run as the suite runs the CLI
        # (in this process; a child under CASTLINT_TEST_SUBPROCESS=1) from the tree's parent with
        # the cache the corpus tests' cold check of the same tree left there (conftest.corpus_check).
        # A cached result is the computed one (tests/test_robustness.py: the same output whatever
        # the cache).
        calls.append(args)
        return run_castlint(*[a for a in args if a != "--no-cache"], cwd=tree.parent)

    monkeypatch.setattr(script, "castlint", castlint)
    assert script.main([]) == 0
    assert calls == [("check", "--no-cache", str(tree))]
