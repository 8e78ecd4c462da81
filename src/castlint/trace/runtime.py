"""The watcher: a TorchDispatchMode that records whole-buffer conversions as the program runs.

Every aten op (and torch.library op) the watched thread issues passes through
`_Mode.__torch_dispatch__`. For most ops that costs a dictionary look-up and a
size test on the result. An op is looked at closely only when it is

* a conversion or copy named in the [trace] tables (`aten::_to_copy`,
  `aten::copy_`, `aten::clone`, (de)quantize ops), or
* any op with an input above the threshold issued inside a conversion helper
  named in the tables (e.g. sglang's `batched_dequantize` of an FP4 arena),

and its input is at least `threshold` bytes. It is recorded when that input's
storage is *long-lived*:

* registered (`castlint.trace.register_pool(t)`), or
* allocated before the current step: before the trace started, or in an
  earlier step (`castlint.trace.step()`), or
* converted again later (the first conversion of a buffer made in this step
  is held back, and recorded when the same storage is converted a second time).

A per-batch tensor is made in its step and converted once, so it is never
recorded; a gather of active pages makes a new tensor, so converting it is not
recorded either; `.view(dtype)` is not an op that copies.

Each record is attributed to the innermost Python frame that is not torch's,
the standard library's or castlint's (an op issued by castlint's own code,
e.g. the validate harness's reference kernels, is not the engine's and is
dropped), or, for a helper, to the line that called the helper.

This module imports torch; castlint.trace's other modules do not.
"""

from __future__ import annotations

import os
import sys
import sysconfig
import threading
from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, List, Optional, Tuple

import torch
from torch.multiprocessing.reductions import StorageWeakRef
from torch.utils._python_dispatch import TorchDispatchMode

from castlint.trace.table import TraceTables, load_trace_tables, parse_threshold

Tensor = torch.Tensor
_TORCH_DIR = os.path.dirname(os.path.abspath(torch.__file__)) + os.sep
_CASTLINT_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_STDLIB_DIRS = tuple(
    sorted(
        {os.path.abspath(p) + os.sep for key in ("stdlib", "platstdlib") for p in [sysconfig.get_paths().get(key)] if p}
    )
)
_MAX_STACK = 4
_HELPER_DEPTH = 6  # a helper is looked for among the innermost frames of the program only

# storages registered as pools (cdata -> weak ref), for every tracer
_REGISTERED: Dict[int, StorageWeakRef] = {}
_ACTIVE: List["Tracer"] = []
# code filename -> the file to report, for code compiled from bytes (every tracer reads it)
PATH_MAP: Dict[str, str] = {}


def map_path(code_filename: str, path: str) -> None:
    """Report frames of code compiled under code_filename as lines of path."""
    PATH_MAP[code_filename] = path


def _storage_key(t: Tensor):
    st = t.untyped_storage()
    return st._cdata, st


def register_pool(*tensors) -> None:
    """Mark tensors (or lists of tensors) as long-lived pools: converting one is always recorded."""
    for item in tensors:
        if isinstance(item, (list, tuple)):
            register_pool(*item)
        elif isinstance(item, Tensor):
            key, st = _storage_key(item)
            _REGISTERED[key] = StorageWeakRef(st)
        elif item is not None:
            raise TypeError(f"register_pool takes tensors or lists of tensors, got {type(item).__name__}")


def _registered(key: int) -> bool:
    ref = _REGISTERED.get(key)
    if ref is None:
        return False
    if ref.expired():
        del _REGISTERED[key]
        return False
    return True


def _dtype(t) -> str:
    return str(t.dtype).replace("torch.", "") if isinstance(t, Tensor) else "-"


def _shape(t) -> str:
    return str(tuple(t.shape)) if isinstance(t, Tensor) else "-"


def _nbytes(t: Tensor) -> int:
    return t.numel() * t.element_size()


class _Buf:
    __slots__ = ("ref", "epoch", "conversions", "pending")

    def __init__(self, ref, epoch: int):
        self.ref, self.epoch, self.conversions, self.pending = ref, epoch, 0, None


