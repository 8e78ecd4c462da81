"""A fake `flashinfer` for the fake torch: an MLA wrapper that checks plan/run dtypes.

`BatchMLAPagedAttentionWrapper` follows the contract of the release it pretends
to be (`version`):

* `plan()` positional (`qo_indptr, kv_indptr, kv_indices, kv_len_arr, num_heads,
  head_dim_ckv, head_dim_kpe, page_size, causal, sm_scale, q_data_type,
  kv_data_type`), keyword, or (>= 0.7) `plan(metadata=MLAPlanMetadata.csr(...), ...)`;
  an FP8 KV plan needs >= 0.6.14 with fa3 (>= 0.6.18: fa2 too), an SM90 device
  (the fake torch's `get_device_capability`), BF16 q and head dims 512/64;
* `run(q_nope, q_pe, ckv, kpe, out=, ckv_scale=, kpe_scale=, ...)` or (>= 0.7)
  `run(query=(..), kv_cache=(..))` RAISES when a tensor's dtype differs from the
  planned one (FlashInfer >= 0.6.14 does; older releases reinterpret the bytes,
  silently wrong - raising is the stricter check), requires the scales for FP8 KV,
  refuses them otherwise (>= 0.6.14) and does not know them at all before 0.6.14;
* the result is MLA in float64 over the *dequantized* inputs (real = stored x
  scale), rounded to q's dtype: an FP8-native run and a cast-then-run of the same
  pool give the same numbers.

Every plan()/run() is appended to `log` with its dtypes.
"""
from __future__ import annotations

import math
import types
from typing import List, Optional

PLAN_POSITIONAL = ("qo_indptr", "kv_indptr", "kv_indices", "kv_len_arr", "num_heads", "head_dim_ckv",
                   "head_dim_kpe", "page_size", "causal", "sm_scale", "q_data_type", "kv_data_type", "use_profiler")
RUN_POSITIONAL = ("q_nope", "q_pe", "ckv_cache", "kpe_cache", "out", "lse", "return_lse", "profiler_buffer",
                  "kv_len", "page_table", "return_lse_base_on_e")


def parse_version(text: str) -> tuple:
    out = []
    for part in str(text).split("."):
        digits = "".join(ch for ch in part if ch.isdigit())
        if part.startswith(("post", "dev", "rc")) or not digits:
            break
        out.append(int(digits))
    while len(out) < 3:
        out.append(0)
    return tuple(out[:3])


class MLAPlanMetadata:
    def __init__(self, qo_indptr=None, kv_indptr=None, kv_indices=None, kv_len_arr=None, **_):
        self.qo_indptr, self.kv_indptr, self.kv_indices, self.kv_len_arr = qo_indptr, kv_indptr, kv_indices, kv_len_arr

    @classmethod
    def csr(cls, qo_indptr, kv_indptr, kv_indices, kv_len_arr, **kw):
        return cls(qo_indptr, kv_indptr, kv_indices, kv_len_arr)


def mla(q_nope, q_pe, ckv, kpe, qo, kvp, kv_indices, sm_scale, causal, ckv_scale=1.0, kpe_scale=1.0,
        page_size=1):
    """float64 MLA over paged KV: a list [T][H][D] of floats (and lse [T][H])."""
    T, H, D = q_nope.shape
    R = q_pe.shape[-1]
    qn = q_nope.reshape(T, H, D).tolist()
    qp = q_pe.reshape(T, H, R).tolist()
    c_rows = ckv.reshape(-1, ckv.shape[-1])
    k_rows = kpe.reshape(-1, kpe.shape[-1]) if kpe.numel() else None
    out = [[[0.0] * D for _ in range(H)] for _ in range(T)]
    lse = [[-math.inf] * H for _ in range(T)]
    for b in range(len(qo) - 1):
        q0, q1 = qo[b], qo[b + 1]
        if q1 == q0:
            continue
        pages = kv_indices[kvp[b]:kvp[b + 1]]
        rows = [p * page_size + i for p in pages for i in range(page_size)] if page_size > 1 else list(pages)
        cv = [[v * ckv_scale for v in c_rows[r].tolist()] for r in rows]
        kv = [[v * kpe_scale for v in k_rows[r].tolist()] for r in rows] if k_rows is not None else [[]] * len(rows)
        qlen, kv_len = q1 - q0, len(rows)
        for t in range(q0, q1):
            limit = kv_len - qlen + (t - q0) if causal else kv_len - 1
            for h in range(H):
                logits = []
                for k in range(kv_len):
                    if k > limit:
                        break
                    s = math.fsum(a * c for a, c in zip(qn[t][h], cv[k])) + math.fsum(
                        a * c for a, c in zip(qp[t][h], kv[k]))
                    logits.append(s * sm_scale)
                if not logits:
                    continue
                m = max(logits)
                w = [math.exp(x - m) if math.isfinite(x - m) else math.nan for x in logits]
                z = math.fsum(w)
                lse[t][h] = (m + math.log(z)) / math.log(2.0) if z > 0 else math.nan
                out[t][h] = [math.fsum(w[k] * cv[k][d] for k in range(len(w))) / z for d in range(D)]
    return out, lse


