"""`make_torch()`: a fresh fake `torch` module (dtypes, factories, cat/stack, torch.cuda)."""

from __future__ import annotations

import contextlib
import math
import types
from builtins import sorted as builtins_sorted
from typing import Optional

from faketorch import reorder
from faketorch.tensor import (
    ALIASES,
    DTYPES,
    MAX_ELEMENTS,
    FakeTorchUnsupported,
    Size,
    Storage,
    Tensor,
    _contiguous_strides,
    _prod,
    _shape_args,
    as_device,
    device,
    dtype,
    promote,
)


class _Missing:
    """What `torch.<anything unmodelled>` is: fails when used, the same way every time."""

    def __init__(self, name):
        self._name = name

    def __call__(self, *a, **k):
        raise FakeTorchUnsupported(f"{self._name}()")

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _Missing(f"{self._name}.{name}")

    def __getitem__(self, item):
        return self

    def __repr__(self):
        return f"<fake {self._name}>"


class FakeTorchModule(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _Missing(f"torch.{name}")


class _NoGrad(contextlib.ContextDecorator):
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def _flatten(data):
    """Nested lists -> (flat values, shape)."""
    if isinstance(data, Tensor):
        return data._values(), data._shape
    if isinstance(data, (list, tuple)):
        if not data:
            return [], (0,)
        parts = [_flatten(x) for x in data]
        shape = parts[0][1]
        if any(p[1] != shape for p in parts):
            raise ValueError("expected sequence of equal length")
        return [v for p in parts for v in p[0]], (len(data),) + tuple(shape)
    return [data], ()


def make_torch(capability=(9, 0), cuda_available: bool = True, device_name: str = "fake H200") -> types.ModuleType:
    """A new fake torch. `capability` is what torch.cuda.get_device_capability() reports."""
    torch = FakeTorchModule("torch")
    torch.__version__ = "2.9.0+faketorch"
    torch.__file__ = __file__
    torch.__path__ = []  # a package: `import torch.nn.functional` works through the loader
    torch.__faketorch__ = True
    for name, d in DTYPES.items():
        setattr(torch, name, d)
    for alias, name in ALIASES.items():
        setattr(torch, alias, DTYPES[name])
    torch.dtype, torch.device, torch.Tensor, torch.Size = dtype, device, Tensor, Size
    torch.FakeTorchUnsupported = FakeTorchUnsupported
    default = {"dtype": DTYPES["float32"]}

    def _make(values, shape, dtype_=None, device_=None, convert=True):
        return Tensor.from_values(values, shape, dtype_ or default["dtype"], as_device(device_), torch, convert)

    def _factory(fill):
        def make(*size, dtype=None, device=None, pin_memory=False, requires_grad=False, out=None, **kw):
            shape = _shape_args(size)
            d = dtype or default["dtype"]
            n = _prod(shape)
            st = Storage(n, d, fill=d.convert(fill))
            if n <= MAX_ELEMENTS:
                st.data  # noqa: B018 - small tensors are materialized now
            return Tensor(st, shape, _contiguous_strides(shape), 0, d, as_device(device), torch)

        return make

    torch.empty = _factory(0)
    torch.zeros = _factory(0)
    torch.ones = _factory(1)

    def full(size, fill_value, dtype=None, device=None, **kw):
        d = dtype or (
            DTYPES["int64"] if isinstance(fill_value, int) and not isinstance(fill_value, bool) else default["dtype"]
        )
        return _factory(fill_value)(*_shape_args((size,)), dtype=d, device=device)

    torch.full = full

    def tensor(data, dtype=None, device=None, pin_memory=False, requires_grad=False):
        values, shape = _flatten(data)
        if dtype is None:
            if isinstance(data, Tensor):
                dtype = data.dtype
            elif values and all(isinstance(v, bool) for v in values):
                dtype = DTYPES["bool"]
            elif values and all(isinstance(v, int) for v in values):
                dtype = DTYPES["int64"]
            else:
                dtype = default["dtype"]
        return _make(values, shape, dtype, device)

    torch.tensor = tensor
    torch.as_tensor = tensor

    def arange(start, end=None, step=1, dtype=None, device=None, **kw):
        if end is None:
            start, end = 0, start
        values = []
        v = start
        while (step > 0 and v < end) or (step < 0 and v > end):
            values.append(v)
            v += step
        if dtype is None:
            dtype = DTYPES["int64"] if all(isinstance(x, int) for x in (start, end, step)) else default["dtype"]
        return _make(values, (len(values),), dtype, device)

    torch.arange = arange

    def like(fill):
        def make(t, dtype=None, device=None, **kw):
            return _factory(fill)(*t.shape, dtype=dtype or t.dtype, device=device or t.device)

        return make

    torch.empty_like, torch.zeros_like, torch.ones_like = like(0), like(0), like(1)

    def full_like(t, fill_value, dtype=None, device=None, **kw):
        return _factory(fill_value)(*t.shape, dtype=dtype or t.dtype, device=device or t.device)

    torch.full_like = full_like

    def cat(tensors, dim=0, out=None):
        tensors = list(tensors)
        if not tensors:
            raise RuntimeError("torch.cat(): expected a non-empty list of Tensors")
        if not all(isinstance(t, Tensor) for t in tensors):
            raise TypeError("expected Tensor as element in the list")
        dt = tensors[0].dtype
        for t in tensors[1:]:
            dt = promote(dt, t.dtype)
        devices = {t.device for t in tensors}
        if len(devices) > 1:
            raise RuntimeError("Expected all tensors to be on the same device, but found at least two devices")
        ref = [t for t in tensors if t.dim() > 0]
        if not ref:
            raise RuntimeError("zero-dimensional tensor cannot be concatenated")
        nd = ref[0].dim()
        d = dim % nd
        parts = []
        for t in ref:
            if t.dim() != nd or any(t.shape[i] != ref[0].shape[i] for i in range(nd) if i != d):
                raise RuntimeError("Sizes of tensors must match except in dimension %d" % d)
            parts.append(t if t.dtype is dt else t.to(dt))
        # move dim d to the front, concatenate, move back
        perm = [d] + [i for i in range(nd) if i != d]
        inv = [perm.index(i) for i in range(nd)]
        values, lead = [], 0
        for t in parts:
            values.extend(t.permute(*perm)._values())
            lead += t.shape[d]
        shape = (lead,) + tuple(ref[0].shape[i] for i in range(nd) if i != d)
        front = Tensor.from_values(values, shape, dt, ref[0].device, torch, convert=False)
        return front.permute(*inv).contiguous()

    torch.cat = cat
    torch.concat = cat
    torch.concatenate = cat

    def stack(tensors, dim=0):
        tensors = list(tensors)
        return cat([t.unsqueeze(dim) for t in tensors], dim)

    torch.stack = stack

    def cumsum(t, dim=0, dtype=None, out=None):
        result = t.cumsum(dim, dtype=dtype)
        if out is not None:
            out.copy_(result)
            return out
        return result

    torch.cumsum = cumsum
    torch.clamp = lambda t, min=None, max=None: t.clamp(min=min, max=max)

    def unique(t, sorted=True, return_inverse=False, **kw):  # noqa: A002 - torch's keyword
        values = [int(v) if t.dtype.kind in ("int", "bool") else v for v in t._values()]
        kept = builtins_sorted(set(values))
        out = Tensor.from_values(kept, (len(kept),), t.dtype, t.device, torch)
        if not return_inverse:
            return out
        where = {v: i for i, v in enumerate(kept)}
        inverse = Tensor.from_values([where[v] for v in values], t.shape, DTYPES["int64"], t.device, torch)
        return out, inverse

    torch.unique = unique
    torch.zeros_like = lambda t, dtype=None, device=None, **kw: torch.zeros(
        *t.shape, dtype=dtype or t.dtype, device=device or t.device
    )
    torch.index_select = lambda t, dim, index: t.index_select(dim, index)
    torch.gather = lambda t, dim, index: t.gather(dim, index)
    torch.is_tensor = lambda x: isinstance(x, Tensor)
    torch.is_floating_point = lambda t: t.is_floating_point()
    torch.numel = lambda t: t.numel()
    torch.get_default_dtype = lambda: default["dtype"]
    torch.set_default_dtype = lambda d: default.__setitem__("dtype", d)
    torch.manual_seed = lambda seed: None
    torch.no_grad = _NoGrad
    torch.inference_mode = _NoGrad
    torch.enable_grad = _NoGrad

    def compile(fn=None, **kw):  # noqa: A001 - torch.compile
        return fn if fn is not None else (lambda f: f)

    torch.compile = compile

    class finfo:
        _TABLE = {
            "float32": (3.4028234663852886e38, 1.1920928955078125e-07, 1.1754943508222875e-38),
            "float64": (1.7976931348623157e308, 2.220446049250313e-16, 2.2250738585072014e-308),
            "float16": (65504.0, 0.0009765625, 6.103515625e-05),
            "bfloat16": (3.3895313892515355e38, 0.0078125, 1.1754943508222875e-38),
            "float8_e4m3fn": (448.0, 0.125, 0.015625),
            "float8_e5m2": (57344.0, 0.25, 6.103515625e-05),
        }

        def __init__(self, d=None):
            d = d or default["dtype"]
            self.max, self.eps, self.tiny = self._TABLE[d.name]
            self.min, self.bits, self.dtype = -self.max, d.itemsize * 8, d.name

    class iinfo:
        def __init__(self, d):
            bits = d.itemsize * 8
            self.bits = bits
            self.min, self.max = (
                (0, (1 << bits) - 1) if d.name == "uint8" else (-(1 << (bits - 1)), (1 << (bits - 1)) - 1)
            )

    torch.finfo, torch.iinfo = finfo, iinfo
    torch.inf, torch.nan, torch.pi, torch.e = math.inf, math.nan, math.pi, math.e

    # -- torch.cuda --------------------------------------------------------------------
    state = {"capability": tuple(capability), "available": cuda_available}
    cuda = types.ModuleType("torch.cuda")
    cuda.is_available = lambda: state["available"]
    cuda.get_device_capability = lambda device=None: state["capability"]
    cuda.get_device_name = lambda device=None: device_name
    cuda.current_device = lambda: 0
    cuda.device_count = lambda: 1 if state["available"] else 0
    cuda.synchronize = lambda device=None: None
    cuda.is_current_stream_capturing = lambda: False
    cuda.get_device_properties = lambda device=None: types.SimpleNamespace(
        major=state["capability"][0],
        minor=state["capability"][1],
        name=device_name,
        multi_processor_count=132,
        total_memory=141 << 30,
    )
    cuda.set_device = lambda device: None
    cuda.empty_cache = lambda: None

    class Stream:
        def __init__(self, *a, **k):
            pass

        def wait_stream(self, other):
            pass

        def synchronize(self):
            pass

    cuda.Stream = Stream
    cuda.current_stream = lambda device=None: Stream()
    cuda.stream = lambda s: contextlib.nullcontext()
    torch.cuda = cuda
    torch._faketorch_state = state

    # -- submodules that backends import ----------------------------------------------------
    nn = types.ModuleType("torch.nn")
    nn.Module = type("Module", (), {"__init__": lambda self, *a, **k: None})
    functional = FakeTorchModule("torch.nn.functional")
    nn.functional = functional
    torch.nn = nn
    distributed = FakeTorchModule("torch.distributed")
    distributed.is_initialized = lambda: False
    torch.distributed = distributed
    torch.submodules = {
        "torch.cuda": cuda,
        "torch.nn": nn,
        "torch.nn.functional": functional,
        "torch.distributed": distributed,
    }
    reorder.install(torch, Tensor)
    return torch


def fake_device(spec: Optional[str] = None) -> device:
    return as_device(spec)
