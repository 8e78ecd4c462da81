"""Round 22 (family_recall_20), in sglang, vLLM, lmdeploy and TRT-LLM styles other than the corpus's:
- function transforms that map a converting function over a whole tensor ([callables] function_wrappers:
  `torch.vmap`, `torch.func.vmap`, `functorch.vmap`, as `torch.compile(f)` and `torch.no_grad()(f)` were;
  [callables] runners: `torch.utils.checkpoint.checkpoint(f, x)`): the conversion of a lambda, a partial or
  the unbound `torch.Tensor.float` is the call's, on every block of what it is given;
- constructors that copy each tensor of a list into the dtype given ([conversions] element_constructors:
  `torch.nested.nested_tensor([k, v], dtype=d)`, `torch.nested.as_nested_tensor(...)`);
- a dtype's own name looked up again (rules/casts.toml [dtype_names]: `getattr(torch, str(x.dtype).split(".")
  [-1])`, `f"{x.dtype}"`, `.replace("torch.", "")`): x's own dtype, no conversion;
- accessors whose conversion is asked for by a parameter (`def layer(self, i, dtype=None): ... return buf if dtype
  is None else buf.to(dtype)`), some callers passing a dtype, others none: the whole layer is converted for the
  ones that ask, inside the accessor (CL004), also of a manager class whose layers are handed to it (`self.layers
  = layer_buffers`) and which the module calls as the engine's pool manager (`metadata.kv_cache_manager`);
- `a, b, scale = d.values()` of a dict display ([containers] ordered_value_views): each name is the display's
  value at its position, not any value (the scale entry is no cache).
Each positive has look-alikes beside it; the pruned analysis gives the whole file's findings, with and
without filler."""

from __future__ import annotations

import pytest

from marked_cases import assert_marked_lines, assert_pruned_is_whole

