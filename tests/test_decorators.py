# ruff: noqa: E501 - the engine-styled cases keep their long lines
"""Issue 19, f4: values through decorated functions and methods. A call of a decorated def
reaches the closure its decorator returns (ObjectFlow.decorated: a wrapper of the module, a
factory's `@deco(dtype)`, a class with `__call__`), the decorated def held by the decorator's
parameter; a decorator of a library keeps the decorated def's own flow. Each case's marked
lines must be exactly the findings (`# positive: CLxxx`, `# negative`), whole and pruned."""

from __future__ import annotations

import textwrap

import pytest

from test_call_indirection import FILLER, _findings, _marks

CASES = {
    # a class decorator: calling the decorated name runs __call__, which calls what __init__ stored
    "class_decorator_returns_pool_sglang": """
        import torch

        class traced:
            def __init__(self, fn):
                self.fn = fn

            def __call__(self, *args, **kwargs):
                return self.fn(*args, **kwargs)

        @traced
        def key_arena(pool, layer_id):
            return pool.get_key_buffer(layer_id)

        @traced
        def scratch(n):
            return torch.zeros((n, 576))

        class TracedBackend:
            def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
                pool = forward_batch.token_to_kv_pool
                kb = key_arena(pool, layer.layer_id).to(q.dtype)  # positive: CL001
                sb = scratch(4).to(q.dtype)  # negative: a small scratch tensor
                return kb, sb
        """,
    # a pass-through wrapper (functools.wraps style) around a helper called with a pool and with
    # batch tensors: the conversion is the pool-passing call's
    "wraps_helper_called_with_both_vllm": """
        import functools
        import torch

        def timed(fn):
            @functools.wraps(fn)
            def wrapper(*args, **kwargs):
                return fn(*args, **kwargs)
            return wrapper

        @timed
        def to_compute(t, dt):
            return t.to(dt)  # negative: converts what each caller passes

        class TimedImpl:
            def forward(self, layer, query, key, value, kv_cache, attn_metadata):
                whole = to_compute(kv_cache[0], query.dtype)  # positive: CL001
                new = to_compute(key, query.dtype)  # negative: the new tokens
                return whole, new
        """,
    # every caller of the decorated helper passes a whole pool: the helper's own cast line
    "wraps_helper_every_caller_pool_sglang": """
        import functools
        import torch

        def logged(tag):
            def deco(fn):
                @functools.wraps(fn)
                def inner(*a, **kw):
                    return fn(*a, **kw)
                return inner
            return deco

        class LoggedBackend:
            @logged("upcast")
            def _upcast(self, buf):
                return buf.float()  # positive: CL001

            def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
                pool = forward_batch.token_to_kv_pool
                kb = self._upcast(pool.get_key_buffer(layer.layer_id))
                vb = self._upcast(pool.get_value_buffer(layer.layer_id))
                qb = q.float()  # negative: batch q
                return kb, vb, qb
        """,
    # the wrapper gathers what it hands on: the pool never reaches the decorated body
    "wrapper_gathers_args_trtllm": """
        import torch

        def rows_only(fn):
            def run(self, cache, block_ids, *rest):
                return fn(self, cache[block_ids], block_ids, *rest)
            return run

        class RowsAttention:
            @rows_only
            def _widen(self, cache, block_ids):
                return cache.float()  # negative: the wrapper hands on the gathered blocks

            def forward(self, q, metadata):
                buffers = metadata.kv_cache_manager.get_buffers(self.layer_idx)
                rows = self._widen(buffers, metadata.block_ids)  # negative: gathered by the wrapper
                whole = buffers.float()  # positive: CL001
                return rows, whole
        """,
    # the decorated def returns the pool, the wrapper a gather of it
    "wrapper_gathers_return_lmdeploy": """
        import torch

        def select_blocks(fn):
            def inner(k_cache, offsets):
                return fn(k_cache, offsets)[offsets]
            return inner

        def passthrough(fn):
            def inner(*args):
                return fn(*args)
            return inner

        @select_blocks
        def picked(k_cache, offsets):
            return k_cache

        @passthrough
        def kept(k_cache, offsets):
            return k_cache

        class BlocksImpl:
            def forward(self, query, key, value, k_cache, v_cache, attn_metadata):
                a = picked(k_cache, attn_metadata.block_offsets).to(query.dtype)  # negative: the wrapper gathers
                b = kept(k_cache, attn_metadata.block_offsets).to(query.dtype)  # positive: CL001
                return a, b
        """,
    # the wrapper converts what the decorated def returns: the call converts
    "wrapper_casts_return_sglang": """
        import torch

        def as_bf16(fn):
            def wrapper(*args, **kwargs):
                return fn(*args, **kwargs).to(torch.bfloat16)
            return wrapper

        class UpcastReturnBackend:
            @as_bf16
            def _keys(self, pool, layer):
                return pool.get_key_buffer(layer.layer_id)

            @as_bf16
            def _query(self, q):
                return q

            def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
                kb = self._keys(forward_batch.token_to_kv_pool, layer)  # positive: CL001
                qb = self._query(q)  # negative: batch q
                return kb, qb
        """,
    # stacked decorators of the module: the outer wrapper calls the inner one, which calls the def
    "stacked_decorators_vllm": """
        import torch

        def outer_cast(fn):
            def wrapper(self, cache, *rest):
                return fn(self, cache.half(), *rest)
            return wrapper

        def inner_log(fn):
            def wrapper(*args, **kwargs):
                return fn(*args, **kwargs)
            return wrapper

        class StackedImpl:
            @outer_cast
            @inner_log
            def _attend(self, cache, query):
                return query

            def forward(self, layer, query, key, value, kv_cache, attn_metadata):
                out = self._attend(kv_cache, query)  # positive: CL001
                tmp = self._attend(key, query)  # negative: the new tokens
                return out, tmp
        """,
    # library decorators castlint cannot see into keep the decorated def's own flow
    "library_decorators_keep_flow_sglang": """
        import functools
        import torch
        from sglang.srt.utils import nvtx_annotate

        @torch.no_grad()
        def value_arena(pool, layer_id):
            return pool.get_value_buffer(layer_id)

        @functools.lru_cache(maxsize=None)
        def head_bytes(heads, dim):
            return torch.zeros((heads, dim))

        @torch.compile(dynamic=True)
        def widen_pool(pool, layer_id, dt):
            return pool.get_key_buffer(layer_id).to(dt)  # positive: CL001

        @nvtx_annotate("kv")
        def latent_arena(pool, layer_id):
            return pool.get_key_buffer(layer_id)

        class LibraryDecoratedBackend:
            def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
                pool = forward_batch.token_to_kv_pool
                vb = value_arena(pool, layer.layer_id).to(q.dtype)  # positive: CL001
                hb = head_bytes(8, 64).to(q.dtype)  # negative: a small table
                kb = widen_pool(pool, layer.layer_id, q.dtype)
                lb = latent_arena(pool, layer.layer_id).float()  # positive: CL001
                return vb, hb, kb, lb
        """,
    # a decorator factory defined as a class: `@Upcast(dtype)` builds an object whose
    # __call__(fn) returns the wrapper
    "class_factory_decorator_lmdeploy": """
        import torch

        class widen_to:
            def __init__(self, dtype):
                self.dtype = dtype

            def __call__(self, fn):
                dtype = self.dtype

                def inner(query, k_cache, *rest):
                    return fn(query, k_cache.to(dtype), *rest)
                return inner

        @widen_to(torch.float32)
        def _ref_decode(query, k_cache, offsets):
            return query

        class WidenImpl:
            def forward(self, query, key, value, k_cache, v_cache, attn_metadata):
                o = _ref_decode(query, k_cache, attn_metadata.block_offsets)  # positive: CL001
                p = _ref_decode(query, key, attn_metadata.block_offsets)  # negative: the new tokens
                return o, p
        """,
}


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("filler", [False, True], ids=["as-is", "with-filler"])
def test_marked_lines_are_the_findings(tmp_path, name, filler):
    text = textwrap.dedent(CASES[name]).lstrip("\n")
    path = tmp_path / f"{name}.py"
    path.write_text(text + (FILLER if filler else ""))
    positives, negatives = _marks(text)
    assert positives and negatives
    whole = _findings(path, False)
    found = {line: code for code, line, _ in whole}
    assert found == positives, whole
    assert _findings(path, True) == whole


