"""The pre-commit hooks, run by the real pre-commit.

A snapshot of this checkout (the files a `pip install .` needs, plus
.pre-commit-hooks.yaml) is committed to a temporary git repository. Each test
writes a `.pre-commit-config.yaml` that points at it (at its commit, as a user
pins `rev:`), and runs `pre-commit run` on a temporary repository: pre-commit
builds the hook's virtualenv once for the module (core dependencies only, from
the package index) and every test reuses it (`pre-commit try-repo` would
build one per call: 11 s each). These are the suite's slowest tests (marked slow: `pytest -m "not slow"` skips them).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

pytestmark = [pytest.mark.slow, pytest.mark.network]

ROOT = Path(__file__).resolve().parents[1]
SNAPSHOT_FILES = ("pyproject.toml", "setup.py", "setup.cfg", "README.md", "LICENSE", ".pre-commit-hooks.yaml")
SNAPSHOT_DIRS = ("src", "rules")

BAD = """\
import torch


class TritonMLABackend:
    def forward_extend(self, q, layer, loc):
        rows = self.pool.get_key_buffer(layer.layer_id).to(torch.bfloat16)[loc]
        return q @ rows.T
"""
FIXED = BAD.replace(".to(torch.bfloat16)[loc]", "[loc].to(torch.bfloat16)")
# one finding the fix repairs (CL003, safe) and one it cannot (CL001 with no known consumer)
MIXED = """\
import torch


class TritonMLABackend:
    def forward_decode(self, q, layer, loc):
        rows = self.pool.get_key_buffer(layer.layer_id).to(torch.bfloat16)[loc]
        whole = self.pool.get_value_buffer(layer.layer_id).to(q.dtype)
        return q @ rows.T, whole
"""
MIXED_FIXED = MIXED.replace(".to(torch.bfloat16)[loc]", "[loc].to(torch.bfloat16)")
GOOD = "def add(a, b):\n    return a + b\n"
GIT_ENV = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.invalid",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.invalid",
    "GIT_CONFIG_NOSYSTEM": "1",
}
RECOMMENDED = [{"id": "castlint", "args": ["--fix"]}]  # README and docs/workflows.md


def git(cwd, *args):
    subprocess.run(["git", *args], cwd=cwd, env=dict(os.environ, **GIT_ENV), check=True, capture_output=True)


def snapshot(dest: Path) -> Path:
    dest.mkdir()
    for name in SNAPSHOT_FILES:
        if (ROOT / name).exists():
            shutil.copy2(ROOT / name, dest / name)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", ".castlint_cache")
    for name in SNAPSHOT_DIRS:
        shutil.copytree(ROOT / name, dest / name, ignore=ignore)
    if not (dest / "README.md").exists():  # pyproject names it as the long description
        (dest / "README.md").write_text("castlint\n")
    git(dest, "init", "-q")
    git(dest, "add", "-A")
    git(dest, "commit", "-q", "-m", "snapshot")
    return dest


@pytest.fixture(scope="module")
def hook_repo(tmp_path_factory):
    base = tmp_path_factory.mktemp("precommit")
    repo = snapshot(base / "castlint-hooks")
    rev = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True, check=True
    ).stdout.strip()
    return {"repo": repo, "rev": rev, "home": base / "pre-commit-home"}


def _env(hook_repo) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "PRE_COMMIT"))}
    env.update(GIT_ENV, PRE_COMMIT_HOME=str(hook_repo["home"]), NO_COLOR="1")
    # the hook's environment is built once for the module (its first `pre-commit run`); pip's
    # byte-compiling of what it installs there (libcst, rich and pygments, typer) cost several
    # CPU-s of it and is no part of what these tests show: the hook runs from the sources
    env.update(PIP_COMPILE="0", PIP_DISABLE_PIP_VERSION_CHECK="1")  # PIP_NO_COMPILE=1 would turn it on
    return env


def target_repo(tmp_path: Path, files: dict, hooks=None, hook_repo=None) -> Path:
    repo = tmp_path / "engine-repo"
    repo.mkdir()
    git(repo, "init", "-q")
    for name, text in files.items():
        (repo / name).write_text(text)
    if hooks is not None:
        config = {"repos": [{"repo": str(hook_repo["repo"]), "rev": hook_repo["rev"], "hooks": hooks}]}
        (repo / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    git(repo, "add", "-A")
    return repo


def run_hooks(hook_repo, target: Path, *files: str):
    """`pre-commit run --files FILES` with the target's .pre-commit-config.yaml."""
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", "run", "--color", "never", "--verbose", "--files", *files],
        cwd=target,
        env=_env(hook_repo),
        capture_output=True,
        text=True,
        timeout=900,
    )


def test_manifest():
    hooks = {h["id"]: h for h in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())}
    assert set(hooks) == {"castlint", "castlint-fix"}
    for h in hooks.values():
        assert h["language"] == "python" and h["types"] == ["python"] and h["require_serial"] is True
        assert "torch" not in h.get("additional_dependencies", [])
    assert hooks["castlint"]["entry"].split()[:2] == ["castlint", "check"]
    assert "--exit-non-zero-on-fix" in hooks["castlint-fix"]["entry"]


