"""What a walk checks: symlinked duplicates, virtual environments, .gitignore, empty trees (issue 12)."""

import json
import os
import shutil
import subprocess

import pytest

from castlint.config import Config
from castlint.discover import discover
from conftest import FIXTURES, ROOT, run_castlint

BAD = FIXTURES / "check" / "fa3_backend.py"


def names(files, top):
    return sorted(os.path.relpath(f, top) for f in files)


def test_a_lib64_link_is_a_duplicate_not_a_loop(tmp_path):
    """`ln -s lib t/lib64` (every venv has it) read as a symlink loop and exited 2."""
    t = tmp_path / "t"
    (t / "lib").mkdir(parents=True)
    (t / "lib" / "m.py").write_text("x = 1\n")
    os.symlink("lib", t / "lib64")
    proc = run_castlint("check", t)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "symlink loop" not in proc.stdout + proc.stderr
    assert "1 file checked" in proc.stdout


def test_a_link_that_sorts_first_still_reports_the_real_path(tmp_path):
    t = tmp_path / "t"
    (t / "zlib").mkdir(parents=True)
    shutil.copy(BAD, t / "zlib" / "backend.py")
    os.symlink("zlib", t / "alias")
    files, errors = discover([str(t)], Config(root=tmp_path))
    assert errors == [] and names(files, t) == ["zlib/backend.py"]


def test_two_links_to_one_outside_directory_walk_it_once(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "m.py").write_text("x = 1\n")
    t = tmp_path / "t"
    t.mkdir()
    os.symlink(outside, t / "a")
    os.symlink(outside, t / "b")
    files, errors = discover([str(t)], Config(root=tmp_path))
    assert errors == [] and names(files, t) == ["a/m.py"]


def test_a_link_back_up_the_tree_is_still_a_loop(tmp_path):
    t = tmp_path / "t"
    (t / "pkg").mkdir(parents=True)
    os.symlink("..", t / "pkg" / "up")
    _, errors = discover([str(t)], Config(root=tmp_path))
    assert [(os.path.relpath(e.path, t), e.message.split(":")[0]) for e in errors] == [("pkg/up", "symlink loop")]


def test_virtual_environments_are_skipped_by_content(tmp_path):
    t = tmp_path / "proj"
    (t / "src").mkdir(parents=True)
    shutil.copy(BAD, t / "src" / "backend.py")
    for venv in ("env-py311", ".ci-venv", "whatever"):  # not by name: any folder with a pyvenv.cfg
        site = t / venv / "lib" / "python3.11" / "site-packages" / "pkg"
        site.mkdir(parents=True)
        (t / venv / "pyvenv.cfg").write_text("home = /usr/bin\n")
        shutil.copy(BAD, site / "copy.py")
        os.symlink("lib", t / venv / "lib64")
    files, errors = discover([str(t)], Config(root=t))
    assert errors == [] and names(files, t) == ["src/backend.py"]
    # named explicitly, a venv is checked: the user asked for it
    files, _ = discover([str(t / "whatever")], Config(root=t))
    assert names(files, t) == ["whatever/lib/python3.11/site-packages/pkg/copy.py"]


def test_dot_ci_venv_is_gitignored():
    assert ".ci-venv/" in (ROOT / ".gitignore").read_text().split()


def _git_tree(tmp_path):
    repo = tmp_path / "repo"
    (repo / "pkg" / "gen").mkdir(parents=True)
    (repo / "pkg" / "sub").mkdir()
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    for rel in ("pkg/a.py", "pkg/gen/b.py", "pkg/sub/keep_me.py", "pkg/sub/drop.py", "scratch.py", "pkg/local.py"):
        shutil.copy(BAD, repo / rel)
    (repo / ".gitignore").write_text("scratch.py\n/pkg/gen/\n*.py.bak\n")
    (repo / "pkg" / "sub" / ".gitignore").write_text("*.py\n!keep_me.py\n")
    (repo / ".git" / "info").mkdir(exist_ok=True)
    (repo / ".git" / "info" / "exclude").write_text("local.py\n")
    return repo


