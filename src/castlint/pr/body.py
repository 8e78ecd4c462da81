"""The pull request's description (Markdown) and commit message (plain text) for what a
`castlint fix` run changed.

Every number comes from the run (the findings the fix addressed and their cost
under the tree's cost model), from the rules tables (rules/models.toml,
rules/costs_h200.toml, rules/flashinfer.toml, rules/sglang.toml) or from a
`castlint validate --json` / `--sweep` report; the sweep's table and verdict are
castlint.validate.sweep's own. Nothing here reads a file or writes one.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from castlint.bot.comment import escape, fence
from castlint.common.versions import parse_version
from castlint.models import human_bytes, step_total
from castlint.pr.changes import FileChange, relative

# what each profile does (castlint.fixes.base.PROFILE_CHOICES)
PROFILE_WORDS = {"full": "every read", "minimal": "the decode native read only"}
# what each value of the read switch does (rules/sglang.toml [kv_read_switch]); a value not
# named here is listed without words
SWITCH_WORDS = {
    "auto": "the cheapest read per plan",
    "native": "FlashInfer's FP8-KV kernel only",
    "compact": "convert only the rows a plan reads, never the FP8-KV kernel (what a GPU without it runs)",
    "off": "the original path: the whole pool converted, as before this change",
}
OFF_VALUE = "off"


@dataclass
class PrContext:
    """What a fixing run changed, and what it ran with: the input of render_body and
    commit_message (castlint.pr.context builds it from a run)."""

    changes: list[FileChange]  # paths from root
    root: str
    fixed: list = field(default_factory=list)  # castlint.models.Finding the fix addressed (paths as run)
    applied: list[tuple[str, list[str]]] = field(default_factory=list)  # (path from root, what the fix did)
    skipped: list[tuple[str, int, str]] = field(default_factory=list)  # (path from root, line, why not fixed)
    tables: Any = None  # castlint.tables.Tables
    cost_model: Any = None  # castlint.config.CostModel of the tree
    targets: dict[str, Any] = field(default_factory=dict)  # path from root -> castlint.fixes.target.Target
    mla_paths: list[str] = field(default_factory=list)  # files the FlashInfer MLA fix rewrote (from root)
    profile: str = "full"
    flashinfer_api: str = "auto"
    flashinfer_version: str | None = None
    unsafe: bool = False
    paths: list[str] = field(default_factory=list)  # the run's paths, from root
    validate: dict | None = None  # a `castlint validate --json` or `--sweep` report
    validate_name: str = ""  # where it was read from, as given
    heatmap: str = ""  # the heat map's SVG file name (beside the PR body), "" when none
    version: str = ""  # castlint's

    def rel(self, path: str) -> str:
        return relative(path, self.root)


# -- the pieces -----------------------------------------------------------------------


def decode_step(ctx: PrContext):
    """(StepTotal of the fixed findings, the findings it counts)."""
    exclude = ctx.tables.decode_step_exclude_words if ctx.tables is not None else ()
    total = step_total(ctx.fixed, exclude)
    counted = [
        f
        for f in ctx.fixed
        if total.backend
        and step_total([f], exclude).backend == total.backend
        and step_total([f], exclude).bytes_per_step
    ]
    return total, counted


def title(ctx: PrContext) -> str:
    """One line: the files the fix rewrote and what a decode step no longer moves."""
    stems = [
        c.path.rsplit("/", 1)[-1].removesuffix(".py")
        for c in ctx.changes
        if not c.added and any(path == c.path for path, _ in ctx.applied)
    ]
    stems = stems or [c.path.rsplit("/", 1)[-1].removesuffix(".py") for c in ctx.changes if not c.added]
    head = ", ".join(stems[:3]) + (", ..." if len(stems) > 3 else "") or "castlint fix"
    total, _ = decode_step(ctx)
    tail = ""
    if total.bytes_per_step and ctx.cost_model is not None:
        tail = f" ({human_bytes(total.bytes_per_step)} per decode step, {ctx.cost_model.name})"
    return f"{head}: stop converting the whole KV pool{tail}"


def _layers(ctx: PrContext) -> int | None:
    return ctx.cost_model.layers if ctx.cost_model is not None else None


def _model_line(ctx: PrContext) -> str:
    model = ctx.cost_model
    preset = ctx.tables.presets.get(model.name) if ctx.tables is not None else None
    described = f" ({preset.description})" if preset is not None else ""
    return (
        f"Model preset **{model.name}**{described}: {model.layers} layers, kv_lora_rank {model.kv_lora_rank} "
        f"+ rope {model.rope_dim}, KV pool {model.kv_dtype} read as {model.compute_dtype}, "
        f"{model.pool_tokens:,} pool tokens (rules/models.toml; `[tool.castlint.model]` overrides it)."
    )


def crossover_row(ctx: PrContext) -> dict | None:
    """The rules/costs_h200.toml [[mla_kv_read]] row in force for the tree's FlashInfer (the
    newest row when no pin is known)."""
    rows = list(ctx.tables.mla_kv_read) if ctx.tables is not None else []
    if not rows:
        return None
    versions = [t.flashinfer for t in ctx.targets.values() if t is not None and t.flashinfer]
    if not versions:
        return rows[-1]
    wanted = parse_version(versions[0])
    fitting = [row for row in rows if parse_version(row["since"]) <= wanted]
    return fitting[-1] if fitting else None


def cost_section(ctx: PrContext) -> list[str]:
    """Per finding its bytes per layer and per decode step; the step's total; the measured time."""
    costed = [f for f in ctx.fixed if f.cost is not None]
    if not costed or ctx.cost_model is None:
        return []
    out = [
        "## Cost (before this change)",
        "",
        _model_line(ctx),
        "",
        "| site | function | rule | per layer | per decode step |",
        "|---|---|---|---|---|",
    ]
    for f in sorted(costed, key=lambda f: f.sort_key()):
        out.append(
            f"| `{escape(ctx.rel(f.path))}:{f.start.line}` | `{escape(f.function or '-')}` | "
            f"{f.code} {f.name} | {human_bytes(f.cost.bytes_per_layer)} | "
            f"{human_bytes(f.cost.bytes_per_step)} |"
        )
    total, counted = decode_step(ctx)
    out.append("")
    if total.bytes_per_step:
        layers = _layers(ctx)
        per_layer = f"{human_bytes(total.bytes_per_step // layers)} per layer, " if layers else ""
        out.append(
            f"A decode step of `{escape(total.backend)}` converted {per_layer}"
            f"**{human_bytes(total.bytes_per_step)} per decode step** ({len(counted)} site"
            f"{'s' if len(counted) != 1 else ''} a decode step runs; methods named "
            f"{', '.join(ctx.tables.decode_step_exclude_words) or '-'} run on prefill and are not counted)."
        )
        if len(total.backends) > 1:
            out.append(
                "Per backend (a server runs one): "
                + "; ".join(f"`{escape(name)}` {human_bytes(n)}" for name, n in total.backends)
                + "."
            )
        timed = _measured_line(ctx, len(counted))
        if timed:
            out += ["", timed]
    out.append("")
    return out


