"""`castlint validate` for the paged-read fix: FA3/FA4, xpu and musa MLA backends.

The original and the fixed backend file run side by side, each its own code line for
line (sglang doubled, as for the FlashInfer MLA backend), on one FP8 pool, page
table and query per cell; the fixed one with the module the fix adds
(`read_kv_pages`). The attention kernel is a stand-in that honours the contract of
sgl-kernel's `flash_attn_with_kvcache` (request b reads exactly
`page_table[b, :ceil(cache_seqlens[b] / page_size)]`): on a GPU FlashInfer's BF16 MLA
(`BatchMLAPagedAttentionWrapper`), on the CPU a torch reference. sgl-kernel's FA3
cannot be carried to the machine (its wheel is 373 MB, built for another torch), and
flash-attn-4's CuTe kernels reject head_dim_v 512 on SM90. The report names the kernel.

Per cell: both outputs against an fp32 reference (tolerance), the fixed output
against the original (bit for bit: the same rows in the same order), the time of
conversion plus attention for each, and the conversion alone.
"""

from __future__ import annotations

import math
import time
import types
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence

import torch

from castlint.validate.doubles import MLAPoolDouble, Namespace, Registry, RuntimeSettings, StubbedImports
from castlint.validate.loader import LoadError, load_file_module

BACKEND_MODULE = "sglang.srt.layers.attention.flashattention_backend"
STANDIN_GPU = (
    "stand-in: FlashInfer BatchMLAPagedAttentionWrapper (BF16 MLA), reading the pages the page table "
    "lists (sgl-kernel's FA3 is not on this machine)"
)
STANDIN_CPU = "stand-in: a torch paged MLA reference (fp32), reading the pages the page table lists"
# (batch, context) of a sweep, at each pool and page size
SWEEP_SHAPES = ((1, 4096), (1, 16384), (8, 4096), (32, 4096), (64, 2048), (16, 16384))


class PagedValidationError(Exception):
    """The backend could not be loaded or driven; says why."""


@dataclass
class PagedCell:
    pool: int
    page_size: int
    batch: int
    context: int
    kernel: str
    equal: Optional[bool] = None  # fixed output == original output, bit for bit
    max_abs_original: Optional[float] = None
    max_abs_fixed: Optional[float] = None
    original_ms: Optional[float] = None
    fixed_ms: Optional[float] = None
    convert_original_ms: Optional[float] = None
    convert_fixed_ms: Optional[float] = None
    spread: Dict[str, List[float]] = field(default_factory=dict)  # p10, p90 per timing
    compact: Optional[bool] = None  # the fixed backend read through a remapped table
    status: str = "pass"  # pass | fail | error
    note: str = ""

    @property
    def speedup(self) -> Optional[float]:
        if self.original_ms and self.fixed_ms:
            return self.original_ms / self.fixed_ms
        return None


# -- the stand-in kernel ------------------------------------------------------------------


