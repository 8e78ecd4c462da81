"""A pure-torch stand-in for FlashInfer's BatchMLAPagedAttentionWrapper.

`castlint validate --device cpu` runs the user's backend code against this class
instead of the CUDA kernels, so CI exercises the whole harness. It follows the
contract of the FlashInfer release it emulates (`FlashInferEmulation.version`)
as the run's tables state it; with the builtin rules/flashinfer.toml:

* the legacy positional ``plan(qo_indptr, kv_indptr, kv_indices, kv_len_arr,
  num_heads, head_dim_ckv, head_dim_kpe, page_size, causal, sm_scale,
  q_data_type, kv_data_type)`` and, from 0.7, the keyword form
  ``plan(metadata=MLAPlanMetadata.csr(...), num_heads=..., ...)``;
* ``run(q_nope, q_pe, ckv_cache, kpe_cache, out=..., ckv_scale=, kpe_scale=)``
  and, from 0.7, ``run(query=(q_nope, q_pe), kv_cache=(ckv, kpe), ...)``;
* before 0.6.14 an FP8 KV plan is refused (the kernels do not build for 1-byte
  KV) and run() has no scale arguments (passing one is a TypeError); a tensor
  whose dtype differs from the planned one is *reinterpreted*, which gives
  silently wrong output, as the real launcher does;
* from 0.6.14 run() rejects dtype mismatches, FP8 KV needs ckv_scale and
  kpe_scale, non-FP8 KV refuses them; FP8 is fa3-only in 0.6.14-0.6.17;
* the cuda-graph buffers and ``_cached_module.plan`` that sglang's
  ``fast_mla_decode_plan`` / ``fast_mla_prefill_plan`` call.

The arithmetic is the definition of MLA in float32: logits = (q_nope . ckv +
q_pe . kpe) * sm_scale, softmax over the request's pages (causal: query i of a
request sees kv positions <= kv_len - qo_len + i), out = p . ckv, with real =
stored x scale for FP8 KV.
"""
from __future__ import annotations

import math
import types
from dataclasses import dataclass, field
from typing import Any, Optional

import torch

from castlint.common.versions import parse_version



def dtype_name(dtype) -> str:
    """A torch dtype as the tables spell it: torch.float8_e4m3fn -> "float8_e4m3fn"."""
    return str(dtype).replace("torch.", "")


def newest_pinned_flashinfer(tables) -> str:
    """The FlashInfer that the newest sglang release of the tables pins ([[release]] rows)."""
    return tables.releases[-1][2]


@dataclass
class FlashInferEmulation:
    """What the CPU stand-in pretends to be: one FlashInfer release on one device.

    The release's contract comes from the run's tables (rules/flashinfer.toml and the config's
    extend-rules): the [[mla_signature]] row in force (keyword form, run() scales and dtype
    checks), the [[fp8_kv_mla]] row in force (which backends, compute capability, q and kv
    dtypes and head dims take FP8 KV; a key a row leaves out does not restrict), and
    [auto_backend] (what backend="auto" picks on the device)."""

    tables: Any  # castlint.tables.Tables: the ones the run loaded
    version: Optional[str] = None  # None: the FlashInfer the newest listed sglang release pins
    compute_capability: tuple = (9, 0)  # the emulated GPU: an SM90 part (H100/H200)
    device_name: str = ""  # "": "emulated SM90 (pure-torch reference MLA)", from compute_capability
    # every plan()/run() call, for the report
    calls: list = field(default_factory=list)

    def __post_init__(self):
        if self.version is None:
            self.version = newest_pinned_flashinfer(self.tables)
        if not self.device_name:
            major, minor = self.compute_capability[:2]
            self.device_name = f"emulated SM{major}{minor} (pure-torch reference MLA)"

    def _newest(self, rows, field_name: str):
        fitting = [r for r in rows if parse_version(r[field_name]) <= parse_version(self.version)]
        return max(fitting, key=lambda r: parse_version(r[field_name])) if fitting else None

    def fp8_kv(self):
        """The FP8-KV MLA row in force (None: no FP8-KV MLA kernel in this release)."""
        row = self._newest(self.tables.fp8_kv_rows(), "since")
        return row if row and row.get("backends") else None

    def is_fp8_kv(self, dtype) -> bool:
        """Is dtype an FP8 KV dtype: one some [[fp8_kv_mla]] row lists (in any release)?"""
        return dtype is not None and dtype_name(dtype) in {
            name for row in self.tables.fp8_kv_mla for name in row.get("kv_dtypes", ())}

    def signature(self):
        """The MLA wrapper signature row in force (None: older than every listed release)."""
        return self._newest(self.tables.mla_signatures, "version")

    @property
    def keyword_form(self) -> bool:
        sig = self.signature()
        return bool(sig and sig.get("keyword_form"))

    @property
    def run_scales(self) -> bool:
        sig = self.signature()
        return bool(sig and sig.get("run_scales"))

    @property
    def checks_run_dtypes(self) -> bool:
        sig = self.signature()
        return bool(sig and sig.get("run_checks_dtypes"))

    def auto_backend(self) -> str:
        """What backend="auto" resolves to on the emulated device ([auto_backend]; else fa2)."""
        major, minor = self.compute_capability[:2]
        return self.tables.auto_backend.get(f"sm{major}{minor}", self.tables.auto_backend.get("other"))