def _measured_line(ctx: PrContext, sites: int) -> str:
    row = crossover_row(ctx) if ctx.mla_paths else None
    if row is None or "cast_ms_per_pool_token" not in row or not sites:
        return ""
    pool = ctx.cost_model.pool_tokens
    one = row["cast_ms_per_pool_token"] * pool
    layers = _layers(ctx) or 1
    return (
        f"Measured cost of the conversion (rules/costs_h200.toml `[[mla_kv_read]]` row since FlashInfer "
        f"{row['since']}, {row.get('gpu', '-')}, {row.get('measured', '-')}): "
        f"{row['cast_ms_per_pool_token']:g} ms per pool token x {pool:,} tokens = **{one:.3f} ms per layer** "
        f"per site; x {layers} layers x {sites} site{'s' if sites != 1 else ''} = "
        f"**{one * layers * sites:.1f} ms per decode step**."
    )


def changed_section(ctx: PrContext) -> list[str]:
    """Per rewritten file: the findings it fixed, what the fix did, what it left."""
    out = ["## What changed and why", ""]
    by_file: dict[str, list] = {}
    for f in ctx.fixed:
        by_file.setdefault(ctx.rel(f.path), []).append(f)
    applied = dict(ctx.applied)
    files = [c.path for c in ctx.changes if c.path in by_file or c.path in applied]
    for path in files:
        out += [f"### `{escape(path)}`", ""]
        for f in sorted(by_file.get(path, []), key=lambda f: f.sort_key()):
            message = f.message.split("; ")[0]
            out.append(
                f"- line {f.start.line}, `{escape(f.function or '-')}`: **{f.code} {f.name}**: {escape(message)}"
            )
        if applied.get(path):
            out += ["", "The fix:"] + [f"- {escape(what)}" for what in applied[path]]
        left = [(line, why) for p, line, why in ctx.skipped if p == path]
        if left:
            out += ["", "Left as it was:"] + [f"- line {line}: {escape(why)}" for line, why in left]
        out.append("")
    if ctx.mla_paths or ctx.profile != "full":
        words = PROFILE_WORDS.get(ctx.profile)
        out += [
            f"Fix profile: `{ctx.profile}`" + (f" ({words})." if words else "."),
            "",
        ]
    return out


