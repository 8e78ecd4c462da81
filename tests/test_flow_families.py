"""Issue 19: the value-flow families, each shape beside a look-alike (fixtures/check/flow_families.py).

The exact findings are pinned by tests/test_fixtures.py (flow_families.expected); here each
marked line is checked against its mark, and the pruner must give the whole-file findings,
alone and with unrelated code around the file (so that it really prunes).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from castlint.config import Config
from castlint.engine import check_file
from castlint.tables import load_tables

from conftest import FIXTURES

TABLES = load_tables()
FIXTURE = FIXTURES / "check" / "flow_families.py"
FILLER = "".join(f"\n\ndef util_{i}(x):\n    z = x * {i}\n    return z.float()\n" for i in range(60))


def _check(path: Path, prune: bool):
    config = Config(root=path.parent)
    result = check_file(str(path), TABLES, config, config.cost_model(TABLES), prune=prune)
    assert result.errors == []
    return [(f.code, f.start, f.end, f.message, f.severity.value) for f in result.findings]


def test_every_marked_line():
    lines = FIXTURE.read_text().splitlines()
    found = {code_line for _, start, _, _, _ in _check(FIXTURE, False) for code_line in [start.line]}
    positives = {i for i, text in enumerate(lines, 1) if "# positive" in text}
    negatives = {i for i, text in enumerate(lines, 1) if "# negative" in text}
    assert positives and negatives
    assert positives - found == set()
    assert found - positives == set()  # no look-alike, nothing unmarked


@pytest.mark.parametrize("filler", [False, True], ids=["as-is", "with-filler"])
def test_pruned_is_whole(tmp_path, filler):
    path = tmp_path / "backend.py"
    path.write_text(FIXTURE.read_text() + (FILLER if filler else ""))
    assert _check(path, True) == _check(path, False)
