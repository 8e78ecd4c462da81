"""A generic caster made with functools.partial."""

from functools import partial

import torch


def _cast(t, dtype, non_blocking=False):
    return t.to(dtype=dtype, non_blocking=non_blocking)  # note: generic (caches, queries, hidden states); labelled at the callers


to_half = partial(_cast, dtype=torch.float16)
to_fp32 = partial(_cast, dtype=torch.float32)
