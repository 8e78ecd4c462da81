"""Render a ValidationResult: a rich table for people, JSON for CI."""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Any, Dict

from rich.console import Console, Group
from rich.padding import Padding
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from castlint.validate.proof import short_kernel_name

SCHEMA = 1


def _mib(n) -> str:
    if n is None:
        return "-"
    if n >= 1 << 30:
        return f"{n / (1 << 30):.2f} GiB"
    if n >= 1 << 20:
        return f"{n / (1 << 20):.1f} MiB"
    if n >= 1 << 10:
        return f"{n / (1 << 10):.1f} KiB"
    return f"{n} B"


def _ms(t) -> str:
    return "-" if t is None else f"{t.median_ms:.4f}"


def _layers(result) -> int:
    return int(result.config.get("model_layers") or 1)


def to_json(result) -> Dict[str, Any]:
    sites = []
    for site in result.sites:
        entry = {
            "site": site.name,
            "functions": site.functions,
            "status": site.status,
            "reasons": site.reasons,
            "numerics": {
                "max_abs": site.max_abs,
                "max_rel": site.max_rel,
                "cosine": site.cosine,
                "mismatched": site.mismatched,
                "elements": site.elements,
                "within_tolerance": site.within_tolerance,
            },
            "speedup": site.speedup,
            "speed_margin": site.margin,
            "per_step": site.per_step(_layers(result)),
            "baseline_off_reference": site.baseline_warning or None,
        }
        for label in ("original", "patched"):
            run = getattr(site, label)
            entry[label] = {
                "error": run.error,
                "timing": asdict(run.timing) if run.timing else None,
                "max_abs_vs_fp32_reference": run.vs_fp32_max_abs,
                "plans": run.plans,
                "runs": run.runs,
                "note": run.note,
                "read": run.read,
                "reads": run.reads,
                "proof": run.proof.to_json() if run.proof else None,
            }
        sites.append(entry)
    return {
        "schema": SCHEMA,
        "tool": "castlint validate",
        "file": result.file,
        "baseline": result.baseline,
        "passed": result.passed,
        "environment": result.environment,
        "config": result.config,
        "kv_read": result.environment.get("kv_read"),
        "per_step": _per_step_summary(result),
        "guard": result.guard,
        "sites": sites,
        "plan_calls": result.plan_calls,
        "doubles_unknown_reads": result.doubles_unknown_reads,
    }


def _per_step_summary(result) -> Dict[str, Any]:
    """Milliseconds saved per step over the preset's layers, per site that has both timings."""
    layers = _layers(result)
    saved = {site.name: step["saved_ms"] for site in result.sites if (step := site.per_step(layers))}
    return {"layers": layers, "preset": result.config.get("preset"), "saved_ms": saved}


def render_json(result) -> str:
    return json.dumps(to_json(result), indent=2, default=str) + "\n"


def _status(site) -> Text:
    style = {"pass": "bold green", "fail": "bold red", "error": "bold red", "skipped": "yellow"}[site.status]
    return Text(site.status.upper(), style=style)


def _plan_kv(run) -> str:
    kinds = sorted({plan["kv_dtype"] for plan in run.plans})
    return "/".join(k.replace("float8_e4m3fn", "fp8").replace("bfloat16", "bf16") for k in kinds) or "-"


def render_text(result, console: Console) -> None:
    """The report for people: the run's header, a row per site, each site's evidence, the verdict."""
    console.print(Panel(_header(result), title="castlint validate", expand=False))
    table = _sites_table(result)
    console.print(table if _fits(table, console) else _sites_blocks(result))
    line = per_step_line(result)
    if line:
        console.print(line)
    for site in result.sites:
        lines = _site_lines(site)
        if lines:
            title = f"{site.name}: {site.functions}"
            if len(title) + 6 > console.width:  # rich would cut the title: the functions go inside
                title, lines = site.name, [Text(f"functions: {site.functions}", style="bold")] + lines
            console.print(Panel(Group(*lines), title=title, title_align="left", expand=True))
    _print_verdict(result, console)


