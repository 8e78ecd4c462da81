"""A small, pure-Python torch: strided tensors of Python numbers with a dtype and a device.

Enough of torch for attention-backend code paths: views share storage (a write
through `pool[loc] = x` or `set_kv_buffer` is seen by every view, and not by a
converted copy), `.to()` returns `self` when nothing changes (as torch does) and
a rounded copy otherwise, advanced indexing copies, fp8/bf16/fp16/fp32 rounding
is modelled so that the order of casts is visible, and mixing float8 with
anything in arithmetic or `cat` raises, as torch does.

Not a numerical library: values are Python floats, loops are Python loops, and
anything unsupported raises `FakeTorchUnsupported` (the same way for the
original and the fixed module, so an equivalence check still compares like with like).
"""

from __future__ import annotations

import math
import operator
import struct
from typing import List, Optional, Sequence, Tuple

from faketorch.reorder import ReorderOps

MAX_ELEMENTS = 4_000_000  # materializing more than this is refused (workspaces stay lazy)


class FakeTorchUnsupported(NotImplementedError):
    """The fake torch does not model this operation."""


# -- dtypes ------------------------------------------------------------------------


def _round_f32(x: float) -> float:
    try:
        return struct.unpack("f", struct.pack("f", x))[0]
    except OverflowError:
        return math.copysign(math.inf, x)


def _round_f16(x: float) -> float:
    try:
        return struct.unpack("e", struct.pack("e", x))[0]
    except OverflowError:
        return math.copysign(math.inf, x)


def _round_bf16(x: float) -> float:
    if math.isnan(x) or math.isinf(x):
        return x
    try:
        bits = struct.unpack("I", struct.pack("f", x))[0]
    except OverflowError:
        return math.copysign(math.inf, x)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000  # round to nearest even
    return struct.unpack("f", struct.pack("I", bits))[0]


def _fp8(mantissa_bits: int, min_exp: int, max_value: float, overflow_nan: bool):
    def rnd(x: float) -> float:
        if math.isnan(x):
            return x
        if math.isinf(x):
            return math.nan if overflow_nan else x
        if x == 0.0:
            return float(x)
        e = max(math.floor(math.log2(abs(x))), min_exp)
        step = 2.0 ** (e - mantissa_bits)
        y = round(x / step) * step  # Python round: half to even
        if abs(y) > max_value:
            return math.nan if overflow_nan else math.copysign(math.inf, x)
        return y

    return rnd


def _int_of(bits: int, signed: bool):
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    span = 1 << bits

    def rnd(x):
        if isinstance(x, float):
            if math.isnan(x) or math.isinf(x):
                return lo
            x = int(x)  # toward zero
        x = int(x)
        return ((x - lo) % span) + lo if not lo <= x <= hi else x

    return rnd


class dtype:
    """torch.dtype: a name, an itemsize and a rounding function."""

    def __init__(self, name: str, itemsize: int, kind: str, rounder, rank: int = 0):
        self.name, self.itemsize, self.kind, self._round, self.rank = name, itemsize, kind, rounder, rank
        self._memo = {}  # value -> rounded value (low-precision values repeat a lot)

    @property
    def is_floating_point(self) -> bool:
        return self.kind == "float"

    @property
    def is_signed(self) -> bool:
        return self.name not in ("uint8", "bool")

    @property
    def is_fp8(self) -> bool:
        return self.name.startswith("float8")

    def convert(self, value):
        memo = self._memo
        out = memo.get(value)
        if out is None or value == 0:  # 0.0 and -0.0 share a key
            out = self._round(value)
            if len(memo) < 1 << 16:
                memo[value] = out
        return out

    def __repr__(self):
        return f"torch.{self.name}"

    __str__ = __repr__

    def __reduce__(self):  # dtypes are singletons of one fake torch
        raise TypeError("fake dtypes are not picklable")


def _bool(x):
    return bool(x)


DTYPES = {
    "float64": dtype("float64", 8, "float", float, 4),
    "float32": dtype("float32", 4, "float", _round_f32, 3),
    "float16": dtype("float16", 2, "float", _round_f16, 2),
    "bfloat16": dtype("bfloat16", 2, "float", _round_bf16, 2),
    "float8_e4m3fn": dtype("float8_e4m3fn", 1, "float", _fp8(3, -6, 448.0, True), 1),
    "float8_e5m2": dtype("float8_e5m2", 1, "float", _fp8(2, -14, 57344.0, False), 1),
    "int64": dtype("int64", 8, "int", _int_of(64, True)),
    "int32": dtype("int32", 4, "int", _int_of(32, True)),
    "int16": dtype("int16", 2, "int", _int_of(16, True)),
    "int8": dtype("int8", 1, "int", _int_of(8, True)),
    "uint8": dtype("uint8", 1, "int", _int_of(8, False)),
    "bool": dtype("bool", 1, "bool", _bool),
}
# (from, to) float conversions that keep every value exactly: no rounding to do
WIDENING = {
    (a, b)
    for a, wider in {
        "float8_e4m3fn": ("bfloat16", "float16", "float32", "float64"),
        "float8_e5m2": ("bfloat16", "float16", "float32", "float64"),
        "bfloat16": ("float32", "float64"),
        "float16": ("float32", "float64"),
        "float32": ("float64",),
    }.items()
    for b in wider
}
ALIASES = {
    "float": "float32",
    "half": "float16",
    "double": "float64",
    "long": "int64",
    "int": "int32",
    "short": "int16",
}