def paged_view(flat, page_size):
    """sglang's paged_view: [slots, ...] -> [slots // page_size, page_size, ...], a view."""
    slot = flat.stride(0)
    return flat.as_strided(
        (flat.shape[0] // page_size, page_size, *flat.shape[1:]), (slot * page_size, slot, *flat.stride()[1:])
    )


def _live_pages(page_table, seqlens, page_size):
    pages = [math.ceil(int(n) / page_size) for n in seqlens.tolist()]
    return [page_table[b, :n] for b, n in enumerate(pages)], pages


class StandInKernel:
    """flash_attn_with_kvcache for absorbed MLA (q = the rope part, qv = the latent part,
    k_cache / v_cache the paged rope / latent caches), recording the tables it was given."""

    def __init__(self, device: str):
        self.device = device
        self.tables: List[Any] = []
        self._plans: Dict[tuple, Any] = {}
        self.epoch = 0

    def new_epoch(self) -> None:
        """One side of one cell: every call in it passes a page table of the same contents (the
        fixed backend's remapped table is a new tensor each call), so the stand-in plans once,
        at the first call, and times only attention afterwards (plan() syncs with the host;
        FlashInfer copies the indices at plan time, run() does not read the table)."""
        self.epoch += 1
        self._plans.clear()

    def __call__(
        self,
        q=None,
        k_cache=None,
        v_cache=None,
        k=None,
        v=None,
        qv=None,
        *args,
        page_table=None,
        cache_seqlens=None,
        softmax_scale=None,
        return_softmax_lse=False,
        **kwargs,
    ):
        if k is not None or v is not None:
            raise PagedValidationError("the stand-in kernel does not append new K/V (k=, v=)")
        self.tables.append(page_table)
        page_size = k_cache.shape[1]
        if self.device == "cuda":
            out = self._flashinfer(q, k_cache, v_cache, qv, page_table, cache_seqlens, softmax_scale, page_size)
        else:
            out = reference_attention(q, k_cache, v_cache, qv, page_table, cache_seqlens, softmax_scale, page_size).to(
                qv.dtype
            )
        return (out, None) if return_softmax_lse else out

    def mla_decode(self, q_nope, q_rope, kv_cache, cache_seqlens, page_table, workspace=None, scale=None, **kwargs):
        """flash_mla_decode (xpu): one paged cache of latent + rope rows."""
        latent = q_nope.shape[-1]
        cache = kv_cache.unsqueeze(2) if kv_cache.dim() == 3 else kv_cache
        return self(
            q=q_rope,
            k_cache=cache[..., latent:],
            v_cache=cache[..., :latent],
            qv=q_nope,
            page_table=page_table,
            cache_seqlens=cache_seqlens,
            softmax_scale=scale,
        )

    def _flashinfer(self, q, k_cache, v_cache, qv, page_table, seqlens, scale, page_size):
        from flashinfer.mla import BatchMLAPagedAttentionWrapper

        key = (tuple(page_table.shape), seqlens.data_ptr(), page_size, self.epoch)
        wrapper = self._plans.get(key)
        if wrapper is None:
            rows, pages = _live_pages(page_table, seqlens, page_size)
            bs = len(pages)
            device = page_table.device
            indptr = torch.tensor([0, *torch.tensor(pages).cumsum(0).tolist()], dtype=torch.int32, device=device)
            indices = torch.cat(rows).to(torch.int32)
            qo = torch.arange(bs + 1, dtype=torch.int32, device=device)
            workspace = torch.empty(128 << 20, dtype=torch.uint8, device=device)
            wrapper = BatchMLAPagedAttentionWrapper(workspace, backend="auto")
            wrapper.plan(
                qo,
                indptr,
                indices,
                seqlens.to(torch.int32),
                qv.shape[1],
                v_cache.shape[-1],
                k_cache.shape[-1],
                page_size,
                False,
                scale,
                qv.dtype,
                v_cache.dtype,
            )
            self._plans[key] = wrapper
        return wrapper.run(qv, q, v_cache.squeeze(2), k_cache.squeeze(2))


def reference_attention(q, k_cache, v_cache, qv, page_table, seqlens, scale, page_size):
    """fp32 absorbed MLA over the rows request b reads: its first seqlens[b] slots."""
    rows, _ = _live_pages(page_table, seqlens, page_size)
    outs = []
    for b, pages in enumerate(rows):
        n = int(seqlens[b])
        rope = k_cache[pages.long()].reshape(-1, k_cache.shape[-1])[:n].float()
        latent = v_cache[pages.long()].reshape(-1, v_cache.shape[-1])[:n].float()
        s = (qv[b].float() @ latent.T + q[b].float() @ rope.T) * scale
        outs.append(torch.softmax(s, -1) @ latent)
    return torch.stack(outs)


# -- loading and driving -------------------------------------------------------------------


def load_module(
    source: bytes, companion: Optional[bytes], companion_name: str, kernel: StandInKernel, filename: str
) -> types.ModuleType:
    """Execute a backend's source with sglang doubled, the stand-in kernel, and (for the fixed
    one) the module the fix adds, under the name the backend imports."""
    log: set = set()
    registry = Registry(RuntimeSettings(), log)
    registry.names.update(
        {"flash_attn_with_kvcache": kernel, "flash_mla_decode": kernel.mla_decode, "paged_view": paged_view}
    )
    module = types.ModuleType(module_name(filename))
    module.__file__ = filename
    module.__castlint_stubbed__ = missing = missing_imports(source)
    stubs = StubbedImports(registry, prefixes=("sglang", "sgl_kernel", *missing), extra={module.__name__: module})
    with stubs:
        if companion is not None:
            try:
                load_file_module(companion, companion_name)
            except LoadError as exc:
                raise PagedValidationError(str(exc)) from exc
        try:
            exec(compile(source, filename, "exec", dont_inherit=True), module.__dict__)
        except Exception as exc:  # noqa: BLE001 - the engine's own code: report what failed
            raise PagedValidationError(
                f"{filename} does not load with sglang doubled: {type(exc).__name__}: {exc}"
            ) from exc
    return module


def module_name(filename: str) -> str:
    """The dotted name of the file in its sglang tree (the backend's own name), or BACKEND_MODULE."""
    parts = filename.replace("\\", "/").split("/")
    if "sglang" in parts and filename.endswith(".py"):
        i = len(parts) - 1 - parts[::-1].index("sglang")
        return ".".join([*parts[i:-1], parts[-1][:-3]])
    return BACKEND_MODULE


def missing_imports(source: bytes) -> List[str]:
    """Top-level packages the file imports that this machine does not have (they are doubled)."""
    import ast
    import importlib.util

    roots = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            roots |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            roots.add(node.module.split(".")[0])
    missing = []
    for root in sorted(roots - {"sglang", "sgl_kernel", "torch", "flashinfer"}):
        try:
            found = importlib.util.find_spec(root) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            missing.append(root)
    return missing


def backend_class(module: types.ModuleType):
    for value in vars(module).values():
        if isinstance(value, type) and value.__module__ == module.__name__ and "forward_decode" in vars(value):
            return value
    raise PagedValidationError("no attention backend class (one that defines forward_decode) in the file")


@dataclass
class Shapes:
    heads: int = 16
    kv_lora_rank: int = 512
    rope: int = 64


def _backend(cls, pool, page_size, metadata, reads: set, kernel: "StandInKernel"):
    class Driven(cls):  # the engine's class, its __init__ skipped; attributes it reads and nobody set are None
        def __init__(self):
            pass

        def __getattr__(self, name):
            if name.startswith("__"):
                raise AttributeError(name)
            if name in kernels:  # the kernel bound in __init__ (`self.flash_attn_with_kvcache = ...`)
                return kernels[name]
            reads.add(name)
            return None

    kernels = {"flash_attn_with_kvcache": kernel, "flash_mla_decode": kernel.mla_decode}
    backend = Driven()
    for name, value in dict(
        token_to_kv_pool=pool,
        page_size=page_size,
        use_mla=True,
        fa_impl_ver=3,
        topk=1,
        num_splits=0,
        kv_cache_dtype_str="fp8_e4m3",
        kv_cache_dtype=pool.dtype,
        kv_cache_is_mxfp8=False,
        forward_metadata=metadata,
        dcp_size=1,
        dcp_rank=0,
        attn_cp_size=1,
        has_local_attention=False,
    ).items():
        setattr(backend, name, value)
    return backend


def _world(pool_tokens: int, page_size: int, batch: int, context: int, shapes: Shapes, device: str, seed: int = 0):
    g = torch.Generator(device="cpu").manual_seed(seed * 7919 + pool_tokens + page_size * 31 + batch * 3 + context)
    size = pool_tokens - pool_tokens % page_size
    pool = MLAPoolDouble(size, page_size, torch.float8_e4m3fn, shapes.kv_lora_rank, shapes.rope, 1, device)
    data = (torch.randn(pool.kv_buffer[0].shape, generator=g) * 0.5).to(torch.float8_e4m3fn)
    pool.kv_buffer[0].copy_(data.view(torch.uint8).to(device))
    per_request = math.ceil(context / page_size)
    pages = torch.randperm(size // page_size, generator=g)[: batch * per_request].to(torch.int32)
    if pages.numel() < batch * per_request:
        raise PagedValidationError(f"{batch} x {context} tokens do not fit a pool of {pool_tokens}")
    table = pages.view(batch, per_request).to(device)
    seqlens = torch.full((batch,), context, dtype=torch.int32, device=device)
    cu_k = torch.arange(0, (batch + 1) * context, context, dtype=torch.int32, device=device)
    metadata = Namespace(
        "forward_metadata",
        None,
        None,
        page_table=table,
        cache_seqlens_int32=seqlens,
        cu_seqlens_q=torch.arange(batch + 1, dtype=torch.int32, device=device),
        cu_seqlens_k=cu_k,
        max_seq_len_q=1,
        max_seq_len_k=context,
        local_attn_metadata=None,
    )
    dtype = torch.bfloat16
    q_nope = (torch.randn(batch, shapes.heads, shapes.kv_lora_rank, generator=g) * 0.5).to(dtype).to(device)
    q_rope = (torch.randn(batch, shapes.heads, shapes.rope, generator=g) * 0.5).to(dtype).to(device)
    layer = Namespace(
        "layer",
        None,
        None,
        layer_id=0,
        tp_q_head_num=shapes.heads,
        tp_k_head_num=1,
        tp_v_head_num=1,
        v_head_dim=shapes.kv_lora_rank,
        head_dim=shapes.kv_lora_rank + shapes.rope,
        qk_head_dim=shapes.kv_lora_rank + shapes.rope,
        scaling=1.0 / math.sqrt(192),
        logit_cap=0.0,
        sliding_window_size=None,
        attn_type="decoder",
        is_cross_attention=False,
        k_scale=None,
        v_scale=None,
    )
    batch_ns = Namespace(
        "forward_batch",
        None,
        None,
        batch_size=batch,
        spec_info=None,
        mha_return_lse=False,
        token_to_kv_pool=pool,
        forward_mode=Namespace(
            "forward_mode",
            None,
            None,
            is_target_verify=lambda: False,
            is_draft_extend=lambda: False,
            is_decode=lambda: True,
        ),
    )
    return pool, metadata, layer, batch_ns, q_nope, q_rope


# -- one cell ----------------------------------------------------------------------------------


@dataclass
class PagedConfig:
    device: str = "cuda"
    iters: int = 20
    warmup: int = 3
    flush_l2: bool = True
    atol: float = 1e-2
    rtol: float = 1e-2
    shapes: Shapes = field(default_factory=Shapes)


def run_cell(
    original: types.ModuleType,
    fixed: types.ModuleType,
    kernels: Dict[str, StandInKernel],
    cfg: PagedConfig,
    pool_tokens: int,
    page_size: int,
    batch: int,
    context: int,
) -> PagedCell:
    from castlint.validate.harness import time_call

    kernel = STANDIN_GPU if cfg.device == "cuda" else STANDIN_CPU
    cell = PagedCell(pool_tokens, page_size, batch, context, kernel)
    try:
        pool, metadata, layer, fb, q_nope, q_rope = _world(
            pool_tokens, page_size, batch, context, cfg.shapes, cfg.device
        )
    except PagedValidationError as exc:
        cell.status, cell.note = "error", str(exc)
        return cell
    reads: set = set()
    outputs, calls = {}, {}
    for side, module in (("original", original), ("fixed", fixed)):
        kernels[side].new_epoch()
        kernels[side].tables.clear()
        backend = _backend(backend_class(module), pool, page_size, metadata, reads, kernels[side])

        def call(b=backend):
            return b.forward_decode(q_nope, None, None, layer, fb, save_kv_cache=False, q_rope=q_rope)

        try:
            outputs[side] = call().float().view(batch, cfg.shapes.heads, -1).clone()
        except Exception as exc:  # noqa: BLE001 - the engine's code raised: a failed cell, with why
            import traceback

            where = traceback.extract_tb(exc.__traceback__)[-1]
            cell.status = "error"
            cell.note = f"{side}: {type(exc).__name__}: {str(exc)[:200]} (at {where.name}, line {where.lineno})"
            if reads:
                cell.note += "; unset backend attributes read as None: " + ", ".join(sorted(reads))
            return cell
        calls[side] = call
    cell.compact = any(t is not metadata.page_table for t in kernels["fixed"].tables)
    ref = reference_attention(
        q_rope,
        paged_view(pool.get_key_buffer(0)[:, :, cfg.shapes.kv_lora_rank :], page_size),
        paged_view(pool.get_key_buffer(0)[:, :, : cfg.shapes.kv_lora_rank], page_size),
        q_nope,
        metadata.page_table,
        metadata.cache_seqlens_int32,
        layer.scaling,
        page_size,
    )
    cell.equal = bool(torch.equal(outputs["original"], outputs["fixed"]))
    cell.max_abs_original = float((outputs["original"] - ref).abs().max())
    cell.max_abs_fixed = float((outputs["fixed"] - ref).abs().max())
    bound = cfg.atol + cfg.rtol * float(ref.abs().max())
    if cell.max_abs_fixed > max(bound, cell.max_abs_original):  # within tolerance, or no worse than the original
        cell.status = "fail"
        cell.note = f"fixed output off the fp32 reference by {cell.max_abs_fixed:.3g} (bound {bound:.3g})"
    timings = {"original": time_call(calls["original"], cfg), "fixed": time_call(calls["fixed"], cfg)}
    helper = vars(fixed).get("read_kv_pages")
    pool_view = pool.get_key_buffer(0)
    timings["convert_original"] = time_call(lambda: pool_view.to(torch.bfloat16), cfg)
    if helper is not None:
        timings["convert_fixed"] = time_call(
            lambda: helper(pool_view, torch.bfloat16, metadata.page_table, metadata.cache_seqlens_int32, page_size), cfg
        )
    for name, timing in timings.items():
        setattr(cell, f"{name}_ms", timing.median_ms)
        cell.spread[name] = [timing.p10_ms, timing.p90_ms]
    if reads:
        cell.note = (
            (cell.note + "; " if cell.note else "")
            + "unset backend attributes read as None: "
            + ", ".join(sorted(reads))
        )
    return cell


def run_paged_validation(
    original: bytes,
    patched: bytes,
    companion: bytes,
    companion_name: str,
    cfg: PagedConfig,
    grid: Sequence[tuple],
    filename: str = "<backend>",
    progress: Optional[Callable[[str], None]] = None,
) -> Dict[str, Any]:
    """Every (pool, page size, batch, context) of grid: the cells and what ran them."""
    kernels = {"original": StandInKernel(cfg.device), "fixed": StandInKernel(cfg.device)}
    first = load_module(original, None, companion_name, kernels["original"], filename)
    fixed = load_module(patched, companion, companion_name, kernels["fixed"], filename)
    cells = []
    for pool, page_size, batch, context in grid:
        started = time.perf_counter()
        cell = run_cell(first, fixed, kernels, cfg, pool, page_size, batch, context)
        cells.append(cell)
        if progress:
            progress(
                f"pool {pool} page {page_size} batch {batch} context {context}: {cell.status}"
                f"{'' if cell.speedup is None else f', {cell.speedup:.1f}x'} ({time.perf_counter() - started:.1f} s)"
            )
    return {
        "kind": "paged",
        "file": filename,
        "kernel": STANDIN_GPU if cfg.device == "cuda" else STANDIN_CPU,
        "doubled_imports": sorted(set(first.__castlint_stubbed__) | set(fixed.__castlint_stubbed__)),
        "environment": _environment(cfg),
        "cells": [dict(asdict(c), speedup=c.speedup) for c in cells],
        "passed": all(c.status == "pass" for c in cells),
    }


def _environment(cfg: PagedConfig) -> Dict[str, Any]:
    info: Dict[str, Any] = {"device": cfg.device, "torch": torch.__version__, "heads": cfg.shapes.heads}
    if cfg.device == "cuda":
        info["gpu"] = torch.cuda.get_device_name(0)
        try:
            import flashinfer

            info["flashinfer"] = flashinfer.__version__
        except ImportError:
            info["flashinfer"] = None
        try:
            import triton

            info["triton"] = triton.__version__
        except ImportError:
            info["triton"] = None
    return info


SPEED_MARGIN = 0.95  # a fixed cell slower than the original beyond this fails (on a GPU; CPU times are not speed)


def slower(result: Dict[str, Any], cell: Dict[str, Any]) -> bool:
    """Is this cell's fixed backend slower than the original beyond the margin, on a GPU?"""
    return (
        result["environment"].get("device") == "cuda" and cell["speedup"] is not None and cell["speedup"] < SPEED_MARGIN
    )


def passed(result: Dict[str, Any]) -> bool:
    return result["passed"] and not any(slower(result, c) for c in result["cells"])


def render_text(result: Dict[str, Any]) -> str:
    """The report: what ran, and one line per cell."""
    env = result["environment"]
    lines = [
        f"castlint validate (paged read): {result['file']}",
        f"attention kernel: {result['kernel']}",
        "doubled: sglang, sgl_kernel" + "".join(f", {m}" for m in result.get("doubled_imports", ())),
        "environment: " + ", ".join(f"{k} {v}" for k, v in env.items()),
        "",
    ]
    for c in result["cells"]:
        speed = (
            ""
            if c["speedup"] is None
            else (
                f" original {c['original_ms']:.4f} ms, fixed {c['fixed_ms']:.4f} ms ({c['speedup']:.1f}x); conversion "
                f"{c['convert_original_ms']:.4f} -> {c.get('convert_fixed_ms') or float('nan'):.4f} ms"
            )
        )
        verdict = "FAIL" if c["status"] != "pass" or slower(result, c) else "PASS"
        numbers = (
            ""
            if c["max_abs_fixed"] is None
            else (
                f" max|d| vs fp32 {c['max_abs_original']:.2e} / {c['max_abs_fixed']:.2e}, "
                f"{'equal' if c['equal'] else 'not bit-equal'}, {'compact' if c['compact'] else 'whole-pool'} read;"
            )
        )
        lines.append(
            f"{verdict} pool {c['pool']} page {c['page_size']} batch {c['batch']} context "
            f"{c['context']}:{numbers}{speed}" + (f" ({c['note']})" if c["note"] else "")
        )
    return "\n".join(lines) + "\n"


def sweep_grid(pools: Sequence[int], page_sizes: Sequence[int], shapes: Sequence[tuple] = SWEEP_SHAPES) -> List[tuple]:
    return [(pool, ps, bs, ctx) for pool in pools for ps in page_sizes for bs, ctx in shapes if bs * ctx <= 0.9 * pool]
