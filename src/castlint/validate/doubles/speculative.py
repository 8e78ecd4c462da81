"""Doubles of sglang's speculative-decoding inputs (spec_info), for the verify and draft-extend sites.

The backend reads a few fields of `forward_batch.spec_info` and calls its
`generate_attn_arg_prefill(...)`, which returns the CSR arguments of the paged
MLA plan: `(kv_indices, kv_indptr, qo_indptr, custom_mask)`. The doubles here
build them from the harness's page table the way sglang's EAGLE inputs do:

* `EagleVerifyInputDouble` (TARGET_VERIFY): `draft_token_num` queries per
  request; `paged_kernel_lens` is the committed prefix, widened here by the
  verify window that follows it (eagle_info.EagleVerifyInput);
* `EagleDraftInputDouble` (DRAFT_EXTEND): `num_tokens_per_req` queries per
  request; `paged_kernel_lens` already includes the window
  (eagle_info.EagleDraftInput / EagleDraftExtendInput).

Both take the call forms of every release: positional `(req_pool_indices,
paged_kernel_lens, paged_kernel_lens_sum, req_to_token)` up to 0.5.16, keyword
with `translator=` / `plan=` (and `kv_indices_buf=`) from 0.5.2x. An attribute
the double does not define reads as None and is recorded, like the other
doubles' unknown reads.
"""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING, Any, Dict, Optional

from castlint.validate.doubles.backend_torch import current_torch as _torch

if TYPE_CHECKING:  # the annotations only: the doubles build tensors with the backend's torch
    import torch


class SpecInputTypeDouble(enum.IntEnum):
    """sglang.srt.speculative.spec_info.SpecInputType (the members the releases name)."""

    EAGLE_DRAFT = 1
    EAGLE_VERIFY = 2
    NGRAM_VERIFY = 3
    DFLASH_DRAFT = 4
    DFLASH_VERIFY = 5


class SpecInputDouble:
    """sglang's SpecInput base: the backend asserts `isinstance(spec_info, SpecInput)`."""

    def __init__(
        self, spec_input_type: SpecInputTypeDouble, req_to_token: torch.Tensor, log: Optional[set] = None, **attrs
    ):
        object.__setattr__(self, "_log", log if log is not None else set())
        self.spec_input_type = spec_input_type
        self.req_to_token = req_to_token
        for key, value in attrs.items():
            setattr(self, key, value)

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        self._log.add(f"spec_info.{name}")
        return None

    def is_draft_input(self) -> bool:
        return self.spec_input_type == SpecInputTypeDouble.EAGLE_DRAFT

    def is_verify_input(self) -> bool:
        return self.spec_input_type in (
            SpecInputTypeDouble.EAGLE_VERIFY,
            SpecInputTypeDouble.NGRAM_VERIFY,
            SpecInputTypeDouble.DFLASH_VERIFY,
        )

    def _kv_indices(self, req_pool_indices, kv_lens, kv_indptr, kv_indices_buf=None) -> torch.Tensor:
        """Each request's first kv_lens slots of the page table, flat (in kv_indices_buf when given)."""
        torch = _torch()
        rows = [self.req_to_token[int(r), : int(n)] for r, n in zip(req_pool_indices.tolist(), kv_lens.tolist())]
        flat = torch.cat(rows).to(torch.int32) if rows else torch.empty(0, dtype=torch.int32)
        if kv_indices_buf is not None:
            kv_indices_buf[: flat.numel()].copy_(flat.to(kv_indices_buf.device))
            return kv_indices_buf
        return flat.to(kv_indptr.device)


def _csr(tokens_per_req: int, req_pool_indices, kv_lens):
    """(qo_indptr, kv_indptr) of a constant-width query layout."""
    torch = _torch()
    device = req_pool_indices.device
    bs = int(req_pool_indices.numel())
    qo_indptr = torch.arange(0, (bs + 1) * tokens_per_req, tokens_per_req, dtype=torch.int32, device=device)
    kv_indptr = torch.zeros(bs + 1, dtype=torch.int32, device=device)
    kv_indptr[1:] = torch.cumsum(kv_lens.to(device), dim=0)
    return qo_indptr, kv_indptr


