"""Round 22 (family_recall_20 leftovers): dunder overrides and ABC mixins, in sglang, vLLM, lmdeploy and
TRT-LLM styles other than the corpus's:
- ABC mixin methods: `m.values()` / `m.items()` of an object whose class of the module derives a Mapping ABC
  ([containers] mapping_mixins) and does not define them itself hand out what its `__getitem__` returns for
  each key (iterated, unpacked, listed, stacked); iterating the mapping gives its keys;
- attribute read hooks: inside `__getattribute__` / `__getattr__` ([callables] attribute_read_hooks), a read of
  the instance's storage under the hook's name parameter (`super().__getattribute__(name)`,
  `object.__getattribute__(self, name)`) is any attribute the class's MRO stores on self, narrowed by tests of
  the name against constant strings (`if name == "k_scale"`, `if name in type(self)._PLANES`); and `C(*entry)`
  hands entry[i] to C's i-th parameter where nothing shows entry's elements;
- attribute store hooks: `obj.attr = v` runs the property setter the MRO of obj's classes resolves attr to
  (`@attr.setter`, `@Base.attr.setter`: [callables] property_setter_decorators) or a `__setattr__`
  (attribute_store_hooks) with value v; a setter only stored through in `__init__` runs once;
- descriptors: `__get__(self, obj, objtype)` reading `getattr(obj, self.name)` reads what the classes holding
  the descriptor in their body store on self; `obj.attr = v` of such a class attribute runs `__set__` with v.
(`match` statements: mapping, sequence, class and as-patterns were already followed, tests/test_flow_families_7.py.)
Each positive has look-alikes beside it; the pruned analysis gives the whole file's findings, with and
without filler."""

from __future__ import annotations

import pytest

from marked_cases import assert_marked_lines, assert_pruned_is_whole

