"""Conversion helpers; widen_bf16 is a module-level partial created at import time."""
import functools

import torch


def _widen(buf: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    return buf.to(dtype)  # positive: f7 CL001 reached as widen_bf16(mgr.get_buffers(i)) from graph_runner.replay: whole layer


def _widen_blocks(buf: torch.Tensor, ids: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    return buf[ids].to(dtype)  # negative: blocks gathered first


widen_bf16 = functools.partial(_widen, dtype=torch.bfloat16)
widen_blocks_bf16 = functools.partial(_widen_blocks, dtype=torch.bfloat16)
