"""Issue 19, round 17 (family_recall_15: f2 class hierarchies, f3 containers), in sglang, vLLM, lmdeploy and
TRT-LLM styles other than the corpus's:
- a module class whose instances are plain dicts (rules/accessors.toml [containers] dict_classes: a TypedDict
  subclass) is a dict constructor: `Inputs(caches=...)["caches"]` is what the construction passed, and a
  constant-keyed read of a known dict used as an index has the kind of the values stored under that key
  (`inp["layer"]` of `layer=layer_id`: a scalar, one layer);
- an object made by a class held under a name that a subclass's body reassigns (`reader_cls = Rows` in a
  base, `= Dense` in a subclass), directly or through a factory (a classmethod's `cls.reader_cls(d)`), called:
  each such class's `__call__` runs on what the call passes;
- a hook list a subclass's body extends from its base's class attribute (`hooks = Base.hooks + [_up]`,
  `(*Base.hooks, _up)`): `Base.hooks` on the class reads the nearest class body's value, a concatenation holds
  the elements of both, so the base's `for fn in self.hooks: fn(cache)` runs `_up` on the cache (the pruner:
  a converting def held as a value sends a file calling a loop variable with a pool to the analysis);
- what a sibling subclass stores on self (`self.static[i] = cache` in another override) is on no instance of the
  class a method reads it in, so a copy destination's dtype is decided by the stores of its own MRO and its
  subclasses (`self.static[i].copy_(cache)` of the base's bf16 allocation converts the cache);
- a slice bound read only from the parameters of TRT-LLM's `_forward_step` or lmdeploy's `_async_model_forward`
  is a window of the step ([hot_path] step_inputs), whatever its name (`[: scheduled_requests.num_blocks]`).
Each positive has look-alikes beside it; the pruned analysis gives the whole file's findings, with and
without filler."""

from __future__ import annotations

import pytest

from marked_cases import FILLER
from marked_cases import check as _check