def _fp8_tables(d: dtype) -> Tuple[List[float], dict]:
    """decode[byte] -> value and encode[value] -> byte, for viewing fp8 as uint8."""
    m = 3 if d.name == "float8_e4m3fn" else 2
    e_bits = 7 - m
    bias = (1 << (e_bits - 1)) - 1
    decode = []
    for byte in range(256):
        sign = -1.0 if byte & 0x80 else 1.0
        exp = (byte >> m) & ((1 << e_bits) - 1)
        man = byte & ((1 << m) - 1)
        if d.name == "float8_e4m3fn" and exp == 15 and man == 7:
            decode.append(math.nan)
        elif d.name == "float8_e5m2" and exp == 31:
            decode.append(math.nan if man else sign * math.inf)
        elif exp == 0:
            decode.append(sign * man * 2.0 ** (1 - bias - m))
        else:
            decode.append(sign * (1 + man / (1 << m)) * 2.0 ** (exp - bias))
    encode = {}
    for byte, value in enumerate(decode):
        if not math.isnan(value):
            encode.setdefault(value, byte)
    encode[0.0] = 0
    return decode, encode


_TABLES = {}


def _lens(src: dtype, dst: dtype):
    """value-in-src-dtype -> value-in-dst-dtype for a same-size reinterpreting view."""
    if src is dst:
        return None
    pair = tuple(sorted((src.name, dst.name)))
    if pair in (("float8_e4m3fn", "uint8"), ("float8_e5m2", "uint8")):
        fp8 = src if src.is_fp8 else dst
        if fp8.name not in _TABLES:
            _TABLES[fp8.name] = _fp8_tables(fp8)
        decode, encode = _TABLES[fp8.name]
        if src.is_fp8:
            return lambda v: 0x7F if math.isnan(v) else encode[v]
        return lambda v: decode[int(v) & 0xFF]
    raise FakeTorchUnsupported(f"view({dst}) of a {src} tensor")


def promote(a: dtype, b: dtype) -> dtype:
    if a is b:
        return a
    if a.is_fp8 or b.is_fp8:
        raise RuntimeError(f"Promotion for Float8 Types is not supported, attempted to promote {a} and {b}")
    if a.kind == "float" and b.kind == "float":
        if a.rank == b.rank:  # bfloat16 with float16
            return DTYPES["float32"]
        return a if a.rank > b.rank else b
    if a.kind == "float":
        return a
    if b.kind == "float":
        return b
    if a.kind == "bool":
        return b
    if b.kind == "bool":
        return a
    return a if a.itemsize >= b.itemsize else b


# -- devices -------------------------------------------------------------------------


class device:
    def __init__(self, spec="cpu", index: Optional[int] = None):
        if isinstance(spec, device):
            spec, index = spec.type, spec.index
        spec = str(spec)
        if ":" in spec:
            spec, idx = spec.split(":", 1)
            index = int(idx)
        if spec not in ("cpu", "cuda", "meta", "xpu"):
            raise RuntimeError(f"Expected one of cpu, cuda, ... device type at start of device string: {spec}")
        if spec == "cuda" and index is None:
            index = 0
        self.type, self.index = spec, index

    def __eq__(self, other):
        if isinstance(other, str):
            other = device(other)
        return isinstance(other, device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self):
        return hash((self.type, self.index))

    def __enter__(self):  # `with torch.device("cuda"):` sets the default device; tensors here are explicit
        return self

    def __exit__(self, *exc):
        return False

    def __repr__(self):
        return f"device(type='{self.type}'" + (f", index={self.index})" if self.index is not None else ")")

    def __str__(self):
        return self.type + (f":{self.index}" if self.index is not None else "")


def as_device(spec) -> device:
    if isinstance(spec, device):
        return spec
    if isinstance(spec, int):
        return device("cuda", spec)
    return device(spec if spec is not None else "cpu")


# -- storage and tensors -------------------------------------------------------------


class Storage:
    """A flat list of values in `dtype`, allocated on first element access."""

    def __init__(self, n: int, dtype_: dtype, fill=0, data: Optional[list] = None):
        self.n, self.dtype, self.fill, self._data = n, dtype_, fill, data

    @property
    def data(self) -> list:
        if self._data is None:
            if self.n > MAX_ELEMENTS:
                raise FakeTorchUnsupported(f"materializing a {self.n}-element tensor")
            self._data = [self.fill] * self.n
        return self._data


def _prod(shape: Sequence[int]) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


