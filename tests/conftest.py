"""Shared helpers: run castlint, fetch released engines into a cache outside the repo.

run_castlint runs the CLI in this process by default (castlint.cli.main with its
own argv, cwd, environment, stdin, stdout and stderr), which saves a Python
start-up and the imports on each of the suite's many CLI calls. Pass
subprocess=True where the process boundary is what is tested (signals, the
real entry point), or set CASTLINT_TEST_SUBPROCESS=1 to run every call as a
subprocess (what users run; the results are the same).

Released wheels are downloaded once per version into <cache>/wheels and
unpacked once per version into <cache>/src/<version> (sglang) or
<cache>/<name>-<version>, under a file lock, so tests that share a release
share one download and one unpack (under a lock, should two test processes run at once).
"""

from __future__ import annotations

import contextlib
import io
import locale
import os
import signal
import subprocess
import sys
import traceback
import zipfile
from pathlib import Path

import pytest

# Under pytest-xdist (.ci/run: 2 workers on CI's 2 cores) each worker's torch would start one
# intra-op thread per core: 4 threads on 2 cores, whose OpenMP spin-waits burn the CPU the other
# worker needs (test_validate_cpu's CPU-s tripled on a busy machine). One thread per worker, set
# before anything imports torch (the children the tests start inherit it); without xdist torch
# keeps its default.
if os.environ.get("PYTEST_XDIST_WORKER"):
    for _var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(_var, "1")

# Where PYTHONDONTWRITEBYTECODE is set (this project's machines and CI set it), each `python -m castlint`
# the suite starts would compile castlint's modules from source again, about 0.8 CPU-s a start. The
# children write their bytecode into one cache outside the tree instead, shared by the whole run.
if os.environ.pop("PYTHONDONTWRITEBYTECODE", None):
    import tempfile

    os.environ.setdefault("PYTHONPYCACHEPREFIX", os.path.join(tempfile.gettempdir(), "castlint-test-pycache"))

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures"
CACHE = Path(os.environ.get("CASTLINT_TEST_CACHE", Path.home() / ".cache" / "castlint"))


def _env(env) -> dict:
    full_env = dict(os.environ, NO_COLOR="1", COLUMNS="200")
    full_env.pop("GITHUB_ACTIONS", None)
    if env:
        full_env.update(env)
    return full_env


def run_castlint(*args, cwd=None, env=None, input=None, subprocess=False):
    """Run castlint as users do and return a CompletedProcess (text stdout/stderr)."""
    if subprocess or os.environ.get("CASTLINT_TEST_SUBPROCESS"):
        return run_castlint_subprocess(*args, cwd=cwd, env=env, input=input)
    return _run_in_process([str(a) for a in args], cwd=cwd, env=_env(env), input=input)


def run_castlint_subprocess(*args, cwd=None, env=None, input=None):
    """`python -m castlint ARGS` in a child process."""
    import subprocess as sp

    return sp.run(
        [sys.executable, "-m", "castlint", *map(str, args)],
        cwd=cwd,
        env=_env(env),
        capture_output=True,
        text=True,
        input=input,
        timeout=900,
    )


@contextlib.contextmanager
def _process_state(cwd, env, stdin_bytes):
    """The process-wide state a CLI run reads or sets, swapped in and restored."""
    saved_env = dict(os.environ)
    saved_cwd = os.getcwd()
    saved_streams = sys.stdin, sys.stdout, sys.stderr
    saved_term = signal.getsignal(signal.SIGTERM)
    errors = getattr(sys.__stdout__, "errors", None) or "strict"
    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors=errors, write_through=True)
    err = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="backslashreplace", write_through=True)
    try:
        os.environ.clear()
        os.environ.update(env)
        if cwd is not None:
            os.chdir(cwd)
        sys.stdin = io.TextIOWrapper(io.BytesIO(stdin_bytes), encoding="utf-8")
        sys.stdout, sys.stderr = out, err
        yield out, err
    finally:
        out.flush()
        err.flush()
        sys.stdin, sys.stdout, sys.stderr = saved_streams
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)
        signal.signal(signal.SIGTERM, saved_term)