class MLAPlanMetadata:
    """The plan metadata of the keyword form, plan(metadata=...) (CSR form only)."""

    def __init__(self, qo_indptr=None, kv_indptr=None, kv_indices=None, kv_len_arr=None, **_):
        self.qo_indptr, self.kv_indptr, self.kv_indices, self.kv_len_arr = qo_indptr, kv_indptr, kv_indices, kv_len_arr

    @classmethod
    def csr(cls, qo_indptr, kv_indptr, kv_indices, kv_len_arr, **kw):
        return cls(qo_indptr, kv_indptr, kv_indices, kv_len_arr)


_PLAN_POSITIONAL = ("qo_indptr", "kv_indptr", "kv_indices", "kv_len_arr", "num_heads", "head_dim_ckv",
                    "head_dim_kpe", "page_size", "causal", "sm_scale", "q_data_type", "kv_data_type", "use_profiler")
_RUN_POSITIONAL = ("q_nope", "q_pe", "ckv_cache", "kpe_cache", "out", "lse", "return_lse", "profiler_buffer",
                   "kv_len", "page_table", "return_lse_base_on_e")


# The fp32 scores of one chunk of queries ([queries, heads, kv]) are bounded by this many bytes, so a
# long prefill (8,192 new tokens over 32,768 of context, 64 heads) never holds its whole score matrix.
REFERENCE_CHUNK_BYTES = 256 << 20