def files_section(ctx: PrContext) -> list[str]:
    fixed = {path for path, _ in ctx.applied}
    out = ["## Files", "", "| file | change | lines |", "|---|---|---|"]
    for c in ctx.changes:
        added, removed = c.counts()
        change = "added" if c.added else ("rewritten by the fix" if c.path in fixed else "updated (the fix needs it)")
        out.append(f"| `{escape(c.path)}` | {change} | +{added} -{removed} |")
    modules = [c.path for c in ctx.changes if c.added]
    if modules:
        out += [
            "",
            "Modules added: " + ", ".join(f"`{escape(p)}`" for p in modules) + ".",
        ]
    out.append("")
    return out


def switch_section(ctx: PrContext) -> list[str]:
    """The environment variable the new code reads, when a changed file reads it."""
    switch = ctx.tables.kv_read_switch if ctx.tables is not None else {}
    variable, values = switch.get("variable"), list(switch.get("values") or ())
    if not variable or not values:
        return []
    where = [c.path for c in ctx.changes if variable.encode() in c.new]
    if not where:
        return []
    out = [
        "## The switch",
        "",
        (
            f"`{variable}` (named in {', '.join(f'`{escape(p)}`' for p in where)}; rules/sglang.toml "
            "`[kv_read_switch]`):"
        ),
        "",
    ]
    for i, value in enumerate(values):
        words = SWITCH_WORDS.get(value, "")
        default = " (default)" if i == 0 else ""
        out.append(f"- `{value}`{default}" + (f": {words}" if words else ""))
    out.append("")
    if OFF_VALUE in values:
        out += [f"To turn it off: `{variable}={OFF_VALUE}`.", ""]
    else:
        out += [f"Unset, it takes `{values[0]}`.", ""]
    return out


def flashinfer_section(ctx: PrContext) -> list[str]:
    """The FlashInfer releases the rewrite covers: the tree's pin, the FP8-KV kernel rows,
    the measured-cost rows."""
    if not ctx.mla_paths or ctx.tables is None:
        return []
    from castlint.fixes.target import activation_note

    out = ["## FlashInfer versions", ""]
    for path in ctx.mla_paths:
        target = ctx.targets.get(path)
        if target is not None:
            out.append(f"- `{escape(path)}`: {escape(target.describe())}.")
            note = activation_note(target, ctx.tables)
            if note:
                out.append(f"  Note: {escape(note)}.")
    rows = ctx.tables.fp8_kv_mla
    if rows:
        out += [
            "",
            "FP8-KV MLA kernel by FlashInfer release (rules/flashinfer.toml `[[fp8_kv_mla]]`):",
            "",
            "| since | native backends | note |",
            "|---|---|---|",
        ]
        for row in rows:
            backends = ", ".join(row.get("backends") or ()) or "none (the cast stays)"
            out.append(f"| {row['since']} | {backends} | {escape(str(row.get('note', '')))} |")
    measured = ctx.tables.mla_kv_read
    if measured:
        in_force = crossover_row(ctx)
        out += [
            "",
            "Read costs the patched plan() chooses with (rules/costs_h200.toml `[[mla_kv_read]]`):",
            "",
            "| since | GPU | measured | source | in force here |",
            "|---|---|---|---|---|",
        ]
        for row in measured:
            here = "yes" if in_force is not None and row is in_force else ""
            out.append(
                f"| {row['since']} | {escape(str(row.get('gpu', '-')))} | {row.get('measured', '-')} | "
                f"`{escape(str(row.get('source', '-')))}` | {here} |"
            )
    out.append("")
    return out


# -- the validation report ---------------------------------------------------------------


def validation_section(ctx: PrContext) -> list[str]:
    report = ctx.validate
    if report is None:
        return [
            "## Validation",
            "",
            (
                "Not validated in this run: `castlint validate` (below) runs the original and the patched backend "
                "on a GPU; pass its `--json-file` to `castlint fix --validate-json` to put the results here."
            ),
            "",
        ]
    out = [
        "## Validation",
        "",
        f"From `{escape(ctx.validate_name)}`"
        + (f" ({_environment(report.get('environment') or {})})" if report.get("environment") else "")
        + ".",
        "",
    ]
    if report.get("kind") == "paged":
        from castlint.validate.paged import render_text

        return out + [fence(render_text(report)), ""]
    if "cells" in report:
        return out + sweep_lines(report, ctx.heatmap)
    return out + site_lines(report)