def test_gitignore_is_honoured_by_default(tmp_path):
    repo = _git_tree(tmp_path)
    proc = run_castlint("check", "--show-files", ".", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["./pkg/a.py", "./pkg/sub/keep_me.py"]
    # from a subfolder: the .gitignore files above it still apply
    proc = run_castlint("check", "--show-files", "sub", cwd=repo / "pkg")
    assert proc.stdout.split() == ["sub/keep_me.py"]


def test_no_respect_gitignore(tmp_path):
    repo = _git_tree(tmp_path)
    proc = run_castlint("check", "--show-files", "--no-respect-gitignore", ".", cwd=repo)
    assert len(proc.stdout.split()) == 6
    (repo / "pyproject.toml").write_text("[tool.castlint]\nrespect-gitignore = false\n")
    proc = run_castlint("check", "--show-files", ".", cwd=repo)
    assert len(proc.stdout.split()) == 6
    proc = run_castlint("check", "--show-files", "--respect-gitignore", ".", cwd=repo)
    assert len(proc.stdout.split()) == 2


def test_gitignored_file_named_explicitly_is_checked(tmp_path):
    repo = _git_tree(tmp_path)
    proc = run_castlint("check", "-f", "json", "scratch.py", cwd=repo)
    assert json.loads(proc.stdout)["summary"]["files_checked"] == 1


def test_gitignore_without_a_git_repository(tmp_path):
    t = tmp_path / "plain"
    t.mkdir()
    shutil.copy(BAD, t / "a.py")
    shutil.copy(BAD, t / "b.py")
    (t / ".gitignore").write_text("b.py\n")
    files, _ = discover([str(t)], Config(root=t))
    assert names(files, t) == ["a.py"]


def test_after_ci_run_the_clone_checks_without_its_venv(tmp_path):
    """The README's `bash .ci/run` leaves .ci-venv in the clone; `castlint check .` must not walk it."""
    clone = tmp_path / "clone"
    (clone / "src").mkdir(parents=True)
    shutil.copy(BAD, clone / "src" / "backend.py")
    venv = clone / ".ci-venv"
    (venv / "lib" / "python3.11" / "site-packages").mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\n")
    os.symlink("lib", venv / "lib64")
    (venv / "lib" / "python3.11" / "site-packages" / "x.py").write_text("y = 1\n")
    proc = run_castlint("check", "--format", "json", ".", cwd=clone)
    report = json.loads(proc.stdout)
    assert report["errors"] == [] and report["summary"]["files_checked"] == 1


def test_an_empty_directory_warns_and_does_not_pass(tmp_path):
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "README.md").write_text("no python here\n")
    proc = run_castlint("check", tmp_path / "empty")
    assert proc.returncode == 0
    assert "All checks passed" not in proc.stdout
    assert f"warning: no Python files found under {tmp_path / 'empty'}" in proc.stderr


@pytest.mark.parametrize(
    "flag,patterns,expected",
    [
        ("--exclude", "vendored", ["engine/fa3.py"]),
        ("--extend-exclude", "engine", ["vendored/copy.py"]),  # keeps the configured exclude (none here)
    ],
)
def test_exclude_flags(tmp_path, flag, patterns, expected):
    for rel in ("engine/fa3.py", "vendored/copy.py", "build/gen.py"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(BAD, tmp_path / rel)
    proc = run_castlint("check", "--show-files", flag, patterns, ".", cwd=tmp_path)
    assert [os.path.relpath(p, ".") for p in proc.stdout.split()] == expected  # build/ stays excluded by default


def test_cli_exclude_replaces_the_configured_one(tmp_path):
    for rel in ("engine/fa3.py", "vendored/copy.py"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(BAD, tmp_path / rel)
    (tmp_path / "pyproject.toml").write_text('[tool.castlint]\nexclude = ["vendored"]\n')
    assert run_castlint("check", "--show-files", ".", cwd=tmp_path).stdout.split() == ["./engine/fa3.py"]
    got = run_castlint("check", "--show-files", "--exclude", "engine", ".", cwd=tmp_path).stdout.split()
    assert got == ["./vendored/copy.py"]
    got = run_castlint("check", "--show-files", "--extend-exclude", "engine", ".", cwd=tmp_path).stdout.split()
    assert got == []


def test_ignore_file_shortcut_agrees_with_pathspec(tmp_path):
    """The one-regex shortcut over an ignore file's patterns never changes pathspec's answer."""
    import itertools

    from castlint.discover import _read_ignore_file

    lines = [
        "# comment",
        "",
        "*.py[cod]",
        "build/",
        "/top.py",
        "**/gen_*.py",
        "!keep_gen_x.py",
        "docs/**/*.py",
        "a/b/",
        "[Tt]mp*/",
        "\\#odd.py",
        "trailing.py   ",
        "!/build/keep/",
        "sub/*.pyi",
        "*~",
    ]
    (tmp_path / ".gitignore").write_text("\n".join(lines) + "\n")
    ignore = _read_ignore_file(str(tmp_path / ".gitignore"))
    assert ignore.any is not None
    names = [
        "top.py",
        "gen_a.py",
        "keep_gen_x.py",
        "x.pyc",
        "build",
        "keep",
        "#odd.py",
        "trailing.py",
        "m.pyi",
        "tmpdir",
        "Tmp1",
        "b",
        "plain.py",
        "sub",
        "docs",
        "a",
    ]
    paths = set()
    for depth in range(1, 4):
        for combo in itertools.product(names, repeat=depth):
            paths.add("/".join(combo))
            paths.add("/".join(combo) + "/")
    for path in sorted(paths):
        assert ignore.check(path) == ignore.spec.check_file(path).include, path
