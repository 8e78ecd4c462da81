"""follow-imports = "callers" (the default): round 23 (family_recall_21's f7) widened the forms in which a
sibling module reaches a converting definition of the helper module:
- a module attribute by a computed name (`getattr(kernels, f"dequant_{name}")`, `"upcast_" + mode`,
  `"%s_dense" % fmt`, any other name): every function of the module the name's constant parts can
  spell is linked as a choice (the flow model takes each branch);
- a module-level instance of a converting class (`ops = LatentOps()`): its importers call it
  (`__call__`) or its methods (`ops.widen(buf)`);
- a class reached through a classmethod or staticmethod (`Reader.for_layer(...)` then
  `reader.dense(kv_cache)`, `Planes.widen(kv_cache, dtype)`);
- a name the package's `__init__.py` re-exports from the helper module (`from .reader import KVReader`,
  `from .widen import widen_latent as dense_latent`), imported from the package (`from . import
  KVReader`, `from kvq import upcast_layer`).
Look-alikes sit beside each positive: rows gathered first, `.to(device)`, a scale tensor, a query."""

import textwrap

import pytest

from castlint.analysis import tree_index
from package_cases import fresh_tree_caches, marked_lines, tree_findings, write_tree


@pytest.fixture(autouse=True)
def _own_tree_cache(tmp_path, monkeypatch):
    yield from fresh_tree_caches(tmp_path, monkeypatch)


FILLER = "\n\n".join(f"def _filler_{i}(x, scale):\n    return x * scale + {i}\n" for i in range(12))

