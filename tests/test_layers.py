"""The pipeline's dependencies point down: no module imports a later stage.

Every import in src/castlint (top-level or inside a function) is read with ast; each
package or module below may not import the ones listed against it.
"""
from __future__ import annotations

import ast
from pathlib import Path

import castlint

SRC = Path(castlint.__file__).parent

# who -> what it must never import (prefixes of module names)
FORBIDDEN = {
    "castlint.common": ("castlint.",),  # the bottom: nothing of castlint
    "castlint.models": ("castlint.analysis", "castlint.checks", "castlint.engine", "castlint.fixes",
                        "castlint.report", "castlint.cli"),
    "castlint.tables": ("castlint.analysis", "castlint.checks", "castlint.engine", "castlint.fixes",
                        "castlint.report", "castlint.cli"),
    "castlint.prefilter": ("castlint.analysis.dataflow", "castlint.engine", "castlint.fixes", "castlint.report",
                           "castlint.cli"),
    "castlint.prune": ("castlint.analysis.dataflow", "castlint.engine", "castlint.fixes", "castlint.report",
                       "castlint.cli"),
    "castlint.analysis": ("castlint.checks", "castlint.engine", "castlint.fixes", "castlint.report",
                          "castlint.cli", "castlint.bot", "castlint.validate"),
    "castlint.checks": ("castlint.engine", "castlint.fixes", "castlint.report", "castlint.cli", "castlint.bot",
                        "castlint.validate"),
    "castlint.engine": ("castlint.fixes", "castlint.report", "castlint.cli", "castlint.bot", "castlint.validate"),
    "castlint.fixes": ("castlint.report", "castlint.cli", "castlint.bot", "castlint.validate"),
    "castlint.report": ("castlint.cli", "castlint.fixes", "castlint.engine", "castlint.bot"),
}


def _module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path, name: str):
    """(line, module) for every import in the file, relative ones resolved."""
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            yield node.lineno, base
            for alias in node.names:  # `from castlint import fixes`
                yield node.lineno, f"{base}.{alias.name}"


def _banned(imported: str, prefix: str) -> bool:
    if prefix.endswith("."):
        return imported.startswith(prefix)
    return imported == prefix or imported.startswith(prefix + ".")


def violations(root: Path) -> list:
    """'file:line imports module' for every import the FORBIDDEN table bans, under root (a castlint/)."""
    problems = []
    for path in sorted(root.rglob("*.py")):
        name = _module_name(path, root)
        banned = [b for who, group in FORBIDDEN.items() if name == who or name.startswith(who + ".") for b in group]
        for line, imported in _imports(path, name):
            if any(_banned(imported, prefix) for prefix in banned):
                problems.append(f"{path.relative_to(root.parent)}:{line} imports {imported}")
    return problems


def test_no_module_imports_a_later_stage():
    assert violations(SRC) == []


def test_a_planted_upward_import_is_caught(tmp_path):
    """The check has teeth: an engine that imports the fix package, even inside a function."""
    root = tmp_path / "castlint"
    (root / "analysis").mkdir(parents=True)
    (root / "engine.py").write_text("def f():\n    from castlint.fixes import Fixer\n")
    (root / "analysis" / "x.py").write_text("from ..checks import base\n")
    assert violations(root) == ["castlint/analysis/x.py:1 imports castlint.checks",
                                "castlint/analysis/x.py:1 imports castlint.checks.base",
                                "castlint/engine.py:2 imports castlint.fixes",
                                "castlint/engine.py:2 imports castlint.fixes.Fixer"]
