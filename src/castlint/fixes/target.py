"""What the file being fixed runs against: its sglang release and FlashInfer pin.

The sglang version comes from `sglang/version.py` or `sglang/_version.py` above
the file (read as text, never imported); the pin from rules/sglang.toml.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from castlint.tables import Tables, parse_version


@dataclass(frozen=True)
class Target:
    sglang_version: Optional[str]
    flashinfer: Optional[str]  # the pinned (or user-given) FlashInfer version

    def flashinfer_at_least(self, version: str) -> bool:
        return self.flashinfer is not None and parse_version(self.flashinfer) >= parse_version(version)


def _literal_version(path: Path) -> Optional[str]:
    try:
        tree = ast.parse(path.read_text(encoding="utf-8", errors="replace"))
    except (OSError, SyntaxError, ValueError):
        return None
    for node in tree.body:
        targets = []
        if isinstance(node, ast.Assign):
            targets = [t for t in node.targets]
            value = node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        else:
            continue
        # `__version__ = version = '0.5.23'` chains too
        names = set()
        for t in targets:
            names.update(n.id for n in ast.walk(t) if isinstance(n, ast.Name))
        if "__version__" in names and isinstance(value, ast.Constant) and isinstance(value.value, str):
            return value.value
    return None


def sglang_version_for(path: str) -> Optional[str]:
    here = Path(path).resolve().parent
    for folder in (here, *here.parents):
        if folder.name == "sglang":
            for name in ("_version.py", "version.py"):
                found = _literal_version(folder / name)
                if found:
                    return found
            return None
    return None


def detect_target(path: str, tables: Tables, flashinfer_override: Optional[str] = None) -> Target:
    version = sglang_version_for(path)
    if flashinfer_override:
        return Target(version, flashinfer_override)
    return Target(version, tables.flashinfer_pin(version) if version else None)
