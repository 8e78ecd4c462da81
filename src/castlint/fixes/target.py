"""What the file being fixed runs against: its sglang release and FlashInfer pin.

The pin decides the call form `castlint fix` emits, so it is read from the tree
itself wherever the tree states it (rules/sglang.toml [pin_source] says where):

1. `--flashinfer-version`, when given;
2. a git checkout: the project file beside the package (`python/pyproject.toml`),
   its `[project]` dependencies and optional dependencies;
3. an installed sglang: `sglang-<version>.dist-info/METADATA` beside the package
   (`Requires-Dist`);
4. the `[[release]]` rows of rules/sglang.toml, by the version in the package's
   `version.py`/`_version.py` (the nearest older row for a release not listed).

Every file is read as text, never imported. `Target.source` says which of these
decided, for the fix's report.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from email.parser import HeaderParser
from pathlib import Path
from typing import Iterable, Optional, Tuple

from castlint import tomlcompat
from castlint.common.versions import package_dir, release_of
from castlint.tables import Tables, parse_version


@dataclass(frozen=True)
class Target:
    sglang_version: Optional[str]
    flashinfer: Optional[str]  # the pinned (or user-given) FlashInfer version
    source: str = ""  # what decided the pin, in words ("" when nothing did)

    def flashinfer_at_least(self, version: str) -> bool:
        return self.flashinfer is not None and parse_version(self.flashinfer) >= parse_version(version)

    def describe(self) -> str:
        """One line for people: the pin and where it came from."""
        release = f"sglang {self.sglang_version}" if self.sglang_version else "an sglang of unknown version"
        if self.flashinfer is None:
            return f"{release}: no FlashInfer pin found ({self.source or 'no version file, project file or METADATA'})"
        return f"{release} pins FlashInfer {self.flashinfer} ({self.source})"


def sglang_version_for(path: str, tables: Optional[Tables] = None) -> Optional[str]:
    source = _pin_source(tables)
    return release_of(path, source["package"], source["version_files"])


# -- requirements ---------------------------------------------------------------


def _normalize(name: str) -> str:
    """PEP 503 name normalization: flashinfer_python, FlashInfer.Python -> flashinfer-python."""
    return re.sub(r"[-_.]+", "-", name).lower()


# name, optional [extras], then the version clauses, up to a `;` marker.
_REQUIREMENT = re.compile(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*\(?([^;]*?)\)?\s*(?:;.*)?\Z")


def exact_pin(requirement: str, names: Iterable[str]) -> Optional[str]:
    """X for a PEP 508 requirement `name[extras]==X; marker` whose name is one of names, else None.

    Only an exact pin (== or ===) decides a call form; a range says too little."""
    match = _REQUIREMENT.match(requirement)
    if match is None or _normalize(match.group(1)) not in {_normalize(n) for n in names}:
        return None
    for clause in match.group(2).split(","):
        clause = clause.strip()
        for op in ("===", "=="):
            if clause.startswith(op):
                version = clause[len(op) :].strip()
                if parse_version(version) and "*" not in version:
                    return version
    return None


def _first_pin(requirements: Iterable[str], names) -> Optional[str]:
    for requirement in requirements:
        if isinstance(requirement, str):
            pin = exact_pin(requirement, names)
            if pin:
                return pin
    return None


def _pin_from_project_file(path: Path, names) -> Tuple[Optional[str], Optional[str]]:
    """(sglang version, FlashInfer pin) from a pyproject.toml's [project] table."""
    try:
        data = tomlcompat.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomlcompat.TOMLDecodeError):
        return None, None
    project = data.get("project")
    if not isinstance(project, dict):
        return None, None
    version = project.get("version") if isinstance(project.get("version"), str) else None
    groups = [project.get("dependencies") or []]
    optional = project.get("optional-dependencies")
    if isinstance(optional, dict):
        groups += [optional[key] for key in sorted(optional)]
    for group in groups:
        if isinstance(group, list):
            pin = _first_pin(group, names)
            if pin:
                return version, pin
    return version, None


