"""How MLA attention reads an FP8 KV pool in the model's dtype.

MLA backends used to convert the whole preallocated KV pool on every layer of
every step (`pool.to(q.dtype)`): every slot, not only the tokens the step reads.
This module picks a cheaper read, on the host, from values the plan already holds
(no device sync):

- native: FlashInfer's FP8-KV MLA kernel reads the pool as stored, where
  FP8_KV_MLA_KERNELS says the kernel exists (decode always; other plans when  # [compact]
  MLA_KV_READ_COSTS says it wins);  # [compact]
  FP8_KV_MLA_KERNELS says the kernel exists (decode plans);  # [native]
- compact: only the rows a step reads are converted, into one buffer per pool  # [compact]
  shape that every layer shares; the row count is read on the device, so a CUDA  # [compact]
  graph captured at one shape replays at any other (`read_kv_pages` does the  # [compact]
  same for paged kernels: FlashAttention 3/4, xpu and musa MLA);  # [compact]
- cast: the whole-pool conversion, kept where nothing else wins.

The backend goes through its MlaKvRead at three places: each plan call
(`kv_read.call_plan(wrapper.plan, ...)`: the read is chosen and the plan gets
the KV dtype it needs), the pool read before run() (`kv_read.convert(wrapper,
k, dtype)` in place of `k.to(dtype)`) and run()'s scales
(`**kv_read.scales(wrapper)`).

The environment variable SGLANG_MLA_KV_READ selects auto (the default), native
(the FP8-KV kernel only, else the cast), compact (never the FP8-KV kernel) or off
(the whole-pool conversion everywhere).
"""

from __future__ import annotations

import functools
import inspect
import logging
import os  # [switch]
import weakref
from typing import NamedTuple

import torch
from packaging.version import Version
# [first-party]

# [compact]
try:
    import triton
    import triton.language as tl
except ImportError:  # without Triton the rows are converted with torch
    triton = tl = None

logger = logging.getLogger(__name__)

# The switch: its environment variable and values (the first is the default).
SWITCH = ()


class Fp8KvMlaKernel(NamedTuple):
    """Where FlashInfer has an MLA kernel that reads FP8 KV with a BF16 query."""

    flashinfer: str  # from this FlashInfer version on
    backends: tuple
    ckv_head_dims: tuple
    kpe_head_dims: tuple
    compute_capability: tuple
    kv_dtypes: tuple
    q_dtypes: tuple


# Read from FlashInfer's sources and wheels; newest first.
FP8_KV_MLA_KERNELS = ()
# What FlashInfer's backend="auto" resolves to on SM90 and elsewhere.
AUTO_BACKEND = {}


# [compact]
class ReadCosts(NamedTuple):
    """Milliseconds, measured side by side on `gpu` (64 heads, page size 1, L2
    flushed), for P pool rows, N rows read and Q queries per request:
    cast(P) = cast_per_pool_row * P, gather(N) = gather + gather_per_row * N
    (torch), native(N, Q) = native + native_per_row_query * N * Q and
    bf16(N, Q) = bf16_per_row_query * N * Q. A read wins when it costs less than
    `margin` times the other."""

    flashinfer: str  # from this FlashInfer version on
    gpu: str
    measured: str
    cast_per_pool_row: float
    gather: float
    gather_per_row: float
    native: float
    native_per_row_query: float
    bf16_per_row_query: float
    margin: float


# [compact]
class ConvertCost(NamedTuple):
    """The compact conversion kernel: fixed + per_row * N ms; from whole_pool_share
    of the pool's rows on, the whole pool is converted instead."""

    gpu: str
    measured: str
    fixed: float
    per_row: float
    whole_pool_share: float


# Newest first. GPUs without rows of their own use the newest row for their
# FlashInfer: both conversions are bandwidth-bound, so what decides between them is
# a ratio of rows.
MLA_KV_READ_COSTS = ()  # [compact]
COMPACT_CONVERT_COST = ()  # [compact]
# From this share of the pool's rows that a page table can reach, read_kv_pages
# converts the whole pool (the host sees only the table's shape).
PAGED_WHOLE_POOL_SHARE = ()  # [compact]

