"""Conversion callables for the sglang FA3 MLA fallback, built with operator.methodcaller at import."""
import operator

import torch

WIDEN = {dt: operator.methodcaller("to", dt) for dt in (torch.bfloat16, torch.float16)}
TO_DEVICE = operator.methodcaller("to", "cuda", non_blocking=True)


def widen_for(dtype: torch.dtype):
    return WIDEN[dtype]