PACKAGES = {
    "getattr_plus_lmdeploy": {
        "engine/__init__.py": "",
        "engine/dequant.py": """
            import torch


            def upcast_int4(k_cache, meta, dtype=torch.float16):
                return k_cache.to(dtype) * meta  # positive: the whole int4 layer, picked by name


            def upcast_int8(k_cache, meta, dtype=torch.float16):
                return k_cache.to(dtype) - meta  # positive: the whole int8 layer


            def upcast_rows(k_cache, rows, dtype=torch.float16):
                return k_cache[rows].to(dtype)  # negative: rows first


            def scale_of(meta, dtype=torch.float16):
                return meta.to(dtype)  # negative: a scale tensor
        """,
        "engine/runner.py": """
            from . import dequant as dq


            class ModelAgent:
                def __init__(self, cache_engine, mode):
                    self.cache_engine = cache_engine
                    self.mode = mode

                def step(self, inputs, rows):
                    upcast = getattr(dq, "upcast_" + self.mode)
                    outs = [upcast(k, m) for k, m in zip(self.cache_engine.gpu_cache, self.cache_engine.metas)]
                    picked = [dq.upcast_rows(k, rows) for k in self.cache_engine.gpu_cache]
                    return outs, picked, dq.scale_of(inputs.scale)
        """,
    },
    "getattr_fstring_vllm": {
        "attn/__init__.py": "",
        "attn/formats.py": """
            import torch


            def fp8_e4m3_to_dense(kv_cache, dtype):
                return kv_cache.to(dtype)  # positive: the whole paged cache, by the f-string's name


            def fp8_e5m2_to_dense(kv_cache, dtype):
                return kv_cache.float().to(dtype)  # positive: the whole paged cache


            def fp8_e4m3_to_device(kv_cache, device):
                return kv_cache.to(device)  # negative: a device move, and the name does not match


            def blocks_to_dense(kv_cache, block_ids, dtype):
                return kv_cache[:, block_ids].to(dtype)  # negative: blocks first
        """,
        "attn/backend.py": """
            import torch

            from . import formats


            class FallbackImpl:
                def __init__(self, kv_cache_dtype):
                    self.kv_cache_dtype = kv_cache_dtype

                def forward(self, layer, query, key, value, kv_cache, attn_metadata):
                    dense = getattr(formats, f"{self.kv_cache_dtype}_to_dense")(kv_cache, query.dtype)
                    moved = getattr(formats, "fp8_e4m3_to_device")(kv_cache, query.device)
                    return dense, moved, formats.blocks_to_dense(kv_cache, attn_metadata.block_ids, query.dtype)
        """,
    },
    "getattr_percent_sglang": {
        "layers/__init__.py": "",
        "layers/kernels.py": """
            import torch


            def widen_mla(kv_buffer, dtype):
                return kv_buffer.to(dtype)  # positive: the whole latent buffer


            def widen_q(q, dtype):
                return q.to(dtype)  # negative: the name matches, the caller hands the query
        """,
        "layers/backend.py": """
            from . import kernels


            class TorchNativeMLABackend:
                def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
                    buf = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)
                    kv = getattr(kernels, "widen_%s" % self.variant)(buf, q.dtype)
                    qq = kernels.widen_q(q, kv.dtype)
                    return kv, qq
        """,
    },
    "instance_methods_sglang": {
        "srt/__init__.py": "",
        "srt/latent_ops.py": """
            import torch


            class LatentOps:
                def __init__(self, rank=512):
                    self.rank = rank

                def widen(self, kv_buffer, dtype):
                    return kv_buffer.to(dtype)  # positive: the whole latent buffer, through the instance's method

                def widen_rows(self, kv_buffer, loc, dtype):
                    return kv_buffer[loc].to(dtype)  # negative: rows first

                def widen_q(self, q, dtype):
                    return q.to(dtype)  # negative: the query


            latent_ops: LatentOps = LatentOps()
        """,
        "srt/backend.py": """
            from .latent_ops import latent_ops


            class FlashMLAFallback:
                def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
                    buf = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)
                    kv = latent_ops.widen(buf, q.dtype)
                    rows = latent_ops.widen_rows(buf, forward_batch.out_cache_loc, q.dtype)
                    return kv, rows, latent_ops.widen_q(q, kv.dtype)
        """,
    },
    "instance_call_trtllm": {
        "trt/__init__.py": "",
        "trt/upcast.py": """
            import torch


            class _Upcaster:
                def __init__(self, dtype=torch.float32):
                    self.dtype = dtype

                def __call__(self, pool_tensor):
                    return pool_tensor.to(self.dtype)  # positive: the whole primary pool, by the instance's __call__


            class _DeviceMover:
                def __call__(self, pool_tensor):
                    return pool_tensor.to("cuda")  # negative: a device move


            upcast = _Upcaster()
            to_gpu = _DeviceMover()
        """,
        "trt/attention.py": """
            from . import upcast as up


            class TorchAttention:
                def forward(self, q, k, v, attn_metadata):
                    pool = attn_metadata.kv_cache_manager.get_buffers(self.layer_idx)
                    return up.upcast(pool), up.to_gpu(pool)
        """,
    },
    "classmethod_factory_vllm": {
        "ops/__init__.py": "",
        "ops/planes.py": """
            import torch


            class PlaneReader:
                def __init__(self, dtype):
                    self.dtype = dtype

                @classmethod
                def for_layer(cls, layer):
                    return cls(layer.compute_dtype)

                def dense(self, kv_cache):
                    return kv_cache[0].to(self.dtype)  # positive: the key plane of every block

                def blocks(self, kv_cache, block_ids):
                    return kv_cache[:, block_ids].to(self.dtype)  # negative: blocks first
        """,
        "ops/impl.py": """
            from .planes import PlaneReader


            class TorchSDPAImpl:
                def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
                    reader = PlaneReader.for_layer(layer)
                    if attn_metadata.num_prefills:
                        return reader.blocks(kv_cache, attn_metadata.block_ids)
                    return reader.dense(kv_cache)
        """,
    },
    "staticmethod_direct_lmdeploy": {
        "pt/__init__.py": "",
        "pt/helpers.py": """
            import torch


            class CacheCast:
                @staticmethod
                def full(k_cache, dtype):
                    return k_cache.to(dtype)  # positive: the whole key cache, by a staticmethod

                @staticmethod
                def gathered(k_cache, offsets, dtype):
                    return k_cache[offsets].to(dtype)  # negative: rows first
        """,
        "pt/agent.py": """
            import torch

            from .helpers import CacheCast


            class BaseModelAgent:
                def _forward(self, inputs):
                    k_cache, _ = self.cache_engine.gpu_cache[0]
                    full = CacheCast.full(k_cache, torch.float16)
                    rows = CacheCast.gathered(k_cache, inputs.block_offsets, torch.float16)
                    return full, rows
        """,
    },
    "reexport_class_vllm": {
        "kvread/__init__.py": """
            from .reader import KVReader

            __all__ = ["KVReader"]
        """,
        "kvread/reader.py": """
            import torch


            class KVReader:
                def __init__(self, dtype):
                    self.dtype = dtype

                def value_plane(self, kv_cache):
                    return kv_cache[1].to(self.dtype)  # positive: the value plane of every block

                def scales(self, k_scale):
                    return k_scale.to(self.dtype)  # negative: a scale tensor
        """,
        "kvread/impl.py": """
            from . import KVReader


            class FlexAttentionImpl:
                def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
                    reader = KVReader(query.dtype)
                    return reader.value_plane(kv_cache), reader.scales(layer._k_scale)
        """,
    },
    "reexport_alias_sglang": {
        "mla/__init__.py": """
            from .widen import widen_latent as dense_latent
            from .widen import widen_rows
        """,
        "mla/widen.py": """
            import torch


            def widen_latent(kv_buffer, dtype):
                return kv_buffer.to(dtype)  # positive: the whole latent buffer, re-exported under another name


            def widen_rows(kv_buffer, loc, dtype):
                return kv_buffer[loc].to(dtype)  # negative: rows first
        """,
        "mla/backend.py": """
            from . import dense_latent, widen_rows


            class CutlassMLAFallback:
                def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
                    buf = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)
                    return dense_latent(buf, q.dtype), widen_rows(buf, forward_batch.out_cache_loc, q.dtype)
        """,
    },
    "reexport_absolute_lmdeploy": {
        "kvq/__init__.py": """
            from .upcast import upcast_layer
        """,
        "kvq/upcast.py": """
            import torch


            def upcast_layer(k_cache, dtype=torch.float16):
                return k_cache.to(dtype)  # positive: the whole key cache, imported from the package by its own name


            def upcast_to(k_cache, device):
                return k_cache.to(device)  # negative: a device move
        """,
        "kvq/agent.py": """
            from kvq import upcast_layer


            class AutoModelAgent:
                def _forward_impl(self, inputs):
                    k_cache, v_cache = self.cache_engine.gpu_cache[inputs.layer]
                    return upcast_layer(k_cache)
        """,
    },
}

