"""What the FlashInfer MLA fix adds to an sglang-style MLA backend module.

This is engine code, kept as a real module so that castlint's tests can import,
lint and run it. `castlint fix` copies it into the backend: the statements
between the `header` markers go after the module's `import torch`, the rest to
the end of the module, with every `= ()` / `= ""` placeholder below filled from
rules/*.toml. It is never imported by castlint itself.

How the KV pool is read, per plan (`_plan_mla_kv_read`, on the host, no sync):
- native: FlashInfer's FP8-KV MLA kernel reads the pool as stored (only where a
  capability row says the kernel exists);
- compact: only the rows the plan reads are converted, by one fused
  gather-and-convert kernel, into one buffer shared by every layer; the rows
  keep their own positions, so the plan's indices stay valid. The row count is
  read on the device, so a CUDA graph captured once replays at any shape;
- cast: the original whole-pool conversion.
The switch SGLANG_MLA_KV_READ selects auto (default), native, compact or off.
"""

# ruff: noqa: E402
from __future__ import annotations

import torch

# -- header: inserted after the backend's `import torch` --------------------------
try:
    import triton
    import triton.language as tl
except ImportError:  # without Triton the rows a plan reads are converted with torch
    triton = tl = None
# -- end header ----------------------------------------------------------------

# The switch: environment variable and its values (rules/sglang.toml [kv_read_switch]).
_MLA_KV_READ_SWITCH = ()
# FP8-KV MLA kernels by FlashInfer version (rules/flashinfer.toml [[fp8_kv_mla]]):
# (since, backends, ckv head dims, kpe head dims, compute capability, kv dtypes,
# q dtypes).
_MLA_FP8_KV_KERNELS = ()
# Measured costs (ms) by FlashInfer version (rules/crossover.toml [[mla_kv_read]]):
# (since, cast per pool row, torch gather, its per row, native, native per row x
# query, BF16 MLA per row x query, margin).
_MLA_KV_READ_COSTS = ()
# The fused conversion's cost (rules/crossover.toml [compact_kv_read]): (fixed ms,
# ms per row, share of the pool above which the whole pool is converted instead).
_MLA_KV_COMPACT_COST = ()
# What `backend="auto"` resolves to on SM90 and elsewhere (rules/flashinfer.toml).
_MLA_AUTO_BACKEND = {}
# Where the model runner keeps the pool and its row count (rules/crossover.toml).
_MLA_KV_POOL = ()
# run()'s scale keywords (rules/flashinfer.toml [[mla_signature]] run_scales).
_MLA_RUN_SCALES = ()
# Where FlashInfer's MLA wrapper records use_cuda_graph (rules/crossover.toml).
_MLA_GRAPH_ATTRIBUTE = ""


class _MlaKvRead:
    """How run() reads the KV pool for the plan it belongs to (kind: native,
    compact or cast); a compact read keeps its row buffers across plans."""

    __slots__ = ("kind", "rows", "count", "count_host", "lut")

    def __init__(self, kind="cast", rows=None, count=None, count_host=0, lut=None):
        self.kind = kind
        self.rows = rows
        self.count = count
        self.count_host = count_host
        self.lut = lut

    @property
    def native(self):
        return self.kind == "native"

    @property
    def compact(self):
        return self.kind == "compact"

    @property
    def scale(self):
        # the pool stores FP8 unscaled (set_kv_buffer casts without a scale)
        return 1.0 if self.native else None

    @property
    def scales(self):
        return dict.fromkeys(_MLA_RUN_SCALES, 1.0) if self.native else {}

    def convert(self, pool, dtype):
        """The rows this plan reads, in `dtype`, at their own positions of a buffer
        shaped like `pool` and shared by every layer."""
        out = _mla_kv_shared_buffer(pool, dtype)
        fused = _MLA_KV_CONVERT is not None and pool.is_cuda and pool.is_contiguous()
        if fused and self.lut is not None and self.lut.dtype == dtype:
            row = pool[0].numel()
            programs = min(triton.cdiv(self.rows.shape[0], 16), 1024)
            _MLA_KV_CONVERT[(max(programs, 1),)](
                pool.view(torch.uint8),
                out,
                self.lut,
                self.rows,
                self.count,
                pool.shape[0],
                row,
                BLOCK_R=16,
                BLOCK_D=triton.next_power_of_2(row),
            )
            return out
        if self.count_host < 0:
            return pool.to(dtype)
        rows = self.rows[: self.count_host].long()
        out[rows] = pool[rows].to(dtype)
        return out


