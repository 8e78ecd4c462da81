"""`castlint validate --sweep`: the original and the patched backend over a grid of shapes.

A repair is judged at every shape a server runs. The sweep runs the validation of
each cell (same harness, same kernels) over decode, extend, target-verify and
draft-extend shapes (eager and as CUDA graphs) and pool sizes, and, on the biggest
pool, the same cells again with the native FP8-KV read off (SGLANG_MLA_KV_READ=compact:
the path a GPU without that kernel runs). It prints a table, writes JSON and an SVG
heat map of the speed-up per cell, and fails when any cell is slower than the
original beyond its noise margin or off tolerance (a skipped cell, a path the
release does not have, fails nothing). Modules and FlashInfer's JIT kernels are
loaded once per process; each cell gets its own pool of its size.

The GPU grid stays one command under 10 minutes per FlashInfer version on an H200
(two sglang releases).
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass, replace
from html import escape
from typing import Callable, Dict, List, Optional, Sequence

# decode: batch x context; verify / draft-extend: batch x context x draft tokens;
# extend: batch x context x new tokens; pools in tokens.
GPU_POOLS = (65536, 495552)
GPU_DECODE = ((1, 4096), (32, 4096))
GPU_SPEC = ((8, 4096, 4), (32, 4096, 4))
GPU_EXTEND = ((1, 4096, 32), (1, 32768, 8192))
CPU_POOLS = (4096, 16384)
CPU_DECODE = ((1, 256), (4, 512))
CPU_SPEC = ((2, 256, 4),)
CPU_EXTEND = ((1, 256, 32), (4, 512, 128))

SPEC_SWEEP_SITES = ("target-verify", "target-verify-cuda-graph", "draft-extend", "draft-extend-cuda-graph")
SWEEP_SITES = ("decode", "extend-paged") + SPEC_SWEEP_SITES
# the sites run again with the native read off (on the biggest pool)
NATIVE_OFF_SITES = ("decode", "extend-paged", "target-verify", "target-verify-cuda-graph", "draft-extend")
NATIVE_OFF = "native read off"

COLOR_FAILED = "#d62728"  # slower beyond the margin, off tolerance, or an error
COLOR_PARITY = "#ece9d8"  # passes, within the noise margin of the original (at most 1x)
COLOR_SKIPPED = "#dddddd"  # the release has no such path
COLOR_EMPTY = "#f7f7f7"


@dataclass
class Cell:
    site: str
    pool_tokens: int
    batch_size: int
    context_len: int
    extend_len: int = 0
    draft_tokens: int = 0
    native: bool = True  # False: the patched backend ran with the native read off
    status: str = ""
    original_ms: Optional[float] = None
    patched_ms: Optional[float] = None
    speedup: Optional[float] = None
    margin: Optional[float] = None
    max_abs: Optional[float] = None
    saved_ms_per_step: Optional[float] = None  # (original - patched) x the preset's layers
    read: str = ""
    reasons: Sequence[str] = ()

    @property
    def shape(self) -> str:
        new = f", {self.extend_len} new" if self.site == "extend-paged" else ""
        draft = f", {self.draft_tokens} draft" if self.site in SPEC_SWEEP_SITES else ""
        return f"{self.batch_size} x {self.context_len}{new}{draft}"

    @property
    def label(self) -> str:
        """The site, and whether the native read was off."""
        return self.site if self.native else f"{self.site} ({NATIVE_OFF})"


def _site_shapes(site: str, cpu: bool):
    """(batch, context, new tokens, draft tokens) of a site's cells."""
    if site in ("decode", "decode-cuda-graph"):
        return [(bs, ctx, 0, 0) for bs, ctx in (CPU_DECODE if cpu else GPU_DECODE)]
    if site == "extend-paged":
        return [(bs, ctx, new, 0) for bs, ctx, new in (CPU_EXTEND if cpu else GPU_EXTEND)]
    return [(bs, ctx, 0, draft) for bs, ctx, draft in (CPU_SPEC if cpu else GPU_SPEC)]


