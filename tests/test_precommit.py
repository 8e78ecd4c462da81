"""The pre-commit hooks, run by the real pre-commit (`pre-commit try-repo`).

A snapshot of this checkout (the files a `pip install .` needs, plus
.pre-commit-hooks.yaml) is committed to a temporary git repository; pre-commit
clones it, builds the hook's virtualenv (core dependencies only, from the
package index) and runs the hook on a temporary repository with a bad file.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

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
GOOD = "def add(a, b):\n    return a + b\n"
GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.invalid", "GIT_CONFIG_NOSYSTEM": "1"}


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
    return {"repo": snapshot(base / "castlint-hooks"), "home": base / "pre-commit-home"}


def target_repo(tmp_path: Path, files: dict) -> Path:
    repo = tmp_path / "engine-repo"
    repo.mkdir()
    git(repo, "init", "-q")
    for name, text in files.items():
        (repo / name).write_text(text)
    git(repo, "add", "-A")
    return repo


def try_repo(hook_repo, target: Path, hook: str, *files: str):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "PRE_COMMIT"))}
    env.update(GIT_ENV, PRE_COMMIT_HOME=str(hook_repo["home"]), NO_COLOR="1")
    cmd = [sys.executable, "-m", "pre_commit", "try-repo", str(hook_repo["repo"]), hook, "--color", "never",
           "--verbose"]
    cmd += ["--files", *files] if files else ["--all-files"]
    return subprocess.run(cmd, cwd=target, env=env, capture_output=True, text=True, timeout=900)


def test_manifest():
    hooks = {h["id"]: h for h in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())}
    assert set(hooks) == {"castlint", "castlint-fix"}
    for h in hooks.values():
        assert h["language"] == "python" and h["types"] == ["python"] and h["require_serial"] is True
        assert "torch" not in h.get("additional_dependencies", [])
    assert hooks["castlint"]["entry"].split()[:2] == ["castlint", "check"]
    assert "--exit-non-zero-on-fix" in hooks["castlint-fix"]["entry"]


def test_check_hook_fails_on_a_bad_file(hook_repo, tmp_path):
    repo = target_repo(tmp_path, {"mla_backend.py": BAD, "util.py": GOOD})
    proc = try_repo(hook_repo, repo, "castlint", "mla_backend.py", "util.py")
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out
    assert "castlint" in out and "Failed" in out
    assert "mla_backend.py:6:16: CL003" in out
    assert "util.py:" not in out.split("Failed", 1)[1]
    assert (repo / "mla_backend.py").read_text() == BAD  # the check hook never writes


def test_check_hook_passes_on_a_clean_file(hook_repo, tmp_path):
    repo = target_repo(tmp_path, {"util.py": GOOD})
    proc = try_repo(hook_repo, repo, "castlint", "util.py")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Passed" in proc.stdout


def test_fix_hook_rewrites_and_fails_then_passes(hook_repo, tmp_path):
    repo = target_repo(tmp_path, {"mla_backend.py": BAD})
    proc = try_repo(hook_repo, repo, "castlint-fix", "mla_backend.py")
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out
    assert "Failed" in out and "files were modified by this hook" in out
    assert (repo / "mla_backend.py").read_text() == FIXED
    # second run: nothing left to fix
    git(repo, "add", "-A")
    again = try_repo(hook_repo, repo, "castlint-fix", "mla_backend.py")
    assert again.returncode == 0, again.stdout + again.stderr
    assert (repo / "mla_backend.py").read_text() == FIXED


def test_installed_hook_environment_has_no_torch(hook_repo, tmp_path):
    """As a user installs it (.pre-commit-config.yaml, `pre-commit run`): core dependencies only."""
    repo = target_repo(tmp_path, {"mla_backend.py": BAD})
    rev = subprocess.run(["git", "rev-parse", "HEAD"], cwd=hook_repo["repo"], capture_output=True, text=True,
                         check=True).stdout.strip()
    config = {"repos": [{"repo": str(hook_repo["repo"]), "rev": rev, "hooks": [{"id": "castlint"}]}]}
    (repo / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config))
    git(repo, "add", "-A")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "PRE_COMMIT"))}
    env.update(GIT_ENV, PRE_COMMIT_HOME=str(hook_repo["home"]))
    proc = subprocess.run([sys.executable, "-m", "pre_commit", "run", "--files", "mla_backend.py", "--color", "never"],
                          cwd=repo, env=env, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 1 and "CL003" in proc.stdout, proc.stdout + proc.stderr
    envs = [p for p in Path(hook_repo["home"]).glob("repo*/py_env-*") if p.is_dir()]
    assert len(envs) == 1, list(Path(hook_repo["home"]).rglob("py_env-*"))
    python = envs[0] / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    probe = ("import importlib.util as u; print(sorted(m for m in ('castlint', 'libcst', 'typer', 'rich', 'torch') "
             "if u.find_spec(m)))")
    found = subprocess.run([str(python), "-c", probe], capture_output=True, text=True, check=True).stdout.strip()
    assert found == "['castlint', 'libcst', 'rich', 'typer']"
