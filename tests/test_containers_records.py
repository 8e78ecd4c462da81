"""Issue 19, round 3: values through containers, records and objects (fixtures/check/
containers_records.py): nested containers whose inner structure is an accessor's, tuples
assigned to several attributes, zip(*pairs), nested dicts, records made by classmethods and
factories, per-layer arenas behind a property, a layer-stacked arena, dicts filled by item
assignment, plane-keeping views, and conversions made once in __init__.

Every marked line is checked against its mark, and the pruner must give the whole-file
findings, alone and with unrelated code around the file, section by section."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from castlint.config import Config
from castlint.engine import check_file
from castlint.tables import load_tables
from conftest import FIXTURES

TABLES = load_tables()
FIXTURE = FIXTURES / "check" / "containers_records.py"
FILLER = "".join(f"\n\ndef util_{i}(x):\n    z = x * {i}\n    return z.float()\n" for i in range(60))


def _check(path: Path, prune: bool):
    config = Config(root=path.parent)
    result = check_file(str(path), TABLES, config, config.cost_model(TABLES), prune=prune)
    assert result.errors == []
    return [(f.code, f.start, f.end, f.message, f.severity.value) for f in result.findings]


def _marks(lines, mark):
    return {i for i, text in enumerate(lines, 1) if f"# {mark}" in text}


def test_every_marked_line():
    lines = FIXTURE.read_text().splitlines()
    findings = _check(FIXTURE, False)
    codes = {start.line: code for code, start, _, _, _ in findings}
    for i, text in enumerate(lines, 1):
        for code in ("CL001", "CL003", "CL004"):
            if f"# positive: {code}" in text:
                assert codes.get(i) == code, (i, text)
    positives, negatives = _marks(lines, "positive"), _marks(lines, "negative")
    assert positives and negatives
    assert positives - set(codes) == set()
    assert set(codes) - positives == set()


@pytest.mark.parametrize("filler", [False, True], ids=["as-is", "with-filler"])
def test_pruned_is_whole(tmp_path, filler):
    path = tmp_path / "backend.py"
    path.write_text(FIXTURE.read_text() + (FILLER if filler else ""))
    assert _check(path, True) == _check(path, False)


def test_pruned_is_whole_by_section(tmp_path):
    head, *sections = re.split(r"\n(?=# -- )", FIXTURE.read_text())
    assert sections
    for number, section in enumerate(sections):
        path = tmp_path / f"section_{number}.py"
        path.write_text(head + "\n" + section + FILLER)
        marked = sum("# positive" in line for line in section.splitlines())
        whole = _check(path, False)
        assert len(whole) == marked, section.splitlines()[0]
        assert _check(path, True) == whole, section.splitlines()[0]
