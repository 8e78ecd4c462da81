"""follow-imports = "callers" (the default since 2026-12-07): a module's converting helpers are analysed
with the calls its sibling modules make of them, so a helper only ever handed a whole pool by another
module converts it, reported at its own cast. Round 22 (family_recall_20's f7) widened what counts as a
call and as a helper:
- a function-local import of the helper (`from .widen import dense` inside the per-step method, an alias
  too): the import is dropped from the linked caller, which would otherwise hide the helper;
- a definition that hands a converting helper on (a class decorator that installs it as a method under
  any name, `cls.dense = _dense` or `setattr(cls, "dense", _dense)`; a factory returning it): its
  importers' use of it (`@with_readers` counts as a call) links them;
- a generator driven by `.send(kv_cache)` from another module: the sent value's layout (vLLM's planes
  first) is that of what is sent, so `kv_cache[1]` in the generator is a whole value plane.
Look-alikes sit beside each positive: helpers given rows, `.to(device)`, the query."""

import textwrap

import pytest

from castlint.analysis import tree_index
from package_cases import TABLES, fresh_tree_caches, marked_lines, tree_findings, write_tree


@pytest.fixture(autouse=True)
def _own_tree_cache(tmp_path, monkeypatch):
    yield from fresh_tree_caches(tmp_path, monkeypatch)


PACKAGES = {
    "local_import_sglang": {
        "pkg/__init__.py": "",
        "pkg/widen.py": """
            import torch


            def dense_latent(buf, dtype):
                return buf.to(dtype)  # positive: the whole latent layer, from the backend's local import


            def dense_nope(buf, rank, dtype):
                return buf[..., :rank].to(dtype)  # positive: the no-rope part keeps every slot


            def live_rows(buf, loc, dtype):
                return buf[loc].to(dtype)  # negative: rows first
        """,
        "pkg/backend.py": """
            import torch


            class CutlassNoFp8Backend:
                def __init__(self, model_runner):
                    self.dtype = model_runner.dtype

                def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
                    from .widen import dense_latent, dense_nope, live_rows

                    pool = forward_batch.token_to_kv_pool
                    latent = dense_latent(pool.get_key_buffer(layer.layer_id), self.dtype)
                    nope = dense_nope(pool.get_key_buffer(layer.layer_id), 512, self.dtype)
                    rows = live_rows(pool.get_key_buffer(layer.layer_id), forward_batch.out_cache_loc, self.dtype)
                    return latent, nope, rows, q.to(self.dtype)  # negative: the query
        """,
    },
    "local_import_alias_vllm": {
        "attn/__init__.py": "",
        "attn/ops.py": """
            import torch


            def upcast(kv_cache, dtype):
                key_cache, value_cache = kv_cache.unbind(0)
                return key_cache.to(dtype), value_cache.to(dtype)  # positive: both whole planes


            def upcast_blocks(kv_cache, block_table, dtype):
                return kv_cache[:, block_table].to(dtype)  # negative: one sequence's blocks
        """,
        "attn/impl.py": """
            import torch


            class HPUNoFp8Impl:
                def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
                    if kv_cache.numel() == 0:
                        return output

                    def _attend():
                        from .ops import upcast as _up, upcast_blocks as _up_blocks

                        k, v = _up(kv_cache, query.dtype)
                        ctx = _up_blocks(kv_cache, attn_metadata.block_table[0], query.dtype)
                        return k, v, ctx

                    return _attend()
        """,
    },
    "installing_decorator_trtllm": {
        "mods/__init__.py": "",
        "mods/readers.py": """
            import torch


            def _whole(self, buf):
                return buf.to(self.compute_dtype)  # positive: installed as `dense`, given whole layers


            def _picked(self, buf, block_ids):
                return buf[block_ids].to(self.compute_dtype)  # negative: blocks first


            def _moved(self, buf):
                return buf.to(self.device)  # negative: a device move


            def with_readers(cls):
                cls.dense = _whole
                setattr(cls, "picked", _picked)
                cls.moved = _moved
                return cls
        """,
        "mods/attention.py": """
            import torch

            from .readers import with_readers


            @with_readers
            class NoFp8Attention:
                def __init__(self, kv_cache_manager, compute_dtype=torch.bfloat16):
                    self.kv_cache_manager = kv_cache_manager
                    self.compute_dtype = compute_dtype
                    self.device = torch.device("cuda")

                def forward(self, q, k, v, metadata, layer_idx):
                    buf = self.kv_cache_manager.get_buffers(layer_idx)
                    return self.dense(buf), self.picked(buf, metadata.block_ids), self.moved(buf)
        """,
    },
    "generator_send_planes_vllm": {
        "runner/__init__.py": "",
        "runner/sinks.py": """
            import torch


            def value_sink(dtype):
                out = None
                while True:
                    kv_cache = yield out
                    out = kv_cache[1].to(dtype)  # positive: the value plane of every block, sent in


            def block_sink(block_ids, dtype):
                out = None
                while True:
                    kv_cache = yield out
                    out = kv_cache[:, block_ids].to(dtype)  # negative: blocks first
        """,
        "runner/model_runner.py": """
            import torch

            from . import sinks


            class AuditRunner:
                def execute_model(self, scheduler_output, intermediate_tensors=None):
                    values = sinks.value_sink(torch.float32)
                    next(values)
                    picked = sinks.block_sink(scheduler_output.block_ids, torch.float32)
                    next(picked)
                    return [values.send(c) for c in self.kv_caches], picked.send(self.kv_caches[0])
        """,
    },
}