def grid(
    device: str, pools: Optional[Sequence[int]] = None, sites: Optional[Sequence[str]] = None, native: bool = True
) -> List[Cell]:
    """The cells of a sweep: every site's shapes that fit each pool; with native, the NATIVE_OFF_SITES'
    cells of the biggest pool again with the native read off (native False: every cell off)."""
    cpu = device == "cpu"
    pools = tuple(pools) if pools else (CPU_POOLS if cpu else GPU_POOLS)
    sites = tuple(sites) if sites else SWEEP_SITES
    cells = []
    for pool in pools:
        for site in sites:
            cells += [
                Cell(site, pool, bs, ctx, new, draft, native=native)
                for bs, ctx, new, draft in _site_shapes(site, cpu)
                if bs * (ctx + draft) <= pool
            ]
    if native:
        biggest = max(pools)
        cells += [replace(c, native=False) for c in cells if c.pool_tokens == biggest and c.site in NATIVE_OFF_SITES]
    return cells


def run_sweep(
    original: bytes,
    patched: bytes,
    cfg,
    *,
    filename: str,
    cells: Sequence[Cell],
    say: Callable[[str], None] = lambda msg: None,
    tables=None,
    companions=None,
) -> List[Cell]:
    """Validate every cell; cfg is the HarnessConfig the cells vary."""
    done = []
    for i, cell in enumerate(cells, 1):
        t0 = time.time()
        cell = _run_cell(original, patched, cfg, cell, filename, tables, companions)
        done.append(cell)
        say(
            f"[{i}/{len(cells)}] {cell.label} pool {cell.pool_tokens:,} {cell.shape}: {cell.status} "
            f"{'-' if cell.speedup is None else f'{cell.speedup:.2f}x'} ({time.time() - t0:.1f} s)"
        )
        if cfg.device == "cuda":
            import torch

            torch.cuda.empty_cache()
    return done


def _run_cell(original: bytes, patched: bytes, cfg, cell: Cell, filename: str, tables, companions=None) -> Cell:
    """One cell's validation, summarised."""
    from castlint.validate.harness import run_validation

    cell_cfg = replace(
        cfg,
        pool_tokens=cell.pool_tokens,
        batch_size=cell.batch_size,
        context_len=cell.context_len,
        extend_len=cell.extend_len or cfg.extend_len,
        draft_tokens=cell.draft_tokens or cfg.draft_tokens,
        native_read=cell.native,
        sites=(cell.site,),
        profile=False,
    )
    result = run_validation(
        original, patched, cell_cfg, filename=filename, baseline_label="sweep", tables=tables, companions=companions
    )
    site = result.sites[0]
    o, p = site.original.timing, site.patched.timing
    step = site.per_step(int(result.config.get("model_layers") or 1))
    return replace(
        cell,
        status=site.status,
        original_ms=o.median_ms if o else None,
        patched_ms=p.median_ms if p else None,
        speedup=site.speedup,
        margin=site.margin,
        max_abs=site.max_abs,
        saved_ms_per_step=step["saved_ms"] if step else None,
        read=site.patched.read or site.patched.note,
        reasons=tuple(site.reasons) + ((site.baseline_warning,) if site.baseline_warning else ()),
    )


def ran(cells: Sequence[Cell]) -> List[Cell]:
    """The cells that ran (a skipped one is a path the release does not have)."""
    return [c for c in cells if c.status != "skipped"]


def passed(cells: Sequence[Cell]) -> bool:
    return bool(ran(cells)) and all(c.status == "pass" for c in ran(cells))


def verdict(cells: Sequence[Cell]) -> str:
    skipped = len(cells) - len(ran(cells))
    note = f" ({skipped} skipped: a path the release does not have)" if skipped else ""
    if passed(cells):
        return "PASS: every cell within tolerance and not slower than the original beyond its margin" + note
    bad = sum(c.status != "pass" for c in ran(cells))
    return f"FAIL: {bad} of {len(ran(cells))} cells slower or off tolerance" + note


