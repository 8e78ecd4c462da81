"""The rows read of dequantizing pools (issue 24, FP4 getters).

- Equivalence: the fixture pool module and backend, original and fixed (with the module
  the fix adds), run side by side on CPU torch with real FP4-style packed data: the
  outputs are bit-equal, and the fixed run dequantizes only the rows the kernel reads.
  A pool class that overrides an accessor without its rows getter, a pool that stores
  plain BF16, an index tensor that holds most of the pool, a fixed-length (CUDA-graph
  style) index buffer and the switch each take the path they should, with equal output.
- sglang 0.5.23: memory_pool.py gets its rows getters and triton_backend.py its rows
  reads; both compile, Black/Ruff report nothing new, a second fix is a no-op.
"""

import importlib.util
import os
import sys
import types

import pytest

from castlint.fixes import fix_source
from castlint.tables import load_tables
from conftest import FIXTURES, apply_unified_diff, corpus_fix_diff, sglang_tree

torch = pytest.importorskip("torch")

TABLES = load_tables()
POOL = FIXTURES / "fix" / "fp4_pool.in.py"
BACKEND = FIXTURES / "fix" / "row_kernel_backend.in.py"


def _load(name: str, source: bytes) -> types.ModuleType:
    spec = importlib.util.spec_from_loader(name, loader=None)
    module = importlib.util.module_from_spec(spec)
    exec(compile(source, name, "exec"), module.__dict__)
    sys.modules[name] = module
    return module


def _modules(fixed: bool, monkeypatch, switch: str = None):
    if switch is not None:
        monkeypatch.setenv(TABLES.rows_read_module["switch"], switch)
    pool_src, backend_src = POOL.read_bytes(), BACKEND.read_bytes()
    if fixed:
        pool_src = fix_source(pool_src, str(POOL), TABLES).new_source
        backend_fix = fix_source(backend_src, str(BACKEND), TABLES)
        backend_src = backend_fix.new_source
        (companion,) = backend_fix.companions.values()
        _load("kv_rows_read", companion)
    return _load("fp4_pool", pool_src), _load("row_backend", backend_src)


def _counting(pools):
    """Record how many rows each dequantize call converts."""
    seen = []
    original = pools.Fp4Util.batched_dequantize

    def counted(packed, scales, dtype=torch.bfloat16):
        seen.append(packed.shape[0])
        return original(packed, scales, dtype)

    pools.Fp4Util.batched_dequantize = staticmethod(counted)
    return seen


def _pool(pools, cls_name="Fp4KVPool", size=64):
    gen = torch.Generator().manual_seed(0)
    pool = getattr(pools, cls_name)(size, 2, 8, 2)
    for buffers in (pool.k_buffer, pool.v_buffer):
        for b in buffers:
            b.copy_(torch.randint(0, 255, b.shape, generator=gen, dtype=torch.uint8))
    for scales in (pool.k_scale_buffer, pool.v_scale_buffer):
        for s in scales:
            s.copy_(torch.randint(124, 130, s.shape, generator=gen, dtype=torch.uint8))
    return pool


class Layer:
    layer_id = 1
    scaling = 0.3


def _run(
    fixed,
    monkeypatch,
    cls_name="Fp4KVPool",
    indices=(3, 9, 9, 17, 40, 2, 5, 60, 61, 33, 3, 12),
    indptr=(0, 5, 12),
    switch=None,
    extend=False,
    pad=0,
):
    pools, backends = _modules(fixed, monkeypatch, switch)
    seen = _counting(pools)
    pool = _pool(pools, cls_name)
    backend = backends.RowBackend(pool)
    rows = torch.tensor(list(indices) + [0] * pad, dtype=torch.int64)  # pad: a fixed-length buffer
    q = torch.randn(2, 2, 8, generator=torch.Generator().manual_seed(1)).to(torch.bfloat16)
    if extend:
        backend.forward_metadata = backends.Metadata(torch.tensor(indptr), rows, torch.tensor([0, 1, 2]))
        k = torch.randn(2, 2, 8, generator=torch.Generator().manual_seed(2)).to(torch.bfloat16)
        out = backend.forward_extend(q, k, k, Layer())
    else:
        backend.forward_metadata = backends.Metadata(torch.tensor(indptr), rows)
        out = backend.forward_decode(q, Layer())
    return out, seen, pool.layer_transfer_counter.waited


@pytest.mark.parametrize("extend", [False, True], ids=["decode", "extend"])
def test_fixed_backend_reads_the_same_and_dequantizes_only_its_rows(monkeypatch, extend):
    before, seen_before, _ = _run(False, monkeypatch, extend=extend)
    after, seen_after, waited = _run(True, monkeypatch, extend=extend)
    assert torch.equal(before, after)
    assert seen_before == [65, 65]  # K and V: every row of the layer
    assert seen_after == [12, 12]  # only the rows kv_indices lists
    assert waited and set(waited) == {1}  # the layer-transfer wait still runs


def test_fixed_length_index_buffer_like_cuda_graphs(monkeypatch):
    before, _, _ = _run(False, monkeypatch, pad=20)
    after, seen, _ = _run(True, monkeypatch, pad=20)
    assert torch.equal(before, after)
    assert seen == [32, 32]  # the buffer's fixed length, not the pool


