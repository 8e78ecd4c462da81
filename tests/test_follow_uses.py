"""follow-imports = "uses": a file links a definition of another module of the tree only
when a value that reaches one of its own sites can come from it (castlint.analysis.demand),
and the modules the linker reads are summarised once in an on-disk per-tree index
(castlint.analysis.tree_index: CASTLINT_TREE_CACHE) that later runs and workers read back."""

import textwrap
from pathlib import Path

import pytest

from castlint.analysis import tree_index
from castlint.config import Config, ConfigError, parse_config
from castlint.engine import check_paths
from castlint.tables import load_tables

TABLES = load_tables()


@pytest.fixture(autouse=True)
def _own_tree_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("CASTLINT_TREE_CACHE", str(tmp_path / "tree-cache"))
    tree_index._MODULES.clear()
    tree_index._LINKS.clear()
    yield
    tree_index._MODULES.clear()
    tree_index._LINKS.clear()


def _write(root: Path, files: dict) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip())


def _findings(root: Path, follow="uses"):
    config = Config()
    config.follow_imports = follow
    config.cache = False
    files = sorted(str(p) for p in root.rglob("*.py"))
    run = check_paths(files, TABLES, config, jobs=1)
    assert not [e for r in run.results for e in r.errors]
    return {(str(Path(r.path).relative_to(root)), f.code, f.start.line) for r in run.results for f in r.findings}


def _marked(root: Path) -> set:
    """(file, line) of each `# positive` comment."""
    out = set()
    for path in root.rglob("*.py"):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if "# positive" in line:
                out.add((str(path.relative_to(root)), number))
    return out


def _lines(found) -> set:
    return {(name, line) for name, _, line in found}


BASE_THREE_AWAY = {
    "pkg/__init__.py": "",
    "pkg/a/__init__.py": "",
    "pkg/a/base.py": """
        class AttnBase:
            def _kv(self, layer, forward_batch):
                return forward_batch.token_to_kv_pool.get_kv_buffer(layer.layer_id)

            def _rows(self, layer, forward_batch):
                k, _ = self._kv(layer, forward_batch)
                return k[forward_batch.out_cache_loc]
    """,
    "pkg/b/__init__.py": "",
    "pkg/b/mid.py": """
        from ..a.base import AttnBase


        class MidBackend(AttnBase):
            scale = 1.0
    """,
    "pkg/c/__init__.py": "",
    "pkg/c/leaf.py": """
        from pkg.b.mid import MidBackend


        class LeafBackend(MidBackend):
            def forward_decode(self, q, layer, forward_batch):
                k, v = self._kv(layer, forward_batch)
                rows = self._rows(layer, forward_batch).to(q.dtype)  # negative: gathered in the base
                return k.to(q.dtype), rows  # positive: the whole key pool from a base two modules away
    """,
}


def test_base_class_three_modules_away(tmp_path):
    _write(tmp_path, BASE_THREE_AWAY)
    found = _findings(tmp_path)
    assert _lines(found) == _marked(tmp_path)
    assert _findings(tmp_path, follow=False) == set()


HELPER_MODULE = {
    "pkg/__init__.py": "",
    "pkg/utils.py": """
        def layer_cache(forward_context, layer_name):
            layer = forward_context.no_compile_layers[layer_name]
            return layer.kv_cache[forward_context.virtual_engine]


        def slot_mapping(forward_context, layer_name):
            return forward_context.attn_metadata[layer_name].slot_mapping
    """,
    "pkg/impl.py": """
        import torch

        from . import utils


        class Impl:
            def forward(self, layer, query, fc):
                t = utils.layer_cache(fc, layer.layer_name)
                t = t.to(torch.bfloat16)  # positive: the helper returns the layer's whole kv_cache
                slots = utils.slot_mapping(fc, layer.layer_name).to(torch.int64)  # negative: slot mapping
                return t, slots
    """,
}


def test_from_package_import_module_then_module_function(tmp_path):
    _write(tmp_path, HELPER_MODULE)
    assert _lines(_findings(tmp_path)) == _marked(tmp_path)


ALIASED_MODULE = {
    "pkg/__init__.py": "",
    "pkg/pools.py": """
        def whole_keys(pool, layer):
            return pool.get_key_buffer(layer.layer_id)


        def lengths(batch):
            return batch.seq_lens
    """,
    "pkg/backend.py": """
        import torch

        import pkg.pools as m


        class Backend:
            def forward(self, q, layer, forward_batch):
                keys = m.whole_keys(forward_batch.token_to_kv_pool, layer)
                lens = m.lengths(forward_batch).to(torch.int32)  # negative: lengths
                return keys.float(), lens  # positive: `import pkg.mod as m` then m.f() hands the pool
    """,
}


def test_import_module_as_alias(tmp_path):
    _write(tmp_path, ALIASED_MODULE)
    assert _lines(_findings(tmp_path)) == _marked(tmp_path)


REEXPORT = {
    "pkg/__init__.py": "from .core.base import PoolReader\n",
    "pkg/core/__init__.py": "",
    "pkg/core/base.py": """
        class PoolReader:
            def values(self, forward_batch, layer):
                return forward_batch.token_to_kv_pool.get_value_buffer(layer.layer_id)
    """,
    "pkg/user.py": """
        from pkg import PoolReader


        class User(PoolReader):
            def forward(self, q, layer, forward_batch):
                v = self.values(forward_batch, layer)
                return v.half(), q.float()  # positive: a base re-exported through __init__.py
    """,
}


def test_reexport_through_package_init(tmp_path):
    _write(tmp_path, REEXPORT)
    assert _lines(_findings(tmp_path)) == _marked(tmp_path)


