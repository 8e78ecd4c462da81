"""`castlint validate --sweep`: the original and the patched backend over a grid of shapes.

A repair is judged at every shape a server runs. The sweep runs the validation of
each cell (same harness, same kernels) over decode and extend shapes and pool
sizes, prints a table, writes JSON and an SVG heat map of the speed-up per cell,
and fails when any cell is slower than the original beyond its noise margin or
off tolerance. Modules and FlashInfer's JIT kernels are loaded once per process;
each cell gets its own pool of its size.
"""
from __future__ import annotations

import json
import time
from dataclasses import dataclass, replace
from html import escape
from typing import Callable, Dict, List, Optional, Sequence

# decode: batch x context; extend: batch x context x new tokens; pools in tokens.
GPU_POOLS = (65536, 495552, 1048576)
GPU_DECODE = ((1, 4096), (16, 2048), (64, 4096), (256, 1024), (8, 32768))
GPU_EXTEND = ((1, 4096, 32), (16, 2048, 128), (64, 4096, 512), (4, 16384, 2048), (1, 16384, 8192))
CPU_POOLS = (4096, 16384)
CPU_DECODE = ((1, 256), (4, 512))
CPU_EXTEND = ((1, 256, 32), (4, 512, 128))


@dataclass
class Cell:
    site: str
    pool_tokens: int
    batch_size: int
    context_len: int
    extend_len: int = 0
    status: str = ""
    original_ms: Optional[float] = None
    patched_ms: Optional[float] = None
    speedup: Optional[float] = None
    margin: Optional[float] = None
    max_abs: Optional[float] = None
    read: str = ""
    reasons: Sequence[str] = ()

    @property
    def shape(self) -> str:
        new = f", {self.extend_len} new" if self.site == "extend-paged" else ""
        return f"{self.batch_size} x {self.context_len}{new}"


def grid(device: str, pools: Optional[Sequence[int]] = None) -> List[Cell]:
    cpu = device == "cpu"
    pools = tuple(pools) if pools else (CPU_POOLS if cpu else GPU_POOLS)
    cells = []
    for pool in pools:
        for bs, ctx in (CPU_DECODE if cpu else GPU_DECODE):
            if bs * ctx <= pool:
                cells.append(Cell("decode", pool, bs, ctx))
        for bs, ctx, new in (CPU_EXTEND if cpu else GPU_EXTEND):
            if bs * ctx <= pool:
                cells.append(Cell("extend-paged", pool, bs, ctx, new))
    return cells


def run_sweep(original: bytes, patched: bytes, cfg, *, filename: str, cells: Sequence[Cell],
              say: Callable[[str], None] = lambda msg: None, tables=None) -> List[Cell]:
    """Validate every cell; cfg is the HarnessConfig the cells vary."""
    from castlint.validate.harness import run_validation

    done = []
    for i, cell in enumerate(cells, 1):
        t0 = time.time()
        cell_cfg = replace(cfg, pool_tokens=cell.pool_tokens, batch_size=cell.batch_size,
                           context_len=cell.context_len, extend_len=cell.extend_len or cfg.extend_len,
                           sites=(cell.site,), profile=False)
        result = run_validation(original, patched, cell_cfg, filename=filename, baseline_label="sweep",
                                tables=tables)
        site = result.sites[0]
        o, p = site.original.timing, site.patched.timing
        cell = replace(cell, status=site.status, original_ms=o.median_ms if o else None,
                       patched_ms=p.median_ms if p else None, speedup=site.speedup, margin=site.margin,
                       max_abs=site.max_abs, read=site.patched.note,
                       reasons=tuple(site.reasons) + ((site.baseline_warning,) if site.baseline_warning else ()))
        done.append(cell)
        say(f"[{i}/{len(cells)}] {cell.site} pool {cell.pool_tokens:,} {cell.shape}: {cell.status} "
            f"{'-' if cell.speedup is None else f'{cell.speedup:.2f}x'} ({time.time() - t0:.1f} s)")
        if cfg.device == "cuda":
            import torch

            torch.cuda.empty_cache()
    return done


def passed(cells: Sequence[Cell]) -> bool:
    return bool(cells) and all(c.status == "pass" for c in cells)


def to_json(cells: Sequence[Cell], environment: Dict) -> str:
    rows = [dict(vars(c), shape=c.shape, reasons=list(c.reasons)) for c in cells]
    return json.dumps({"schema": 1, "environment": environment, "passed": passed(cells), "cells": rows},
                      indent=1) + "\n"


def markdown(cells: Sequence[Cell]) -> str:
    lines = ["| site | pool | batch x context | original ms | patched ms | speed-up | margin | max abs diff | read | status |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for c in cells:
        ms = lambda v: "-" if v is None else f"{v:.4f}"  # noqa: E731
        lines.append(f"| {c.site} | {c.pool_tokens:,} | {c.shape} | {ms(c.original_ms)} | {ms(c.patched_ms)} | "
                     f"{'-' if c.speedup is None else f'{c.speedup:.2f}x'} | "
                     f"{'-' if c.margin is None else f'{c.margin * 100:.1f} %'} | "
                     f"{'-' if c.max_abs is None else f'{c.max_abs:.3g}'} | {c.read or '-'} | {c.status} |")
    return "\n".join(lines)


def _color(speedup: Optional[float], status: str) -> str:
    if speedup is None or status != "pass":
        return "#d62728"
    if speedup < 1.0:
        return "#ff9896"
    # 1x white-ish green to 30x deep green, log scale
    import math

    t = min(1.0, math.log(speedup) / math.log(30)) if speedup > 1 else 0.0
    g = int(235 - 120 * t)
    r = int(230 - 200 * t)
    return f"#{r:02x}{g:02x}{int(200 - 150 * t):02x}"


def heatmap_svg(cells: Sequence[Cell], title: str) -> str:
    """Rows: site and shape; columns: pool size; each cell the speed-up, red where it failed."""
    pools = sorted({c.pool_tokens for c in cells})
    rows = []
    for c in cells:
        key = (c.site, c.shape)
        if key not in rows:
            rows.append(key)
    by = {(c.site, c.shape, c.pool_tokens): c for c in cells}
    w0, cw, ch, top = 260, 110, 26, 60
    width, height = w0 + cw * len(pools) + 20, top + ch * len(rows) + 40
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'font-family="sans-serif" font-size="12">',
           f'<text x="10" y="20" font-size="14" font-weight="bold">{escape(title)}</text>',
           '<text x="10" y="40">speed-up of the patched backend over the original (red: slower or failed)</text>']
    for j, pool in enumerate(pools):
        out.append(f'<text x="{w0 + j * cw + cw / 2}" y="{top - 6}" text-anchor="middle">pool {pool:,}</text>')
    for i, (site, shape) in enumerate(rows):
        y = top + i * ch
        out.append(f'<text x="10" y="{y + 17}">{escape(site)} {escape(shape)}</text>')
        for j, pool in enumerate(pools):
            c = by.get((site, shape, pool))
            x = w0 + j * cw
            if c is None:
                out.append(f'<rect x="{x}" y="{y}" width="{cw - 2}" height="{ch - 2}" fill="#eeeeee"/>')
                continue
            label = "-" if c.speedup is None else f"{c.speedup:.2f}x"
            if c.status != "pass":
                label += " " + c.status
            out.append(f'<rect x="{x}" y="{y}" width="{cw - 2}" height="{ch - 2}" fill="{_color(c.speedup, c.status)}"/>')
            out.append(f'<text x="{x + cw / 2 - 1}" y="{y + 17}" text-anchor="middle">{escape(label)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"
