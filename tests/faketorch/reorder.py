"""Whole-keeping ops of the fake torch: reorderings, replications, pads, joins and splits that keep
every slot of their input in its own dtype (rules/accessors.toml [views]), the `*_copy` forms of
views, dimension moves and einops' pack/unpack.

CL003's fix moves a cast after the gather that follows one of these (`torch.fliplr(kb).float()[loc]`
-> `torch.fliplr(kb)[loc].float()`): the op runs on the stored dtype in both, so the proof of
equivalence (tests/test_fix_equivalence_ops.py) needs them modelled as torch has them, including
where torch refuses a dtype: CPU `flip` of FP8 raises where it flips the innermost (stride-1)
dimension or the input has none (torch 2.13 dispatches those to its `flip_cpu` kernel, which has no
Float8 types; the other flips are row memcpys); CUDA's flip kernel has them. Values are copied
(new storage) where torch copies (flip, roll, rot90, tile, repeat, repeat_interleave, pads, joins,
`*_copy`), views share storage where torch returns views (moveaxis, splits, atleast_nd, mT).
"""

from __future__ import annotations

import itertools
import operator
from typing import List, Sequence, Tuple


def _ints(args) -> Tuple[int, ...]:
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = tuple(args[0])
    return tuple(int(a) for a in args)


def _row_major(shape: Sequence[int]) -> List[int]:
    strides, n = [], 1
    for size in reversed(shape):
        strides.append(n)
        n *= size
    return list(reversed(strides))