CASES = {
    "vmap_partial_module_helper_sglang": """\
import functools

import torch


def _block_to(blk, dtype):
    return blk.to(dtype)


class TorchNativeDecode:
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.scale = torch.ones(1).to(torch.bfloat16)  # negative: setup, not the pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kbuf = self.token_to_kv_pool.get_key_buffer(layer.layer_id)
        widen = torch.vmap(functools.partial(_block_to, dtype=q.dtype), in_dims=0)
        dense = widen(kbuf)  # positive: CL001 every slot of the key buffer, mapped
        live = widen(kbuf[forward_batch.out_cache_loc])  # negative: rows selected first
        moved = torch.vmap(lambda t: t.to(q.device))(kbuf)  # negative: .to(device)
        return dense, live, moved
""",
    "func_vmap_unbound_half_vllm": """\
import torch
import torch.func


class ReferencePagedImpl:
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        key_cache, value_cache = kv_cache.unbind(0)
        wide_v = torch.func.vmap(torch.Tensor.half)(value_cache)  # positive: CL001 every block of the value plane
        picked = torch.func.vmap(torch.Tensor.half)(value_cache[attn_metadata.block_table[0]])  # negative: rows
        same = torch.func.vmap(lambda b: b.to(b.dtype))(key_cache)  # negative: its own dtype
        scale = torch.func.vmap(torch.Tensor.half)(layer._k_scale)  # negative: a scale tensor
        return wide_v, picked, same, scale
""",
    "functorch_vmap_held_transform_lmdeploy": """\
import torch
from functorch import vmap as batched


class PagedDequant:
    def __init__(self, compute_dtype=torch.float16):
        self.compute_dtype = compute_dtype
        self._widen = batched(lambda blk: blk.float())

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None):
        k_dense = self._widen(k_cache)  # positive: CL001 every block of the key cache
        rows = self._widen(k_cache[attn_metadata.block_offsets[0]])  # negative: blocks selected first
        kz = self._widen(k_scales_zeros)  # negative: the scales
        return k_dense, rows, kz
""",
    "checkpoint_lambda_trtllm": """\
import torch
from torch.utils.checkpoint import checkpoint


class GenNoFp8Attention:
    def __init__(self, kv_cache_manager, dtype=torch.bfloat16):
        self.kv_cache_manager = kv_cache_manager
        self.dtype = dtype

    def forward(self, q, k, v, metadata, layer_idx):
        buf = self.kv_cache_manager.get_buffers(layer_idx)
        wide = checkpoint(lambda t: t.to(self.dtype), buf, use_reentrant=False)  # positive: CL001 the whole layer
        blocks = checkpoint(lambda t: t.to(self.dtype), buf[metadata.block_ids], use_reentrant=False)  # negative
        moved = checkpoint(lambda t: t.to(q.device), buf, use_reentrant=False)  # negative: .to(device)
        return wide, blocks, moved
""",
    "nested_tensor_pair_sglang": """\
import torch


class KVDumpHook:
    def __init__(self, token_to_kv_pool):
        self.token_to_kv_pool = token_to_kv_pool

    def forward_extend(self, q, k, v, layer, forward_batch):
        kb, vb = self.token_to_kv_pool.get_kv_buffer(layer.layer_id)
        packed = torch.nested.as_nested_tensor((kb, vb), dtype=torch.float32)  # positive: CL001 both whole buffers
        plain = torch.nested.as_nested_tensor((kb, vb))  # negative: no dtype given
        loc = forward_batch.out_cache_loc
        rows = torch.nested.nested_tensor([kb[loc], vb[loc]], dtype=torch.float32)  # negative: rows first
        moved = torch.nested.nested_tensor([kb, vb], device="cpu")  # negative: a move
        return packed, plain, rows, moved
""",
    "nested_tensor_planes_vllm": """\
import torch


class NestedExport:
    def forward(self, layer, query, key, value, kv_cache, attn_metadata):
        planes = torch.nested.nested_tensor([kv_cache[0], kv_cache[1]], dtype=query.dtype)  # positive: CL001
        scales = torch.nested.nested_tensor([layer._k_scale, layer._v_scale], dtype=query.dtype)  # negative: scales
        return planes, scales
""",
    "nested_tensor_trtllm": """\
import torch


class NestedReader:
    def __init__(self, kv_cache_manager):
        self.kv_cache_manager = kv_cache_manager

    def forward(self, q, k, v, metadata, layer_idx):
        buf = self.kv_cache_manager.get_buffers(layer_idx)
        nt = torch.nested.nested_tensor([buf[:, 0], buf[:, 1]], dtype=torch.bfloat16)  # positive: CL001
        few = torch.nested.nested_tensor([buf[metadata.block_ids, 0]], dtype=torch.bfloat16)  # negative: blocks
        return nt, few
""",
    "dtype_name_round_trip_sglang": """\
import torch


class NameRoundTripBackend:
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        buf = self.token_to_kv_pool.get_key_buffer(layer.layer_id)
        name = str(buf.dtype).replace("torch.", "")
        same = buf.to(getattr(torch, name))  # negative: its own dtype, by name
        again = buf.to(getattr(torch, f"{buf.dtype}".rpartition(".")[-1]))  # negative: its own dtype
        wide = buf.to(getattr(torch, str(q.dtype).split(".")[-1]))  # positive: CL001 q's dtype
        return same, again, wide
""",
    "dtype_name_round_trip_lmdeploy": """\
import torch


class MluPagedAttention:
    def forward(self, query, key, value, k_cache, v_cache, attn_metadata):
        k = k_cache.to(getattr(torch, repr(k_cache.dtype)[6:]))  # negative: the key cache's own dtype
        v = v_cache.to(getattr(torch, repr(k_cache.dtype)[6:]))  # positive: CL001 to the key cache's dtype
        return k, v
""",
    "dtype_name_round_trip_trtllm": """\
import torch


class NameCastAttention:
    def __init__(self, kv_cache_manager):
        self.kv_cache_manager = kv_cache_manager

    def forward(self, q, k, v, metadata, layer_idx):
        buf = self.kv_cache_manager.get_buffers(layer_idx)
        dt = getattr(torch, str(buf.dtype).removeprefix("torch."))
        kept = buf.to(dt)  # negative: the buffer's own dtype
        moved = buf.to(q.device)  # negative: .to(device)
        wide = buf.to(getattr(torch, "float32"))  # positive: CL001
        return kept, moved, wide
""",
    "dict_values_positions_trtllm": """\
import torch


class PlaneSet:
    def __init__(self, kv_cache_manager):
        self.kv_cache_manager = kv_cache_manager

    def parts(self, layer_idx):
        buf = self.kv_cache_manager.get_buffers(layer_idx)
        return {"scale": self.kv_cache_manager.kv_scale_orig_quant, "k": buf[:, 0], "v": buf[:, 1]}


class ValuesUnpackAttention:
    def __init__(self, kv_cache_manager, dtype=torch.bfloat16):
        self.planes = PlaneSet(kv_cache_manager)
        self.dtype = dtype

    def forward(self, q, k, v, metadata, layer_idx):
        scale, kp, vp = self.planes.parts(layer_idx).values()
        s = scale.to(self.dtype)  # negative: the scale entry
        wide_v = vp.to(self.dtype)  # positive: CL001 every block's value plane
        return s, wide_v
""",
    "dict_values_positions_sglang": """\
import torch


class LocalDictBackend:
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        entries = {
            "key": self.token_to_kv_pool.get_key_buffer(layer.layer_id),
            "k_scale": layer.k_scale,
            "value": self.token_to_kv_pool.get_value_buffer(layer.layer_id),
        }
        kb, ks, vb = entries.values()
        a = ks.float()  # negative: the scale entry
        b = kb.float()  # positive: CL001
        c = vb[forward_batch.out_cache_loc].float()  # negative: rows first
        return a, b, c
""",
    "dict_values_positions_vllm": """\
import torch


class SplitPlanes:
    def split(self, kv_cache, layer):
        return {"key": kv_cache[0], "scale": layer._k_scale, "value": kv_cache[1]}

    def forward(self, layer, query, key, value, kv_cache, attn_metadata):
        kc, sc, vc = self.split(kv_cache, layer).values()
        k_wide = kc.to(query.dtype)  # positive: CL001 the whole key plane
        s_wide = sc.to(query.dtype)  # negative: the scale entry
        return k_wide, s_wide
""",
    "handed_layers_dtype_accessor_trtllm": """\
import torch


class LayerStore:
    def __init__(self, layer_buffers, dtype):
        self.layers = layer_buffers
        self.dtype = dtype

    def layer(self, idx, dtype=None):
        buf = self.layers[idx]
        return buf if dtype is None else buf.to(dtype)  # positive: CL004 the whole layer when a dtype is asked for

    def layer_rows(self, idx, rows, dtype=None):
        return self.layers[idx][rows].to(dtype)  # negative: blocks selected first


class FallbackAttention:
    def forward(self, q, k, v, metadata, layer_idx):
        store = metadata.kv_cache_manager
        wide = store.layer(layer_idx, q.dtype)
        raw = store.layer(layer_idx)
        rows = store.layer_rows(layer_idx, metadata.block_ids, q.dtype)
        return wide, raw.to(q.device), rows  # negative: .to(device)
""",
    "allocated_dtype_keyword_accessor_sglang": """\
from typing import Optional

import torch


class WidenableMHAPool:
    def __init__(self, size, head_num, head_dim, layer_num, dtype):
        self.dtype = dtype
        self._keys = [torch.zeros((size + 1, head_num, head_dim), dtype=dtype) for _ in range(layer_num)]

    def key_plane(self, layer_id, as_dtype: Optional[torch.dtype] = None):
        plane = self._keys[layer_id]
        if as_dtype is None or as_dtype == self.dtype:
            return plane
        return plane.to(as_dtype)  # positive: CL004 the whole layer, converted on request

    def key_rows(self, layer_id, loc, as_dtype: Optional[torch.dtype] = None):
        return self._keys[layer_id][loc].to(as_dtype)  # negative: rows first


class WidenableBackend:
    def __init__(self, pool: WidenableMHAPool):
        self.pool = pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        native = self.pool.key_plane(layer.layer_id)
        wide = self.pool.key_plane(layer.layer_id, as_dtype=torch.float32)
        rows = self.pool.key_rows(layer.layer_id, forward_batch.out_cache_loc, torch.float32)
        return native.to(q.device), wide, rows  # negative: .to(device)
""",
    "handed_draft_layers_kwonly_dtype_trtllm": """\
import torch


class DraftLayerView:
    def __init__(self, draft_layers, native_dtype):
        self._draft = draft_layers
        self.native_dtype = native_dtype

    def draft_layer(self, layer_idx, *, dtype=None):
        if dtype is not None and dtype != self.native_dtype:
            return self._draft[layer_idx].to(dtype)  # positive: CL004 the whole draft layer, when a dtype is asked for
        return self._draft[layer_idx]


class EagleDraftAttention:
    def __init__(self):
        self.bias = torch.zeros(8).to(torch.bfloat16)  # negative: setup, no pool

    def forward(self, q, k, v, metadata, layer_idx):
        draft = metadata.draft_kv_cache_manager
        wide = draft.draft_layer(layer_idx, dtype=q.dtype)
        native = draft.draft_layer(layer_idx)
        picked = native[metadata.block_ids].to(q.dtype)  # negative: blocks selected first
        return wide, picked
""",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_marked_lines(tmp_path, name):
    assert_marked_lines(tmp_path, name, CASES[name])


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("filler", [False, True], ids=["as-is", "with-filler"])
def test_pruned_is_whole(tmp_path, name, filler):
    assert_pruned_is_whole(tmp_path, name, CASES[name], filler)