def _contiguous_strides(shape: Sequence[int]) -> Tuple[int, ...]:
    strides, acc = [], 1
    for s in reversed(shape):
        strides.append(acc)
        acc *= max(s, 1)
    return tuple(reversed(strides))


class Size(tuple):
    def numel(self):
        return _prod(self)

    def __repr__(self):
        return f"torch.Size({list(self)})"


def _shape_args(args) -> Tuple[int, ...]:
    if len(args) == 1 and isinstance(args[0], (tuple, list, Size)):
        args = tuple(args[0])
    return tuple(int(a) for a in args)


class Tensor(ReorderOps):
    """A strided view of a Storage."""

    __hash__ = object.__hash__
    __array_priority__ = 100

    def __init__(self, storage: Storage, shape, stride, offset: int, dtype_: dtype, device_: device, torch=None):
        self._storage, self._shape, self._stride, self._offset = storage, tuple(shape), tuple(stride), offset
        self.dtype, self.device, self._torch = dtype_, device_, torch
        self._lens = _lens(storage.dtype, dtype_) if storage.dtype is not dtype_ else None
        self._unlens = _lens(dtype_, storage.dtype) if storage.dtype is not dtype_ else None

    # -- construction helpers ----------------------------------------------------
    @classmethod
    def from_values(cls, values: list, shape, dtype_: dtype, device_: device, torch=None, convert=True):
        values = [dtype_.convert(v) for v in values] if convert else list(values)
        return cls(
            Storage(len(values), dtype_, data=values), shape, _contiguous_strides(shape), 0, dtype_, device_, torch
        )

    def _like(self, values, shape=None, dtype_=None, device_=None, convert=False):
        return Tensor.from_values(
            values,
            self._shape if shape is None else shape,
            dtype_ or self.dtype,
            device_ or self.device,
            self._torch,
            convert,
        )

    def _view(self, shape, stride, offset):
        t = Tensor(self._storage, shape, stride, offset, self.dtype, self.device, self._torch)
        return t

    # -- element access --------------------------------------------------------------
    def _flat_indices(self) -> List[int]:
        idx = [self._offset]
        for size, stride in zip(self._shape, self._stride):
            idx = [base + i * stride for base in idx for i in range(size)]
        return idx

    def _values(self) -> list:
        data = self._storage.data
        out = [data[i] for i in self._flat_indices()]
        return [self._lens(v) for v in out] if self._lens else out

    def _write(self, flat: List[int], values: list):
        data = self._storage.data
        if self._unlens:
            values = [self._unlens(v) for v in values]
        for i, v in zip(flat, values):
            data[i] = v

    # -- metadata --------------------------------------------------------------------
    @property
    def shape(self) -> Size:
        return Size(self._shape)

    def size(self, dim: Optional[int] = None):
        if dim is None:
            return Size(self._shape)
        return self._shape[self._dim(dim)]

    def dim(self) -> int:
        return len(self._shape)

    ndim = property(dim)

    def numel(self) -> int:
        return _prod(self._shape)

    nelement = numel

    def element_size(self) -> int:
        return self.dtype.itemsize

    def stride(self, dim: Optional[int] = None):
        return self._stride if dim is None else self._stride[self._dim(dim)]

    def storage_offset(self) -> int:
        return self._offset

    def data_ptr(self) -> int:
        return id(self._storage) * 16 + self._offset * self.dtype.itemsize

    def is_contiguous(self) -> bool:
        expected = _contiguous_strides(self._shape)
        return all(s == e or size == 1 for s, e, size in zip(self._stride, expected, self._shape))

    @property
    def is_cuda(self) -> bool:
        return self.device.type == "cuda"

    def is_floating_point(self) -> bool:
        return self.dtype.is_floating_point

    def get_device(self) -> int:
        return self.device.index if self.device.type == "cuda" else -1

    def __len__(self):
        if not self._shape:
            raise TypeError("len() of a 0-d tensor")
        return self._shape[0]

    def _dim(self, d: int) -> int:
        n = len(self._shape)
        if not -max(n, 1) <= d < max(n, 1):
            raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {d})")
        return d % max(n, 1)

    def __repr__(self):
        vals = self._values() if self.numel() <= 8 else "..."
        return f"tensor({vals}, shape={list(self._shape)}, dtype={self.dtype}, device='{self.device}')"

    # -- python conversions ------------------------------------------------------------
    def tolist(self):
        vals = self._values()

        def build(shape, start):
            if not shape:
                return vals[start]
            step = _prod(shape[1:])
            return [build(shape[1:], start + i * step) for i in range(shape[0])]

        return build(self._shape, 0)

    def item(self):
        if self.numel() != 1:
            raise RuntimeError("a Tensor with %d elements cannot be converted to Scalar" % self.numel())
        return self._values()[0]

    def __bool__(self):
        if self.numel() != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self.item())

    def __int__(self):
        return int(self.item())

    def __float__(self):
        return float(self.item())

    def __index__(self):
        if self.dtype.kind not in ("int", "bool") or self.numel() != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __iter__(self):
        if not self._shape:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(self._shape[0]))

    # -- casts -------------------------------------------------------------------------
    def to(self, *args, **kwargs):
        target_dtype, target_device = None, None
        copy = bool(kwargs.pop("copy", False))
        kwargs.pop("non_blocking", None)
        kwargs.pop("memory_format", None)
        if "dtype" in kwargs:
            target_dtype = kwargs.pop("dtype")
        if "device" in kwargs:
            target_device = kwargs.pop("device")
        if "other" in kwargs:
            other = kwargs.pop("other")
            target_dtype, target_device = other.dtype, other.device
        if kwargs:
            raise TypeError(f"to() got unexpected keyword arguments {sorted(kwargs)}")
        for arg in args:
            if isinstance(arg, dtype):
                target_dtype = arg
            elif isinstance(arg, Tensor):
                target_dtype, target_device = arg.dtype, arg.device
            elif isinstance(arg, (str, device, int)) and not isinstance(arg, bool):
                target_device = arg
            elif isinstance(arg, bool):  # to(dtype, non_blocking, copy) positionally
                continue
            else:
                raise TypeError(f"to() received an invalid combination of arguments: {arg!r}")
        new_dtype = target_dtype if target_dtype is not None else self.dtype
        new_device = as_device(target_device) if target_device is not None else self.device
        if not isinstance(new_dtype, dtype):
            raise TypeError(f"to(): {new_dtype!r} is not a dtype")
        if new_dtype is self.dtype and new_device == self.device and not copy:
            return self
        values = self._values()
        if new_dtype is not self.dtype and (self.dtype.name, new_dtype.name) not in WIDENING:
            values = list(map(new_dtype.convert, values))
        return self._like(values, dtype_=new_dtype, device_=new_device)

    def _cast(self, name):
        return self.to(DTYPES[name])

    def float(self):
        return self._cast("float32")

    def half(self):
        return self._cast("float16")

    def bfloat16(self):
        return self._cast("bfloat16")

    def double(self):
        return self._cast("float64")

    def long(self):
        return self._cast("int64")

    def int(self):
        return self._cast("int32")

    def bool(self):
        return self._cast("bool")

    def type(self, dtype_=None, non_blocking=False):
        if dtype_ is None:
            return f"torch.{'cuda.' if self.is_cuda else ''}{self.dtype.name.capitalize()}Tensor"
        if isinstance(dtype_, str):
            raise FakeTorchUnsupported("Tensor.type(str)")
        return self.to(dtype_)

    def type_as(self, other):
        return self.to(other.dtype)

    def cuda(self, device_=None, non_blocking=False):
        return self.to(as_device(device_ if device_ is not None else "cuda"))

    def cpu(self):
        return self.to("cpu")

    def clone(self, memory_format=None):
        return self._like(self._values())

    def detach(self):
        return self._view(self._shape, self._stride, self._offset)

    def contiguous(self, memory_format=None):
        return self if self.is_contiguous() else self.clone()

    def numpy(self):
        raise FakeTorchUnsupported("numpy()")

    # -- views -------------------------------------------------------------------------
    def view(self, *shape):
        if len(shape) == 1 and isinstance(shape[0], dtype):
            new = shape[0]
            if new is self.dtype:
                return self._view(self._shape, self._stride, self._offset)
            if new.itemsize != self.dtype.itemsize:
                raise FakeTorchUnsupported(f"view({new}) of a {self.dtype} tensor (itemsize change)")
            t = Tensor(self._storage, self._shape, self._stride, self._offset, new, self.device, self._torch)
            return t
        shape = self._infer(_shape_args(shape))
        if not self.is_contiguous():
            split = self._split_rows(shape)
            if split is None:
                raise RuntimeError("view size is not compatible with input tensor's size and stride; use .reshape(...)")
            return self._view(shape, split, self._offset)
        return self._view(shape, _contiguous_strides(shape), self._offset)

    def _split_rows(self, shape):
        """Strides for a view that splits dim 0 into (a, b) and keeps, or flattens size-1
        dims out of, the rest (torch allows it on a strided slice); None otherwise."""
        if len(shape) < 2 or not self._shape or shape[0] * shape[1] != self._shape[0]:
            return None
        rest_old = [(n, st) for n, st in zip(self._shape[1:], self._stride[1:]) if n != 1]
        rest_new = [n for n in shape[2:] if n != 1]
        if [n for n, _ in rest_old] != rest_new:
            return None
        inner = iter(st for _, st in rest_old)
        row = self._stride[0]
        return (row * shape[1], row, *(next(inner) if n != 1 else 1 for n in shape[2:]))

    def _infer(self, shape: Tuple[int, ...]) -> Tuple[int, ...]:
        if -1 in shape:
            known = _prod([s for s in shape if s != -1])
            if known == 0 or self.numel() % known:
                raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {self.numel()}")
            shape = tuple(self.numel() // known if s == -1 else s for s in shape)
        if _prod(shape) != self.numel():
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {self.numel()}")
        return shape

    def reshape(self, *shape):
        shape = self._infer(_shape_args(shape))
        return self.view(*shape) if self.is_contiguous() else self.clone().view(*shape)

    def view_as(self, other):
        return self.view(*other.shape)

    def unflatten(self, dim, sizes):
        dim = dim % len(self._shape)
        sizes = list(sizes)
        if -1 in sizes:
            known = _prod([n for n in sizes if n != -1])
            sizes = [self._shape[dim] // known if n == -1 else n for n in sizes]
        shape = (*self._shape[:dim], *sizes, *self._shape[dim + 1 :])
        if dim == 0 and not self.is_contiguous():
            return self.view(*shape)
        return self.reshape(*shape)

    def reshape_as(self, other):
        return self.reshape(*other.shape)

    def flatten(self, start_dim=0, end_dim=-1):
        if not self._shape:
            return self.reshape(1)
        s, e = self._dim(start_dim), self._dim(end_dim)
        shape = self._shape[:s] + (_prod(self._shape[s : e + 1]),) + self._shape[e + 1 :]
        return self.reshape(*shape)

    def unsqueeze(self, d):
        d = d % (len(self._shape) + 1) if d < 0 else d
        stride = self._stride[d] * self._shape[d] if d < len(self._shape) else 1
        return self._view(
            self._shape[:d] + (1,) + self._shape[d:], self._stride[:d] + (stride,) + self._stride[d:], self._offset
        )

    def squeeze(self, d=None):
        if d is None:
            keep = [i for i, s in enumerate(self._shape) if s != 1]
        else:
            d = self._dim(d)
            keep = [i for i in range(len(self._shape)) if i != d or self._shape[i] != 1]
        return self._view(tuple(self._shape[i] for i in keep), tuple(self._stride[i] for i in keep), self._offset)

    def permute(self, *dims):
        dims = _shape_args(dims)
        dims = tuple(self._dim(d) for d in dims)
        return self._view(tuple(self._shape[d] for d in dims), tuple(self._stride[d] for d in dims), self._offset)

    def transpose(self, a, b):
        dims = list(range(len(self._shape)))
        a, b = self._dim(a), self._dim(b)
        dims[a], dims[b] = dims[b], dims[a]
        return self.permute(*dims)

    def t(self):
        return self.transpose(0, 1) if len(self._shape) == 2 else self

    def narrow(self, dim, start, length):
        d = self._dim(dim)
        key = [slice(None)] * d + [slice(start, start + length)]
        return self[tuple(key)]

    def expand(self, *shape):
        shape = _shape_args(shape)
        lead = len(shape) - len(self._shape)
        if lead < 0:
            raise RuntimeError("expand: the number of sizes provided must be >= the number of dimensions")
        stride = [0] * lead + list(self._stride)
        new = list(shape)
        for i, s in enumerate(shape):
            if i < lead:
                continue
            old = self._shape[i - lead]
            if s == -1:
                new[i] = old
            elif old != s:
                if old != 1:
                    raise RuntimeError(f"The expanded size of the tensor ({s}) must match the existing size ({old})")
                stride[i] = 0
        return self._view(tuple(new), tuple(stride), self._offset)

    def split(self, size, dim=0):
        d = self._dim(dim)
        n = self._shape[d]
        sizes = list(size) if isinstance(size, (list, tuple)) else [size] * ((n + size - 1) // max(size, 1))
        out, start = [], 0
        for s in sizes:
            s = min(s, n - start)
            out.append(self.narrow(d, start, s))
            start += s
        return tuple(out)

    def chunk(self, chunks, dim=0):
        n = self._shape[self._dim(dim)]
        return self.split(max(1, -(-n // chunks)), dim)

    def unbind(self, dim=0):
        d = self._dim(dim)
        return tuple(self.select(d, i) for i in range(self._shape[d]))

    def select(self, dim, index):
        d = self._dim(dim)
        return self[(slice(None),) * d + (index,)]

    # -- indexing ----------------------------------------------------------------------
    @staticmethod
    def _mask_coordinates(k):
        """A k-dim boolean mask as k index lists (torch: mask.nonzero() per dim), else (k,)."""
        if not (isinstance(k, Tensor) and k.dtype.kind == "bool" and k.dim() > 1):
            return (k,)
        coords = [[] for _ in range(k.dim())]
        for flat, keep in enumerate(k.contiguous()._values()):
            if keep:
                for d in reversed(range(k.dim())):
                    coords[d].append(flat % k._shape[d])
                    flat //= k._shape[d]
        return tuple(list(c) if c else [] for c in coords)

    def _index_plan(self, key):
        """Apply the basic parts of key as a view; return (view, advanced) where advanced
        is a list of (dim in view, list of ints, index shape) for tensor/list indices."""
        if not isinstance(key, tuple):
            key = (key,)
        # an object that is none of the index kinds but defines `__index__` is an int (torch calls it)
        key = tuple(
            operator.index(k)
            if not isinstance(k, (int, slice, list, Tensor, type(None), type(Ellipsis)))
            and hasattr(type(k), "__index__")
            else k
            for k in key
        )
        key = tuple(part for k in key for part in self._mask_coordinates(k))
        n_real = sum(1 for k in key if k is not None and k is not Ellipsis)
        if sum(1 for k in key if k is Ellipsis) > 1:
            raise IndexError("an index can only have a single ellipsis ('...')")
        expanded = []
        for k in key:
            if k is Ellipsis:
                expanded.extend([slice(None)] * (len(self._shape) - n_real))
            else:
                expanded.append(k)
        if n_real > len(self._shape):
            raise IndexError(f"too many indices for tensor of dimension {len(self._shape)}")
        shape, stride, offset = [], [], self._offset
        advanced = []
        dim = 0
        for k in expanded:
            if k is None:
                shape.append(1)
                stride.append(0)
                continue
            size, st = self._shape[dim], self._stride[dim]
            if isinstance(k, bool):
                raise FakeTorchUnsupported("bool scalar index")
            if isinstance(k, int) or (isinstance(k, Tensor) and k.dim() == 0 and k.dtype.kind == "int"):
                i = int(k)
                if not -size <= i < size:
                    raise IndexError(f"index {i} is out of bounds for dimension {dim} with size {size}")
                offset += (i % size) * st
            elif isinstance(k, slice):
                start, stop, step = k.indices(size)
                if step <= 0:
                    raise ValueError("step must be greater than zero")
                length = len(range(start, stop, step))
                offset += start * st if length else 0
                shape.append(length)
                stride.append(st * step)
            elif isinstance(k, (Tensor, list, tuple)):
                idx = k if isinstance(k, Tensor) else None
                if idx is not None:
                    if idx.dtype.kind == "float":
                        raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
                    if self.device.type == "cpu" and idx.device.type == "cuda":
                        raise RuntimeError(
                            "indices should be either on cpu or on the same device as the indexed "
                            f"tensor ({self.device})"
                        )
                    if idx.dtype.kind == "bool":
                        if idx.dim() != 1 or idx.numel() != size:
                            raise FakeTorchUnsupported("multi-dim boolean mask index")
                        ints, ishape = [i for i, b in enumerate(idx._values()) if b], None
                        ishape = (len(ints),)
                    else:
                        ints, ishape = [int(v) for v in idx._values()], idx._shape
                else:
                    ints, ishape = [int(v) for v in k], (len(k),)
                for i in ints:
                    if not -size <= i < size:
                        raise IndexError(f"index {i} is out of bounds for dimension {dim} with size {size}")
                advanced.append((len(shape), [i % size for i in ints], tuple(ishape)))
                shape.append(size)
                stride.append(st)
            else:
                raise TypeError(f"invalid index {k!r}")
            dim += 1
        shape.extend(self._shape[dim:])
        stride.extend(self._stride[dim:])
        return self._view(tuple(shape), tuple(stride), offset), advanced

    def _advanced_flat(self, view: "Tensor", advanced) -> Tuple[List[int], Tuple[int, ...]]:
        """Storage indices of view[advanced...] in result order, and the result shape."""
        if len(advanced) > 1:
            shapes = {a[2] for a in advanced}
            dims = [a[0] for a in advanced]
            if len(shapes) != 1 or dims != list(range(dims[0], dims[0] + len(dims))):
                raise FakeTorchUnsupported("several non-adjacent or differently shaped index tensors")
        first = advanced[0][0]
        ishape = advanced[0][2]
        adv_dims = {a[0] for a in advanced}
        n_idx = len(advanced[0][1])
        rest = [d for d in range(len(view._shape)) if d not in adv_dims]
        before = [d for d in rest if d < first]
        after = [d for d in rest if d > first]
        result_shape = tuple(view._shape[d] for d in before) + ishape + tuple(view._shape[d] for d in after)

        def ranges(dims):
            combos = [0]
            for d in dims:
                combos = [c + i * view._stride[d] for c in combos for i in range(view._shape[d])]
            return combos

        pre, post = ranges(before), ranges(after)
        flat = []
        for p in pre:
            for j in range(n_idx):
                base = view._offset + p + sum(a[1][j] * view._stride[a[0]] for a in advanced)
                for q in post:
                    flat.append(base + q)
        return flat, result_shape

    def __getitem__(self, key):
        view, advanced = self._index_plan(key)
        if not advanced:
            return view
        flat, shape = self._advanced_flat(view, advanced)
        data = self._storage.data
        values = [data[i] for i in flat]
        if self._lens:
            values = [self._lens(v) for v in values]
        return self._like(values, shape=shape)

    def __setitem__(self, key, value):
        view, advanced = self._index_plan(key)
        if advanced:
            flat, shape = self._advanced_flat(view, advanced)
            if isinstance(value, Tensor) and value.dtype is not self.dtype:
                raise RuntimeError(
                    f"Index put requires the source and destination dtypes match, got {self.dtype} "
                    f"for the destination and {value.dtype} for the source."
                )
        else:
            flat, shape = view._flat_indices(), view._shape
        values = _broadcast_values(value, shape, self.dtype)
        self._write(flat, values)

    # -- gathers -----------------------------------------------------------------------
    def index_select(self, dim, index):
        d = self._dim(dim)
        if not isinstance(index, Tensor) or index.dim() > 1:
            raise IndexError("index_select(): Index is supposed to be a vector")
        if index.device != self.device:
            raise RuntimeError(
                f"Expected all tensors to be on the same device, but found {self.device} and {index.device}"
            )
        return self[(slice(None),) * d + (index.reshape(-1),)]

    def gather(self, dim, index):
        d = self._dim(dim)
        if index.dim() != self.dim():
            raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
        out = []
        ivals = index._values()
        ishape = index._shape
        strides = _contiguous_strides(ishape)
        for flat, iv in enumerate(ivals):
            coords = [(flat // s) % n for s, n in zip(strides, ishape)]
            coords[d] = int(iv)
            out.append(self[tuple(coords)].item())
        return self._like(out, shape=ishape)

    def masked_fill(self, mask, value):
        vals = self._values()
        m = _broadcast_values(mask, self._shape, DTYPES["bool"])
        return self._like([self.dtype.convert(value) if b else v for v, b in zip(vals, m)])

    # -- in place ----------------------------------------------------------------------
    def copy_(self, src, non_blocking=False):
        self._write(self._flat_indices(), _broadcast_values(src, self._shape, self.dtype))
        return self

    def fill_(self, value):
        self._write(self._flat_indices(), [self.dtype.convert(value)] * self.numel())
        return self

    def zero_(self):
        return self.fill_(0)

    def index_copy_(self, dim, index, source):
        d = self._dim(dim)
        self[(slice(None),) * d + (index,)] = source
        return self

    def _inplace(self, other, op):
        result = _binary(self, other, op)
        if result.dtype is not self.dtype and not (self.dtype.kind == "float" and result.dtype.kind == "float"):
            raise RuntimeError(f"result type {result.dtype} can't be cast to the desired output type {self.dtype}")
        return self.copy_(result)

    def add_(self, other, alpha=1):
        return self._inplace(other if alpha == 1 else other * alpha, lambda a, b: a + b)

    def sub_(self, other):
        return self._inplace(other, lambda a, b: a - b)

    def mul_(self, other):
        return self._inplace(other, lambda a, b: a * b)

    def div_(self, other):
        return self._inplace(other, _div)

    def clamp_(self, min=None, max=None):
        return self.copy_(self.clamp(min, max))

    # -- arithmetic --------------------------------------------------------------------
    def __add__(self, o):
        return _binary(self, o, lambda a, b: a + b)

    def __radd__(self, o):
        return _binary(o, self, lambda a, b: a + b)

    def __sub__(self, o):
        return _binary(self, o, lambda a, b: a - b)

    def __rsub__(self, o):
        return _binary(o, self, lambda a, b: a - b)

    def __mul__(self, o):
        return _binary(self, o, lambda a, b: a * b)

    def __rmul__(self, o):
        return _binary(o, self, lambda a, b: a * b)

    def __truediv__(self, o):
        return _binary(self, o, _div, true_div=True)

    def __rtruediv__(self, o):
        return _binary(o, self, _div, true_div=True)

    def __floordiv__(self, o):
        return _binary(self, o, lambda a, b: a // b if b else (math.inf if a else math.nan))

    def __rfloordiv__(self, o):
        return _binary(o, self, lambda a, b: a // b if b else (math.inf if a else math.nan))

    def __mod__(self, o):
        return _binary(self, o, lambda a, b: a % b)

    def __neg__(self):
        return _binary(self, -1, lambda a, b: a * b)

    def __iadd__(self, o):
        return self.add_(o)

    def __isub__(self, o):
        return self.sub_(o)

    def __imul__(self, o):
        return self.mul_(o)

    def __itruediv__(self, o):
        return self.div_(o)

    def __eq__(self, o):
        return _binary(self, o, lambda a, b: a == b, out_dtype=DTYPES["bool"])

    def __ne__(self, o):
        return _binary(self, o, lambda a, b: a != b, out_dtype=DTYPES["bool"])

    def __lt__(self, o):
        return _binary(self, o, lambda a, b: a < b, out_dtype=DTYPES["bool"])

    def __le__(self, o):
        return _binary(self, o, lambda a, b: a <= b, out_dtype=DTYPES["bool"])

    def __gt__(self, o):
        return _binary(self, o, lambda a, b: a > b, out_dtype=DTYPES["bool"])

    def __ge__(self, o):
        return _binary(self, o, lambda a, b: a >= b, out_dtype=DTYPES["bool"])

    def abs(self):
        _no_fp8(self)
        return self._like([abs(v) for v in self._values()])

    def clamp(self, min=None, max=None):
        _no_fp8(self)
        vals = self._values()
        if min is not None:
            vals = [v if v >= min else self.dtype.convert(min) for v in vals]
        if max is not None:
            vals = [v if v <= max else self.dtype.convert(max) for v in vals]
        return self._like(vals)

    def sum(self, dim=None, keepdim=False, dtype=None):
        _no_fp8(self)
        if dim is None:
            out = self.dtype if self.dtype.kind == "float" else DTYPES["int64"]
            return self._like([out.convert(math.fsum(self._values()))], shape=(), dtype_=dtype or out)
        raise FakeTorchUnsupported("sum(dim=...)")

    def cumsum(self, dim, dtype=None):
        if self.dim() != 1:
            raise FakeTorchUnsupported("cumsum of a tensor with more than one dimension")
        out, acc = [], 0
        for v in self._values():
            acc += v
            out.append(acc)
        d = dtype or (self.dtype if self.dtype.kind == "float" else DTYPES["int64"])
        return self._like(out, dtype_=d, convert=True)

    def max(self):
        _no_fp8(self)
        return self._like([max(self._values())], shape=())

    def min(self):
        _no_fp8(self)
        return self._like([min(self._values())], shape=())

    def new_empty(self, *size, dtype=None, device=None):
        return self._torch.zeros(*size, dtype=dtype or self.dtype, device=device or self.device)

    new_zeros = new_empty

    def new_tensor(self, data, dtype=None, device=None):
        return self._torch.tensor(data, dtype=dtype or self.dtype, device=device or self.device)


def _div(a, b):
    try:
        return a / b
    except ZeroDivisionError:
        return math.nan if a == 0 or (isinstance(a, float) and math.isnan(a)) else math.copysign(math.inf, a)


def _no_fp8(t: Tensor):
    if t.dtype.is_fp8:
        raise RuntimeError(f'"{t.dtype.name}" arithmetic is not implemented for Float8 tensors')


def broadcast_shapes(a: Sequence[int], b: Sequence[int]) -> Tuple[int, ...]:
    out = []
    for x, y in zip(reversed((1,) * (len(b) - len(a)) + tuple(a)), reversed((1,) * (len(a) - len(b)) + tuple(b))):
        if x != y and 1 not in (x, y):
            raise RuntimeError(f"The size of tensor a ({x}) must match the size of tensor b ({y})")
        out.append(max(x, y) if 1 in (x, y) and 0 not in (x, y) else (x if x == y else 0))
    return tuple(reversed(out))


def _broadcast_values(value, shape, dtype_: dtype) -> list:
    n = _prod(shape)
    if not isinstance(value, Tensor):
        if isinstance(value, (list, tuple)):
            raise FakeTorchUnsupported("assigning a Python list")
        return [dtype_.convert(value)] * n
    if value.dtype is not dtype_:
        vals = [dtype_.convert(v) for v in value._values()]
    else:
        vals = value._values()
    if tuple(value._shape) == tuple(shape):
        return vals
    target = broadcast_shapes(value._shape, shape)
    if target != tuple(shape):
        raise RuntimeError(
            f"shape mismatch: value tensor of shape {list(value._shape)} cannot be broadcast to "
            f"indexing result of shape {list(shape)}"
        )
    src = Tensor.from_values(vals, value._shape, dtype_, value.device, convert=False).expand(*shape)
    return src._values()


def _binary(a, b, op, true_div=False, out_dtype: Optional[dtype] = None) -> Tensor:
    ta, tb = isinstance(a, Tensor), isinstance(b, Tensor)
    t = a if ta else b
    if ta and tb:
        if a.device != b.device and a.dim() and b.dim():
            raise RuntimeError(
                f"Expected all tensors to be on the same device, but found at least two devices, "
                f"{a.device} and {b.device}!"
            )
        dt = promote(a.dtype, b.dtype)
        shape = broadcast_shapes(a._shape, b._shape)
        av = a.expand(*shape)._values() if tuple(a._shape) != shape else a._values()
        bv = b.expand(*shape)._values() if tuple(b._shape) != shape else b._values()
    else:
        scalar = b if ta else a
        if isinstance(scalar, (list, tuple)):
            raise FakeTorchUnsupported("arithmetic with a Python list")
        if not isinstance(scalar, (int, float, bool)):
            return NotImplemented
        dt = t.dtype
        if dt.is_fp8:
            raise RuntimeError(f'"{dt.name}" arithmetic is not implemented for Float8 tensors')
        if dt.kind != "float" and isinstance(scalar, float):
            dt = DTYPES["float32"]
        shape = t._shape
        tv = t._values()
        av, bv = (tv, [scalar] * len(tv)) if ta else ([scalar] * len(tv), tv)
    if dt.is_fp8 and out_dtype is None:
        raise RuntimeError(f'"{dt.name}" arithmetic is not implemented for Float8 tensors')
    if true_div and dt.kind != "float":
        dt = DTYPES["float32"]
    res = out_dtype or dt
    return Tensor.from_values([op(x, y) for x, y in zip(av, bv)], shape, res, t.device, t._torch)
