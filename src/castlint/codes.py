"""Rule selectors (`--select`, `--ignore`, `select = [...]`) over the one rule registry.

The codes, names and summaries come from the rule classes (castlint.checks); this
module only says which of them a selector turns on, and validates selectors with
messages that name where they came from.
"""

from __future__ import annotations

import re
from typing import Iterable, NamedTuple, Sequence, Tuple


class RuleInfo(NamedTuple):
    code: str
    name: str
    summary: str
    fix: str  # "safe" | "safe/unsafe" | "—"
    kind: str = "check"  # "check": finds problems in code; "meta": reports on suppressions of the others


ALL = "ALL"  # ruff's `--select ALL`


def rules() -> Tuple[RuleInfo, ...]:
    """A row per registered rule, in code order."""
    from castlint.checks import all_rules

    return tuple(RuleInfo(r.code, r.name, r.summary, r.fix, r.kind) for r in all_rules())


def rule_codes() -> Tuple[str, ...]:
    return tuple(info.code for info in rules())


def opt_in_codes() -> frozenset:
    """Off by default: on only when a selector names the code in full (`--select CL005`,
    `extend-select`, or ALL); a prefix such as `CL` does not turn them on."""
    from castlint.checks import all_rules

    return frozenset(r.code for r in all_rules() if r.opt_in)


def runtime_codes() -> frozenset:
    """Codes of findings made at runtime by `castlint trace`, not by the static rules: a
    suppression of one silences a runtime finding, so CL900 never calls it unused."""
    from castlint.checks import all_rules

    return frozenset(r.code for r in all_rules() if r.kind == "runtime")


def default_codes() -> Tuple[str, ...]:
    opt_in = opt_in_codes()
    return tuple(code for code in rule_codes() if code not in opt_in)


def __getattr__(name: str):  # the registry's rows under their old constant names
    if name == "RULES":
        return rules()
    if name == "RULE_CODES":
        return rule_codes()
    if name == "OPT_IN":
        return opt_in_codes()
    if name == "DEFAULT_CODES":
        return default_codes()
    if name == "RULES_BY_CODE":
        return {info.code: info for info in rules()}
    raise AttributeError(name)


_SELECTOR = re.compile(r"[A-Z]+[0-9]*\Z")


class SelectorError(ValueError):
    """A rule selector that is malformed or selects no rule; the message names its source."""

    def __init__(self, source: str, detail: str):
        super().__init__(f"{source}: {detail}")
        self.source, self.detail = source, detail


def lookup(code_or_name: str):
    """The RuleInfo for a code (any case) or a rule name, or None."""
    text = code_or_name.strip()
    return next((info for info in rules() if info.code == text.upper() or info.name == text), None)


def check_selector(selector: str, source: str) -> str:
    """selector, validated: a code or a code prefix that selects at least one rule, or ALL.

    source names where it came from (`--select`, or `pyproject.toml: select`) and
    starts every error message."""
    if not _SELECTOR.match(selector):
        hint = ""
        if _SELECTOR.match(selector.upper()):
            hint = f"; did you mean {selector.upper()!r}? (codes are upper case, as in ruff)"
        raise SelectorError(source, f"{selector!r} is not a rule code or prefix (like CL001 or CL){hint}")
    codes = rule_codes()
    if selector != ALL and not any(code.startswith(selector) for code in codes):
        raise SelectorError(source, f"{selector!r} selects no rule (rules: {', '.join(codes)}; see `castlint rules`)")
    return selector


def parse_selectors(values: Iterable[str], source: str) -> Tuple[str, ...]:
    """Validate a list of selectors (CLI values may be comma-separated). ALL expands to every code."""
    out = []
    for value in values:
        for part in str(value).split(","):
            part = part.strip()
            if part:
                selector = check_selector(part, source)
                out.extend(rule_codes() if selector == ALL else (selector,))
    return tuple(dict.fromkeys(out))


def selected(code: str, select: Sequence[str]) -> bool:
    """Does select (empty: every default rule) turn code on? Opt-in codes need their full code."""
    if code in opt_in_codes():
        return code in select
    return not select or any(code.startswith(s) for s in select)


def enabled_codes(select: Sequence[str], ignore: Sequence[str]) -> Tuple[str, ...]:
    """The codes that select (empty: every default rule) and ignore leave on."""
    chosen = [c for c in rule_codes() if selected(c, select)]
    return tuple(c for c in chosen if not any(c.startswith(i) for i in ignore))
