"""Read a paged FP8 KV pool in the query's dtype, converting only the pages read.

Attention kernels that take the KV cache in the query's dtype (FlashAttention 3/4
MLA, the xpu and musa MLA paths) used to get the whole pool converted on every
layer of every step: `pool.to(q.dtype)` copies every slot, not just the live
tokens. `read_kv_pages` converts only the pages the page table lists for this
step (each page once), into one buffer shared by every layer, and returns the
page table remapped into that buffer.

- The kernel must read `page_table[b, :ceil(seqlens[b] / page_size)]` and nothing
  else (the contract of a paged-KV attention kernel); `read_kv_pages` is called
  with the same page table, sequence lengths and page size the kernel gets.
- The choice is made on the host, with no device sync, from the page table's
  shape: when the pages it can hold are most of the pool, the whole pool is
  converted as before (`_WHOLE_POOL_SHARE`, measured on an H200).
- Under CUDA-graph capture the compact read is always taken: the page count is
  read on the device and the grid is fixed, so a graph captured at one shape
  replays at any other.
- Without Triton the rows are gathered with torch (outside graph capture).

The switch SGLANG_MLA_KV_READ selects auto (default), compact, native or off;
`native` and `off` keep the whole-pool conversion here (these kernels have no
FP8-KV read).
"""

from __future__ import annotations

import functools
import logging
import os

import torch

try:
    import triton
    import triton.language as tl
except ImportError:  # without Triton the pages are gathered with torch
    triton = tl = None

logger = logging.getLogger(__name__)

# The switch: its environment variable and values (the first is the default).
_KV_READ_SWITCH = ()
# From this share of the pool's rows that the page table can reach, the whole pool is
# converted instead (measured: see _WHOLE_POOL_SHARE_MEASURED).
_WHOLE_POOL_SHARE = 0.0
_WHOLE_POOL_SHARE_MEASURED = ""
# The switch's modes that take the compact read here (the first decides by cost).
_COMPACT_MODES = ()

_BUFFERS = {}
_LUTS = {}


@functools.cache
def _mode():
    variable, values = _KV_READ_SWITCH
    mode = os.environ.get(variable, values[0]).lower()
    if mode not in values:
        logger.warning(
            "%s=%s is not one of %s; using %s",
            variable,
            mode,
            ", ".join(values),
            values[0],
        )
        mode = values[0]
    return mode


@functools.cache
def _keep_cast(reason):
    logger.info("KV page read: %s; the whole-pool conversion is kept", reason)


def _why_not_compact(pool, dtype, page_size):
    if _mode() not in _COMPACT_MODES:
        return f"{_KV_READ_SWITCH[0]}={_mode()}"
    if pool.element_size() != 1 or not pool.dtype.is_floating_point:
        return f"the pool holds {pool.dtype}, not a 1-byte float"
    if not pool.is_contiguous() or pool.shape[0] % page_size:
        return "the pool is not contiguous whole pages"
    return None


def read_kv_pages(pool, dtype, page_table, seqlens, page_size, fallback=False):
    """(cache, page_table): `pool` in `dtype`, as the kernel reads it through
    `page_table` and `seqlens`. The cache holds only the pages the table lists
    for this step, and the table returned points into it; with `fallback`, or
    where the compact read does not apply, it is `pool.to(dtype)` and the table
    as given."""
    if pool.dtype == dtype:
        return pool, page_table
    why = "this path is not proven for it" if fallback else None
    why = why or _why_not_compact(pool, dtype, page_size)
    capturing = pool.is_cuda and torch.cuda.is_current_stream_capturing()
    if why is None and capturing and _CONVERT_PAGES is None:
        why = "Triton is missing and a CUDA graph is being captured"
    whole = page_table.numel() * page_size >= _WHOLE_POOL_SHARE * pool.shape[0]
    if why is None and whole and not capturing and _mode() == _COMPACT_MODES[0]:
        return pool.to(dtype), page_table  # most of the pool: convert it whole
    if why is not None:
        if not fallback:
            _keep_cast(why)
        return pool.to(dtype), page_table
    out = _shared_buffer(pool, dtype)
    if _CONVERT_PAGES is None or not pool.is_cuda:
        return out, _convert_pages_torch(
            pool, dtype, page_table, seqlens, page_size, out
        )
    return out, _convert_pages_triton(pool, dtype, page_table, seqlens, page_size, out)


def _shared_buffer(pool, dtype):
    """One destination per pool shape, dtype, device and stream, for every layer."""
    stream = torch.cuda.current_stream(pool.device) if pool.is_cuda else None
    key = (tuple(pool.shape), dtype, str(pool.device), stream)
    buffer = _BUFFERS.get(key)
    if buffer is None:
        buffer = _BUFFERS[key] = torch.empty(
            pool.shape, dtype=dtype, device=pool.device
        )
    return buffer