NEGATIVES = {
    "instance_given_query_sglang": {
        "srt/__init__.py": "",
        "srt/latent_ops.py": PACKAGES["instance_methods_sglang"]["srt/latent_ops.py"],
        "srt/backend.py": """
            from .latent_ops import latent_ops


            class FlashMLAFallback:
                def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
                    buf = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)
                    rows = latent_ops.widen(buf[forward_batch.out_cache_loc], q.dtype)
                    return rows, latent_ops.widen(q, rows.dtype)
        """,
    },
    "classmethod_given_rows_vllm": {
        "ops/__init__.py": "",
        "ops/planes.py": PACKAGES["classmethod_factory_vllm"]["ops/planes.py"],
        "ops/impl.py": """
            from .planes import PlaneReader


            class TorchSDPAImpl:
                def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
                    reader = PlaneReader.for_layer(layer)
                    return reader.dense(kv_cache[:, attn_metadata.block_ids])
        """,
    },
    "getattr_no_pool_lmdeploy": {
        "engine/__init__.py": "",
        "engine/dequant.py": PACKAGES["getattr_plus_lmdeploy"]["engine/dequant.py"],
        "engine/runner.py": """
            from . import dequant as dq


            class ModelAgent:
                def step(self, inputs):
                    upcast = getattr(dq, "upcast_" + self.mode)
                    return upcast(inputs.weight, inputs.scale)
        """,
    },
}


def _with_filler(files: dict) -> dict:
    return {n: (textwrap.dedent(t).lstrip() + "\n\n" + FILLER if t.strip() else t) for n, t in files.items()}


@pytest.mark.parametrize("filler", [False, True])
@pytest.mark.parametrize("name", sorted(PACKAGES))
def test_reached_forms_found_by_default_and_pruned_is_whole(tmp_path, name, filler):
    files = _with_filler(PACKAGES[name]) if filler else PACKAGES[name]
    write_tree(tmp_path, files)
    expected = marked_lines(tmp_path)
    assert expected
    assert tree_findings(tmp_path) == expected
    assert tree_findings(tmp_path, prune=False) == expected
    assert tree_findings(tmp_path, follow=False) == set()  # off: each module alone has no finding


@pytest.mark.parametrize("name", sorted(NEGATIVES))
def test_reached_forms_given_no_whole_pool_find_nothing(tmp_path, name):
    write_tree(tmp_path, NEGATIVES[name])
    assert tree_findings(tmp_path) == set()
    assert tree_findings(tmp_path, prune=False) == set()


def test_a_computed_name_picks_what_its_constant_parts_spell():
    import ast

    pick = tree_index._name_pattern
    assert pick(ast.parse('f"dequant_{n}"', mode="eval").body).fullmatch("dequant_int8")
    assert not pick(ast.parse('f"dequant_{n}"', mode="eval").body).fullmatch("quant_int8")
    assert pick(ast.parse('"up_" + m', mode="eval").body).fullmatch("up_fp8")
    assert pick(ast.parse('"%s_dense" % f', mode="eval").body).fullmatch("fp8_dense")
    assert not pick(ast.parse('"%s_dense" % f', mode="eval").body).fullmatch("fp8_device")
    assert pick(ast.parse("name", mode="eval").body).fullmatch("anything")
