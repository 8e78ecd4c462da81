"""The values that flow through the pipeline: findings, edits and file results.

Checks produce `Finding`s; a fixable finding's `Fix` carries its `Edit`s when the
run computed them (castlint.fixes.edit_set: only for the formats and flags that show
or apply them); the engine collects one `FileResult` per file; reporters read them.
Nothing here prints.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from enum import Enum
from typing import Any, Optional, Tuple


class Severity(str, Enum):
    ERROR = "error"  # whole-pool work on a hot path
    WARNING = "warning"  # whole-pool work elsewhere, or a defect that forces it
    NOTE = "note"

    @property
    def rank(self) -> int:
        return {"error": 0, "warning": 1, "note": 2}[self.value]


class FixSafety(str, Enum):
    """A fix's applicability, as ruff names it: applied by `castlint fix` (safe), only with
    --unsafe-fixes (unsafe), or shown and never applied (display-only)."""

    SAFE = "safe"
    UNSAFE = "unsafe"
    DISPLAY_ONLY = "display-only"


@dataclass(frozen=True, order=True)
class Position:
    line: int  # 1-based
    column: int  # 1-based


@dataclass(frozen=True)
class Cost:
    """Bytes a finding moves, under the configured cost model."""

    bytes_per_layer: int
    bytes_per_step: int
    model: str
    pool_tokens: int

    def describe(self) -> str:
        return (
            f"{human_bytes(self.bytes_per_layer)}/layer, "
            f"{human_bytes(self.bytes_per_step)}/decode step "
            f"({self.model}, {self.pool_tokens:,} pool tokens)"
        )


@dataclass(frozen=True)
class Edit:
    """Replace bytes [start, end) of a file with content (text, in the file's encoding).

    location/end_location are the same range as 1-based (line, column in characters),
    ruff's `location` and `end_location`. path is None for the finding's own file, or the
    file another file's fix adds or updates (a module the fix writes beside it)."""

    start: int
    end: int
    content: str
    location: Position
    end_location: Position
    path: Optional[str] = None

    def to_dict(self) -> dict:
        data = {
            "content": self.content,
            "location": {"row": self.location.line, "column": self.location.column},
            "end_location": {"row": self.end_location.line, "column": self.end_location.column},
        }
        if self.path is not None:
            data["path"] = self.path
        return data


@dataclass(frozen=True)
class FileFix:
    """One rewrite of a file that serves several findings at once (the FlashInfer MLA rewrite,
    or any fix whose edits reach lines away from its finding): its edits, the module it adds
    among them, and the findings it serves ((code, line, column) of each)."""

    edits: Tuple[Edit, ...]
    serves: Tuple[Tuple[str, int, int], ...]


@dataclass(frozen=True)
class Fix:
    """How a finding can be fixed: by which codemod (the Codemod registered under that name
    rewrites it), how safely, the site the codemod rewrites and, once the run computed
    them, the edits that fix it.

    site holds what the rule found for the codemod (tree nodes of the analysed
    module, or a proof such as castlint.analysis.cast_motion.CastMove). It lives
    only in the process that analysed the file: it is not pickled, cached or shown.
    edits: this finding's own edits, or its file's (file_fix) when one rewrite serves
    several findings; () when the run did not compute them (a plain `check`) or the
    fix cannot apply in this file. Neither is cached: the cache keeps the fix's label."""

    codemod: str
    safety: FixSafety
    description: str
    site: Any = field(default=None, compare=False, repr=False)
    edits: Tuple[Edit, ...] = field(default=(), compare=False, repr=False)
    file_fix: Optional[FileFix] = field(default=None, compare=False, repr=False)

    @property
    def applicability(self) -> FixSafety:
        return self.safety

    def with_edits(self, edits, file_fix: Optional[FileFix] = None) -> "Fix":
        return Fix(self.codemod, self.safety, self.description, self.site, tuple(edits), file_fix)

    def to_dict(self) -> dict:
        """ruff's `fix` ({applicability, message, edits}) and castlint's label (codemod, safety, description)."""
        return {
            "codemod": self.codemod,
            "safety": self.safety.value,
            "description": self.description,
            "applicability": self.safety.value,
            "message": self.description,
            "edits": [edit.to_dict() for edit in self.edits],
        }

    def __reduce__(self):  # the site stays in the process that analysed the file
        return (Fix, (self.codemod, self.safety, self.description, None, self.edits, self.file_fix))


@dataclass(frozen=True)
class Finding:
    code: str
    name: str
    severity: Severity
    path: str
    start: Position
    end: Position
    message: str
    cost: Optional[Cost] = None
    fix: Optional[Fix] = None
    unfixable_reason: Optional[str] = None
    function: Optional[str] = None
    # `Class.get_key_buffer` when the finding is inside a pool accessor: a cost every backend
    # that reads the pool pays, not a backend of its own (step_total)
    accessor: Optional[str] = None

    @property
    def fixable(self) -> bool:
        return self.fix is not None

    def sort_key(self):
        return (self.path, self.start.line, self.start.column, self.code)

    def to_dict(self) -> dict:
        data = {name: getattr(self, name) for name in self.__dataclass_fields__}
        if data.get("accessor") is None:
            data.pop("accessor", None)  # (only inside a pool accessor)
        data["start"], data["end"] = asdict(self.start), asdict(self.end)
        data["cost"] = None if self.cost is None else asdict(self.cost)
        data["severity"] = self.severity.value
        data["fixable"] = self.fixable
        data["fix"] = None if self.fix is None else self.fix.to_dict()
        return data

    @property
    def key(self) -> tuple:
        """(code, line, column): what names a finding across processes (FileFix.serves)."""
        return (self.code, self.start.line, self.start.column)


@dataclass(frozen=True)
class FileError:
    """A file that could not be read, parsed or checked."""

    path: str
    line: int
    message: str
    kind: str = "parse"  # parse | read | internal | fix

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class FileResult:
    path: str
    findings: list = field(default_factory=list)
    errors: list = field(default_factory=list)
    skipped: bool = False  # prefiltered: no trigger token in the text
    mode: Optional[str] = None  # how it was analysed: "nothing", "pruned" or "full" (castlint.prune)
    fix: Any = None  # castlint.fixes.SourceFix, when the run fixes and this file had something to fix
    links: list = field(default_factory=list)  # other files whose definitions the analysis linked in


def human_bytes(n: int) -> str:
    for unit, size in (("GB", 10**9), ("MB", 10**6), ("KB", 10**3)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n} B"


@dataclass(frozen=True)
class StepTotal:
    """What one decode step moves through whole-pool work, honestly counted.

    A server runs one attention backend, and a decode step runs forward_decode,
    not forward_extend: so the per-step total sums, per backend class, only the
    hot-path findings that a decode step runs, and reports the costliest class,
    never the sum over alternative backends."""

    bytes_per_step: int  # the costliest backend's decode-step total
    backend: Optional[str]  # that backend: "Class" (or the file, for module-level code)
    backends: tuple  # ((backend, bytes_per_step), ...) for every backend with decode-step work, costliest first

    @property
    def alternatives(self) -> int:
        return len(self.backends)


def _backend_and_method(finding: Finding) -> tuple:
    function = finding.function or ""
    if "." in function:
        cls, method = function.split(".", 1)
        return f"{cls} ({finding.path})", cls, method.rsplit(".", 1)[-1]
    return finding.path, None, function


def step_total(findings, exclude_words=()) -> StepTotal:
    """The decode-step total over findings (see StepTotal).

    exclude_words: a method whose name holds one of them runs on prefill/extend
    (rules/sglang.toml [decode_step]), so its sites are left out of the step."""
    per_backend: dict = {}
    names: dict = {}
    for f in findings:
        if f.cost is None or f.severity != Severity.ERROR:
            continue
        if getattr(f, "accessor", None):
            continue  # a pool class's accessor: paid by the backends that read through it, not a backend
        key, cls, method = _backend_and_method(f)
        if any(word in method for word in exclude_words):
            continue
        per_backend[key] = per_backend.get(key, 0) + f.cost.bytes_per_step
        names[key] = cls or key
    ranked = tuple(sorted(per_backend.items(), key=lambda item: (-item[1], item[0])))
    if not ranked:
        return StepTotal(0, None, ())
    return StepTotal(ranked[0][1], names[ranked[0][0]], ranked)
