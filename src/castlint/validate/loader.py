"""Execute a backend file's own source as a module, without an sglang install.

`load_backend(source, ...)` compiles the user's bytes (original or patched) and
runs them as `sglang.srt.layers.attention.flashinfer_mla_backend` inside
`StubbedImports`, so every class and function in the returned module - the
backend, its indices updaters, fast_mla_*_plan, the patch's guard - is the
user's code, line for line. Afterwards:

* `BatchMLAPagedAttentionWrapper` is replaced by a recording subclass of
  whatever the module imported (real FlashInfer on a GPU, the pure-torch
  stand-in on CPU), which logs every plan()/run() call's dtypes and scales;
* sglang's module-level `fast_mla_decode_plan` / `fast_mla_prefill_plan` are
  wrapped the same way;
* with `--device cpu`, the module's global `torch` is a thin proxy that maps
  `device="cuda"` to the CPU, drops `pin_memory`, and answers `torch.cuda.*`
  as the emulated SM90 device would (the guard's capability probe included).
"""

from __future__ import annotations

import functools
import linecache
import os
import sys
import types
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

import torch

from castlint.validate.doubles import Registry, StubbedImports, import_environment

MODULE_NAME = "sglang.srt.layers.attention.flashinfer_mla_backend"
MLA_WRAPPER = "BatchMLAPagedAttentionWrapper"  # the name the module imports from flashinfer


class LoadError(Exception):
    """The module's source could not be executed under the doubles."""


@dataclass
class CallLog:
    """plan()/run() calls the loaded module made, in order."""

    entries: List[dict] = field(default_factory=list)
    site: str = ""

    def add(self, **entry):
        entry["site"] = self.site
        self.entries.append(entry)

    def for_site(self, site: str, kind: Optional[str] = None) -> List[dict]:
        return [e for e in self.entries if e["site"] == site and (kind is None or e["kind"] == kind)]


def _dtype_arg(args, kwargs, index, names):
    for name in names:
        if name in kwargs:
            return kwargs[name]
    if len(args) > index:
        return args[index]
    return None


def _scalar(value):
    if isinstance(value, torch.Tensor) and value.numel() == 1:
        return float(value.detach().float().cpu())
    if value is None or isinstance(value, (int, float)):
        return value
    return repr(value)[:60]


def _short(dtype) -> str:
    return str(dtype).replace("torch.", "") if dtype is not None else "-"


def _caller(code_filename: str):
    """(line, function) of the innermost frame executing the loaded file."""
    frame = sys._getframe(2)
    while frame is not None:
        if frame.f_code.co_filename == code_filename:
            return frame.f_lineno, getattr(frame.f_code, "co_qualname", frame.f_code.co_name)
        frame = frame.f_back
    return None, None


def _planned_dtypes(row, args, kwargs):
    """(q dtype, kv dtype) of a plan call, where the [[wrapper]] row places them (`index` counts the
    call's positional arguments; a keyword or an alias of it may give them instead)."""
    q_dtype = _dtype_arg(args, kwargs, row.q_dtype.index, (row.q_dtype.keyword,))
    kv_dtype = _dtype_arg(args, kwargs, row.kv_dtype.index, (row.kv_dtype.keyword, *row.aliases))
    return q_dtype, kv_dtype


def _wrapper_row(tables, name: str, function: bool):
    """The [[wrapper]] row of a FlashInfer wrapper class (function=False) or an sglang plan function."""
    for row in tables.wrappers:
        if row.cls == name and row.function == function:
            return row
    raise LoadError(f"the rule tables have no [[wrapper]] row for {name}")