def _environment(env: dict) -> str:
    keys = ("gpu", "device", "flashinfer", "torch", "cuda", "sglang", "triton")
    return ", ".join(f"{k} {env[k]}" for k in keys if env.get(k) not in (None, ""))


def sweep_cells(report: dict) -> list:
    """The sweep's cells as castlint.validate.sweep.Cell (keys the Cell lacks are left out)."""
    from castlint.validate.sweep import Cell

    names = {f.name for f in dataclasses.fields(Cell)}
    cells = []
    for row in report.get("cells") or ():
        values = {k: v for k, v in row.items() if k in names}
        values["reasons"] = tuple(values.get("reasons") or ())
        cells.append(Cell(**values))
    return cells


def sweep_lines(report: dict, heatmap: str = "") -> list[str]:
    from castlint.validate.sweep import markdown, verdict

    cells = sweep_cells(report)
    out = [
        markdown(cells),
        "",
        f"**{verdict(cells)}**",
        "",
        ("Speed-up per cell (rows: site and shape; columns: pool tokens):"),
        "",
        heat_grid(cells),
        "",
    ]
    if heatmap:
        out += [f"![speed-up heat map]({heatmap})", ""]
    return out


def heat_grid(cells: Sequence) -> str:
    """The heat map as a Markdown table: the speed-up of each cell and, where it did not pass, why."""
    pools = sorted({c.pool_tokens for c in cells})
    rows = list(dict.fromkeys((c.label, c.shape) for c in cells))
    by = {(c.label, c.shape, c.pool_tokens): c for c in cells}
    lines = [
        "| site | shape | " + " | ".join(f"{p:,}" for p in pools) + " |",
        "|---|---|" + "---|" * len(pools),
    ]
    for label, shape in rows:
        marks = []
        for pool in pools:
            cell = by.get((label, shape, pool))
            if cell is None:
                marks.append("")
                continue
            speed = "-" if cell.speedup is None else f"{cell.speedup:.2f}x"
            marks.append(speed if cell.status == "pass" else f"{speed} {cell.status}")
        lines.append(f"| {escape(label)} | {escape(shape)} | " + " | ".join(marks) + " |")
    return "\n".join(lines)


