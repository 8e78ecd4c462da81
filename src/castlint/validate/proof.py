"""The kernel proof: which kernels one forward call launches and the bytes they move.

Two views of the same call:

* `ByteTracer` (a TorchDispatchMode) sees every aten op the backend issues,
  with its tensors' shapes and dtypes, so it can say exactly which op
  materialises a pool-sized tensor (the whole-pool cast: `aten._to_copy` of
  pool_tokens x 576 elements) and how many bytes it reads and writes. Kernels
  FlashInfer launches itself are not aten ops and do not appear here.
* `torch.profiler` (CUDA activity on a GPU) lists the device kernels the call
  launched, with their names and durations: on the original path an
  `elementwise_kernel ... direct_copy_kernel` as long as the cast, on the
  patched path only FlashInfer's MLA kernel (plus tiny ones).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Callable, List

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten

# ops that only re-describe memory (no bytes move)
# In-place scatters: they write only the indexed rows of their first argument (the values).
_SCATTER_OPS = {"index_put_", "_index_put_impl_", "index_copy_"}
_VIEW_OPS = {
    "view",
    "_unsafe_view",
    "slice",
    "select",
    "as_strided",
    "expand",
    "permute",
    "transpose",
    "t",
    "unsqueeze",
    "squeeze",
    "reshape",
    "alias",
    "detach",
    "split",
    "split_with_sizes",
    "unbind",
    "narrow",
    "view_as_real",
    "lift_fresh",
    "_reshape_alias",
    "unflatten",
    "flatten",
    "empty",
    "empty_like",
    "empty_strided",
    "new_empty",
    "new_empty_strided",
    "sym_size",
    "sym_stride",
    "sym_numel",
    "sym_storage_offset",
    "is_same_size",
    "_local_scalar_dense",
    "item",
    "dim",
    "size",
    "stride",
    "record_stream",
}


def _tensor_bytes(t: torch.Tensor) -> int:
    return int(t.numel()) * t.element_size()


@dataclass
class TracedOp:
    op: str
    in_shape: str
    in_dtype: str
    out_shape: str
    out_dtype: str
    out_elements: int
    bytes_read: int
    bytes_written: int
    whole_pool: bool


class ByteTracer(TorchDispatchMode):
    def __init__(self, pool_elements: int):
        super().__init__()
        self.pool_elements = pool_elements
        self.ops: List[TracedOp] = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        qual = str(func)  # "aten._to_copy.default" / "aten::_to_copy"
        namespace = qual.split("::")[0] if "::" in qual else qual.split(".")[0]
        if namespace != "aten":
            # a custom op (e.g. a kernel library registered with torch.library): its
            # traffic is the attention kernel's, accounted for from the page table
            return out
        base = qual.split("::")[-1].split(".")[0] if "::" in qual else qual.split(".")[1]
        if base in _VIEW_OPS:
            return out
        ins = [t for t in tree_flatten((args, kwargs))[0] if isinstance(t, torch.Tensor)]
        outs = [t for t in tree_flatten(out)[0] if isinstance(t, torch.Tensor)]
        written = sum(_tensor_bytes(t) for t in outs)
        if base == "copy_" and ins:
            written = _tensor_bytes(ins[0])
            read = sum(_tensor_bytes(t) for t in ins[1:])
        else:
            read = sum(_tensor_bytes(t) for t in ins)
        big_out = max((int(t.numel()) for t in outs), default=0)
        if base == "copy_" and ins:
            big_out = int(ins[0].numel())
        if base in _SCATTER_OPS and len(ins) > 1:
            values = ins[-1]
            written, read = _tensor_bytes(values), sum(_tensor_bytes(t) for t in ins[1:])
            big_out = int(values.numel())
        first_in = ins[0] if ins else None
        first_out = outs[0] if outs else (ins[0] if base == "copy_" and ins else None)
        self.ops.append(
            TracedOp(
                op=f"aten::{base}",
                in_shape=str(tuple(first_in.shape)) if first_in is not None else "-",
                in_dtype=str(first_in.dtype).replace("torch.", "") if first_in is not None else "-",
                out_shape=str(tuple(first_out.shape)) if first_out is not None else "-",
                out_dtype=str(first_out.dtype).replace("torch.", "") if first_out is not None else "-",
                out_elements=big_out,
                bytes_read=read,
                bytes_written=written,
                whole_pool=big_out >= self.pool_elements,
            )
        )
        return out


@dataclass
class KernelEvent:
    name: str
    device_us: float
    count: int


@dataclass
class Proof:
    whole_pool_ops: List[TracedOp] = field(default_factory=list)
    whole_pool_bytes: int = 0  # read + written by pool-sized conversions
    other_aten_bytes: int = 0
    attention_kv_bytes: int = 0  # the KV rows the MLA kernel reads (active tokens only)
    kernels: List[KernelEvent] = field(default_factory=list)
    elementwise_kernels: List[KernelEvent] = field(default_factory=list)
    profiler: str = ""  # "cuda" | "cpu" | "unavailable: ..."

    @property
    def moves_whole_pool(self) -> bool:
        return bool(self.whole_pool_ops)

    @property
    def total_bytes(self) -> int:
        return self.whole_pool_bytes + self.other_aten_bytes + self.attention_kv_bytes

    def to_json(self) -> dict:
        data = asdict(self)
        data["moves_whole_pool"] = self.moves_whole_pool
        data["total_bytes"] = self.total_bytes
        data["whole_pool_ops"] = [asdict(o) for o in self.whole_pool_ops]
        return data


def _is_elementwise(name: str) -> bool:
    low = name.lower()
    return "elementwise" in low or "direct_copy" in low or ("copy" in low and "memcpy" not in low)


def collect(fn: Callable[[], object], pool_elements: int, device: str) -> Proof:
    """Run `fn` once under the tracer and the profiler."""
    proof = Proof()
    tracer = ByteTracer(pool_elements)
    with tracer:
        fn()
    for op in tracer.ops:
        if op.whole_pool:
            proof.whole_pool_ops.append(op)
            proof.whole_pool_bytes += op.bytes_read + op.bytes_written
        else:
            proof.other_aten_bytes += op.bytes_read + op.bytes_written
    if device != "cuda":
        # on CPU the byte trace is the proof; the profiler would list only the
        # reference's Python-level aten calls
        proof.profiler = "byte trace only (CPU)"
        return proof
    try:
        from torch.profiler import ProfilerActivity, profile

        activities = [ProfilerActivity.CPU]
        if device == "cuda":
            activities.append(ProfilerActivity.CUDA)
        with profile(activities=activities) as prof:
            fn()
            if device == "cuda":
                torch.cuda.synchronize()
        rows = {}
        for evt in prof.events():
            on_device = str(getattr(evt, "device_type", ""))
            if "CUDA" not in on_device:
                continue
            try:
                us = float(evt.time_range.elapsed_us())
            except Exception:  # noqa: BLE001
                us = float(getattr(evt, "device_time", 0.0) or getattr(evt, "cuda_time", 0.0) or 0.0)
            key = evt.name
            if key in rows:
                rows[key].device_us += us
                rows[key].count += 1
            else:
                rows[key] = KernelEvent(key, us, 1)
        kernels = sorted(rows.values(), key=lambda k: -k.device_us)
        proof.kernels = kernels[:12]
        proof.elementwise_kernels = [k for k in kernels if _is_elementwise(k.name)]
        proof.profiler = "cuda"
    except Exception as exc:  # noqa: BLE001 - the byte trace still stands
        proof.profiler = f"unavailable: {type(exc).__name__}: {exc}"[:200]
    return proof


def short_kernel_name(name: str, width: int = 60) -> str:
    if "direct_copy_kernel" in name:
        return "elementwise_kernel<direct_copy_kernel_cuda> (dtype cast)"
    name = name.replace("void ", "")
    return name if len(name) <= width else name[: width - 1] + "…"
