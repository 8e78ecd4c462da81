"""Round 25 (family_recall_23), helper r25c, in sglang, vLLM, lmdeploy and TRT-LLM styles other than the
corpus's:
- positions through zip of generators / comprehensions / maps, enumerate and list()/tuple(), held in an
  attribute of another object: a for target unpacked by position is what sits at that position of each
  element, where every element's structure is shown (an entry's scales stay scales, a gain tensor stays small);
- row selections of what a dict of lists holds (`d[kind].append((k, v))` with a computed key): `d[k]` holds
  the appended tuple, so `k_buf[rows]` of a unpacked `k_buf` selects rows (no longer read as an element of
  a list of buffers);
- a FlashInfer plan whose arguments are the enclosing function's `*args` / `**kwargs`: the keywords every
  visible caller passes (the same keys each) are the plan's (CL002 at the plan);
- a record's field read under a test of another of its fields (`if entry.kind == "attn":`, `!=`, `in`, `not
  in`, str methods, an if or a conditional expression): only the constructions whose argument for the tested
  field is a string constant passing the test (or is not a constant) made it there.
Each positive has look-alikes beside it; the pruned analysis gives the whole file's findings, with and
without filler."""

from __future__ import annotations

import pytest

from marked_cases import assert_marked_lines, assert_pruned_is_whole

