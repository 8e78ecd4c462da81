# ruff: noqa: E501 - the engine-styled cases keep their long plan() lines
"""Issue 19, round 3: call indirection (f4), class hierarchies (f2) and CL002 through
indirection. Each case is a small engine-styled module whose marked lines must be exactly
the findings (`# positive: CLxxx`, `# negative`), whole and pruned (with filler around it,
so that the pruner really cuts)."""

from __future__ import annotations

import textwrap

import pytest

from castlint.config import Config
from castlint.engine import check_file
from castlint.tables import load_tables

TABLES = load_tables()
FILLER = "".join(f"\n\ndef unrelated_{i}(x):\n    y = x + {i}\n    return y.half()\n" for i in range(40))

CASES = {
    # -- f4: a cast held uncalled, called later on a pool --------------------------------
    "partial_unbound_cast_vllm": """
        import functools
        import torch

        class PagedImpl:
            def forward(self, layer, query, key, value, kv_cache, attn_metadata):
                widen = functools.partial(torch.Tensor.to, dtype=query.dtype)
                key_cache = widen(kv_cache[0])  # positive: CL001
                q_wide = widen(query)  # negative: the batch query
                return key_cache, q_wide
        """,
    "cast_list_table_sglang": """
        import torch

        UPCASTS = [torch.Tensor.float, torch.Tensor.double]

        class TableBackend:
            def __init__(self, precision):
                self.precision = precision

            def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
                kv_pool = forward_batch.token_to_kv_pool
                vb = UPCASTS[self.precision](kv_pool.get_value_buffer(layer.layer_id))  # positive: CL001
                qb = UPCASTS[self.precision](q)  # negative: batch q
                return vb, qb
        """,
    "aliased_partial_lmdeploy": """
        from functools import partial as curry
        import torch

        class CurriedImpl:
            def __init__(self):
                self.widen = curry(torch.Tensor.to, dtype=torch.float32)

            def forward(self, query, key, value, k_cache, v_cache, attn_metadata):
                kf = self.widen(k_cache)  # positive: CL001
                qf = self.widen(query)  # negative: the batch query
                return kf, qf
        """,
    "methodcaller_on_self_trtllm": """
        import operator
        import torch

        class TrtAttention:
            def __init__(self, layer_idx):
                self.layer_idx = layer_idx
                self.as_half = operator.methodcaller("half")

            def forward(self, q, metadata):
                buffers = metadata.kv_cache_manager.get_buffers(self.layer_idx)
                narrow = self.as_half(buffers)  # positive: CL001
                qh = self.as_half(q)  # negative: batch q
                return narrow, qh
        """,
    "decorator_casts_caches_lmdeploy": """
        import functools
        import torch

        def widen_caches(dtype):
            def outer(fn):
                @functools.wraps(fn)
                def inner(q, kc, vc, *extra):
                    return fn(q, kc.to(dtype), vc.to(dtype), *extra)
                return inner
            return outer

        @widen_caches(torch.float32)
        def _reference_attention(q, kc, vc, table):
            return q

        class RefImpl:
            def forward(self, query, key, value, k_cache, v_cache, attn_metadata):
                out = _reference_attention(query, k_cache, v_cache, attn_metadata.block_offsets)  # positive: CL001
                kb = k_cache[attn_metadata.block_offsets]
                vb = v_cache[attn_metadata.block_offsets]
                again = _reference_attention(query, kb, vb, attn_metadata.block_offsets)  # negative: blocks
                return out, again
        """,
    "plain_decorator_sglang": """
        import torch

        def upcast_pool_arg(fn):
            def run(self, cache, *rest):
                return fn(self, cache.float(), *rest)
            return run

        class DecoBackend:
            @upcast_pool_arg
            def _attend(self, cache, q):
                return q

            def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
                pool = forward_batch.token_to_kv_pool
                o = self._attend(pool.get_key_buffer(layer.layer_id), q)  # positive: CL001
                p = self._attend(k, q)  # negative: the new tokens
                return o, p
        """,
    # -- f2: class hierarchies -----------------------------------------------------------
    "abstract_property_subclass_pool_sglang": """
        import abc
        import torch

        class LatentAttentionBase(abc.ABC):
            def __init__(self, layer_id, kv_pool):
                self.layer_id = layer_id
                self.kv_pool = kv_pool

            @property
            @abc.abstractmethod
            def latent(self):
                raise NotImplementedError

            @property
            def scratch(self):
                return torch.zeros((4, 576))

            def forward(self, q, forward_batch):
                lat = self.latent.to(q.dtype)  # positive: CL001
                tmp = self.scratch.to(q.dtype)  # negative: a small scratch tensor
                return lat, tmp

        class PagedLatentAttention(LatentAttentionBase):
            @property
            def latent(self):
                return self.kv_pool.get_key_buffer(self.layer_id)

        class ScratchLatentAttention(PagedLatentAttention):
            @property
            def latent(self):
                return torch.zeros((4, 576))

            def forward(self, q, forward_batch):
                whole = super().latent
                mine = self.latent
                w = whole.half()  # positive: CL001
                m = mine.half()  # negative: this class's own scratch tensor
                return w, m
        """,
    "class_body_staticmethod_alias_sglang": """
        import torch

        class PoolOps:
            @staticmethod
            def layer_pair(kv_pool, lid):
                return kv_pool.get_kv_buffer(lid)

            @staticmethod
            def batch_pair(k, v):
                return k, v

        class AliasBackend:
            _pair_of = staticmethod(PoolOps.layer_pair)
            _batch_of = staticmethod(PoolOps.batch_pair)

            def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
                kv = self._pair_of(forward_batch.token_to_kv_pool, layer.layer_id)
                vv = kv[1].to(torch.float32)  # positive: CL001
                nb = self._batch_of(k, v)
                nv = nb[1].to(torch.float32)  # negative: the new tokens
                return vv, nv
        """,
    # -- CL002 through indirection ---------------------------------------------------------
    "plan_kwargs_from_helper_sglang": """
        import torch
        from flashinfer.mla import BatchMLAPagedAttentionWrapper

        class OptionsPlanBackend:
            def __init__(self, model_runner, workspace):
                self.mla = BatchMLAPagedAttentionWrapper(workspace)
                self.act_dtype = model_runner.dtype
                self.pool_dtype = model_runner.kv_cache_dtype

            def _mla_plan_options(self):
                return {"q_data_type": self.act_dtype, "kv_data_type": self.act_dtype}

            def _native_options(self):
                return dict(q_data_type=self.act_dtype, kv_data_type=self.pool_dtype)

            def init_forward_metadata(self, forward_batch):
                b = forward_batch.plan_inputs
                positions = (b.qo, b.kv, b.idx, b.lens, 16, 512, 64, 1, False, b.scale)
                self.mla.plan(*positions, **self._mla_plan_options())  # positive: CL002
                self.mla.plan(*positions, **self._native_options())  # negative: kv in the pool dtype
        """,
    "plan_dtype_pair_from_function_sglang": """
        import torch
        from flashinfer.mla import BatchMLAPagedAttentionWrapper

        def activation_pair(runner):
            return runner.dtype, runner.dtype

        def mixed_pair(runner):
            return runner.dtype, runner.kv_cache_dtype

        class PairPlanBackend:
            def __init__(self, model_runner, workspace):
                self.runner = model_runner
                self.mla = BatchMLAPagedAttentionWrapper(workspace)

            def init_forward_metadata(self, forward_batch):
                b = forward_batch.plan_inputs
                self.mla.plan(b.qo, b.kv, b.idx, b.lens, 16, 512, 64, 1, False, b.scale, *activation_pair(self.runner))  # positive: CL002
                self.mla.plan(b.qo, b.kv, b.idx, b.lens, 16, 512, 64, 1, False, b.scale, *mixed_pair(self.runner))  # negative: kv in the pool dtype
        """,
    "plan_partial_held_sglang": """
        from functools import partial
        import torch
        from flashinfer.mla import BatchMLAPagedAttentionWrapper

        class HeldPlanBackend:
            def __init__(self, model_runner, workspace):
                self.mla = BatchMLAPagedAttentionWrapper(workspace)
                self.act = model_runner.dtype
                self.cache_dt = model_runner.kv_cache_dtype

            def init_forward_metadata(self, forward_batch):
                b = forward_batch.plan_inputs
                go = partial(self.mla.plan, q_data_type=self.act, kv_data_type=self.act)
                go(b.qo, b.kv, b.idx, b.lens, 16, 512, 64, 1, False, b.scale)  # positive: CL002
                ok = partial(self.mla.plan, q_data_type=self.act, kv_data_type=self.cache_dt)
                ok(b.qo, b.kv, b.idx, b.lens, 16, 512, 64, 1, False, b.scale)  # negative: kv in the pool dtype
        """,
    "plan_module_helper_gets_dtypes_sglang": """
        import torch
        from flashinfer.mla import BatchMLAPagedAttentionWrapper

        def issue_mla_plan(w, b, q_dt, kv_dt):
            w.plan(b.qo, b.kv, b.idx, b.lens, 16, 512, 64, 1, False, b.scale, q_dt, kv_dt)

        class HelperPlanBackend:
            def __init__(self, model_runner, workspace):
                self.mla = BatchMLAPagedAttentionWrapper(workspace)
                self.act = model_runner.dtype
                self.cache_dt = model_runner.kv_cache_dtype

            def init_forward_metadata(self, forward_batch):
                issue_mla_plan(self.mla, forward_batch.plan_inputs, self.act, self.act)  # positive: CL002
                issue_mla_plan(self.mla, forward_batch.plan_inputs, self.act, self.cache_dt)  # negative: kv in the pool dtype
        """,
    "plan_mixin_helper_gets_dtypes_sglang": """
        import torch

        class MlaPlanning:
            def _plan_mla(self, wrapper, b, qd, kvd):
                wrapper.plan(b.qo, b.kv, b.idx, b.lens, 16, 512, 64, 1, False, b.scale, q_data_type=qd, kv_data_type=kvd)

        class MixedInBackend(MlaPlanning):
            def __init__(self, model_runner, wrapper):
                self.wrapper = wrapper
                self.act = model_runner.dtype
                self.cache_dt = model_runner.kv_cache_dtype

            def init_forward_metadata(self, forward_batch):
                self._plan_mla(self.wrapper, forward_batch.plan_inputs, self.act, self.act)  # positive: CL002
                self._plan_mla(self.wrapper, forward_batch.plan_inputs, self.act, self.cache_dt)  # negative: kv in the pool dtype
        """,
}


def _findings(path, prune):
    config = Config(root=path.parent)
    result = check_file(str(path), TABLES, config, config.cost_model(TABLES), prune=prune)
    assert result.errors == []
    return [(f.code, f.start.line, f.message) for f in result.findings]


def _marks(text):
    lines = text.splitlines()
    positives = {}
    negatives = set()
    for i, line in enumerate(lines, 1):
        if "# positive: " in line:
            positives[i] = line.split("# positive: ")[1].split()[0]
        elif "# negative" in line:
            negatives.add(i)
    return positives, negatives


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
