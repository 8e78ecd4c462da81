"""The double of FlashInfer: BatchMLAPagedAttentionWrapper as one release has it.

One double, used by `castlint validate --device cpu` (real torch, the reference MLA of
castlint.validate.doubles.mla) and by castlint's own tests (tests/faketorch, on the
pure-Python fake torch, with its float64 kernel). It follows the contract of the FlashInfer
release it emulates (`FlashInferEmulation.version`) as the run's tables state it
(rules/flashinfer.toml and the config's extend-rules); nothing about a release is written
here. With the builtin tables:

* the legacy positional ``plan(qo_indptr, kv_indptr, kv_indices, kv_len_arr,
  num_heads, head_dim_ckv, head_dim_kpe, page_size, causal, sm_scale,
  q_data_type, kv_data_type)`` ([[mla_signature]] `plan_positional`) and, from 0.7,
  the keyword form ``plan(metadata=MLAPlanMetadata.csr(...), num_heads=..., ...)``
  (`keyword_form`, `plan_metadata`, `plan_layouts`);
* ``run(q_nope, q_pe, ckv_cache, kpe_cache, out=..., ckv_scale=, kpe_scale=)``
  and, from 0.7, ``run(query=(q_nope, q_pe), kv_cache=(ckv, kpe), ...)`` (`run_keywords`);
* before 0.6.14 an FP8 KV plan is refused (the kernels do not build for 1-byte
  KV) and run() has no scale parameters (passing one is a TypeError); a tensor
  whose dtype differs from the planned one is *reinterpreted*, which gives
  silently wrong output, as the real launcher does;
* from 0.6.14 run() rejects dtype mismatches (`run_checks_dtypes`), FP8 KV needs
  ckv_scale and kpe_scale, non-FP8 KV refuses them; FP8 KV only where the
  [[fp8_kv_mla]] row in force allows it (fa3-only in 0.6.14-0.6.17, SM90, q bf16,
  head dims 512/64);
* the cuda-graph buffers and ``_cached_module.plan`` that sglang's
  ``fast_mla_decode_plan`` / ``fast_mla_prefill_plan`` call.

Every plan(), fast re-plan, run() and ragged forward is appended to the emulation's
`calls` as a dict (kind, wrapper, form, dtypes, backend, scales). The arithmetic is a
`Kernel` (the MLA definition of castlint.validate.doubles.mla): real = stored x scale for
FP8 KV.
"""

from __future__ import annotations

import math
import types
from dataclasses import dataclass, field
from typing import Any, Optional

from castlint.common.versions import parse_version
from castlint.validate.doubles.backend_torch import current_torch
from castlint.validate.doubles.mla import TorchKernel


def dtype_name(dtype) -> str:
    """A torch dtype as the tables spell it: torch.float8_e4m3fn -> "float8_e4m3fn"."""
    return str(dtype).replace("torch.", "")


def newest_pinned_flashinfer(tables) -> str:
    """The FlashInfer that the newest sglang release of the tables pins ([[release]] rows)."""
    return tables.releases[-1][2]