# Where the model runner keeps the pool and its row count: (pool, size, padding).
POOL_ROWS = ()
# run()'s scale keywords.
RUN_SCALES = ()
# FlashInfer's MLA plan(): its parameters after the wrapper, in order; other
# keywords callers pass some of them by (sglang's fast_mla_*_plan); the keyword
# that carries the indices in one object, under their own names (FlashInfer >=
# 0.7: plan(metadata=...)); and the KV dtype parameter.
PLAN_PARAMETERS = ()
PLAN_KEYWORD_ALIASES = {}
PLAN_METADATA = ""
PLAN_KV_DTYPE = ""


def kv_read_mode():
    """The switch's value (an unknown value is logged and read as the default)."""
    variable, values = SWITCH
    mode = os.environ.get(variable, values[0])  # [switch]
    mode = str(mode or values[0]).lower()  # unset or empty: the default
    if mode not in values:
        _log_once(
            logging.WARNING,
            "%s=%s is not one of %s; using %s",
            variable,
            mode,
            ", ".join(values),
            values[0],
        )
        mode = values[0]
    return mode


_LOGGED = set()


def _log_once(level, message, *args):
    if (message, args) not in _LOGGED:
        _LOGGED.add((message, args))
        logger.log(level, message, *args)


class KvRead:
    """How one run() reads the pool: native, compact or cast. A compact read keeps
    its row buffers across the plans of its wrapper (a CUDA graph captured with
    them replays with them)."""

    __slots__ = ("count", "count_host", "kind", "lut", "rows")

    def __init__(self, kind, rows=None, count=None, count_host=0, lut=None):
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
    def scales(self):
        # the pool stores FP8 unscaled (set_kv_buffer casts without a scale)
        return dict.fromkeys(RUN_SCALES, 1.0) if self.native else {}

    # [compact]
    def convert(self, pool, dtype):
        """The rows this plan reads, in `dtype`, at their own positions of a buffer
        shaped like `pool` that every layer shares."""
        out = _shared_buffer(pool, dtype)
        fused = _CONVERT is not None and pool.is_cuda and pool.is_contiguous()
        if fused and self.lut is not None and self.lut.dtype == dtype:
            _convert(pool, out, self.lut, self.rows[None], 0, self.count, 1)
            return out
        if self.count_host < 0:
            return pool.to(dtype)
        rows = self.rows[: self.count_host].long()
        out[rows] = pool[rows].to(dtype)
        return out


CAST = KvRead("cast")
NATIVE = KvRead("native")


class AllowedReads(NamedTuple):
    """The reads a backend may use, decided once at init."""

    kv_dtype: torch.dtype
    q_dtype: torch.dtype
    pool_rows: int
    native: bool
    compact: bool = False  # [compact]
    compact_in_graphs: bool = False  # [compact]
    costs: ReadCosts = None  # [compact]