def _fits(renderable, console: Console) -> bool:
    """Does it fit the console's width without rich shrinking (and so cutting) a column?"""
    from rich.measure import Measurement

    natural = Measurement.get(console, console.options.update_width(1 << 16), renderable).maximum
    return natural <= console.width


def per_step_line(result) -> str:
    """One line: per site, the milliseconds a whole step saves over the preset's layers,
    (original_ms - patched_ms) x layers; "" when no site has both timings."""
    layers = _layers(result)
    parts = []
    for site in result.sites:
        step = site.per_step(layers)
        if step:
            verb = "saved" if step["saved_ms"] >= 0 else "lost"
            parts.append(
                f"{site.name} {abs(step['saved_ms']):.3f} ms {verb} ({step['original_ms']:.3f} → "
                f"{step['patched_ms']:.3f} ms)"
            )
    if not parts:
        return ""
    return f"per step over {layers} layers ({result.config.get('preset')}): " + "; ".join(parts)


def _header(result) -> Table:
    """What ran, where, on which inputs, within which tolerance."""
    env, cfg, guard = result.environment, result.config, result.guard
    head = Table.grid(padding=(0, 2))
    head.add_column(style="bold", no_wrap=True)
    head.add_column(overflow="fold")  # a long path folds onto the next line, never cut
    head.add_row("file", result.file)
    head.add_row("baseline", result.baseline)
    head.add_row("ran on", f"{env.get('gpu')}  (compute capability {env.get('compute_capability')})")
    head.add_row(
        "versions",
        f"FlashInfer {env.get('flashinfer')}, torch {env.get('torch')}"
        + (f", CUDA {env['cuda']}" if env.get("cuda") else "")
        + f"; sglang {env.get('sglang')}",
    )
    head.add_row("kernels", str(env.get("kernels")))
    head.add_row("guard", f"{guard.get('branch')}  " + ", ".join(f"{k}={v}" for k, v in guard.items() if k != "branch"))
    head.add_row(
        "inputs",
        f"preset {cfg['preset']} ({cfg['num_heads_total']} heads / tp {cfg['tp']} = "
        f"{cfg['heads']} local), kv_lora_rank {cfg['kv_lora_rank']}, rope {cfg['rope_dim']}, "
        f"pool {cfg['pool_tokens']:,} tokens FP8 e4m3 (random page table), batch "
        f"{cfg['batch_size']}, context {cfg['context_len']}, extend {cfg['extend_len']}, "
        f"draft tokens {cfg.get('draft_tokens', '-')}",
    )
    head.add_row("tolerance", f"atol {cfg['atol']:g}, rtol {cfg['rtol']:g} (patched vs original output)")
    head.add_row("kv read", str(env.get("kv_read", "-")))
    return head


SITES_TITLE = "per rewritten site (one layer, one call)"
_COLUMNS = (
    ("site", {"style": "bold"}),
    ("status", {}),
    ("max |Δ|", {"justify": "right"}),
    ("cosine", {"justify": "right"}),
    ("orig ms", {"justify": "right"}),
    ("patched ms", {"justify": "right"}),
    ("speed-up", {"justify": "right"}),
    ("whole-pool cast", {}),
    ("bytes moved", {"justify": "right"}),
    ("plan kv", {}),
    ("read", {}),
)


def _site_cells(site) -> list:
    """A site's row of the table, one cell per _COLUMNS entry."""
    original, patched = site.original, site.patched
    cast = moved = "-"
    if original.proof and patched.proof:
        cast = " → ".join("yes" if run.proof.moves_whole_pool else "no" for run in (original, patched))
        moved = f"{_mib(original.proof.total_bytes)} → {_mib(patched.proof.total_bytes)}"
    return [
        site.name,
        _status(site),
        "-" if site.max_abs is None else f"{site.max_abs:.3g}",
        "-" if site.cosine is None else f"{site.cosine:.6f}",
        _ms(original.timing),
        _ms(patched.timing),
        "-" if site.speedup is None else f"{site.speedup:.1f}×",
        cast,
        moved,
        f"{_plan_kv(original)} → {_plan_kv(patched)}",
        patched.read or "-",
    ]