@dataclass
class FlashInferEmulation:
    """What the stand-in pretends to be: one FlashInfer release on one device.

    The release's contract comes from the run's tables (rules/flashinfer.toml and the config's
    extend-rules): the [[mla_signature]] row in force (parameter names, keyword form, run() scales
    and dtype checks), the [[fp8_kv_mla]] row in force (which backends, compute capability, q and kv
    dtypes and head dims take FP8 KV; a key a row leaves out does not restrict), and
    [auto_backend] (what backend="auto" picks on the device)."""

    tables: Any  # castlint.tables.Tables: the ones the run loaded
    version: Optional[str] = None  # None: the FlashInfer the newest listed sglang release pins
    compute_capability: tuple = (9, 0)  # the emulated GPU: an SM90 part (H100/H200)
    device_name: str = ""  # "": "emulated SM90 (<the kernel's name>)", from compute_capability
    # every plan()/run() call, as a dict, for the report and the tests
    calls: list = field(default_factory=list)
    kernel: Any = None  # the arithmetic (castlint.validate.doubles.mla); None: TorchKernel()
    torch: Any = None  # the torch of the tensors it gets (the fake torch in the tests); None: current_torch()

    def __post_init__(self):
        if self.version is None:
            self.version = newest_pinned_flashinfer(self.tables)
        if self.kernel is None:
            self.kernel = TorchKernel()
        if not self.device_name:
            major, minor = self.compute_capability[:2]
            self.device_name = f"emulated SM{major}{minor} ({self.kernel.name})"

    def torch_module(self):
        return self.torch or current_torch()

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
            name for row in self.tables.fp8_kv_mla for name in row.get("kv_dtypes", ())
        }

    def signature(self):
        """The MLA wrapper signature row in force (None: older than every listed release)."""
        return self._newest(self.tables.mla_signatures, "version")

    def _parameters(self, key: str) -> tuple:
        """A list of parameter names: the row in force's; where it has no such list (a release older
        than every row, or a row of the user's extend-rules that states less), the newest older row's
        that has it, else the oldest row's (the legacy positional form)."""
        rows = sorted((r for r in self.tables.mla_signatures if key in r), key=lambda r: parse_version(r["version"]))
        if not rows:
            return ()
        fitting = [r for r in rows if parse_version(r["version"]) <= parse_version(self.version)]
        return tuple((fitting[-1] if fitting else rows[0])[key])

    @property
    def plan_parameters(self) -> tuple:
        """plan()'s positional parameters, in order: the required ones, then the optional."""
        return self._parameters("plan_positional") + self._parameters("plan_optional")

    @property
    def plan_required(self) -> tuple:
        return self._parameters("plan_positional")

    @property
    def run_parameters(self) -> tuple:
        return self._parameters("run_positional") + self._parameters("run_optional")

    @property
    def run_scale_names(self) -> tuple:
        """run()'s scale keywords in this release (none before the first row that has them)."""
        sig = self.signature()
        if not sig:
            return ()
        return tuple(sig.get("run_scales", ())) + tuple(sig.get("run_scale_arrays", {}).values())

    @property
    def every_scale_name(self) -> tuple:
        """The scale keywords of any listed release (a TypeError in one that lacks them)."""
        names = []
        for row in self.tables.mla_signatures:
            for name in (*row.get("run_scales", ()), *row.get("run_scale_arrays", {}).values()):
                if name not in names:
                    names.append(name)
        return tuple(names)

    def scale_array(self, scale: str) -> Optional[str]:
        """The per-request alternative of a scalar scale keyword (None: none in this release)."""
        return (self.signature() or {}).get("run_scale_arrays", {}).get(scale)

    @property
    def keyword_form(self) -> bool:
        sig = self.signature()
        return bool(sig and sig.get("keyword_form"))

    def keyword_row(self) -> dict:
        """The row in force when it has the keyword form, else {}."""
        return self.signature() if self.keyword_form else {}

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


class PlanMetadata:
    """The plan metadata of the keyword form, plan(metadata=...) (CSR form only); its class name
    and constructor are the tables' (`plan_metadata`)."""

    def __init__(self, qo_indptr=None, kv_indptr=None, kv_indices=None, kv_len_arr=None, **_):
        self.qo_indptr, self.kv_indptr, self.kv_indices, self.kv_len_arr = qo_indptr, kv_indptr, kv_indices, kv_len_arr

    @classmethod
    def csr(cls, qo_indptr, kv_indptr, kv_indices, kv_len_arr, **kw):
        return cls(qo_indptr, kv_indptr, kv_indices, kv_len_arr)