@pytest.mark.parametrize(
    "cls_name, expected",
    [
        ("Fp4KVPoolPlainKeys", [65]),  # overrides _get_key_buffer without a rows getter: V is read whole
        ("KVPool", []),  # stores what it reads: nothing is dequantized either way
    ],
)
def test_pools_without_a_valid_rows_getter_read_whole(monkeypatch, cls_name, expected):
    if cls_name == "KVPool":
        pools, backends = _modules(True, monkeypatch)
        pool = pools.KVPool(64, 2, 8, 2, torch.bfloat16, torch.bfloat16)
        for b in (*pool.k_buffer, *pool.v_buffer):
            b.copy_(torch.randn(b.shape, generator=torch.Generator().manual_seed(3)).to(torch.bfloat16))
        backend = backends.RowBackend(pool)
        rows = torch.tensor([1, 5, 7, 2])
        backend.forward_metadata = backends.Metadata(torch.tensor([0, 2, 4]), rows)
        q = torch.randn(2, 2, 8).to(torch.bfloat16)
        out = backend.forward_decode(q, Layer())
        _, originals = _modules(False, monkeypatch)
        reference = originals.RowBackend(pool)
        reference.forward_metadata = originals.Metadata(torch.tensor([0, 2, 4]), rows)
        assert torch.equal(out, reference.forward_decode(q, Layer()))
        return
    before, _, _ = _run(False, monkeypatch, cls_name=cls_name)
    after, seen, _ = _run(True, monkeypatch, cls_name=cls_name)
    assert torch.equal(before, after)
    assert seen == expected


def test_an_index_tensor_over_the_share_reads_whole(monkeypatch):
    many = tuple(range(60))  # 60 of 64 rows: over rules/costs_h200.toml [rows_kv_read] whole_pool_share
    before, _, _ = _run(False, monkeypatch, indices=many, indptr=(0, 30, 60))
    after, seen, _ = _run(True, monkeypatch, indices=many, indptr=(0, 30, 60))
    assert torch.equal(before, after)
    assert seen == [65, 65]


@pytest.mark.parametrize("switch, expected", [("off", [65, 65]), ("auto", [12, 12]), ("bogus", [12, 12])])
def test_the_switch(monkeypatch, switch, expected):
    before, _, _ = _run(False, monkeypatch)
    after, seen, _ = _run(True, monkeypatch, switch=switch)
    assert torch.equal(before, after)
    assert seen == expected


def _added_ranges(old: bytes, new: bytes):
    """The 1-based line ranges of new that are not in old (the lines the fix wrote)."""
    import difflib

    matcher = difflib.SequenceMatcher(None, old.splitlines(), new.splitlines(), autojunk=False)
    return [(j1 + 1, j2) for tag, _, _, j1, j2 in matcher.get_opcodes() if tag in ("insert", "replace")]


def test_released_sglang_pool_and_triton_backend(tmp_path):
    """Counts and formatting, on the whole-tree `castlint fix --diff` of the release
    (conftest.corpus_fix_diff, shared with tests/test_corpus.py, which checks that the fixed
    files compile and that a second fix is a no-op)."""
    import shutil
    import subprocess

    root = sglang_tree("0.5.23")
    fixed = apply_unified_diff(corpus_fix_diff("sglang==0.5.23").stdout, root.parent)
    results = {}
    for rel in ("srt/mem_cache/memory_pool.py", "srt/layers/attention/triton_backend.py"):
        old = (root / rel).read_bytes()
        new = fixed[f"{root.name}/{rel}"].encode("utf-8")
        assert new != old, rel
        results[rel] = (old, new)
    assert results["srt/mem_cache/memory_pool.py"][1].count(b"_rows(self, layer_id: int, rows: torch.Tensor)") == 7
    assert results["srt/layers/attention/triton_backend.py"][1].count(b"= read_kv_rows(") == 3
    added = [rel for rel in fixed if not (root.parent / rel).exists()]
    (companion,) = [rel for rel in added if rel.endswith("kv_rows_read.py")]
    assert companion == f"{root.name}/srt/mem_cache/kv_rows_read.py"
    # formatted as sglang formats (Black at 88): every line the fix wrote, and the added module
    black = shutil.which("black") or os.path.join(os.path.dirname(sys.executable), "black")  # castlint[dev]
    for rel, (old, new) in results.items():
        target = tmp_path / os.path.basename(rel)
        target.write_bytes(new)
        ranges = [f"--line-ranges={a}-{b}" for a, b in _added_ranges(old, new)]
        check = subprocess.run([black, "-q", "-l", "88", "--check", *ranges, str(target)], check=False)
        assert check.returncode == 0, rel
        assert all(
            len(line) <= 88 for a, b in _added_ranges(old, new) for line in new.decode().splitlines()[a - 1 : b]
        ), rel
    module = tmp_path / "kv_rows_read.py"
    module.write_text(fixed[companion], encoding="utf-8")
    assert subprocess.run([black, "-q", "-l", "88", "--check", str(module)], check=False).returncode == 0
