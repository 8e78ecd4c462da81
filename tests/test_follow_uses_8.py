"""follow-imports = "uses", issue 19's eighth round: the name gate before a file without trigger
words is linked (castlint.analysis.link_gate.Hands: what each module of the tree hands an
importer, by name and by text, through the modules it passes names on from: bases, re-exports).
It must let through the cross-module shapes of the blind corpus (family_recall_3/4/6 f7: the
same recall as without it) and keep out a file that reads none of the names a module hands.
The default stays "callers" (its importers half only: docs/analysis.md)."""

import textwrap
from pathlib import Path

import pytest

from castlint.analysis import link_gate, tree_index
from castlint.config import Config, ConfigError, parse_config
from castlint.engine import check_paths
from castlint.tables import load_tables

TABLES = load_tables()


@pytest.fixture(autouse=True)
def _own_tree_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("CASTLINT_TREE_CACHE", str(tmp_path / "tree-cache"))
    for table in (tree_index._MODULES, tree_index._LINKS, tree_index._REACHED, link_gate._TEXTS, link_gate._HANDS):
        table.clear()
    yield
    for table in (tree_index._MODULES, tree_index._LINKS, tree_index._REACHED, link_gate._TEXTS, link_gate._HANDS):
        table.clear()


def _write(root: Path, files: dict) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip())


def _findings(root: Path, follow=None) -> set:
    config = Config()
    if follow is not None:
        config.follow_imports = follow
    config.cache = False
    files = sorted(str(p) for p in root.rglob("*.py") if "tree-cache" not in str(p))
    run = check_paths(files, TABLES, config, jobs=1)
    assert not [e for r in run.results for e in r.errors]
    return {(str(Path(r.path).relative_to(root)), f.start.line) for r in run.results for f in r.findings}


def _marked(root: Path, word="# positive") -> set:
    out = set()
    for path in root.rglob("*.py"):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if word in line:
                out.add((str(path.relative_to(root)), number))
    return out


def test_uses_is_not_the_default(tmp_path):
    assert Config().follow_imports == "callers"
    where = tmp_path / "castlint.toml"
    assert parse_config({"follow-imports": "uses"}, where, tmp_path).follow_imports == "uses"
    with pytest.raises(ConfigError):
        parse_config({"follow-imports": "auto"}, where, tmp_path)


# A trigger file (it names the kv cache and converts): linked whatever the gate says.
TRIGGER_FILE_HELPER = {
    "ops_pkg/__init__.py": "",
    "ops_pkg/ops.py": """
        import torch


        def cast_like(t, ref):
            return t.to(ref.dtype)
        """,
    "ops_pkg/impl.py": """
        import torch

        from .ops import cast_like


        class FallbackImpl:
            def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
                key_cache, value_cache = kv_cache.unbind(0)
                vc = cast_like(value_cache, query)  # positive: the whole value cache through the sibling helper
                kk = cast_like(key, query)  # the step's keys
                bt = attn_metadata.block_table.to(torch.int32)
                return vc, kk, bt
        """,
}


def test_uses_links_into_a_file_the_prefilter_passes(tmp_path):
    _write(tmp_path, TRIGGER_FILE_HELPER)
    assert _findings(tmp_path, follow="uses") == _marked(tmp_path)
    assert _findings(tmp_path) == set()


# A file without trigger words: an accessor of a pool class of a sibling module.
ACCESSOR_PKG = {
    "arena_pkg/__init__.py": "",
    "arena_pkg/pool.py": """
        import torch


        class ArenaPool:
            def __init__(self, size, dim, layers, device):
                self.arena = torch.zeros((layers, size, dim), dtype=torch.uint8, device=device)
                self.dtype = torch.float8_e4m3fn

            def latent_cache(self, layer_id: int) -> torch.Tensor:
                return self.arena[layer_id].view(self.dtype)

            def latent_rows(self, layer_id: int, loc: torch.Tensor) -> torch.Tensor:
                return self.arena[layer_id][loc].view(self.dtype)
        """,
    "arena_pkg/backend.py": """
        from .pool import ArenaPool


        class ArenaBackend:
            def __init__(self, model_runner):
                self.pool: ArenaPool = model_runner.pool

            def forward_decode(self, q, k, v, layer, forward_batch):
                whole = self.pool.latent_cache(layer.layer_id).to(q.dtype)  # positive: every token's latent
                rows = self.pool.latent_rows(layer.layer_id, forward_batch.out_cache_loc).to(q.dtype)
                return whole, rows
        """,
}