_MLA_KV_CAST = _MlaKvRead()
_MLA_KV_BUFFERS = {}


def _mla_kv_shared_buffer(pool, dtype):
    """One destination buffer per pool shape, dtype and stream, for every layer."""
    stream = torch.cuda.current_stream(pool.device) if pool.is_cuda else None
    key = (tuple(pool.shape), dtype, str(pool.device), stream)
    buffer = _MLA_KV_BUFFERS.get(key)
    if buffer is None:
        buffer = _MLA_KV_BUFFERS[key] = torch.empty(
            pool.shape, dtype=dtype, device=pool.device
        )
    return buffer


def _mla_kv_convert_rows(
    src,
    dst,
    lut,
    rows,
    count,
    pool_rows,
    row,
    BLOCK_R: "tl.constexpr",
    BLOCK_D: "tl.constexpr",
):
    """dst[i] = lut[src[i]] for the first `count` rows i listed in `rows`, or for
    every row when count < 0; count is read on the device."""
    n = tl.load(count)
    total = tl.where(n < 0, pool_rows, n)
    cols = tl.arange(0, BLOCK_D)
    for start in range(tl.program_id(0) * BLOCK_R, total, tl.num_programs(0) * BLOCK_R):
        r = start + tl.arange(0, BLOCK_R)
        live = r < total
        index = tl.load(rows + r, mask=live & (n >= 0), other=0)
        index = tl.where(n < 0, r, index)
        index = tl.minimum(tl.maximum(index, 0), pool_rows - 1).to(tl.int64)
        offsets = index[:, None] * row + cols[None, :]
        mask = live[:, None] & (cols < row)[None, :]
        byte = tl.load(src + offsets, mask=mask, other=0)
        tl.store(dst + offsets, tl.load(lut + byte.to(tl.int32), mask=mask), mask=mask)


_MLA_KV_CONVERT = triton.jit(_mla_kv_convert_rows) if triton is not None else None


def _mla_kv_read(wrapper):
    """How run() on this wrapper reads the pool, as its last plan decided."""
    return getattr(wrapper, "mla_kv_read", _MLA_KV_CAST)


def _mla_fp8_kv_kernel(version, capability, backend, ckv, kpe, kv_dtype, q_dtype):
    """Does FlashInfer `version` have the FP8-KV MLA kernel for these shapes here?"""
    for since, backends, ckvs, kpes, cc, kv_dtypes, q_dtypes in _MLA_FP8_KV_KERNELS:
        if version >= since:
            return (
                backend in backends
                and ckv in ckvs
                and kpe in kpes
                and capability == cc
                and str(kv_dtype).split(".")[-1] in kv_dtypes
                and str(q_dtype).split(".")[-1] in q_dtypes
            )
    return False


def _flashinfer_mla_fp8_kv_read(model_runner, backend, reads_other_buffer=False):
    """How this backend may read its FP8 KV pool, decided once at init.

    None: the original cast (switch off, a pool that is not 1-byte floats, or run()
    may read another buffer). Else the reads allowed here (native where the FP8-KV
    kernel exists, compact everywhere) and the costs that choose between them.
    """
    import logging
    import os

    logger = logging.getLogger(__name__)
    variable, values = _MLA_KV_READ_SWITCH
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
    kv_dtype, q_dtype = model_runner.kv_cache_dtype, model_runner.dtype
    if mode == "off" or reads_other_buffer or kv_dtype == q_dtype:
        return None
    if (
        torch.empty((), dtype=kv_dtype).element_size() != 1
        or not kv_dtype.is_floating_point
    ):
        return None
    try:
        import flashinfer
        from packaging.version import Version

        version = Version(flashinfer.__version__).release[:3]
        capability = tuple(torch.cuda.get_device_capability(model_runner.device))
        config = model_runner.model_config
        if backend == "auto":
            backend = _MLA_AUTO_BACKEND["sm90" if capability[0] == 9 else "other"]
        native = mode != "compact" and _mla_fp8_kv_kernel(
            version,
            capability,
            backend,
            config.kv_lora_rank,
            config.qk_rope_head_dim,
            kv_dtype,
            q_dtype,
        )
        costs = next(
            (row[1:] for row in _MLA_KV_READ_COSTS if version >= row[0]),
            _MLA_KV_READ_COSTS[-1][1:],
        )
        pool_name, size, padding = _MLA_KV_POOL
        pool = getattr(model_runner, pool_name)
        rows = int(getattr(pool, size)) + int(getattr(pool, padding))
    except Exception as exc:  # noqa: BLE001 - any failure keeps the original path
        logger.warning("MLA KV read: %s; the whole-pool cast is kept", exc)
        return None
    if not native and mode == "native":
        logger.info(
            "MLA KV read: no FP8-KV MLA kernel here; the whole-pool cast is kept"
        )
        return None
    compact = mode != "native"
    graphs = compact and (triton is not None or "cuda" not in str(model_runner.device))
    return {
        "kv_data_type": kv_dtype,
        "pool_rows": rows,
        "costs": costs,
        "native": native,
        "compact": compact,
        "compact_in_graphs": graphs,
    }


