"""How the checked tree formats its Python: Black's and isort's settings, as the tree
configures them, so that what a fix writes passes the tree's own formatters.

Black reads the `[tool.black]` table of the nearest pyproject.toml that has one, walking
up from the file and stopping at the repository's root (a folder with .git or .hg);
without one, a `[tool.ruff] line-length` (pyproject.toml, ruff.toml, .ruff.toml) is taken
as the tree's line length; else Black's defaults. isort reads, in each folder walking up,
.isort.cfg `[settings]`, pyproject.toml `[tool.isort]`, setup.cfg `[isort]`/`[tool:isort]`
and tox.ini `[isort]` (flake8's `max-line-length` is not Black's and is not read).

A tree that carries no configuration at all (a wheel: a repository's pyproject.toml and
.isort.cfg are not packaged) gets the engine's own settings from the tables
(rules/sglang.toml `[formatting]`), and Black's defaults where those say nothing.
"""

from __future__ import annotations

import configparser
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Dict, Iterator, Optional, Tuple

from castlint import tomlcompat

BLACK_LINE_LENGTH = 88  # Black's default
ISORT_PROFILE_LINE_LENGTH = {
    "black": 88,
    "django": 79,
    "pycharm": 79,
    "google": 1000,
    "open_stack": 79,
    "plone": 200,
    "attrs": 79,
    "hug": 100,
    "wemake": 80,
    "appnexus": 160,
}
ISORT_LINE_LENGTH = 79  # isort's default without a profile
_ROOT_MARKERS = (".git", ".hg")


@dataclass(frozen=True)
class Style:
    """The formatter settings a fix lays its code out by."""

    line_length: int = BLACK_LINE_LENGTH
    magic_trailing_comma: bool = True  # Black's, off with skip-magic-trailing-comma
    target_versions: Tuple[str, ...] = ()
    isort_profile: str = "black"
    isort_line_length: int = BLACK_LINE_LENGTH
    known_first_party: Tuple[str, ...] = ()
    sources: Tuple[str, ...] = field(default=(), compare=False)  # the files the settings came from


DEFAULT = Style()


def style_for(path: Optional[str], engine: Optional[Dict] = None) -> Style:
    """The settings for a fix of the file at `path`; `engine` is the tables' [formatting]
    (the engine's own settings, for a tree with no configuration of its own)."""
    base = _engine_style(engine or {})
    if not path:
        return base
    try:
        start = Path(path).resolve().parent
    except (OSError, RuntimeError):
        return base
    black = _black_settings(start)
    isort = _isort_settings(start)
    style, sources = base, []
    if black is not None:
        values, source = black
        sources.append(source)
        style = replace(style, **values)
    if isort is not None:
        values, source = isort
        sources.append(source)
        style = replace(style, **values)
    return replace(style, sources=tuple(sources))


def _engine_style(engine: Dict) -> Style:
    length = int(engine.get("line_length", BLACK_LINE_LENGTH))
    profile = str(engine.get("isort_profile", DEFAULT.isort_profile))  # Black's and isort's own defaults: Style
    return Style(
        line_length=length,
        magic_trailing_comma=not engine.get("skip_magic_trailing_comma", False),
        isort_profile=profile,
        isort_line_length=int(engine.get("isort_line_length", length)),
        known_first_party=tuple(engine.get("known_first_party", ())),
    )


def _folders(start: Path) -> Iterator[Path]:
    """start and its parents, up to and including the repository root."""
    for folder in (start, *start.parents):
        yield folder
        if any((folder / marker).exists() for marker in _ROOT_MARKERS):
            return


def _toml(path: Path) -> Optional[dict]:
    try:
        return tomlcompat.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomlcompat.TOMLDecodeError, RecursionError):
        return None


def _cfg(path: Path) -> Optional[configparser.ConfigParser]:
    parser = configparser.ConfigParser(interpolation=None)
    try:
        if not parser.read(path, encoding="utf-8"):
            return None
    except (configparser.Error, UnicodeDecodeError, OSError):
        return None
    return parser


def _int(value, default: Optional[int] = None) -> Optional[int]:
    try:
        number = int(str(value).strip())
    except (TypeError, ValueError):
        return default
    return number if number > 0 else default


def _bool(value) -> bool:
    if isinstance(value, bool):
        return value
    return str(value).strip().lower() in ("1", "true", "yes", "on")


def _names(value) -> Tuple[str, ...]:
    if isinstance(value, str):
        value = value.replace("\n", ",").split(",")
    return tuple(str(v).strip() for v in (value or ()) if str(v).strip())


def _black_settings(start: Path) -> Optional[Tuple[dict, str]]:
    ruff = None
    for folder in _folders(start):
        project = folder / "pyproject.toml"
        data = _toml(project) if project.is_file() else None
        tool = (data or {}).get("tool", {}) if isinstance((data or {}).get("tool"), dict) else {}
        black = tool.get("black")
        if isinstance(black, dict):
            values = {}
            length = _int(black.get("line-length", black.get("line_length")))
            if length:
                values["line_length"] = length
            skip = black.get("skip-magic-trailing-comma", black.get("skip_magic_trailing_comma"))
            if skip is not None:
                values["magic_trailing_comma"] = not _bool(skip)
            targets = black.get("target-version", black.get("target_version"))
            if targets:
                values["target_versions"] = _names(targets)
            return values, str(project)
        if ruff is None:
            for name, table in (("pyproject.toml", tool.get("ruff")), ("ruff.toml", None), (".ruff.toml", None)):
                if table is None and name != "pyproject.toml" and (folder / name).is_file():
                    table = _toml(folder / name)
                length = _int(table.get("line-length")) if isinstance(table, dict) else None
                if length:
                    ruff = ({"line_length": length}, str(folder / name))
                    break
    return ruff


def _isort_settings(start: Path) -> Optional[Tuple[dict, str]]:
    for folder in _folders(start):
        for name, sections in (
            (".isort.cfg", ("settings", "isort")),
            ("pyproject.toml", None),
            ("setup.cfg", ("isort", "tool:isort")),
            ("tox.ini", ("isort", "tool:isort")),
        ):
            path = folder / name
            if not path.is_file():
                continue
            if sections is None:
                data = _toml(path) or {}
                table = data.get("tool", {}).get("isort") if isinstance(data.get("tool"), dict) else None
                if not isinstance(table, dict):
                    continue
                settings = {k.replace("-", "_"): v for k, v in table.items()}
            else:
                parser = _cfg(path)
                section = next((s for s in sections if parser is not None and parser.has_section(s)), None)
                if section is None:
                    continue
                settings = {k.replace("-", "_"): v for k, v in parser.items(section)}
            return _isort_values(settings), str(path)
    return None


def _isort_values(settings: dict) -> dict:
    profile = str(settings.get("profile", "")).strip()
    default = ISORT_PROFILE_LINE_LENGTH.get(profile, ISORT_LINE_LENGTH)
    values = {"isort_profile": profile, "isort_line_length": _int(settings.get("line_length"), default)}
    first_party = _names(settings.get("known_first_party"))
    if first_party:
        values["known_first_party"] = first_party
    return values