def _plan_metadata_class(spec: dict) -> type:
    """The metadata class a keyword-form release has: `plan_metadata.class`, built by
    `plan_metadata.constructor`."""
    return type(
        spec["class"], (PlanMetadata,), {spec["constructor"]: PlanMetadata.__dict__["csr"], "__module__": __name__}
    )


def _as_kernel_int32(t, torch=None):
    """A host index array as FlashInfer's C++ plan reads it: int32 elements from its storage.

    An int64 tensor is not converted there but misread (its words taken as int32), which a
    caller passing `seq_lens_cpu` without `.to(torch.int32)` gets, silently."""
    torch = torch or current_torch()
    t = t.detach().clone()
    if t.dtype == torch.int32:
        return t
    if t.dtype == torch.int64:
        words = []
        for value in t.reshape(-1).tolist():  # little-endian: the low word, then the high one
            low, high = value & 0xFFFFFFFF, (value >> 32) & 0xFFFFFFFF
            words.extend(w - (1 << 32) if w >= 1 << 31 else w for w in (low, high))
        return torch.tensor(words[: t.numel()], dtype=torch.int32, device=t.device)
    return t.to(torch.int32)


class _PlanOp:
    """`wrapper._cached_module.plan` as sglang's fast_mla_*_plan helpers call it: the sync-free
    re-plan, new host indptrs, the planned dtypes (FlashInfer 0.2.x exposed the op as
    `plan.default`; both spellings work)."""

    def __init__(self, wrapper):
        self._wrapper = wrapper
        self.default = self

    def __call__(
        self,
        float_ws,
        int_ws,
        pin_ws,
        qo_indptr_host,
        kv_indptr_host,
        kv_len_arr_host,
        num_heads,
        head_dim_o,
        causal,
        *rest,
    ):
        wrapper = self._wrapper
        if not wrapper._planned:
            raise RuntimeError("_cached_module.plan before plan()")
        torch = wrapper._castlint_emulation.torch_module()
        wrapper._plan_info = tuple(
            _as_kernel_int32(t, torch) for t in (qo_indptr_host, kv_indptr_host, kv_len_arr_host)
        )
        wrapper._causal = bool(causal)
        wrapper._castlint_emulation.calls.append(
            {
                "kind": "fast_plan",
                "wrapper": id(wrapper),
                "q": str(wrapper._q_data_type),
                "kv": str(wrapper._kv_data_type),
            }
        )
        return wrapper._plan_info


class ReferenceMLAWrapper:
    """BatchMLAPagedAttentionWrapper as the emulated FlashInfer release has it (make_wrapper_class binds
    the release): plan() and run() take and check their arguments as that release does, then run()
    computes MLA with the emulation's kernel."""

    _castlint_emulation: FlashInferEmulation  # set by make_wrapper_class

    def __init__(
        self,
        float_workspace_buffer,
        use_cuda_graph=False,
        qo_indptr=None,
        kv_indptr=None,
        kv_indices=None,
        kv_len_arr=None,
        backend="auto",
    ):
        torch = self._castlint_emulation.torch_module()
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
        self._cached_module = types.SimpleNamespace(plan=_PlanOp(self))

    def plan(self, *args, **kwargs):
        emu = self._castlint_emulation
        planned, form = _plan_arguments(emu, args, kwargs)
        emu.calls.append(
            {
                "kind": "plan",
                "wrapper": id(self),
                "form": form,
                "q": str(planned.q_data_type),
                "kv": str(planned.kv_data_type),
                "backend": self._backend,
                "causal": bool(planned.causal),
            }
        )
        _check_plan_dtypes(emu, self._backend, planned)
        _store_plan(self, planned)

    begin_forward = plan

    def run(self, *args, **kwargs):
        emu = self._castlint_emulation
        scales = _run_scales(emu, kwargs)
        given, form = _run_arguments(emu, args, kwargs)
        if not self._planned:
            raise RuntimeError("run() before plan()")
        q_nope, q_pe, ckv, kpe = given.q_nope, given.q_pe, given.ckv_cache, given.kpe_cache
        emu.calls.append(
            {
                "kind": "run",
                "wrapper": id(self),
                "form": form,
                "q": str(q_nope.dtype),
                "ckv": str(ckv.dtype),
                "kpe": str(kpe.dtype),
                "planned_kv": str(self._kv_data_type),
                "ckv_scale": scales.get("ckv_scale"),
                "kpe_scale": scales.get("kpe_scale"),
            }
        )
        ckv_real_scale = kpe_real_scale = 1.0
        if emu.checks_run_dtypes:
            _check_run_dtypes(self, q_nope, q_pe, ckv, kpe)
            if emu.is_fp8_kv(self._kv_data_type):
                ckv_real_scale, kpe_real_scale = _fp8_scales(emu, scales)
            elif any(v is not None for v in scales.values()):
                raise ValueError(
                    f"{' / '.join(emu.run_scale_names)} are only supported with an fa2/fa3 "
                    "backend and FP8 kv_data_type."
                )
        else:
            # The launcher reinterprets storage by the planned dtype: a
            # mismatch is silently wrong, never an error.
            torch = emu.torch_module()
            ckv, kpe = _reinterpret(ckv, self._kv_data_type, torch), _reinterpret(kpe, self._kv_data_type, torch)
        if ckv.shape[-1] != self._head_dim_ckv:
            raise ValueError(f"ckv head dim {ckv.shape[-1]} != planned {self._head_dim_ckv}")
        return _attend(self, given, q_nope, q_pe, ckv, kpe, ckv_real_scale, kpe_real_scale)

    forward = run