class EagleVerifyInputDouble(SpecInputDouble):
    """EagleVerifyInput for TARGET_VERIFY: a chain of draft_token_num tokens per request (topk 1),
    no custom mask (the MLA wrapper's causal plan is the chain's mask), no ragged layout."""

    def __init__(self, draft_token_num: int, req_to_token: torch.Tensor, log: Optional[set] = None):
        super().__init__(
            SpecInputTypeDouble.EAGLE_VERIFY,
            req_to_token,
            log,
            draft_token_num=draft_token_num,
            num_tokens_per_req=draft_token_num,
            custom_mask=None,
            ragged_verify_layout=None,
            topk=1,
            spec_steps=max(draft_token_num - 1, 1),
            positions=None,
            seq_lens_sum=None,
            seq_lens_cpu=None,
        )

    def generate_attn_arg_prefill(
        self,
        req_pool_indices,
        paged_kernel_lens,
        paged_kernel_lens_sum=None,
        req_to_token=None,
        *,
        kv_indices_buf=None,
        **_release_keywords,
    ):
        """The verify window widens the prefix: kv = prefix + draft_token_num per request."""
        kv_lens = paged_kernel_lens + self.draft_token_num
        qo_indptr, kv_indptr = _csr(self.draft_token_num, req_pool_indices, kv_lens)
        kv_indices = self._kv_indices(req_pool_indices, kv_lens, kv_indptr, kv_indices_buf)
        return kv_indices, kv_indptr, qo_indptr, None


class EagleDraftInputDouble(SpecInputDouble):
    """EagleDraftInput / EagleDraftExtendInput for DRAFT_EXTEND(_V2): every draft token accepted, so
    each request extends by num_tokens_per_req (accept_length, num_accept_tokens)."""

    def __init__(
        self, tokens_per_req: int, batch_size: int, req_to_token: torch.Tensor, device, log: Optional[set] = None
    ):
        torch = _torch()
        accepted = torch.full((batch_size,), tokens_per_req, dtype=torch.int32, device=device)
        super().__init__(
            SpecInputTypeDouble.EAGLE_DRAFT,
            req_to_token,
            log,
            num_tokens_per_req=tokens_per_req,
            draft_token_num=tokens_per_req,
            accept_length=accepted,
            accept_length_cpu=accepted.tolist(),
            num_accept_tokens=accepted,
            num_accept_tokens_cpu=accepted.tolist(),
            num_correct_drafts=accepted - 1,
            topk=1,
            custom_mask=None,
            positions=None,
            hidden_states=None,
            num_front_tokens=0,
        )

    def generate_attn_arg_prefill(
        self,
        req_pool_indices,
        paged_kernel_lens,
        paged_kernel_lens_sum=None,
        req_to_token=None,
        *,
        kv_indices_buf=None,
        **_release_keywords,
    ):
        """paged_kernel_lens already includes the draft-extend window."""
        qo_indptr, kv_indptr = _csr(self.num_tokens_per_req, req_pool_indices, paged_kernel_lens)
        kv_indices = self._kv_indices(req_pool_indices, paged_kernel_lens, kv_indptr, kv_indices_buf)
        return kv_indices, kv_indptr, qo_indptr, None


def registry_names() -> Dict[str, Any]:
    """The spec names a backend imports, answered by these doubles (doubles.Registry)."""
    return {
        "SpecInput": SpecInputDouble,
        "SpecInfo": SpecInputDouble,
        "SpecInputType": SpecInputTypeDouble,
        "EagleVerifyInput": EagleVerifyInputDouble,
        "EagleDraftInput": EagleDraftInputDouble,
        "EagleDraftExtendInput": EagleDraftInputDouble,
    }
