"""Round 35 (issue 19), in sglang, vLLM, lmdeploy and TensorRT-LLM styles other than the blind corpora's:

- named-tensor ops (`refine_names`, `align_to`, `rename`, `rename_`): names set, checked, dropped or the
  dimensions permuted by name; every slot is kept, so a cast after them converts the whole cache;
- a pool class's method `m(self, idx)` that returns `self.<buf>[idx]` converted to a dtype of the instance,
  in a class that also hands out that buffer's layer unconverted (`return self.<buf>[i]`): the pool's
  accessor (CL004), the buffer stored from the constructor or allocated; without the raw accessor beside it
  (a reader object), or to a caller's dtype, it stays CL001;
- (follow-imports = true) a function of another module that returns a cast its module holds
  (`return WIDEN[dtype]` over a table of `operator.methodcaller("to", dt)`) is linked with that table.

Each positive has look-alikes beside it (blocks or rows gathered first, a scale, the query, a device move);
pruned and whole analysis agree."""

# ruff: noqa: E501
from __future__ import annotations

import pytest

from castlint.config import Config
from castlint.engine import check_file
from marked_cases import TABLES, assert_marked_lines, assert_pruned_is_whole

CASES = {
    "named_align_hnd_sglang": """\
import torch

NHD = ("slot", "head", "dim")
HND = ("head", "slot", "dim")


class XPUTorchNativeBackend:
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        keys = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)
        named = keys.refine_names(*NHD)
        hnd = named.align_to(*HND).rename(None)
        dense = hnd.to(q.dtype)  # positive: CL001 every slot of the layer's keys, permuted by name
        rows = keys[forward_batch.out_cache_loc].refine_names("tok", "head", "dim").to(q.dtype)  # negative: rows of the batch
        qn = q.refine_names("tok", "head", "dim").align_to("head", "tok", "dim").to(torch.float32)  # negative: the query
        return dense, rows, qn
""",
    "named_rename_inplace_vllm": """\
import torch


class GaudiNamedImpl:
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        planes = kv_cache.rename("kv", "blk", "slot", "head", "dim")
        planes.rename_(None)
        whole = planes.float()  # positive: CL001 both planes of every block after names set and dropped
        blocks = kv_cache[:, attn_metadata.block_tables[0]].rename(None).float()  # negative: blocks of one request
        s = layer._k_scale.rename(None).float()  # negative: a scale
        return whole, blocks, s
""",
    "named_align_lmdeploy": """\
import torch


class MacaPagedAttention:
    def forward(self, hidden_states, past_key_value, attn_metadata, k_scales_zeros=None):
        k_cache, v_cache = past_key_value
        v_named = v_cache.refine_names("b", "s", "h", "d").align_to("b", "h", "s", "d")
        v16 = v_named.rename(None).half()  # positive: CL001 the whole value cache permuted by name
        k_rows = k_cache[attn_metadata.block_offsets].rename(None).half()  # negative: the batch's blocks
        lens = attn_metadata.kv_seqlens.to(torch.int32)  # negative: lengths
        return hidden_states, v16, k_rows, lens
""",
    "own_layer_accessor_stored_vllm": """\
import torch


class NeuronKVPool:
    def __init__(self, kv_caches, compute_dtype):
        self._layers = kv_caches
        self.compute_dtype = compute_dtype

    def dense(self, i):
        return self._layers[i].to(self.compute_dtype)  # positive: CL004 the pool's accessor widens its whole layer

    def stored(self, i):
        return self._layers[i]

    def pages(self, i, page_ids):
        return self._layers[i][:, page_ids].to(self.compute_dtype)  # negative: pages of the batch


class NeuronAttentionImpl:
    def __init__(self, pool, layer_idx):
        self.pool = pool
        self.layer_idx = layer_idx

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        kv = self.pool.dense(self.layer_idx)
        k_new = key.to(self.pool.stored(self.layer_idx).dtype)  # negative: new tokens to the stored dtype
        return kv, k_new
""",
    "own_layer_accessor_allocated_trtllm": """\
import torch


class HostStagingPool:
    def __init__(self, num_layers, shape, cache_dtype, compute_dtype):
        self.planes = [torch.empty(shape, dtype=cache_dtype) for _ in range(num_layers)]
        self.scales = [torch.ones(shape[0], dtype=torch.float32) for _ in range(num_layers)]
        self.compute_dtype = compute_dtype

    def widened(self, layer_idx):
        return self.planes[layer_idx].view(-1, 128).to(self.compute_dtype)  # positive: CL004 the pool's own accessor converts the whole layer

    def raw(self, layer_idx):
        return self.planes[layer_idx].view(-1, 128)

    def scale(self, layer_idx):
        return self.scales[layer_idx].to(self.compute_dtype)  # negative: a per-layer scale

    def staged_blocks(self, layer_idx, block_ids):
        return self.planes[layer_idx][block_ids].to(self.compute_dtype)  # negative: the batch's blocks
""",
    "reader_object_stays_cl001_lmdeploy": """\
import torch


class StepKVReader:
    def __init__(self, k_caches, dtype):
        self.k_caches = k_caches
        self.dtype = dtype

    def dense(self, layer_idx):
        return self.k_caches[layer_idx].to(self.dtype)  # positive: CL001 a reader object with no raw accessor beside it

    def rows(self, layer_idx, block_offsets):
        return self.k_caches[layer_idx][block_offsets].to(self.dtype)  # negative: blocks of the batch


class DeepseekAttentionFallback:
    def forward(self, hidden_states, past_key_value, attn_metadata, step_ctx):
        reader = StepKVReader([kv[0] for kv in step_ctx.kv_caches], hidden_states.dtype)
        k = reader.dense(0)
        q = hidden_states.to(torch.float32)  # negative: hidden states
        return q @ k.flatten(0, 1).T
""",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_marked_lines(tmp_path, name):
    assert_marked_lines(tmp_path, name, CASES[name])


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("filler", [False, True], ids=["as-is", "with-filler"])
def test_pruned_is_whole(tmp_path, name, filler):
    assert_pruned_is_whole(tmp_path, name, CASES[name], filler)


CONVERTERS = """\
import functools
import operator

import torch

UP = {dt: operator.methodcaller("to", dt) for dt in (torch.float16, torch.bfloat16)}
TO_HOST = operator.methodcaller("to", "cpu")


def upcast_for(dtype):
    return UP[dtype]
"""

BACKEND = """\
from .converters import TO_HOST, upcast_for


class TRTLLMGenFallback:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self._up = upcast_for(model_runner.dtype)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        vals = self._up(self.pool.get_value_buffer(layer.layer_id))  # positive: CL001 the whole layer through the other module's methodcaller
        rows = self._up(self.pool.get_key_buffer(layer.layer_id)[forward_batch.out_cache_loc])  # negative: rows
        host = TO_HOST(forward_batch.seq_lens)  # negative: a device move
        return vals, rows, host
"""


@pytest.mark.parametrize("prune", [False, True], ids=["whole", "pruned"])
def test_function_returning_held_cast_of_another_module(tmp_path, prune):
    pkg = tmp_path / "fallback_pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "converters.py").write_text(CONVERTERS)
    (pkg / "backend.py").write_text(BACKEND)
    config = Config(root=tmp_path)
    config.follow_imports = True
    result = check_file(str(pkg / "backend.py"), TABLES, config, config.cost_model(TABLES), prune=prune)
    assert result.errors == []
    lines = BACKEND.splitlines()
    expected = {i for i, t in enumerate(lines, 1) if "# positive" in t}
    assert {f.start.line for f in result.findings} == expected
    assert {f.code for f in result.findings} == {"CL001"}


HELPERS = """\
import functools
from functools import partial

import torch

to_half = functools.partial(torch.Tensor.to, dtype=torch.float16)
to_long = partial(torch.Tensor.to, dtype=torch.int64)
up = partial(torch.Tensor.to, dtype=torch.float32)
"""

LMDEPLOY_IMPL = """\
from .helpers import to_half, to_long
from .helpers import up as widen


class AscendPagedAttention:
    def forward(self, hidden_states, past_key_value, attn_metadata):
        k_cache, v_cache = past_key_value
        k16 = to_half(k_cache)  # positive: CL001 the whole key cache through the other module's partial
        v32 = widen(v_cache)  # positive: CL001 the whole value cache through the other module's partial, imported under another name
        rows = to_half(k_cache[attn_metadata.block_offsets])  # negative: the batch's blocks
        lens = to_long(attn_metadata.kv_seqlens)  # negative: lengths
        q = to_half(hidden_states)  # negative: the hidden states
        return k16, v32, rows, lens, q
"""


def _package(tmp_path, files):
    pkg = tmp_path / "engine_pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    for name, text in files.items():
        (pkg / name).write_text(text)
    return pkg


@pytest.mark.parametrize("prune", [False, True], ids=["whole", "pruned"])
@pytest.mark.parametrize(
    "files,checked",
    [
        ({"converters.py": CONVERTERS, "backend.py": BACKEND}, "backend.py"),
        ({"helpers.py": HELPERS, "impl.py": LMDEPLOY_IMPL}, "impl.py"),
    ],
    ids=["methodcaller-table-sglang", "partials-aliased-lmdeploy"],
)
def test_held_cast_of_a_sibling_module_default_mode(tmp_path, prune, files, checked):
    """follow-imports = "callers" (the default): a cast a sibling module holds, imported by name, is linked."""
    pkg = _package(tmp_path, files)
    config = Config(root=tmp_path)
    assert config.follow_imports == "callers"
    result = check_file(str(pkg / checked), TABLES, config, config.cost_model(TABLES), prune=prune)
    assert result.errors == []
    lines = files[checked].splitlines()
    expected = {i for i, t in enumerate(lines, 1) if "# positive" in t}
    assert {f.start.line for f in result.findings} == expected
    assert {f.code for f in result.findings} == {"CL001"}
