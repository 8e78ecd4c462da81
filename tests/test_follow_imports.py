"""follow-imports: a file's analysis links the definitions of the tree it imports
(castlint.analysis.tree_index), so a pool that arrives through a base class or a helper
of another module is followed; findings stay in the file that holds the cast."""

import shutil
from pathlib import Path

from castlint.analysis import tree_index
from castlint.cache import cacheable
from castlint.config import Config
from castlint.engine import check_paths
from castlint.tables import load_tables
from conftest import FIXTURES

TABLES = load_tables()
PACKAGE = FIXTURES / "packages" / "xmod"


def _findings(root: Path, follow: bool):
    config = Config()
    config.follow_imports = follow
    config.cache = False
    files = sorted(str(p) for p in root.rglob("*.py"))
    run = check_paths(files, TABLES, config, jobs=1)
    found = {(Path(r.path).name, f.code, f.start.line) for r in run.results for f in r.findings}
    return found, {Path(r.path).name: r for r in run.results}


def test_off_by_default_each_file_alone():
    assert Config().follow_imports == "callers"
    found, _ = _findings(PACKAGE, follow=False)
    assert found == {("common.py", "CL001", 12)}


def test_base_class_and_helper_of_another_module():
    found, results = _findings(PACKAGE, follow=True)
    assert found == {
        ("common.py", "CL001", 12),  # reported once, in its own module
        ("flash.py", "CL001", 10),  # self._latent(...) of a base class defined in common.py
        ("flash.py", "CL001", 16),  # as_pages(...) of it, under the alias `Base`
    }  # as_pages(x) of a batch tensor and gathered(...) (a gather first) stay clean
    flash = results["flash.py"]
    assert [Path(p).name for p in flash.links] == ["common.py"]
    assert cacheable(flash)  # kept with common.py's signature and digest (Cache.store)


def test_linked_text_resolves_relative_absolute_and_aliases(tmp_path):
    root = tmp_path / "pkg"
    shutil.copytree(PACKAGE, root)
    flash = root / "eng" / "layers" / "flash.py"
    linked = tree_index.link(str(flash), flash.read_bytes(), TABLES)
    assert "class MLACommonImpl:" in linked.text and "class Base:" in linked.text
    assert "def as_pages(" in linked.text and "def gathered(" in linked.text
    assert linked.paths == (str(root / "eng" / "layers" / "common.py"),)


def test_nothing_linked_when_the_import_names_no_pool(tmp_path):
    (tmp_path / "util.py").write_text("def scale(x):\n    return x * 2\n\n\nclass Config:\n    size = 4\n")
    user = tmp_path / "user.py"
    user.write_text("from util import Config, scale\n\n\ndef f(x):\n    return scale(x).float(), Config.size\n")
    assert not tree_index.link(str(user), user.read_bytes(), TABLES)


def test_module_outside_a_package_links_its_siblings(tmp_path):
    (tmp_path / "pools.py").write_text(
        "class Reader:\n    def __init__(self, pool):\n        self.pool = pool\n\n"
        "    def keys(self, i):\n        return self.pool.get_key_buffer(i)\n"
    )
    user = tmp_path / "backend.py"
    user.write_text(
        "from pools import Reader\n\n\nclass B:\n    def forward(self, q, layer, pool):\n"
        "        return Reader(pool).keys(layer.layer_id).to(q.dtype)\n"
    )
    found, _ = _findings(tmp_path, follow=True)
    assert ("backend.py", "CL001", 6) in found
    found_off, _ = _findings(tmp_path, follow=False)
    assert ("backend.py", "CL001", 6) not in found_off


SHAPES = FIXTURES / "packages" / "shapes"


def _marked(root: Path, word: str):
    """(file name, line) of each `# positive:` or `# negative:` comment under root."""
    out = set()
    for path in sorted(root.rglob("*.py")):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if f"# {word}:" in line:
                out.add((path.name, number))
    return out


def test_import_forms_module_attributes_reexports_namespaces_chains():
    # vLLM style: `from . import mod` then mod.f(...)/mod.Class as a base (a chain of two bases
    # in another module), `import pkg.mod as m`, a helper re-exported by a package __init__;
    # sglang style: a namespace folder (no __init__.py under sgl/), a property and a dataclass
    # record of another module; lmdeploy style: mod.Class(...) constructed through its module
    for shape in ("vllm_style", "sgl_ns", "lmd_style"):
        root = SHAPES / shape
        found, _ = _findings(root, follow=True)
        lines = {(name, line) for name, code, line in found if code == "CL001"}
        assert lines == _marked(root, "positive"), shape  # and no look-alike
        off, _ = _findings(root, follow=False)
        assert not off, shape  # each file alone sees none of them


def test_messages_spell_module_attributes_as_the_file_does():
    config = Config()
    config.follow_imports = True
    config.cache = False
    run = check_paths([str(SHAPES / "vllm_style" / "attention" / "backends" / "flashmla.py")], TABLES, config, jobs=1)
    messages = " ".join(f.message for f in run.findings)
    assert "`mla_common.whole_cache(runner, layer_idx)`" in messages
    assert "mla_common_whole_cache" not in messages


def test_namespace_package_of_a_module():
    root, package = tree_index._package_of(str(SHAPES / "sgl_ns" / "sgl" / "srt" / "layers" / "attention" / "x.py"))
    assert (Path(root), package) == (SHAPES / "sgl_ns", "sgl.srt.layers.attention")


