"""Accessors learnt from the engine's own pools (castlint.analysis.pool_classes): from the
allocation, whatever the names; from an engine package that the checked file imports (the
checked tree's own, or installed on sys.path, never imported); cached results keyed by the
files that taught them."""

import os
import sys
from pathlib import Path

import pytest

from castlint.analysis import pool_classes
from castlint.config import Config
from castlint.engine import check_paths
from castlint.tables import load_tables
from conftest import FIXTURES

TABLES = load_tables()
LEARNED = FIXTURES / "learned"


def _lines(path: Path, config=None):
    config = config or Config()
    config.cache = False
    run = check_paths([str(path)], TABLES, config, jobs=1)
    assert not run.all_errors
    return sorted((f.start.line, f.code) for f in run.findings)


def _marked(path: Path):
    """Lines whose comment names the finding they must give (`# CL001`, `# CL004 ...`)."""
    out = []
    for number, line in enumerate(path.read_text().splitlines(), 1):
        comment = line.partition("#")[2].strip()
        if comment[:5] in ("CL001", "CL003", "CL004"):
            out.append((number, comment[:5]))
    return sorted(out)


@pytest.mark.parametrize(
    "name", ["pools_sglang.py", "pool_converts_lmdeploy.py", "slices_vllm.py", "allocated_dtype.py"]
)
def test_fixture_findings_are_the_marked_lines(name):
    path = LEARNED / name
    assert _lines(path) == _marked(path)


def test_what_is_learnt_from_the_allocation():
    learnt = pool_classes.learn_source((LEARNED / "pools_sglang.py").read_bytes(), TABLES)
    accessors = dict(learnt.accessors)
    assert accessors == {
        "keys_of": "tensor",
        "window_keys": "tensor",
        "nope_of": "tensor",
        "paged_of": "tensor",
        "pair_of": "tuple",
        "full_keys": "tensor",
        "extra_keys": "tensor",
        "swa_raw": "tensor",
    }
    # gathers, prefixes, per-layer scales and staging buffers teach nothing
    assert not {"rows_of", "live_of", "scale_of", "staged", "_local"} & set(accessors)
    assert {"keys_full", "keys_swa", "pairs"} <= learnt.buffers
    assert not {"scales", "staging"} & learnt.buffers


def test_converting_accessors_and_stacks():
    learnt = pool_classes.learn_source((LEARNED / "pool_converts_lmdeploy.py").read_bytes(), TABLES)
    assert set(learnt.names) == {"dequant_k", "widened", "stacked"}
    assert learnt.converting == {"dequant_k", "widened"}
    assert "stack" not in learnt.buffers  # a layer-stacked tensor is no container of the analysis


def test_the_allocation_dtype_of_what_an_accessor_returns():
    learnt = pool_classes.learn_source((LEARNED / "allocated_dtype.py").read_bytes(), TABLES)
    # as the class spells it, with the class body's constant read through; none where the
    # allocations have no dtype or one local to the allocating method, or the return reinterprets
    assert dict(learnt.dtypes) == {
        "ring_of": ("self.state_dtype", "torch.bfloat16"),
        "keys_of": ("self.dtype",),
        "fixed_of": ("torch.float16",),
    }
    assert "same_here" in learnt.names and "same_here" not in dict(learnt.dtypes)  # it converts


def test_container_and_tensor_method_names_are_never_learnt():
    source = (
        b"import torch\nclass P:\n    def __init__(self, n, size):\n"
        b"        self.k = [torch.zeros((size, 8)) for _ in range(n)]\n"
        b"    def get(self, i):\n        return self.k[i]\n"
        b"    def view(self, i):\n        return self.k[i]\n"
        b"    def layer_k(self, i):\n        return self.k[i]\n"
    )
    assert set(pool_classes.learn_source(source, TABLES).names) == {"layer_k"}


def test_a_pool_that_arrives_as_a_parameter_is_no_accessor_of_its_class():
    source = (
        b"class Helper:\n    def latent(self, pool, i):\n        return pool.get_key_buffer(i)\n"
        b"    def own(self, i):\n        return self.pool.get_key_buffer(i)\n"
    )
    assert set(pool_classes.learn_source(source, TABLES).names) == {"own"}


def _engine(root: Path, name: str = "sglang") -> Path:
    pool_dir = root / name / "srt" / "mem_cache"
    pool_dir.mkdir(parents=True)
    (root / name / "__init__.py").write_text("")
    (pool_dir / "pool.py").write_text(
        "import torch\n\n\nclass SlidingPool:\n"
        "    def __init__(self, size, layers):\n"
        "        self.window = [torch.zeros((size + 1, 8, 64)) for _ in range(layers)]\n\n"
        "    def window_cache(self, layer_id):\n        return self.window[layer_id]\n"
    )
    return pool_dir / "pool.py"