def _convert_pages_torch(pool, dtype, page_table, seqlens, page_size, out):
    width = page_table.shape[1]
    pages_read = torch.clamp((seqlens.long() + page_size - 1) // page_size, max=width)
    live = torch.arange(width, device=page_table.device)[None, :] < pages_read[:, None]
    pages, slots = torch.unique(page_table[live].long(), return_inverse=True)
    rows = pages[:, None] * page_size + torch.arange(page_size, device=pool.device)
    rows = rows.reshape(-1)
    out[: rows.shape[0]] = pool[rows].to(dtype)
    remapped = torch.zeros_like(page_table)
    remapped[live] = slots.to(page_table.dtype)
    return remapped


def _convert_pages_triton(pool, dtype, page_table, seqlens, page_size, out):
    batch, width = page_table.shape
    lut_key = (pool.dtype, dtype, str(pool.device))
    lut = _LUTS.get(lut_key)
    if lut is None:
        lut = _LUTS[lut_key] = (
            torch.arange(256, dtype=torch.uint8, device=pool.device)
            .view(pool.dtype)
            .to(dtype)
        )
    marks = torch.zeros(
        pool.shape[0] // page_size, dtype=torch.int32, device=pool.device
    )
    programs = max(1, min(triton.cdiv(width, 128), 64))
    _MARK_PAGES[(batch, programs)](
        page_table, page_table.stride(0), seqlens, width, page_size, marks, BLOCK=128
    )
    slots = torch.cumsum(marks > 0, 0, dtype=torch.int32)
    remapped = torch.zeros_like(page_table)
    row = pool[0].numel()
    columns = next((c for c in (256, 128, 64, 32) if row % c == 0), None)
    columns = columns or triton.next_power_of_2(row)
    programs = max(1, min(triton.cdiv(width * page_size, 32), 256))
    _CONVERT_PAGES[(batch, programs)](
        pool.view(torch.uint8),
        out,
        lut,
        page_table,
        page_table.stride(0),
        seqlens,
        width,
        page_size,
        marks,
        slots,
        remapped,
        remapped.stride(0),
        row,
        BLOCK_R=32,
        BLOCK_C=columns,
    )
    return remapped


def _kv_mark_pages(
    table, stride, seqlens, width, page_size, marks, BLOCK: tl.constexpr
):
    """marks[page] = the last entry (b * width + j + 1) that reads the page."""
    b = tl.program_id(0)
    pages = (tl.load(seqlens + b) + page_size - 1) // page_size
    pages = tl.minimum(pages, width)
    for start in range(tl.program_id(1) * BLOCK, pages, tl.num_programs(1) * BLOCK):
        j = start + tl.arange(0, BLOCK)
        live = j < pages
        page = tl.load(table + b * stride + j, mask=live, other=0)
        tl.atomic_max(marks + page, b * width + j + 1, mask=live)


def _kv_convert_pages(
    src,
    dst,
    lut,
    table,
    stride,
    seqlens,
    width,
    page_size,
    marks,
    slots,
    remapped,
    remapped_stride,
    row,
    BLOCK_R: tl.constexpr,
    BLOCK_C: tl.constexpr,
):
    """remapped[b, j] = the page's compact slot; the entry that marked a page
    converts its rows, dst[slot] = lut[src[page]], rows in parallel."""
    b = tl.program_id(0)
    pages = (tl.load(seqlens + b) + page_size - 1) // page_size
    rows = tl.minimum(pages, width) * page_size
    for start in range(tl.program_id(1) * BLOCK_R, rows, tl.num_programs(1) * BLOCK_R):
        i = start + tl.arange(0, BLOCK_R)
        live = i < rows
        j = i // page_size
        page = tl.load(table + b * stride + j, mask=live, other=0)
        slot = tl.load(slots + page, mask=live, other=1) - 1
        first_row = live & (i % page_size == 0)
        tl.store(remapped + b * remapped_stride + j, slot, mask=first_row)
        owner = live & (tl.load(marks + page, mask=live, other=0) == b * width + j + 1)
        source = (page.to(tl.int64) * page_size + i % page_size) * row
        target = (slot.to(tl.int64) * page_size + i % page_size) * row
        for c in range(0, row, BLOCK_C):
            cols = c + tl.arange(0, BLOCK_C)
            mask = owner[:, None] & (cols < row)[None, :]
            byte = tl.load(src + source[:, None] + cols[None, :], mask=mask, other=0)
            value = tl.load(lut + byte.to(tl.int32), mask=mask)
            tl.store(dst + target[:, None] + cols[None, :], value, mask=mask)


_MARK_PAGES = triton.jit(_kv_mark_pages) if triton is not None else None
_CONVERT_PAGES = triton.jit(_kv_convert_pages) if triton is not None else None