def site_lines(report: dict) -> list[str]:
    """One validation run (`castlint validate --json`): a row per site, the per-step line, the verdict."""
    out = [
        "| site | status | original ms | patched ms | speed-up | saved ms/step | max abs diff | read |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for site in report.get("sites") or ():
        o = (site.get("original") or {}).get("timing") or {}
        p = (site.get("patched") or {}).get("timing") or {}
        step = site.get("per_step") or {}
        numerics = site.get("numerics") or {}
        out.append(
            f"| {escape(str(site.get('site')))} | {site.get('status')} | {_num(o.get('median_ms'), '.4f')} | "
            f"{_num(p.get('median_ms'), '.4f')} | {_num(site.get('speedup'), '.2f', 'x')} | "
            f"{_num(step.get('saved_ms'), '.3f')} | {_num(numerics.get('max_abs'), '.3g')} | "
            f"{escape(str((site.get('patched') or {}).get('read') or '-'))} |"
        )
    summary = report.get("per_step") or {}
    if summary.get("saved_ms"):
        out += [
            "",
            f"Per step over {summary.get('layers')} layers ({summary.get('preset')}): "
            + "; ".join(
                f"{escape(name)} {ms:.3f} ms {'saved' if ms >= 0 else 'lost'}"
                for name, ms in summary["saved_ms"].items()
            )
            + ".",
        ]
    out += ["", f"**{'PASS' if report.get('passed') else 'FAIL'}**", ""]
    return out


def _num(value, spec: str, unit: str = "") -> str:
    return "-" if not isinstance(value, (int, float)) else f"{value:{spec}}{unit}"


# -- reproduce -------------------------------------------------------------------------


def fix_command(ctx: PrContext) -> str:
    flags = [f"--profile {ctx.profile}"]
    if ctx.flashinfer_api != "auto":
        flags.append(f"--flashinfer-api {ctx.flashinfer_api}")
    if ctx.flashinfer_version:
        flags.append(f"--flashinfer-version {ctx.flashinfer_version}")
    if ctx.unsafe:
        flags.append("--unsafe-fixes")
    return "castlint fix " + " ".join(flags + [_quoted(p) for p in ctx.paths or ["."]])


def _quoted(path: str) -> str:
    import shlex

    return shlex.quote(path)


def reproduce_section(ctx: PrContext) -> list[str]:
    """The commands, on the original tree: check, preview, validate (MLA), fix with this description."""
    paths = " ".join(_quoted(p) for p in ctx.paths or ["."])
    version = f"=={ctx.version}" if ctx.version else ""
    lines = [
        f"pip install 'castlint{version}'",
        f"cd <the tree's root>  # the folder that holds {_top(ctx)}",
        f"castlint check {paths}",
        f"castlint fix --diff {fix_command(ctx)[len('castlint fix ') :]}",
    ]
    extra = ""
    if ctx.mla_paths:
        report = ctx.validate or {}
        sweep = not report or "cells" in report
        device = (report.get("environment") or {}).get("device") or "cuda"
        model = ctx.cost_model.name if ctx.cost_model is not None else ""
        preset = f" --preset {model}" if model and " " not in model else ""
        name = _quoted(os.path.basename(ctx.validate_name) if ctx.validate_name else "sweep.json")
        lines += [
            "# the original and the fixed backend side by side: on a GPU (--device cpu: the reference MLA)",
            f"castlint validate {_quoted(ctx.mla_paths[0].split('/', 1)[0])} --device {device}{preset}"
            + (" --sweep --svg heatmap.svg" if sweep else "")
            + f" --json-file {name}",
        ]
        extra = f" --validate-json {name}"
    lines.append(f"{fix_command(ctx)}{extra} --pr-body pr.md --patch fix.patch")
    return ["## Reproduce", "", fence("\n".join(lines), "sh"), ""]


def _top(ctx: PrContext) -> str:
    tops = sorted({c.path.split("/", 1)[0] for c in ctx.changes if "/" in c.path})
    return ", ".join(f"{t}/" for t in tops) or "the changed files"


# -- the documents -----------------------------------------------------------------------


def render_body(ctx: PrContext) -> str:
    """The pull request's description, in Markdown."""
    out = [f"# {title(ctx)}", ""]
    out += changed_section(ctx)
    out += cost_section(ctx)
    out += files_section(ctx)
    out += switch_section(ctx)
    out += flashinfer_section(ctx)
    out += validation_section(ctx)
    out += reproduce_section(ctx)
    out.append(f"Produced with castlint {ctx.version}." if ctx.version else "Produced with castlint.")
    return "\n".join(out).rstrip("\n") + "\n"


def commit_message(ctx: PrContext) -> str:
    """The patch's commit message below its subject: what, why, the cost, the switch (plain text)."""
    paragraphs = []
    total, _counted = decode_step(ctx)
    fixed = {path for path, _ in ctx.applied}
    parts = [
        (verb, [c.path for c in ctx.changes if test(c)])
        for verb, test in (
            ("rewrites", lambda c: c.path in fixed),
            ("updates", lambda c: not c.added and c.path not in fixed),
            ("adds", lambda c: c.added),
        )
    ]
    what = "; ".join(f"{verb} {', '.join(paths)}" for verb, paths in parts if paths)
    paragraphs.append(what[:1].upper() + what[1:] + ".")
    if total.bytes_per_step and ctx.cost_model is not None:
        layers = ctx.cost_model.layers
        paragraphs.append(
            f"Before, a decode step of {total.backend} converted the whole KV pool: "
            f"{human_bytes(total.bytes_per_step // layers)} per layer, "
            f"{human_bytes(total.bytes_per_step)} per decode step ({ctx.cost_model.name}, "
            f"{ctx.cost_model.pool_tokens:,} pool tokens, {layers} layers)."
        )
    switch = ctx.tables.kv_read_switch if ctx.tables is not None else {}
    variable, values = switch.get("variable"), list(switch.get("values") or ())
    if variable and values and any(variable.encode() in c.new for c in ctx.changes):
        line = f"{variable} selects the read ({', '.join(values)}; default {values[0]})"
        if OFF_VALUE in values:
            line += f"; {variable}={OFF_VALUE} restores the original path"
        paragraphs.append(line + ".")
    paragraphs.append(f"Produced with castlint{' ' + ctx.version if ctx.version else ''}:\n\n    {fix_command(ctx)}")
    return "\n\n".join(paragraphs) + "\n"
