"""Issue 19, round 15 (family_recall_13 leftovers), in sglang, vLLM, lmdeploy and TRT-LLM styles other than
the corpus's:
- a layer index looked up in a dict on an object of unknown class (`pool.layer_id_map[layer.layer_id]` of an
  engine-handed pool): the one module class assigning that attribute a dict decides its values' kind
  (ModuleAnalysis._attr_owner through duck_class); the pruner keeps that class (`_dict_holders`);
- a cast method named by a choice among constants (`getattr(buf, self.cast_name)()` of a dict display looked
  up, a conditional expression, a class-body constant overridden in a subclass: ObjectFlow._chosen_strings);
- a class attribute a subclass's body reassigns hides the base's value from that subclass's methods (its
  instances, and its subclasses', never see it: ObjectFlow._shadowed_bases), nor a sibling subclass's
  body, so a gathering reader class chosen in a subclass is not the base's whole-cache reader, nor the one
  another subclass of the base chooses;
- under `follow-imports = "uses"`, a helper module imported as a module (`from . import ops`, called as
  `ops.f(buf, ...)`) is linked to its importers as `from .ops import f` is, and an importer's definition
  counts when it names a pool anywhere (`buf = mgr.get_buffers(i)` a line above the call), not only on the
  call's line (tree_index._modules_imported, _calls_with_pool).
Each positive has look-alikes beside it; the pruned analysis gives the whole file's findings, with and
without filler."""

from __future__ import annotations

import pytest

from castlint.tables import load_tables
from marked_cases import FILLER
from marked_cases import check as _check
from package_cases import write_tree
from test_call_indirection_11 import _findings, _marked, _own_tree_cache  # noqa: F401

TABLES = load_tables()

