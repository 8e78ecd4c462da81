"""The PR comment: one per pull request, found again by its hidden marker.

The body starts with `<!-- castlint-bot v1 findings=N -->`; the bot edits the
comment that carries it rather than posting another. Text that comes from the
checked code (messages quote expressions) is escaped so that it cannot open
HTML, mention people or forge the marker.
"""

from __future__ import annotations

import re
import urllib.parse
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence

from castlint.models import Severity, human_bytes, step_total

MARKER = "<!-- castlint-bot v1"
MARKER_RE = re.compile(r"<!-- castlint-bot v1 findings=(\d+) -->")
SUGGESTION_MARKER = "<!-- castlint-suggestion "
MAX_BODY = 60_000  # GitHub's limit is 65,536 characters
ICON = {Severity.ERROR: "🔴", Severity.WARNING: "🟠", Severity.NOTE: "🔵"}


def escape(text: str) -> str:
    return (
        text.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace("@", "&#64;")
        .replace("|", "\\|")
        .replace("\r", "")
        .replace("\n", " ")
    )


def fence(content: str, lang: str = "") -> str:
    longest = max((len(m) for m in re.findall(r"`+", content)), default=0)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{lang}\n{content.rstrip(chr(10))}\n{ticks}"


def previous_count(body: str) -> Optional[int]:
    match = MARKER_RE.search(body or "")
    return int(match.group(1)) if match else None


def is_ours(body: str) -> bool:
    return (body or "").lstrip().startswith(MARKER)


@dataclass
class Links:
    server_url: str  # https://github.com
    repo: str  # owner/name
    sha: str

    def blob(self, path: str, start: int, end: int) -> str:
        quoted = urllib.parse.quote(path)
        anchor = f"#L{start}" if end <= start else f"#L{start}-L{end}"
        return f"{self.server_url.rstrip('/')}/{self.repo}/blob/{self.sha}/{quoted}{anchor}"


def _fix_cell(f, has_diff: bool) -> str:
    if f.fix is None:
        return "—"
    text = f.fix.safety.value
    if f.fix.safety.value == "unsafe":
        text += " (`--unsafe-fixes`)"
    return text + (", diff below" if has_diff else "")


def render(
    findings: Sequence,
    errors: Sequence,
    *,
    paths: Dict[int, str],
    links: Links,
    fixes: Dict[int, object],
    files_checked: int,
    previous: Optional[int],
    version: str,
    scope: str = "on the lines this pull request changes",
    step_exclude: Sequence[str] = (),
) -> str:
    """The comment body. paths maps finding index -> repo-relative path."""
    count = len(findings)
    marker = f"{MARKER} findings={count} -->"
    short = links.sha[:7]
    if not findings and not errors:
        return _clean_body(marker, scope, files_checked, previous, version, short)

    title = f"{count} finding{'s' if count != 1 else ''} {scope}" if findings else "files could not be checked"
    lines: List[str] = [marker, f"## castlint: {title}", ""]
    intro = _intro(findings, previous, step_exclude)
    if intro:
        lines += [" ".join(intro), ""]
    if findings:
        lines += _findings_table(findings, paths, links, fixes)
    shown_whole_file: Dict[str, int] = {}  # path -> the finding whose entry shows the file's diff
    details = [_finding_details(i, f, paths[i], links, fixes.get(i), shown_whole_file) for i, f in enumerate(findings)]
    if errors:
        err_lines = ["#### Files castlint could not check", ""]
        err_lines += [f"- `{escape(e.path)}`{f':{e.line}' if e.line else ''}: {escape(e.message)}" for e in errors]
        details.append("\n".join(err_lines) + "\n")
    return _fit("\n".join(lines), details, _footer(version, short))


def _clean_body(marker: str, scope: str, files_checked: int, previous: Optional[int], version: str, short: str) -> str:
    lines = [
        marker,
        "## ✅ castlint: clean",
        "",
        f"No whole-pool casts {scope} ({files_checked} file{'s' if files_checked != 1 else ''} checked at `{short}`).",
    ]
    if previous:
        lines.append(
            f"All {previous} finding{'s' if previous != 1 else ''} reported earlier "
            f"{'are' if previous != 1 else 'is'} fixed. 🎉"
        )
    lines += ["", _footer(version, short)]
    return "\n".join(lines) + "\n"


