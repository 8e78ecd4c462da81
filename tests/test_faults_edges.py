"""Clear words at the edges: a closed or full stdout, a .gitignore line git cannot use, a
config nested too deeply: one line that says what and where, exit 2, never a traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import run_castlint

GOOD = "def forward_decode(self, q, layer):\n    k = self.pool.get_key_buffer(layer.layer_id).to(q.dtype)\n"
GATHER = (
    "import torch\ndef forward_decode(self, layer, loc):\n"
    "    return self.pool.get_key_buffer(layer.layer_id).to(torch.bfloat16)[loc]\n"
)


def _castlint(*args, cwd, stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, **kwargs):
    env = dict(os.environ, NO_COLOR="1")
    return subprocess.run(
        [sys.executable, "-m", "castlint", *map(str, args)],
        cwd=cwd,
        env=env,
        stdout=stdout,
        stderr=subprocess.PIPE,
        stdin=stdin,
        text=True,
        timeout=300,
        **kwargs,
    )


def _closed_stdout(*args, cwd):
    """Run with fd 1 closed, as `castlint ... >&-` does."""
    return _castlint(*args, cwd=cwd, stdout=None, pass_fds=(), preexec_fn=lambda: os.close(1))


@pytest.mark.parametrize(
    "args",
    [
        ("check",),
        ("check", "-f", "json"),
        ("check", "--statistics"),
        ("check", "--show-files"),
        ("fix", "--diff"),
        ("rules",),
        ("--version",),
    ],
)
def test_closed_stdout_is_one_line_and_exit_2(tmp_path, args):
    (tmp_path / "a.py").write_text(GOOD if args[0] != "fix" else GATHER)
    paths = () if args[0] in ("rules", "--version") else ("a.py",)
    proc = _closed_stdout(*args, *paths, cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.strip().splitlines() == [
        "castlint: error: standard output is closed: nothing can be written to it (write the report to a file "
        "with -o FILE)"
    ], proc.stderr


def test_closed_stdout_is_fine_when_nothing_goes_there(tmp_path):
    (tmp_path / "a.py").write_text(GOOD)
    proc = _closed_stdout("check", "-o", "report.txt", "a.py", cwd=tmp_path)
    assert proc.returncode == 1 and proc.stderr == ""
    assert "CL001" in (tmp_path / "report.txt").read_text()
    clean = tmp_path / "clean.py"
    clean.write_text("x = 1\n")
    assert _closed_stdout("check", "-q", "clean.py", cwd=tmp_path).returncode == 0


def test_a_file_castlint_opens_never_takes_the_closed_stdout(tmp_path):
    """With fd 1 closed, the next file opened would get fd 1; castlint puts /dev/null there
    first, so nothing meant for stdout lands in a fixed file or the cache."""
    (tmp_path / "g.py").write_text(GATHER)
    proc = _closed_stdout("fix", "--fix-only", "-q", "g.py", cwd=tmp_path)
    assert proc.returncode in (0, 2), proc.stderr
    assert (tmp_path / "g.py").read_text().endswith("[loc].to(torch.bfloat16)\n")


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")
def test_a_full_stdout_is_one_line_and_exit_2(tmp_path):
    (tmp_path / "a.py").write_text(GOOD)
    with open("/dev/full", "w") as full:
        proc = _castlint("check", "a.py", cwd=tmp_path, stdout=full)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == ["castlint: error: cannot write the output: No space left on device"]


def test_closed_stdin_reads_as_empty(tmp_path):
    proc = _castlint("check", "-", cwd=tmp_path, preexec_fn=lambda: os.close(0))
    assert proc.returncode == 0 and "Traceback" not in proc.stderr


# -- .gitignore ------------------------------------------------------------------------------


@pytest.mark.parametrize("bad", ["\\", "foo\\", "!"], ids=["lone-backslash", "trailing-backslash", "bare-bang"])
def test_a_gitignore_line_git_cannot_use_is_skipped_with_a_warning(tmp_path, bad):
    tree = tmp_path / "tree"
    tree.mkdir()
    subprocess.run(["git", "init", "-q", str(tree)], check=True)
    (tree / ".gitignore").write_text(f"ignored.py\n{bad}\nalso_ignored.py\n")
    for name in ("ignored.py", "also_ignored.py", "kept.py"):
        (tree / name).write_text(GOOD)
    proc = run_castlint("check", "--show-files", "tree", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["tree/kept.py"]  # the other lines still apply
    assert proc.stderr.strip().splitlines() == [
        f"warning: tree/.gitignore:2: {bad!r} is not a valid gitignore pattern (git never matches it); skipped"
    ]
    check = run_castlint("check", "-q", "tree", cwd=tmp_path)
    assert check.returncode == 1 and check.stdout.count("CL001") == 1 and "internal error" not in check.stderr


def test_a_bad_line_in_an_outer_gitignore_and_info_exclude(tmp_path):
    repo = tmp_path / "repo"
    (repo / "pkg").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / ".gitignore").write_text("\\\n")
    (repo / ".git" / "info").mkdir(parents=True, exist_ok=True)
    (repo / ".git" / "info" / "exclude").write_text("# comment\nskip.py\n!\n")
    (repo / "pkg" / "skip.py").write_text(GOOD)
    (repo / "pkg" / "kept.py").write_text(GOOD)
    proc = run_castlint("check", "--show-files", repo / "pkg", cwd=tmp_path)
    assert proc.returncode == 0
    assert [Path(line).name for line in proc.stdout.splitlines()] == ["kept.py"]
    warnings = proc.stderr.strip().splitlines()
    assert any(".gitignore:1: '\\\\'" in w for w in warnings), warnings
    assert any("info/exclude:3: '!'" in w for w in warnings), warnings
