"""Bad input never crashes castlint or costs a file: one clear message, exit 2, the rest checked.

Every case puts one bad entry next to a good file with a known finding, runs
`castlint check` as users do, and checks that the bad entry gets exactly one
error naming it (and the line, where there is one), that the good file is still
checked, and that nothing in the tree changed. Then: the cache, -j, discovery's
exclude rules, the fast position provider, and fix's byte preservation and
behaviour under SIGINT/SIGTERM, all through the CLI.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from castlint.config import Config
from castlint.discover import discover
from castlint.engine import check_paths
from castlint.tables import load_tables
from conftest import FIXTURES, run_castlint

TABLES = load_tables()

# A whole-pool cast on a hot path: CL001 on line 2.
GOOD = "def forward_decode(self, q, layer):\n    k = self.pool.get_key_buffer(layer.layer_id).to(q.dtype)\n"
# The same cast in a file that also needs the rest of its text to be read: the
# trigger words make sure castlint really parses it.
TRIGGER = "x = self.pool.get_key_buffer(layer.layer_id).to(torch.bfloat16)\n"


def snapshot(root: Path) -> dict:
    """Every entry under root: bytes (or link target, or kind) and mode, without following links."""
    out = {}
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            full = Path(folder) / name
            st = os.lstat(full)
            rel = str(full.relative_to(root))
            if stat.S_ISLNK(st.st_mode):
                out[rel] = ("link", os.readlink(full))
            elif stat.S_ISREG(st.st_mode):
                out[rel] = ("file", full.read_bytes(), stat.S_IMODE(st.st_mode))
            else:
                out[rel] = ("other", stat.S_IFMT(st.st_mode), stat.S_IMODE(st.st_mode))
    return out


def check_json(tree: Path, *args, cwd: Path):
    proc = run_castlint("check", "--format", "json", *args, tree, cwd=cwd)
    assert proc.stdout, proc.stderr
    return proc, json.loads(proc.stdout)


def run_bad(tmp_path: Path, make, message: str, line=None, name: str = "bad.py", errors: int = 1):
    """Put a good file and a bad entry (made by make(tree)) in a tree; check both."""
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "good.py").write_text(GOOD)
    make(tree)
    before = snapshot(tree)
    proc, report = check_json(tree, cwd=tmp_path)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    bad = [e for e in report["errors"] if Path(e["path"]).name == name]
    assert len(bad) == errors and len(report["errors"]) == errors, report["errors"]
    for e in bad:
        assert re.search(message, e["message"]), e
        if line is not None:
            assert e["line"] == line, e
        assert e["kind"] != "internal", e
    assert [(Path(f["path"]).name, f["start"]["line"], f["code"]) for f in report["findings"]] == [
        ("good.py", 2, "CL001")
    ]  # the rest of the tree is still checked
    assert snapshot(tree) == before  # and nothing was modified
    return report


# -- bad input ------------------------------------------------------------------


def test_syntax_error(tmp_path):
    run_bad(
        tmp_path,
        lambda t: (t / "bad.py").write_text("def f(self, layer):\n    " + TRIGGER[:-2] + "\n\n"),
        r"syntax error: '\(' was never closed",
        line=2,
    )


def test_non_utf8_bytes(tmp_path):
    run_bad(
        tmp_path,
        lambda t: (t / "bad.py").write_bytes(b"# ok\n" + TRIGGER.encode() + b"s = '\xff\xfe'\n"),
        r"cannot decode as UTF-8 \(byte 0xff\)",
        line=3,
    )


def test_non_utf8_bytes_without_trigger_words_are_reported_too(tmp_path):
    run_bad(tmp_path, lambda t: (t / "bad.py").write_bytes(b"s = '\xe9t\xe9'\n"), r"cannot decode as UTF-8", line=1)


def test_unknown_encoding_cookie(tmp_path):
    run_bad(
        tmp_path,
        lambda t: (t / "bad.py").write_text("# -*- coding: klingon -*-\n" + TRIGGER),
        r"bad encoding declaration.*klingon",
        line=1,
    )


def test_cookie_that_does_not_match_the_bytes(tmp_path):
    run_bad(
        tmp_path,
        lambda t: (t / "bad.py").write_bytes(b"# coding: utf-8\n" + TRIGGER.encode() + b"s = '\xff'\n"),
        r"cannot decode as utf-8 \(the encoding the file declares\)",
        line=3,
    )


def test_latin1_cookie_is_read_and_checked_at_the_right_lines(tmp_path):
    tree = tmp_path / "tree"
    tree.mkdir()
    source = "# -*- coding: latin-1 -*-\ns = 'caf\xe9'\n" + GOOD
    (tree / "latin.py").write_bytes(source.encode("latin-1"))
    proc, report = check_json(tree, cwd=tmp_path)
    assert proc.returncode == 1 and report["errors"] == []
    assert [(f["start"]["line"], f["code"]) for f in report["findings"]] == [(4, "CL001")]


def test_nul_bytes(tmp_path):
    run_bad(tmp_path, lambda t: (t / "bad.py").write_bytes(TRIGGER.encode() + b"y = 1\n\x00\n"), r"NUL bytes", line=3)


def test_binary_file_named_py(tmp_path):
    import random

    blob = bytes(random.Random(6).randrange(256) for _ in range(4096)) + b"\x00"
    run_bad(tmp_path, lambda t: (t / "bad.py").write_bytes(blob), r"NUL bytes \(binary\?\)|cannot decode")


def test_empty_file_is_fine(tmp_path):
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "empty.py").write_bytes(b"")
    (tree / "__init__.py").write_bytes(b"\n")
    proc, report = check_json(tree, cwd=tmp_path)
    assert proc.returncode == 0 and report["errors"] == [] and report["summary"]["files_checked"] == 2


def test_huge_file_over_the_configured_limit(tmp_path):
    def make(tree):
        (tree / "bad.py").write_text(TRIGGER * 200)  # 13 KB
        (tree.parent / "castlint.toml").write_text("max-file-size = 10000\n")

    run_bad(tmp_path, make, r"file is 12,800 bytes, over the 10,000-byte limit \(max-file-size\)", line=0)


def test_huge_generated_file_over_the_default_limit(tmp_path):
    run_bad(
        tmp_path,
        lambda t: (t / "bad.py").write_text("x = [\n" + "    1,\n" * 700_000 + "]\n" + TRIGGER),
        r"over the 4,000,000-byte limit",
    )


def test_symlink_loops(tmp_path):
    tree = tmp_path / "tree"
    (tree / "pkg").mkdir(parents=True)
    (tree / "good.py").write_text(GOOD)
    os.symlink("b.py", tree / "a.py")
    os.symlink("a.py", tree / "b.py")
    os.symlink("..", tree / "pkg" / "up")  # a directory link back up the tree
    before = snapshot(tree)
    proc, report = check_json(tree, cwd=tmp_path)
    assert proc.returncode == 2
    messages = {(os.path.relpath(e["path"], tree), e["message"].split(" (")[0].split(":")[0]) for e in report["errors"]}
    assert messages == {("a.py", "symlink loop"), ("b.py", "symlink loop"), ("pkg/up", "symlink loop")}, report[
        "errors"
    ]
    assert [(Path(f["path"]).name, f["start"]["line"]) for f in report["findings"]] == [("good.py", 2)]
    assert snapshot(tree) == before


def test_broken_symlink(tmp_path):
    run_bad(tmp_path, lambda t: os.symlink("missing.py", t / "bad.py"), r"broken symbolic link", line=0)


def test_unreadable_fifo_does_not_hang(tmp_path):
    run_bad(tmp_path, lambda t: os.mkfifo(t / "bad.py"), r"not a regular file \(a FIFO\)", line=0)


def test_unreadable_socket(tmp_path):
    sock = socket.socket(socket.AF_UNIX)
    try:
        run_bad(tmp_path, lambda t: sock.bind(str(t / "bad.py")), r"not a regular file \(a socket\)", line=0)
    finally:
        sock.close()


def test_permission_denied(tmp_path, monkeypatch):
    """chmod 000 stops everyone but root, and CI runs as root: as root, make the open
    itself fail with EACCES (what the kernel says to anyone else) and run in-process."""
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "good.py").write_text(GOOD)
    bad = tree / "bad.py"
    bad.write_text(TRIGGER)
    bad.chmod(0)
    if os.geteuid() != 0:
        proc, report = check_json(tree, cwd=tmp_path)
        assert proc.returncode == 2
        errors = report["errors"]
        findings = [(Path(f["path"]).name, f["start"]["line"]) for f in report["findings"]]
    else:
        real_open = os.open

        def deny(path, *args, **kwargs):
            if str(path) == str(bad):
                raise PermissionError(13, "Permission denied", str(path))
            return real_open(path, *args, **kwargs)

        monkeypatch.setattr(os, "open", deny)
        config = Config(root=tmp_path)
        files, walk_errors = discover([str(tree)], config)
        run = check_paths(files, TABLES, config, jobs=1, cache=False)
        errors = [e.to_dict() for e in walk_errors + run.all_errors]
        findings = [(Path(f.path).name, f.start.line) for f in run.findings]
    assert [(Path(e["path"]).name, e["message"]) for e in errors] == [("bad.py", "permission denied")]
    assert findings == [("good.py", 2)]
    bad.chmod(0o644)
    assert bad.read_text() == TRIGGER


def test_directory_named_like_a_python_file(tmp_path):
    def make(tree):
        (tree / "bad.py").mkdir()
        (tree / "bad.py" / "inner.txt").write_text("not python")

    run_bad(tmp_path, make, r"is a directory named like a Python file", line=0)


def test_directory_named_py_is_still_walked(tmp_path):
    tree = tmp_path / "tree"
    (tree / "weird.py").mkdir(parents=True)
    (tree / "weird.py" / "inside.py").write_text(GOOD)
    proc, report = check_json(tree, cwd=tmp_path)
    assert proc.returncode == 2
    assert [(Path(f["path"]).name, f["start"]["line"]) for f in report["findings"]] == [("inside.py", 2)]


@pytest.mark.parametrize("jobs", [1, 2])
def test_files_disappearing_during_the_run(tmp_path, jobs):
    tree = tmp_path / "tree"
    tree.mkdir()
    for i in range(40):  # enough files for the worker pool
        (tree / f"m{i:02d}.py").write_text("x = 1\n" if i % 2 else GOOD)
    config = Config(root=tmp_path)
    files, _ = discover([str(tree)], config)
    gone = [f for f in files if f.endswith(("m03.py", "m04.py"))]
    for path in gone:
        os.unlink(path)
    run = check_paths(files, TABLES, config, jobs=jobs, cache=False)
    assert [(Path(e.path).name, e.line, e.message) for e in run.all_errors] == [
        ("m03.py", 0, "file disappeared during the run"),
        ("m04.py", 0, "file disappeared during the run"),
    ]
    assert len(run.findings) == 19  # every other GOOD file, less m04


def test_file_vanishing_between_prefilter_and_parse(tmp_path, monkeypatch):
    """The parse phase reads a file again; if it is gone by then, that is the message."""
    import castlint.engine as engine

    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "good.py").write_text(GOOD)
    (tree / "bad.py").write_text(GOOD)
    real = engine.check_file

    def vanish(path, *args, **kwargs):
        if path.endswith("bad.py"):
            os.unlink(path)
            kwargs.pop("source", None)
        return real(path, *args, **kwargs)

    monkeypatch.setattr(engine, "check_file", vanish)
    config = Config(root=tmp_path)
    files, _ = discover([str(tree)], config)
    run = check_paths(files, TABLES, config, jobs=1, cache=False)
    assert [(Path(e.path).name, e.message) for e in run.all_errors] == [("bad.py", "file disappeared during the run")]
    assert [Path(f.path).name for f in run.findings] == ["good.py"]


def test_python2_file(tmp_path):
    source = 'import torch\ndef f(self, layer):\n    print "casting"\n    return ' + TRIGGER.split("= ", 1)[1]
    run_bad(
        tmp_path,
        lambda t: (t / "bad.py").write_text(source),
        r"syntax error: Missing parentheses in call to 'print'.*looks like Python 2",
        line=3,
    )


def test_text_report_names_file_and_line(tmp_path):
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "bad.py").write_text("def f(self, layer):\n    " + TRIGGER[:-2] + "\n")
    proc = run_castlint("check", "--no-cache", tree, cwd=tmp_path)
    assert proc.returncode == 2
    assert re.search(r"tree/bad\.py:2: error syntax error: '\(' was never closed", proc.stdout), proc.stdout


def test_every_bad_input_at_once(tmp_path):
    """All of the above in one tree: each gets its message, the good file its finding."""
    tree = tmp_path / "tree"
    (tree / "pkg").mkdir(parents=True)
    (tree / "good.py").write_text(GOOD)
    (tree / "syntax.py").write_text("def f(self, layer):\n    " + TRIGGER[:-2] + "\n")
    (tree / "latin.py").write_bytes(TRIGGER.encode() + b"s = '\xff'\n")
    (tree / "nul.py").write_bytes(b"\x00" + TRIGGER.encode())
    (tree / "empty.py").write_bytes(b"")
    os.symlink("loop.py", tree / "loop.py")
    os.mkfifo(tree / "fifo.py")
    (tree / "dir.py").mkdir()
    (tree / "py2.py").write_text("print 'x'\n" + TRIGGER)
    os.symlink("..", tree / "pkg" / "up")
    before = snapshot(tree)
    for jobs in ("1", "2"):
        proc, report = check_json(tree, "-j", jobs, "--no-cache", cwd=tmp_path)
        assert proc.returncode == 2
        named = sorted(os.path.relpath(e["path"], tree) for e in report["errors"])
        assert named == ["dir.py", "fifo.py", "latin.py", "loop.py", "nul.py", "pkg/up", "py2.py", "syntax.py"]
        assert all(e["kind"] != "internal" for e in report["errors"])
        assert [(Path(f["path"]).name, f["start"]["line"]) for f in report["findings"]] == [("good.py", 2)]
    assert snapshot(tree) == before


# -- determinism, -j and the cache ------------------------------------------------


def _tree_with_findings(root: Path, n: int = 60) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        body = GOOD if i % 3 == 0 else "def f(x):\n    return x.to(1)\n"
        (root / f"mod{i:03d}.py").write_text(f"# {i}\n" + body)
    (root / "fixture_backend.py").write_bytes((FIXTURES / "fix" / "cast_before_gather.in.py").read_bytes())
    return root


def test_output_is_the_same_whatever_the_parallelism_and_the_cache(tmp_path):
    tree = _tree_with_findings(tmp_path / "tree")
    outputs = []
    for args in (["-j", "1", "--no-cache"], ["-j", "2", "--no-cache"], ["-j", "2"], ["-j", "1"], ["-j", "2"]):
        proc = run_castlint("check", "--format", "json", *args, tree, cwd=tmp_path)
        assert proc.returncode == 1, proc.stderr
        outputs.append(proc.stdout)
    assert len(set(outputs)) == 1
    assert (tmp_path / ".castlint_cache").is_dir()  # the runs without --no-cache made one


def test_cache_is_used_and_invalidated(tmp_path):
    tree = _tree_with_findings(tmp_path / "tree")
    config = Config(root=tmp_path)
    files, _ = discover([str(tree)], config)
    cold = check_paths(files, TABLES, config, jobs=1)
    assert cold.stats["cached"] == 0
    warm = check_paths(files, TABLES, config, jobs=1)
    assert warm.stats["cached"] == len(files)
    assert [f.to_dict() for f in warm.findings] == [f.to_dict() for f in cold.findings]

    # touched but identical: the content hash still matches
    os.utime(files[0], ns=(1, 1))
    assert check_paths(files, TABLES, config, jobs=1).stats["cached"] == len(files)

    # one file changed: only it is checked again, and its new findings are reported
    target = tree / "mod001.py"
    target.write_text(GOOD)
    again = check_paths(files, TABLES, config, jobs=1)
    assert again.stats["cached"] == len(files) - 1
    assert sum(1 for f in again.findings if f.path == str(target)) == 1

    # a different config is a different cache
    other = Config(root=tmp_path, ignore=("CL001",))
    ignored = check_paths(files, TABLES, other, jobs=1)
    assert ignored.stats["cached"] == 0 and all(f.code != "CL001" for f in ignored.findings)


def test_cache_keeps_errors_only_when_they_are_about_the_content(tmp_path):
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "syntax.py").write_text("def f(self, layer):\n    " + TRIGGER[:-2] + "\n")
    os.symlink("missing.py", tree / "broken.py")
    config = Config(root=tmp_path)
    files, _ = discover([str(tree)], config)
    check_paths(files, TABLES, config, jobs=1)
    run = check_paths(files, TABLES, config, jobs=1)
    assert run.stats["cached"] == 1  # the syntax error; the broken link is looked at again
    assert sorted(Path(e.path).name for e in run.all_errors) == ["broken.py", "syntax.py"]


def test_no_cache_flag_and_config_write_nothing(tmp_path):
    tree = _tree_with_findings(tmp_path / "tree", 5)
    proc = run_castlint("check", "--no-cache", tree, cwd=tmp_path)
    assert proc.returncode == 1 and not (tmp_path / ".castlint_cache").exists()
    (tmp_path / "castlint.toml").write_text("cache = false\n")
    proc = run_castlint("check", tree, cwd=tmp_path)
    assert proc.returncode == 1 and not (tmp_path / ".castlint_cache").exists()


def test_corrupt_or_unwritable_cache_is_ignored(tmp_path):
    tree = _tree_with_findings(tmp_path / "tree", 5)
    first = run_castlint("check", "--format", "json", tree, cwd=tmp_path)
    for cache_file in (tmp_path / ".castlint_cache").glob("v*.json"):
        cache_file.write_text('{"format": 1, "entries": {"x": [1, 2]')  # truncated
    second = run_castlint("check", "--format", "json", tree, cwd=tmp_path)
    assert second.returncode == first.returncode == 1 and second.stdout == first.stdout
    for cache_file in (tmp_path / ".castlint_cache").glob("v*.json"):
        cache_file.write_text(json.dumps({"format": 1, "entries": {str(tree / "mod000.py"): "garbage"}}))
    third = run_castlint("check", "--format", "json", tree, cwd=tmp_path)
    assert third.stdout == first.stdout
    # a cache directory that is a file: no cache, same output
    import shutil

    shutil.rmtree(tmp_path / ".castlint_cache")
    (tmp_path / ".castlint_cache").write_text("not a directory")
    fourth = run_castlint("check", "--format", "json", tree, cwd=tmp_path)
    assert fourth.returncode == 1 and fourth.stdout == first.stdout


def test_cache_is_kept_out_of_git(tmp_path):
    tree = _tree_with_findings(tmp_path / "tree", 3)
    run_castlint("check", tree, cwd=tmp_path)
    assert (tmp_path / ".castlint_cache" / ".gitignore").read_text().strip().endswith("*")
    assert (
        (tmp_path / ".castlint_cache" / "CACHEDIR.TAG")
        .read_text()
        .startswith("Signature: 8a477f597d28d172789f06886806bc55")
    )


# -- discovery and positions: the fast paths give the slow paths' answers ------------


def _reference_walk(top: str, config: Config) -> list:
    out = []
    for dirpath, dirnames, filenames in os.walk(top, followlinks=False):
        dirnames[:] = [d for d in dirnames if not config.excluded(Path(dirpath) / d)]
        out.extend(
            os.path.join(dirpath, n)
            for n in filenames
            if n.endswith((".py", ".pyi")) and not config.excluded(Path(dirpath) / n)
        )
    return sorted(out)


@pytest.mark.parametrize("exclude", [(), ("tests",), ("a/b*",), ("*_gen.py", "pkg/sub/"), ("a*b",)])
def test_discover_matches_config_excluded(tmp_path, exclude):
    layout = [
        "a/b1/x.py",
        "a/b2/y.pyi",
        "a/c/z.py",
        "tests/t.py",
        "pkg/sub/s.py",
        "pkg/q_gen.py",
        "ax/yb/w.py",
        "build/gen.py",
        "node_modules/m.py",
        "ok.py",
        "a/readme.txt",
        "x.egg-info/e.py",
    ]
    for rel in layout:
        path = tmp_path / "root" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x = 1\n")
    root = tmp_path / "root"
    config = Config(root=root)
    if exclude:
        from castlint.config import DEFAULT_EXCLUDE

        config.exclude = tuple(exclude) + DEFAULT_EXCLUDE
    for top in (str(root), str(root / "a"), os.path.relpath(root, os.getcwd())):
        found, errors = discover([top], config)
        assert errors == []
        assert found == _reference_walk(top, config), (top, exclude)


def test_positions_match_libcst_position_provider():
    import libcst as cst
    from libcst.metadata import MetadataWrapper, PositionProvider

    from castlint.checks import ALL_RULES
    from castlint.positions import compute_positions

    sources = [p.read_bytes() for p in sorted(FIXTURES.rglob("*.py"))]
    sources += [src.encode() for rule in ALL_RULES for src in rule.VALID]
    sources += [src.encode() for rule in ALL_RULES for src, _ in rule.INVALID]
    sources += [b"x = (\n  1 +\\\n  2)\r\ny = '''a\r\nb'''\rz = f'{x!r:>{y}}'\n", b"", b"\n\n", b"# only a comment"]
    for source in sources:
        module = cst.parse_module(source)
        expected = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
        got = compute_positions(module)
        assert len(got) == len(expected)
        for node, where in expected.items():
            assert got[node] == where


# -- fix: bytes kept, and never half a file ----------------------------------------

CAST = b"self.pool.get_key_buffer(layer.layer_id).to(torch.bfloat16)[loc]"
FIXED = b"self.pool.get_key_buffer(layer.layer_id)[loc].to(torch.bfloat16)"


def gather_source(newline: bytes = b"\n", indent: bytes = b"    ", bom: bool = False) -> bytes:
    lines = [
        b"import torch   ",
        b"",
        b"def forward_decode(self, layer, loc):  ",
        indent + b"x = " + CAST + b"\t",
        indent + b"y = 1 \t ",
        indent + b"return x, y",
        b"",
    ]
    return (b"\xef\xbb\xbf" if bom else b"") + newline.join(lines)


@pytest.mark.parametrize("variant", ["lf", "crlf", "tabs", "bom", "bom+crlf+tabs"])
def test_fix_keeps_bom_crlf_tabs_trailing_whitespace_and_mode(tmp_path, variant):
    newline = b"\r\n" if "crlf" in variant else b"\n"
    indent = b"\t" if "tabs" in variant else b"    "
    source = gather_source(newline, indent, bom="bom" in variant)
    target = tmp_path / "backend.py"
    target.write_bytes(source)
    target.chmod(0o751)
    proc = run_castlint("fix", "--no-cache", target, cwd=tmp_path)
    assert proc.returncode in (0, 1), proc.stdout + proc.stderr
    assert target.read_bytes() == source.replace(CAST, FIXED)  # every other byte as it was
    assert stat.S_IMODE(target.stat().st_mode) == 0o751
    again = run_castlint("fix", "--diff", "--no-cache", target, cwd=tmp_path)
    assert again.returncode == 0 and again.stdout == ""  # a second fix is a no-op


def test_fix_diff_writes_nothing(tmp_path):
    target = tmp_path / "backend.py"
    target.write_bytes(gather_source())
    proc = run_castlint("fix", "--diff", "--no-cache", target, cwd=tmp_path)
    assert proc.returncode == 1 and "+    x = " + FIXED.decode() in proc.stdout
    assert target.read_bytes() == gather_source()


def _interrupt_fix(tmp_path: Path, sig: int, n: int = 600):
    tree = tmp_path / "tree"
    tree.mkdir()
    old = gather_source()
    new = old.replace(CAST, FIXED)
    for i in range(n):
        (tree / f"b{i:03d}.py").write_bytes(old)
    env = dict(os.environ, NO_COLOR="1")
    proc = subprocess.Popen(
        [sys.executable, "-m", "castlint", "fix", "--no-cache", "-j", "2", str(tree)],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    # fix writes in path order once every fix is computed: signal as soon as the
    # first file is new, in the middle of the writes
    first = tree / "b000.py"
    deadline = time.time() + 300
    while time.time() < deadline and proc.poll() is None and first.read_bytes() != new:
        time.sleep(0.002)
    assert proc.poll() is None, "fix finished before it could be interrupted"
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=120)
    contents = [(tree / f"b{i:03d}.py").read_bytes() for i in range(n)]
    assert all(c in (old, new) for c in contents), "a file is neither fully old nor fully new"
    assert old in contents, "the signal came after the run"  # it really was mid-run
    assert proc.returncode != 0
    return tree, contents, new, err


def test_sigint_mid_fix_leaves_every_file_old_or_new(tmp_path):
    tree, contents, new, err = _interrupt_fix(tmp_path, signal.SIGINT)
    assert new in contents
    assert not [p.name for p in tree.iterdir() if not p.name.endswith(".py")]  # no temp file left behind


def test_sigterm_mid_fix_leaves_every_file_old_or_new(tmp_path):
    """The CLI turns SIGTERM into KeyboardInterrupt, as Python does SIGINT, so the
    write in progress unwinds through atomic_write and removes its temp file."""
    tree, contents, new, err = _interrupt_fix(tmp_path, signal.SIGTERM)
    assert new in contents
    assert not [p.name for p in tree.iterdir() if not p.name.endswith(".py")]  # no temp file left behind


def test_anchored_prefilter_gives_the_plain_answer():
    import random

    from castlint.prefilter import has_trigger

    def plain(text, groups):
        return any(all(any(word in text for word in words) for words in group) for group in groups)

    from castlint.engine import encoded_triggers

    groups = encoded_triggers(TABLES)
    words = [w for group in groups for ws in group for w in ws]
    rng = random.Random(6)
    texts = [p.read_bytes() for p in sorted(FIXTURES.rglob("*.py"))] + [b"", b"x", b".to(", b"_buffer"]
    for _ in range(3000):
        parts = [
            rng.choice(words)[: rng.randint(1, 40)] if rng.random() < 0.5 else rng.choice(words)
            for _ in range(rng.randint(0, 4))
        ]
        texts.append(b" ".join(parts + [bytes(rng.randrange(32, 127) for _ in range(rng.randint(0, 20)))]))
    for text in texts:
        assert has_trigger(text, groups) == plain(text, groups), text


@pytest.mark.parametrize(
    "comment,expected",
    [
        ("  # noqa: E501, CL001", [("CL900", 3)]),  # names a CL code: reported unused
        ("  # NOQA:cl003", [("CL900", 3)]),
        ("  # noqa: E501", []),  # not castlint's: never reported
        ("  # noqa", []),
    ],
)
def test_noqa_comments_without_findings(tmp_path, comment, expected):
    target = tmp_path / "m.py"
    target.write_text("import torch\n\ndef f(x):" + comment + "\n    return x.to(torch.half)\n")
    config = Config(root=tmp_path)
    result = check_paths([str(target)], TABLES, config, jobs=1, prefilter=False, cache=False)
    assert [(f.code, f.start.line) for f in result.findings] == expected


@pytest.mark.parametrize("comment,silenced", [("  # noqa", True), ("  # noqa: CL001", True), ("  # noqa: E501", False)])
def test_noqa_comments_with_findings(tmp_path, comment, silenced):
    target = tmp_path / "m.py"
    target.write_text(GOOD.rstrip("\n") + comment + "\n")
    config = Config(root=tmp_path)
    codes = [f.code for f in check_paths([str(target)], TABLES, config, jobs=1, cache=False).findings]
    assert codes == ([] if silenced else ["CL001"])