def make_wrapper_class(emu: FlashInferEmulation) -> type:
    """A BatchMLAPagedAttentionWrapper class bound to one emulated FlashInfer."""
    return type(
        "BatchMLAPagedAttentionWrapper", (ReferenceMLAWrapper,), {"_castlint_emulation": emu, "__module__": __name__}
    )


def _plan_arguments(emu: FlashInferEmulation, args: tuple, kwargs: dict):
    """(plan()'s arguments by name, the call's form), from the positional form or (from the release
    that has it) the keyword form with the metadata object; a TypeError as Python gives for a call
    the signature refuses."""
    params = emu.plan_parameters
    form = "positional" if len(args) >= len(emu.plan_required) else ("keyword" if not args else "mixed")
    row = emu.keyword_row()
    if row and row["plan_metadata"]["keyword"] in kwargs:
        metadata = kwargs.pop(row["plan_metadata"]["keyword"])
        # the metadata holds the first four parameters under their names (qo_indptr .. kv_len_arr)
        kwargs.update({name: getattr(metadata, name) for name in emu.plan_required[:4]})
        for layout in row.get("plan_layouts", ()):
            kwargs.pop(layout, None)
        form = "metadata"
    planned = _bind("plan", params, args, kwargs, dict.fromkeys(emu._parameters("plan_optional"), False))
    missing = [n for n in emu.plan_required if not hasattr(planned, n)]
    if missing:
        raise TypeError(f"plan() missing required arguments: {', '.join(missing)}")
    return planned, form


def _bind(call: str, params: tuple, args: tuple, kwargs: dict, defaults: dict) -> types.SimpleNamespace:
    """A call's arguments by name, as Python binds them to `params` (TypeErrors with its texts)."""
    for name, value in zip(params, args):
        if name in kwargs:
            raise TypeError(f"{call}() got multiple values for argument {name!r}")
        kwargs[name] = value
    unknown = sorted(set(kwargs) - set(params))
    if unknown:
        raise TypeError(f"{call}() got an unexpected keyword argument {unknown[0]!r}")
    return types.SimpleNamespace(**{**defaults, **kwargs})


