"""Per-layer arenas under any name pass the text gates (the prefilter, the pruner's words gate):
the flow model decides from the allocation, not from a table word (issue 19, containers)."""

import re
from pathlib import Path

from castlint import prune
from castlint.config import Config
from castlint.engine import check_file, encoded_triggers
from castlint.tables import load_tables
from castlint.triggers import may_allocate_arenas

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "check" / "arenas_under_any_name.py"
TABLES = load_tables()


def _marks(text: str):
    return {
        i: m.group(1) for i, line in enumerate(text.splitlines(), 1) if (m := re.search(r"#\s*(CL\d{3}|clean)\b", line))
    }


def _found(path: Path, prune_it: bool):
    config = Config()
    result = check_file(
        str(path), TABLES, config, config.cost_model(TABLES), triggers=encoded_triggers(TABLES), prune=prune_it
    )
    assert not result.errors and not result.skipped
    return {f.start.line: f.code for f in result.findings}


def test_arenas_read_through_another_object_are_found_pruned_and_whole():
    marks = _marks(FIXTURE.read_text())
    for prune_it in (True, False):
        found = _found(FIXTURE, prune_it)
        for line, mark in marks.items():
            assert found.get(line) == (None if mark == "clean" else mark), (prune_it, line, found)


def test_the_gate_needs_a_comprehension_of_allocations_and_a_conversion():
    text = FIXTURE.read_bytes()
    assert may_allocate_arenas(text, TABLES)
    no_cast = b"\n".join(
        line for line in text.splitlines() if b".to(" not in line and b".float(" not in line and b".half(" not in line
    )
    assert not may_allocate_arenas(no_cast, TABLES)
    assert may_allocate_arenas(no_cast, TABLES, converts=False)
    one_tensor = b"x = torch.zeros((n, d))\ny = x.to(torch.float16)\nfor i in range(3):\n    pass\n"
    assert not may_allocate_arenas(one_tensor, TABLES)  # an allocation, but no comprehension of them
    assert prune.plan(one_tensor, TABLES).kind == prune.NOTHING
