"""The MLA fix lays out what it writes by the checked tree's own formatter settings
(castlint.fixes.style): Black's line length from the nearest pyproject.toml [tool.black]
(or [tool.ruff] line-length), isort's from .isort.cfg / pyproject / setup.cfg, and the
engine's own ([formatting] in rules/sglang.toml) for a tree without any (a wheel)."""

from __future__ import annotations

import difflib
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from castlint.fixes import FixOptions, fix_source
from castlint.fixes.style import Style, style_for
from castlint.tables import load_tables
from conftest import FIXTURES

TABLES = load_tables()
BACKEND = "sglang/srt/layers/attention/flashinfer_mla_backend.py"
MODULE = "sglang/srt/layers/attention/mla_kv_read.py"
ENVIRON = "sglang/srt/environ.py"


def _tree(tmp_path: Path, config: dict) -> Path:
    """fixtures/pr/tree with the MLA backend fixture, plus the given config files at its root."""
    root = tmp_path / "tree"
    shutil.copytree(FIXTURES / "pr" / "tree", root)
    shutil.copy(FIXTURES / "fix" / "mla_backend.in.py", root / BACKEND)
    (root / ".git").mkdir()  # the repository root: the settings search stops here
    for name, text in config.items():
        (root / name).write_text(text)
    return root


def _fixed(root: Path, profile: str = "full") -> dict:
    path = root / BACKEND
    result = fix_source(path.read_bytes(), str(path), TABLES, FixOptions(profile=profile))
    files = {BACKEND: (path.read_text(), result.new_source.decode())}
    for location, data in result.companions.items():
        relative = str(Path(location).resolve().relative_to(root.resolve()))
        before = (root / relative).read_text() if (root / relative).exists() else ""
        files[relative] = (before, data.decode())
    return files


def _written_ranges(before: str, after: str) -> list:
    ranges = []
    for op, _, _, j1, j2 in difflib.SequenceMatcher(None, before.splitlines(), after.splitlines()).get_opcodes():
        if op in ("replace", "insert") and j2 > j1:
            ranges += ["--line-ranges", f"{j1 + 1}-{j2}"]
    return ranges


