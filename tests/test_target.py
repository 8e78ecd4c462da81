"""The FlashInfer pin that decides the fix's call form: read from the tree, else rules/sglang.toml
(issue 12, bugs 7 and 8)."""

import dataclasses
import shutil
import zipfile

import pytest

from castlint.fixes.target import activation_note, detect_target, exact_pin, native_since
from castlint.tables import load_tables
from conftest import FIXTURES, run_castlint, sglang_tree, wheel, wheel_metadata

TABLES = load_tables()
MLA = "srt/layers/attention/flashinfer_mla_backend.py"
BACKEND = FIXTURES / "fix" / "mla_backend.in.py"


def checkout(tmp_path, pin, version="0.5.6", where="dependencies"):
    """A git checkout's layout: python/pyproject.toml beside python/sglang/, no version file."""
    repo = tmp_path / "sglang-repo"
    (repo / "python" / "sglang" / "srt" / "layers" / "attention").mkdir(parents=True)
    (repo / ".git").mkdir()
    shutil.copy(BACKEND, repo / "python" / "sglang" / MLA)
    deps = f'["requests", "flashinfer_python[cu13]=={pin}", "torch"]'
    body = (
        f"dependencies = {deps}\n"
        if where == "dependencies"
        else f"dependencies = []\n[project.optional-dependencies]\nsrt = {deps}\n"
    )
    (repo / "python" / "pyproject.toml").write_text(f'[project]\nname = "sglang"\nversion = "{version}"\n{body}')
    return repo / "python" / "sglang" / MLA


def installed(tmp_path, metadata: str, version: str):
    """An installed sglang: site-packages/sglang/ beside sglang-<version>.dist-info/METADATA."""
    site = tmp_path / "site-packages"
    (site / "sglang" / "srt" / "layers" / "attention").mkdir(parents=True)
    shutil.copy(BACKEND, site / "sglang" / MLA)
    (site / "sglang" / "version.py").write_text(f'__version__ = "{version}"\n')
    (site / f"sglang-{version}.dist-info").mkdir()
    (site / f"sglang-{version}.dist-info" / "METADATA").write_text(metadata)
    return site / "sglang" / MLA


@pytest.mark.parametrize("where", ["dependencies", "optional-dependencies"])
def test_pin_from_a_git_checkout(tmp_path, where):
    path = checkout(tmp_path, "0.5.3", where=where)
    target = detect_target(str(path), TABLES)
    assert (target.sglang_version, target.flashinfer) == ("0.5.6", "0.5.3")
    assert target.source.startswith("from ") and target.source.endswith("python/pyproject.toml")


def test_a_checkout_without_a_version_file_gets_the_explicit_scales(tmp_path):
    """Before, a checkout (no _version.py) silently got the older pin's call form: the release and
    its FlashInfer pin are read from the checkout's pyproject.toml. (Since the call sites shrank,
    every release's run() takes the module's scales as `**self.kv_read.scales(wrapper)`.)"""
    path = checkout(tmp_path, "0.7.2", version="0.5.23")
    proc = run_castlint("fix", path)
    assert proc.returncode in (0, 1), proc.stderr
    text = path.read_text()
    assert "**self.kv_read.scales(" in text and "ckv_scale=" not in text
    assert "call form for sglang 0.5.23 pins FlashInfer 0.7.2 (from " in proc.stderr


METADATA_048 = """\
Metadata-Version: 2.4
Name: sglang
Version: 0.4.8
Requires-Dist: aiohttp
Requires-Dist: flashinfer_python==0.2.6.post1; extra == "srt"
Requires-Dist: flashinfer_python==0.2.6.post1; extra == "blackwell"
"""


def test_pin_from_installed_metadata(tmp_path):
    path = installed(tmp_path, METADATA_048, "0.4.8")
    target = detect_target(str(path), TABLES)
    assert (target.sglang_version, target.flashinfer) == ("0.4.8", "0.2.6.post1")
    assert target.source.endswith("sglang-0.4.8.dist-info/METADATA")


