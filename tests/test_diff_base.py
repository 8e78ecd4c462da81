"""`castlint check --diff-base REV`: only findings on lines added or changed since REV (real git repos)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from castlint.gitdiff import GitDiffError, changed_lines, parse_unified_diff
from conftest import _run_in_process

CAST = "        k = self.pool.get_key_buffer(layer.layer_id).to(q.dtype)\n"
GATHER = "        rows = self.pool.get_key_buffer(layer.layer_id).to(torch.bfloat16)[loc]\n"


def module(*body_lines: str) -> str:
    return (
        "import torch\n\n\nclass Backend:\n    def forward_decode(self, q, layer, loc):\n"
        + "".join(body_lines)
        + "        return q\n"
    )


GIT_ENV = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.invalid",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.invalid",
    "GIT_CONFIG_NOSYSTEM": "1",
}


def git(repo, *args):
    env = dict(os.environ, **GIT_ENV, HOME=str(repo))
    return subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True, text=True).stdout


def check(repo, *args):
    """`castlint check ARGS` in repo with this environment: in this process (conftest.run_castlint's
    way; a child process under CASTLINT_TEST_SUBPROCESS=1). git itself still runs as a child."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    if os.environ.get("CASTLINT_TEST_SUBPROCESS"):
        return subprocess.run(
            [sys.executable, "-m", "castlint", "check", *args],
            cwd=repo,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
    return _run_in_process(["check", *map(str, args)], cwd=repo, env=env, input=None)


def found(repo, *args):
    proc = check(repo, "--format", "json", *args)
    assert proc.returncode in (0, 1), proc.stderr
    return sorted((f["path"], f["start"]["line"], f["code"]) for f in json.loads(proc.stdout)["findings"])


@pytest.fixture()
def repo(tmp_path):
    r = tmp_path / "repo"
    r.mkdir()
    git(r, "init", "-q", "-b", "main")
    (r / "engine").mkdir()
    (r / "engine" / "old.py").write_text(module(CAST))  # a finding that predates the branch
    (r / "engine" / "edited.py").write_text(module(CAST, "        x = 1\n"))
    (r / "engine" / "moved.py").write_text(module(CAST))
    (r / "engine" / "moved_edited.py").write_text(module(CAST, "        y = 2\n"))
    (r / "engine" / "gone.py").write_text(module(CAST))
    git(r, "add", "-A")
    git(r, "commit", "-q", "-m", "base")
    git(r, "checkout", "-q", "-b", "feature")
    return r


def test_only_changed_lines_are_reported(repo):
    e = repo / "engine"
    # edited.py: one new finding; the old one stays unchanged
    (e / "edited.py").write_text(module(CAST, "        x = 1\n", GATHER))
    # pure rename: nothing changed, nothing reported
    git(repo, "mv", "engine/moved.py", "engine/renamed.py")
    # rename with an edit: the new line counts, under the new name
    git(repo, "mv", "engine/moved_edited.py", "engine/renamed_edited.py")
    (e / "renamed_edited.py").write_text(module(CAST, "        y = 2\n", GATHER))
    # deleted file
    git(repo, "rm", "-q", "engine/gone.py")
    # a new file committed on the branch
    (e / "added.py").write_text(module(GATHER))
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "feature work")
    # an uncommitted edit and an untracked file count as changed too
    (e / "old.py").write_text(
        module(CAST).replace(
            "        return q\n", "        z = self.pool.get_key_buffer(0).float()\n        return q\n"
        )
    )
    (e / "untracked.py").write_text(module(CAST))
    # a file with a space in its name (git quotes/tabs such names in diff headers)
    (e / "with space.py").write_text(module(GATHER))

    everything = found(repo, "engine")
    assert ("engine/renamed.py", 6, "CL001") in everything and ("engine/edited.py", 6, "CL001") in everything
    assert found(repo, "engine", "--diff-base", "main") == sorted(
        [
            ("engine/added.py", 6, "CL003"),
            ("engine/edited.py", 8, "CL003"),
            ("engine/old.py", 7, "CL001"),
            ("engine/renamed_edited.py", 8, "CL003"),
            ("engine/untracked.py", 6, "CL001"),
            ("engine/with space.py", 6, "CL003"),
        ]
    )
    # the same with a commit id as the base, and run from a subdirectory
    base = git(repo, "rev-parse", "main").strip()
    from_root = found(repo, "engine", "--diff-base", base)
    assert from_root == found(repo, "engine", "--diff-base", "main")
    from_sub = found(repo / "engine", ".", "--diff-base", base)
    assert sorted((os.path.normpath(p), n, c) for p, n, c in from_sub) == sorted(
        (os.path.normpath(p[len("engine/") :]), n, c) for p, n, c in from_root
    )


def test_compares_with_the_merge_base(repo):
    """Lines that changed on main after the branch point are not this branch's changes."""
    (repo / "engine" / "added.py").write_text(module(GATHER))
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "branch adds a finding")
    git(repo, "checkout", "-q", "main")
    # main later deletes the old finding's line; the branch still has it
    (repo / "engine" / "old.py").write_text(module())
    git(repo, "commit", "-q", "-am", "main removes the cast")
    git(repo, "checkout", "-q", "feature")
    assert found(repo, "engine", "--diff-base", "main") == [("engine/added.py", 6, "CL003")]


def test_nothing_changed_reports_nothing(repo):
    proc = check(repo, "engine", "--diff-base", "HEAD")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "All checks passed" in proc.stdout


def test_bad_revision_is_a_clear_error(repo):
    proc = check(repo, "engine", "--diff-base", "no-such-branch")
    assert proc.returncode == 2
    assert "unknown revision 'no-such-branch'" in proc.stderr
    proc = check(repo, "engine", "--diff-base", "--output=x")
    assert proc.returncode == 2
    assert not (repo / "x").exists()


def test_not_a_git_repository(tmp_path, monkeypatch):
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path.parent))
    (tmp_path / "a.py").write_text(module(CAST))
    proc = subprocess.run(
        [sys.executable, "-m", "castlint", "check", "a.py", "--diff-base", "main"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2
    assert "needs a git repository" in proc.stderr
    with pytest.raises(GitDiffError, match="not inside one"):
        changed_lines("main", cwd=str(tmp_path))


def test_parse_unified_diff_headers():
    diff = (
        b'diff --git "a/caf\\303\\251.py" "b/caf\\303\\251.py"\n'
        b'--- "a/caf\\303\\251.py"\n+++ "b/caf\\303\\251.py"\n@@ -3 +3,2 @@\n-x\n+y\n+z\n'
        b"diff --git a/gone.py b/gone.py\ndeleted file mode 100644\n--- a/gone.py\n+++ /dev/null\n@@ -1,2 "
        b"+0,0 @@\n-a\n-b\n"
        b"diff --git a/s p.py b/s p.py\n--- a/s p.py\t\n+++ b/s p.py\t\n@@ -1,0 +2 @@\n+new\n@@ -9,2 +10,0 @@\n-x\n-y\n"
    )
    assert parse_unified_diff(diff) == {"café.py": {3, 4}, "s p.py": {2}}
