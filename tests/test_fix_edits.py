"""A fix is an edit: `castlint check -f json` carries each fixable finding's edits (ruff's
`fix: {applicability, message, edits}`), and applying them gives what `castlint fix` writes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from castlint.fixes.edit_set import EditConflict, apply_edits, edits_between
from conftest import apply_unified_diff, corpus_check, corpus_fix_diff, corpus_tree, run_castlint


def apply_json_edits(data: bytes, edits: list) -> bytes:
    """Edits applied as a consumer of the JSON would: by (row, column), last first."""
    text = data.decode("utf-8")
    lines = text.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(location: dict) -> int:
        row, column = location["row"], location["column"]
        return starts[-1] if row > len(lines) else starts[row - 1] + column - 1

    for edit in sorted(edits, key=lambda e: offset(e["location"]), reverse=True):
        text = text[: offset(edit["location"])] + edit["content"] + text[offset(edit["end_location"]) :]
    return text.encode("utf-8")


def edits_by_path(findings: list) -> dict:
    """path -> the distinct edits of the fixable findings (a FileFix's edits are on each finding it serves)."""
    out: dict = {}
    for finding in findings:
        for edit in (finding["fix"] or {}).get("edits", []):
            edits = out.setdefault(edit.get("path", finding["path"]), [])
            if edit not in edits:
                edits.append(edit)
    return out


@pytest.mark.parametrize(
    "old,new",
    [
        (b"a\nb\nc\n", b"a\nB\nc\n"),
        (b"a\nb\nc\n", b"a\nb\nx\ny\nc\n"),  # an insertion
        (b"a\nb", b"a\nb\nc\n"),  # no final newline
        (b"\xef\xbb\xbfa\r\nb\r\n", b"\xef\xbb\xbfa\r\nz\r\nb\r\n"),  # BOM and CRLF
        (b"# -*- coding: latin-1 -*-\nx = '\xe9'\n", b"# -*- coding: latin-1 -*-\nx = '\xe8'\n"),
        (b"", b"import os\n"),  # a module the fix adds
    ],
)
def test_edits_between_apply_back_to_the_new_bytes(old, new):
    edits = edits_between(old, new)
    assert edits and apply_edits(old, edits) == new
    assert apply_edits(old, edits + edits) == new  # an edit two findings carry applies once


def test_overlapping_edits_are_a_conflict():
    (first,) = edits_between(b"a\nb\nc\n", b"a\nB\nc\n")
    (second,) = edits_between(b"a\nb\nc\n", b"a\nbb\nc\n")
    with pytest.raises(EditConflict):
        apply_edits(b"a\nb\nc\n", [first, second])


def test_json_fix_has_rufflike_edits(tmp_path):
    source = (
        "def forward_decode(self, layer, loc):\n"
        "    return self.pool.get_key_buffer(layer.layer_id).to(torch.bfloat16)[loc]\n"
    )
    path = tmp_path / "backend.py"
    path.write_text(source)
    proc = run_castlint("check", "--no-cache", "-f", "json", path)
    (finding,) = json.loads(proc.stdout)["findings"]
    fix = finding["fix"]
    assert fix["applicability"] == "safe" and fix["message"] == fix["description"]
    assert fix["edits"] == [
        {
            "content": "    return self.pool.get_key_buffer(layer.layer_id)[loc].to(torch.bfloat16)\n",
            "location": {"row": 2, "column": 1},
            "end_location": {"row": 3, "column": 1},
        }
    ]
    # a text report computes no fix: its findings carry no edits, and nothing is written
    assert run_castlint("check", "--no-cache", path).returncode == 1 and path.read_text() == source


@pytest.mark.network
def test_json_edits_on_sglang_are_what_fix_writes():
    """Every fixable finding of `castlint check -f json` on sglang 0.5.23 carries its edits, and the
    edits applied in order give byte for byte the files `castlint fix` writes (the modules it adds
    too). Both runs are the session's shared whole-tree runs (conftest.corpus_check and
    corpus_fix_diff); that `fix --diff` is byte for byte what `fix` writes is tests/test_pr_body.py's."""
    name = "sglang==0.5.23"
    tree = corpus_tree(name)
    proc, _ = corpus_check(name)
    report = json.loads(proc.stdout)
    fixable = [f for f in report["findings"] if f["fixable"]]
    assert len(fixable) >= 16 and all(f["fix"]["edits"] for f in fixable), [
        (f["path"], f["start"]["line"]) for f in fixable if not f["fix"]["edits"]
    ]
    diff = corpus_fix_diff(name)
    assert diff.returncode == 1, diff.stderr[-3000:]  # findings remain (no automatic fix for them)
    fixed = {(tree.parent / rel).resolve(): text for rel, text in apply_unified_diff(diff.stdout, tree.parent).items()}
    edited = edits_by_path(fixable)
    for path, edits in edited.items():
        before = Path(path).read_bytes() if Path(path).exists() else b""
        assert apply_json_edits(before, edits) == fixed[Path(path).resolve()].encode("utf-8"), path
    # and nothing else changed: the edited files are every file the fix wrote
    assert sorted(Path(p).resolve() for p in edited) == sorted(fixed)
