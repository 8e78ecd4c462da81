"""The rules' codes, names and summaries, and the one validator of rule selectors.

Importable without libcst: `castlint rules`, `--select`/`--ignore` and the
config reader use it, and none of them should pay for the analyzer's imports.
tests/test_rule_examples.py and tests/test_selectors.py check these rows
against castlint.checks.ALL_RULES, where each rule's full documentation lives.
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


RULES = (
    RuleInfo("CL001", "whole-pool-cast",
             "A dtype cast of a whole KV pool copies every slot, not just live tokens", "safe"),
    RuleInfo("CL002", "plan-forces-kv-dtype",
             "An attention plan() declares the KV cache in the q dtype (or omits its dtype)", "safe"),
    RuleInfo("CL003", "cast-before-gather",
             "A whole pool is converted and then only a few slots of it are read", "safe/unsafe"),
    RuleInfo("CL004", "whole-pool-conversion-helper",
             "A helper quantizes or dequantizes an entire KV pool", "—"),
    RuleInfo("CL005", "batch-sized-conversion",
             "A dtype cast of an active prefix of a KV pool: its size follows the batch, not the pool", "—"),
    RuleInfo("CL900", "unused-suppression",
             "A castlint suppression comment silences nothing", "—", "meta"),
)
RULE_CODES = tuple(rule.code for rule in RULES)
# Codes of findings made at runtime by `castlint trace`, not by the static rules: a
# suppression of one silences a runtime finding, so CL900 never calls it unused.
RUNTIME_CODES = frozenset({"CL101"})
# Off by default: on only when a selector names the code in full (`--select CL005`,
# `extend-select`, or ALL); a prefix such as `CL` does not turn them on.
OPT_IN = frozenset({"CL005"})
DEFAULT_CODES = tuple(code for code in RULE_CODES if code not in OPT_IN)
RULES_BY_CODE = {rule.code: rule for rule in RULES}
ALL = "ALL"  # ruff's `--select ALL`

_SELECTOR = re.compile(r"[A-Z]+[0-9]*\Z")


class SelectorError(ValueError):
    """A rule selector that is malformed or selects no rule; the message names its source."""

    def __init__(self, source: str, detail: str):
        super().__init__(f"{source}: {detail}")
        self.source, self.detail = source, detail


def lookup(code_or_name: str):
    """The RuleInfo for a code (any case) or a rule name, or None."""
    text = code_or_name.strip()
    info = RULES_BY_CODE.get(text.upper())
    if info is None:
        info = next((rule for rule in RULES if rule.name == text), None)
    return info


def check_selector(selector: str, source: str) -> str:
    """selector, validated: a code or a code prefix that selects at least one rule, or ALL.

    source names where it came from (`--select`, or `pyproject.toml: select`) and
    starts every error message."""
    if not _SELECTOR.match(selector):
        hint = ""
        if _SELECTOR.match(selector.upper()):
            hint = f"; did you mean {selector.upper()!r}? (codes are upper case, as in ruff)"
        raise SelectorError(source, f"{selector!r} is not a rule code or prefix (like CL001 or CL){hint}")
    if selector != ALL and not any(code.startswith(selector) for code in RULE_CODES):
        raise SelectorError(source, f"{selector!r} selects no rule (rules: {', '.join(RULE_CODES)}; "
                                    f"see `castlint rules`)")
    return selector


def parse_selectors(values: Iterable[str], source: str) -> Tuple[str, ...]:
    """Validate a list of selectors (CLI values may be comma-separated). ALL expands to every code."""
    out = []
    for value in values:
        for part in str(value).split(","):
            part = part.strip()
            if part:
                selector = check_selector(part, source)
                out.extend(RULE_CODES if selector == ALL else (selector,))
    return tuple(dict.fromkeys(out))


def selected(code: str, select: Sequence[str]) -> bool:
    """Does select (empty: every default rule) turn code on? Opt-in codes need their full code."""
    if code in OPT_IN:
        return code in select
    return not select or any(code.startswith(s) for s in select)


def enabled_codes(select: Sequence[str], ignore: Sequence[str]) -> Tuple[str, ...]:
    """The codes that select (empty: every default rule) and ignore leave on."""
    chosen = [c for c in RULE_CODES if selected(c, select)]
    return tuple(c for c in chosen if not any(c.startswith(i) for i in ignore))