class MlaKvRead:
    """How one MLA backend reads its FP8 KV pool.

    The reads allowed here are decided once, at init (`allowed`: None keeps the
    whole-pool conversion everywhere). Each plan goes through `call_plan()`,
    which chooses one read for the run() it prepares; the choice is kept here, by
    wrapper, and the forward that runs the wrapper follows it (`convert()`,
    `scales()`), so plan and forward always agree. With decode-context
    parallelism (`dcp_enabled`) run() reads a per-batch buffer, not the pool,
    so the original read is kept.
    """

    def __init__(self, model_runner, backend="auto", dcp_enabled=False):
        self.allowed = allowed_reads(model_runner, backend, dcp_enabled)
        self._reads = weakref.WeakKeyDictionary()
        self._in_cuda_graphs = weakref.WeakSet()  # [compact]

    # [compact]
    def in_cuda_graph(self, wrapper):
        """Mark a wrapper that a CUDA graph replays: its read is fixed at capture."""
        self._in_cuda_graphs.add(wrapper)

    def call_plan(self, plan, *args, **kwargs):
        """plan(*args, **kwargs), where `plan` is a wrapper's plan() or a function
        that takes the wrapper first, once the read of the next run() on that
        wrapper is chosen: the plan declares the KV dtype that read needs (the
        pool's when it reads natively, else the one given)."""
        wrapper, named, kv_dtype_at = plan_arguments(plan, args, kwargs)
        read = CAST
        if self.allowed is not None and kv_dtype_at is not None:
            read = self._choose(wrapper, named)
        if wrapper is not None:
            self._reads[wrapper] = read
        if read.native:
            kv_dtype = self.allowed.kv_dtype
            if isinstance(kv_dtype_at, str):
                kwargs = {**kwargs, kv_dtype_at: kv_dtype}
            else:
                args = list(args)
                args[kv_dtype_at] = kv_dtype
        return plan(*args, **kwargs)

    def convert(self, wrapper, pool, dtype, *args, **kwargs):
        """The pool as run() on `wrapper` reads it, as its last plan chose: as
        stored (native), the rows it reads in `dtype` (compact), or the original
        whole-pool conversion, pool.to(dtype, ...)."""
        read = self.read(wrapper)
        if read.native:
            return pool
        # [compact]
        if read.compact:
            return read.convert(pool, dtype)
        return pool.to(dtype, *args, **kwargs)

    def scales(self, wrapper):
        """run()'s scale keywords for `wrapper` (none unless it reads natively)."""
        return self.read(wrapper).scales

    def keep_cast(self, wrapper):
        """The next run() on `wrapper` gets the whole-pool conversion."""
        self._reads[wrapper] = CAST

    def read(self, wrapper, default=CAST):
        """How run() on `wrapper` reads the pool, as its last plan chose."""
        return self._reads.get(wrapper, default)

    def _choose(self, wrapper, named):
        allowed = self.allowed
        decode = named.get("causal") is False
        if decode and allowed.native:
            return NATIVE
        # [compact]
        kv_indptr, kv_indices = named.get("kv_indptr"), named.get("kv_indices")
        # [compact]
        if kv_indices is None:
            return CAST
        # [compact]
        if wrapper in self._in_cuda_graphs:
            # fixed at capture, whatever a replay brings: the row count is on the device
            if allowed.compact_in_graphs:
                return self._compact(wrapper, kv_indptr, kv_indices)
            return CAST
        # [compact]
        qo_indptr = named.get("qo_indptr")
        # [compact]
        kind = _cheapest_read(allowed, qo_indptr, kv_indices.shape[0], decode)
        # [compact]
        if kind == "native":
            return NATIVE
        # [compact]
        if kind == "compact":
            return self._compact(wrapper, kv_indptr, kv_indices)
        return CAST

    # [compact]
    def _compact(self, wrapper, kv_indptr, kv_indices):
        """The compact read for this plan, in the row buffers of the wrapper's last
        compact read (a CUDA graph captured with them replays with them)."""
        pool_rows = self.allowed.pool_rows
        if _on_host(kv_indptr, 1):
            count = int(kv_indptr[-1])
        else:
            count = kv_indices.shape[0]
        read = self._reads.get(wrapper)
        if read is None or not read.compact:
            device = kv_indices.device
            every_byte = torch.arange(256, dtype=torch.uint8, device=device)
            every_byte = every_byte.view(self.allowed.kv_dtype)
            read = KvRead(
                "compact",
                torch.zeros(pool_rows, dtype=torch.int32, device=device),
                torch.zeros(1, dtype=torch.int32, device=device),
                0,
                every_byte.to(self.allowed.q_dtype),
            )
        share = COMPACT_CONVERT_COST.whole_pool_share
        whole = count > read.rows.shape[0] or count >= share * pool_rows
        if not whole and count > 0:
            read.rows[:count].copy_(kv_indices[:count], non_blocking=True)
        read.count_host = -1 if whole else count
        read.count.fill_(read.count_host)
        return read


def plan_arguments(plan, args, kwargs):
    """(wrapper, {parameter: value}, where the KV dtype is passed: an index of
    `args`, a keyword or None) for a call plan(*args, **kwargs). `plan` is a
    wrapper's bound plan(), a partial that binds the wrapper first (sglang's
    `wrapper.plan = partial(fast_mla_decode_plan, wrapper)`), or a function that
    takes the wrapper first."""
    bound, keywords = (), {}
    if inspect.ismethod(plan):
        bound = (plan.__self__,)
    elif isinstance(plan, functools.partial):
        bound, keywords = plan.args, plan.keywords
    passed = (*bound, *args)
    if not passed:
        return None, {}, None
    named = dict(zip(PLAN_PARAMETERS, passed[1:]))
    kv_dtype_at = None
    for key, value in {**keywords, **kwargs}.items():
        name = PLAN_KEYWORD_ALIASES.get(key, key)
        named[name] = value
        if name == PLAN_KV_DTYPE and key in kwargs:
            kv_dtype_at = key
    metadata = named.get(PLAN_METADATA)
    for name in ("qo_indptr", "kv_indptr", "kv_indices"):
        if metadata is not None and name not in named:
            named[name] = getattr(metadata, name, None)
    at = PLAN_PARAMETERS.index(PLAN_KV_DTYPE) + 1 - len(bound)
    if kv_dtype_at is None and 0 <= at < len(args):
        kv_dtype_at = at
    return passed[0], named, kv_dtype_at


