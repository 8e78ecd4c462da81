"""Issue 19: the value-flow families, each shape beside a look-alike (fixtures/check/flow_families.py,
round 2: flow_families2.py).

The exact findings are pinned by tests/test_fixtures.py (flow_families*.expected); here each
marked line is checked against its mark, and the pruner must give the whole-file findings,
alone and with unrelated code around the file (so that it really prunes).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from castlint.config import Config
from castlint.engine import check_file
from castlint.tables import load_tables
from conftest import FIXTURES

TABLES = load_tables()
FIXTURES_BY_ROUND = [FIXTURES / "check" / "flow_families.py", FIXTURES / "check" / "flow_families2.py"]
ROUNDS = pytest.mark.parametrize("fixture", FIXTURES_BY_ROUND, ids=["round1", "round2"])
FILLER = "".join(f"\n\ndef util_{i}(x):\n    z = x * {i}\n    return z.float()\n" for i in range(60))


def _check(path: Path, prune: bool):
    config = Config(root=path.parent)
    result = check_file(str(path), TABLES, config, config.cost_model(TABLES), prune=prune)
    assert result.errors == []
    return [(f.code, f.start, f.end, f.message, f.severity.value) for f in result.findings]


@ROUNDS
def test_every_marked_line(fixture):
    lines = fixture.read_text().splitlines()
    findings = _check(fixture, False)
    found = {start.line for _, start, _, _, _ in findings}
    codes = {start.line: code for code, start, _, _, _ in findings}
    for i, text in enumerate(lines, 1):  # a mark that names a code gets that code
        for code in ("CL001", "CL003", "CL004"):
            if f"# positive: {code}" in text:
                assert codes.get(i) == code, (i, text)
    positives = {i for i, text in enumerate(lines, 1) if "# positive" in text}
    negatives = {i for i, text in enumerate(lines, 1) if "# negative" in text}
    assert positives and negatives
    assert positives - found == set()
    assert found - positives == set()  # no look-alike, nothing unmarked


@ROUNDS
@pytest.mark.parametrize("filler", [False, True], ids=["as-is", "with-filler"])
def test_pruned_is_whole(tmp_path, fixture, filler):
    path = tmp_path / "backend.py"
    path.write_text(fixture.read_text() + (FILLER if filler else ""))
    assert _check(path, True) == _check(path, False)


@ROUNDS
def test_pruned_is_whole_by_section(tmp_path, fixture):
    """Each family's section alone (with filler, so that the file is really pruned): the pruner
    must keep what that section's flows need, not lean on another section's."""
    text = fixture.read_text()
    head, *sections = re.split(r"\n(?=# -- )", text)
    assert sections
    for number, section in enumerate(sections):
        path = tmp_path / f"section_{number}.py"
        path.write_text(head + "\n" + section + FILLER)
        marked = sum("# positive" in line for line in section.splitlines())
        whole = _check(path, False)
        assert len(whole) == marked, section.splitlines()[0]
        assert _check(path, True) == whole, section.splitlines()[0]
