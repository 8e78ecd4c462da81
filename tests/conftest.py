"""Shared helpers: run castlint, fetch released engines into a cache outside the repo."""
from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures"
CACHE = Path(os.environ.get("CASTLINT_TEST_CACHE", Path.home() / ".cache" / "castlint"))


def run_castlint(*args, cwd=None, env=None, input=None):
    """Run castlint as users do (python -m castlint) and return the CompletedProcess."""
    full_env = dict(os.environ, NO_COLOR="1", COLUMNS="200")
    full_env.pop("GITHUB_ACTIONS", None)
    if env:
        full_env.update(env)
    return subprocess.run([sys.executable, "-m", "castlint", *map(str, args)], cwd=cwd, env=full_env,
                          capture_output=True, text=True, input=input, timeout=900)


def _download(requirement: str, dest: Path, extra=()) -> Path:
    dest.mkdir(parents=True, exist_ok=True)
    name, version = requirement.split("==")
    prefix = name.replace("-", "_") + "-" + version + "-"
    found = sorted(p for p in dest.glob("*.whl") if p.name.startswith(prefix))
    if not found:
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "-q", *extra, requirement,
                        "-d", str(dest)], check=True, capture_output=True, timeout=900)
        found = sorted(p for p in dest.glob("*.whl") if p.name.startswith(prefix))
    assert found, f"pip download {requirement} produced no wheel in {dest}"
    return found[0]


def unpacked_wheel(requirement: str, member_prefix: str, extra=()) -> Path:
    """Download a released wheel (cached) and unpack member_prefix/* outside the repo."""
    wheel = _download(requirement, CACHE / "wheels", extra)
    target = CACHE / "src" / requirement.split("==")[1] if requirement.startswith("sglang==") else \
        CACHE / requirement.replace("==", "-")
    marker = target / f".unpacked-{member_prefix.strip('/').replace('/', '_')}"
    if not marker.exists():
        with zipfile.ZipFile(wheel) as zf:
            members = [n for n in zf.namelist() if n.startswith(member_prefix)]
            zf.extractall(target, members)
        marker.touch()
    return target


def sglang_tree(version: str) -> Path:
    """The unpacked sglang package of a release: <cache>/src/<version>/sglang."""
    return unpacked_wheel(f"sglang=={version}", "sglang/") / "sglang"


@pytest.fixture
def castlint():
    return run_castlint