def test_table_fallback_says_which_row(tmp_path):
    pkg = tmp_path / "sglang"
    (pkg / "srt" / "layers" / "attention").mkdir(parents=True)
    shutil.copy(BACKEND, pkg / MLA)
    (pkg / "version.py").write_text('__version__ = "0.5.7"\n')
    target = detect_target(str(pkg / MLA), TABLES)
    assert target.flashinfer == "0.5.3"
    assert "row 0.5.6: 0.5.7 is not listed and the tree states no pin" in target.source
    (pkg / "version.py").write_text('__version__ = "0.5.6"\n')
    assert detect_target(str(pkg / MLA), TABLES).source == "from rules/sglang.toml"


def test_flag_wins(tmp_path):
    path = checkout(tmp_path, "0.5.3")
    target = detect_target(str(path), TABLES, "0.6.18")
    assert (target.flashinfer, target.source) == ("0.6.18", "--flashinfer-version")


def test_exact_pin_parsing():
    names = ["flashinfer-python"]
    assert exact_pin("flashinfer_python[cu13]==0.6.18", names) == "0.6.18"
    assert exact_pin('flashinfer_python==0.2.6.post1; extra == "srt"', names) == "0.2.6.post1"
    assert exact_pin("FlashInfer.Python === 0.5.3", names) == "0.5.3"
    assert exact_pin("flashinfer-python>=0.2.1.post1", names) is None  # a range decides nothing
    assert exact_pin("flashinfer_cubin==0.5.3", names) is None
    assert exact_pin("flashinfer-python==0.6.*", names) is None


def test_silent_no_op_fix_says_so(tmp_path):
    """On a release pinning FlashInfer < 0.6.14 the guard never takes the native path: say it."""
    path = checkout(tmp_path, "0.5.3")
    proc = run_castlint("fix", path)
    assert "the native path activates with FlashInfer >= 0.6.14; this release pins 0.5.3" in proc.stderr
    assert "fixed: " in proc.stderr
    quiet = run_castlint("fix", "-q", checkout(tmp_path / "again", "0.7.2", version="0.5.23"))
    assert "native path activates" not in quiet.stderr


def test_the_threshold_comes_from_the_fp8_kv_mla_rows():
    assert native_since(TABLES) == "0.6.14"
    target = detect_target(str(BACKEND), TABLES, "0.6.14")
    assert activation_note(target, TABLES) is None
    # a table whose first native row is 0.6.18: the note follows the data
    later = dataclasses.replace(TABLES, fp8_kv_mla=[r for r in TABLES.fp8_kv_mla if r["since"] != "0.6.14"])
    assert native_since(later) == "0.6.18"
    assert activation_note(target, later).startswith(
        "the native path activates with FlashInfer >= 0.6.18; this release pins 0.6.14"
    )


# -- against the released wheels -------------------------------------------------------


@pytest.mark.network
@pytest.mark.parametrize("version", [version for _, version, _ in TABLES.releases])
def test_every_release_row_matches_the_wheel(version):
    pin = dict((v, p) for _, v, p in TABLES.releases)[version]
    metadata = wheel_metadata(f"sglang=={version}")
    pins = {
        exact_pin(line.split(":", 1)[1], TABLES.pin_source["requirements"])
        for line in metadata.splitlines()
        if line.startswith("Requires-Dist:")
    } - {None}
    assert pins == {pin}, (version, pins)


@pytest.mark.network
@pytest.mark.parametrize(
    "version,pin", [("0.4.8", "0.2.6.post1"), ("0.5.2", "0.3.1"), ("0.5.6", "0.5.3"), ("0.5.20", "0.6.18")]
)
def test_releases_between_rows_read_their_own_metadata(tmp_path, version, pin):
    """An installed release (its dist-info beside the package) gets the pin its wheel states."""
    site = tmp_path / "site-packages"
    with zipfile.ZipFile(wheel(f"sglang=={version}")) as zf:
        members = [
            n
            for n in zf.namelist()
            if n.endswith(".dist-info/METADATA")
            or n == f"sglang/{MLA}"
            or n in ("sglang/version.py", "sglang/_version.py")
        ]
        zf.extractall(site, members)
    target = detect_target(str(site / "sglang" / MLA), TABLES)
    assert (target.sglang_version, target.flashinfer) == (version, pin)
    assert target.source.endswith(f"sglang-{version}.dist-info/METADATA")
    # the release tree as the tests unpack it (no dist-info): the table row, now exact
    assert detect_target(str(sglang_tree(version) / MLA), TABLES).flashinfer == pin