def to_json(cells: Sequence[Cell], environment: Dict) -> str:
    rows = [dict(vars(c), shape=c.shape, label=c.label, reasons=list(c.reasons)) for c in cells]
    return (
        json.dumps({"schema": 1, "environment": environment, "passed": passed(cells), "cells": rows}, indent=1) + "\n"
    )


def markdown(cells: Sequence[Cell]) -> str:
    lines = [
        "| site | pool | shape | original ms | patched ms | speed-up | margin | saved ms/step | max abs diff "
        "| read | status |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for c in cells:
        lines.append(
            f"| {c.label} | {c.pool_tokens:,} | {c.shape} | {_num(c.original_ms, '.4f')} | "
            f"{_num(c.patched_ms, '.4f')} | {_num(c.speedup, '.2f', 'x')} | "
            f"{_num(None if c.margin is None else c.margin * 100, '.1f', ' %')} | "
            f"{_num(c.saved_ms_per_step, '.3f')} | {_num(c.max_abs, '.3g')} | {c.read or '-'} | {c.status} |"
        )
    return "\n".join(lines)


def _num(value: Optional[float], spec: str, unit: str = "") -> str:
    return "-" if value is None else f"{value:{spec}}{unit}"


def cell_color(cell: Cell) -> str:
    """The heat map's colour of a cell, from its verdict: red where it failed (slower beyond its margin,
    off tolerance, an error), grey where skipped; a pass is green by its speed-up, and neutral where it
    is at most 1x (within the noise margin: not slower)."""
    if cell.status == "skipped":
        return COLOR_SKIPPED
    if cell.status != "pass":
        return COLOR_FAILED
    if cell.speedup is None or cell.speedup <= 1.0:
        return COLOR_PARITY
    # just above 1x a pale green, 30x deep green (log scale)
    t = min(1.0, math.log(cell.speedup) / math.log(30))
    return f"#{int(230 - 200 * t):02x}{int(235 - 120 * t):02x}{int(200 - 150 * t):02x}"


def heatmap_svg(cells: Sequence[Cell], title: str) -> str:
    """Rows: site and shape; columns: pool size; each cell the speed-up, coloured by its verdict."""
    pools = sorted({c.pool_tokens for c in cells})
    rows = list(dict.fromkeys((c.label, c.shape) for c in cells))
    by = {(c.label, c.shape, c.pool_tokens): c for c in cells}
    w0, cw, ch, top = 380, 110, 26, 76
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{w0 + cw * len(pools) + 20}" '
        f'height="{top + ch * len(rows) + 40}" font-family="sans-serif" font-size="12">',
        f'<text x="10" y="20" font-size="14" font-weight="bold">{escape(title)}</text>',
        '<text x="10" y="40">speed-up of the patched backend over the original, by verdict: green faster, '
        "beige within the noise margin,</text>",
        '<text x="10" y="56">red slower beyond the margin or failed, grey skipped (no such path)</text>',
    ]
    for j, pool in enumerate(pools):
        out.append(f'<text x="{w0 + j * cw + cw / 2}" y="{top - 6}" text-anchor="middle">pool {pool:,}</text>')
    for i, (label, shape) in enumerate(rows):
        y = top + i * ch
        out.append(f'<text x="10" y="{y + 17}">{escape(label)} {escape(shape)}</text>')
        for j, pool in enumerate(pools):
            out += _svg_cell(by.get((label, shape, pool)), w0 + j * cw, y, cw, ch)
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _svg_cell(cell: Optional[Cell], x: int, y: int, cw: int, ch: int) -> List[str]:
    rect = f'<rect x="{x}" y="{y}" width="{cw - 2}" height="{ch - 2}" fill="{{}}"/>'
    if cell is None:
        return [rect.format(COLOR_EMPTY)]
    label = "-" if cell.speedup is None else f"{cell.speedup:.2f}x"
    if cell.status != "pass":
        label += " " + cell.status
    return [
        rect.format(cell_color(cell)),
        f'<text x="{x + cw / 2 - 1}" y="{y + 17}" text-anchor="middle">{escape(label)}</text>',
    ]