def make_spy_wrapper(
    base: type, log: CallLog, row, force_backend: Optional[str] = None, code_filename: str = ""
) -> type:
    """A subclass of the module's BatchMLAPagedAttentionWrapper that records calls; row: its
    [[wrapper]] table row (where plan() takes the dtypes)."""

    class RecordingBatchMLAPagedAttentionWrapper(base):  # type: ignore[misc, valid-type]
        def __init__(self, *args, **kwargs):
            if force_backend:
                kwargs["backend"] = force_backend
            super().__init__(*args, **kwargs)
            backend = getattr(self, "_backend", kwargs.get("backend", "auto"))
            log.add(kind="init", backend=str(backend), use_cuda_graph=bool(kwargs.get("use_cuda_graph", False)))

        def plan(self, *args, **kwargs):
            q_dtype, kv_dtype = _planned_dtypes(row, args, kwargs)
            form = "keyword" if "metadata" in kwargs else ("positional" if len(args) > row.kv_dtype.index else "mixed")
            line, function = _caller(code_filename)
            log.add(
                kind="plan",
                via="wrapper.plan",
                form=form,
                q_dtype=_short(q_dtype),
                kv_dtype=_short(kv_dtype),
                backend=str(getattr(self, "_backend", "?")),
                line=line,
                function=function,
            )
            return super().plan(*args, **kwargs)

        def run(self, *args, **kwargs):
            if "query" in kwargs or "kv_cache" in kwargs:
                q_nope = kwargs["query"][0]
                ckv, kpe = kwargs["kv_cache"]
                form = "keyword"
            else:
                names = ("q_nope", "q_pe", "ckv_cache", "kpe_cache")
                vals = list(args[:4]) + [kwargs.get(n) for n in names[len(args[:4]) :]]
                q_nope, _, ckv, kpe = vals
                form = "positional"
            log.add(
                kind="run",
                form=form,
                q_dtype=_short(q_nope.dtype),
                ckv_dtype=_short(ckv.dtype),
                kpe_dtype=_short(kpe.dtype),
                ckv_rows=int(ckv.shape[0]),
                ckv_scale=_scalar(kwargs.get("ckv_scale")),
                kpe_scale=_scalar(kwargs.get("kpe_scale")),
                planned_kv_dtype=_short(getattr(self, "_kv_data_type", None)),
                backend=str(getattr(self, "_backend", "?")),
            )
            return super().run(*args, **kwargs)

    RecordingBatchMLAPagedAttentionWrapper.__name__ = base.__name__
    RecordingBatchMLAPagedAttentionWrapper.__qualname__ = base.__qualname__
    return RecordingBatchMLAPagedAttentionWrapper


def _spy_function(fn, row, log: CallLog, code_filename: str):
    """sglang's fast_mla_*_plan(wrapper, ...), recording its calls like the wrapper's plan()."""
    name = row.cls

    @functools.wraps(fn)
    def recorded(wrapper, *args, **kwargs):
        q_dtype, kv_dtype = _planned_dtypes(row, (wrapper,) + args, kwargs)
        line, function = _caller(code_filename)
        log.add(
            kind="plan",
            via=name,
            form="positional",
            q_dtype=_short(q_dtype),
            kv_dtype=_short(kv_dtype),
            backend=str(getattr(wrapper, "_backend", "?")),
            line=line,
            function=function,
        )
        return fn(wrapper, *args, **kwargs)

    return recorded


# -- the CPU torch proxy -------------------------------------------------------------


def _cpu_device(device):
    if device is None:
        return None
    text = str(device)
    return "cpu" if text.startswith("cuda") else device


class _CudaEmulation(types.SimpleNamespace):
    pass


def make_cpu_torch(emulation) -> Any:
    """`torch` as the backend module sees it under --device cpu."""
    factories = ("empty", "zeros", "ones", "full", "arange", "tensor", "randn", "rand", "randint", "as_tensor")

    cuda = _CudaEmulation(
        is_available=lambda: True,
        get_device_capability=lambda *a, **k: tuple(emulation.compute_capability),
        get_device_name=lambda *a, **k: emulation.device_name,
        current_device=lambda: 0,
        device_count=lambda: 1,
        synchronize=lambda *a, **k: None,
        is_current_stream_capturing=lambda: False,
        get_device_properties=lambda *a, **k: types.SimpleNamespace(
            major=emulation.compute_capability[0],
            minor=emulation.compute_capability[1],
            name=emulation.device_name,
            multi_processor_count=132,
            total_memory=141 << 30,
        ),
    )

    class CpuTorch(types.ModuleType):
        def __getattr__(self, name):
            value = getattr(torch, name)
            if name in factories:

                @functools.wraps(value)
                def factory(*args, **kwargs):
                    kwargs.pop("pin_memory", None)
                    if "device" in kwargs:
                        kwargs["device"] = _cpu_device(kwargs["device"])
                    return value(*args, **kwargs)

                object.__setattr__(self, name, factory)
                return factory
            return value

    proxy = CpuTorch("torch")
    proxy.cuda = cuda
    return proxy


