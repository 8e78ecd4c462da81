"""Precision on unseen shapes (family_recall_5 round): look-alikes that convert no whole pool,
each beside the positives that must stay found.

- own dtype: a cast to the receiver's own dtype through dtype-keeping derivations (views,
  `[views] dtype_keeping_*`, subscripts, getattr of a constant, joins of one root, a followed
  call's arguments and defaults), and a dtype argument that is None at the call
  (castlint.analysis.same_dtype.own_dtype_cast);
- windows: a slice bound read only from a per-step entry's parameters is a window of the step
  whatever its name; a constant stride is a subset (dataflow._bounded_slice, `[allocation]
  extent_*`, `count_functions`); `[: self.size]`, `[: buf.shape[0]]` and `[:]` stay whole;
- a constant plane of a convention cache is followed by its block dimension
  (`kv_cache[1, block_table]` gathers); a constant key of a list of per-layer dict displays
  selects that key's values only;
- a learnt accessor's name: the method that runs for the receiver's class decides where it
  gathers and a sibling of that name returns a whole pool.

The pruned analysis gives the whole file's findings."""

from __future__ import annotations

import pytest

from castlint.tables import load_tables
from marked_cases import FILLER
from marked_cases import check as _check

TABLES = load_tables()

CASES = {
    # -- own dtype ---------------------------------------------------------------------------
    "own_dtype_views_sglang": """
import torch


class LatentBackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        buf = self.pool.get_key_buffer(layer.layer_id)
        flat = buf.detach().view(-1, 576)
        a = flat.clone().to(buf.dtype)  # negative
        b = flat.to(q.dtype)  # positive
        c = buf.reshape(-1, 8).type_as(buf)  # negative
        d = torch.cat([buf, buf], dim=0).to(buf.dtype)  # negative
        e = torch.cat([buf, self.pool.get_value_buffer(layer.layer_id)]).to(buf.dtype)  # negative: one dtype
        e2 = torch.cat([buf, k]).to(buf.dtype)  # positive
        f = buf.view(torch.uint8).to(buf.dtype)  # positive
        dt = buf.dtype
        g = buf.data.permute(1, 0, 2).to(dt)  # negative
        return a, b, c, d, e, e2, f, g
""",
    "own_dtype_getattr_vllm": """
import torch


class GetattrOwnImpl:
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output):
        a = getattr(kv_cache.data, "contiguous")().to(getattr(kv_cache, "dtype"))  # negative
        b = getattr(kv_cache, "half")()  # positive
        key_cache, value_cache = kv_cache.unbind(0)
        c = getattr(key_cache, "to")(key_cache.dtype)  # negative
        d = getattr(value_cache, "to")(query.dtype)  # positive
        e = torch.flatten(value_cache, 0, 1).to(dtype=value_cache.dtype)  # negative
        torch.ops._C.ref_attn(output, query, a, b, c, d, e)
        return output
""",
    "own_dtype_helper_trtllm": """
import torch


def cast_like(t, like):
    return t.to(like.dtype)


def cast_star(*args):
    x, dt = args
    return x.to(dt)


class LikeAttention:
    def __init__(self, layer_idx):
        self.layer_idx = layer_idx

    def forward(self, q, k, v, attn_metadata):
        buf = attn_metadata.kv_cache_manager.get_buffers(self.layer_idx)
        a = cast_like(buf, buf)  # negative
        b = cast_like(buf, q)  # positive
        c = cast_like(q, q)  # negative
        d = cast_star(buf.flatten(0, 1), buf.dtype)  # negative
        e = cast_star(buf, torch.float32)  # positive
        out = torch.empty_like(q)
        torch.ops.trtllm.attn(q, a, b, c, d, e, out)
        return out
""",
    "none_dtype_helper_lmdeploy": """
import torch


def upcast(t, dtype=None):
    if dtype is None:
        return t
    return t.to(dtype)


def maybe(t, *, to=None):
    return t if to is None else t.to(to)


class NoneDtypeImpl:
    def __init__(self, dtype=torch.float16):
        self.dtype = dtype

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata):
        a = upcast(k_cache)  # negative
        b = upcast(k_cache, torch.float16)  # positive
        c = upcast(v_cache, dtype=None)  # negative
        d = maybe(v_cache)  # negative
        e = maybe(v_cache, to=self.dtype)  # positive
        f = maybe(query, to=self.dtype)  # negative
        return torch.ops.lmdeploy.paged_attn(query, a, b, c, d, e, f, attn_metadata.block_offsets)
""",
    "own_dtype_unbind_join_vllm": """
import torch


class UnbindJoinImpl:
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output):
        k_plane, v_plane = kv_cache.unbind(0)
        a = torch.stack([k_plane, v_plane]).to(k_plane.dtype)  # negative
        b = torch.stack([k_plane, v_plane]).to(query.dtype)  # positive
        lat, rope = torch.split(kv_cache, [512, 64], dim=-1)
        c = torch.cat((lat, rope), dim=-1).to(dtype=rope.dtype)  # negative
        d = torch.cat((lat, query), dim=-1).to(lat.dtype)
        torch.ops._C.ref_attn(output, query, a, b, c, d)
        return output
""",
    # -- windows of the step -----------------------------------------------------------------
    "step_windows_vllm": """
import torch


class StepWindowImpl:
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output):
        key_cache, value_cache = kv_cache.unbind(0)
        n_used = int(attn_metadata.block_table.max()) + 1
        a = key_cache[:n_used].to(query.dtype)  # negative
        b = value_cache[: attn_metadata.num_cached_blocks, ...].float()  # negative
        c = key_cache[: kv_cache.shape[1]].to(query.dtype)  # positive
        d = value_cache[::1].half()  # positive
        e = key_cache[None, : attn_metadata.max_pages].half()  # negative
        f = value_cache[:].float()  # positive
        g = key_cache[::4].float()
        torch.ops._C.ref_attn(output, query, a, b, c, d, e, f, g)
        return output
""",
    "step_windows_sglang": """
import torch


class PrefixPoolBackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.size = model_runner.max_total_num_tokens

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        buf = self.pool.get_key_buffer(layer.layer_id)
        top = forward_batch.num_token_slots
        a = buf[:top].to(q.dtype)  # negative
        b = buf[: self.size].to(q.dtype)  # positive
        c = buf[: buf.shape[0]].float()  # positive
        d = buf[: min(forward_batch.max_pages, 64)].to(q.dtype)  # negative
        e = buf[: len(buf)].half()  # positive
        o = torch.empty_like(q)
        torch.ops.sgl_kernel.extend(q, a, b, c, d, e, o)
        return o
""",
    "step_windows_trtllm": """
import torch


class LiveBlocksAttention:
    def __init__(self, layer_idx, dtype=torch.bfloat16):
        self.layer_idx = layer_idx
        self.dtype = dtype

    def forward(self, q, k, v, attn_metadata):
        blocks = attn_metadata.kv_cache_manager.get_buffers(self.layer_idx)
        live_blocks = attn_metadata.num_contexts + attn_metadata.num_generations
        a = blocks[:live_blocks].to(self.dtype)  # negative
        b = blocks.flatten(0, 1)[: attn_metadata.num_cached_pages].to(self.dtype)  # negative
        c = blocks.flatten(0, 1).to(self.dtype)  # positive
        out = torch.empty_like(q)
        torch.ops.trtllm.attn(q, a, b, c, out)
        return out
""",
    "helper_window_sglang": """
import torch


class HelperWindowBackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.size = model_runner.max_total_num_tokens

    def _head(self, buf, num_slots, dtype):
        return buf[:num_slots].to(dtype)

    def _span(self, buf, total_slots, dtype):
        return buf[:total_slots].to(dtype)  # positive

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        buf = self.pool.get_key_buffer(layer.layer_id)
        a = self._head(buf, forward_batch.seq_lens_sum, q.dtype)  # negative
        b = self._head(buf, int(forward_batch.num_slots_used), q.dtype)  # negative
        c = self._span(buf, self.size, q.dtype)
        o = torch.empty_like(q)
        torch.ops.sgl_kernel.decode(q, a, b, c, o)
        return o
""",
    "step_input_methods_vllm": """
import torch


class WindowConnector:
    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        a = kv_layer[: attn_metadata.num_blocks].to(torch.float32)  # negative
        b = kv_layer.to(torch.float32)  # positive
        c = kv_layer[: kv_layer.size(0)].half()  # positive
        self.sent = (a, b, c)


class WindowRunner:
    def __init__(self, device):
        self.kv_caches: list[torch.Tensor] = []

    def execute_model(self, scheduler_output, intermediate_tensors=None):
        lay = self.kv_caches[0]
        live = scheduler_output.num_blocks_total
        a = lay[:live].to(torch.bfloat16)  # negative
        b = lay.to(torch.bfloat16)  # positive
        return a, b
""",
    # -- planes then blocks, dict keys -------------------------------------------------------
    "plane_then_blocks_vllm": """
import torch


class PlaneBlocksImpl:
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output):
        a = kv_cache[0, attn_metadata.block_table].to(query.dtype)  # negative
        b = kv_cache[1, :].to(query.dtype)  # positive
        c = kv_cache[1, ..., :64].float()  # positive
        d = kv_cache[0, attn_metadata.slot_mapping // 16].half()  # negative
        e = kv_cache[0].float()  # positive
        torch.ops._C.ref_attn(output, query, a, b, c, d, e)
        return output
""",
    "dict_entry_keys_lmdeploy": """
import torch


class LayerEntries:
    def __init__(self, cache_engine):
        self.entries = [
            {"k": kc, "v": vc, "scale": torch.ones(kc.shape[0], dtype=torch.float32)}
            for kc, vc in cache_engine.gpu_cache
        ]


class EntryAttention:
    def __init__(self, cache_engine, dtype=torch.float16):
        self.store = LayerEntries(cache_engine)
        self.dtype = dtype

    def forward(self, query, key, value, attn_metadata, layer_idx):
        e = self.store.entries[layer_idx]
        a = e["scale"].float()  # negative
        b = e["k"].to(self.dtype)  # positive
        c = self.store.entries[layer_idx]["v"].half()  # positive
        d = self.store.entries[layer_idx]["scale"].half()  # negative
        for entry in self.store.entries:
            s = entry["scale"].to(self.dtype)  # negative
            w = entry.get("v").float()  # positive
        pair = {"k": e["k"], "s": e["scale"]}
        x = pair["k"].to(pair["s"].dtype)  # positive
        y = pair["k"].to(pair["k"].dtype)  # negative
        return torch.ops.lmdeploy.paged_attn(query, a, b, c, d, s, w, x, y, attn_metadata.block_offsets)
""",
    # -- the method that runs decides --------------------------------------------------------
    "reader_override_sglang": """
import torch


class _WholeRows:
    def __init__(self, pool):
        self.pool = pool

    def rows(self, layer_id):
        return self.pool.get_value_buffer(layer_id)


class _LiveRows:
    def __init__(self, pool, loc):
        self.pool = pool
        self.loc = loc

    def rows(self, layer_id):
        return self.pool.get_value_buffer(layer_id)[self.loc]


class RowsBackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        live = _LiveRows(self.pool, forward_batch.out_cache_loc)
        a = live.rows(layer.layer_id).to(q.dtype)  # negative
        whole = _WholeRows(self.pool)
        b = whole.rows(layer.layer_id).to(q.dtype)  # positive
        o = torch.empty_like(q)
        torch.ops.sgl_kernel.decode(q, a, b, o)
        return o
""",
    "hook_override_trtllm": """
import torch


class ViewBase:
    def __init__(self, layer_idx, dtype=torch.bfloat16):
        self.layer_idx = layer_idx
        self.dtype = dtype

    def layer_view(self, metadata):
        return metadata.kv_cache_manager.get_buffers(self.layer_idx)

    def forward(self, q, k, v, metadata):
        x = self.layer_view(metadata)
        xd = x.to(self.dtype)  # positive
        out = torch.empty_like(q)
        torch.ops.trtllm.attn(q, xd, out)
        return out


class SelectedView(ViewBase):
    def layer_view(self, metadata):
        return metadata.kv_cache_manager.get_buffers(self.layer_idx).index_select(0, metadata.block_ids)


class SelectedRunner(SelectedView):
    def forward(self, q, k, v, metadata):
        y = self.layer_view(metadata)
        yd = y.to(self.dtype)  # negative
        out = torch.empty_like(q)
        torch.ops.trtllm.attn(q, yd, out)
        return out
""",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_marked_lines(tmp_path, name):
    path = tmp_path / f"{name}.py"
    path.write_text(CASES[name])
    lines = CASES[name].splitlines()
    found = {line for _, line, _ in _check(path, False)}
    positives = {i for i, text in enumerate(lines, 1) if "# positive" in text}
    negatives = {i for i, text in enumerate(lines, 1) if "# negative" in text}
    assert positives and negatives
    assert positives - found == set()
    assert found & negatives == set()


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("filler", [False, True], ids=["as-is", "with-filler"])
def test_pruned_is_whole(tmp_path, name, filler):
    path = tmp_path / f"{name}.py"
    path.write_text(CASES[name] + (FILLER if filler else ""))
    assert _check(path, True) == _check(path, False)


def test_strided_subset_is_no_whole_pool(tmp_path):
    path = tmp_path / "strided.py"
    path.write_text(CASES["step_windows_vllm"])
    lines = CASES["step_windows_vllm"].splitlines()
    strided = next(i for i, text in enumerate(lines, 1) if "[::4]" in text)
    assert strided not in {line for _, line, _ in _check(path, False)}