CASES = {
    "mapping_mixin_values_sglang": """\
import collections.abc

import torch


class LayerBuffers(collections.abc.Mapping):
    def __init__(self, pool, num_layers):
        self.pool = pool
        self.num_layers = num_layers

    def __getitem__(self, layer_id):
        return self.pool.get_key_buffer(layer_id)

    def __iter__(self):
        return iter(range(self.num_layers))

    def __len__(self):
        return self.num_layers


class HostMirrorBackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.scales = {"k": torch.ones(1)}

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        layers = LayerBuffers(self.pool, 4)
        wide = [buf.to(torch.bfloat16) for buf in layers.values()]  # positive: CL001
        ids = [i.to(torch.int64) for i in layers]  # negative: iterating the mapping gives its keys
        rows = [buf[forward_batch.out_cache_loc].to(torch.bfloat16) for buf in layers.values()]  # negative: rows
        moved = [buf.to(q.device) for buf in layers.values()]  # negative: a device move
        s = [t.float() for t in self.scales.values()]  # negative: a plain dict of scales
        return wide, ids, rows, moved, s
""",
    "mutable_mapping_items_trtllm": """\
from typing import MutableMapping

import torch


class LayerPool(MutableMapping):
    def __init__(self, kv_cache_manager):
        self.mgr = kv_cache_manager
        self.extra = {}

    def __getitem__(self, layer_idx):
        return self.mgr.get_buffers(layer_idx)

    def __setitem__(self, layer_idx, value):
        self.extra[layer_idx] = value

    def __delitem__(self, layer_idx):
        del self.extra[layer_idx]

    def __iter__(self):
        return iter(range(self.mgr.num_layers))

    def __len__(self):
        return self.mgr.num_layers


class DenseExporter:
    def __init__(self, kv_cache_manager, dtype=torch.float16):
        self.layers = LayerPool(kv_cache_manager)
        self.dtype = dtype

    def forward(self, q, k, v, metadata, attention_mask=None):
        out = {}
        for idx, buf in self.layers.items():
            out[idx] = buf.to(self.dtype)  # positive: CL001
            n = torch.tensor(idx).to(self.dtype)  # negative: the key
        picked = {i: b[metadata.block_ids].to(self.dtype) for i, b in self.layers.items()}  # negative: rows
        return out, n, picked
""",
    "mapping_mixin_list_values_lmdeploy": """\
from collections.abc import Mapping

import torch


class CacheTable(Mapping):
    def __init__(self, caches):
        self._caches = caches

    def __getitem__(self, idx):
        return self._caches[idx][0]

    def __iter__(self):
        return iter(range(len(self._caches)))

    def __len__(self):
        return len(self._caches)


class PlainTable:
    def __init__(self, caches):
        self._caches = caches

    def __getitem__(self, idx):
        return self._caches[idx][0]

    def values(self):
        return [torch.zeros(1)]


class LlamaModel(torch.nn.Module):
    def forward(self, input_ids, position_ids, past_key_values, attn_metadata):
        keys = torch.cat(list(CacheTable(past_key_values).values())).half()  # positive: CL001
        other = torch.cat(list(PlainTable(past_key_values).values())).half()  # negative: its own values()
        return keys, other
""",
    "getattribute_name_guard_vllm": """\
import torch


class PlaneHolder:
    def __init__(self, kv_cache, layer):
        self.kv_cache = kv_cache
        self.k_scale = layer._k_scale


class GuardedWide(PlaneHolder):
    _PLANES = ("kv_cache",)

    def __getattribute__(self, name):
        value = super().__getattribute__(name)
        if name in type(self)._PLANES:
            return value.to(torch.bfloat16)  # positive: CL001
        if name == "k_scale":
            return value.float()  # negative: only the scale passes this test
        return value


class TritonAttentionImpl:
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        held = GuardedWide(kv_cache, layer)
        return held.kv_cache, held.k_scale
""",
    "property_setter_setup_only_sglang": """\
import torch


class CaptureStage:
    def __init__(self):
        self._buf = None

    @property
    def buf(self):
        return self._buf

    @buf.setter
    def buf(self, value):
        self._buf = value.half()  # negative: stored once, in __init__


class StepStage(CaptureStage):
    @CaptureStage.buf.setter
    def buf(self, value):
        CaptureStage.buf.fset(self, value.to(torch.bfloat16))  # positive: CL001


class GraphRunnerBackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.capture = CaptureStage()
        self.capture.buf = self.pool.get_key_buffer(0)
        self.step = StepStage()

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        self.step.buf = self.pool.get_key_buffer(layer.layer_id)
        return self.step.buf, self.capture.buf
""",
    "mapping_mixin_items_comprehension_vllm": """\
import collections

import torch


class NamedCaches(collections.abc.Mapping):
    def __init__(self, layers, engine):
        self._layers = layers
        self._engine = engine

    def __getitem__(self, name):
        return self._layers[name].kv_cache[self._engine]

    def __iter__(self):
        return iter(self._layers)

    def __len__(self):
        return len(self._layers)


class OffloadConnector:
    def start_load_kv(self, forward_context, **kwargs):
        self.caches = NamedCaches(forward_context.no_compile_layers, forward_context.virtual_engine)

    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        host = {n: c.to(torch.float16) for n, c in self.caches.items()}  # positive: CL001
        names = [n.upper() for n, _ in self.caches.items()]  # negative: the names only
        return host, names
""",
    "getattribute_widen_sglang": """\
import torch


class PoolPlanes:
    def __init__(self, pool, layer_id):
        self.key = pool.get_key_buffer(layer_id)
        self.value = pool.get_value_buffer(layer_id)


class Bf16PoolPlanes(PoolPlanes):
    def __getattribute__(self, attr):
        got = object.__getattribute__(self, attr)
        return got.to(torch.bfloat16)  # positive: CL001


class HalfScalePlanes:
    def __init__(self, pool, layer_id):
        self.k_scale = pool.k_scales[layer_id]

    def __getattribute__(self, attr):
        return super().__getattribute__(attr).half()  # negative: it stores only the scale


class TritonDecode:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        planes = Bf16PoolPlanes(self.pool, layer.layer_id)
        scales = HalfScalePlanes(self.pool, layer.layer_id)
        return planes.key, planes.value, scales.k_scale
""",
    "getattr_fallback_widen_trtllm": """\
import torch


class LayerSlots:
    def __init__(self, buf):
        self.buf = buf


class WideSlots(LayerSlots):
    def __getattr__(self, item):
        raise AttributeError(item)

    def __getattribute__(self, item):
        found = super().__getattribute__(item)
        if isinstance(found, torch.Tensor):
            found = found.float()  # positive: CL001
        return found


class SetupOnly:
    def __init__(self, buf):
        self.buf = buf.to("cuda")  # negative: a device move at setup


class TrtllmFallbackAttention:
    def forward(self, q, k, v, metadata, attention_mask=None):
        buf = metadata.kv_cache_manager.get_buffers(self.layer_idx)
        slots = WideSlots(buf)
        rows = WideSlots(buf[metadata.block_ids])  # the gathered rows, through the same hook
        return slots.buf, rows.buf, SetupOnly(buf).buf
""",
    "getattribute_star_entry_lmdeploy": """\
import torch


class EntryView:
    def __init__(self, k_cache, v_cache):
        self.k_cache = k_cache
        self.v_cache = v_cache


class HalfEntryView(EntryView):
    def __getattribute__(self, name):
        value = object.__getattribute__(self, name)
        return value.half()  # positive: CL001


class Attention(torch.nn.Module):
    def forward(self, hidden_states, rotary_pos_emb, past_key_value, attn_metadata):
        view = HalfEntryView(*past_key_value)
        q = hidden_states.float()  # negative: the hidden states
        return view.k_cache, view.v_cache, q
""",
    "property_setter_widen_vllm": """\
import torch


class StagingArea:
    def __init__(self):
        self._planes = None
        self._scale = None

    @property
    def planes(self):
        return self._planes

    @planes.setter
    def planes(self, value):
        self._planes = value.to(torch.float16)  # positive: CL001

    @property
    def scale(self):
        return self._scale

    @scale.setter
    def scale(self, value):
        self._scale = value.float()  # negative: only the layer's scale is stored here


class FlashAttentionImpl:
    def __init__(self):
        self.stage = StagingArea()

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        self.stage.planes = kv_cache
        self.stage.scale = layer._k_scale
        rows = kv_cache[:, attn_metadata.block_table[0]].to(torch.float16)  # negative: blocks gathered first
        return self.stage.planes, rows
""",
    "setattr_hook_widen_lmdeploy": """\
import torch


class DenseSlots:
    def __setattr__(self, name, value):
        if isinstance(value, torch.Tensor):
            value = value.half()  # positive: CL001
        object.__setattr__(self, name, value)


class PlainSlots:
    def __setattr__(self, name, value):
        object.__setattr__(self, name, value.to("cuda"))  # negative: a device move


class FallbackAttention(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.slots = DenseSlots()
        self.plain = PlainSlots()

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata):
        self.slots.k = k_cache
        self.plain.v = v_cache
        q = query.float()  # negative: the query
        return self.slots.k, self.plain.v, q
""",
    "subclass_setter_override_trtllm": """\
import torch


class LayerHandle:
    def __init__(self):
        self._buf = None

    @property
    def buf(self):
        return self._buf

    @buf.setter
    def buf(self, value):
        self._buf = value


class WideHandle(LayerHandle):
    @LayerHandle.buf.setter
    def buf(self, value):
        LayerHandle.buf.fset(self, value.to(torch.bfloat16))  # positive: CL001


class TrtllmAttention:
    def __init__(self, layer_idx, wide):
        self.layer_idx = layer_idx
        self.handle = WideHandle() if wide else LayerHandle()

    def forward(self, q, k, v, metadata, attention_mask=None):
        self.handle.buf = metadata.kv_cache_manager.get_buffers(self.layer_idx)
        rows = metadata.kv_cache_manager.get_buffers(self.layer_idx)[metadata.block_ids].float()  # negative: rows
        return self.handle.buf, rows
""",
    "descriptor_get_widen_lmdeploy": """\
import torch


class Widened:
    def __set_name__(self, owner, name):
        self.name = "_" + name

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        return getattr(obj, self.name).half()  # positive: CL001

    def __set__(self, obj, value):
        setattr(obj, self.name, value)


class ScaleOnly:
    def __get__(self, obj, objtype=None):
        return getattr(obj, self.attr).float()  # negative: its owner stores only the scale


class CacheView:
    k_cache = Widened()

    def __init__(self, k_cache):
        self.k_cache = k_cache


class ScaleView:
    k_scale = ScaleOnly()

    def __init__(self, scale):
        self._k_scale = scale


class DlinferAttention(torch.nn.Module):
    def forward(self, query, key, value, k_cache, v_cache, attn_metadata):
        q = query.float()  # negative: the query
        return CacheView(k_cache).k_cache, ScaleView(attn_metadata.k_scale).k_scale, q
""",
    "descriptor_set_widen_sglang": """\
import torch


class Bf16Slot:
    def __set_name__(self, owner, name):
        self.private = "_" + name

    def __get__(self, obj, objtype=None):
        return getattr(obj, self.private)

    def __set__(self, obj, value):
        setattr(obj, self.private, value.to(torch.bfloat16))  # positive: CL001


class DeviceSlot:
    def __set__(self, obj, value):
        obj.__dict__["slot"] = value.to("cuda")  # negative: a device move


class Workspace:
    latent = Bf16Slot()
    slot = DeviceSlot()


class MusaBackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.ws = Workspace()

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        self.ws.latent = self.pool.get_key_buffer(layer.layer_id)
        self.ws.slot = self.pool.get_value_buffer(layer.layer_id)
        return self.ws.latent, self.ws.slot
""",
    "descriptor_set_setup_only_trtllm": """\
import torch


class HalfPlane:
    def __set_name__(self, owner, name):
        self.key = "_" + name

    def __get__(self, obj, objtype=None):
        return getattr(obj, self.key)

    def __set__(self, obj, value):
        setattr(obj, self.key, value.half())  # positive: CL001


class OncePlane:
    def __set_name__(self, owner, name):
        self.key = "_" + name

    def __set__(self, obj, value):
        setattr(obj, self.key, value.half())  # negative: stored once, in __init__


class OnceHandle:
    plane = OncePlane()


class Handle:
    plane = HalfPlane()


class TrtllmAttention:
    def __init__(self, kv_cache_manager):
        self.once = OnceHandle()
        self.once.plane = kv_cache_manager.get_buffers(0)
        self.handle = Handle()

    def forward(self, q, k, v, metadata, attention_mask=None):
        self.handle.plane = metadata.kv_cache_manager.get_buffers(self.layer_idx)
        rows = metadata.kv_cache_manager.get_buffers(self.layer_idx)[metadata.block_ids].half()  # negative: rows
        return self.handle.plane, rows
""",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_marked_lines(tmp_path, name):
    assert_marked_lines(tmp_path, name, CASES[name])


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("filler", [False, True], ids=["as-is", "with-filler"])
def test_pruned_is_whole(tmp_path, name, filler):
    assert_pruned_is_whole(tmp_path, name, CASES[name], filler)