def _check_plan_dtypes(emu: FlashInferEmulation, backend: str, planned: types.SimpleNamespace) -> None:
    """The dtype checks of plan(): FP8 KV only where the release's FP8-KV MLA row allows it."""
    torch = emu.torch_module()
    if emu.is_fp8_kv(planned.kv_data_type):
        row = emu.fp8_kv()
        if row is None:
            raise RuntimeError(
                f"FlashInfer {emu.version}: MLA kernels do not build for 1-byte KV "
                f"(kv_data_type={planned.kv_data_type}); no FP8-KV MLA in this release"
            )
        _check_fp8_kv_plan(emu, row, backend, planned)
    elif planned.kv_data_type not in (torch.float16, torch.bfloat16):
        raise ValueError(f"MLA kv_data_type {planned.kv_data_type} is not supported.")
    if planned.q_data_type not in (torch.float16, torch.bfloat16):
        raise ValueError(f"MLA q_data_type {planned.q_data_type} is not supported.")


def _check_fp8_kv_plan(emu: FlashInferEmulation, row: dict, backend: str, planned: types.SimpleNamespace) -> None:
    """An FP8 KV plan() against the [[fp8_kv_mla]] row in force, with FlashInfer's error texts."""
    if backend not in row["backends"]:
        raise ValueError(
            f"FP8 kv_data_type for MLA is only supported with the "
            f"{' or '.join(row['backends'])} backend, got backend={backend!r}."
        )
    required = row.get("compute_capability")
    if required and tuple(emu.compute_capability[:2]) != tuple(required[:2]):
        raise ValueError(
            f"FP8 kv_data_type for MLA requires an SM{''.join(map(str, required))} device, got "
            f"SM{emu.compute_capability[0]}{emu.compute_capability[1]}."
        )
    for kind, allowed in (("q_data_type", row.get("q_dtypes")), ("kv_data_type", row.get("kv_dtypes"))):
        given = getattr(planned, kind)
        if allowed and dtype_name(given) not in allowed:
            which = f"={_torch_names(allowed)}" if len(allowed) == 1 else f" in ({_torch_names(allowed)})"
            raise ValueError(f"FP8 kv_data_type for MLA currently only supports {kind}{which}, got {given}.")
    ckv_dims, kpe_dims = row.get("head_dim_ckv"), row.get("head_dim_kpe")
    if (ckv_dims and planned.head_dim_ckv not in ckv_dims) or (kpe_dims and planned.head_dim_kpe not in kpe_dims):
        raise ValueError(
            f"FP8 kv_data_type for MLA currently only supports head_dim_ckv in {ckv_dims or 'any'} "
            f"and head_dim_kpe in {kpe_dims or 'any'}, got {planned.head_dim_ckv}/{planned.head_dim_kpe}."
        )


def _torch_names(names) -> str:
    return ", ".join(f"torch.{name}" for name in names)


def _store_plan(wrapper: ReferenceMLAWrapper, planned: types.SimpleNamespace) -> None:
    """What plan() keeps for run(): the index arrays (in the cuda-graph buffers when the wrapper has
    them: the captured kernel reads them at replay), the shapes, the dtypes, and the host arrays as
    the kernel reads them."""
    if wrapper._use_cuda_graph:
        wrapper._qo_indptr_buf[: len(planned.qo_indptr)].copy_(planned.qo_indptr)
        wrapper._kv_indptr_buf[: len(planned.kv_indptr)].copy_(planned.kv_indptr)
        wrapper._kv_indices_buf[: len(planned.kv_indices)].copy_(planned.kv_indices)
        wrapper._kv_len_arr_buf[: len(planned.kv_len_arr)].copy_(planned.kv_len_arr)
    else:
        wrapper._qo_indptr_buf = planned.qo_indptr.to(wrapper.device)
        wrapper._kv_indptr_buf = planned.kv_indptr.to(wrapper.device)
        wrapper._kv_indices_buf = planned.kv_indices.to(wrapper.device)
        wrapper._kv_len_arr_buf = planned.kv_len_arr.to(wrapper.device)
    wrapper._causal, wrapper._page_size, wrapper._sm_scale = (
        bool(planned.causal),
        int(planned.page_size),
        float(planned.sm_scale),
    )
    wrapper._head_dim_ckv = int(planned.head_dim_ckv)
    wrapper._q_data_type, wrapper._kv_data_type = planned.q_data_type, planned.kv_data_type
    torch = wrapper._castlint_emulation.torch_module()
    wrapper._plan_info = tuple(
        _as_kernel_int32(t.cpu(), torch) for t in (planned.qo_indptr, planned.kv_indptr, planned.kv_len_arr)
    )
    wrapper._planned = True