def allowed_reads(model_runner, backend="auto", reads_other_buffer=False):
    """The reads this backend may use (None: the whole-pool conversion only).

    None when the switch is off, when run() may read another buffer, when the
    pool is not a 1-byte float format, or when anything here fails (logged).
    """
    mode = kv_read_mode()
    kv_dtype, q_dtype = model_runner.kv_cache_dtype, model_runner.dtype
    if mode == "off" or reads_other_buffer or kv_dtype == q_dtype:
        return None
    if not kv_dtype.is_floating_point or kv_dtype.itemsize != 1:
        return None
    try:
        import flashinfer

        version = Version(Version(flashinfer.__version__).base_version)
        device = model_runner.device
        capability = tuple(torch.cuda.get_device_capability(device))
        config = model_runner.model_config
        if backend == "auto":
            backend = AUTO_BACKEND["sm90" if capability[0] == 9 else "other"]
        native = mode != "compact" and has_fp8_kv_mla_kernel(
            version,
            capability,
            backend,
            config.kv_lora_rank,
            config.qk_rope_head_dim,
            kv_dtype,
            q_dtype,
        )
        pool_name, size, padding = POOL_ROWS
        pool = getattr(model_runner, pool_name)
        pool_rows = int(getattr(pool, size)) + int(getattr(pool, padding))
        costs = _costs(version, _device_name(device))  # [compact]
    except Exception as exc:  # noqa: BLE001 - any failure keeps the cast
        kept = "the whole-pool conversion is kept"
        logger.warning("MLA KV read: %s; %s", exc, kept)
        return None
    if not native and mode == "native":
        kept = "the conversion is kept"
        logger.info("MLA KV read: no FP8-KV MLA kernel here; %s", kept)
        return None
    reads = AllowedReads(kv_dtype, q_dtype, pool_rows, native)
    # [compact]
    reads = reads._replace(costs=costs)
    # [compact]
    if mode != "native":
        graphs = _CONVERT is not None or "cuda" not in str(model_runner.device)
        reads = reads._replace(compact=True, compact_in_graphs=graphs)
    return reads


def has_fp8_kv_mla_kernel(
    version,
    capability,
    backend,
    ckv,
    kpe,
    kv_dtype,
    q_dtype,
):
    """Does this FlashInfer have the FP8-KV MLA kernel for these shapes here?"""
    for kernel in FP8_KV_MLA_KERNELS:
        if version >= Version(kernel.flashinfer):
            return (
                backend in kernel.backends
                and ckv in kernel.ckv_head_dims
                and kpe in kernel.kpe_head_dims
                and capability == kernel.compute_capability
                and str(kv_dtype).split(".")[-1] in kernel.kv_dtypes
                and str(q_dtype).split(".")[-1] in kernel.q_dtypes
            )
    return False


# [compact]
def _device_name(device):
    try:
        return torch.cuda.get_device_name(device)
    except Exception:  # noqa: BLE001 - the newest row then applies
        return ""


# [compact]
def _costs(version, gpu):
    """The measured costs for this FlashInfer, this GPU's where it has rows."""
    rows = [c for c in MLA_KV_READ_COSTS if version >= Version(c.flashinfer)]
    rows = rows or [MLA_KV_READ_COSTS[-1]]
    return next((c for c in rows if c.gpu == gpu), rows[0])


# [compact]
def _on_host(indptr, length):
    if not isinstance(indptr, torch.Tensor):
        return False
    return indptr.device.type == "cpu" and len(indptr) > length


# [compact]
def _cheapest_read(allowed, qo_indptr, rows, decode):
    """native, compact or cast for one eager plan, by the measured costs."""
    costs = allowed.costs
    queries = 1.0 if decode else None
    if _on_host(qo_indptr, 1):
        queries = int(qo_indptr[-1]) / (len(qo_indptr) - 1)
    if _CONVERT is not None:
        convert = COMPACT_CONVERT_COST
        converted = convert.fixed + convert.per_row * rows
    else:
        converted = costs.gather + costs.gather_per_row * rows
    original = costs.cast_per_pool_row * allowed.pool_rows
    read = min(original, converted) if allowed.compact else original
    if allowed.native and queries is not None:
        attention = costs.bf16_per_row_query * rows * queries
        native = costs.native + costs.native_per_row_query * rows * queries
        if native < costs.margin * (read + attention):
            return "native"
    if allowed.compact and converted < costs.margin * original:
        return "compact"
    return "cast"