def _sites_table(result) -> Table:
    """One row per site: verdict, numerics, timings, and the kernel proof's whole-pool cast and bytes."""
    table = Table(show_lines=False, title=SITES_TITLE)
    for col, kw in _COLUMNS:
        table.add_column(col, **kw)
    for site in result.sites:
        table.add_row(*_site_cells(site))
    return table


def _sites_blocks(result) -> Group:
    """The table's cells for a console too narrow for its eleven columns: a block per site,
    a line per column (`label  value`), values wrapped (never cut) to the width."""
    blocks = [Text(SITES_TITLE, style="italic")]
    for site in result.sites:
        name, status, *values = _site_cells(site)
        grid = Table.grid(padding=(0, 2))
        grid.add_column(style="bold", no_wrap=True)
        grid.add_column(overflow="fold")
        for (label, _), value in zip(_COLUMNS[2:], values):
            grid.add_row(label, value)
        blocks.append(Group(Text.assemble((name, "bold"), "  ", status), Padding(grid, (0, 0, 0, 2))))
    return Group(*blocks)


def _site_lines(site) -> list:
    """A site's reasons, then per version its proof, kernels, timing and distance from the fp32 reference."""
    lines = []
    for reason in site.reasons:
        lines.append(Text("• " + reason, style="red" if site.status in ("fail", "error") else "yellow"))
    for label in ("original", "patched"):
        run = getattr(site, label)
        if run.proof:
            proof = run.proof
            if proof.whole_pool_ops:
                op = proof.whole_pool_ops[0]
                lines.append(
                    Text(
                        f"{label}: {op.op} {op.in_dtype}{op.in_shape} → {op.out_dtype}{op.out_shape}: "
                        f"{_mib(op.bytes_read)} read + {_mib(op.bytes_written)} written (whole pool)"
                    )
                )
            else:
                lines.append(
                    Text(
                        f"{label}: no op materialises a pool-sized tensor; MLA reads "
                        f"{_mib(proof.attention_kv_bytes)} of KV (active tokens only)"
                    )
                )
            if proof.profiler == "cuda" and proof.kernels:
                kernels = ", ".join(f"{short_kernel_name(k.name, 48)} {k.device_us:.1f} µs" for k in proof.kernels[:3])
                lines.append(Text(f"   kernels: {kernels}", style="dim"))
        if run.timing:
            timing = run.timing
            lines.append(
                Text(
                    f"   {label} timing: {timing.median_ms:.4f} ms median (p10 {timing.p10_ms:.4f}, "
                    f"p90 {timing.p90_ms:.4f}; {timing.method}; host {timing.host_us:.0f} µs/call)"
                    + (f"; {run.note}" if run.note else ""),
                    style="dim",
                )
            )
        if run.vs_fp32_max_abs is not None:
            lines.append(
                Text(
                    f"   {label} vs fp32 reference on the dequantized pool: max |Δ| {run.vs_fp32_max_abs:.3g}",
                    style="dim",
                )
            )
    return lines


def _print_verdict(result, console: Console) -> None:
    """The plan calls that ran, what the doubles lacked, warnings, and PASS or FAIL."""
    executed = result.plan_calls.get("patched", {}).get("executed", [])
    if executed:
        console.print(
            "plan calls executed in the patched file: "
            + ", ".join(f"line {e['line']} ({e['function']})" for e in executed)
        )
    if result.doubles_unknown_reads:
        console.print(
            Text(
                "attributes the code read that the doubles do not define (read as None/False): "
                + ", ".join(result.doubles_unknown_reads[:20]),
                style="yellow",
            )
        )
    ran = [s for s in result.sites if s.status != "skipped"]
    for s in ran:
        if s.baseline_warning:
            console.print(Text(f"WARNING: {s.baseline_warning}", style="bold red"))
    if result.passed:
        console.print(Text(f"PASS: {len(ran)} site(s) within tolerance.", style="bold green"))
    else:
        bad = [s.name for s in ran if s.status != "pass"] or ["no site ran"]
        console.print(Text(f"FAIL: {', '.join(bad)}.", style="bold red"))