class ReorderOps:
    """Mixed into faketorch.tensor.Tensor."""

    # -- a new tensor whose element at each index is the input's element at src(index) ---------
    def _remap(self, shape, src) -> "ReorderOps":
        values = self._values()
        strides = _row_major(self._shape)
        mul = operator.mul
        out = [values[sum(map(mul, src(idx), strides))] for idx in itertools.product(*map(range, shape))]
        return self._like(out, shape=tuple(shape))

    def _dims(self, dims) -> Tuple[int, ...]:
        dims = tuple(self._dim(d) for d in dims)
        if len(set(dims)) != len(dims):
            raise RuntimeError("dims has duplicates")
        return dims

    # -- reorderings (copies) -----------------------------------------------------------------
    def flip(self, *dims):
        dims = self._dims(_ints(dims))
        if self.dtype.is_fp8 and self.device.type == "cpu":
            big = [d for d in range(len(self._shape)) if self._shape[d] > 1]
            inner = min(big, key=lambda d: abs(self._stride[d]), default=None)
            if inner is None or self._stride[inner] != 1 or inner in dims:
                raise NotImplementedError(f"\"flip_cpu\" not implemented for '{self.dtype.name.capitalize()}'")
        shape = self._shape
        return self._remap(shape, lambda idx: [shape[d] - 1 - i if d in dims else i for d, i in enumerate(idx)])

    def fliplr(self):
        if len(self._shape) < 2:
            raise RuntimeError("Input must be >= 2-d.")
        return self.flip(1)

    def flipud(self):
        if len(self._shape) < 1:
            raise RuntimeError("Input must be >= 1-d.")
        return self.flip(0)

    def roll(self, shifts, dims=None):
        shifts = _ints((shifts,))
        if dims is None:
            if len(shifts) != 1:
                raise RuntimeError("shifts and dimensions must align")
            return self.flatten().roll(shifts[0], 0).view(*self._shape)
        dims = self._dims(_ints((dims,)))
        if len(shifts) != len(dims):
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}")
        by = dict(zip(dims, shifts))
        shape = self._shape
        return self._remap(shape, lambda idx: [(i - by.get(d, 0)) % shape[d] for d, i in enumerate(idx)])

    def rot90(self, k=1, dims=(0, 1)):
        if len(dims) != 2:
            raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
        if len(self._shape) < 2:
            raise RuntimeError(f"expected total dims >= 2, but got total dims = {len(self._shape)}")
        a, b = self._dims(dims)
        k %= 4
        if k == 1:  # torch: flip({dims[1]}).transpose_(dims[0], dims[1])
            return self.flip(b).transpose(a, b)
        if k == 2:
            return self.flip(a, b)
        if k == 3:
            return self.flip(a).transpose(a, b)
        return self.clone()

    def resolve_conj(self):
        return self  # a real tensor has no conjugate bit: torch returns it

    def resolve_neg(self):
        return self

    def conj(self):
        return self

    # -- replications (copies) ----------------------------------------------------------------
    def repeat(self, *sizes):
        sizes = _ints(sizes)
        if len(sizes) < len(self._shape):
            raise RuntimeError(
                "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor"
            )
        lead = len(sizes) - len(self._shape)
        inner = (1,) * lead + tuple(self._shape)
        shape = tuple(n * r for n, r in zip(inner, sizes))
        return self._remap(shape, lambda idx: [i % inner[d] for d, i in enumerate(idx)][lead:])

    def tile(self, *dims):
        dims = _ints(dims)
        dims = (1,) * (len(self._shape) - len(dims)) + dims
        return self.repeat(*dims)

    def repeat_interleave(self, repeats, dim=None, output_size=None):
        if dim is None:
            return self.flatten().repeat_interleave(repeats, 0, output_size)
        d = self._dim(dim)
        n = self._shape[d]
        counts = repeats.tolist() if hasattr(repeats, "tolist") else repeats
        counts = [int(counts)] * n if isinstance(counts, int) else [int(c) for c in counts]
        if len(counts) == 1:
            counts = counts * n
        if len(counts) != n:
            raise RuntimeError("repeats must have the same size as input along dim")
        source = [i for i, c in enumerate(counts) for _ in range(c)]
        if output_size is not None and output_size != len(source):
            raise RuntimeError("allocated size does not match required size")
        shape = self._shape[:d] + (len(source),) + self._shape[d + 1 :]
        return self._remap(shape, lambda idx: idx[:d] + (source[idx[d]],) + idx[d + 1 :])

    # -- pads (copies) ------------------------------------------------------------------------
    def _constant_pad(self, pad, value=0):
        pad = _ints((pad,))
        if len(pad) % 2 or len(pad) // 2 > len(self._shape):
            raise RuntimeError("Padding length must be divisible by 2 and at most twice the number of dimensions")
        n = len(self._shape)
        before, after = [0] * n, [0] * n
        for i in range(len(pad) // 2):
            before[n - 1 - i], after[n - 1 - i] = pad[2 * i], pad[2 * i + 1]
        shape = tuple(s + b + a for s, b, a in zip(self._shape, before, after))
        if any(s < 0 for s in shape):
            raise RuntimeError("The input size plus negative padding must be positive")
        fill = self.dtype.convert(value)  # torch fills in the tensor's own dtype
        values = self._values()
        strides = _row_major(self._shape)
        out = []
        for idx in itertools.product(*map(range, shape)):
            src = [i - b for i, b in zip(idx, before)]
            if all(0 <= s < size for s, size in zip(src, self._shape)):
                out.append(values[sum(s * st for s, st in zip(src, strides))])
            else:
                out.append(fill)
        return self._like(out, shape=shape)

    # -- dimension moves (views) --------------------------------------------------------------
    def movedim(self, source, destination):
        src = self._dims(_ints((source,)))
        dst = self._dims(_ints((destination,)))
        if len(src) != len(dst):
            raise RuntimeError("movedim: Invalid source or destination dims")
        order = [None] * len(self._shape)
        for s, d in zip(src, dst):
            order[d] = s
        rest = iter(d for d in range(len(self._shape)) if d not in src)
        return self.permute(*[o if o is not None else next(rest) for o in order])

    moveaxis = movedim

    def swapaxes(self, a, b):
        return self.transpose(a, b)

    swapdims = swapaxes

    @property
    def mT(self):  # noqa: N802 - torch's name
        if len(self._shape) < 2:
            raise RuntimeError("tensor.mT is only supported on matrices or batches of matrices")
        return self.transpose(-2, -1)

    @property
    def T(self):  # noqa: N802
        return self.permute(*reversed(range(len(self._shape))))

    H = T  # a real tensor: the conjugate is itself
    mH = mT

    def adjoint(self):
        return self.mT

    def ravel(self):
        return self.reshape(-1)

    def broadcast_to(self, *shape):
        return self.expand(*shape)

    def expand_as(self, other):
        return self.expand(*other.shape)

    # -- splits (views) -----------------------------------------------------------------------
    def tensor_split(self, indices_or_sections, dim=0):
        d = self._dim(dim)
        n = self._shape[d]
        if isinstance(indices_or_sections, int):
            k = indices_or_sections
            if k <= 0:
                raise RuntimeError(f"number of sections must be larger than 0, got {k}")
            small, extra = divmod(n, k)
            bounds, start = [], 0
            for i in range(k):
                start += small + (1 if i < extra else 0)
                bounds.append(start)
            bounds = bounds[:-1]
        else:
            bounds = [int(i) for i in indices_or_sections]
        out, start = [], 0
        for stop in [*bounds, n]:
            stop = max(start, min(stop, n))
            out.append(self.narrow(d, start, stop - start))
            start = stop
        return tuple(out)

    def _sections(self, sections, dim, name):
        if isinstance(sections, int) and self._shape[dim] % sections:
            raise RuntimeError(
                f"torch.{name} attempted to split along dimension {dim}, but the size of the dimension "
                f"{self._shape[dim]} is not divisible by the split_size {sections}!"
            )
        return self.tensor_split(sections, dim)

    def hsplit(self, sections):
        if not self._shape:
            raise RuntimeError("torch.hsplit requires a tensor with at least 1 dimension, but got a tensor with 0")
        return self._sections(sections, 1 if len(self._shape) > 1 else 0, "hsplit")

    def vsplit(self, sections):
        if len(self._shape) < 2:
            raise RuntimeError("torch.vsplit requires a tensor with at least 2 dimension")
        return self._sections(sections, 0, "vsplit")

    def dsplit(self, sections):
        if len(self._shape) < 3:
            raise RuntimeError("torch.dsplit requires a tensor with at least 3 dimension")
        return self._sections(sections, 2, "dsplit")

    def split_with_sizes(self, split_sizes, dim=0):
        d = self._dim(dim)
        if sum(split_sizes) != self._shape[d]:
            raise RuntimeError("split_with_sizes expects split_sizes to sum exactly to the dimension's size")
        return self.split(list(split_sizes), d)

    def unsafe_split(self, split_size, dim=0):
        return self.split(split_size, dim)

    def unsafe_chunk(self, chunks, dim=0):
        return self.chunk(chunks, dim)

    def unsafe_split_with_sizes(self, split_sizes, dim=0):
        return self.split_with_sizes(split_sizes, dim)

    # -- windows (views) and copies of views ----------------------------------------------------
    def unfold(self, dimension, size, step):
        d = self._dim(dimension) if self._shape else 0
        n = self._shape[d] if self._shape else 1
        if size > n:
            raise RuntimeError(f"maximum size for tensor at dimension {d} is {n} but size is {size}")
        if step <= 0:
            raise RuntimeError(f"step is {step} but must be > 0")
        count = (n - size) // step + 1
        st = self._stride[d] if self._shape else 1
        shape = self._shape[:d] + (count,) + self._shape[d + 1 :] + (size,)
        stride = self._stride[:d] + (st * step,) + self._stride[d + 1 :] + (st,)
        return self._view(shape, stride, self._offset)

    def narrow_copy(self, dim, start, length):
        return self.narrow(dim, start, length).clone()

    # -- elementwise ops that keep every slot (copies) --------------------------------------------
    def _bitwise(self, other, op, name):
        from faketorch.tensor import _binary

        for t in (self, other):
            if getattr(getattr(t, "dtype", None), "kind", "int") == "float" or isinstance(t, float):
                kind = t.dtype.name if hasattr(t, "dtype") else "Float"
                raise NotImplementedError(f"\"{name}_cpu\" not implemented for '{kind}'")
        return _binary(self, other, op)

    def bitwise_and(self, other):
        return self._bitwise(other, lambda a, b: int(a) & int(b), "bitwise_and")

    def bitwise_or(self, other):
        return self._bitwise(other, lambda a, b: int(a) | int(b), "bitwise_or")

    def bitwise_not(self):
        if self.dtype.kind == "float":
            raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type tensors")
        if self.dtype.kind == "bool":
            return self._like([not v for v in self._values()])
        return self._like([~int(v) for v in self._values()], convert=True)

    __invert__ = bitwise_not

    def __abs__(self):
        return self.abs()

    def exp(self):
        if self.dtype.is_fp8:
            raise NotImplementedError(f"\"exp_vml_cpu\" not implemented for '{self.dtype.name.capitalize()}'")
        import math

        return self._like([math.exp(v) if v < 700 else math.inf for v in self._values()], convert=True)

    def nan_to_num(self, nan=0.0, posinf=None, neginf=None):
        if self.dtype.is_fp8:
            raise NotImplementedError(f"\"nan_to_num\" not implemented for '{self.dtype.name.capitalize()}'")
        if self.dtype.kind != "float":
            return self.clone()
        import math

        top, bottom = self._torch.finfo(self.dtype).max, self._torch.finfo(self.dtype).min
        high = top if posinf is None else posinf
        low = bottom if neginf is None else neginf
        out = [
            nan if math.isnan(v) else high if v == math.inf else low if v == -math.inf else v for v in self._values()
        ]
        return self._like(out, convert=True)


# -- torch.* functions ----------------------------------------------------------------------


class _Op:
    """`torch.ops.aten.<op>` and each of its overloads (`.default`, `.dtype`, `.int`, ...): the op
    on its first argument, as the tensor's method (or torch's function) of that name; `_to_copy` is
    a conversion that always copies, prims' `convert_element_type` a cast."""

    def __init__(self, torch, name):
        self._torch, self._name = torch, name

    def __getattr__(self, overload):
        if overload.startswith("__"):
            raise AttributeError(overload)
        return self

    def __call__(self, t, *args, **kwargs):
        name = self._name
        if name == "_to_copy":
            dtype, device = kwargs.pop("dtype", None), kwargs.pop("device", None)
            kwargs.pop("non_blocking", None)
            moved = t.to(dtype=dtype or t.dtype, device=device or t.device)
            return moved.clone() if moved is t else moved
        if name == "convert_element_type":
            moved = t.to(*args, **kwargs)
            return moved.clone() if moved is t else moved
        if hasattr(type(t), name):
            return getattr(t, name)(*args, **kwargs)
        return getattr(self._torch, name)(t, *args, **kwargs)


class _Namespace:
    def __init__(self, torch):
        self._torch = torch

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _Op(self._torch, name)


class _Ops:
    """`torch.ops`: its aten and prims namespaces."""

    def __init__(self, torch):
        self.aten = _Namespace(torch)
        self.prims = _Namespace(torch)


def _atleast(n):
    def atleast(*tensors):
        if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
            return tuple(atleast(t) for t in tensors[0])
        if len(tensors) > 1:
            return tuple(atleast(t) for t in tensors)
        t = tensors[0]
        if t.dim() >= n:
            return t  # torch returns the tensor itself
        if t.dim() == 0:
            return t.reshape(*([1] * n))
        if n == 2 or t.dim() == 2:  # (k,) -> (1, k); (m, k) -> (m, k, 1)
            return t.unsqueeze(0) if t.dim() == 1 else t.unsqueeze(-1)
        return t.unsqueeze(0).unsqueeze(-1)  # (k,) -> (1, k, 1)

    return atleast


def install(torch, tensor_cls) -> None:
    """The functional forms on the fake torch module (and torch.nn.functional.pad)."""

    def method(name):
        return lambda t, *a, **k: getattr(tensor_cls, name)(t, *a, **k)

    for name in (
        "flip", "fliplr", "flipud", "roll", "rot90", "tile", "repeat_interleave", "resolve_conj", "resolve_neg",
        "conj", "clone", "detach", "unflatten", "movedim", "moveaxis", "swapaxes", "swapdims", "transpose",
        "permute", "reshape", "flatten", "squeeze", "unsqueeze", "narrow", "split", "chunk", "unbind",
        "tensor_split", "hsplit", "vsplit", "dsplit", "split_with_sizes", "unsafe_split", "unsafe_chunk",
        "unsafe_split_with_sizes", "t", "select",
    ):  # fmt: skip
        if name not in vars(torch):
            setattr(torch, name, method(name))
    for view in ("permute", "transpose", "view", "unsqueeze", "squeeze", "t", "detach", "expand"):
        # the `*_copy` form: the view's elements in a new tensor
        setattr(torch, f"{view}_copy", lambda t, *a, __v=view, **k: getattr(t, __v)(*a, **k).clone())
    torch.alias_copy = lambda t: t.clone()
    torch.narrow_copy = lambda t, dim, start, length: t.narrow_copy(dim, start, length)
    torch.select_copy = lambda t, dim, index: t.select(dim, index).clone()
    torch.unfold_copy = lambda t, dimension, size, step: t.unfold(dimension, size, step).clone()
    torch.split_with_sizes_copy = lambda t, sizes, dim=0: [p.clone() for p in t.split_with_sizes(sizes, dim)]
    for name in ("bitwise_and", "bitwise_or", "nan_to_num", "masked_fill", "abs"):
        if name not in vars(torch):
            setattr(torch, name, method(name))

    def where(condition, input, other):  # noqa: A002 - torch's keyword
        from faketorch.tensor import Tensor, _broadcast_values, broadcast_shapes, promote

        tensors = [t for t in (condition, input, other) if isinstance(t, Tensor)]
        shape = tensors[0]._shape
        for t in tensors[1:]:
            shape = broadcast_shapes(shape, t._shape)
        if isinstance(input, Tensor) and isinstance(other, Tensor):
            dt = promote(input.dtype, other.dtype)
        else:
            dt = (input if isinstance(input, Tensor) else other).dtype
        picks = _broadcast_values(condition, shape, torch.bool)
        a = _broadcast_values(input, shape, dt)
        b = _broadcast_values(other, shape, dt)
        base = input if isinstance(input, Tensor) else other
        return base._like([x if c else y for c, x, y in zip(picks, a, b)], shape=shape, dtype_=dt)

    torch.where = where

    def einsum(equation, *operands):
        """One operand whose output permutes its dimensions (`"thd->htd"`): a view, as torch gives."""
        from faketorch.tensor import FakeTorchUnsupported

        if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
            operands = tuple(operands[0])
        source, _, output = equation.replace(" ", "").partition("->")
        if len(operands) != 1 or "," in source or "." in source or sorted(source) != sorted(output):
            raise FakeTorchUnsupported(f"einsum({equation!r}) beyond a permutation of one operand")
        if len(source) != operands[0].dim():
            raise RuntimeError("einsum(): the number of subscripts in the equation does not match the operand")
        return operands[0].permute(*[source.index(c) for c in output])

    torch.einsum = einsum
    torch.ops = _Ops(torch)
    torch.atleast_1d, torch.atleast_2d, torch.atleast_3d = _atleast(1), _atleast(2), _atleast(3)

    def constant_pad_nd(t, pad, value=0):
        return t._constant_pad(pad, value)

    def pad(t, pad, mode="constant", value=None):
        if mode != "constant":
            from faketorch.tensor import FakeTorchUnsupported

            raise FakeTorchUnsupported(f"F.pad(mode={mode!r})")
        return t._constant_pad(pad, 0 if value is None else value)

    torch.constant_pad_nd = constant_pad_nd
    torch.nn.functional.pad = pad

    def hstack(tensors):
        tensors = [torch.atleast_1d(t) for t in tensors]
        return torch.cat(tensors, 0 if tensors[0].dim() == 1 else 1)

    def vstack(tensors):
        return torch.cat([torch.atleast_2d(t) for t in tensors], 0)

    def dstack(tensors):
        return torch.cat([torch.atleast_3d(t) for t in tensors], 2)

    def column_stack(tensors):
        return hstack([t.reshape(t.numel(), 1) if t.dim() <= 1 else t for t in tensors])

    def block_diag(*tensors):
        from faketorch.tensor import promote

        mats = [t.reshape(1, 1) if t.dim() == 0 else t.unsqueeze(0) if t.dim() == 1 else t for t in tensors]
        if any(m.dim() != 2 for m in mats):
            raise RuntimeError("torch.block_diag: Input tensors must have 2 or fewer dimensions.")
        dt = mats[0].dtype
        for m in mats[1:]:
            dt = promote(dt, m.dtype)
        rows, cols = sum(m.shape[0] for m in mats), sum(m.shape[1] for m in mats)
        out = torch.zeros(rows, cols, dtype=dt, device=mats[0].device)
        r = c = 0
        for m in mats:
            out[r : r + m.shape[0], c : c + m.shape[1]] = m.to(dt)
            r, c = r + m.shape[0], c + m.shape[1]
        return out

    torch.hstack, torch.vstack, torch.row_stack, torch.dstack = hstack, vstack, vstack, dstack
    torch.column_stack, torch.block_diag = column_stack, block_diag


def make_einops(torch):
    """A fake `einops` with pack/unpack (one `*` in the pattern) on the fake torch."""
    import types

    einops = types.ModuleType("einops")

    def _split(pattern):
        names = pattern.split()
        if names.count("*") != 1:
            raise ValueError(f"einops: pattern {pattern!r} needs exactly one '*'")
        star = names.index("*")
        return star, len(names) - star - 1

    def pack(tensors, pattern):
        star, after = _split(pattern)
        flat, shapes = [], []
        for t in tensors:
            end = t.dim() - after
            if end < star:
                raise ValueError(f"einops: a tensor of {t.dim()} dims does not fit {pattern!r}")
            shapes.append(tuple(t.shape[star:end]))
            flat.append(t.reshape(*t.shape[:star], -1, *t.shape[end:]))
        return torch.cat(flat, star), shapes

    def unpack(tensor, packed_shapes, pattern):
        star, _ = _split(pattern)
        sizes = [1 if not s else __import__("math").prod(s) for s in packed_shapes]
        parts = tensor.split(sizes, star)
        return [p.reshape(*p.shape[:star], *s, *p.shape[star + 1 :]) for p, s in zip(parts, map(tuple, packed_shapes))]

    einops.pack, einops.unpack = pack, unpack
    return einops
