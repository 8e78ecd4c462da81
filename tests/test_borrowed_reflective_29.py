"""Round 29 (family_recall_27), in sglang, vLLM, lmdeploy and TRT-LLM styles other than the corpus's:
- a bound accessor (or a pool value) stored as an attribute of an object of another class, in any of its
  methods (`meta.read_layer = mgr.get_buffers` in a metadata builder's step method), called back through a
  parameter whose class is told by that attribute name (`attn_metadata.read_layer(i)`);
- a helper class that borrows the cache from an object it holds (`self.engine.gpu_cache[i]`, no allocation of
  its own) converts for its caller (CL001), not as a pool's accessor (CL004), when what it borrows is an
  engine's list of per-layer caches ([cache_attributes] python_lists); a pool class's own accessor, and a pool
  tier over another pool's own buffer (`self.device_pool.v_buffer`), stay CL004;
- reflective record walks (`vars(rec).items()`, `rec.__dict__.items()`, `getattr(rec, f.name)` over
  `dataclasses.fields(rec)`) narrowed by an equality test of the name, on a record of unknown class: the field
  of that name;
- a per-layer dict's constant key read through `enumerate(rows)` selects that key's values (a scale stays a
  scale).
Each positive has look-alikes beside it; the pruned analysis gives the whole file's findings, with and
without filler."""

from __future__ import annotations

import pytest

from marked_cases import assert_marked_lines, assert_pruned_is_whole

