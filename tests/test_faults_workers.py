"""One file never ends the run: a crash of the native parser, a runaway file (time), a
memory-hungry one, each is that file's error (exit 2), and every other finding is reported.

The files are checked in worker processes (castlint.workers), with -j 1 too and for
stdin; these tests run the CLI as a real process where the process is the point.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from castlint import workers
from castlint.config import Config
from castlint.engine import check_paths
from castlint.tables import load_tables
from conftest import run_castlint

GOOD = "def forward_decode(self, q, layer):\n    k = self.pool.get_key_buffer(layer.layer_id).to(q.dtype)\n"
# a candidate function (so libcst parses it whole) nested 100,000 deep: libcst's parser overflows its stack
NESTED = GOOD + "    y = " + "(" * 100_000 + "1" + ")" * 100_000 + "\n"


def _sum(terms: int) -> str:
    return GOOD + "    x = " + " + ".join(f"a{i}" for i in range(terms)) + "\n"


def _tree(tmp_path: Path, bad: dict, good: int = 20, config: str = "") -> Path:
    tree = tmp_path / "tree"
    tree.mkdir()
    for i in range(good):
        (tree / f"good{i:02d}.py").write_text(GOOD)
    for name, text in bad.items():
        (tree / name).write_text(text)
    if config:
        (tree / "castlint.toml").write_text(config)
    return tree


def _report(proc) -> dict:
    assert proc.stdout, proc.stderr
    return json.loads(proc.stdout)


def _only_error_is(report: dict, name: str, needle: str) -> dict:
    errors = report["errors"]
    assert [Path(e["path"]).name for e in errors] == [name], errors
    assert needle in errors[0]["message"], errors[0]
    return errors[0]


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_segfaulting_file_is_its_own_error_and_every_other_finding_is_reported(tmp_path, jobs):
    tree = _tree(tmp_path, {"nested.py": NESTED})
    proc = run_castlint("check", "--no-cache", "-f", "json", "-j", jobs, tree, cwd=tmp_path, subprocess=True)
    assert proc.returncode == 2, proc.stderr
    report = _report(proc)
    error = _only_error_is(report, "nested.py", "the parser")
    assert error["kind"] == "crash"
    assert sorted(Path(f["path"]).name for f in report["findings"]) == [f"good{i:02d}.py" for i in range(20)]
    assert "Traceback" not in proc.stderr and "panicked" not in proc.stderr


def test_a_segfaulting_file_among_few_files_and_in_the_text_report(tmp_path):
    """Fewer than 16 files: reading happens in the parent, parsing still in a worker."""
    tree = _tree(tmp_path, {"nested.py": NESTED}, good=2)
    proc = run_castlint("check", "--no-cache", "-q", tree, cwd=tmp_path, subprocess=True)
    assert proc.returncode == 2
    lines = proc.stdout.splitlines()
    assert sum("nested.py:0: error not checked: the parser crashed" in line for line in lines) == 1, proc.stdout
    assert sum(": CL001 " in line for line in lines) == 2


def test_a_segfaulting_file_on_stdin(tmp_path):
    proc = run_castlint("check", "--stdin-filename", "x.py", "-", input=NESTED, cwd=tmp_path, subprocess=True)
    assert proc.returncode == 2 and "x.py:0: error not checked: the parser crashed" in proc.stdout
    fixed = run_castlint("fix", "-", input=NESTED, cwd=tmp_path, subprocess=True)
    assert fixed.returncode == 2 and fixed.stdout == NESTED  # an editor gets its buffer back unchanged
    assert "not checked: the parser crashed" in fixed.stderr


def test_a_fix_run_with_a_segfaulting_file_fixes_the_rest(tmp_path):
    from conftest import FIXTURES

    tree = _tree(tmp_path, {"nested.py": NESTED}, good=0)
    mla = (FIXTURES / "fix" / "mla_backend.in.py").read_bytes()
    (tree / "flashinfer_mla_backend.py").write_bytes(mla)
    proc = run_castlint("fix", "--no-cache", tree, cwd=tmp_path, subprocess=True)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert (tree / "flashinfer_mla_backend.py").read_bytes() != mla
    assert (tree / "nested.py").read_text() == NESTED


def test_a_1000_term_sum_is_checked_not_refused(tmp_path):
    """Python's own recursion limit refused it ("expression nesting too deep"); the workers
    run each file with a large stack and a high recursion limit."""
    tree = _tree(tmp_path, {"sum.py": _sum(1000)}, good=1)
    proc = run_castlint("check", "--no-cache", "-f", "json", tree, cwd=tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    report = _report(proc)
    assert report["errors"] == []
    assert sorted(Path(f["path"]).name for f in report["findings"]) == ["good00.py", "sum.py"]


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_runaway_file_is_stopped_at_file_timeout(tmp_path, jobs):
    # libcst's parser is superlinear on one long sum: 5,000 terms take about a minute
    tree = _tree(tmp_path, {"slow.py": _sum(5000)}, config="file-timeout = 1.0\n")
    start = time.monotonic()
    proc = run_castlint("check", "--no-cache", "-f", "json", "-j", jobs, tree, cwd=tmp_path, subprocess=True)
    assert time.monotonic() - start < 30
    assert proc.returncode == 2
    report = _report(proc)
    error = _only_error_is(report, "slow.py", "took longer than 1 s (file-timeout)")
    assert error["kind"] == "limit"
    assert len(report["findings"]) == 20


def test_file_timeout_applies_to_stdin(tmp_path):
    (tmp_path / "castlint.toml").write_text("file-timeout = 1\n")
    proc = run_castlint("check", "--stdin-filename", "slow.py", "-", input=_sum(5000), cwd=tmp_path)
    assert proc.returncode == 2 and "slow.py:0: error not checked: took longer than 1 s" in proc.stdout


def test_a_memory_hungry_file_fails_in_its_worker(tmp_path):
    lines = "".join(f"    v{i} = self.foo(layer, {i}, 'abc{i}')\n" for i in range(20000))
    tree = _tree(tmp_path, {"big.py": GOOD + lines}, good=3, config="max-file-memory = 100_000_000\n")
    proc = run_castlint("check", "--no-cache", "-f", "json", tree, cwd=tmp_path, subprocess=True)
    assert proc.returncode == 2, proc.stderr
    report = _report(proc)
    error = _only_error_is(report, "big.py", "out of memory")
    assert "max-file-memory" in error["message"] and error["kind"] == "limit"
    assert len(report["findings"]) == 3
    assert "memory allocation" not in proc.stderr and "backtrace" not in proc.stderr  # the worker's last words stay


def test_max_file_size_applies_to_stdin(tmp_path):
    (tmp_path / "castlint.toml").write_text("max-file-size = 1000\n")
    proc = run_castlint("check", "-", input=GOOD + "#" * 2000 + "\n", cwd=tmp_path)
    assert proc.returncode == 2
    assert "-:0: error stdin holds more than the 1,000-byte limit (max-file-size); not checked" in proc.stdout
    ok = run_castlint("check", "-q", "-", input=GOOD, cwd=tmp_path)
    assert ok.returncode == 1 and "CL001" in ok.stdout


def test_limits_are_settings_and_bad_values_are_errors(tmp_path):
    (tmp_path / "castlint.toml").write_text("file-timeout = -1\n")
    proc = run_castlint("check", tmp_path, cwd=tmp_path)
    assert proc.returncode == 2 and "file-timeout: must be a number of seconds" in proc.stderr
    (tmp_path / "castlint.toml").write_text("max-file-memory = 'lots'\n")
    proc = run_castlint("check", tmp_path, cwd=tmp_path)
    assert proc.returncode == 2 and "max-file-memory: must be a non-negative integer" in proc.stderr
    (tmp_path / "castlint.toml").write_text("file-timeout = 30\nmax-file-memory = 2_000_000_000\n")
    proc = run_castlint("check", "--show-settings", "-f", "json", tmp_path, cwd=tmp_path)
    settings = json.loads(proc.stdout)
    assert settings["file_timeout"] == 30 and settings["max_file_memory"] == 2_000_000_000


# -- the pool itself ------------------------------------------------------------------


def _crash():
    import ctypes

    ctypes.string_at(0)  # a real segmentation fault, in the thread that runs the task


def _task(what):
    if what == "segv":
        _crash()
    if what == "sleep":
        time.sleep(60)
    if what == "raise":
        raise ValueError("boom")
    if what == "exit":
        os._exit(7)
    if isinstance(what, list):  # a batch: dies if it holds a poisoned item
        if "segv" in what:
            _crash()
        return [w.upper() for w in what]
    return what.upper()


def _split(batch):
    return [[w] for w in batch] if isinstance(batch, list) and len(batch) > 1 else []


def test_pool_reports_each_lost_task_and_finishes_the_others():
    limits = workers.Limits(timeout=1.0)
    items = ["a", "segv", "b", "sleep", "c", "raise", "exit", "d"]
    with workers.Pool(2, limits) as pool:
        got = {item: (value, lost) for item, value, lost in pool.run(_task, items)}
    assert {k: v for k, (v, lost) in got.items() if lost is None} == {"a": "A", "b": "B", "c": "C", "d": "D"}
    assert got["segv"][1].kind == "crash" and "SIGSEGV" in got["segv"][1].message
    assert got["sleep"][1].kind == "timeout"
    assert got["raise"][1].message == "ValueError: boom"
    assert got["exit"][1].kind == "exit" and "status 7" in got["exit"][1].message


def test_pool_splits_a_lost_batch_and_loses_only_the_poisoned_item():
    with workers.Pool(1, workers.Limits(timeout=30)) as pool:
        got = list(pool.run(_task, [["a", "b"], ["c", "segv", "d"]], split=_split))
    done = {tuple(item): value for item, value, lost in got if lost is None}
    lost = [item for item, value, lost in got if lost is not None]
    assert done == {("a", "b"): ["A", "B"], ("c",): ["C"], ("d",): ["D"]}
    assert lost == [["segv"]]


def test_pool_leaves_no_worker_behind():
    with workers.Pool(2, workers.Limits()) as pool:
        list(pool.run(_task, ["a", "b", "c"]))
        pids = [w.process.pid for w in pool.workers]
    assert pids
    for pid in pids:
        assert not os.path.exists(f"/proc/{pid}") or open(f"/proc/{pid}/stat").read().split()[2] == "Z"


def test_jobs_are_capped_to_the_cores(tmp_path, monkeypatch):
    """`jobs = 400` in a checked tree's config (the bot reads it) gives at most one worker per core."""
    sizes = []
    real_init = workers.Pool.__init__

    def spy(self, size, *args, **kwargs):
        sizes.append(size)
        real_init(self, size, *args, **kwargs)

    monkeypatch.setattr(workers.Pool, "__init__", spy)
    monkeypatch.setattr(workers, "available_cores", lambda: 2)
    tree = _tree(tmp_path, {}, good=40)
    config = Config(root=tmp_path, jobs=400, cache=False)
    run = check_paths(sorted(str(p) for p in tree.iterdir()), load_tables(), config)
    assert len(run.findings) == 40
    assert sizes == [2]
    assert workers.cap_jobs(400) == 2 and workers.cap_jobs(0) == 2 and workers.cap_jobs(1) == 1


def test_jobs_from_the_command_line_are_capped_too(tmp_path):
    tree = _tree(tmp_path, {}, good=40, config="jobs = 400\n")
    proc = run_castlint("check", "--no-cache", "-q", "-j", "999", tree, cwd=tmp_path)
    assert proc.returncode == 1 and proc.stdout.count("CL001") == 40


def test_available_cores_follows_the_affinity():
    if not hasattr(os, "sched_getaffinity"):
        pytest.skip("no CPU affinity on this system")
    assert workers.available_cores() == len(os.sched_getaffinity(0))