def test_docs_recommend_one_hook_with_fix():
    """README and docs/workflows.md show the one-hook config this module tests, and no tag that does not exist yet."""
    for doc in (ROOT / "README.md", ROOT / "docs" / "workflows.md"):
        text = doc.read_text()
        block = text.split("repos:\n", 1)[1].split("```", 1)[0]
        hooks = yaml.safe_load("repos:\n" + block)["repos"][0]["hooks"]
        assert hooks == RECOMMENDED, (doc, hooks)
        assert not re.search(r"^\s*rev: v0\.1\.0\s*$", text, re.M) and "once released" in text.lower()


def test_recommended_hook_fixes_then_reports_what_is_left_once(hook_repo, tmp_path):
    """`castlint --fix` as one hook: the fixable finding is fixed, the other is reported once, the commit fails."""
    repo = target_repo(tmp_path, {"mla_backend.py": MIXED, "util.py": GOOD}, RECOMMENDED, hook_repo)
    proc = run_hooks(hook_repo, repo, "mla_backend.py", "util.py")
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out
    assert (repo / "mla_backend.py").read_text() == MIXED_FIXED
    assert out.count(": CL001 ") == 1, out  # the unfixable finding, once
    assert "mla_backend.py:7:17: CL001" in out
    assert "Found 2 findings (1 fixed, 1 remaining)." in out
    assert "files were modified by this hook" in out
    # the developer stages the fix: the hook now only reports the finding left, once
    git(repo, "add", "-A")
    again = run_hooks(hook_repo, repo, "mla_backend.py", "util.py")
    out = again.stdout + again.stderr
    assert again.returncode == 1 and out.count(": CL001 ") == 1 and "modified by this hook" not in out, out
    assert (repo / "mla_backend.py").read_text() == MIXED_FIXED


def test_recommended_hook_passes_when_everything_is_fixable(hook_repo, tmp_path):
    repo = target_repo(tmp_path, {"mla_backend.py": BAD}, RECOMMENDED, hook_repo)
    proc = run_hooks(hook_repo, repo, "mla_backend.py")
    assert proc.returncode == 1 and "files were modified by this hook" in proc.stdout, proc.stdout + proc.stderr
    assert (repo / "mla_backend.py").read_text() == FIXED
    git(repo, "add", "-A")
    again = run_hooks(hook_repo, repo, "mla_backend.py")
    assert again.returncode == 0 and "Passed" in again.stdout, again.stdout + again.stderr


def test_check_hook_fails_on_a_bad_file(hook_repo, tmp_path):
    repo = target_repo(tmp_path, {"mla_backend.py": BAD, "util.py": GOOD}, [{"id": "castlint"}], hook_repo)
    proc = run_hooks(hook_repo, repo, "mla_backend.py", "util.py")
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out
    assert "castlint" in out and "Failed" in out
    assert "mla_backend.py:6:16: CL003" in out
    assert "util.py:" not in out.split("Failed", 1)[1]
    assert (repo / "mla_backend.py").read_text() == BAD  # the check hook never writes


def test_check_hook_passes_on_a_clean_file(hook_repo, tmp_path):
    repo = target_repo(tmp_path, {"util.py": GOOD}, [{"id": "castlint"}], hook_repo)
    proc = run_hooks(hook_repo, repo, "util.py")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Passed" in proc.stdout


def test_old_fix_hook_rewrites_and_fails_then_passes(hook_repo, tmp_path):
    repo = target_repo(tmp_path, {"mla_backend.py": BAD}, [{"id": "castlint-fix"}], hook_repo)
    proc = run_hooks(hook_repo, repo, "mla_backend.py")
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out
    assert "Failed" in out and "files were modified by this hook" in out
    assert (repo / "mla_backend.py").read_text() == FIXED
    git(repo, "add", "-A")
    again = run_hooks(hook_repo, repo, "mla_backend.py")
    assert again.returncode == 0, again.stdout + again.stderr
    assert (repo / "mla_backend.py").read_text() == FIXED


def test_installed_hook_environment_has_no_torch(hook_repo, tmp_path):
    """As a user installs it (.pre-commit-config.yaml, `pre-commit run`): core dependencies only."""
    repo = target_repo(tmp_path, {"mla_backend.py": BAD}, [{"id": "castlint"}], hook_repo)
    proc = run_hooks(hook_repo, repo, "mla_backend.py")
    assert proc.returncode == 1 and "CL003" in proc.stdout, proc.stdout + proc.stderr
    envs = [p for p in Path(hook_repo["home"]).glob("repo*/py_env-*") if p.is_dir()]
    assert len(envs) == 1, list(Path(hook_repo["home"]).rglob("py_env-*"))  # one environment for every test
    python = envs[0] / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    probe = (
        "import importlib.util as u; print(sorted(m for m in ('castlint', 'libcst', 'typer', 'rich', 'pathspec', "
        "'torch') if u.find_spec(m)))"
    )
    found = subprocess.run([str(python), "-c", probe], capture_output=True, text=True, check=True).stdout.strip()
    assert found == "['castlint', 'libcst', 'pathspec', 'rich', 'typer']"