CASES = {
    # -- bound accessors stored on another class's object ---------------------------------------------------
    "bound_reader_on_metadata_trtllm": """\
import torch


class TuringAttentionMetadata:
    def __init__(self, kv_cache_manager):
        self.kv_cache_manager = kv_cache_manager
        self.read_layer = None

    def on_update(self, seq_ids):
        self.read_layer = self.kv_cache_manager.get_buffers
        self.pages = torch.tensor(self.kv_cache_manager.get_batch_cache_indices(seq_ids)[0], dtype=torch.int32)


class TuringFallbackAttention:
    def __init__(self, layer_idx):
        self.layer_idx = layer_idx
        self.act_dtype = torch.float16

    def forward(self, q, attn_metadata):
        layer = attn_metadata.read_layer(self.layer_idx)
        whole = layer.to(self.act_dtype)  # positive: CL001 every page of the layer
        pages = layer[attn_metadata.pages].to(self.act_dtype)  # negative: the batch's pages
        bits = layer.view(torch.int8)  # negative: a reinterpret
        return whole, pages, bits, q.to(self.act_dtype)  # negative: the query
""",
    "bound_key_buffer_on_ctx_sglang": """\
import torch


class DecodeContext:
    def __init__(self, req_to_token):
        self.req_to_token = req_to_token

    def bind(self, model_runner):
        pool = model_runner.token_to_kv_pool
        self.key_of = pool.get_key_buffer
        self.rows = self.req_to_token[:, :8]


class NaiveDecodeBackend:
    def forward_decode(self, q, layer, ctx):
        k = ctx.key_of(layer.layer_id)
        dense = k.float()  # positive: CL001 every slot of the layer
        rows = k[ctx.rows].float()  # negative: the rows of the batch
        moved = k.to(q.device)  # negative: a device move
        return dense, rows, moved
""",
    # -- a borrower's conversion is its caller's ---------------------------------------------------------------
    "borrowed_cache_helper_lmdeploy": """\
import torch


class PrefixWidener:
    def __init__(self, engine, dtype):
        self.engine = engine
        self.dtype = dtype

    def widen(self, layer_idx):
        k_cache, v_cache = self.engine.gpu_cache[layer_idx]
        return k_cache.half(), v_cache.to(self.dtype)  # positive: CL001 both whole caches of the layer

    def pages(self, layer_idx, offsets):
        k_cache, _ = self.engine.gpu_cache[layer_idx]
        return k_cache[offsets].half()  # negative: the sequence's blocks


class Runner:
    def __init__(self, engine, cfg):
        self.widener = PrefixWidener(engine, cfg.dtype)

    def forward(self, inputs, ctx):
        if ctx.long_prefill:
            return [self.widener.widen(i) for i in range(ctx.num_layers)]
        return [self.widener.pages(i, ctx.block_offsets) for i in range(ctx.num_layers)]
""",
    "borrowed_kv_caches_vllm": """\
import torch


class LayerDequantView:
    def __init__(self, runner):
        self.runner = runner

    def dense_layer(self, layer_idx, dtype):
        return self.runner.kv_caches[layer_idx].to(dtype)  # positive: CL001 the whole layer of the runner's list

    def rows(self, layer_idx, slot_mapping, dtype):
        return self.runner.kv_caches[layer_idx][slot_mapping].to(dtype)  # negative: the batch's slots


class OwnPool:
    def __init__(self, num_layers, size, dtype):
        self.kv_caches = [torch.empty(size, 2, 16, 128, dtype=torch.float8_e4m3fn) for _ in range(num_layers)]
        self.dtype = dtype

    def get_layer(self, layer_idx):
        return self.kv_caches[layer_idx].to(self.dtype)  # positive: CL004 the pool's own accessor
""",
    "pool_tier_over_device_pool_sglang": """\
import torch


class PinnedMirrorPool:
    def __init__(self, device_pool, mirror_dtype):
        self.device_pool = device_pool
        self.mirror_dtype = mirror_dtype

    def layer_for_backup(self, layer_id):
        return self.device_pool.v_buffer[layer_id].to(self.mirror_dtype)  # positive: CL004 a pool tier's accessor

    def rows_for_backup(self, layer_id, loc):
        return self.device_pool.v_buffer[layer_id][loc].to(self.mirror_dtype)  # negative: rows


class MirrorBackend:
    def __init__(self, mirror):
        self.mirror = mirror

    def forward_extend(self, q, k, v, layer, forward_batch):
        if forward_batch.backup_all:
            self.mirror.layer_for_backup(layer.layer_id)
        return self.mirror.rows_for_backup(layer.layer_id, forward_batch.out_cache_loc)
""",
    # -- reflective walks narrowed by a name equality --------------------------------------------------------
    "dict_walk_equality_vllm": """\
import torch


class LayerRecord:
    def __init__(self, kv_cache, slot_mapping):
        self.kv_cache = kv_cache
        self.slot_mapping = slot_mapping


class StaticReplay:
    def __init__(self, runnable, dtype):
        self.runnable = runnable
        self.dtype = dtype
        self.slots = {}

    def __call__(self, records):
        for i, rec in enumerate(records):
            for field, val in rec.__dict__.items():
                if field in ("kv_cache",):
                    self.slots[i] = val.to(self.dtype)  # positive: CL001 the layer cache of the record
                elif field != "kv_cache":
                    self.slots[(i, field)] = val.to(torch.int32)  # negative: ids and lengths
        return self.runnable(self.slots)
""",
    "vars_walk_not_equal_exit_lmdeploy": """\
import torch


class GraphInputs:
    def __init__(self, dtype):
        self.dtype = dtype
        self.out = {}

    def fill(self, step_ctx):
        for name, value in vars(step_ctx).items():
            if name != "kv_caches":
                continue
            for k_cache, v_cache in value:
                self.out[id(k_cache)] = k_cache.half()  # positive: CL001 whole key cache of each layer
        for name, value in vars(step_ctx).items():
            if name.startswith("block"):
                self.out[name] = value.to(torch.int32)  # negative: block offsets, not an equality test
        return self.out
""",
    "fields_getattr_equality_trtllm": """\
import dataclasses

import torch


@dataclasses.dataclass
class DraftLayerInputs:
    kv_cache: torch.Tensor
    position_ids: torch.Tensor


class DraftStepRunner:
    def __init__(self, compute_dtype):
        self.compute_dtype = compute_dtype

    def step(self, spec_inputs):
        out = []
        for f in dataclasses.fields(spec_inputs):
            if f.name == "kv_cache":
                cache = getattr(spec_inputs, f.name)
                out.append(cache.to(self.compute_dtype))  # positive: CL001 the whole layer cache
            elif f.name == "position_ids":
                out.append(getattr(spec_inputs, f.name).to(torch.int64))  # negative: positions
        return out
""",
    # -- constant keys of per-layer dicts through enumerate --------------------------------------------------
    "enumerated_layer_dicts_lmdeploy": """\
import torch


class ScaledGraphRunner:
    def __init__(self, cache_engine, dtype):
        self.dtype = dtype
        self.layers = [
            {"key": k, "value": v, "scale": getattr(cache_engine, "scales", [None])[0]}
            for k, v in cache_engine.gpu_cache
        ]
        self.static = [{} for _ in self.layers]

    def __call__(self, block_offsets):
        for i, layer in enumerate(self.layers):
            self.static[i]["key"] = layer["key"].to(self.dtype)  # positive: CL001 whole key cache
            if layer["scale"] is not None:
                self.static[i]["scale"] = layer["scale"].float()  # negative: the scale
        for j, layer in enumerate(sorted(self.layers, key=id)):
            self.static[j]["value"] = layer["value"][block_offsets].to(self.dtype)  # negative: blocks
        return self.static
""",
    "enumerated_keyword_dicts_sglang": """\
import torch


class LayerSnapshots:
    def __init__(self, pool, num_layers):
        self.entries = [
            dict(kv=pool.get_kv_buffer(i), scale=torch.ones(pool.size // 64)) for i in range(num_layers)
        ]

    def forward_decode(self, q, layer, forward_batch):
        outs = []
        for _, entry in enumerate(self.entries):
            outs.append(entry["scale"].to(torch.float32))  # negative: the scale
        for idx, entry in enumerate(self.entries):
            if idx == layer.layer_id:
                outs.append(entry["kv"][0].to(q.dtype))  # positive: CL001 whole key buffer of the layer
        return outs
""",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_marked_lines(tmp_path, name):
    assert_marked_lines(tmp_path, name, CASES[name])


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("filler", [False, True], ids=["as-is", "with-filler"])
def test_pruned_is_whole(tmp_path, name, filler):
    assert_pruned_is_whole(tmp_path, name, CASES[name], filler)