def test_only_what_hands_a_pool_is_linked(tmp_path):
    (tmp_path / "big.py").write_text(
        "class Runner:\n    def __init__(self, kv_cache_dtype):\n        self.kv_cache_dtype = kv_cache_dtype\n\n"
        "    def dtype(self):\n        return self.kv_cache_dtype\n" + "    x = 1\n" * 700
    )
    user = tmp_path / "user.py"
    user.write_text("from big import Runner\n\n\ndef f(x, r: Runner):\n    return x.to(r.dtype())\n")
    assert not tree_index.link(str(user), user.read_bytes(), TABLES).text  # a large class, used as a type


REACH = FIXTURES / "packages" / "reach"


def test_a_file_that_converts_nothing_reaches_a_sibling_helper_and_a_pool_class():
    # backend.py names the pool and converts nothing (no trigger group matches it): the
    # conversion is the imported helper's; reader.py calls an accessor learnt from a pool
    # class of another module whose text names no pool word
    found, results = _findings(REACH, follow=True)
    assert found == {("backend.py", "CL001", 10), ("reader.py", "CL001", 10)}
    assert {Path(p).name for p in results["backend.py"].links} == {"helpers.py"}
    assert {Path(p).name for p in results["reader.py"].links} == {"arena.py"}
    off, _ = _findings(REACH, follow=False)
    assert off == set()


PLANLINK = FIXTURES / "packages" / "planlink" / "engine"


def _linked_names(path: Path) -> set:
    import re

    from castlint.engine import own_pool_possible

    source = path.read_bytes()
    linked = tree_index.link(str(path), source, TABLES, own_pool_possible(source, TABLES))  # as the engine links
    return set(re.findall(r"^(?:class|def) (\w+)", linked.text, re.M))


def test_plan_helpers_of_other_modules_are_linked_for_cl002():
    # a mixin that plans, a module function that plans, and the dtype pair a plan is given
    names = _linked_names(PLANLINK / "backend.py")
    assert {"DecodePlanning", "mla_plan_once", "compute_dtype_pair"} <= names
    # what plans nothing and gives no dtype stays out: a counter, a class without a plan
    assert not names & {"page_count", "Unrelated"}


def test_dtype_helper_is_not_linked_into_a_file_that_plans_nothing():
    assert not _linked_names(PLANLINK / "sizes.py")


def test_pass_through_helper_linked_only_where_the_file_can_hold_a_pool(tmp_path):
    (tmp_path / "pages.py").write_text(
        "def as_blocks(t, n):\n    return t.view(-1, n, t.shape[-1])\n\n\n"
        "def keys_of(pool, i):\n    return pool.get_key_buffer(i)\n"
    )
    # names `kv_cache` only inside another attribute: no pool of its own, nothing passed through
    (tmp_path / "mlp.py").write_text(
        "from pages import as_blocks\n\n\nclass MLP:\n    def forward(self, hidden):\n"
        "        return as_blocks(hidden, 4).to(self.kv_cache_dtype)\n"
    )
    # a whole cache by vLLM's calling convention, viewed by the helper, then cast
    (tmp_path / "attn.py").write_text(
        "from pages import as_blocks\n\n\nclass Impl:\n"
        "    def forward(self, layer, query, key, value, kv_cache, attn_metadata):\n"
        "        return as_blocks(kv_cache, 16).to(query.dtype)\n"
    )
    assert _linked_names(tmp_path / "mlp.py") == set()
    assert _linked_names(tmp_path / "attn.py") == {"as_blocks"}
    found, _ = _findings(tmp_path, follow=True)
    assert ("attn.py", "CL001", 6) in found and not any(f[0] == "mlp.py" for f in found)


def test_a_pruned_linked_module_gives_the_whole_findings(tmp_path):
    # the pruner shortens the file's own part (a method with no candidate becomes a stub), so
    # the linked helper stands at an earlier line of the pruned copy than of the linked module
    pkg = tmp_path / "srvpkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from .cache_ops import full_layer\n")
    (pkg / "cache_ops.py").write_text("def full_layer(store, lyr):\n    return store.get_value_buffer(lyr.layer_id)\n")
    filler = "".join(f"        step_{i} = batch.seq_lens + {i}\n" for i in range(40))
    (pkg / "attn.py").write_text(
        "from .cache_ops import full_layer\n\n\nclass Attn:\n"
        "    def forward_decode(self, q, lyr, batch):\n"
        "        store = batch.token_to_kv_pool\n"
        "        return full_layer(store, lyr).to(q.dtype)\n\n"
        "    def warmup(self, batch):\n" + filler + "        return batch\n"
    )
    config = Config()
    config.follow_imports = True
    config.cache = False
    files = sorted(str(p) for p in pkg.rglob("*.py"))
    pruned = check_paths(files, TABLES, config, jobs=1, prune=True)
    whole = check_paths(files, TABLES, config, jobs=1, prune=False)
    key = lambda f: (Path(f.path).name, f.start.line, f.start.column, f.code, f.message)  # noqa: E731
    attn = next(r for r in pruned.results if r.path.endswith("attn.py"))
    assert attn.mode == "pruned" and attn.links
    assert [key(f) for f in pruned.findings] == [key(f) for f in whole.findings]
    assert ("attn.py", 7, 16, "CL001") in {k[:4] for k in map(key, pruned.findings)}
