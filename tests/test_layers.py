"""The package's dependencies point down: every module sits in one layer, and imports only
from the layers below it (and from inside its own package).

Every import in src/castlint (top-level, inside a function, or under TYPE_CHECKING) is read
with ast. Every top-level module and package must be placed in LAYERS, so a new one cannot
slip past the guard, and no import may reach up or sideways: the package has no import circle.

The pipeline reads upward through the layers: discover -> parse (prune, the engine) ->
analyse -> rules -> apply (fixes) -> report; the session runs it, and validate, the bot,
trace, the PR description and the server sit beside it, on top of the session.
"""

from __future__ import annotations

import ast
from pathlib import Path

import castlint

SRC = Path(castlint.__file__).parent

# bottom -> top: a module may import the layers before its own, never its own layer's other
# entries nor a later layer. "castlint" itself (__version__) is the root every module may read.
LAYERS = [
    ("castlint.common",),  # encodings, versions, paths, diffs, exit codes, terminals, streams, interrupts
    (
        "castlint.tomlcompat",
        "castlint.models",
        "castlint.positions",
        "castlint.project",
        "castlint.mla_names",
        "castlint.fixoptions",
        "castlint.suppressions",
        "castlint.workers",
        "castlint.gitdiff",
    ),  # shared data, tools
    ("castlint.tables",),  # rules/*.toml: every API fact, the cost model
    ("castlint.triggers",),  # the trigger vocabulary the rules and the analysis read
    ("castlint.analysis",),  # analyse
    ("castlint.checks",),  # the rules and their registry (a fixable rule's folder: its rule and proofs)
    (
        "castlint.fixes.base",
        "castlint.fixes.edits",
        "castlint.fixes.style",
        "castlint.fixes.target",
        "castlint.fixes.templates",
    ),  # what a codemod is built with
    ("castlint.fixes.kv_read_module",),  # the engine module the MLA and paged-read fixes add
    ("castlint.checks.*.fix*",),  # each rule's codemods (checks/<rule>/fix*.py), loaded only to fix
    ("castlint.codes", "castlint.prefilter"),  # what reads the registry: selectors, the text prefilter
    ("castlint.config",),  # [tool.castlint] and rule tables, selectors validated
    ("castlint.settings", "castlint.discover", "castlint.cache", "castlint.prune"),  # settings per file, discover,
    # the cache, the C-parser pruning
    ("castlint.engine",),  # parse and check: files -> findings
    ("castlint.fixes",),  # apply: edits (edit_set), the pipeline, the writes
    ("castlint.noqa", "castlint.report"),  # suppress, report
    ("castlint.session",),  # settings -> a run -> data
    ("castlint.validate", "castlint.bot"),  # beside the pipeline
    ("castlint.pr", "castlint.trace", "castlint.server"),
    ("castlint.cli",),
    ("castlint.__main__",),
]
ROOT_NAMES = ("castlint", "castlint.__version__")


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


def _unit(name: str, units) -> str | None:
    """The layered module, package or pattern (`*`) a castlint module belongs to, the most
    specific one (None: not placed)."""
    from fnmatch import fnmatchcase

    def holds(unit: str) -> bool:
        if "*" in unit:
            return fnmatchcase(name, unit) or fnmatchcase(name, unit + ".*")
        return name == unit or name.startswith(unit + ".")

    found = [unit for unit in units if holds(unit)]
    return max(found, key=len) if found else None


def _level(layers) -> dict:
    return {unit: i for i, layer in enumerate(layers) for unit in layer}


def _top_level(root: Path) -> list:
    """Every top-level module and package under root (a castlint/), as module names."""
    names = []
    for entry in sorted(root.iterdir()):
        if entry.is_dir() and (entry / "__init__.py").exists():
            names.append(f"{root.name}.{entry.name}")
        elif entry.suffix == ".py" and entry.name != "__init__.py":
            names.append(f"{root.name}.{entry.stem}")
    return names


def violations(root: Path, layers=LAYERS) -> list:
    """'file:line imports module' for every import of a castlint module that is not in a lower
    layer than the importing one (its own package excepted), under root (a castlint/)."""
    level = _level(layers)
    problems = []
    for path in sorted(root.rglob("*.py")):
        name = _module_name(path, root)
        own = _unit(name, level)
        if own is None:
            continue  # unplaced: test_every_module_is_placed says so
        for line, imported in _imports(path, name):
            if not imported.startswith("castlint.") or imported in ROOT_NAMES:
                continue
            target = _unit(imported, level)
            if target is None or target == own:
                continue  # a name inside castlint itself (castlint.__version__) or the unit's own
            if level[target] >= level[own]:
                problems.append(f"{path.relative_to(root.parent)}:{line} imports {imported}")
    return problems