@dataclass
class Site:
    """All the recorded conversions at one line, with one op and one pair of dtypes."""

    path: str
    line: int
    column: int
    function: str
    op: str
    kind: str
    in_dtype: str
    out_dtype: str
    in_shape: str = "-"
    out_shape: str = "-"
    devices: str = ""
    helper: str = ""
    calls: int = 0
    bytes_read: int = 0  # totals over all calls
    bytes_written: int = 0
    reasons: set = field(default_factory=set)
    stack: Tuple[str, ...] = ()
    per_storage: Dict[int, int] = field(default_factory=dict)
    epochs: set = field(default_factory=set)

    def steps(self, explicit: bool) -> int:
        """Steps the site ran in: marked steps, else how often one buffer was converted here."""
        if explicit:
            return max(1, len(self.epochs))
        return max(1, max(self.per_storage.values(), default=1))

    def to_json(self, explicit_steps: bool) -> dict:
        return {
            "path": self.path,
            "line": self.line,
            "column": self.column,
            "function": self.function,
            "op": self.op,
            "kind": self.kind,
            "helper": self.helper,
            "in_dtype": self.in_dtype,
            "out_dtype": self.out_dtype,
            "in_shape": self.in_shape,
            "out_shape": self.out_shape,
            "devices": self.devices,
            "calls": self.calls,
            "steps": self.steps(explicit_steps),
            "bytes_read": self.bytes_read,
            "bytes_written": self.bytes_written,
            "long_lived": sorted(self.reasons),
            "stack": list(self.stack),
        }


class _Event:
    __slots__ = ("site", "key", "read", "written", "epoch", "recorded")

    def __init__(self, site, key, read, written, epoch):
        self.site, self.key, self.read, self.written, self.epoch = site, key, read, written, epoch
        self.recorded = False


class _Mode(TorchDispatchMode):
    def __init__(self, tracer: "Tracer"):
        super().__init__()
        self.tracer = tracer

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        tracer = self.tracer
        try:
            info = tracer._info.get(func)
            if info is None:
                info = tracer._classify(func)
            tracer.ops_seen += 1
            spec, creates, is_view = info
            if is_view:  # a view moves no bytes and makes no storage
                return out
            threshold = tracer.threshold
            if creates:
                if isinstance(out, Tensor):
                    if out.nbytes >= threshold:
                        tracer._created(out)
                elif isinstance(out, (tuple, list)):
                    for t in out:
                        if isinstance(t, Tensor) and t.nbytes >= threshold:
                            tracer._created(t)
            if spec is not None or tracer.helpers:
                for a in args:
                    if isinstance(a, Tensor) and a.nbytes >= threshold:
                        tracer._inspect(func, spec, args, kwargs or {}, out, sys._getframe(1))
                        break
        except Exception:  # noqa: BLE001 - sparse/nested tensors have no nbytes or storage: never break the program
            tracer.skipped_ops += 1
        return out