@pytest.mark.parametrize("name", sorted(PACKAGES))
def test_callers_found_by_default_and_pruned_is_whole(tmp_path, name):
    write_tree(tmp_path, PACKAGES[name])
    expected = marked_lines(tmp_path)
    assert expected
    assert tree_findings(tmp_path) == expected
    assert tree_findings(tmp_path, prune=False) == expected
    assert tree_findings(tmp_path, follow=False) == set()  # off: each module alone has no finding


def test_a_decorator_installing_a_module_def_is_followed_in_one_module(tmp_path):
    """The same decorator in one module: the pruner feeds `self.dense(buf)` to the def installed as
    `dense` (it had decided the file held nothing to find: pruned != whole)."""
    files = PACKAGES["installing_decorator_trtllm"]
    readers = textwrap.dedent(files["mods/readers.py"]).lstrip()
    attention = textwrap.dedent(files["mods/attention.py"]).lstrip().replace("from .readers import with_readers\n", "")
    path = tmp_path / "one.py"
    path.write_text(readers + "\n\n" + attention)
    expected = marked_lines(tmp_path)
    assert len(expected) == 1
    assert tree_findings(tmp_path, follow=False) == expected
    assert tree_findings(tmp_path, follow=False, prune=False) == expected


def test_a_kernel_languages_def_is_no_helper_its_callers_link(tmp_path):
    """rules/paged_kernels.toml [kernel_languages]: a `@triton.jit` def's `.to(tl.float32)` converts tiles of a
    kernel, so a sibling launching it with the pool does not make its module a helper module; a plain Python
    helper beside it still is."""
    write_tree(
        tmp_path,
        {
            "ops/__init__.py": "",
            "ops/kernels.py": """
                import triton
                import triton.language as tl


                @triton.jit
                def load_tile(kv_cache, offsets):
                    return tl.load(kv_cache + offsets).to(tl.float32)


                @triton.autotune(configs=[], key=["n"])
                @triton.jit
                def _decode_kernel(kv_cache, out_ptr, n):
                    tile = load_tile(kv_cache, tl.arange(0, 16))
                    tl.store(out_ptr + tl.arange(0, 16), tile)
            """,
            "ops/helpers.py": """
                def widen(buf, dtype):
                    return buf.to(dtype)  # positive: the whole cache the launcher hands in
            """,
            "ops/launch.py": """
                import torch

                import triton
                import triton.language as tl

                from .helpers import widen
                from .kernels import _decode_kernel, load_tile


                @triton.jit
                def _prefill_kernel(kv_cache, out_ptr, n):
                    tl.store(out_ptr + tl.arange(0, 16), load_tile(kv_cache, tl.arange(0, 16)))


                class Launcher:
                    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
                        _decode_kernel[(1,)](kv_cache, output, 16)
                        _prefill_kernel[(1,)](kv_cache, output, 16)
                        return widen(kv_cache, query.dtype)
            """,
        },
    )
    kernels, helpers = tmp_path / "ops" / "kernels.py", tmp_path / "ops" / "helpers.py"
    assert not tree_index.imported_by_callers(str(kernels), kernels.read_bytes(), TABLES)
    assert tree_index.imported_by_callers(str(helpers), helpers.read_bytes(), TABLES)
    assert tree_findings(tmp_path) == marked_lines(tmp_path)