UNSEEN = """
import torch
from sglang.srt.utils import maybe_wrap


@maybe_wrap
def whole_keys(pool, layer):
    return pool.get_key_buffer(layer.layer_id)


@torch.no_grad()
def whole_values(pool, layer):
    return pool.get_value_buffer(layer.layer_id)


class UnseenBackend:
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kb = whole_keys(forward_batch.token_to_kv_pool, layer).to(q.dtype)
        vb = whole_values(forward_batch.token_to_kv_pool, layer).to(q.dtype)
        return kb, vb
"""


def test_a_decorator_castlint_cannot_see_passes_the_call_but_no_fix_rests_on_it(tmp_path):
    """A library decorator is taken to pass the call through (the pool may come back: reported),
    but a fix that hands the value on (the MLA native read, a paged kernel) is refused unless
    rules/accessors.toml lists the decorator as a pass-through one."""
    from castlint.config import Config
    from castlint.engine import check_file
    from test_call_indirection import TABLES

    path = tmp_path / "unseen.py"
    path.write_text(UNSEEN)
    config = Config(root=tmp_path)
    findings = check_file(str(path), TABLES, config, config.cost_model(TABLES), prune=False).findings
    by_line = {f.start.line: f for f in findings}
    assert sorted(by_line) == [18, 19]
    assert "`@maybe_wrap`, a decorator castlint cannot see" in by_line[18].unfixable_reason
    assert "decorator" not in by_line[19].unfixable_reason  # torch.no_grad keeps the function's own flow
