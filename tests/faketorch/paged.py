"""The paged-read fix's driver on the fake torch: paged kernels that record what they read.

`drive(source, companions, page_size, capturing)` loads a backend module (and the modules
the fix added, by name) with the fake torch, gives its paged-backend class a pool of 12
pages, a page table whose two requests share a prefix page and cascade metadata, and
calls its forward methods; it returns what every kernel read and through which table.
"""

from __future__ import annotations

import inspect
import math
import sys
import types

from castlint.validate.doubles import Namespace
from faketorch.flashinfer import make_flashinfer
from faketorch.harness import fake_imports
from faketorch.module import make_torch
from faketorch.tensor import Tensor


class Kernels:
    """Paged kernels that honour the contract (request b reads page_table[b, :ceil(n_b / P)])
    and return what they read: per request, the rows' values in order."""

    def __init__(self):
        self.calls = []

    def _read(self, cache, table, seqlens):
        pages, size = cache.shape[0], cache.shape[1]
        rows = []
        for b, n in enumerate(seqlens.tolist()):
            got = []
            for j in range(math.ceil(n / size)):
                page = int(table[b, j].item())
                assert 0 <= page < pages, (page, pages)
                got.append(tuple(cache[page].reshape(-1).tolist()))
            rows.append(tuple(got))
        return tuple(rows)

    def flash_attn_with_kvcache(
        self,
        q=None,
        k_cache=None,
        v_cache=None,
        k=None,
        v=None,
        qv=None,
        rotary_cos=None,
        rotary_sin=None,
        cache_seqlens=None,
        cache_batch_idx=None,
        cache_leftpad=None,
        page_table=None,
        **kw,
    ):
        self.calls.append({"table": page_table, "dtype": str(k_cache.dtype)})
        return (
            "fa",
            self._read(k_cache, page_table, cache_seqlens),
            self._read(v_cache, page_table, cache_seqlens),
            tuple(q.reshape(-1).tolist()),
        )

    def flash_mla_decode(self, q_nope, q_rope, kv_cache, cache_seqlens, page_table, workspace, scale, **kw):
        self.calls.append({"table": page_table, "dtype": str(kv_cache.dtype)})
        return ("mla", self._read(kv_cache, page_table, cache_seqlens), tuple(q_nope.reshape(-1).tolist()))


def _paged_view(flat, page_size):
    return flat.reshape(flat.shape[0] // page_size, page_size, *flat.shape[1:])


def _world(torch, page_size):
    """A pool of 12 pages, two requests whose tables share a prefix page, cascade metadata."""
    rows, dim = 12 * page_size, 8
    values = [((i * 7919) % 97 - 48) / 16 for i in range(rows * dim)]
    pool_tensor = Tensor.from_values(values, (rows, 1, dim), torch.float8_e4m3fn, torch.device("cuda"), torch)

    class Pool:
        def get_key_buffer(self, layer_id):
            return pool_tensor

    i32 = torch.int32
    metadata = Namespace(
        page_table=torch.tensor([[5, 2, 9], [5, 7, 0]], dtype=i32, device="cuda"),
        cache_seqlens_int32=torch.tensor([3 * page_size - 1, page_size + 1], dtype=i32, device="cuda"),
    )
    expand = Namespace(
        page_table=torch.tensor([[11], [3]], dtype=i32, device="cuda"),
        cache_seqlens_int32=torch.tensor([page_size, 1], dtype=i32, device="cuda"),
    )
    layer = Namespace(layer_id=0, v_head_dim=6, head_dim=dim, tp_q_head_num=1, scaling=0.5)
    runner = Namespace(token_to_kv_pool=Pool(), page_size=page_size)
    q = Tensor.from_values([0.25 * i for i in range(2 * 6)], (2, 1, 6), torch.bfloat16, torch.device("cuda"), torch)
    q_rope = Tensor.from_values([0.5] * 4, (2, 1, 2), torch.bfloat16, torch.device("cuda"), torch)
    return runner, metadata, expand, layer, q, q_rope


def drive(source, companions, page_size, capturing=False):
    torch = make_torch()
    torch.cuda.is_current_stream_capturing = lambda: capturing
    kernels = Kernels()
    names = {
        "flash_attn_with_kvcache": kernels.flash_attn_with_kvcache,
        "flash_mla_decode": kernels.flash_mla_decode,
        "paged_view": _paged_view,
    }
    outcomes = []
    with fake_imports(torch, make_flashinfer(torch), names):
        for name, text in (companions or {}).items():
            helper = types.ModuleType(name)
            exec(compile(text, f"{name}.py", "exec"), helper.__dict__)
            sys.modules[name] = helper
        try:
            module = types.ModuleType("paged_subject")
            exec(compile(source, "paged_subject.py", "exec"), module.__dict__)
        finally:
            for name in companions or {}:
                sys.modules.pop(name, None)
        runner, metadata, expand, layer, q, q_rope = _world(torch, page_size)
        cls = next(v for v in vars(module).values() if isinstance(v, type) and hasattr(v, "forward_decode"))
        backend = cls(runner)
        backend.forward_metadata, backend.expand_metadata = metadata, expand
        for name in sorted(n for n in vars(cls) if n.startswith("forward")):  # every forward, in name order
            method = getattr(backend, name)
            flags = [False, True] if "use_cascade_attn" in inspect.signature(method).parameters else [None]
            for flag in flags:
                extra = {} if flag is None else {"use_cascade_attn": flag}
                try:
                    outcomes.append((name, flag, method(q, q_rope, layer, None, **extra)))
                except Exception as exc:  # noqa: BLE001 - a raising call is an outcome, compared like any
                    outcomes.append((name, flag, type(exc).__name__))
        tables = [call["table"] is metadata.page_table for call in kernels.calls]
    return outcomes, tables


def is_paged(source: bytes) -> bool:
    return b"flash_attn_with_kvcache" in source or b"flash_mla_decode" in source