def make_flashinfer(torch, version: str = "0.7.2", log: Optional[List[dict]] = None) -> types.ModuleType:
    """A fake flashinfer module bound to one fake torch."""
    key = parse_version(version)
    log = log if log is not None else []
    fp8 = torch.float8_e4m3fn

    def capability():
        return tuple(torch.cuda.get_device_capability())

    class BatchMLAPagedAttentionWrapper:
        def __init__(self, float_workspace_buffer, use_cuda_graph=False, qo_indptr=None, kv_indptr=None,
                     kv_indices=None, kv_len_arr=None, backend="auto"):
            self._float_workspace_buffer = float_workspace_buffer
            self.device = float_workspace_buffer.device
            self._use_cuda_graph = use_cuda_graph
            self._qo_indptr_buf, self._kv_indptr_buf = qo_indptr, kv_indptr
            self._kv_indices_buf, self._kv_len_arr_buf = kv_indices, kv_len_arr
            self._backend = ("fa3" if capability()[0] == 9 else "fa2") if backend == "auto" else backend
            self._q_data_type = self._kv_data_type = None
            self._planned = False
            self._int_workspace_buffer = torch.empty(16, dtype=torch.uint8, device=self.device)
            self._pin_memory_int_workspace_buffer = torch.empty(16, dtype=torch.uint8)
            self._cached_module = types.SimpleNamespace(plan=_PlanOp(self))

        def plan(self, *args, **kwargs):
            form = "positional" if len(args) >= 12 else ("keyword" if not args else "mixed")
            if "metadata" in kwargs:
                if key < (0, 7, 0):
                    raise TypeError("plan() got an unexpected keyword argument 'metadata'")
                md = kwargs.pop("metadata")
                kwargs.update(qo_indptr=md.qo_indptr, kv_indptr=md.kv_indptr, kv_indices=md.kv_indices,
                              kv_len_arr=md.kv_len_arr)
                kwargs.pop("query_layout", None)
                kwargs.pop("kv_cache_layout", None)
                form = "metadata"
            for name, value in zip(PLAN_POSITIONAL, args):
                if name in kwargs:
                    raise TypeError(f"plan() got multiple values for argument {name!r}")
                kwargs[name] = value
            unknown = set(kwargs) - set(PLAN_POSITIONAL)
            if unknown:
                raise TypeError(f"plan() got unexpected keyword arguments {sorted(unknown)}")
            a = types.SimpleNamespace(use_profiler=False, **kwargs)
            missing = [n for n in PLAN_POSITIONAL[:-1] if not hasattr(a, n)]
            if missing:
                raise TypeError(f"plan() missing required arguments: {', '.join(missing)}")
            log.append({"kind": "plan", "wrapper": id(self), "form": form, "q": str(a.q_data_type),
                        "kv": str(a.kv_data_type), "backend": self._backend, "causal": bool(a.causal)})
            if a.kv_data_type is fp8:
                if key < (0, 6, 14):
                    raise RuntimeError(f"FlashInfer {version}: MLA kernels do not build for 1-byte KV")
                if key < (0, 6, 18) and self._backend != "fa3":
                    raise ValueError("FP8 kv_data_type for MLA is only supported with the fa3 backend")
                if capability() != (9, 0):
                    raise ValueError(f"FP8 kv_data_type for MLA requires an SM90 device, got {capability()}")
                if a.q_data_type is not torch.bfloat16:
                    raise ValueError(f"FP8 kv_data_type for MLA only supports q_data_type=bfloat16, got "
                                     f"{a.q_data_type}")
                if a.head_dim_ckv != 512 or a.head_dim_kpe not in (0, 64):
                    raise ValueError("FP8 kv_data_type for MLA only supports head dims 512/64")
            elif a.kv_data_type not in (torch.float16, torch.bfloat16):
                raise ValueError(f"MLA kv_data_type {a.kv_data_type} is not supported")
            if a.q_data_type not in (torch.float16, torch.bfloat16):
                raise ValueError(f"MLA q_data_type {a.q_data_type} is not supported")
            self._qo = [int(x) for x in a.qo_indptr.tolist()]
            self._kvp = [int(x) for x in a.kv_indptr.tolist()]
            self._kv_indices = [int(x) for x in a.kv_indices.tolist()]
            if self._use_cuda_graph:  # the captured kernel reads these buffers at replay
                self._qo_indptr_buf[: len(self._qo)] = a.qo_indptr.to(self._qo_indptr_buf.dtype)
                self._kv_indptr_buf[: len(self._kvp)] = a.kv_indptr.to(self._kv_indptr_buf.dtype)
                self._kv_indices_buf[: len(self._kv_indices)] = a.kv_indices.to(self._kv_indices_buf.dtype)
                self._kv_len_arr_buf[: len(self._qo) - 1] = a.kv_len_arr.to(self._kv_len_arr_buf.dtype)
            self._causal, self._page_size, self._sm_scale = bool(a.causal), int(a.page_size), float(a.sm_scale)
            self._head_dim_ckv = int(a.head_dim_ckv)
            self._q_data_type, self._kv_data_type = a.q_data_type, a.kv_data_type
            self._planned = True

        begin_forward = plan

        def run(self, *args, query=None, kv_cache=None, **kwargs):
            form = "positional"
            if query is not None or kv_cache is not None:
                if key < (0, 7, 0):
                    raise TypeError("run() got an unexpected keyword argument 'query'")
                kwargs["q_nope"], kwargs["q_pe"] = query
                kwargs["ckv_cache"], kwargs["kpe_cache"] = kv_cache
                form = "keyword"
            scale_names = ("ckv_scale", "kpe_scale", "ckv_scale_arr", "o_scale")
            if key < (0, 6, 14):
                for name in scale_names:
                    if name in kwargs:
                        raise TypeError(f"run() got an unexpected keyword argument '{name}'")
            scales = {n: kwargs.pop(n, None) for n in scale_names}
            for name, value in zip(RUN_POSITIONAL, args):
                if name in kwargs:
                    raise TypeError(f"run() got multiple values for argument {name!r}")
                kwargs[name] = value
            unknown = set(kwargs) - set(RUN_POSITIONAL)
            if unknown:
                raise TypeError(f"run() got unexpected keyword arguments {sorted(unknown)}")
            a = types.SimpleNamespace(**{"out": None, "lse": None, "return_lse": False, **kwargs})
            if not self._planned:
                raise RuntimeError("run() before plan()")
            q_nope, q_pe, ckv, kpe = a.q_nope, a.q_pe, a.ckv_cache, a.kpe_cache
            log.append({"kind": "run", "wrapper": id(self), "form": form, "q": str(q_nope.dtype),
                        "ckv": str(ckv.dtype), "kpe": str(kpe.dtype), "planned_kv": str(self._kv_data_type),
                        "ckv_scale": scales["ckv_scale"], "kpe_scale": scales["kpe_scale"]})
            for name, t, want in (("q_nope", q_nope, self._q_data_type), ("q_pe", q_pe, self._q_data_type),
                                  ("ckv_cache", ckv, self._kv_data_type), ("kpe_cache", kpe, self._kv_data_type)):
                if t.dtype is not want:
                    kind = "q_data_type" if name.startswith("q") else "kv_data_type"
                    raise ValueError(f"{name}.dtype={t.dtype} does not match the planned {kind}={want}.")
            cs = ks = 1.0
            if self._kv_data_type is fp8:
                if scales["ckv_scale"] is None or scales["kpe_scale"] is None:
                    raise ValueError("ckv_scale and kpe_scale are required when kv_data_type is FP8.")
                cs, ks = float(scales["ckv_scale"]), float(scales["kpe_scale"])
                if not (math.isfinite(cs) and cs > 0 and math.isfinite(ks) and ks > 0):
                    raise ValueError("scales must be finite and positive")
            elif any(v is not None for v in scales.values()):
                raise ValueError("ckv_scale / kpe_scale are only supported with FP8 kv_data_type.")
            if ckv.shape[-1] != self._head_dim_ckv:
                raise ValueError(f"ckv head dim {ckv.shape[-1]} != planned {self._head_dim_ckv}")
            kv_indices = self._kv_indices
            if self._use_cuda_graph:  # replay: whatever the buffer holds now
                kv_indices = [int(x) for x in self._kv_indices_buf[: self._kvp[-1]].tolist()]
            out, lse = mla(q_nope, q_pe, ckv, kpe, self._qo, self._kvp, kv_indices, self._sm_scale,
                           self._causal, cs, ks, self._page_size)
            T, H, D = q_nope.shape
            flat = [v for t in out for h in t for v in h]
            o = torch.tensor(flat, dtype=torch.float64, device=q_nope.device).reshape(T, H, D).to(q_nope.dtype)
            if a.out is not None:
                a.out.copy_(o)
                o = a.out
            if a.return_lse:
                return o, torch.tensor([v for t in lse for v in t], dtype=torch.float32).reshape(T, H)
            return o

        forward = run

    class _PlanOp:
        """`wrapper._cached_module.plan(...)`, as sglang's fast_mla_*_plan call it."""

        def __init__(self, wrapper):
            self.wrapper = wrapper
            self.default = self

        def __call__(self, float_ws, int_ws, pin_ws, qo_indptr_cpu, kv_indptr_cpu, kv_len_arr_cpu, num_heads,
                     head_dim_ckv, causal, *rest):
            """The sync-free re-plan sglang's fast_mla_*_plan call: new host indptrs, same dtypes."""
            w = self.wrapper
            if not w._planned:
                raise RuntimeError("_cached_module.plan before plan()")
            w._qo = [int(x) for x in qo_indptr_cpu.tolist()]
            w._kvp = [int(x) for x in kv_indptr_cpu.tolist()]
            w._causal = bool(causal)
            log.append({"kind": "fast_plan", "wrapper": id(w), "q": str(w._q_data_type),
                        "kv": str(w._kv_data_type)})

    class RaggedWrapper:
        """BatchPrefillWithRaggedKVCacheWrapper: q, k, v of one dtype; returns q (deterministic)."""

        def __init__(self, *args, **kwargs):
            pass

        def begin_forward(self, *args, **kwargs):
            self._planned = True

        plan = begin_forward

        def forward(self, q, k, v, *args, **kwargs):
            if not (q.dtype is k.dtype is v.dtype):
                raise ValueError(f"ragged prefill dtypes differ: q {q.dtype}, k {k.dtype}, v {v.dtype}")
            log.append({"kind": "ragged", "q": str(q.dtype), "kv": str(k.dtype)})
            return q.clone()

        run = forward
        forward_return_lse = forward

    mod = types.ModuleType("flashinfer")
    mod.__version__ = version
    mod.__path__ = []
    mod.BatchMLAPagedAttentionWrapper = BatchMLAPagedAttentionWrapper
    mod.BatchPrefillWithRaggedKVCacheWrapper = RaggedWrapper
    mod.BatchDecodeWithPagedKVCacheWrapper = RaggedWrapper
    mod.BatchPrefillWithPagedKVCacheWrapper = RaggedWrapper
    sub = types.ModuleType("flashinfer.mla")
    sub.BatchMLAPagedAttentionWrapper = BatchMLAPagedAttentionWrapper
    if key >= (0, 7, 0):
        mod.MLAPlanMetadata = MLAPlanMetadata
        sub.MLAPlanMetadata = MLAPlanMetadata
    mod.mla = sub
    mod.log = log
    return mod
