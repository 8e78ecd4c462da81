"""The pull request a `castlint fix` run makes: its description (`--pr-body FILE`) and a
`git format-patch` file (`--patch FILE`), from what the run changed.

castlint.pr.changes: the changed files, by their paths from the tree's root;
castlint.pr.body: the Markdown description and the commit message;
castlint.pr.patch: the patch. This module checks the request before the fix runs
(the outputs can be written, `--validate-json` reads), builds the PrContext from
the run, and writes the files.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from castlint.pr.body import PrContext, commit_message, render_body, title
from castlint.pr.changes import FileChange, file_changes, relative, tree_root
from castlint.pr.patch import render_patch, write_text

__all__ = [
    "FileChange",
    "PrContext",
    "PrError",
    "PrRequest",
    "build_context",
    "commit_message",
    "file_changes",
    "load_validate_json",
    "prepare",
    "render_body",
    "render_patch",
    "title",
    "write_outputs",
]


class PrError(Exception):
    """A request that cannot be met: one line that names the flag and the file."""


@dataclass
class PrRequest:
    body: str | None = None  # --pr-body FILE
    patch: str | None = None  # --patch FILE
    validate_json: str | None = None  # --validate-json FILE

    @property
    def wanted(self) -> bool:
        return bool(self.body or self.patch)

    def heatmap_path(self) -> str | None:
        """Where the sweep's heat map goes: beside the PR body (pr.md -> pr.heatmap.svg)."""
        if not self.body:
            return None
        path = Path(self.body)
        return str(
            path.with_name(path.stem + ".heatmap.svg") if path.suffix else path.with_name(path.name + ".heatmap.svg")
        )


def load_validate_json(path: str) -> dict:
    """A `castlint validate --json` / `--json-file` / `--sweep` report; PrError when it is
    not one."""
    flag = f"--validate-json {path}"
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise PrError(f"{flag}: cannot read: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise PrError(f"{flag}: not UTF-8 text (a `castlint validate --json` report is)") from None
    try:
        report = json.loads(text)
    except ValueError as exc:
        raise PrError(f"{flag}: not JSON ({exc})") from None
    if not isinstance(report, dict) or not (
        isinstance(report.get("cells"), list) or isinstance(report.get("sites"), list)
    ):
        raise PrError(f"{flag}: not a `castlint validate --json` or `--sweep` report (it has no cells or sites)")
    if report.get("schema", 1) != 1 and report.get("kind") != "paged":
        raise PrError(f"{flag}: report schema {report.get('schema')!r}; this castlint reads schema 1")
    for i, row in enumerate(report.get("cells") or report.get("sites")):
        if not isinstance(row, dict):
            raise PrError(f"{flag}: entry {i} is not an object")
    return report


def _check_writable(flag: str, path: str) -> None:
    target = Path(path)
    if target.is_dir():
        raise PrError(f"{flag} {path}: cannot write: is a directory")
    folder = target.parent if str(target.parent) else Path(".")
    if not folder.is_dir():
        raise PrError(f"{flag} {path}: cannot write: no directory {folder}")
    writable = os.access(target, os.W_OK) if target.exists() else os.access(folder, os.W_OK | os.X_OK)
    if not writable:
        raise PrError(f"{flag} {path}: cannot write: permission denied")


def prepare(request: PrRequest) -> dict | None:
    """Check the request before the fix runs; the validate report it names (or None)."""
    if request.validate_json and not request.body:
        raise PrError("--validate-json goes into the PR description: give --pr-body FILE too")
    if request.body and request.patch and os.path.abspath(request.body) == os.path.abspath(request.patch):
        raise PrError(f"--pr-body and --patch name the same file ({request.body})")
    if request.body:
        _check_writable("--pr-body", request.body)
    if request.patch:
        _check_writable("--patch", request.patch)
    return load_validate_json(request.validate_json) if request.validate_json else None


def build_context(
    changes: Sequence[tuple[str, bytes | None, bytes]],
    fixes: Sequence[tuple[str, object]],
    *,
    tables,
    cost_model,
    options,
    paths: Sequence[str],
    report: dict | None = None,
    validate_name: str = "",
    heatmap: str = "",
    version: str = "",
) -> PrContext:
    """The PrContext of a run: changes from castlint.fixes.FixOutcome.changes, fixes the
    (path, castlint.fixes.SourceFix) of each file the run rewrote."""
    from castlint.fixes.target import detect_target
    from castlint.mla_names import MLA_CODEMOD

    package = (getattr(tables, "pin_source", None) or {}).get("package")
    root = tree_root([path for path, _, _ in changes], package) or os.getcwd()
    ctx = PrContext(
        changes=file_changes(changes, root),
        root=root,
        tables=tables,
        cost_model=cost_model,
        profile=getattr(options, "profile", "full"),
        flashinfer_api=options.flashinfer_api,
        flashinfer_version=options.flashinfer_version,
        unsafe=options.unsafe,
        validate=report,
        validate_name=validate_name,
        heatmap=heatmap,
        version=version,
    )
    changed = {c.path for c in ctx.changes}
    for path, fix in sorted(fixes, key=lambda item: item[0]):
        rel = relative(path, root)
        if rel not in changed:
            continue
        ctx.fixed += list(fix.fixed)
        ctx.applied.append((rel, list(fix.applied)))
        ctx.skipped += [(rel, line, why) for line, why in fix.skipped]
        if any(f.fix is not None and f.fix.codemod == MLA_CODEMOD for f in fix.fixed):
            ctx.mla_paths.append(rel)
            ctx.targets[rel] = detect_target(path, tables, options.flashinfer_version)
    ctx.paths = [_from_root(p, root) for p in paths]
    return ctx


def _from_root(path: str, root: str) -> str:
    rel = relative(path, root)
    return path if rel.startswith("..") else rel


def write_outputs(request: PrRequest, ctx: PrContext) -> list[str]:
    """Write the PR body (and the sweep's heat map beside it) and the patch; the paths written.
    PrError when one cannot be written."""
    written = []
    if request.body:
        heatmap = (
            request.heatmap_path()
            if ctx.validate and "cells" in ctx.validate and ctx.validate.get("kind") != "paged"
            else None
        )
        if heatmap:
            ctx.heatmap = os.path.basename(heatmap)
            _write("--pr-body", heatmap, _heatmap_svg(ctx))
            written.append(heatmap)
        _write("--pr-body", request.body, render_body(ctx))
        written.append(request.body)
    if request.patch:
        subject = title(ctx)
        signature = f"castlint {ctx.version}" if ctx.version else "castlint"
        _write(
            "--patch",
            request.patch,
            render_patch(ctx.changes, subject, commit_message(ctx), signature=signature),
        )
        written.append(request.patch)
    return written


def _heatmap_svg(ctx: PrContext) -> str:
    from castlint.pr.body import sweep_cells
    from castlint.validate.sweep import heatmap_svg

    env = ctx.validate.get("environment") or {}
    name = ctx.mla_paths[0].rsplit("/", 1)[-1] if ctx.mla_paths else "sweep"
    return heatmap_svg(
        sweep_cells(ctx.validate),
        f"{name}: FlashInfer {env.get('flashinfer', '-')}, {env.get('gpu', env.get('device', '-'))}",
    )


def _write(flag: str, path: str, text: str) -> None:
    try:
        write_text(path, text)
    except OSError as exc:
        raise PrError(f"{flag} {path}: cannot write: {exc.strerror or exc}") from None
