"""follow-imports = "uses", issue 19's sixth round (family f7, cross-module): star imports with
`__all__`, lazy PEP 562 `__getattr__` re-exports, a learnt accessor that returns a (k, v) pair
used in another module, and the text-level gate (castlint.analysis.link_gate) that skips, with
no parse, a file whose imported names cannot act on it. Packages in sglang, vLLM, lmdeploy and
TensorRT-LLM styles, positives and negatives beside each other; pruned findings equal whole."""

import textwrap
from pathlib import Path

import pytest

from castlint.analysis import link_gate, tree_index
from castlint.config import Config
from castlint.engine import check_paths
from castlint.tables import load_tables

TABLES = load_tables()


@pytest.fixture(autouse=True)
def _own_tree_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("CASTLINT_TREE_CACHE", str(tmp_path / "tree-cache"))
    tree_index._MODULES.clear()
    tree_index._LINKS.clear()
    link_gate._TEXTS.clear()
    yield
    tree_index._MODULES.clear()
    tree_index._LINKS.clear()
    link_gate._TEXTS.clear()


def _write(root: Path, files: dict) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip())


def _findings(root: Path, follow="uses", prune=True):
    config = Config()
    config.follow_imports = follow
    config.cache = False
    files = sorted(str(p) for p in root.rglob("*.py") if "tree-cache" not in str(p))
    run = check_paths(files, TABLES, config, jobs=1, prune=prune)
    assert not [e for r in run.results for e in r.errors]
    return {(str(Path(r.path).relative_to(root)), f.code, f.start.line) for r in run.results for f in r.findings}


def _marked(root: Path) -> set:
    out = set()
    for path in root.rglob("*.py"):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if "# positive" in line:
                out.add((str(path.relative_to(root)), number))
    return out


def _check(root: Path) -> None:
    found = _findings(root)
    assert {(name, line) for name, _, line in found} == _marked(root)
    assert _findings(root, prune=False) == found  # pruned == whole


# vLLM style: views re-exported with `from .views import *`; __all__ decides what goes through
STAR_ALL = {
    "vstar/__init__.py": """
        from .views import *  # noqa: F403
        """,
    "vstar/views.py": """
        __all__ = ["key_plane", "value_plane"]


        def key_plane(kv_cache):
            return kv_cache[0]


        def value_plane(kv_cache):
            return kv_cache[1]
        """,
    "vstar/impl.py": """
        from . import key_plane, value_plane


        class StarImpl:
            def forward(self, layer, query, key, value, kv_cache, attn_metadata):
                k = key_plane(kv_cache).to(query.dtype)  # positive
                v = value_plane(kv_cache)[attn_metadata.slot_mapping].to(query.dtype)
                return k, v
        """,
}


# sglang style: a package __init__ exporting the pool class lazily (PEP 562)
LAZY = {
    "slazy/__init__.py": """
        import importlib

        __all__ = ["TokenLatentPool"]
        _EXPORTS = {"TokenLatentPool": "slazy.mem.latent_pool"}


        def __getattr__(name):
            if name in _EXPORTS:
                return getattr(importlib.import_module(_EXPORTS[name]), name)
            raise AttributeError(name)
        """,
    "slazy/mem/__init__.py": "",
    "slazy/mem/latent_pool.py": """
        import torch


        class TokenLatentPool:
            def __init__(self, size, dim, layers):
                self.buf = [torch.zeros(size + 1, 1, dim, dtype=torch.float8_e4m3fn) for _ in range(layers)]

            def latent_rows(self, layer_id):
                return self.buf[layer_id]
        """,
    "slazy/backend.py": """
        import slazy as s


        class LazyBackend:
            def __init__(self, size, dim, layers):
                self.pool = s.TokenLatentPool(size, dim, layers)

            def forward_decode(self, q, k, v, layer, forward_batch):
                whole = self.pool.latent_rows(layer.layer_id).to(q.dtype)  # positive
                rows = self.pool.latent_rows(layer.layer_id)[forward_batch.out_cache_loc].to(q.dtype)
                return whole, rows
        """,
}


