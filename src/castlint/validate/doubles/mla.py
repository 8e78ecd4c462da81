"""MLA over paged KV, defined once: which rows a request attends and what it computes.

FlashInfer's double (castlint.validate.doubles.flashinfer) runs a `Kernel`; `TorchKernel` is
the reference for real torch (float32, chunked), and castlint's tests give the fake torch its
own float64 kernel over the same `request_spans` and `visible_kv` (tests/faketorch/flashinfer.py).

The definition: logits = (q_nope . ckv + q_pe . kpe) * sm_scale, softmax over the request's
KV rows, out = p . ckv, lse in base 2; causal: query i of a request of qo_len queries sees kv
positions <= kv_len - qo_len + i, and a query that sees none gets 0 (lse -inf), as
FlashInfer's kernels give.
"""

from __future__ import annotations

import contextlib
import math
from typing import Iterator, List, Optional, Sequence, Tuple

from castlint.validate.doubles.backend_torch import current_torch

# The fp32 scores of one chunk of queries ([queries, heads, kv]) are bounded by this many bytes, so a
# long prefill (8,192 new tokens over 32,768 of context, 64 heads) never holds its whole score matrix.
REFERENCE_CHUNK_BYTES = 256 << 20


def request_spans(
    qo: Sequence[int], kvp: Sequence[int], kv_lens: Optional[Sequence[int]], page_size: int
) -> Iterator[Tuple[int, int, int, int]]:
    """(q0, q1, k0, k1) per request with queries: its queries q0:q1 and the slice k0:k1 of
    kv_indices it attends. kv_lens: the planned KV length per request (FlashInfer's kv_len_arr),
    which the kernel attends; kv_indptr only places each request's pages (None: their extent)."""
    for request in range(len(qo) - 1):
        q0, q1 = qo[request], qo[request + 1]
        if q1 == q0:
            continue
        end = kvp[request + 1]
        if kv_lens is not None and request < len(kv_lens) and page_size == 1:
            end = kvp[request] + min(max(kv_lens[request], 0), kvp[request + 1] - kvp[request])
        yield q0, q1, kvp[request], end


def page_rows(pages: List[int], page_size: int) -> List[int]:
    """The pool rows of a request's pages."""
    if page_size == 1:
        return list(pages)
    return [p * page_size + i for p in pages for i in range(page_size)]


def visible_kv(query: int, queries: int, kv_len: int, causal: bool) -> int:
    """The last kv position query `query` (of a request's `queries`) sees; < 0: none."""
    return kv_len - queries + query if causal else kv_len - 1


class TorchKernel:
    """The reference MLA on real torch (float32; the queries in chunks of bounded scores)."""

    name = "pure-torch reference MLA"

    def __init__(self, chunk_bytes: int = REFERENCE_CHUNK_BYTES):
        self.chunk_bytes = chunk_bytes

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
        ckv_scale: float = 1.0,
        kpe_scale: float = 1.0,
        page_size: int = 1,
        kv_lens=None,
    ):
        return mla_reference(
            q_nope,
            q_pe,
            ckv,
            kpe,
            qo_indptr,
            kv_indptr,
            kv_indices,
            sm_scale,
            causal,
            ckv_scale,
            kpe_scale,
            page_size,
            kv_lens,
            self.chunk_bytes,
        )

    def ragged(self, q, k, v):
        """The ragged prefill (BatchPrefillWithRaggedKVCacheWrapper.forward): not modelled."""
        raise RuntimeError("castlint validate: the ragged prefill path is not part of the validated sites")

    def quiet(self):
        """The reference's own arithmetic stands for one fused kernel: keep it out of the byte
        trace (proof.ByteTracer), as FlashInfer's kernels are."""
        try:
            from torch.utils._python_dispatch import _disable_current_modes

            return _disable_current_modes()
        except ImportError:  # pragma: no cover - older torch
            return contextlib.nullcontext()


def mla_reference(
    q_nope,
    q_pe,
    ckv,
    kpe,
    qo_indptr,
    kv_indptr,
    kv_indices,
    sm_scale,
    causal,
    ckv_scale: float = 1.0,
    kpe_scale: float = 1.0,
    page_size: int = 1,
    kv_lens=None,
    chunk_bytes: int = REFERENCE_CHUNK_BYTES,
):
    """float32 MLA over paged KV (the module's definition). Returns (out float32 [T, H, D],
    lse base-2 [T, H]). The queries of a request are taken in chunks whose fp32 scores stay
    within chunk_bytes."""
    torch = current_torch()
    qo = [int(x) for x in qo_indptr.cpu()]
    kvp = [int(x) for x in kv_indptr.cpu()]
    lens = [int(x) for x in kv_lens.cpu()] if kv_lens is not None else None
    tokens, heads, dim = q_nope.shape
    out = torch.zeros(tokens, heads, dim, dtype=torch.float32, device=q_nope.device)
    lse = torch.full((tokens, heads), float("-inf"), dtype=torch.float32, device=q_nope.device)
    for q0, q1, k0, k1 in request_spans(qo, kvp, lens, page_size):
        rows = _page_rows(kv_indices[k0:k1].long(), page_size)
        ckv_real = ckv.reshape(-1, ckv.shape[-1]).index_select(0, rows.to(ckv.device)).float() * ckv_scale
        kpe_real = kpe.reshape(-1, kpe.shape[-1]).index_select(0, rows.to(kpe.device)).float() * kpe_scale
        step = max(1, chunk_bytes // max(1, 4 * heads * ckv_real.shape[0]))
        for c0 in range(q0, q1, step):
            c1 = min(q1, c0 + step)
            first = visible_kv(c0 - q0, q1 - q0, ckv_real.shape[0], True) if causal else None
            out[c0:c1], lse[c0:c1] = _attend_rows(
                q_nope[c0:c1].float(), q_pe[c0:c1].float(), ckv_real, kpe_real, sm_scale, first
            )
    return out, lse


def _page_rows(pages, page_size: int):
    """page_rows on a tensor of pages."""
    if page_size == 1:
        return pages
    torch = current_torch()
    return (pages[:, None] * page_size + torch.arange(page_size, device=pages.device)[None]).reshape(-1)


def _attend_rows(q_nope, q_pe, ckv, kpe, sm_scale: float, causal_first: Optional[int]):
    """MLA of a chunk of one request's queries over its kv rows (fp32): (out [c, H, D], lse [c, H]).
    causal_first: the last kv position the chunk's first query sees (None: not causal)."""
    torch = current_torch()
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