@dataclass
class LoadedBackend:
    label: str  # "original" | "patched"
    module: types.ModuleType
    log: CallLog


def stubbed_imports(registry: Registry, flashinfer_module=None) -> StubbedImports:
    """The import context a run needs: sglang (and triton, when absent) stubbed;
    the stand-in `flashinfer` under --device cpu."""
    extra: Dict[str, types.ModuleType] = {}
    if flashinfer_module is not None:
        extra["flashinfer"] = flashinfer_module
        extra["flashinfer.mla"] = flashinfer_module.mla
    prefixes = ["sglang"]
    try:
        import triton  # noqa: F401  (0.4.x imports triton at module level)
    except ImportError:
        prefixes.append("triton")
    return StubbedImports(registry, prefixes=prefixes, extra=extra)


def load_file_module(source: bytes, name: str) -> types.ModuleType:
    """A module the fix adds, executed from a real file (Triton's @jit reads its functions'
    source from disk) in a temporary folder removed right after, and placed in sys.modules
    under `name` (inside `stubbed_imports`, its sglang imports are doubled too)."""
    import importlib.util
    import tempfile

    with tempfile.TemporaryDirectory(prefix="castlint-module-") as folder:
        path = os.path.join(folder, name.rsplit(".", 1)[-1] + ".py")
        with open(path, "wb") as fh:
            fh.write(source)
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
        except Exception as exc:
            sys.modules.pop(name, None)
            raise LoadError(f"the module the fix adds ({name}) does not load: {type(exc).__name__}: {exc}") from exc
        for fn in vars(module).values():  # Triton compiles lazily, from the source it read now
            if type(fn).__module__.startswith("triton"):
                getattr(fn, "src", None)
    return module


def load_backend(
    source: bytes,
    label: str,
    *,
    tables,
    cpu_emulation=None,
    force_backend: Optional[str] = None,
    filename: str = "<backend>",
    companions: Optional[Dict[str, bytes]] = None,
) -> LoadedBackend:
    """Run `source` as the backend module (inside `stubbed_imports`); tables: the run's, whose
    [[wrapper]] rows say which plan calls to record and where they take the dtypes. companions:
    the modules the fix adds (name -> source), loaded first."""
    loaded: Dict[bytes, types.ModuleType] = {}
    for name, companion in (companions or {}).items():
        if companion in loaded:  # the same module under another name it is imported by
            sys.modules[name] = loaded[companion]
            continue
        added = loaded[companion] = load_file_module(companion, name)
        if cpu_emulation is not None:
            added.__dict__["torch"] = make_cpu_torch(cpu_emulation)
    code_filename = f"{filename} ({label})"
    code = compile(source, code_filename, "exec", dont_inherit=True)
    text = source.decode("utf-8", errors="replace")
    linecache.cache[code_filename] = (len(text), None, text.splitlines(True), code_filename)
    module = types.ModuleType(MODULE_NAME)
    module.__file__ = filename
    module.__package__ = MODULE_NAME.rsplit(".", 1)[0]
    # The caller holds `stubbed_imports(...)` open for the whole run: the
    # patched guard imports flashinfer lazily, at backend construction.
    sys.modules[MODULE_NAME] = module
    try:
        with import_environment():
            exec(code, module.__dict__)
    except Exception as exc:
        raise LoadError(f"executing the {label} module failed: {type(exc).__name__}: {exc}") from exc
    log = CallLog()
    if cpu_emulation is not None:
        module.__dict__["torch"] = make_cpu_torch(cpu_emulation)
    base = module.__dict__.get(MLA_WRAPPER)
    if base is None:
        raise RuntimeError(f"the module did not import {MLA_WRAPPER} (is FlashInfer importable?)")
    module.__dict__[MLA_WRAPPER] = make_spy_wrapper(
        base, log, _wrapper_row(tables, MLA_WRAPPER, function=False), force_backend, code_filename
    )
    for row in tables.wrappers:  # sglang's own plan functions in this module (fast_mla_*_plan)
        fn = module.__dict__.get(row.cls) if row.function and row.module == MODULE_NAME else None
        if callable(fn):
            module.__dict__[row.cls] = _spy_function(fn, row, log, code_filename)
    return LoadedBackend(label, module, log)