# [compact]
def read_kv_pages(pool, dtype, page_table, seqlens, page_size, fallback=False):
    """(cache, page_table): `pool` in `dtype`, as a paged kernel reads it through
    `page_table[b, :ceil(seqlens[b] / page_size)]`. The cache holds only the pages
    the table lists for this step, each once, and the table returned points into
    it. With `fallback`, or where the compact read does not apply, it is
    `pool.to(dtype)` and the table as given."""
    if pool.dtype == dtype:
        return pool, page_table
    why = "this path is not proven for it" if fallback else None
    why = why or _why_not_paged(pool, page_size)
    capturing = pool.is_cuda and torch.cuda.is_current_stream_capturing()
    if why is None and capturing and _CONVERT is None:
        why = "Triton is missing and a CUDA graph is being captured"
    reach = page_table.numel() * page_size
    whole = reach >= PAGED_WHOLE_POOL_SHARE * pool.shape[0]
    auto = kv_read_mode() == SWITCH[1][0]
    if why is None and whole and not capturing and auto:
        return pool.to(dtype), page_table  # most of the pool: convert it whole
    if why is not None:
        if not fallback:
            kept = "the conversion is kept"
            _log_once(logging.INFO, "KV page read: %s; %s", why, kept)
        return pool.to(dtype), page_table
    out = _shared_buffer(pool, dtype)
    convert = _convert_pages if _CONVERT is not None and pool.is_cuda else None
    convert = convert or _convert_pages_torch
    return out, convert(pool, dtype, page_table, seqlens, page_size, out)


# [compact]
def _why_not_paged(pool, page_size):
    mode = kv_read_mode()
    if mode not in ("auto", "compact"):
        return f"{SWITCH[0]}={mode}"
    if pool.element_size() != 1 or not pool.dtype.is_floating_point:
        return f"the pool holds {pool.dtype}, not a 1-byte float"
    if not pool.is_contiguous() or pool.shape[0] % page_size:
        return "the pool is not contiguous whole pages"
    return None


# [compact]
_BUFFERS = {}
# [compact]
_LUTS = {}


# [compact]
def _shared_buffer(pool, dtype):
    """One destination per pool shape, dtype, device and stream, for every layer."""
    stream = torch.cuda.current_stream(pool.device) if pool.is_cuda else None
    key = (tuple(pool.shape), dtype, str(pool.device), stream)
    buffer = _BUFFERS.get(key)
    if buffer is None:
        buffer = torch.empty(pool.shape, dtype=dtype, device=pool.device)
        _BUFFERS[key] = buffer
    return buffer


# [compact]
def _lut(pool, dtype):
    """Every byte of the pool's format in `dtype`: converting through it is .to()."""
    key = (pool.dtype, dtype, str(pool.device))
    if key not in _LUTS:
        every_byte = torch.arange(256, dtype=torch.uint8, device=pool.device)
        _LUTS[key] = every_byte.view(pool.dtype).to(dtype)
    return _LUTS[key]


# [compact]
def _convert_pages_torch(pool, dtype, page_table, seqlens, page_size, out):
    width = page_table.shape[1]
    pages_read = (seqlens.long() + page_size - 1) // page_size
    pages_read = torch.clamp(pages_read, max=width)
    columns = torch.arange(width, device=page_table.device)
    live = columns[None, :] < pages_read[:, None]
    pages, slots = torch.unique(page_table[live].long(), return_inverse=True)
    offsets = torch.arange(page_size, device=pool.device)
    rows = pages[:, None] * page_size + offsets
    rows = rows.reshape(-1)
    out[: rows.shape[0]] = pool[rows].to(dtype)
    remapped = torch.zeros_like(page_table)
    remapped[live] = slots.to(page_table.dtype)
    return remapped


# [compact]
def _convert_pages(pool, dtype, page_table, seqlens, page_size, out):
    batch, width = page_table.shape
    pool_pages = pool.shape[0] // page_size
    marks = torch.zeros(pool_pages, dtype=torch.int32, device=pool.device)
    programs = max(1, min(triton.cdiv(width, 128), 64))
    _MARK_PAGES[(batch, programs)](
        page_table,
        page_table.stride(0),
        seqlens,
        width,
        page_size,
        marks,
        BLOCK=128,
    )
    slots = torch.cumsum(marks > 0, 0, dtype=torch.int32)
    remapped = torch.zeros_like(page_table)
    _convert(
        pool,
        out,
        _lut(pool, dtype),
        page_table,
        page_table.stride(0),
        seqlens,
        page_size,
        remap=(marks, slots, remapped),
    )
    return remapped


