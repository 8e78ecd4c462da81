"""FlashInfer for the fake torch: castlint's one FlashInfer double with a float64 kernel.

`make_flashinfer(torch, version, log)` is `castlint.validate.doubles.flashinfer` (the double
`castlint validate --device cpu` runs, its contract read from rules/flashinfer.toml) bound to
one fake torch: the emulated GPU is the fake torch's `get_device_capability()`, every
plan()/run() is appended to `log` as a dict with its dtypes, and the arithmetic is
`Float64Kernel`, the MLA definition of castlint.validate.doubles.mla (which rows a request
attends, which positions a query sees) in float64 over the *dequantized* inputs (real = stored
x scale), rounded to q's dtype: an FP8-native run and a cast-then-run of the same pool give the
same numbers. All that is test-only here is the arithmetic on fake tensors (the fake torch has
no einsum).
"""

from __future__ import annotations

import contextlib
import math
import types
from typing import List, Optional

from castlint.tables import load_tables
from castlint.validate.doubles.flashinfer import FlashInferEmulation, make_flashinfer_module
from castlint.validate.doubles.mla import page_rows, request_spans, visible_kv

TABLES = load_tables()


class Float64Kernel:
    """MLA over paged KV in float64 on fake tensors (castlint.validate.doubles.mla's definition)."""

    name = "fake-torch float64 MLA"

    def __init__(self, torch):
        self.torch = torch

    def attend(
        self,
        q_nope,
        q_pe,
        ckv,
        kpe,
        qo_indptr,
        kv_indptr,
        kv_indices,
        sm_scale,
        causal,
        ckv_scale=1.0,
        kpe_scale=1.0,
        page_size=1,
        kv_lens=None,
    ):
        """(out float64 [T, H, D], lse float32 base 2 [T, H])."""
        torch = self.torch
        T, H, D = q_nope.shape
        R = q_pe.shape[-1]
        qo, kvp = [int(x) for x in qo_indptr.tolist()], [int(x) for x in kv_indptr.tolist()]
        lens = [int(x) for x in kv_lens.tolist()] if kv_lens is not None else None
        indices = [int(x) for x in kv_indices.tolist()]
        qn = q_nope.reshape(T, H, D).tolist()
        qp = q_pe.reshape(T, H, R).tolist()
        c_rows = ckv.reshape(-1, ckv.shape[-1])
        k_rows = kpe.reshape(-1, kpe.shape[-1]) if kpe.numel() else None
        out = [[[0.0] * D for _ in range(H)] for _ in range(T)]
        lse = [[-math.inf] * H for _ in range(T)]
        for q0, q1, k0, k1 in request_spans(qo, kvp, lens, page_size):
            rows = page_rows(indices[k0:k1], page_size)
            cv = [[v * ckv_scale for v in c_rows[r].tolist()] for r in rows]
            kv = [[v * kpe_scale for v in k_rows[r].tolist()] for r in rows] if k_rows is not None else [[]] * len(rows)
            for t in range(q0, q1):
                limit = visible_kv(t - q0, q1 - q0, len(rows), causal)
                for h in range(H):
                    logits = [
                        (
                            math.fsum(a * c for a, c in zip(qn[t][h], cv[k]))
                            + math.fsum(a * c for a, c in zip(qp[t][h], kv[k]))
                        )
                        * sm_scale
                        for k in range(min(limit + 1, len(rows)))
                    ]
                    if not logits:
                        continue
                    m = max(logits)
                    w = [math.exp(x - m) if math.isfinite(x - m) else math.nan for x in logits]
                    z = math.fsum(w)
                    lse[t][h] = (m + math.log(z)) / math.log(2.0) if z > 0 else math.nan
                    out[t][h] = [math.fsum(w[k] * cv[k][d] for k in range(len(w))) / z for d in range(D)]
        flat = [v for t in out for h in t for v in h]
        o = torch.tensor(flat, dtype=torch.float64, device=q_nope.device).reshape(T, H, D)
        return o, torch.tensor([v for t in lse for v in t], dtype=torch.float32).reshape(T, H)

    def ragged(self, q, k, v):
        """The ragged prefill: returns q (deterministic; not a site the fixes touch)."""
        return q.clone()

    def quiet(self):
        return contextlib.nullcontext()


def make_flashinfer(torch, version: str = "0.7.2", log: Optional[List[dict]] = None) -> types.ModuleType:
    """A fake flashinfer module bound to one fake torch (its GPU, its tensors)."""
    emu = FlashInferEmulation(
        TABLES,
        version=version,
        compute_capability=tuple(torch.cuda.get_device_capability()),
        calls=log if log is not None else [],
        kernel=Float64Kernel(torch),
        torch=torch,
    )
    return make_flashinfer_module(emu)