PLAN_DTYPES = {
    "pkg/__init__.py": "",
    "pkg/plan_utils.py": """
        def mla_plan_dtypes(model_runner):
            return model_runner.dtype, model_runner.dtype


        def mla_native_dtypes(model_runner):
            return model_runner.dtype, model_runner.kv_cache_dtype
    """,
    "pkg/backend.py": """
        from flashinfer.mla import BatchMLAPagedAttentionWrapper

        from .plan_utils import mla_native_dtypes, mla_plan_dtypes


        class PlanBackend:
            def __init__(self, model_runner, workspace):
                self.runner = model_runner
                self.wrapper = BatchMLAPagedAttentionWrapper(workspace)

            def init_forward_metadata(self, forward_batch):
                md = forward_batch.plan_inputs
                self.wrapper.plan(md.qo_indptr, md.kv_indptr, md.kv_indices, md.kv_lens, 16, 512, 64, 1, False, md.sm_scale, *mla_plan_dtypes(self.runner))  # positive: CL002
                self.wrapper.plan(md.qo_indptr, md.kv_indptr, md.kv_indices, md.kv_lens, 16, 512, 64, 1, False, md.sm_scale, *mla_native_dtypes(self.runner))  # negative: pool dtype
    """,  # noqa: E501
}


def test_plan_dtypes_from_a_dtypes_module(tmp_path):
    _write(tmp_path, PLAN_DTYPES)
    found = _findings(tmp_path)
    assert _lines(found) == _marked(tmp_path)
    assert {code for _, code, _ in found} == {"CL002"}


ANNOTATED_POOL = {
    "pkg/__init__.py": "",
    "pkg/pool.py": """
        import torch


        class ArenaPool:
            def __init__(self, size, width, layer_num, device):
                self.dtype = torch.float8_e4m3fn
                self.arena = torch.zeros((layer_num, size, 1, width), dtype=torch.uint8, device=device)

            def latent_cache(self, layer_id: int) -> torch.Tensor:
                return self.arena[layer_id].view(self.dtype)
    """,
    "pkg/backend.py": """
        from .pool import ArenaPool


        class Backend:
            def __init__(self, model_runner):
                self.pool: ArenaPool = model_runner.token_to_kv_pool

            def forward_decode(self, q, layer, forward_batch):
                return self.pool.latent_cache(layer.layer_id).to(q.dtype)  # positive: accessor of a class of pool.py
    """,
}


def test_attribute_annotated_with_a_pool_class_of_another_module(tmp_path):
    _write(tmp_path, ANNOTATED_POOL)
    assert _lines(_findings(tmp_path)) == _marked(tmp_path)


def test_a_file_links_only_what_its_sites_use(tmp_path):
    """The same file linked per import (follow-imports = true) and per use: a helper it calls
    on a tensor that never reaches a conversion is not linked per use."""
    _write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/pools.py": """
                def whole_keys(pool, layer):
                    return pool.get_key_buffer(layer.layer_id)
            """,
            "pkg/user.py": """
                import torch

                from .pools import whole_keys


                def report(pool, layer, x):
                    keys = whole_keys(pool, layer)
                    print(keys.shape)
                    return x.to(torch.float32)  # negative: a local tensor
            """,
        },
    )
    user = tmp_path / "pkg" / "user.py"
    source = user.read_bytes()
    assert "def whole_keys" in tree_index.link(str(user), source, TABLES, uses=False).text
    assert tree_index.link(str(user), source, TABLES, uses=True).text == ""
    assert _findings(tmp_path) == set()


def test_cold_check_writes_the_tree_index_and_the_next_run_reads_it(tmp_path):
    _write(tmp_path, BASE_THREE_AWAY)
    store = tmp_path / "tree-cache"
    tree_index.STORE_STATS.update(read=0, written=0)
    first = _findings(tmp_path)
    assert tree_index.STORE_STATS["written"] > 0 and tree_index.STORE_STATS["read"] == 0
    written = sorted(p.name for p in store.iterdir())
    assert written
    tree_index._MODULES.clear()  # a new process (another worker, the next run)
    tree_index._LINKS.clear()
    tree_index.STORE_STATS.update(read=0, written=0)
    assert _findings(tmp_path) == first
    assert tree_index.STORE_STATS["read"] > 0 and tree_index.STORE_STATS["written"] == 0
    assert sorted(p.name for p in store.iterdir()) == written


def test_a_broken_tree_index_entry_is_rebuilt(tmp_path):
    _write(tmp_path, BASE_THREE_AWAY)
    first = _findings(tmp_path)
    for entry in (tmp_path / "tree-cache").iterdir():
        entry.write_text("{not json")
    tree_index._MODULES.clear()
    tree_index._LINKS.clear()
    assert _findings(tmp_path) == first


def test_tree_index_off(tmp_path, monkeypatch):
    monkeypatch.setenv("CASTLINT_TREE_CACHE", "off")
    _write(tmp_path, BASE_THREE_AWAY)
    assert _lines(_findings(tmp_path)) == _marked(tmp_path)
    assert not (tmp_path / "tree-cache").exists()


def test_config_values(tmp_path):
    assert Config().follow_imports == "callers"
    assert parse_config({"follow-imports": "uses"}, tmp_path / "castlint.toml", tmp_path).follow_imports == "uses"
    assert parse_config({"follow-imports": True}, tmp_path / "castlint.toml", tmp_path).follow_imports is True
    with pytest.raises(ConfigError):
        parse_config({"follow-imports": "all"}, tmp_path / "castlint.toml", tmp_path)