def _pin_from_metadata(site: Path, distribution: str, names) -> Tuple[Optional[str], Optional[str], Optional[Path]]:
    """(sglang version, FlashInfer pin, METADATA path) from an installed distribution's dist-info."""
    wanted = _normalize(distribution)
    try:
        candidates = sorted(p for p in site.iterdir() if p.name.endswith(".dist-info"))
    except OSError:
        return None, None, None
    for info in candidates:
        name = info.name[: -len(".dist-info")].rsplit("-", 1)[0]
        if _normalize(name) != wanted:
            continue
        metadata = info / "METADATA"
        try:
            headers = HeaderParser().parsestr(metadata.read_text(encoding="utf-8", errors="replace"))
        except OSError:
            continue
        if _normalize(headers.get("Name", name)) != wanted:
            continue
        return headers.get("Version"), _first_pin(headers.get_all("Requires-Dist") or [], names), metadata
    return None, None, None


def _pin_source(tables: Optional[Tables]) -> dict:
    source = dict(tables.pin_source) if tables is not None and tables.pin_source else {}
    if not source:  # tables without rules/sglang.toml's [pin_source]: look nowhere but the version files
        source = {
            "package": "sglang",
            "version_files": ("_version.py", "version.py"),
            "project_files": (),
            "distribution": "",
            "requirements": (),
        }
    return source


def _shown(path: Path) -> str:
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return str(path)
    return str(path) if rel.startswith("..") else rel


def detect_target(path: str, tables: Tables, flashinfer_override: Optional[str] = None) -> Target:
    source = _pin_source(tables)
    version = sglang_version_for(path, tables)
    if flashinfer_override:
        return Target(version, flashinfer_override, "--flashinfer-version")
    package = package_dir(path, source["package"])
    names = source["requirements"]
    if package is not None and names:
        for rel in source["project_files"]:
            project = (package / rel).resolve()
            if project.is_file():
                project_version, pin = _pin_from_project_file(project, names)
                if pin:
                    return Target(version or project_version, pin, f"from {_shown(project)}")
        if source["distribution"]:
            meta_version, pin, metadata = _pin_from_metadata(package.parent, source["distribution"], names)
            if pin and metadata is not None:
                return Target(version or meta_version, pin, f"from {_shown(metadata)}")
    if not version:
        return Target(None, None, "no version file, project file or METADATA states it")
    pin = tables.flashinfer_pin(version)
    if pin is None:
        return Target(version, None, "rules/sglang.toml lists no release this old")
    exact = any(listed == version for _, listed, _ in tables.releases)
    if exact:
        return Target(version, pin, "from rules/sglang.toml")
    older = [listed for key, listed, _ in tables.releases if key <= parse_version(version)][-1]
    return Target(
        version, pin, f"from rules/sglang.toml, row {older}: {version} is not listed and the tree states no pin"
    )


def native_since(tables: Tables) -> Optional[str]:
    """The oldest FlashInfer with a native FP8-KV MLA path (rules/flashinfer.toml [[fp8_kv_mla]])."""
    rows = [row for row in tables.fp8_kv_mla if row.get("backends")]
    return rows[0]["since"] if rows else None


def activation_note(target: Target, tables: Tables) -> Optional[str]:
    """Why a fixed file still takes the fallback path on its pinned FlashInfer, or None.

    The rewrite's guard needs a FlashInfer with a native FP8-KV MLA kernel; on an
    older pin the new code is correct but does nothing until FlashInfer is upgraded."""
    since = native_since(tables)
    if since is None or target.flashinfer is None or target.flashinfer_at_least(since):
        return None
    which = f"sglang {target.sglang_version}, " if target.sglang_version else ""
    return (
        f"the native path activates with FlashInfer >= {since}; this release pins {target.flashinfer} "
        f"({which}{target.source}): until FlashInfer is upgraded, the fixed code keeps the original cast"
    )
