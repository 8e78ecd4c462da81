"""What every codemod is, and the registry that dispatches on `Fix.codemod`.

A rule that can fix a site attaches `Fix(codemod=NAME, ..., site=...)` to its
finding; the codemod registered under NAME receives those findings, with the
analysis they were made on, and rewrites the tree. A codemod lives beside its rule
(castlint/checks/<rule>/fix*.py); defining a Codemod subclass with a `name`
registers it, and registered_codemods() loads every rule folder's fix modules
first. Codemods run by `order`, then name.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar, Dict, List, Optional, Tuple

import libcst as cst

from castlint.fixoptions import API_CHOICES, PROFILE_CHOICES, FixOptions  # noqa: F401 - data, defined without libcst


@dataclass
class CodemodResult:
    module: cst.Module  # the input module itself when nothing changed
    applied: List[str] = field(default_factory=list)  # what was done, for the report
    skipped: List[Tuple[int, str]] = field(default_factory=list)  # (line, why a wanted site was not fixed)
    companions: Dict[str, bytes] = field(default_factory=dict)  # path -> a module the fix adds to the tree
    fixed: Optional[List] = None  # the wanted findings the rewrite addressed (None: all of them, if it changed)


@dataclass
class SourceFix:
    source: bytes
    new_source: bytes
    applied: List[str] = field(default_factory=list)
    skipped: List[Tuple[int, str]] = field(default_factory=list)
    fixed: List = field(default_factory=list)  # the findings the fix addressed (castlint.models.Finding)
    remaining: Optional[List] = None  # findings in the new source (None: not re-checked)
    snapshot: object = None  # castlint.fixes.write.Snapshot of what was read, for the atomic write
    companions: Dict[str, bytes] = field(default_factory=dict)  # path -> a module the fix adds (or updates)
    described: Optional[List] = None  # a run that shows fixes: the findings, with the edits that fix them

    @property
    def changed(self) -> bool:
        return self.new_source != self.source


class FixError(Exception):
    def __init__(self, line: int, message: str):
        super().__init__(message)
        self.line = line


_REGISTRY: Dict[str, "Codemod"] = {}


class Codemod:
    """One codemod: a name that rules put in Fix.codemod, and apply()."""

    name: ClassVar[str]
    order: ClassVar[int] = 100  # when it runs among the codemods (a later one sees the earlier ones' tree)

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        name = cls.__dict__.get("name")
        if name is not None:
            _REGISTRY[name] = cls()

    def apply(self, module: cst.Module, ctx, findings: List, options: FixOptions) -> CodemodResult:
        """Rewrite module for these findings (each with fix.codemod == self.name and its
        fix.site, made on ctx's analysis of module)."""
        raise NotImplementedError


def registered_codemods() -> List[Codemod]:
    """Every codemod, in the order they run."""
    load_codemods()
    return sorted(_REGISTRY.values(), key=lambda codemod: (codemod.order, codemod.name))


def codemod_named(name: str) -> Optional[Codemod]:
    load_codemods()
    return _REGISTRY.get(name)


def load_codemods() -> None:
    """Import the fix modules (fix.py, fix_*.py) of every rule folder in castlint/checks."""
    import importlib
    from pathlib import Path

    from castlint.checks import rule_folders

    root = Path(importlib.import_module("castlint.checks").__path__[0])
    for folder in rule_folders():
        for path in sorted((root / folder).glob("fix*.py")):
            importlib.import_module(f"castlint.checks.{folder}.{path.stem}")


def sites_to_apply(findings: List, site_type: type, options: FixOptions, line_of) -> Tuple[List, List]:
    """(the sites of type site_type the run applies: the safe ones, and the unsafe ones with
    --unsafe-fixes; (line_of(site), why) for each unsafe one it leaves)."""
    from castlint.models import FixSafety

    mine = [f for f in findings if isinstance(f.fix.site, site_type)]
    sites = [f.fix.site for f in mine if f.fix.safety is FixSafety.SAFE or options.unsafe]
    skipped = [
        (line_of(f.fix.site), f"unsafe, not applied without --unsafe-fixes: {f.fix.site.unsafe}")
        for f in mine
        if f.fix.safety is not FixSafety.SAFE and not options.unsafe
    ]
    return sites, skipped


def added_module(path: str, module: str) -> Optional[Tuple[str, str]]:
    """(file, import name) of the module a fix adds for the file at path (castlint.common.paths
    .module_location); None when it would replace that file."""
    from pathlib import Path

    from castlint.common.paths import module_location

    location, import_name = module_location(path, module)
    return None if import_name.split(".")[-1] == Path(path).stem else (location, import_name)