def _tool(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", *args], capture_output=True, text=True)


# -- where the settings come from ------------------------------------------------------------


def test_black_line_length_from_the_nearest_pyproject_with_tool_black(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "pyproject.toml").write_text(
        '[tool.black]\nline-length = 100\nskip-magic-trailing-comma = true\ntarget-version = ["py310"]\n'
    )
    inner = tmp_path / "python"
    (inner / "pkg").mkdir(parents=True)
    (inner / "pyproject.toml").write_text('[project]\nname = "pkg"\n')  # no [tool.black]: Black looks further up
    style = style_for(str(inner / "pkg" / "mod.py"), TABLES.formatting)
    assert (style.line_length, style.magic_trailing_comma, style.target_versions) == (100, False, ("py310",))
    assert str(tmp_path / "pyproject.toml") in style.sources


def test_ruff_line_length_is_the_fallback_and_flake8_is_not_black(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "setup.cfg").write_text("[flake8]\nmax-line-length = 120\n")
    assert style_for(str(tmp_path / "m.py"), {}).line_length == 88  # Black's default
    (tmp_path / "pyproject.toml").write_text("[tool.ruff]\nline-length = 99\n")
    assert style_for(str(tmp_path / "m.py"), {}).line_length == 99


def test_isort_settings_from_isort_cfg_setup_cfg_or_pyproject(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "setup.cfg").write_text("[isort]\nprofile = black\nline_length = 100\nknown_first_party = a, b\n")
    style = style_for(str(tmp_path / "m.py"), {})
    assert (style.isort_profile, style.isort_line_length, style.known_first_party) == ("black", 100, ("a", "b"))
    (tmp_path / ".isort.cfg").write_text("[settings]\nprofile=black\nknown_first_party=sglang\n")  # sglang's
    style = style_for(str(tmp_path / "m.py"), {})
    assert (style.isort_profile, style.isort_line_length, style.known_first_party) == ("black", 88, ("sglang",))


def test_a_tree_without_settings_gets_the_engines_and_the_search_stops_at_the_repository(tmp_path):
    outer = tmp_path / "outer"
    (outer / "repo" / ".git").mkdir(parents=True)
    (outer / "pyproject.toml").write_text("[tool.black]\nline-length = 120\n")  # above the repository: not read
    style = style_for(str(outer / "repo" / "m.py"), TABLES.formatting)
    assert style == Style(line_length=88, isort_profile="black", isort_line_length=88, known_first_party=("sglang",))
    assert style.sources == ()


def test_sglangs_own_settings_give_the_current_layout(tmp_path):
    """sglang's checkout: python/pyproject.toml without [tool.black] (Black's defaults) and the
    repository's .isort.cfg (profile black, sglang first-party). The fix writes what it writes on
    a wheel (no settings: rules/sglang.toml [formatting]), which is the 88-column layout."""
    wheel = _fixed(_tree(tmp_path / "wheel", {}))
    checkout = _fixed(
        _tree(
            tmp_path / "checkout",
            {
                ".isort.cfg": "[settings]\nprofile=black\nknown_first_party=sglang\n",
                "pyproject.toml": '[project]\nname = "sglang"\n\n[tool.codespell]\nskip = "*.json"\n',
            },
        )
    )
    assert checkout == wheel
    explicit = _fixed(_tree(tmp_path / "explicit", {"pyproject.toml": "[tool.black]\nline-length = 88\n"}))
    assert explicit == wheel


# -- what the fix writes at the tree's line length --------------------------------------------


@pytest.mark.parametrize("profile", ["full", "minimal"])
@pytest.mark.parametrize("length", [79, 100])
def test_the_fix_writes_at_the_trees_line_length(tmp_path, profile, length):
    """[tool.black] line-length = N: Black at N leaves every line the fix wrote as it is (the
    original's own lines are not castlint's to judge), the added module passes Black and isort
    (profile black) at N, and no line it wrote in the backend is longer than N."""
    pytest.importorskip("black")
    pytest.importorskip("isort")
    config = {
        "pyproject.toml": f'[tool.black]\nline-length = {length}\n\n[tool.isort]\nprofile = "black"\n'
        f'line_length = {length}\nknown_first_party = ["sglang"]\n'
    }
    files = _fixed(_tree(tmp_path / "n", config), profile)
    default = _fixed(_tree(tmp_path / "d", {}), profile)
    assert set(files) == {BACKEND, MODULE, ENVIRON}
    for name, (before, after) in files.items():
        path = tmp_path / name.replace("/", "_")
        path.write_text(after)
        ranges = [] if not before else _written_ranges(before, after)
        black = _tool("black", "--check", "--diff", "-q", "-l", str(length), *ranges, str(path))
        assert black.returncode == 0, (name, black.stdout + black.stderr)
        if name == MODULE:
            isort = _tool(
                "isort", "--check-only", "--diff", "--profile", "black", "-l", str(length), "-p", "sglang", str(path)
            )
            assert isort.returncode == 0, (name, isort.stdout + isort.stderr)
        added = [line for line in after.splitlines() if line not in before.splitlines()]
        code = [line for line in added if not line.lstrip().startswith(("#", '"""'))]
        # the backend's edits at N; the module's comments and docstrings may reach 88 (Black leaves them)
        limit = length if name == BACKEND else max(length, 88)
        assert all(len(line) <= limit for line in code), [line for line in code if len(line) > limit]
    if profile == "full" and length > 88:  # the conversion cost row fits one line at 100
        assert files[MODULE][1] != default[MODULE][1]


_DEFAULT_LAYOUT: dict = {}


def _fixed_in_tree(source: Path, root: Path, config) -> str:
    """The fixed text of the released backend copied into a tree at root (a git root, with the
    pyproject.toml config when given, and the release's version file)."""
    (root / ".git").mkdir(parents=True)
    if config:
        (root / "pyproject.toml").write_text(config)
    path = root / "sglang" / "srt" / "layers" / "attention" / "flashinfer_mla_backend.py"
    path.parent.mkdir(parents=True)
    shutil.copy(source, path)
    for folder in (root / "sglang", root / "sglang" / "srt"):
        (folder / "__init__.py").touch()
    for version_file in ("version.py", "_version.py"):  # the release, so its FlashInfer pin
        if (source.parents[3] / version_file).exists():
            shutil.copy(source.parents[3] / version_file, root / "sglang" / version_file)
    return fix_source(path.read_bytes(), str(path), TABLES, FixOptions()).new_source.decode()


@pytest.mark.network
@pytest.mark.parametrize("length", [79, 120])
def test_sglang_0_5_23_at_another_line_length(tmp_path, length):
    """The released 0.5.23 backend in a tree that says [tool.black] line-length = N: Black at N
    accepts every line the fix wrote; at 79 the backend's edits differ from the 88-column ones
    (the MlaKvRead construction wraps), at 120 they are the same (none needs more than 88)."""
    pytest.importorskip("black")
    from conftest import sglang_tree

    source = sglang_tree("0.5.23") / "srt" / "layers" / "attention" / "flashinfer_mla_backend.py"
    outputs = {"n": _fixed_in_tree(source, tmp_path / "n", f"[tool.black]\nline-length = {length}\n")}
    if "d" not in _DEFAULT_LAYOUT:  # the tree without a config: the same for every N, fixed once
        _DEFAULT_LAYOUT["d"] = _fixed_in_tree(source, tmp_path / "d", None)
    outputs["d"] = _DEFAULT_LAYOUT["d"]
    # Black at N also re-lays the original's own statements that the fix appended to (a run()
    # the scales were added to): every line the fix wrote is a line of Black's output.
    before = source.read_text().splitlines()
    black = subprocess.run(
        [sys.executable, "-m", "black", "-q", "-l", str(length), "-"],
        input=outputs["n"],
        capture_output=True,
        text=True,
    )
    assert black.returncode == 0, black.stderr
    formatted = set(black.stdout.splitlines())
    written = [line for line in outputs["n"].splitlines() if line not in before]
    assert written and [line for line in written if line not in formatted] == []
    assert (outputs["n"] != outputs["d"]) == (length < 88)