# TensorRT-LLM style: a pool whose accessor returns a (k, v) pair, typed under TYPE_CHECKING
PAIR = {
    "tpair/__init__.py": "",
    "tpair/pool.py": """
        import torch


        class PairedKVPool:
            def __init__(self, layers, size, heads, dim):
                self.k = torch.zeros(layers, size, heads, dim, dtype=torch.float8_e4m3fn)
                self.v = torch.zeros(layers, size, heads, dim, dtype=torch.float8_e4m3fn)

            def planes(self, layer_id):
                return self.k[layer_id], self.v[layer_id]
        """,
    "tpair/attention.py": """
        from __future__ import annotations

        from typing import TYPE_CHECKING

        if TYPE_CHECKING:
            from .pool import PairedKVPool


        class PairAttention:
            def __init__(self, pool: PairedKVPool):
                self.pool = pool

            def forward(self, q, layer_idx, slots):
                k, v = self.pool.planes(layer_idx)
                kq = k.to(q.dtype)  # positive
                vq = self.pool.planes(layer_idx)[1].half()  # positive
                rows = k[slots].to(q.dtype)
                return kq, vq, rows
        """,
}


# lmdeploy style negative: a lazy export and a star import of helpers that touch no pool
QUIET = {
    "lquiet/__init__.py": """
        import importlib

        _EXPORTS = {"scale_rows": ".mathutil"}


        def __getattr__(name):
            return getattr(importlib.import_module(_EXPORTS[name], __name__), name)
        """,
    "lquiet/mathutil.py": """
        def scale_rows(x, s):
            return x * s
        """,
    "lquiet/star.py": """
        from .mathutil import *  # noqa: F403
        """,
    "lquiet/layer.py": """
        import lquiet
        from .star import scale_rows


        class QuietLayer:
            def forward(self, hidden_states, weight):
                h = lquiet.scale_rows(hidden_states, 2).to(weight.dtype)
                return scale_rows(h, 0.5).float()
        """,
}


@pytest.mark.parametrize("files", [STAR_ALL, LAZY, PAIR, QUIET], ids=["star-all", "lazy", "pair", "quiet"])
def test_shapes(tmp_path, files):
    _write(tmp_path, files)
    _check(tmp_path)


def test_star_import_respects_all(tmp_path):
    """A name that the star-imported module's __all__ leaves out is not reached through the star."""
    files = dict(STAR_ALL)
    files["vstar/views.py"] = files["vstar/views.py"].replace('"value_plane"]', "]")
    _write(tmp_path, files)
    own = tree_index.module_index(str(tmp_path / "vstar/__init__.py"), TABLES)
    resolver = tree_index._Resolver(str(tmp_path / "vstar/impl.py"), TABLES)
    assert resolver.resolve(own, "key_plane") is not None
    assert resolver.resolve(own, "value_plane") is None


def test_lazy_absolute_is_default_off(tmp_path):
    """With follow-imports off (the default), the lazy export is not followed."""
    _write(tmp_path, LAZY)
    assert _findings(tmp_path, follow=False) == set()


def test_gate_skips_a_file_whose_imports_cannot_act(tmp_path):
    """The text gate: a file that converts and imports from a module naming a pool, but only a
    name whose definition names none (a config reader), is skipped with no parse."""
    _write(
        tmp_path,
        {
            "gate/__init__.py": "",
            "gate/memory.py": """
                import torch


                def read_kv_cache_dtype(cfg):
                    return cfg.dtype


                class KVHolder:
                    def __init__(self, kv_cache):
                        self.kv_cache = kv_cache

                    def layer(self, i):
                        return self.kv_cache[i]
                """,
            "gate/runner.py": """
                from .memory import read_kv_cache_dtype


                def widen(x, cfg):
                    return x.to(read_kv_cache_dtype(cfg))
                """,
        },
    )
    path = tmp_path / "gate/runner.py"
    source = path.read_bytes()
    resolver = tree_index._Resolver(str(path), TABLES)
    assert not link_gate.may_act(str(path), source, TABLES, resolver, converts=True)
    other = source.replace(b"read_kv_cache_dtype", b"KVHolder")
    assert link_gate.may_act(str(path), other, TABLES, resolver, converts=True)