BACKEND = (
    "from sglang.srt.layers.attention.base import AttentionBackend\n\n\n"
    "class B(AttentionBackend):\n"
    "    def forward_decode(self, q, layer, forward_batch):\n"
    "        pool = forward_batch.token_to_kv_pool\n"
    "        return pool.window_cache(layer.layer_id).to(q.dtype)\n"
)


def test_installed_engine_teaches_a_file_that_imports_it(tmp_path, monkeypatch):
    monkeypatch.setenv("CASTLINT_LEARN_CACHE", str(tmp_path / "learned"))
    site = tmp_path / "site"
    _engine(site)
    user = tmp_path / "plugin" / "backend.py"
    user.parent.mkdir()
    user.write_text(BACKEND)
    assert _lines(user) == []  # not on sys.path: nothing to learn from
    monkeypatch.setattr(sys, "path", [str(site)] + sys.path)
    pool_classes._FRESH.clear()
    assert _lines(user) == [(7, "CL001")]
    assert os.listdir(tmp_path / "learned")  # the learnt table is cached on disk
    # a file that imports no engine learns nothing from it
    other = tmp_path / "plugin" / "other.py"
    other.write_text(BACKEND.replace("from sglang.srt.layers.attention.base import", "from mylib import"))
    assert _lines(other) == []


def test_checked_tree_is_the_engine_and_the_cache_follows_the_teacher(tmp_path, monkeypatch):
    monkeypatch.setenv("CASTLINT_LEARN_CACHE", str(tmp_path / "learned"))
    pool = _engine(tmp_path / "tree")
    backend = tmp_path / "tree" / "sglang" / "srt" / "backend.py"
    backend.write_text(BACKEND)
    config = Config()
    config.root = tmp_path / "tree"
    files = [str(backend), str(pool)]
    pool_classes._FRESH.clear()
    run = check_paths(files, TABLES, config, jobs=1)
    assert [(Path(f.path).name, f.start.line) for f in run.findings] == [("backend.py", 7)]
    result = next(r for r in run.results if r.path == str(backend))
    assert result.links == [str(pool)]
    again = check_paths(files, TABLES, config, jobs=1)
    assert again.stats["cached"] == 2 and len(again.findings) == 1
    # the pool renames its accessor: the backend's cached result is dropped and recomputed
    pool.write_text(pool.read_text().replace("window_cache", "window_of"))
    pool_classes._FRESH.clear()
    third = check_paths(files, TABLES, config, jobs=1)
    assert third.stats["cached"] == 0 and third.findings == []


def test_an_engine_teaches_the_dtype_its_pool_allocates(tmp_path, monkeypatch):
    """sglang 0.5.23's qsa_indexer: `.to(pool.index_state_dtype)` of a ring the engine's pool
    allocates in `index_state_dtype` converts nothing; another dtype does."""
    monkeypatch.setenv("CASTLINT_LEARN_CACHE", str(tmp_path / "learned"))
    pool_dir = tmp_path / "tree" / "sglang" / "srt" / "mem_cache"
    pool_dir.mkdir(parents=True)
    (tmp_path / "tree" / "sglang" / "__init__.py").write_text("")
    (pool_dir / "qsa_pool.py").write_text(
        "import torch\n\n\nclass QSAPool:\n    index_state_dtype = torch.bfloat16\n\n"
        "    def __init__(self, slots, layers):\n        self.ring = []\n"
        "        self.ring = [torch.zeros((slots, 8, 64), dtype=self.index_state_dtype) for _ in layers]\n\n"
        "    def key_state(self, layer_id):\n        return self.ring[self._local(layer_id)]\n"
    )
    backend = tmp_path / "tree" / "sglang" / "srt" / "indexer.py"
    backend.write_text(
        "import torch\nfrom sglang.srt.mem_cache.qsa_pool import QSAPool\n\n\nclass Indexer:\n"
        "    def store(self, pool, q):\n"
        "        keys = pool.key_state(self.layer_id)\n"
        "        a = keys.reshape(keys.shape[0], -1).contiguous().to(pool.index_state_dtype)\n"
        "        b = keys.to(torch.bfloat16)\n"
        "        c = keys.to(q.dtype)\n"
        "        d = keys.to(torch.float8_e4m3fn)\n"
        "        return a, b, c, d\n"
    )
    config = Config()
    config.root = tmp_path / "tree"
    pool_classes._FRESH.clear()
    for prune in (True, False):
        run = check_paths([str(backend)], TABLES, config, jobs=1, prune=prune, cache=False)
        assert sorted(f.start.line for f in run.findings) == [10, 11], prune