def _run_scales(emu: FlashInferEmulation, kwargs: dict) -> dict:
    """run()'s scale keywords, taken out of kwargs: a TypeError in a release without them."""
    allowed = emu.run_scale_names
    for name in emu.every_scale_name:
        if name in kwargs and name not in allowed:
            raise TypeError(f"FlashInfer {emu.version}: run() got an unexpected keyword argument {name!r}")
    return {name: kwargs.pop(name, None) for name in allowed}


def _run_arguments(emu: FlashInferEmulation, args: tuple, kwargs: dict):
    """(run()'s tensors by name, the call's form), from the positional form or (from the release that
    has it) the keyword form `query=(q_nope, q_pe), kv_cache=(ckv, kpe)`."""
    params = emu.run_parameters
    form = "positional"
    row = emu.keyword_row()
    query_kw, cache_kw = row["run_keywords"][:2] if row else (None, None)
    if row and (query_kw in kwargs or cache_kw in kwargs):
        (q_nope, q_pe), (ckv, kpe) = kwargs.pop(query_kw), kwargs.pop(cache_kw)
        kwargs.update(dict(zip(emu._parameters("run_positional"), (q_nope, q_pe, ckv, kpe))))
        form = "keyword"
    given = _bind("run", params, args, kwargs, dict.fromkeys(emu._parameters("run_optional")))
    given.return_lse = bool(given.return_lse)
    return given, form


def _check_run_dtypes(wrapper: ReferenceMLAWrapper, q_nope, q_pe, ckv, kpe) -> None:
    """run() refuses tensors whose dtype differs from the planned one (the releases that check)."""
    for name, tensor, want in (
        ("q_nope", q_nope, wrapper._q_data_type),
        ("q_pe", q_pe, wrapper._q_data_type),
        ("ckv_cache", ckv, wrapper._kv_data_type),
        ("kpe_cache", kpe, wrapper._kv_data_type),
    ):
        if tensor.dtype != want:
            kind = "q_data_type" if name.startswith("q") else "kv_data_type"
            raise ValueError(f"{name}.dtype={tensor.dtype} does not match the planned {kind}={want}.")


def _fp8_scales(emu: FlashInferEmulation, scales: dict) -> tuple:
    """(ckv, kpe) scales of an FP8 KV run(): real = stored x scale; both required, finite, positive
    (the scalar or, where the release has it, its per-request array)."""
    values = []
    for name in emu._parameters("run_scales"):
        scalar, array_name = scales.get(name), emu.scale_array(name)
        array = scales.get(array_name) if array_name else None
        if array_name and (scalar is None) == (array is None):
            raise ValueError(f"Exactly one of {name} or {array_name} is required when kv_data_type is FP8.")
        if scalar is None and array is None:
            raise ValueError(f"{name} is required when kv_data_type is FP8.")
        value = float(scalar) if scalar is not None else float(array.reshape(-1)[0])
        if not math.isfinite(value) or value <= 0.0:
            raise ValueError(f"{name} must be a finite positive value, got {value}")
        values.append(value)
    return tuple(values[:2])