def test_uses_links_a_file_without_trigger_words_through_the_gate(tmp_path):
    _write(tmp_path, ACCESSOR_PKG)
    assert _findings(tmp_path) == set()
    assert _findings(tmp_path, follow="uses") == _marked(tmp_path)


# "uses": the base class of another module (through a middle module that names no pool)
BASE_TWO_AWAY = {
    "hier_pkg/__init__.py": "",
    "hier_pkg/base.py": """
        class KVBase:
            def _kv_for(self, layer, forward_batch):
                pool = forward_batch.token_to_kv_pool
                return pool.get_key_buffer(layer.layer_id), pool.get_value_buffer(layer.layer_id)
        """,
    "hier_pkg/middle.py": """
        from .base import KVBase


        class Middle(KVBase):
            pass
        """,
    "hier_pkg/leaf.py": """
        from .middle import Middle


        class Leaf(Middle):
            def forward_decode(self, q, k, v, layer, forward_batch):
                key_cache, _ = self._kv_for(layer, forward_batch)
                return key_cache.to(q.dtype)  # positive: the grandparent's whole key pool
        """,
}


def test_uses_follows_a_base_through_a_middle_module(tmp_path):
    _write(tmp_path, BASE_TWO_AWAY)
    assert _findings(tmp_path, follow="uses") == _marked(tmp_path)
    assert _findings(tmp_path) == set()


def _may_link(path: Path, monkeypatch) -> tuple:
    """(tree_index.may_link with the name gate, whether link() was reached)."""
    reached = []
    real = tree_index.link
    monkeypatch.setattr(tree_index, "link", lambda *a, **k: reached.append(1) or real(*a, **k))
    source = path.read_bytes()
    answer = tree_index.may_link(str(path), source, TABLES, True, uses=True, names=True)
    return answer, bool(reached)


def test_name_gate_skips_a_file_that_reads_no_handed_name(tmp_path, monkeypatch):
    _write(
        tmp_path,
        {
            **ACCESSOR_PKG,
            "arena_pkg/other.py": """
                from .pool import ArenaPool


                def size_of(pool: ArenaPool, x):
                    return x.float().sum()  # converts its own tensor, reads nothing the pool hands
                """,
        },
    )
    assert _may_link(tmp_path / "arena_pkg/other.py", monkeypatch) == (False, False)
    assert _may_link(tmp_path / "arena_pkg/backend.py", monkeypatch) == (True, True)


def _hands(source: str) -> link_gate.Hands:
    return link_gate._hands_of(textwrap.dedent(source).lstrip().encode(), TABLES)


def test_hands_by_text():
    found = _hands(
        """
        import torch


        def k_half(manager, layer_idx):
            return manager.get_buffers(layer_idx)[:, 0]


        def width(pool):
            return pool.get_key_buffer(0).shape[-1]


        def attend(q, kv_buffer):
            out = flash(q, kv_buffer)
            return out


        def cast_like(t, ref):
            return t.to(ref.dtype)


        def plan_decode(wrapper, md, q_dtype, kv_dtype):
            wrapper.plan(md.indptr, q_dtype, kv_dtype)


        def plan_default(wrapper, md):
            wrapper.plan(md.indptr)


        class Window:
            def __init__(self, runner):
                self.kv = runner.token_to_kv_pool.get_kv_buffer(0)
                self.dim = runner.token_to_kv_pool.get_value_buffer(0).shape[-1]

            def enabled(self):
                return self.k_buffer is not None

            def rows(self, idx):
                return self.k_buffer.index_select(0, idx)

            def keys(self, layer):
                buf = self.k_buffer[layer]
                return buf
        """
    )
    assert {"k_half", "kv", "keys"} <= found.provides
    assert not {"width", "attend", "dim", "enabled", "rows", "cast_like"} & found.provides
    assert found.converts == {"cast_like"}
    assert found.plans == {"plan_decode"}


def test_hands_learns_a_pool_class_accessor_by_its_allocation():
    found = _hands(
        """
        import torch


        class PagedCache:
            def __init__(self, layers, shape):
                self.k = [torch.empty(shape, dtype=torch.int8) for _ in range(layers)]
                self.scale = 1.0

            def layer(self, idx):
                return self.k[idx]

            def factor(self):
                return self.scale
        """
    )
    assert "layer" in found.provides
    assert "factor" not in found.provides