def mla_reference(q_nope, q_pe, ckv, kpe, qo_indptr, kv_indptr, kv_indices, sm_scale, causal,
                  ckv_scale: float = 1.0, kpe_scale: float = 1.0, page_size: int = 1, kv_lens=None,
                  chunk_bytes: int = REFERENCE_CHUNK_BYTES):
    """float32 MLA over paged KV. Returns (out float32 [T, H, D], lse base-2 [T, H]).

    kv_lens: the planned KV length per request (FlashInfer's kv_len_arr), which the kernel
    attends; kv_indptr only places each request's pages. None: the pages' extent. Causal:
    query i of a request of qo_len queries sees kv positions <= kv_len - qo_len + i; a query
    that sees none gets 0 (lse -inf), as FlashInfer's kernels give. The queries of a request
    are taken in chunks whose fp32 scores stay within chunk_bytes."""
    qo = [int(x) for x in qo_indptr.cpu()]
    kvp = [int(x) for x in kv_indptr.cpu()]
    lens = [int(x) for x in kv_lens.cpu()] if kv_lens is not None else None
    tokens, heads, dim = q_nope.shape
    out = torch.zeros(tokens, heads, dim, dtype=torch.float32, device=q_nope.device)
    lse = torch.full((tokens, heads), float("-inf"), dtype=torch.float32, device=q_nope.device)
    for request in range(len(qo) - 1):
        q0, q1 = qo[request], qo[request + 1]
        if q1 == q0:
            continue
        end = kvp[request + 1]
        if lens is not None and request < len(lens) and page_size == 1:
            end = kvp[request] + min(max(lens[request], 0), kvp[request + 1] - kvp[request])
        rows = _page_rows(kv_indices[kvp[request]:end].long(), page_size)
        ckv_real = ckv.reshape(-1, ckv.shape[-1]).index_select(0, rows.to(ckv.device)).float() * ckv_scale
        kpe_real = kpe.reshape(-1, kpe.shape[-1]).index_select(0, rows.to(kpe.device)).float() * kpe_scale
        step = max(1, chunk_bytes // max(1, 4 * heads * ckv_real.shape[0]))
        for c0 in range(q0, q1, step):
            c1 = min(q1, c0 + step)
            # query c of the request sits at c - q0 of its q1 - q0 queries
            first = c0 - q0 + ckv_real.shape[0] - (q1 - q0) if causal else None
            out[c0:c1], lse[c0:c1] = _attend_rows(q_nope[c0:c1].float(), q_pe[c0:c1].float(), ckv_real, kpe_real,
                                                  sm_scale, first)
    return out, lse


def _page_rows(pages, page_size: int):
    """The pool rows of a request's pages."""
    if page_size == 1:
        return pages
    return (pages[:, None] * page_size + torch.arange(page_size, device=pages.device)[None]).reshape(-1)


def _attend_rows(q_nope, q_pe, ckv, kpe, sm_scale: float, causal_first: Optional[int]):
    """MLA of a chunk of one request's queries over its kv rows (fp32): (out [c, H, D], lse [c, H]).
    causal_first: the last kv position the chunk's first query sees (None: not causal)."""
    logits = (torch.einsum("thd,kd->thk", q_nope, ckv) + torch.einsum("thd,kd->thk", q_pe, kpe)) * sm_scale
    blind = None
    if causal_first is not None:
        limit = causal_first + torch.arange(q_nope.shape[0], device=logits.device)
        pos = torch.arange(ckv.shape[0], device=logits.device)
        logits.masked_fill_((pos[None, :] > limit[:, None])[:, None, :], float("-inf"))
        blind = limit < 0  # a query that sees no kv (a capture-time shape shorter than its queries)
    lse = torch.logsumexp(logits, dim=-1) / math.log(2.0)
    out = torch.einsum("thk,kd->thd", torch.softmax(logits, dim=-1), ckv)
    if blind is not None and bool(blind.any()):
        out[blind] = 0.0
    return out, lse


def _as_kernel_int32(t):
    """A host index array as FlashInfer's C++ plan reads it: int32 elements from its storage.

    An int64 tensor is not converted there but misread (its words taken as int32), which a
    caller passing `seq_lens_cpu` without `.to(torch.int32)` gets, silently."""
    t = t.detach().clone()
    if t.dtype == torch.int32:
        return t
    if t.dtype == torch.int64:
        return t.contiguous().view(torch.int32)[: t.numel()].clone()
    return t.to(torch.int32)


class _PlanOp:
    """`wrapper._cached_module.plan` as sglang's fast_mla_*_plan helpers call it
    (FlashInfer 0.2.x exposed the op as `plan.default`; both spellings work)."""

    def __init__(self, wrapper):
        self._wrapper = wrapper
        self.default = self

    def __call__(self, float_ws, int_ws, pin_ws, qo_indptr_host, kv_indptr_host, kv_len_arr_host, num_heads,
                 head_dim_o, causal, *rest):
        wrapper = self._wrapper
        wrapper._plan_info = tuple(_as_kernel_int32(t) for t in (qo_indptr_host, kv_indptr_host, kv_len_arr_host))
        wrapper._causal = causal
        return wrapper._plan_info


class _CachedModule:
    def __init__(self, wrapper):
        self.plan = _PlanOp(wrapper)


class ReferenceMLAWrapper:
    """BatchMLAPagedAttentionWrapper as the emulated FlashInfer release has it (make_wrapper_class binds
    the release): plan() and run() take and check their arguments as that release does, then run()
    computes the reference MLA."""

    _castlint_emulation: FlashInferEmulation  # set by make_wrapper_class

    def __init__(self, float_workspace_buffer, use_cuda_graph=False, qo_indptr=None, kv_indptr=None,
                 kv_indices=None, kv_len_arr=None, backend="auto"):
        self._float_workspace_buffer = float_workspace_buffer
        self.device = float_workspace_buffer.device
        self._int_workspace_buffer = torch.empty(16, dtype=torch.uint8)
        self._pin_memory_int_workspace_buffer = torch.empty(16, dtype=torch.uint8)
        self._use_cuda_graph = use_cuda_graph
        self._qo_indptr_buf, self._kv_indptr_buf = qo_indptr, kv_indptr
        self._kv_indices_buf, self._kv_len_arr_buf = kv_indices, kv_len_arr
        self._backend = self._castlint_emulation.auto_backend() if backend == "auto" else backend
        self._q_data_type = self._kv_data_type = None
        self._plan_info = None
        self._planned = False

    def plan(self, *args, **kwargs):
        emu = self._castlint_emulation
        planned = _plan_arguments(emu, args, kwargs)
        emu.calls.append(("plan", self._backend, planned.q_data_type, planned.kv_data_type))
        _check_plan_dtypes(emu, self._backend, planned)
        self._cached_module = _CachedModule(self)
        _store_plan(self, planned)

    begin_forward = plan

    def run(self, *args, query=None, kv_cache=None, ckv_scale=None, kpe_scale=None, ckv_scale_arr=None,
            o_scale=None, **kwargs):
        emu = self._castlint_emulation
        given = _run_arguments(emu, args, query, kv_cache, kwargs)
        scales_given = any(k is not None for k in (ckv_scale, kpe_scale, ckv_scale_arr))
        if not emu.run_scales and scales_given:
            raise TypeError(f"FlashInfer {emu.version}: run() got an unexpected keyword argument 'ckv_scale'")
        if not self._planned:
            raise RuntimeError("run() before plan()")
        emu.calls.append(("run", self._backend, given.q_nope.dtype, given.ckv_cache.dtype, ckv_scale, kpe_scale))
        q_nope, q_pe, ckv, kpe = given.q_nope, given.q_pe, given.ckv_cache, given.kpe_cache
        ckv_real_scale = kpe_real_scale = 1.0
        if emu.checks_run_dtypes:
            _check_run_dtypes(self, q_nope, q_pe, ckv, kpe)
            if emu.is_fp8_kv(self._kv_data_type):
                ckv_real_scale, kpe_real_scale = _fp8_scales(ckv_scale, kpe_scale, ckv_scale_arr)
            elif scales_given:
                raise ValueError("ckv_scale / kpe_scale / ckv_scale_arr are only supported with an fa2/fa3 "
                                 "backend and FP8 kv_data_type.")
        else:
            # The launcher reinterprets storage by the planned dtype: a
            # mismatch is silently wrong, never an error.
            ckv, kpe = _reinterpret(ckv, self._kv_data_type), _reinterpret(kpe, self._kv_data_type)
        return _attend(self, given, q_nope, q_pe, ckv, kpe, ckv_real_scale, kpe_real_scale)

    forward = run


def make_wrapper_class(emu: FlashInferEmulation) -> type:
    """A BatchMLAPagedAttentionWrapper class bound to one emulated FlashInfer."""
    return type("BatchMLAPagedAttentionWrapper", (ReferenceMLAWrapper,),
                {"_castlint_emulation": emu, "__module__": __name__})


def _plan_arguments(emu: FlashInferEmulation, args: tuple, kwargs: dict) -> types.SimpleNamespace:
    """plan()'s arguments by name, from the positional form or (from the release that has it) the
    keyword form with `metadata=`; a TypeError as Python gives for a call the signature refuses."""
    if "metadata" in kwargs:
        if not emu.keyword_form:
            raise TypeError("plan() got an unexpected keyword argument 'metadata'")
        metadata = kwargs.pop("metadata")
        kwargs.update(qo_indptr=metadata.qo_indptr, kv_indptr=metadata.kv_indptr, kv_indices=metadata.kv_indices,
                      kv_len_arr=metadata.kv_len_arr)
    for name, value in zip(_PLAN_POSITIONAL, args):
        if name in kwargs:
            raise TypeError(f"plan() got multiple values for argument {name!r}")
        kwargs[name] = value
    planned = types.SimpleNamespace(use_profiler=False, **kwargs)
    missing = [n for n in _PLAN_POSITIONAL[:-1] if not hasattr(planned, n)]
    if missing:
        raise TypeError(f"plan() missing required arguments: {', '.join(missing)}")
    return planned


def _check_plan_dtypes(emu: FlashInferEmulation, backend: str, planned: types.SimpleNamespace) -> None:
    """The dtype checks of plan(): FP8 KV only where the release's FP8-KV MLA row allows it."""
    if emu.is_fp8_kv(planned.kv_data_type):
        row = emu.fp8_kv()
        if row is None:
            raise RuntimeError(f"FlashInfer {emu.version}: MLA kernels do not build for 1-byte KV "
                               f"(kv_data_type={planned.kv_data_type}); no FP8-KV MLA in this release")
        _check_fp8_kv_plan(emu, row, backend, planned)
    elif planned.kv_data_type not in (torch.float16, torch.bfloat16):
        raise ValueError(f"MLA kv_data_type {planned.kv_data_type} is not supported.")


def _check_fp8_kv_plan(emu: FlashInferEmulation, row: dict, backend: str, planned: types.SimpleNamespace) -> None:
    """An FP8 KV plan() against the [[fp8_kv_mla]] row in force, with FlashInfer's error texts."""
    if backend not in row["backends"]:
        raise ValueError(f"FP8 kv_data_type for MLA is only supported with the "
                         f"{' or '.join(row['backends'])} backend, got backend={backend!r}.")
    required = row.get("compute_capability")
    if required and emu.compute_capability[0] != required[0]:
        raise ValueError(f"FP8 kv_data_type for MLA requires an SM{''.join(map(str, required))} device, got "
                         f"SM{emu.compute_capability[0]}{emu.compute_capability[1]}.")
    for kind, allowed in (("q_data_type", row.get("q_dtypes")), ("kv_data_type", row.get("kv_dtypes"))):
        given = getattr(planned, kind)
        if allowed and dtype_name(given) not in allowed:
            which = f"={_torch_names(allowed)}" if len(allowed) == 1 else f" in ({_torch_names(allowed)})"
            raise ValueError(f"FP8 kv_data_type for MLA currently only supports {kind}{which}, got {given}.")
    ckv_dims, kpe_dims = row.get("head_dim_ckv"), row.get("head_dim_kpe")
    if (ckv_dims and planned.head_dim_ckv not in ckv_dims) or (kpe_dims and planned.head_dim_kpe not in kpe_dims):
        raise ValueError(f"FP8 kv_data_type for MLA currently only supports head_dim_ckv in {ckv_dims or 'any'} "
                         f"and head_dim_kpe in {kpe_dims or 'any'}, got {planned.head_dim_ckv}/{planned.head_dim_kpe}.")


def _torch_names(names) -> str:
    return ", ".join(f"torch.{name}" for name in names)


def _store_plan(wrapper: ReferenceMLAWrapper, planned: types.SimpleNamespace) -> None:
    """What plan() keeps for run(): the index arrays (in the cuda-graph buffers when the wrapper has
    them), the shapes, the dtypes, and the host arrays as the kernel reads them."""
    if wrapper._use_cuda_graph:
        wrapper._qo_indptr_buf.copy_(planned.qo_indptr)
        wrapper._kv_indptr_buf.copy_(planned.kv_indptr)
        wrapper._kv_indices_buf[: len(planned.kv_indices)].copy_(planned.kv_indices)
        wrapper._kv_len_arr_buf.copy_(planned.kv_len_arr)
    else:
        wrapper._qo_indptr_buf = planned.qo_indptr.to(wrapper.device)
        wrapper._kv_indptr_buf = planned.kv_indptr.to(wrapper.device)
        wrapper._kv_indices_buf = planned.kv_indices.to(wrapper.device)
        wrapper._kv_len_arr_buf = planned.kv_len_arr.to(wrapper.device)
    wrapper._causal, wrapper._page_size, wrapper._sm_scale = planned.causal, planned.page_size, planned.sm_scale
    wrapper._head_dim_ckv = planned.head_dim_ckv
    wrapper._q_data_type, wrapper._kv_data_type = planned.q_data_type, planned.kv_data_type
    wrapper._plan_info = tuple(_as_kernel_int32(t.cpu())
                               for t in (planned.qo_indptr, planned.kv_indptr, planned.kv_len_arr))
    wrapper._planned = True


def _run_arguments(emu: FlashInferEmulation, args: tuple, query, kv_cache, kwargs: dict) -> types.SimpleNamespace:
    """run()'s tensors by name, from the positional form or (from the release that has it) the
    keyword form `query=(q_nope, q_pe), kv_cache=(ckv, kpe)`."""
    if query is not None or kv_cache is not None:
        if not emu.keyword_form:
            raise TypeError("run() got an unexpected keyword argument 'query'")
        kwargs["q_nope"], kwargs["q_pe"] = query
        kwargs["ckv_cache"], kwargs["kpe_cache"] = kv_cache
    for name, value in zip(_RUN_POSITIONAL, args):
        kwargs[name] = value
    return types.SimpleNamespace(**{"out": None, "lse": None, "return_lse": False, **kwargs})


def _check_run_dtypes(wrapper: ReferenceMLAWrapper, q_nope, q_pe, ckv, kpe) -> None:
    """run() refuses tensors whose dtype differs from the planned one (the releases that check)."""
    for name, tensor, want in (("q_nope", q_nope, wrapper._q_data_type), ("q_pe", q_pe, wrapper._q_data_type),
                               ("ckv_cache", ckv, wrapper._kv_data_type), ("kpe_cache", kpe, wrapper._kv_data_type)):
        if tensor.dtype != want:
            kind = "q_data_type" if name.startswith("q") else "kv_data_type"
            raise ValueError(f"{name}.dtype={tensor.dtype} does not match the planned {kind}={want}.")


def _fp8_scales(ckv_scale, kpe_scale, ckv_scale_arr) -> tuple:
    """(ckv, kpe) scales of an FP8 KV run(): real = stored x scale; both required, finite, positive."""
    if (ckv_scale is None) == (ckv_scale_arr is None):
        raise ValueError("Exactly one of ckv_scale or ckv_scale_arr is required when kv_data_type is FP8.")
    if kpe_scale is None:
        raise ValueError("kpe_scale is required when kv_data_type is FP8.")
    ckv_value = float(ckv_scale) if ckv_scale is not None else float(ckv_scale_arr.reshape(-1)[0])
    kpe_value = float(kpe_scale)
    for name, value in (("ckv_scale", ckv_value), ("kpe_scale", kpe_value)):
        if not math.isfinite(value) or value <= 0.0:
            raise ValueError(f"{name} must be a finite positive value, got {value}")
    return ckv_value, kpe_value


def _attend(wrapper: ReferenceMLAWrapper, given: types.SimpleNamespace, q_nope, q_pe, ckv, kpe,
            ckv_scale: float, kpe_scale: float):
    """The reference MLA over the planned pages: the output (in `out=` when given), and the lse on request."""
    qo_indptr, kv_indptr, kv_lens = wrapper._plan_info
    # The reference's own arithmetic stands for one fused kernel: keep it
    # out of the byte trace (proof.ByteTracer), as FlashInfer's kernels are.
    with _untraced():
        out, lse = mla_reference(q_nope, q_pe, ckv, kpe, qo_indptr, kv_indptr, wrapper._kv_indices_buf,
                                 wrapper._sm_scale, wrapper._causal, ckv_scale, kpe_scale, wrapper._page_size,
                                 kv_lens=kv_lens)
        out = out.to(q_nope.dtype)
        if given.out is not None:
            given.out.copy_(out)
            out = given.out
    if given.return_lse:
        return out, lse
    return out


def _untraced():
    try:
        from torch.utils._python_dispatch import _disable_current_modes

        return _disable_current_modes()
    except ImportError:  # pragma: no cover - older torch
        import contextlib

        return contextlib.nullcontext()


def _reinterpret(t: torch.Tensor, planned) -> torch.Tensor:
    """What a kernel templated on `planned` reads from `t`'s bytes (a release whose run() does not
    check dtypes)."""
    if planned is None or t.dtype == planned:
        return t
    if t.element_size() == 1 and torch.empty((), dtype=planned).element_size() == 2:
        raw = t.contiguous().view(torch.uint8).float()
        return (raw - 128.0)  # garbage of the right shape: bytes read as numbers
    return t.to(planned)


class RaggedWrapperStandIn:
    """BatchPrefillWithRaggedKVCacheWrapper: constructed by the backend, never
    used on the paths castlint validates (ragged prefill is not rewritten)."""

    def __init__(self, *args, **kwargs):
        pass

    def begin_forward(self, *args, **kwargs):
        pass

    plan = begin_forward

    def forward(self, *args, **kwargs):
        raise RuntimeError("castlint validate: the ragged prefill path is not part of the validated sites")

    forward_return_lse = forward


def make_flashinfer_module(emu: FlashInferEmulation) -> types.ModuleType:
    """A module named `flashinfer` holding the stand-ins, for --device cpu."""
    mod = types.ModuleType("flashinfer")
    mod.__version__ = emu.version
    mod.__file__ = __file__
    mod.BatchMLAPagedAttentionWrapper = make_wrapper_class(emu)
    mod.BatchPrefillWithRaggedKVCacheWrapper = RaggedWrapperStandIn
    mod.BatchDecodeWithPagedKVCacheWrapper = RaggedWrapperStandIn
    mod.BatchPrefillWithPagedKVCacheWrapper = RaggedWrapperStandIn
    mod.MLAPlanMetadata = MLAPlanMetadata
    mla = types.ModuleType("flashinfer.mla")
    mla.BatchMLAPagedAttentionWrapper = mod.BatchMLAPagedAttentionWrapper
    mla.MLAPlanMetadata = MLAPlanMetadata
    mod.mla = mla
    return mod