CASES = {
    "layer_map_duck_sglang": """\
import torch


class SwaFullPool:
    def __init__(self, full_ids, swa_ids, full_pool, swa_pool):
        self.full_map = dict((lid, i) for i, lid in enumerate(full_ids))
        self.local_of = {lid: pos for pos, lid in enumerate(swa_ids)}
        self.req_rows = {rid: torch.arange(4) + rid for rid in range(8)}
        self.full_pool = full_pool
        self.swa_pool = swa_pool


class SwaBackend:
    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        kl = pool.full_pool.k_buffer[pool.local_of[layer.layer_id]].float()  # positive: CL001
        rows = pool.swa_pool.k_buffer[0][pool.req_rows[layer.layer_id]].float()  # negative: rows gathered
        lens = forward_batch.seq_lens[pool.local_of[layer.layer_id]].float()  # negative: lengths
        return kl, rows, lens
""",
    "layer_map_duck_vllm": """\
import torch


class LayerRegistry:
    def __init__(self, names):
        self.slot_of = {name: n for n, name in enumerate(sorted(names))}


class ShadowReader:
    def __init__(self, registry, kv_caches):
        self.kv_caches = kv_caches
        self.registry = registry

    def read_all(self, ctx, layer_name, slot_mapping):
        caches = ctx.kv_caches
        whole = caches[ctx.registry.slot_of[layer_name]].to(torch.float32)  # positive: CL001
        part = caches[ctx.registry.slot_of[layer_name]][slot_mapping].to(torch.float32)  # negative: slots
        return whole, part
""",
    "chosen_cast_name_lmdeploy": """\
import torch


class FallbackImpl:
    WIDEN = "float"

    def __init__(self, num_heads, head_size, scale, use_half=False):
        self.widen_name = "half" if use_half else "bfloat16"
        self.layout_name = "contiguous"

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, inplace=True):
        kc = getattr(k_cache, self.widen_name)()  # positive: CL001
        vc = getattr(v_cache, self.WIDEN)()  # positive: CL001
        same = getattr(k_cache, self.layout_name)()  # negative: no cast
        rows = getattr(k_cache[attn_metadata.block_offsets], self.widen_name)()  # negative: blocks gathered
        lens = getattr(attn_metadata.kv_seqlens, self.WIDEN)()  # negative: lengths
        return kc, vc, same, rows, lens


class HalfImpl(FallbackImpl):
    WIDEN = "half"
""",
    "looked_up_cast_name_trtllm": """\
import torch

_CASTS = {"fp16": "half", "bf16": "bfloat16"}


class DenseFallback:
    def __init__(self, mode):
        self.cast = {"fp16": "half", "bf16": "bfloat16"}[mode]
        self.scale_op = {"a": "abs", "b": "neg"}[mode]

    def forward(self, q, metadata, layer_idx):
        buf = metadata.kv_cache_manager.get_buffers(layer_idx)
        dense = getattr(buf, self.cast)()  # positive: CL001
        other = getattr(buf, self.scale_op)()  # negative: no cast
        some = getattr(buf[metadata.block_ids], self.cast)()  # negative: blocks gathered
        return dense, other, some
""",
    "shadowed_reader_class_sglang": """\
import torch


class WholeView:
    @staticmethod
    def take(pool, layer_id, loc):
        return pool.get_key_buffer(layer_id)


class LocView:
    @staticmethod
    def take(pool, layer_id, loc):
        return pool.get_key_buffer(layer_id)[loc]


class TorchNativeBackend:
    view_cls = WholeView

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kb = self.view_cls.take(forward_batch.token_to_kv_pool, layer.layer_id, forward_batch.out_cache_loc)
        return kb.to(q.dtype)  # positive: CL001


class GatheringBackend(TorchNativeBackend):
    view_cls = LocView

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kb = self.view_cls.take(forward_batch.token_to_kv_pool, layer.layer_id, forward_batch.out_cache_loc)
        return kb.to(q.dtype)  # negative: rows of the step


class WholeAgainBackend(TorchNativeBackend):
    view_cls = WholeView

    def forward_idle(self, q, layer, forward_batch):
        kb = self.view_cls.take(forward_batch.token_to_kv_pool, layer.layer_id, None)
        return kb.float()  # positive: CL001
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


PACKAGES = {
    "module_import_ops_trtllm": {
        "pkg/__init__.py": "",
        "pkg/kernels.py": """
            import torch


            def widen_layer(buf, dt):
                return buf.to(torch.float32).to(dt)  # positive: CL001


            def widen_blocks(buf, blocks, dt):
                return buf[blocks].to(dt)  # negative: blocks gathered first


            def widen_scale(scale):
                return scale.to(torch.float32)  # negative: a scale
        """,
        "pkg/backend.py": """
            import torch

            from . import kernels


            class TorchFallback:
                def __init__(self, layer_idx):
                    self.layer_idx = layer_idx

                def forward(self, q, k, v, metadata, **kwargs):
                    held = metadata.kv_cache_manager.get_buffers(self.layer_idx)
                    scale = kernels.widen_scale(metadata.kv_scales[self.layer_idx])
                    whole = kernels.widen_layer(held, q.dtype)
                    ids = metadata.kv_cache_block_offsets[0]
                    part = kernels.widen_blocks(held, ids, q.dtype)
                    return whole, part, scale
        """,
    },
    "module_import_shared_helper_sglang": {
        "pkg/__init__.py": "",
        "pkg/casts.py": """
            def upcast(t, dt):
                return t.to(dt)  # negative: one importer gives it the query
        """,
        "pkg/backend.py": """
            from . import casts


            class FallbackBackend:
                def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
                    kb = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)
                    wide = casts.upcast(kb, q.dtype)
                    qq = casts.upcast(q, kb.dtype)
                    return wide, qq
        """,
    },
}


@pytest.mark.usefixtures("_own_tree_cache")
@pytest.mark.parametrize("name", sorted(PACKAGES))
def test_packages_under_uses(tmp_path, name):
    write_tree(tmp_path, PACKAGES[name])
    found = _findings(tmp_path, "uses")
    positives, negatives = _marked(tmp_path, "# positive"), _marked(tmp_path, "# negative")
    assert negatives
    assert positives <= found
    assert found & negatives == set()
    assert _findings(tmp_path, "uses", prune=False) == found
