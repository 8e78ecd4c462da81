"""The paged-read fix (issue 24): FA3/FA4, xpu and musa MLA paths read only the pages listed.

- Fake-torch equivalence: the fixture backend, original and fixed (with the module the fix
  adds), run side by side on the fake torch with paged kernels that record exactly which
  rows and values they read; they must read the same, and the fixed one must have taken
  the compact read. Under CUDA-graph capture (the fake has no Triton) the fixed backend
  keeps the cast and still behaves the same.
- The template on real (CPU) torch: deduplicated pages, the remapped table, the share
  rule and every value of the switch.
- sglang 0.5.23: the six sites are fixed, the result compiles, a second fix is a no-op.
"""

import importlib.util
import math
import os
import shutil

import pytest

from castlint.fixes import fix_source
from castlint.fixes.kv_read_module import module_source
from castlint.tables import load_tables
from conftest import FIXTURES, run_castlint, sglang_tree
from faketorch.paged import drive

TABLES = load_tables()
SOURCE = (FIXTURES / "fix" / "paged_backend.in.py").read_bytes()


def _fixed():
    fix = fix_source(SOURCE, str(FIXTURES / "fix" / "paged_backend.in.py"), TABLES)
    companions = {os.path.basename(path)[: -len(".py")]: text for path, text in fix.companions.items()}
    return fix.new_source, companions


@pytest.mark.parametrize("page_size", [1, 4])
def test_fixed_backend_reads_what_the_original_reads(page_size):
    new, companion = _fixed()
    before, original_tables = drive(SOURCE, None, page_size)
    after, fixed_tables = drive(new, companion, page_size)
    assert after == before
    assert not any(isinstance(outcome, str) for _, _, outcome in before), before  # every forward ran
    # calls in name order: decode, decode_ellipsis, decode_split, extend (twice: the second with
    # its cascade call), mla_decode. The original reads through the backend's table; the fix
    # through the remapped one, except the cascade call (its own table) and the extend beside
    # it (fallback=use_cascade_attn)
    assert original_tables == [True, True, True, True, True, False, True]
    assert fixed_tables == [False, False, False, False, True, False, False]


def test_under_graph_capture_without_triton_the_cast_is_kept_and_behaviour_is_the_same():
    new, companion = _fixed()
    before, _ = drive(SOURCE, None, 2, capturing=True)
    after, fixed_tables = drive(new, companion, 2, capturing=True)
    assert after == before
    assert fixed_tables == [True, True, True, True, True, False, True]


def test_switch_off_keeps_the_original_path(monkeypatch):
    new, companion = _fixed()
    monkeypatch.setenv(TABLES.kv_read_switch["variable"], "off")
    after, fixed_tables = drive(new, companion, 2)
    before, _ = drive(SOURCE, None, 2)
    assert after == before and fixed_tables == [True, True, True, True, True, False, True]


# -- the template on CPU torch ---------------------------------------------------------------


def _template(monkeypatch, mode=None):
    torch = pytest.importorskip("torch")
    if mode is not None:
        monkeypatch.setenv(TABLES.kv_read_switch["variable"], mode)
    spec = importlib.util.spec_from_loader("kv_page_read_cpu", loader=None)
    module = importlib.util.module_from_spec(spec)
    exec(compile(module_source(TABLES), "kv_page_read.py", "exec"), module.__dict__)
    return torch, module


def _pool(torch, pages, page_size, dim=16):
    g = torch.Generator().manual_seed(pages * 31 + page_size)
    return (torch.randn(pages * page_size, 1, dim, generator=g) * 2).to(torch.float8_e4m3fn)


def _reads(torch, cache, table, seqlens, page_size):
    out = []
    for b, n in enumerate(seqlens.tolist()):
        pages = table[b, : math.ceil(n / page_size)].long()
        rows = (pages[:, None] * page_size + torch.arange(page_size)).reshape(-1)[:n]
        out.append(cache[rows])
    return out


