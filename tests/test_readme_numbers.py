"""README.md's numbers are what the CLI prints (benchmarks/readme_numbers.py regenerates them)."""

from __future__ import annotations

import importlib.util

import pytest

from conftest import ROOT, run_castlint


def _script():
    spec = importlib.util.spec_from_file_location("readme_numbers", ROOT / "benchmarks" / "readme_numbers.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_sentence_is_found_and_rewritten():
    script = _script()
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert script.README_STEP.search(readme), "README lost the sentence benchmarks/readme_numbers.py updates"
    new = script.updated(readme, "On sglang 0.5.20:\n`hot-path casts move 1.0 GB per decode step`")
    assert "`hot-path casts move 1.0 GB per decode step`" in new and new.count("On sglang 0.5.20:") == 1


@pytest.mark.network
def test_readme_step_total_matches_the_cli(monkeypatch):
    """sglang 0.5.20: the README's decode-step sentence is the CLI's (memory-pool classes are not
    backends: their accessors' costs are paid by the backends that read through them)."""
    script = _script()
    calls = []

    def castlint(*args):
        # The script's `python -m castlint check --no-cache TREE/srt` from the repository, run as
        # the suite runs the CLI (in this process; a child under CASTLINT_TEST_SUBPROCESS=1) and
        # with the cache (ROOT/.castlint_cache), which tests/test_step_total.py's checks of the
        # same srt/ share: one cold check of it in the session. A cached result is the computed
        # one (tests/test_robustness.py: the same output whatever the cache).
        calls.append(args)
        return run_castlint(*[a for a in args if a != "--no-cache"], cwd=ROOT)

    monkeypatch.setattr(script, "castlint", castlint)
    assert script.main([]) == 0
    assert calls == [("check", "--no-cache", str(script.sglang_tree(script.STEP_RELEASE) / "srt"))]
