"""A process that runs many checks (the server, watch, a test run) makes what the analysis derives from the
tables once: the tables of one table set are one object per process (castlint.config), and from a process's
second run on the parent warms the analysis (imports, anchors, the pruner's vocabulary) before its workers
fork (castlint.engine._preimport), so a worker imports and builds nothing of it again. What a run reports
does not depend on it."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from castlint import engine
from castlint.config import load_settings
from conftest import FIXTURES, run_castlint

BACKEND = FIXTURES / "fix" / "mla_backend.in.py"


def test_one_table_set_is_one_tables_object_per_process(tmp_path):
    (tmp_path / "more.toml").write_text("schema = 1\n")
    first = load_settings([str(BACKEND)], None, isolated=True)[1]
    again = load_settings([str(BACKEND)], None, isolated=True)[1]
    (tmp_path / "castlint.toml").write_text('extend-rules = ["more.toml"]\n')
    extended = load_settings([str(tmp_path)], None)[1]
    assert first is again
    assert extended is not first and extended.sources[-1].endswith("more.toml")
    assert extended.digest != first.digest


_LOG: list = []  # the file the spy writes (set by the test)
_CHECK_ONE = engine._check_one


def _spy(path, *args, **kwargs):
    """engine._check_one in the forked worker (which inherits the patch): which modules it imported."""
    before = set(sys.modules)
    result = _CHECK_ONE(path, *args, **kwargs)
    fresh = sorted(m for m in set(sys.modules) - before if m.startswith(("castlint", "libcst")))
    with open(_LOG[0], "a") as f:
        f.write(json.dumps(fresh) + "\n")
    return result


def test_later_runs_fork_workers_that_import_nothing_and_report_the_same(tmp_path, monkeypatch):
    if os.environ.get("CASTLINT_TEST_SUBPROCESS") or not engine.isolated():
        return  # the workers are this test's subject: it needs the in-process CLI with its workers
    log = tmp_path / "worker_imports.txt"
    monkeypatch.setattr(sys.modules[__name__], "_LOG", [str(log)])
    monkeypatch.setattr(engine, "_check_one", _spy)
    reports = []
    for _ in range(3):
        proc = run_castlint("check", "--no-cache", "-f", "json", BACKEND, cwd=tmp_path)
        assert proc.returncode == 1, proc.stderr
        report = json.loads(proc.stdout)
        reports.append([(f["path"], f["start"], f["code"], f["message"]) for f in report["findings"]])
    assert reports[0] == reports[1] == reports[2] and reports[0]
    imported = [json.loads(line) for line in Path(log).read_text().splitlines()]
    assert len(imported) == 3
    assert imported[-1] == [], imported  # the third run's worker: the parent had warmed it all


_CHECK_BYTES = None


def _bytes_spy(*args, **kwargs):
    """session._check_bytes in the forked worker: which modules it imported."""
    before = set(sys.modules)
    result = _CHECK_BYTES(*args, **kwargs)
    fresh = sorted(m for m in set(sys.modules) - before if m.startswith(("castlint", "libcst")))
    with open(_LOG[0], "a") as f:
        f.write(json.dumps(fresh) + "\n")
    return result


def test_an_editor_buffer_checked_again_and_again_forks_warm_workers(tmp_path, monkeypatch):
    """The server checks each buffer through Session.check_source, one worker per check: from the second
    check on the parent has warmed the analysis, so a later worker imports nothing and finds the same."""
    if os.environ.get("CASTLINT_TEST_SUBPROCESS") or not engine.isolated():
        return
    from castlint import session

    monkeypatch.setattr(sys.modules[__name__], "_CHECK_BYTES", session._check_bytes)
    monkeypatch.setattr(sys.modules[__name__], "_LOG", [str(tmp_path / "worker_imports.txt")])
    monkeypatch.setattr(session, "_check_bytes", _bytes_spy)
    source = BACKEND.read_bytes()
    found = []
    for _ in range(3):
        run = session.Session(session.CommandLine(no_cache=True), [str(tmp_path)])
        outcome = run.check_source(source, str(tmp_path / "backend.py"))
        found.append([(f.code, f.start) for f in outcome.findings])
    assert found[0] == found[1] == found[2] and found[0]
    imported = [json.loads(line) for line in Path(_LOG[0]).read_text().splitlines()]
    assert len(imported) == 3 and imported[-1] == [], imported