class Tracer:
    """Records whole-buffer conversions while active (`with Tracer(): ...`)."""

    def __init__(
        self,
        threshold=None,
        *,
        tables: Optional[TraceTables] = None,
        path_map: Optional[dict] = None,
        pools: Iterable = (),
        extra_rules: Iterable = (),
        skip: Iterable[str] = (),
        all_threads: bool = False,
    ):
        self.tables = tables or load_trace_tables(extra_rules)
        self.threshold = self.tables.threshold if threshold is None else parse_threshold(threshold)
        self.helpers = frozenset(self.tables.helpers)
        self.path_map = dict(path_map or {})
        self.skip = tuple(os.path.abspath(p) + (os.sep if os.path.isdir(p) else "") for p in skip)
        self.all_threads = all_threads
        self.epoch = 0
        self.explicit_steps = 0
        self.ops_seen = 0
        self.skipped_ops = 0  # ops the tracer could not inspect (sparse or nested tensors)
        self.sites: Dict[tuple, Site] = {}
        self._info: Dict[Any, tuple] = {}
        self._bufs: Dict[int, _Buf] = {}
        self._helper_cur: Optional[tuple] = None
        self._positions: Dict[Any, list] = {}
        self._code_kinds: Dict[Any, int] = {}
        self._modes: List[_Mode] = []
        self._inserts = 0
        self._lock = threading.Lock()
        self._thread_patch = None
        register_pool(*pools)

    # -- activation ---------------------------------------------------------------
    def __enter__(self) -> "Tracer":
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def start(self) -> None:
        mode = _Mode(self)
        mode.__enter__()
        self._modes.append(mode)
        _ACTIVE.append(self)
        if self.all_threads and self._thread_patch is None:
            self._patch_threads()

    def stop(self) -> None:
        if self._modes:
            self._modes.pop().__exit__(None, None, None)
        if self in _ACTIVE:
            _ACTIVE.remove(self)
        if self._thread_patch is not None:
            threading.Thread.run = self._thread_patch
            self._thread_patch = None

    def _patch_threads(self) -> None:
        original = threading.Thread.run
        tracer = self

        def run(thread_self):
            with _Mode(tracer):
                return original(thread_self)

        self._thread_patch = original
        threading.Thread.run = run

    def step(self) -> None:
        """Mark the start of a new step (a decode step, an iteration)."""
        self.epoch += 1
        self.explicit_steps += 1

    def register_pool(self, *tensors) -> None:
        register_pool(*tensors)

    # -- per-op classification (cached per overload) ------------------------------
    def _classify(self, func) -> tuple:
        try:
            name = func._schema.name
            returns = func._schema.returns
            creates = not any(r.alias_info is not None for r in returns)
        except AttributeError:  # not an OpOverload
            name, creates = str(func), False
        spec = self.tables.op_for(name)
        is_view = bool(getattr(func, "is_view", False)) and spec is None
        info = (spec, creates, is_view)
        self._info[func] = info
        return info

    def _created(self, t: Tensor) -> None:
        key, st = _storage_key(t)
        self._bufs[key] = _Buf(StorageWeakRef(st), self.epoch)
        self._inserts += 1
        if self._inserts % 1024 == 0:
            for k in [k for k, b in self._bufs.items() if b.ref.expired()]:
                del self._bufs[k]

    def _buf(self, t: Tensor) -> Tuple[int, _Buf]:
        key, st = _storage_key(t)
        buf = self._bufs.get(key)
        if buf is None or buf.ref.expired():
            buf = _Buf(StorageWeakRef(st), -1)  # never seen made: it predates the trace
            self._bufs[key] = buf
        return key, buf

    def _reason(self, key: int, buf: _Buf) -> Optional[str]:
        if _registered(key):
            return "registered pool"
        if buf.epoch < 0:
            return "allocated before the trace started"
        if buf.epoch < self.epoch:
            return "allocated in an earlier step"
        if buf.conversions:
            return "converted again"
        return None

    # -- frames -------------------------------------------------------------------
    def _path(self, filename: str) -> str:
        mapped = self.path_map.get(filename) or PATH_MAP.get(filename)
        if mapped is not None:
            return mapped
        if filename.startswith("<"):
            return filename
        return os.path.abspath(filename)

    def _skipped(self, filename: str) -> bool:
        return (
            filename.startswith(_TORCH_DIR)
            or filename.startswith(_STDLIB_DIRS)
            or filename.startswith("<frozen")
            or (bool(self.skip) and filename.startswith(self.skip))
        )

    def _column(self, frame) -> int:
        code = frame.f_code
        positions = self._positions.get(code)
        if positions is None:
            try:
                positions = list(code.co_positions())  # Python >= 3.11
            except AttributeError:
                positions = []
            self._positions[code] = positions
        index = frame.f_lasti // 2
        if 0 <= index < len(positions) and positions[index][2] is not None and positions[index][0] == frame.f_lineno:
            return positions[index][2] + 1
        return 1

    def _own(self, filename: str) -> bool:
        return filename.startswith(_CASTLINT_DIR) and filename not in self.path_map

    def _kind(self, code) -> int:
        """0: torch's, the standard library's or skipped; 1: castlint's own; 2: the program's."""
        kind = self._code_kinds.get(code)
        if kind is None:
            filename = code.co_filename
            kind = 0 if self._skipped(filename) else (1 if self._own(filename) else 2)
            self._code_kinds[code] = kind
        return kind

    def _locate(self, frame, helper: bool):
        """(location frame, outermost helper frame, stack), or None: the op is castlint's own
        (the innermost frame that is not torch's is castlint's), or helper=True and no helper
        function is among the innermost _HELPER_DEPTH frames of the program."""
        chain = []
        kinds = self._code_kinds
        helper_at = -1
        limit = _HELPER_DEPTH if helper else _MAX_STACK
        f = frame
        while f is not None and len(chain) < limit:
            code = f.f_code
            kind = kinds.get(code)
            if kind is None:
                kind = self._kind(code)
            if kind == 2:
                if helper and code.co_name in self.helpers:
                    helper_at = len(chain)
                chain.append(f)
            elif kind == 1 and not chain:
                return None
            f = f.f_back
        if not chain:
            return None
        helper_frame = None
        at = 0
        if helper:
            if helper_at < 0:
                return None
            # found one: keep walking for the caller of the outermost helper and the stack above it
            while f is not None and len(chain) < helper_at + 1 + _MAX_STACK + _HELPER_DEPTH:
                code = f.f_code
                if self._kind(code) == 2:
                    if code.co_name in self.helpers and len(chain) == helper_at + 1:
                        helper_at = len(chain)
                    chain.append(f)
                f = f.f_back
            if helper_at + 1 >= len(chain):
                return None
            helper_frame, at = chain[helper_at], helper_at + 1
        stack = tuple(
            f"{self._path(g.f_code.co_filename)}:{g.f_lineno} in {getattr(g.f_code, 'co_qualname', g.f_code.co_name)}"
            for g in chain[at : at + _MAX_STACK]
        )
        return chain[at], helper_frame, stack

    def _site(self, frame, stack, op, kind, src, dst, helper="") -> Site:
        code = frame.f_code
        path = self._path(code.co_filename)
        devices = ""
        if isinstance(dst, Tensor) and dst.device != src.device:
            devices = f"{src.device} -> {dst.device}"
        key = (path, frame.f_lineno, op, kind, _dtype(src), _dtype(dst), devices, helper)
        site = self.sites.get(key)
        if site is None:
            site = Site(
                path=path,
                line=frame.f_lineno,
                column=self._column(frame),
                function=getattr(code, "co_qualname", code.co_name),
                op=op,
                kind=kind,
                in_dtype=_dtype(src),
                out_dtype=_dtype(dst),
                in_shape=_shape(src),
                out_shape=_shape(dst),
                devices=devices,
                helper=helper,
                stack=stack,
            )
            self.sites[key] = site
        return site

    def _record(self, event: _Event, reason: str) -> None:
        event.recorded = True
        site = event.site
        site.calls += 1
        site.bytes_read += event.read
        site.bytes_written += event.written
        site.reasons.add(reason)
        site.per_storage[event.key] = site.per_storage.get(event.key, 0) + 1
        site.epochs.add(event.epoch)

    # -- the slow path: a big input -----------------------------------------------
    def _inspect(self, func, spec, args, kwargs, out, frame) -> None:
        with self._lock:
            if self.helpers:
                located = self._locate(frame, helper=True)
                if located is not None:
                    self._helper_op(func, args, out, located)
                    return
            if spec is not None:
                self._conversion(func, spec, args, kwargs, out, frame)

    def _conversion(self, func, spec, args, kwargs, out, frame) -> None:
        src = args[spec.input] if len(args) > spec.input else None
        if not isinstance(src, Tensor):
            return
        read = _nbytes(src)
        if read < self.threshold:
            return
        dst = out if spec.output is None else (args[spec.output] if len(args) > spec.output else None)
        if not isinstance(dst, Tensor):
            return
        key, buf = self._buf(src)
        if spec.output is not None and dst.dtype == src.dtype:
            # copy_ of the same dtype into a buffer that itself outlives the step: a deliberate copy
            dkey, dbuf = self._buf(dst)
            if dkey == key or self._reason(dkey, dbuf) not in (None, "converted again"):
                return
        reason = self._reason(key, buf)
        buf.conversions += 1
        located = self._locate(frame, helper=False)
        if located is None:
            return
        loc, _, stack = located
        kind = spec.kind
        if kind == "convert" and dst.dtype == src.dtype:
            kind = "copy"
        site = self._site(loc, stack, func._schema.name if hasattr(func, "_schema") else str(func), kind, src, dst)
        self._hold_or_record(buf, _Event(site, key, read, _nbytes(dst), self.epoch), reason)

    def _helper_op(self, func, args, out, located) -> None:
        """One op inside a conversion helper: the first op of a call starts a conversion (its
        long-lived input is the source), the rest add the bytes they read from it and write."""
        loc, helper_frame, stack = located
        name = helper_frame.f_code.co_name
        caller = helper_frame.f_back
        ident = (
            id(helper_frame),
            helper_frame.f_code,
            id(caller.f_code) if caller else 0,
            caller.f_lasti if caller else 0,
        )
        written = 0
        schema = getattr(func, "_schema", None)
        if schema is not None and any(r.alias_info is not None for r in schema.returns):
            # in place (x[...] = y, copy_): the bytes land in an existing tensor
            written = max((_nbytes(a) for a in args[1:2] if isinstance(a, Tensor)), default=0)
        else:
            for t in out if isinstance(out, (tuple, list)) else (out,):
                if isinstance(t, Tensor):
                    written += _nbytes(t)
        current = self._helper_cur
        if current is not None and current[0] == ident and helper_frame.f_lasti >= current[2]:
            event = current[1]
            self._helper_cur = (ident, event, helper_frame.f_lasti)
            read = sum(_nbytes(a) for a in args if isinstance(a, Tensor) and _storage_key(a)[0] == event.key)
            event.read += read
            event.written += written
            if event.recorded:
                event.site.bytes_read += read
                event.site.bytes_written += written
            if isinstance(out, Tensor) and out.dtype != event.site.in_dtype:
                event.site.out_dtype, event.site.out_shape = _dtype(out), _shape(out)
            return
        # a new call of the helper: its source is the first long-lived input (else the first big one)
        best = None
        for a in args:
            if isinstance(a, Tensor) and _nbytes(a) >= self.threshold:
                key, buf = self._buf(a)
                reason = self._reason(key, buf)
                rank = 0 if reason is not None else 1
                if best is None or rank < best[0]:
                    best = (rank, a, key, buf, reason)
        if best is None:
            return
        _, src, key, buf, reason = best
        buf.conversions += 1
        site = self._site(
            loc,
            stack,
            f"{name}()",
            self.tables.helpers[name].direction or "convert",
            src,
            out if isinstance(out, Tensor) else src,
            helper=name,
        )
        event = _Event(site, key, _nbytes(src), written, self.epoch)
        self._helper_cur = (ident, event, helper_frame.f_lasti)
        self._hold_or_record(buf, event, reason)

    def _hold_or_record(self, buf: _Buf, event: "_Event", reason: Optional[str]) -> None:
        if reason is None:
            buf.pending = (buf.pending or []) + [event]
            return
        if buf.pending:
            for held in buf.pending:
                self._record(held, "converted again")
            buf.pending = None
        self._record(event, reason)

    # -- results ------------------------------------------------------------------
    def site_list(self) -> List[dict]:
        explicit = self.explicit_steps > 0
        rows = [s.to_json(explicit) for s in self.sites.values() if s.calls]
        return sorted(rows, key=lambda r: (r["path"], r["line"], r["column"], r["op"], r["in_dtype"], r["out_dtype"]))

    def to_json(self) -> dict:
        return {
            "schema": 1,
            "threshold": self.threshold,
            "ops_seen": self.ops_seen,
            "ops_not_inspected": self.skipped_ops,
            "steps_marked": self.explicit_steps,
            "sites": self.site_list(),
        }

    def findings(self, static: bool = True, jobs: int = 1, config=None, tables=None):
        """(findings, errors, meta): the report castlint's reporters render (config, tables: the
        static check's settings; None: those of the config nearest the traced files)."""
        from castlint.trace.report import build_report

        return build_report(
            [self.to_json()], static=static, jobs=jobs, config=config, tables=tables, confirms=self.tables.confirms
        )


def active() -> Optional[Tracer]:
    return _ACTIVE[-1] if _ACTIVE else None
