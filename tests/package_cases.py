"""What the cross-module case tests share: a package written into tmp_path, its findings (the tree's own
index caches emptied around each test), and its `# positive` lines."""

from __future__ import annotations

import textwrap
from pathlib import Path

from castlint.analysis import link_gate, tree_index
from castlint.config import Config
from castlint.engine import check_paths
from castlint.tables import load_tables

TABLES = load_tables()
TREE_CACHES = (tree_index._MODULES, tree_index._LINKS, tree_index._REACHED, link_gate._TEXTS, link_gate._HANDS)


def fresh_tree_caches(tmp_path: Path, monkeypatch):
    """A fixture body: the on-disk tree index in tmp_path, the in-process caches empty before and after."""
    monkeypatch.setenv("CASTLINT_TREE_CACHE", str(tmp_path / "tree-cache"))
    for table in TREE_CACHES:
        table.clear()
    yield
    for table in TREE_CACHES:
        table.clear()


def write_tree(root: Path, files: dict) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip())


def tree_findings(root: Path, follow="default", prune=True) -> set:
    """{(relative path, line)} of every finding on the tree's files (follow: a follow-imports setting)."""
    config = Config()
    if follow != "default":
        config.follow_imports = follow
    config.cache = False
    files = sorted(str(p) for p in root.rglob("*.py") if "tree-cache" not in str(p))
    run = check_paths(files, TABLES, config, jobs=1, prune=prune)
    assert not [e for r in run.results for e in r.errors]
    return {(str(Path(r.path).relative_to(root)), f.start.line) for r in run.results for f in r.findings}


def marked_lines(root: Path) -> set:
    """{(relative path, line)} of the tree's `# positive` lines."""
    out = set()
    for path in root.rglob("*.py"):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if "# positive" in line:
                out.add((str(path.relative_to(root)), number))
    return out