CASES = {
    "graph_wrapper_sibling_stores_vllm": """\
import torch


class CachedGraphWrapperBase:
    def __init__(self, runnable, kv_caches):
        self.runnable = runnable
        self.kv_caches = kv_caches
        self.static = {}

    def capture(self):
        for i, c in enumerate(self.kv_caches):
            self.static[i] = torch.empty_like(c, dtype=torch.bfloat16)  # negative: one-time allocation

    def _sync(self, i):
        pass

    def __call__(self, *args, **kwargs):
        for i in range(len(self.kv_caches)):
            self._sync(i)
        return self.runnable(*args, **kwargs)


class Bf16StaticWrapper(CachedGraphWrapperBase):
    def _sync(self, i):
        self.static[i].copy_(self.kv_caches[i])  # positive: CL001


class AliasWrapper(CachedGraphWrapperBase):
    def _sync(self, i):
        self.static[i] = self.kv_caches[i]  # negative: aliasing, no conversion


class NativeStaticWrapper:
    def __init__(self, kv_caches):
        self.kv_caches = kv_caches
        self.static = {i: torch.empty_like(c) for i, c in enumerate(kv_caches)}

    def __call__(self, i):
        self.static[i].copy_(self.kv_caches[i])  # negative: same dtype, no conversion
        return self.static[i]
""",
    "class_hook_tuple_extend_sglang": """\
import torch


def _keep(buf, forward_batch):
    return buf


def _widen(buf, forward_batch):
    return buf.to(torch.bfloat16)  # positive: CL001


def _rows(buf, forward_batch):
    return buf[forward_batch.out_cache_loc].to(torch.bfloat16)  # negative: rows gathered


def _lens(buf, forward_batch):
    return forward_batch.seq_lens.to(torch.int64)  # negative: lengths


class HookedBackend:
    read_hooks = (_keep, _lens)

    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        buf = self.pool.get_key_buffer(layer.layer_id)
        for fn in self.read_hooks:
            buf = fn(buf, forward_batch)
        return q @ buf.transpose(-1, -2)


class NoFp8Backend(HookedBackend):
    read_hooks = (*HookedBackend.read_hooks, _widen)


class WindowBackend(HookedBackend):
    read_hooks = HookedBackend.read_hooks + (_rows,)
""",
    "class_hook_list_extend_vllm": """\
import torch


def _dense(kv_cache, attn_metadata):
    return kv_cache.float()  # positive: CL001


def _slots(kv_cache, attn_metadata):
    return kv_cache.flatten(0, 1)[attn_metadata.slot_mapping].float()  # negative: slots gathered


def _half_never_run(kv_cache, attn_metadata):
    return kv_cache.half()  # negative: in no hook list


class TorchSDPAImplBase:
    prepare = [_slots]
    unused = [_half_never_run]

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        for step in self.prepare:
            kv = step(kv_cache, attn_metadata)
        return query @ kv.transpose(-1, -2)


class CPUImpl(TorchSDPAImplBase):
    prepare = TorchSDPAImplBase.prepare + [_dense]
""",
    "held_reader_class_override_sglang": """\
import torch


class RowsView:
    def __init__(self, dtype):
        self.dtype = dtype

    def __call__(self, buf, loc):
        return buf[loc].to(self.dtype)  # negative: rows gathered


class DenseView(RowsView):
    def __call__(self, buf, loc):
        return buf.to(self.dtype)  # positive: CL001


class HalfView(RowsView):
    def __call__(self, buf, loc):
        return buf.half()  # negative: no backend holds this view


class DecodeBackendBase:
    view_cls = RowsView

    @classmethod
    def build_view(cls, dtype):
        return cls.view_cls(dtype)

    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.view = self.build_view(model_runner.dtype)
        self.scale = torch.ones(1)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kv = self.view(self.pool.get_key_buffer(layer.layer_id), forward_batch.out_cache_loc)
        return q @ kv.transpose(-1, -2), self.scale.to(q.dtype)  # negative: a scale


class TorchNativeBackend(DecodeBackendBase):
    view_cls = DenseView


class TritonBackend(DecodeBackendBase):
    pass
""",
    "held_reader_class_override_lmdeploy": """\
import torch


class BlockReader:
    def __init__(self, meta):
        self.meta = meta

    def __call__(self, k_cache):
        return k_cache[self.meta.block_offsets].float()  # negative: blocks gathered


class FullReader(BlockReader):
    def __call__(self, k_cache):
        return k_cache.float()  # positive: CL001


class PagedAttentionImpl:
    reader_type = BlockReader

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata):
        read = self.reader_type(attn_metadata)
        return query @ read(k_cache).transpose(-1, -2)


class SdpaImpl(PagedAttentionImpl):
    reader_type = FullReader
""",
    "typeddict_inputs_lmdeploy": """\
import typing

import torch


class LayerArgs(typing.TypedDict):
    values: list
    layer: int
    offsets: torch.Tensor


class NotADict:
    def __init__(self, caches, layer):
        self.caches = caches
        self.layer = layer


def make_args(engine, layer_id, meta) -> LayerArgs:
    return LayerArgs(values=[v for _, v in engine.gpu_cache], layer=layer_id, offsets=meta.block_offsets)


class TorchPagedFallback:
    def __init__(self, cache_engine):
        self.cache_engine = cache_engine

    def forward(self, hidden_states, attn_metadata, layer_id):
        args = make_args(self.cache_engine, layer_id, attn_metadata)
        vc = args["values"][args["layer"]].half()  # positive: CL001
        rows = args["values"][args["layer"]][args["offsets"]].half()  # negative: blocks gathered
        offs = args["offsets"].to(torch.int64)  # negative: block table
        other = NotADict(args["values"], args["layer"])
        first = other.caches[0][attn_metadata.block_offsets].half()  # negative: blocks gathered
        return vc, rows, offs, first
""",
    "typeddict_keyed_index_sglang": """\
from typing_extensions import TypedDict

import torch


class StepView(TypedDict, total=False):
    keys: list
    layer: int
    picked: torch.Tensor
    lens: torch.Tensor


class ShadowBackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool

    def _view(self, layer, forward_batch):
        ks = [self.pool.get_key_buffer(i) for i in range(self.pool.start_layer, self.pool.end_layer)]
        return StepView(keys=ks, layer=layer.layer_id, picked=forward_batch.out_cache_loc, lens=forward_batch.seq_lens)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        view = self._view(layer, forward_batch)
        whole = view["keys"][view["layer"]].to(torch.bfloat16)  # positive: CL001
        lens = view["lens"].float()  # negative: lengths
        few = view["keys"][view["layer"]][view["picked"]].float()  # negative: slots gathered
        return whole, lens, few
""",
    "step_bound_window_trtllm": """\
import torch


class DraftExecutor:
    def __init__(self, kv_cache_manager, num_layers):
        self.mgr = kv_cache_manager
        self.num_layers = num_layers

    def _forward_step(self, scheduled_requests, new_tokens_device=None):
        buf = self.mgr.get_buffers(0)
        head = buf[: scheduled_requests.num_blocks].to(torch.bfloat16)  # negative: block prefix of the step
        n = scheduled_requests.num_ctx_blocks
        ctx = buf[:n].float()  # negative: the step's blocks
        every = buf[: self.mgr.num_blocks].to(torch.bfloat16)  # positive: CL001
        return head, ctx, every


class AsyncAgent:
    def __init__(self, cache_engine):
        self.cache_engine = cache_engine

    async def _async_model_forward(self, inputs, swap_in_map, swap_out_map):
        k_cache = self.cache_engine.gpu_cache[0][0]
        live = k_cache[: inputs.num_blocks].float()  # negative: the step's block prefix
        dense = k_cache.float()  # positive: CL001
        return live, dense
""",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_marked_lines(tmp_path, name):
    path = tmp_path / f"{name}.py"
    path.write_text(CASES[name])
    lines = CASES[name].splitlines()
    found = {(code, line) for code, line, _ in _check(path, False)}
    positives = {
        (text.split("# positive: ")[1].split()[0], i) for i, text in enumerate(lines, 1) if "# positive" in text
    }
    negatives = {i for i, text in enumerate(lines, 1) if "# negative" in text}
    assert positives and negatives
    assert positives - found == set()
    assert {line for _, line in found} & negatives == set()


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("filler", [False, True], ids=["as-is", "with-filler"])
def test_pruned_is_whole(tmp_path, name, filler):
    path = tmp_path / f"{name}.py"
    path.write_text(CASES[name] + (FILLER if filler else ""))
    assert _check(path, True) == _check(path, False)