CASES = {
    "zip_lmdeploy": """\
import torch


class CacheEngine:
    def __init__(self, cache_config, model_config):
        self.gpu_cache = self._allocate_gpu_cache()
        self.layer_views = tuple(zip((e[1] for e in self.gpu_cache), (e[3] for e in self.gpu_cache)))


class ModelAgent:
    def __init__(self, cache_engine):
        self.cache_engine = cache_engine
        self.v_dtype = torch.float16

    async def _async_model_forward(self, inputs, swap_in_map, swap_out_map):
        out = await self._forward(inputs)
        for n, (v_cache, v_zeros) in enumerate(self.cache_engine.layer_views):
            self._mirror[n] = v_cache.to(torch.float32)  # positive: CL001 the value cache of the pair
            self._zeros[n] = v_zeros.to(torch.float32)  # negative: scales/zeros of the entry
            self._dev[n] = v_cache.to("cuda:1")  # negative: a device move
        return out
""",
    "zip_vllm": """\
import torch


class KVIndex:
    def __init__(self, kv_caches, layer_names, scales):
        self.entries = list(zip([kv_caches[name] for name in layer_names], [scales[name] for name in layer_names]))
        self.early = [c.to(torch.float16) for c, _ in self.entries]  # negative: setup-time cast


class GPUModelRunner:
    def initialize_kv_cache(self, kv_cache_config):
        self.kv_index = KVIndex(self.kv_caches, self.layer_names, self.kv_scales)

    def execute_model(self, scheduler_output, intermediate_tensors=None):
        out = self.model(input_ids=self.input_ids, positions=self.positions)
        for _, (kv_cache, scale) in enumerate(self.kv_index.entries):
            self.snap.append(kv_cache.to(torch.float32))  # positive: CL001 whole paged cache from the zipped list
            self.snap_scales.append(scale.to(torch.float32))  # negative: a scale tensor, not a cache
        return out
""",
    "zip_sglang": """\
import torch


class PairTable:
    def __init__(self, pool, n_layers):
        keys = [pool.get_key_buffer(i) for i in range(n_layers)]
        self.pairs = list(zip(range(n_layers), [torch.ones(1) * i for i in range(n_layers)], keys))


class ModelRunner:
    def forward_decode(self, forward_batch, skip_attn_backend_init=False, pp_proxy_tensors=None):
        out = self.model.forward(forward_batch.input_ids, forward_batch.positions, forward_batch)
        for _, (layer_id, gain, k_buf) in enumerate(self.table.pairs):
            self.stats[layer_id] = k_buf.to(torch.float32).abs().amax()  # positive: CL001 whole key buffer from zip
            self.gain[layer_id] = gain.to(torch.float32)  # negative: a small gain tensor of the tuple
        return out
""",
    "rows_sglang": """\
import torch


class WindowStats:
    def __init__(self, pool, kinds):
        self.by_kind = {"local": [], "global": []}
        for layer_id, kind in enumerate(kinds):
            self.by_kind[kind].append((pool.get_value_buffer(layer_id), layer_id))

    def on_step(self, forward_batch):
        for v_buf, layer_id in self.by_kind["global"]:
            self.out[layer_id] = v_buf.to(torch.float32).mean()  # positive: CL001 whole value buffer
        for v_buf, layer_id in self.by_kind["local"]:
            picked = v_buf[forward_batch.out_cache_loc]
            self.out[layer_id] = picked.to(torch.float32).mean()  # negative: rows picked first


class ModelRunner:
    def forward_decode(self, forward_batch, skip_attn_backend_init=False, pp_proxy_tensors=None):
        out = self.model.forward(forward_batch.input_ids, forward_batch.positions, forward_batch)
        self.window_stats.on_step(forward_batch)
        return out
""",
    "rows_lmdeploy": """\
import torch


class CacheMirror:
    def __init__(self, gpu_cache, kinds):
        self.slots = {"kv": [], "draft": []}
        for kind, (k_cache, v_cache) in zip(kinds, gpu_cache):
            self.slots[kind].append((k_cache, v_cache))
        self.host = [k.to(torch.float32) for k, _ in self.slots["kv"]]  # negative: setup-time cast

    def mirror(self, inputs):
        for k_cache, v_cache in self.slots["kv"]:
            self._full.append(v_cache.to(torch.float32))  # positive: CL001 whole value cache, per step
            live = k_cache[inputs.kept_pages]
            self._live.append(live.to(torch.float32))  # negative: live blocks gathered first


class ModelAgent:
    async def _async_model_forward(self, inputs, swap_in_map, swap_out_map):
        out = await self._forward(inputs)
        self.cache_mirror.mirror(inputs)
        return out
""",
    "rows_trtllm": """\
import torch


class LayerGroups:
    def __init__(self, kv_cache_manager, layer_groups):
        self.groups = {"dense": [], "sparse": []}
        for group, layers in layer_groups.items():
            for idx in layers:
                self.groups[group].append((idx, kv_cache_manager.get_buffers(idx)))

    def collect(self, picked):
        for _, buf in self.groups["dense"]:
            self._acc.append(buf.to(torch.float32))  # positive: CL001 whole layer buffer, per step
        for idx, buf in self.groups["sparse"]:
            sel = buf[picked]
            self._acc.append(sel.to(torch.float32))  # negative: selected blocks first


class PyExecutor:
    def _forward_step(self, scheduled_requests, new_tensors_device=None):
        out = self.model_engine.forward(scheduled_requests, self.resource_manager)
        self.layer_groups.collect(self.picked)
        return out
""",
    "plan_sglang": """\
import torch


def run_plan(wrapper, *plan_args, **plan_kwargs):
    wrapper.plan(*plan_args, **plan_kwargs)  # positive: CL002 both dtypes are the model dtype from the caller


def run_plan_ok(wrapper, *plan_args, **plan_kwargs):
    wrapper.plan(*plan_args, **plan_kwargs)  # negative: the caller passes the cache dtype for kv


class FlashInferIndicesUpdaterDecode:
    def __init__(self, model_runner):
        self.data_type = model_runner.dtype
        self.kv_cache_dtype = model_runner.kv_cache_dtype

    def update(self, wrapper, indptr, indices, last_page_len):
        geometry = (indptr, indices, last_page_len, 32, 8, 128, 1)
        run_plan(wrapper, *geometry, q_data_type=self.data_type, kv_data_type=self.data_type)
        run_plan_ok(wrapper, *geometry, q_data_type=self.data_type, kv_data_type=self.kv_cache_dtype)
        return indices.to(torch.int32)  # negative: index tensor
""",
    "plan_trtllm": """\
import torch


class FlashInferBackend:
    def __init__(self, model_dtype, kv_cache_dtype):
        self.model_dtype = model_dtype
        self.kv_cache_dtype = kv_cache_dtype

    def _do_plan(self, w, *a, **kw):
        return w.plan(*a, **kw)  # positive: CL002 kv planned in the model dtype by both callers

    def prefill(self, w, indptr, indices, lens):
        self._do_plan(
            w, indptr, indices, lens, 16, 4, 64, 32, q_data_type=self.model_dtype, kv_data_type=self.model_dtype
        )

    def decode(self, w, indptr, indices, lens):
        self._do_plan(
            w, indptr, indices, lens, 16, 4, 64, 32, kv_data_type=self.model_dtype, q_data_type=self.model_dtype
        )

    def native(self, w, indptr, indices, lens):
        w.plan(  # negative: the cache dtype for kv
            indptr, indices, lens, 16, 4, 64, 32, q_data_type=self.model_dtype, kv_data_type=self.kv_cache_dtype
        )
        return lens.to(torch.int32)  # negative: lengths
""",
    "plan_vllm": """\
import torch


class FlashInferMetadataBuilder:
    def __init__(self, vllm_config, kv_cache_spec):
        self.q_dtype = vllm_config.model_config.dtype
        self.kv_cache_dtype = kv_cache_spec.dtype

    def _plan_decode(self, wrapper, *args, page_size=16, **options):
        wrapper.plan(*args, page_size=page_size, **options)  # positive: CL002 options carry the q dtype twice

    def build(self, wrapper, indptr, indices, last_page_len):
        self._plan_decode(
            wrapper, indptr, indices, last_page_len, 32, 8, 128, page_size=16,
            kv_data_type=self.q_dtype, q_data_type=self.q_dtype,
        )
        return last_page_len.to(torch.int32)  # negative: lengths
""",
    "kind_trtllm": """\
from dataclasses import dataclass

import torch


@dataclass
class LayerBuf:
    kind: str
    buf: torch.Tensor


class KVDump:
    def _forward_step(self, executor, scheduled):
        mgr = executor.resource_manager.get_resource_manager("kv_cache_manager")
        ssm = executor.resource_manager.get_resource_manager("mamba_cache_manager")
        for idx in range(mgr.num_local_layers):
            if idx in mgr.attn_layers:
                entry = LayerBuf("attn", mgr.get_buffers(idx))
            else:
                entry = LayerBuf("state", ssm.conv_state_small[idx])
            if entry.kind == "attn":
                self.sink[idx] = entry.buf.to(torch.float32)  # positive: CL001 the attention layer's whole buffer
            else:
                self.sink[idx] = entry.buf.to(torch.float32)  # negative: built only with the small state tensor
""",
    "kind_sglang": """\
from typing import NamedTuple

import torch


class Slot(NamedTuple):
    layer_id: int
    role: str
    tensor: torch.Tensor


class HybridProbe:
    def __init__(self, token_to_kv_pool, req_to_token_pool, layer_ids):
        self.slots = []
        for i in layer_ids:
            self.slots.append(Slot(i, "kv", token_to_kv_pool.get_key_buffer(i)))
            self.slots.append(Slot(layer_id=i, role="mamba_conv", tensor=req_to_token_pool.conv_rows[i]))

    def probe(self, forward_batch):
        for slot in self.slots:
            if slot.role not in ("kv", "swa_kv"):
                self.out[slot.layer_id] = slot.tensor.to(torch.float32)  # negative: the small conv rows only
            else:
                self.out[slot.layer_id] = slot.tensor.to(torch.float32)  # positive: CL001 the whole key buffer


class ModelRunner:
    def forward_decode(self, forward_batch, skip_attn_backend_init=False, pp_proxy_tensors=None):
        out = self.model.forward(forward_batch.input_ids, forward_batch.positions, forward_batch)
        self.probe.probe(forward_batch)
        return out
""",
    "kind_vllm": """\
from dataclasses import dataclass

import torch


@dataclass
class GroupEntry:
    spec: str
    cache: torch.Tensor


class OffloadWorker:
    def __init__(self, kv_caches, layer_names, small_states):
        self.entries = [GroupEntry("full_attention", kv_caches[n]) for n in layer_names]
        self.entries.extend(GroupEntry("state", s) for s in small_states)

    def step(self, scheduler_output):
        for e in self.entries:
            wide = e.cache.to(torch.float32) if e.spec != "state" else None  # positive: CL001 the paged cache
            small = e.cache.to(torch.float32) if e.spec == "state" else None  # negative: only the small states
            self._host.append((wide, small))


class GPUModelRunner:
    def execute_model(self, scheduler_output, intermediate_tensors=None):
        out = self.model(input_ids=self.input_ids, positions=self.positions)
        self.offload.step(scheduler_output)
        return out
""",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_marked_lines(tmp_path, name):
    assert_marked_lines(tmp_path, name, CASES[name])


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("filler", [False, True], ids=["as-is", "with-filler"])
def test_pruned_is_whole(tmp_path, name, filler):
    assert_pruned_is_whole(tmp_path, name, CASES[name], filler)