def _intro(findings: Sequence, previous: Optional[int], step_exclude: Sequence[str]) -> List[str]:
    """The sentences under the title: the decode-step cost, how many are fixable, the previous count."""
    total = step_total(findings, step_exclude)
    fixable = sum(1 for f in findings if f.fixable)
    intro = []
    if total.bytes_per_step:
        model = next(f.cost for f in findings if f.cost and f.severity == Severity.ERROR)
        where = (
            f" in the costliest of {total.alternatives} alternative backends ({escape(total.backend)})"
            if total.alternatives > 1
            else ""
        )
        intro.append(
            f"Hot-path whole-pool casts here move **{human_bytes(total.bytes_per_step)} per decode step**"
            f"{where} (cost model: {escape(model.model)}, {model.pool_tokens:,} pool tokens)."
        )
    if fixable:
        intro.append(f"{fixable} {'is' if fixable == 1 else 'are'} fixable with `castlint fix`.")
    if previous is not None and previous != len(findings):
        intro.append(f"Previously {previous}.")
    return intro


def _findings_table(findings: Sequence, paths: Dict[int, str], links: Links, fixes: Dict[int, object]) -> List[str]:
    lines = ["| | Rule | Where | Per layer | Per decode step | Fix |", "|---|---|---|---:|---:|---|"]
    per_layer = per_step = 0
    for i, f in enumerate(findings):
        where = f"[`{escape(paths[i])}:{f.start.line}`]({links.blob(paths[i], f.start.line, f.end.line)})"
        if f.cost:
            per_layer += f.cost.bytes_per_layer
            per_step += f.cost.bytes_per_step
        cost_layer = human_bytes(f.cost.bytes_per_layer) if f.cost else "—"
        cost_step = human_bytes(f.cost.bytes_per_step) if f.cost else "—"
        lines.append(
            f"| {ICON[f.severity]} | {f.code} {f.name} | {where} | {cost_layer} | {cost_step} | "
            f"{_fix_cell(f, i in fixes)} |"
        )
    if per_step:
        # the column sums every finding (alternative backends, extend sites); the step is the line above
        lines.append(f"| | **Sum of the rows** | | **{human_bytes(per_layer)}** | **{human_bytes(per_step)}** | |")
    lines.append("")
    return lines


def _finding_details(i: int, f, path: str, links: Links, fix, shown_whole_file: Dict[str, int]) -> str:
    """Finding i's entry: where, the message, and its fix's diff (a whole-file diff once per file).

    shown_whole_file (path -> the finding whose entry shows the file's diff) is updated."""
    link = links.blob(path, f.start.line, f.end.line)
    block = [
        f"#### {i + 1}. [`{escape(path)}:{f.start.line}:{f.start.column}`]({link}) · "
        f"{f.code} {f.name} · {f.severity.value}",
        "",
        f"> {escape(f.message)}",
        "",
    ]
    if f.fix is not None:
        block.append(f"**Fix ({f.fix.safety.value}):** {escape(f.fix.description)}.")
        if fix is not None and getattr(fix, "whole_file", False) and path in shown_whole_file:
            block.append(
                f"Fixed by the diff under finding {shown_whole_file[path] + 1}, "
                "which applies every castlint fix in this file."
            )
        elif fix is not None:
            if getattr(fix, "whole_file", False):
                shown_whole_file[path] = i
                block.append("This diff applies every castlint fix in the file.")
            block += ["", fence(fix.unified_diff(path), "diff")]
        else:
            cmd = "castlint fix" + (" --unsafe-fixes" if f.fix.safety.value == "unsafe" else "")
            block.append(f"Run `{cmd} {path}` to apply it.")
        block.append("")
    elif f.unfixable_reason:
        block += [f"No automatic fix: {escape(f.unfixable_reason)}", ""]
    return "\n".join(block)


def _fit(head: str, details: List[str], footer: str) -> str:
    """head, details and footer; details dropped from the end until the body fits MAX_BODY."""
    body = head + "\n" + "\n".join(details) + "\n" + footer + "\n"
    if len(body) <= MAX_BODY:
        return body
    kept: List[str] = []
    size = len(head) + len(footer) + 200
    for part in details:
        if size + len(part) > MAX_BODY:
            break
        kept.append(part)
        size += len(part) + 1
    omitted = len(details) - len(kept)
    return (
        head + "\n" + "\n".join(kept) + f"\n_… {omitted} more not shown (comment size limit); "
        "see the job log._\n\n" + footer + "\n"
    )


def _footer(version: str, short: str) -> str:
    return (
        f"<sub>castlint {escape(version)} · commit `{short}` · this comment is updated on every push · "
        "`castlint rules CODE` documents each rule</sub>"
    )


def suggestion_body(f, path: str, suggestion: str, key: str) -> str:
    return (
        f"{SUGGESTION_MARKER}{key} -->\n**castlint {f.code}** {f.name}: "
        f"{escape(f.fix.description)} ({f.fix.safety.value} fix).\n\n" + fence(suggestion, "suggestion") + "\n"
    )