@pytest.mark.parametrize("page_size", [1, 16, 64])
def test_template_converts_each_listed_page_once_and_remaps(monkeypatch, page_size):
    torch, kvp = _template(monkeypatch)
    pool = _pool(torch, 40, page_size)
    table = torch.tensor([[3, 17, 8, 0], [3, 17, 22, 5], [9, 0, 0, 0]], dtype=torch.int32)
    seqlens = torch.tensor([3 * page_size, 4 * page_size - 1, 1], dtype=torch.int32)
    cache, remapped = kvp.read_kv_pages(pool, torch.bfloat16, table, seqlens, page_size)
    assert remapped is not table and cache.dtype == torch.bfloat16
    full = pool.to(torch.bfloat16)
    for a, b in zip(_reads(torch, full, table, seqlens, page_size), _reads(torch, cache, remapped, seqlens, page_size)):
        assert torch.equal(a, b)
    # each page read is converted once, in page order, at the front of the shared buffer
    live = [(b, j) for b, n in enumerate(seqlens.tolist()) for j in range(math.ceil(n / page_size))]
    pages = sorted({int(table[b, j]) for b, j in live})
    assert len(pages) < len(live)  # the shared prefix pages are listed twice
    assert all(int(remapped[b, j]) == pages.index(int(table[b, j])) for b, j in live)


def test_template_converts_the_whole_pool_when_the_table_reaches_most_of_it(monkeypatch):
    torch, kvp = _template(monkeypatch)
    pool = _pool(torch, 10, 1)
    share = TABLES.paged_kv_read["whole_pool_share"]
    wide = torch.zeros(1, math.ceil(share * 10), dtype=torch.int32)
    cache, table = kvp.read_kv_pages(pool, torch.bfloat16, wide, torch.tensor([1], dtype=torch.int32), 1)
    assert table is wide and torch.equal(cache, pool.to(torch.bfloat16))


@pytest.mark.parametrize(
    "mode,compact", [("auto", True), ("compact", True), ("native", False), ("off", False), ("bogus", True)]
)
def test_template_switch(monkeypatch, mode, compact):
    torch, kvp = _template(monkeypatch, mode)
    pool = _pool(torch, 64, 1)
    table = torch.tensor([[4, 9]], dtype=torch.int32)
    _, remapped = kvp.read_kv_pages(pool, torch.bfloat16, table, torch.tensor([2], dtype=torch.int32), 1)
    assert (remapped is not table) == compact


def test_template_leaves_a_pool_in_the_query_dtype_and_fallback_alone(monkeypatch):
    torch, kvp = _template(monkeypatch)
    pool = _pool(torch, 8, 1).to(torch.bfloat16)
    table = torch.tensor([[1]], dtype=torch.int32)
    cache, same = kvp.read_kv_pages(pool, torch.bfloat16, table, torch.tensor([1], dtype=torch.int32), 1)
    assert cache is pool and same is table
    fp8 = _pool(torch, 8, 1)
    cache, same = kvp.read_kv_pages(fp8, torch.bfloat16, table, torch.tensor([1], dtype=torch.int32), 1, fallback=True)
    assert same is table and torch.equal(cache, fp8.to(torch.bfloat16))


# -- sglang 0.5.23 --------------------------------------------------------------------------

SITES = {
    "srt/layers/attention/flashattention_backend.py": 2,
    "srt/layers/attention/xpu_backend.py": 2,
    "srt/hardware_backend/musa/attention/flashattention_backend.py": 2,
}