def test_no_module_imports_a_later_stage():
    assert violations(SRC) == []


def test_every_module_and_package_is_placed():
    placed = {unit for layer in LAYERS for unit in layer}
    top = {unit for unit in placed if unit.count(".") == 1 or unit == "castlint.__main__"}
    assert sorted(set(_top_level(SRC)) - top) == []
    assert sorted(top - set(_top_level(SRC))) == []  # and no layer names one that is gone
    modules = [_module_name(path, SRC) for path in SRC.rglob("*.py")]
    for unit in placed - top:  # a unit inside a package names something that is there
        assert any(_unit(name, [unit]) == unit for name in modules), unit


def test_the_root_package_imports_nothing_of_castlint():
    names = [imported for _, imported in _imports(SRC / "__init__.py", "castlint") if imported.startswith("castlint")]
    assert names == []


def test_a_planted_upward_import_is_caught(tmp_path):
    """The check has teeth: an engine that imports the fix package, even inside a function; the
    analysis importing the rules; a config importing the session (the circle config -> codes ->
    checks -> analysis -> config is cut: config sits above the rules, the analysis below it)."""
    root = tmp_path / "castlint"
    (root / "analysis").mkdir(parents=True)
    (root / "engine.py").write_text("def f():\n    from castlint.fixes import Fixer\n")
    (root / "analysis" / "x.py").write_text("from ..checks import base\n")
    (root / "analysis" / "context.py").write_text("from castlint.config import Config\n")
    (root / "config.py").write_text("import castlint.session\n")
    assert violations(root) == [
        "castlint/analysis/context.py:1 imports castlint.config",
        "castlint/analysis/context.py:1 imports castlint.config.Config",
        "castlint/analysis/x.py:1 imports castlint.checks",
        "castlint/analysis/x.py:1 imports castlint.checks.base",
        "castlint/config.py:1 imports castlint.session",
        "castlint/engine.py:2 imports castlint.fixes",
        "castlint/engine.py:2 imports castlint.fixes.Fixer",
    ]


def test_peers_of_one_layer_do_not_import_each_other(tmp_path):
    root = tmp_path / "castlint"
    root.mkdir()
    (root / "bot.py").write_text("from castlint.validate import command\n")
    assert violations(root) == [
        "castlint/bot.py:1 imports castlint.validate",
        "castlint/bot.py:1 imports castlint.validate.command",
    ]


# Inside castlint.validate, the doubles of sglang and FlashInfer (castlint.validate.doubles) sit at
# the bottom: the CPU harness and castlint's tests (tests/faketorch) both run them, so they import
# nothing of validate above them, and no torch at module level (the tests run them on the fake
# torch; a machine without torch imports them).
DOUBLES = SRC / "validate" / "doubles"
DOUBLES_MAY_IMPORT = (
    "castlint.validate.doubles",
    "castlint.validate.forward_mode",
    "castlint.common",
    "castlint.tables",
)


def test_the_doubles_import_only_below_the_harness():
    problems = []
    for path in sorted(DOUBLES.rglob("*.py")):
        name = _module_name(path, SRC)
        for line, imported in _imports(path, name):
            if imported.startswith("castlint.") and not _unit(imported, DOUBLES_MAY_IMPORT):
                problems.append(f"{path.name}:{line} imports {imported}")
    assert problems == []


def test_the_doubles_import_no_torch_at_module_level():
    top = []
    for path in sorted(DOUBLES.rglob("*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            top += [f"{path.name}:{node.lineno} {n}" for n in names if n == "torch" or n.startswith("torch.")]
    assert top == []


def test_a_rule_may_not_import_its_codemods_kit_but_its_fix_may(tmp_path):
    """A rule folder's rule.py sits below the codemod kit (a check loads no libcst helpers);
    its fix.py sits above the kit and the rules, and below the fix pipeline."""
    folder = tmp_path / "castlint" / "checks" / "toy"
    folder.mkdir(parents=True)
    (folder / "rule.py").write_text("from castlint.fixes.base import Codemod\n")
    (folder / "fix.py").write_text(
        "from castlint.fixes.base import Codemod\nfrom castlint.checks.toy.rule import X\n"
        "from castlint.fixes.pipeline import apply_fixes\n"
    )
    assert violations(tmp_path / "castlint") == [
        "castlint/checks/toy/fix.py:3 imports castlint.fixes.pipeline",
        "castlint/checks/toy/fix.py:3 imports castlint.fixes.pipeline.apply_fixes",
        "castlint/checks/toy/rule.py:1 imports castlint.fixes.base",
        "castlint/checks/toy/rule.py:1 imports castlint.fixes.base.Codemod",
    ]
