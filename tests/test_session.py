"""castlint.session: settings -> a run -> data, never printing or exiting; and the fix package
loads only where a file has a fixable finding (issue 23)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from castlint import session

FIXABLE = (
    b"import torch\n\ndef forward_decode(self, layer, loc):\n"
    b"    x = self.pool.get_key_buffer(layer.layer_id).to(torch.bfloat16)[loc]\n    return x\n"
)
CLEAN = b"def add(a, b):\n    return a + b\n"


def test_check_returns_data_and_prints_nothing(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "g.py").write_bytes(FIXABLE)
    outcome = session.check(["g.py"], session.CommandLine(no_cache=True))
    assert [f.code for f in outcome.findings] == ["CL003"] and outcome.errors() == []
    assert outcome.files == ["g.py"] and outcome.findings[0].fixable
    stats = session.Session(session.CommandLine(no_cache=True), ["g.py"]).statistics(outcome.findings)
    assert [(r["code"], r["count"], r["safe"]) for r in stats.rows] == [("CL003", 1, 1)]
    assert capsys.readouterr() == ("", "")


def test_fix_and_check_source_agree(tmp_path, monkeypatch):
    """stdin goes through the files' pipeline: the bytes fixed in memory are the file `fix` writes."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "g.py").write_bytes(FIXABLE)
    in_memory = session.check_source(FIXABLE, "g.py", fix=session.FixOptions())
    assert in_memory.new_source != FIXABLE and in_memory.findings == [] and in_memory.stdin_fixed == 1
    written = session.fix(["g.py"], session.FixOptions(), session.CommandLine(no_cache=True))
    assert written.changed_files == ["g.py"] and written.fixed_total == 1
    assert (tmp_path / "g.py").read_bytes() == in_memory.new_source


def test_a_refusal_is_a_session_error(tmp_path):
    with pytest.raises(session.SessionError, match="--select"):
        session.Session(session.CommandLine(select=["XYZ"]), [str(tmp_path)])
    with pytest.raises(session.SessionError, match="--profile"):
        session.check_source(CLEAN, str(tmp_path / "x.py"), fix=session.FixOptions(profile="tiny"))


@pytest.mark.parametrize("cache", [True, False], ids=["warm", "no-cache"])
def test_check_fix_on_a_clean_file_loads_neither_the_fix_package_nor_libcst(tmp_path, cache):
    """The pre-commit hook (`castlint check --force-exclude --fix FILE`) on a clean file costs what
    `castlint check FILE` costs: nothing is fixable, so nothing of the fix is imported."""
    (tmp_path / "x.py").write_bytes(CLEAN)
    flags = [] if cache else ["--no-cache"]
    code = (
        "import sys\nimport castlint.cli as c\n"
        "for _ in range(2):\n"
        "    try:\n"
        f"        c.main(['check', '--force-exclude', '--fix', *{flags!r}, 'x.py'])\n"
        "    except SystemExit as exc:\n"
        "        assert exc.code == 0, exc.code\n"
        "loaded = sorted(m for m in sys.modules if m.startswith(('libcst', 'castlint.fixes')))\n"
        "assert not loaded, loaded\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