# [compact]
def _convert(pool, out, lut, table, stride, counts, page_size, remap=None):
    """Launch the conversion kernel over `table`'s rows of pages (one per count)."""
    batch, width = table.shape
    row = pool[0].numel()
    columns = next((c for c in (256, 128, 64, 32) if row % c == 0), None)
    columns = columns or triton.next_power_of_2(row)
    blocks = triton.cdiv(width * page_size, 32)
    programs = max(1, min(blocks, 1024 // batch or 1))
    marks, slots, remapped = remap or (table, table, table)
    _CONVERT[(batch, programs)](
        pool.view(torch.uint8),
        out,
        lut,
        table,
        stride,
        counts,
        width,
        page_size,
        pool.shape[0] // page_size,
        marks,
        slots,
        remapped,
        remapped.stride(0),
        row,
        REMAP=remap is not None,
        BLOCK_R=32,
        BLOCK_C=columns,
    )


# [compact]
def _mark_pages_kernel(
    table,
    stride,
    seqlens,
    width,
    page_size,
    marks,
    BLOCK: tl.constexpr,
):
    """marks[page] = the last entry (b * width + j + 1) that reads the page."""
    b = tl.program_id(0)
    pages = (tl.load(seqlens + b) + page_size - 1) // page_size
    pages = tl.minimum(pages, width)
    first, step = tl.program_id(1) * BLOCK, tl.num_programs(1) * BLOCK
    for start in range(first, pages, step):
        j = start + tl.arange(0, BLOCK)
        live = j < pages
        page = tl.load(table + b * stride + j, mask=live, other=0)
        tl.atomic_max(marks + page, b * width + j + 1, mask=live)


# [compact]
def _convert_kernel(
    src,
    dst,
    lut,
    table,
    stride,
    counts,
    width,
    page_size,
    pool_pages,
    marks,
    slots,
    remapped,
    remapped_stride,
    row,
    REMAP: tl.constexpr,
    BLOCK_R: tl.constexpr,
    BLOCK_C: tl.constexpr,
):
    """dst = lut[src] for the rows of the pages table[b, :ceil(counts[b] / page_size)]
    lists (every page when counts[b] < 0); counts are read on the device. Without
    REMAP the rows keep their positions; with it, a page goes to its compact slot
    (slots[page] - 1, written to remapped[b]) and only the entry that marked it
    converts it."""
    b = tl.program_id(0)
    count = tl.load(counts + b)
    pages = tl.minimum((count + page_size - 1) // page_size, width)
    pages = tl.where(count < 0, pool_pages, pages)
    rows = pages * page_size
    first, step = tl.program_id(1) * BLOCK_R, tl.num_programs(1) * BLOCK_R
    for start in range(first, rows, step):
        i = start + tl.arange(0, BLOCK_R)
        live = i < rows
        j = i // page_size
        listed = live & (count >= 0)
        page = tl.load(table + b * stride + j, mask=listed, other=0)
        page = tl.where(count < 0, j, page)
        page = tl.minimum(tl.maximum(page, 0), pool_pages - 1)
        if REMAP:
            slot = tl.load(slots + page, mask=live, other=1) - 1
            first_row = live & (i % page_size == 0)
            tl.store(remapped + b * remapped_stride + j, slot, mask=first_row)
            mark = tl.load(marks + page, mask=live, other=0)
            owner = mark == b * width + j + 1
            live = live & owner
        else:
            slot = page
        source = (page.to(tl.int64) * page_size + i % page_size) * row
        target = (slot.to(tl.int64) * page_size + i % page_size) * row
        for c in range(0, row, BLOCK_C):
            cols = c + tl.arange(0, BLOCK_C)
            mask = live[:, None] & (cols < row)[None, :]
            at = source[:, None] + cols[None, :]
            byte = tl.load(src + at, mask=mask, other=0)
            value = tl.load(lut + byte.to(tl.int32), mask=mask)
            tl.store(dst + target[:, None] + cols[None, :], value, mask=mask)


# [compact]
_MARK_PAGES = triton.jit(_mark_pages_kernel) if triton is not None else None
# [compact]
_CONVERT = triton.jit(_convert_kernel) if triton is not None else None