def _attend(
    wrapper: ReferenceMLAWrapper,
    given: types.SimpleNamespace,
    q_nope,
    q_pe,
    ckv,
    kpe,
    ckv_scale: float,
    kpe_scale: float,
):
    """MLA over the planned pages: the output (in `out=` when given), and the lse on request."""
    kernel = wrapper._castlint_emulation.kernel
    qo_indptr, kv_indptr, kv_lens = wrapper._plan_info
    with kernel.quiet():
        out, lse = kernel.attend(
            q_nope,
            q_pe,
            ckv,
            kpe,
            qo_indptr,
            kv_indptr,
            wrapper._kv_indices_buf,
            wrapper._sm_scale,
            wrapper._causal,
            ckv_scale,
            kpe_scale,
            wrapper._page_size,
            kv_lens=kv_lens,
        )
        out = out.to(q_nope.dtype)
        if given.out is not None:
            given.out.copy_(out)
            out = given.out
    if given.return_lse:
        return out, lse
    return out


def _reinterpret(t, planned, torch):
    """What a kernel templated on `planned` reads from `t`'s bytes (a release whose run() does not
    check dtypes)."""
    if planned is None or t.dtype == planned:
        return t
    if t.element_size() == 1 and planned.itemsize == 2:
        raw = t.contiguous().view(torch.uint8).float()
        return raw - 128.0  # garbage of the right shape: bytes read as numbers
    return t.to(planned)


class RaggedWrapperStandIn:
    """BatchPrefillWithRaggedKVCacheWrapper (and the other wrappers sglang constructs): built by the
    backend; its forward checks that q, k and v share a dtype, is logged, and is the kernel's
    `ragged` (the ragged prefill is not a site castlint rewrites: validate's kernel refuses it, the
    fake torch's returns q)."""

    _castlint_emulation: FlashInferEmulation  # set by make_flashinfer_module

    def __init__(self, *args, **kwargs):
        self._planned = False

    def begin_forward(self, *args, **kwargs):
        self._planned = True

    plan = begin_forward

    def forward(self, q, k, v, *args, **kwargs):
        if not (q.dtype == k.dtype == v.dtype):
            raise ValueError(f"ragged prefill dtypes differ: q {q.dtype}, k {k.dtype}, v {v.dtype}")
        self._castlint_emulation.calls.append({"kind": "ragged", "q": str(q.dtype), "kv": str(k.dtype)})
        return self._castlint_emulation.kernel.ragged(q, k, v)

    run = forward
    forward_return_lse = forward


def make_flashinfer_module(emu: FlashInferEmulation) -> types.ModuleType:
    """A module named `flashinfer` (with `flashinfer.mla`) holding the stand-ins of one release."""
    mod = types.ModuleType("flashinfer")
    mod.__version__ = emu.version
    mod.__file__ = __file__
    mod.__path__ = []
    mod.BatchMLAPagedAttentionWrapper = make_wrapper_class(emu)
    ragged = type(
        "BatchPrefillWithRaggedKVCacheWrapper",
        (RaggedWrapperStandIn,),
        {"_castlint_emulation": emu, "__module__": __name__},
    )
    mod.BatchPrefillWithRaggedKVCacheWrapper = ragged
    mod.BatchDecodeWithPagedKVCacheWrapper = ragged
    mod.BatchPrefillWithPagedKVCacheWrapper = ragged
    mla = types.ModuleType("flashinfer.mla")
    mla.BatchMLAPagedAttentionWrapper = mod.BatchMLAPagedAttentionWrapper
    # the metadata class of the keyword form, in every emulated release (as castlint validate has
    # always had it): a module written for 0.7 loads on 0.6 and fails where it plans, with
    # FlashInfer's TypeError
    spec = next((row["plan_metadata"] for row in reversed(emu.tables.mla_signatures) if row.get("plan_metadata")), None)
    if spec:
        metadata = _plan_metadata_class(spec)
        setattr(mod, metadata.__name__, metadata)
        setattr(mla, metadata.__name__, metadata)
    mod.mla = mla
    mod.log = emu.calls
    return mod