def _mla_compact_read(wrapper, fp8_kv_read, kv_indptr, kv_indices, kv_data_type):
    """The compact read for this plan, in the row buffers the wrapper's last compact
    read used (a CUDA graph captured with them replays with them)."""
    pool_rows = fp8_kv_read["pool_rows"]
    if (
        isinstance(kv_indptr, torch.Tensor)
        and kv_indptr.device.type == "cpu"
        and len(kv_indptr) > 0
    ):
        count = int(kv_indptr[-1])
    else:
        count = kv_indices.shape[0]
    read = _mla_kv_read(wrapper)
    if not read.compact:
        device = kv_indices.device
        lut = torch.arange(256, dtype=torch.uint8, device=device).view(
            fp8_kv_read["kv_data_type"]
        )
        read = _MlaKvRead(
            "compact",
            torch.zeros(pool_rows, dtype=torch.int32, device=device),
            torch.zeros(1, dtype=torch.int32, device=device),
            0,
            lut.to(kv_data_type),
        )
    whole = count > read.rows.shape[0] or count >= _MLA_KV_COMPACT_COST[2] * pool_rows
    if not whole and count > 0:
        read.rows[:count].copy_(kv_indices[:count], non_blocking=True)
    read.count_host = -1 if whole else count
    read.count.fill_(read.count_host)
    return read


def _plan_mla_kv_read(
    wrapper, fp8_kv_read, qo_indptr, kv_indptr, kv_indices, kv_data_type, decode
):
    """Choose how the next run() on `wrapper` reads the pool; return its kv dtype.

    Host-side only. Decode reads natively where the kernel exists. A CUDA-graph
    wrapper otherwise reads compact (its row count is read on the device at
    replay). Elsewhere the measured costs pick the cheapest read.
    """
    choice = _MLA_KV_CAST
    if fp8_kv_read is not None:
        kind = _mla_kv_read_kind(
            wrapper, fp8_kv_read, qo_indptr, kv_indices.shape[0], decode
        )
        if kind == "native":
            choice = _MlaKvRead("native")
        elif kind == "compact":
            choice = _mla_compact_read(
                wrapper, fp8_kv_read, kv_indptr, kv_indices, kv_data_type
            )
    wrapper.mla_kv_read = choice
    return fp8_kv_read["kv_data_type"] if choice.native else kv_data_type


def _mla_kv_read_kind(wrapper, fp8_kv_read, qo_indptr, rows, decode):
    """native, compact or cast for one plan (see _plan_mla_kv_read)."""
    native, compact = fp8_kv_read["native"], fp8_kv_read["compact"]
    if decode and native:
        return "native"
    if getattr(wrapper, _MLA_GRAPH_ATTRIBUTE, False):
        return "compact" if fp8_kv_read["compact_in_graphs"] else "cast"
    cast_row, gather, gather_row, native_ms, native_row, bf16_row, margin = fp8_kv_read[
        "costs"
    ]
    queries = 1.0 if decode else None
    if (
        isinstance(qo_indptr, torch.Tensor)
        and qo_indptr.device.type == "cpu"
        and len(qo_indptr) > 1
    ):
        queries = int(qo_indptr[-1]) / (len(qo_indptr) - 1)
    fixed, per_row, _ = _MLA_KV_COMPACT_COST
    converted = (
        fixed + per_row * rows
        if _MLA_KV_CONVERT is not None
        else gather + gather_row * rows
    )
    original = cast_row * fp8_kv_read["pool_rows"]
    if native and queries is not None:
        attention = bf16_row * rows * queries
        best = min(original, converted) if compact else original
        if native_ms + native_row * rows * queries < margin * (best + attention):
            return "native"
    if compact and converted < margin * original:
        return "compact"
    return "cast"