def _run_in_process(args, cwd, env, input):
    from castlint.cli import main

    stdin_bytes = input.encode("utf-8") if isinstance(input, str) else (input or b"")
    code = 0
    with _process_state(cwd, env, stdin_bytes) as (out, err):
        try:
            main(args)
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        except BaseException:  # what an uncaught exception does to a real process
            traceback.print_exc(file=sys.stderr)
            code = 1
    encoding = locale.getpreferredencoding(False)
    stdout = out.buffer.getvalue().decode(encoding).replace("\r\n", "\n")
    stderr = err.buffer.getvalue().decode(encoding, "replace").replace("\r\n", "\n")
    return subprocess.CompletedProcess(["castlint", *args], code, stdout, stderr)


@contextlib.contextmanager
def _locked(path: Path):
    """An exclusive lock on path (created), so parallel test workers fetch each release once."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a") as fh:
        try:
            import fcntl
        except ImportError:  # not POSIX: no parallel workers to guard against
            yield
            return
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def _download(requirement: str, dest: Path, extra=()) -> Path:
    """The wheel of requirement (name==version) in dest, downloaded once per version."""
    import subprocess as sp

    dest.mkdir(parents=True, exist_ok=True)
    name, version = requirement.split("==")
    prefix = name.replace("-", "_") + "-" + version + "-"
    with _locked(dest / f".lock-{name}-{version}"):
        found = sorted(p for p in dest.glob("*.whl") if p.name.startswith(prefix))
        if not found:
            sp.run(
                [sys.executable, "-m", "pip", "download", "--no-deps", "-q", *extra, requirement, "-d", str(dest)],
                check=True,
                capture_output=True,
                timeout=900,
            )
            found = sorted(p for p in dest.glob("*.whl") if p.name.startswith(prefix))
    assert found, f"pip download {requirement} produced no wheel in {dest}"
    return found[0]


def wheel(requirement: str, extra=()) -> Path:
    """A released wheel (name==version), downloaded once into <cache>/wheels."""
    return _download(requirement, CACHE / "wheels", extra)


def unpacked_wheel(requirement: str, member_prefix: str, extra=()) -> Path:
    """Download a released wheel (cached) and unpack member_prefix/* outside the repo."""
    path = wheel(requirement, extra)
    target = (
        CACHE / "src" / requirement.split("==")[1]
        if requirement.startswith("sglang==")
        else CACHE / requirement.replace("==", "-")
    )
    marker = target / f".unpacked-{member_prefix.strip('/').replace('/', '_')}"
    with _locked(target.parent / f".lock-unpack-{target.name}"):
        if not marker.exists():
            with zipfile.ZipFile(path) as zf:
                members = [n for n in zf.namelist() if n.startswith(member_prefix)]
                zf.extractall(target, members)
            marker.touch()
    return target


def sglang_tree(version: str) -> Path:
    """The unpacked sglang package of a release: <cache>/src/<version>/sglang."""
    return unpacked_wheel(f"sglang=={version}", "sglang/") / "sglang"


def corpus_tree(name: str) -> Path:
    """The unpacked package of a release named name==version (sglang, vllm, lmdeploy)."""
    package, version = name.split("==")
    if package == "sglang":
        return sglang_tree(version)
    return unpacked_wheel(name, f"{package}/") / package


_CORPUS_CHECKS: dict = {}


def corpus_check(name: str):
    """`castlint check --format json TREE` on a release, run once per session from the tree's
    parent (the run's root, so its cache is <tree's parent>/.castlint_cache), after that
    cache folder is removed: the run is cold (every file computed) and leaves the cache warm
    for the session's later whole-tree runs of the same release (fix --diff). Shared by
    tests/test_corpus.py's test_check_whole_tree (the report) and
    test_pruned_analysis_gives_the_whole_file_findings (the pruned Run the CLI computed, with
    the files, tables and config it was computed from), and warmed by the fix --diff tests.

    Returns (proc, calls): calls holds one (files, tables, config, kwargs, Run) per
    castlint.engine.check_paths call the CLI made, seen by a spy in this process; under
    CASTLINT_TEST_SUBPROCESS=1 (the CLI in a child) it is empty."""
    if name not in _CORPUS_CHECKS:
        import shutil

        from castlint import engine

        tree = corpus_tree(name)
        shutil.rmtree(tree.parent / ".castlint_cache", ignore_errors=True)
        calls = []
        real = engine.check_paths

        def spy(files, tables, config, *args, **kwargs):
            run = real(files, tables, config, *args, **kwargs)
            calls.append((list(files), tables, config, dict(kwargs, args=args), run))
            return run

        engine.check_paths = spy
        try:
            proc = run_castlint("check", "--format", "json", tree, cwd=tree.parent)
        finally:
            engine.check_paths = real
        _CORPUS_CHECKS[name] = (proc, calls)
    return _CORPUS_CHECKS[name]


_CORPUS_FIX_DIFFS: dict = {}


def corpus_fix_diff(name: str):
    """`castlint fix --diff TREE` on a release, run once per session from the tree's parent (the
    diff names files relative to it) after corpus_check(name), whose cold run leaves the cache
    warm: only the files with a fixable finding are analysed again. Shared by
    tests/test_corpus.py's test_fix_diff_whole_tree_and_idempotent and
    tests/test_fix_edits.py's test_json_edits_on_sglang_are_what_fix_writes."""
    if name not in _CORPUS_FIX_DIFFS:
        corpus_check(name)
        tree = corpus_tree(name)
        _CORPUS_FIX_DIFFS[name] = run_castlint("fix", "--diff", tree, cwd=tree.parent)
    return _CORPUS_FIX_DIFFS[name]


def apply_unified_diff(diff: str, root: Path) -> dict:
    """The files a unified diff (what `castlint fix --diff` prints, `--- a/P` / `+++ b/P`)
    makes of the files under root: {path under root: new text}. Strict: every context and
    removed line must be the file's, at the hunk's line; a hunk `@@ -0,0 ...` adds a file.
    The files themselves are not read for paths not in the diff, nor written."""
    import re

    out: dict = {}
    lines = diff.splitlines(keepends=True)
    i = 0
    while i < len(lines):
        if not lines[i].startswith("--- "):
            i += 1
            continue
        assert lines[i + 1].startswith("+++ b/"), lines[i : i + 2]
        rel = lines[i + 1][len("+++ b/") :].rstrip("\n")
        i += 2
        path = root / rel
        assert rel not in out, f"{rel} twice in the diff"
        old = path.read_text(encoding="utf-8") if path.exists() else ""
        assert "\r" not in old, f"{path}: CRLF line endings (the in-process runner's output has none)"
        src = old.splitlines(keepends=True)
        new, at = [], 0  # at: the next line of src not yet copied
        while i < len(lines) and lines[i].startswith("@@ "):
            m = re.match(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@", lines[i])
            assert m, lines[i]
            start = int(m.group(1)) - (0 if m.group(2) == "0" else 1)
            old_left = 1 if m.group(2) is None else int(m.group(2))
            new_left = 1 if m.group(4) is None else int(m.group(4))
            assert start >= at, (rel, lines[i])
            new += src[at:start]
            at = start
            i += 1
            last_tag = None
            while old_left or new_left or (i < len(lines) and lines[i].startswith("\\")):
                tag, text = lines[i][0], lines[i][1:]
                i += 1
                if tag == "\\":  # "\ No newline at end of file": the line before has no newline
                    if last_tag in (" ", "+"):
                        new[-1] = new[-1].rstrip("\n")
                    continue
                assert tag in (" ", "-", "+"), (rel, lines[i - 1])
                last_tag = tag
                if tag in (" ", "-"):
                    assert at < len(src) and src[at].rstrip("\n") == text.rstrip("\n"), (
                        rel,
                        at + 1,
                        src[at] if at < len(src) else None,
                        text,
                    )
                    at += 1
                    old_left -= 1
                if tag in (" ", "+"):
                    new.append(text)
                    new_left -= 1
            assert old_left == 0 and new_left == 0, (rel, "hunk lengths")
        new += src[at:]
        out[rel] = "".join(new)
    return out


def wheel_metadata(requirement: str) -> str:
    """The METADATA text of a released wheel (downloaded once)."""
    with zipfile.ZipFile(wheel(requirement)) as zf:
        name = next(n for n in zf.namelist() if n.endswith(".dist-info/METADATA"))
        return zf.read(name).decode("utf-8")


@pytest.fixture
def castlint():
    return run_castlint


# The few long tests, marked `slow` here so their files stay as they are: the quick set
# (`pytest -m "not slow"`) leaves them out; .ci/run runs everything. test_precommit.py
# marks itself.
SLOW = (
    "test_corpus.py::test_pruned_analysis_gives_the_whole_file_findings",
    "test_corpus.py::test_fix_diff_whole_tree_and_idempotent",
    "test_corpus.py::test_check_whole_tree",
    "test_robustness.py::test_sigterm_mid_fix_leaves_every_file_old_or_new",
    "test_robustness.py::test_sigint_mid_fix_leaves_every_file_old_or_new",
    "test_fuzz.py::",
)


# The tests that share one release's whole-tree runs (corpus_check, corpus_fix_diff, and the cache
# that the cold check leaves beside the tree): under pytest-xdist (.ci/run: `-n 2 --dist
# loadgroup`) each release's group runs in one worker, so each release is checked once per session.
SHARED_RUNS = {
    "test_fix_edits.py::test_json_edits_on_sglang_are_what_fix_writes": "sglang==0.5.23",
    "test_fix_releases.py::test_fix_diff_on_whole_tree_touches_only_the_mla_and_paged_backends": "sglang==0.5.23",
    "test_rows_read.py::test_released_sglang_pool_and_triton_backend": "sglang==0.5.23",
    # the README's decode-step sentence and the step-total test check the same whole tree on the
    # cache its cold check leaves
    "test_readme_numbers.py::test_readme_step_total_matches_the_cli": "sglang==0.5.23",
    "test_step_total.py::test_sglang_0_5_23_shows_the_largest_backend_not_the_sum": "sglang==0.5.23",
}


def _xdist_group(node: str) -> str:
    """A test's xdist group: the release whose shared runs it reads, else its module (so that a
    module's fixtures of module scope are made once)."""
    if node in SHARED_RUNS:
        return SHARED_RUNS[node]
    module, _, rest = node.partition("::")
    if module == "test_corpus.py" and "[" in rest and "==" in rest:
        return rest[rest.index("[") + 1 : -1]
    return module


def _add_group_to_node_id(item, group: str) -> None:
    """What pytest-xdist's worker does for --dist loadgroup (the scheduler reads the group after
    the node id's last `@`): it sets item._nodeid, which pytest 9 no longer reads (the node id is
    the NodeId in item._id), so under pytest 9.2 with xdist 3.8.0 no group ever held."""
    new = f"{item.nodeid}@{group}"
    if hasattr(item, "_id"):
        from _pytest.nodeid import coerce_node_id

        item._id = coerce_node_id(new)
    else:
        item._nodeid = new


# The groups that take longest, longest first (seconds of one worker on 2 idle cores, from
# `--durations` of a whole run, 2026-12-06; docs/performance.md, "The test suite's time"). Under
# loadgroup, pytest-xdist hands out groups in collection order, and by default reorders them by
# their number of tests, largest first: a release's group of 3-5 whole-tree tests then ran last,
# and one worker finished it while the other sat idle. Collected first and handed out in that
# order (pytest_configure turns the reordering off), the long groups start at once and the
# many short ones fill the tail. A stale estimate only costs time.
LONGEST_GROUPS = {
    "sglang==0.5.23": 130,
    "sglang==0.5.10": 58,
    "vllm==0.33.0": 43,
    "test_precommit.py": 29,
    "test_faults_workers.py": 28,
    "test_paged_kv_read.py": 24,
    "test_sglang_releases.py": 23,
    "test_fix_parses_once.py": 20,
    "test_trace.py": 18,
    "test_server.py": 18,
    "sglang==0.4.9": 17,
    "test_validate_cpu.py": 16,
    "test_fix_style.py": 15,
    "test_faults_signals.py": 13,
    "lmdeploy==0.18.0": 12,
}


def pytest_configure(config):
    if getattr(config.option, "dist", "no") == "loadgroup":
        config.option.loadscopereorder = False  # hand groups out in collection order: LONGEST_GROUPS first


def pytest_collection_modifyitems(config, items):
    # Before this, every test was scheduled on its own (a test's node id came without its group):
    # each worker made its own cold whole-tree runs of a release, each clearing the other's cache.
    loadgroup = getattr(config.option, "loadgroup", False)  # set in an xdist worker of a loadgroup run
    groups = {}
    for item in items:
        node = item.nodeid.split("/")[-1]
        if any(node.startswith(prefix) for prefix in SLOW):
            item.add_marker(pytest.mark.slow)
        group = groups[item] = _xdist_group(node)
        item.add_marker(pytest.mark.xdist_group(group))
        if loadgroup and "@" not in item.nodeid:
            _add_group_to_node_id(item, group)
    items.sort(key=lambda item: -LONGEST_GROUPS.get(groups[item], 0))  # stable: the rest keep their order