@pytest.mark.network
def test_fix_0_5_23_paged_backends(tmp_path):
    src = sglang_tree("0.5.23")
    root = tmp_path / "sglang"
    for rel in [
        *SITES,
        "__init__.py",
        "srt/__init__.py",
        "srt/layers/__init__.py",
        "srt/layers/attention/__init__.py",
        "version.py",
    ]:
        if (src / rel).exists():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(src / rel, root / rel)
    files = [str(root / rel) for rel in SITES]
    before = {f: open(f).read() for f in files}
    proc = run_castlint("fix", "--no-cache", *files)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    helper = root / "srt/layers/attention/mla_kv_read.py"
    assert helper.is_file() and oct(helper.stat().st_mode & 0o777) == oct(os.stat(files[0]).st_mode & 0o777)
    compile(helper.read_text(), str(helper), "exec")
    for f, rel in zip(files, SITES):
        after = open(f).read()
        compile(after, f, "exec")
        assert after.count("= read_kv_pages(") == SITES[rel]
        assert "from sglang.srt.layers.attention.mla_kv_read import read_kv_pages" in after
        assert "get_key_buffer(layer.layer_id).to(" not in after
        added = [line for line in after.splitlines() if line not in before[f].splitlines()]
        assert len(added) <= 20 and max(len(line) for line in added) <= 88, added
        assert "castlint" not in after
    proc = run_castlint("fix", "--diff", "--no-cache", *files)
    assert proc.returncode == 0 and proc.stdout == "", proc.stdout


# -- validate ------------------------------------------------------------------------------

FA3 = "srt/layers/attention/flashattention_backend.py"


@pytest.mark.network
@pytest.mark.parametrize("version,rel", [("0.5.23", rel) for rel in SITES] + [("0.4.9", FA3), ("0.5.10", FA3)])
def test_validate_paged_backend_on_cpu(version, rel, tmp_path):
    """castlint validate runs the original and the in-memory fixed backend with the stand-in
    kernel: equal output, within tolerance of fp32, the compact read taken, the kernel named."""
    import json

    pytest.importorskip("torch")
    out = tmp_path / "v.json"
    proc = run_castlint(
        "validate",
        str(sglang_tree(version) / rel),
        "--device",
        "cpu",
        "--pool-tokens",
        "4096",
        "--batch-size",
        "2",
        "--context-len",
        "128",
        "--json-file",
        str(out),
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "attention kernel: stand-in: a torch paged MLA reference" in proc.stdout
    (cell,) = json.loads(out.read_text())["cells"]
    assert cell["status"] == "pass" and cell["equal"] and cell["compact"], cell
    assert cell["max_abs_fixed"] <= max(1e-2, cell["max_abs_original"])


def test_the_unsafe_fix_is_unsafe_for_a_reason():
    """paged_refused's condition_may_change is fixed only with --unsafe-fixes: `self.prepare()`
    may set `self.cascade` after the cast, and then the second kernel reads the compact buffer
    through its own (not remapped) table. Forced, the fix changes what that kernel reads."""
    import types as _types

    from castlint.fixes import FixOptions
    from faketorch.flashinfer import make_flashinfer
    from faketorch.harness import fake_imports
    from faketorch.module import make_torch
    from faketorch.paged import Kernels, _paged_view, _world

    source = (FIXTURES / "fix" / "paged_refused.in.py").read_bytes()
    fix = fix_source(source, "backend.py", TABLES, FixOptions(unsafe=True))
    assert fix.new_source != source
    companions = {os.path.basename(p)[:-3]: t for p, t in fix.companions.items()}

    def run(text, helpers):
        torch = make_torch()
        kernels = Kernels()
        names = {"flash_attn_with_kvcache": kernels.flash_attn_with_kvcache, "paged_view": _paged_view}
        with fake_imports(torch, make_flashinfer(torch), names):
            import sys as _sys

            for name, body in helpers.items():
                module = _types.ModuleType(name)
                exec(compile(body, f"{name}.py", "exec"), module.__dict__)
                _sys.modules[name] = module
            subject = _types.ModuleType("paged_refused_subject")
            exec(compile(text, "subject.py", "exec"), subject.__dict__)
            runner, metadata, expand, layer, q, q_rope = _world(torch, 2)
            backend = subject.RefusedBackend(runner)
            backend.forward_metadata, backend.cascade = metadata, False

            def prepare(other):
                backend.cascade = True  # a call between the cast and the second kernel flips the path

            backend.prepare = prepare
            return backend.condition_may_change(q_rope, layer, expand)

    assert run(fix.new_source, companions) != run(source, {})
