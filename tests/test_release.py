"""issue 22: an installable release. `python -m build` on a clean copy of the tree makes an
sdist and a wheel that carry the rules tables; the wheel installs into a fresh virtual
environment (its dependencies from the package index) and `castlint check` and `castlint
rules` work there, with no source tree beside it. The version comes from one place."""

from __future__ import annotations

import os
import re
import site
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

from conftest import FIXTURES, ROOT

pytestmark = pytest.mark.slow


def _clean_copy(dest: Path) -> Path:
    """The tracked files as they are in the working tree: what a fresh clone holds (no build/, no egg-info)."""
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    for name in filter(None, listed.decode().split("\0")):
        source = ROOT / name
        if not source.is_file():
            continue  # deleted in the working tree
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(source.read_bytes())
    return dest


def test_wheel_from_a_clean_tree_installs_and_runs_with_its_tables(tmp_path):
    pytest.importorskip("build")
    from castlint import __version__

    tree = _clean_copy(tmp_path / "src-tree")
    dist = tmp_path / "dist"
    built = subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(dist), str(tree)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert built.returncode == 0, built.stdout[-2000:] + built.stderr[-2000:]
    (wheel,) = dist.glob("castlint-*.whl")
    (sdist,) = dist.glob("castlint-*.tar.gz")
    assert wheel.name == f"castlint-{__version__}-py3-none-any.whl"  # the version is castlint.__version__
    tables = sorted(p.name for p in (ROOT / "rules").glob("*.toml"))
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
        metadata = zf.read(f"castlint-{__version__}.dist-info/METADATA").decode()
    assert sorted(n.split("/")[-1] for n in names if n.startswith("castlint/rules/")) == tables
    assert "Project-URL: Repository, https://" in metadata and "Provides-Extra: lsp" in metadata
    with tarfile.open(sdist) as tf:
        assert {f"castlint-{__version__}/rules/{t}" for t in tables} <= set(tf.getnames())

    # A bare venv gets the wheel alone (this interpreter's pip installs into it); its dependencies come
    # from this environment's site-packages, by a .pth file (resolving them from an index is the README's
    # fresh-venv set-up, checked before every stop): the castlint it imports is the wheel's.
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=300)
    bindir = venv / ("Scripts" if os.name == "nt" else "bin")
    python = str(bindir / "python")
    purelib = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    Path(purelib, "dependencies.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    pip = subprocess.run(
        [sys.executable, "-m", "pip", "--python", python, "install", "-q", "--no-deps", "--disable-pip-version-check"]
        + [str(wheel)],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert pip.returncode == 0, pip.stderr[-3000:]

    work = tmp_path / "elsewhere"  # no source tree here, nor on the path
    work.mkdir()
    (work / "backend.py").write_bytes((FIXTURES / "check" / "fa3_backend.py").read_bytes())
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    env["NO_COLOR"] = "1"
    castlint = str(bindir / "castlint")

    def run(*args):
        return subprocess.run([castlint, *args], cwd=work, env=env, capture_output=True, text=True, timeout=300)

    version = run("--version")
    assert version.returncode == 0 and version.stdout.strip() == f"castlint {__version__}"
    check = run("check", "--no-cache", "-q", "backend.py")
    assert check.returncode == 1, check.stdout + check.stderr
    assert re.search(r"^backend\.py:\d+:\d+: CL001 ", check.stdout, re.M)
    rules = run("rules")
    assert rules.returncode == 0 and "CL001" in rules.stdout and "whole-pool-cast" in rules.stdout
    where = subprocess.run(
        [str(bindir / "python"), "-c", "import castlint.tables as t; print(t.builtin_rules_dir())"],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    ).stdout.strip()
    assert where.startswith(str(venv)) and where.endswith("castlint/rules")  # the wheel's own tables
