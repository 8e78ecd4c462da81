"""What every rule is: a code, a name, its docs and examples, and a check().

A rule is one small class. Its VALID and INVALID examples are its docs (shown
by `castlint rules CODE`) and its tests (tests/test_rule_examples.py).

The registry is read by `castlint rules`, selectors and the prefilter before any file
is parsed, so a rule module imports libcst and castlint.analysis inside check(): the
registry loads without the parser.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, Dict, List, Optional, Tuple

from castlint.analysis.context import FileContext
from castlint.models import Cost, Finding, Fix, FixSafety, Position, Severity

if TYPE_CHECKING:
    import libcst as cst


# Analysis scopes: what castlint.prune must keep of a file for a rule to see its sites.
POOL_FLOW = "pool-flow"  # code a pool or cache value reaches (prune's value-flow model)
PLAN_CALLS = "plan-calls"  # attention plan() calls and the dtype values they read
SUPPRESSIONS = "suppressions"  # comments only: nothing to analyse
WHOLE_FILE = "whole-file"  # no model: a file that has the rule's trigger words is analysed whole

_REGISTRY: Dict[str, "Rule"] = {}


class Invalid(tuple):
    """An INVALID example, read as (source, expected 1-based lines of findings) like a plain
    pair; `fixed` is the source after `castlint fix` when the rule fixes it (checked by
    tests/test_rule_examples.py), else None."""

    fixed: Optional[str]

    def __new__(cls, source: str, lines: Tuple[int, ...], fixed: Optional[str] = None):
        example = super().__new__(cls, (source, tuple(lines)))
        example.fixed = fixed
        return example


class Rule:
    """One rule. Defining a subclass with a `code` registers it (castlint.checks.all_rules)."""

    code: ClassVar[str]
    name: ClassVar[str]
    summary: ClassVar[str]
    what_it_does: ClassVar[str]
    why_it_matters: ClassVar[str]
    example: ClassVar[str]
    fix_safety: ClassVar[str]
    # (source, expected 1-based lines of findings): INVALID must flag exactly those lines; an
    # Invalid(source, lines, fixed=...) also says what its fix writes.
    VALID: ClassVar[Tuple[str, ...]] = ()
    INVALID: ClassVar[Tuple[Tuple[str, Tuple[int, ...]], ...]] = ()
    fix: ClassVar[str] = "—"  # what `castlint rules` shows: "safe", "safe/unsafe" or "—"
    # "check": finds problems in code; "meta": reports on suppressions; "runtime": made by castlint trace
    kind: ClassVar[str] = "check"
    opt_in: ClassVar[bool] = False  # on only when a selector names the code in full
    scope: ClassVar[str] = WHOLE_FILE

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        code = cls.__dict__.get("code")
        if code is not None:
            _REGISTRY[code] = cls()

    def triggers(self, words) -> tuple:
        """Groups of word sets (castlint.prefilter.TriggerWords): the file can hold a
        finding only if, for some group, its text has one word of every set."""
        return ()

    def check(self, ctx: FileContext) -> List[Finding]:
        raise NotImplementedError

    def check_suppressions(self, path: str, suppressions: list, enabled) -> List[Finding]:
        """A meta rule's findings on a file's suppression comments (castlint.suppressions),
        once the other rules' findings have used them; enabled(code) says whether a code is on."""
        return []

    @classmethod
    def markdown(cls) -> str:
        """The rule's documentation: What / Why / Example / Fix safety, with its examples."""
        flagged = "\n\n".join(f"```python\n{src.rstrip()}\n```" for src, _ in cls.INVALID[:2])
        not_flagged = "\n\n".join(f"```python\n{src.rstrip()}\n```" for src in cls.VALID[:2])
        return (
            f"# {cls.code} {cls.name}\n\n{cls.summary}.\n\n"
            f"## What it does\n\n{cls.what_it_does}\n\n"
            f"## Why it matters\n\n{cls.why_it_matters}\n\n"
            f"## Example\n\n```python\n{cls.example}\n```\n\n"
            f"Flagged:\n\n{flagged}\n\nNot flagged:\n\n{not_flagged}\n\n"
            f"## Fix safety\n\n{cls.fix_safety}\n"
        )

    # -- helpers for subclasses ---------------------------------------------
    def finding(
        self,
        ctx: FileContext,
        node: cst.CSTNode,
        message: str,
        severity: Severity,
        cost: Optional[Cost] = None,
        fix: Optional[Fix] = None,
        unfixable_reason: Optional[str] = None,
    ) -> Finding:
        pos = ctx.analysis.position(node)
        return Finding(
            code=self.code,
            name=self.name,
            severity=severity,
            path=ctx.path,
            start=Position(pos.start.line, pos.start.column + 1),
            end=Position(pos.end.line, pos.end.column + 1),
            message=message,
            cost=cost,
            fix=fix,
            unfixable_reason=unfixable_reason,
            function=ctx.analysis.function_name(node),
            accessor=_accessor(ctx, node),
        )


def _accessor(ctx: FileContext, node: cst.CSTNode) -> Optional[str]:
    """The pool accessor node is inside (castlint.models.step_total leaves it out of the backends)."""
    find = getattr(ctx.analysis, "enclosing_accessor", None)
    try:
        return find(node) if find is not None else None
    except Exception:  # noqa: BLE001 - a node outside the analysed functions
        return None


def pool_cast_cost(ctx: FileContext, target: Optional[str]) -> Cost:
    """Bytes a whole-pool conversion moves: read the pool, write the copy."""
    model, tables = ctx.cost_model, ctx.tables
    src = tables.dtype_bytes[model.kv_dtype]  # the tables know both (castlint.tables._check_complete, Config)
    dst = tables.dtype_bytes[model.compute_dtype]
    if target:
        name = target.rsplit(".", 1)[-1]
        dst = tables.dtype_bytes.get(name, dst)
    per_layer = model.pool_tokens * model.row_elems * (src + dst)
    return Cost(per_layer, per_layer * model.layers, model.name, model.pool_tokens)


COST_HINT = "set [tool.castlint.model] (preset, pool-tokens, layers) to change the cost model"


def registered_rules() -> List["Rule"]:
    """Every registered rule, in code order."""
    return [_REGISTRY[code] for code in sorted(_REGISTRY)]


def unregister(code: str) -> None:
    """Forget a rule (a test's toy rule)."""
    _REGISTRY.pop(code, None)


def chain_cost(ctx: FileContext, targets: List[str]) -> Cost:
    """Bytes a chain of whole-pool conversions moves: each one reads what the one before wrote."""
    if len(targets) == 1:
        return pool_cast_cost(ctx, targets[0])
    model, sizes = ctx.cost_model, ctx.tables.dtype_bytes
    previous = sizes[model.kv_dtype]
    total = 0
    for target in targets:
        written = sizes.get(target.rsplit(".", 1)[-1], sizes[model.compute_dtype])
        total += model.pool_tokens * model.row_elems * (previous + written)
        previous = written
    per_layer = int(total)
    return Cost(per_layer, per_layer * model.layers, model.name, model.pool_tokens)


def short_code(text: str, limit: int = 60) -> str:
    """Source text on one line, cut to limit characters for a message."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def proven_fix(codemod: str, description: str, site) -> Fix:
    """The Fix of a site whose proof says why it is incomplete in `site.unsafe` (None: safe)."""
    if site.unsafe is None:
        return Fix(codemod, FixSafety.SAFE, description, site=site)
    return Fix(codemod, FixSafety.UNSAFE, f"{description} (unsafe: {site.unsafe})", site=site)
