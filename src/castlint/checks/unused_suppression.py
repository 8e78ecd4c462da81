"""CL900 unused-suppression."""

from __future__ import annotations

from typing import List

from castlint.checks.base import SUPPRESSIONS, FileContext, Rule
from castlint.models import Finding, Position, Severity
from castlint.suppressions import Suppression


class UnusedSuppression(Rule):
    code = "CL900"
    kind = "meta"
    scope = SUPPRESSIONS
    name = "unused-suppression"
    summary = "A castlint suppression comment silences nothing"
    what_it_does = (
        "Flags `# castlint: ignore[...]` comments, and `# noqa: CL...` codes, that "
        "silence no finding on their line. A bare `# noqa` is shared with other linters "
        "and is never reported."
    )
    why_it_matters = (
        "A stale suppression hides the next real finding on that line: when the "
        "whole-pool cast comes back, nobody hears about it."
    )
    example = "x = compute()  # castlint: ignore[CL001]"
    fix_safety = "No automatic fix; delete the comment."
    VALID = (
        "def forward(self, layer, q):\n"
        "    k = self.pool.get_key_buffer(layer.layer_id).to(q.dtype)  # castlint: ignore[CL001]\n",
        "x = 1  # noqa\n",
        "x = 1  # noqa: E501\n",
    )
    INVALID = (
        ("x = 1  # castlint: ignore[CL001]\n", (1,)),
        (
            "def forward(self, layer, q):\n"
            "    k = self.pool.get_key_buffer(layer.layer_id).to(q.dtype)  # noqa: CL003\n",
            (2,),
        ),
    )

    def triggers(self, words) -> tuple:
        return ((words.suppressions,),)

    def check(self, ctx: FileContext) -> List[Finding]:
        return []  # nothing in the code itself: see check_suppressions

    def check_suppressions(self, path: str, suppressions: List[Suppression], enabled) -> List[Finding]:
        from castlint.checks import all_rules

        runtime = frozenset(r.code for r in all_rules() if r.kind == "runtime")  # (castlint.codes.runtime_codes)
        findings = []
        for s in suppressions:
            if not s.reportable or not enabled(self.code):
                continue
            if s.codes is None:
                if s.used:
                    continue
                what = "silences no finding"
            else:
                stale = [
                    c for c in s.codes if c.startswith("CL") and c not in s.used and c not in runtime and enabled(c)
                ]
                if not stale:
                    continue
                what = f"silences no {', '.join(stale)} finding"
            pos = Position(s.line, s.column)
            findings.append(
                Finding(
                    code=self.code,
                    name=self.name,
                    severity=Severity.NOTE,
                    path=path,
                    start=pos,
                    end=pos,
                    message=f"suppression comment {what} on this line; remove it",
                )
            )
        return findings
