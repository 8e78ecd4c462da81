"""Issue 19, round 20 (family_recall_18: learnt runners, flatteners, filtered dict items), in sglang, vLLM,
lmdeploy and TRT-LLM styles other than the corpus's:
- a module function that calls one of its parameters with its other parameters (`def timed(tag, fn, *a,
  **kw): return fn(*a, **kw)`, or named parameters handed on) is a runner: the callable handed to it runs
  with the arguments after it, and its own conversion is reported at its own line (not at the call);
- flatteners keep their elements: `sum(lists, [])`, `itertools.chain.from_iterable(x)`,
  `list(itertools.chain(*x))`, `[t for pair in pairs for t in pair]`;
- `for name, t in d.items()` over a dict display with constant keys, under a test of name (endswith,
  startswith, ==, in): t is only the entries whose key passes the branch's test.
Each positive has look-alikes beside it; the pruned analysis gives the whole file's findings, with and
without filler."""

from __future__ import annotations

import pytest

from marked_cases import assert_marked_lines, assert_pruned_is_whole

CASES = {
    "learnt_runner_star_args_sglang": """\
import torch


def _timed(tag, fn, *args, **kwargs):
    torch.cuda.nvtx.range_push(tag)
    out = fn(*args, **kwargs)
    torch.cuda.nvtx.range_pop()
    return out


def _widen(buf, dt):
    return buf.to(dt)  # positive: CL001


def _widen_rows(buf, loc, dt):
    return buf[loc].to(dt)  # negative: gathered rows


def _widen_new(k, dt):
    return k.to(dt)  # negative: the step's new keys only


class TritonBackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool

    def forward_decode(self, q, k, v, layer, forward_batch):
        k_buf = self.pool.get_key_buffer(layer.layer_id)
        wide = _timed("widen", _widen, k_buf, dt=q.dtype)
        rows = _timed("rows", _widen_rows, k_buf, forward_batch.out_cache_loc, q.dtype)
        new = _timed("new", _widen_new, k, q.dtype)
        return wide, rows, new
""",
    "learnt_runner_named_params_vllm": """\
import torch


def run_stage(stage, cache, dtype):
    return stage(cache, dtype)


def dequant_cache(cache, dtype):
    return cache.to(dtype)  # positive: CL001


def dequant_scales(scales, dtype):
    return scales.to(dtype)  # negative: the scales


class FallbackImpl:
    def forward(self, layer, query, key, value, kv_cache, attn_metadata):
        key_cache, value_cache = kv_cache.unbind(0)
        k = run_stage(dequant_cache, key_cache, query.dtype)
        s = run_stage(dequant_scales, layer._k_scale, query.dtype)
        return k, s
""",
    "flatten_star_chain_vllm": """\
import itertools

import torch


class HostMirror:
    def __init__(self, kv_caches, dtype=torch.float16):
        self.kv_caches = kv_caches
        self.dtype = dtype

    def sync_all(self):
        planes = list(itertools.chain(*[c.unbind(0) for c in self.kv_caches]))
        return [p.to(self.dtype) for p in planes]  # positive: CL001

    def sync_blocks(self, block_ids):
        rows = list(itertools.chain(*[[c[0, block_ids], c[1, block_ids]] for c in self.kv_caches]))
        return [r.to(self.dtype) for r in rows]  # negative: gathered blocks

    def lengths(self):
        total = sum([c.shape[1] for c in self.kv_caches], 0)
        return torch.tensor(total).to(self.dtype)  # negative: a count
""",
    "flatten_sum_start_keyword_lmdeploy": """\
import torch


class CacheSnapshot:
    def __init__(self, cache_engine, dtype=torch.float32):
        self.cache_engine = cache_engine
        self.dtype = dtype

    def take(self):
        layers = [[k_cache, v_cache] for k_cache, v_cache in self.cache_engine.gpu_cache]
        flat = sum(layers, start=[])
        return [x.to(self.dtype) for x in flat]  # positive: CL001

    def take_step(self, step_keys, step_values):
        flat = sum([[k, v] for k, v in zip(step_keys, step_values)], [])
        return [x.to(self.dtype) for x in flat]  # negative: the step's new tokens
""",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_marked_lines(tmp_path, name):
    assert_marked_lines(tmp_path, name, CASES[name])


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("filler", [False, True], ids=["as-is", "with-filler"])
def test_pruned_is_whole(tmp_path, name, filler):
    assert_pruned_is_whole(tmp_path, name, CASES[name], filler)
