"""The engine code the MLA fix emits (castlint/fixes/templates/mla_kv_read.py), run on the
CPU build of torch: the compact read's exactness, its row buffers, the per-plan choice and
the SGLANG_MLA_KV_READ switch. Filled from the real tables, as the fix fills it."""
from __future__ import annotations

import sys
import types

import pytest

torch = pytest.importorskip("torch")

from castlint.fixes.flashinfer_mla import template_parts  # noqa: E402
from castlint.tables import load_tables  # noqa: E402

pytestmark = pytest.mark.torch
TABLES = load_tables()


@pytest.fixture(scope="module")
def engine():
    header, body = template_parts(TABLES)
    module = types.ModuleType("mla_kv_read_filled")
    exec(compile("import torch\n" + header + "\n" + body, "mla_kv_read_filled", "exec"), module.__dict__)
    return module


def _fp8_pool(rows, dtype=torch.float8_e4m3fn, seed=0):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(rows, 1, 576, generator=g) * 0.5).to(dtype)


@pytest.mark.parametrize("kv_dtype", [torch.float8_e4m3fn, torch.float8_e5m2])
def test_the_conversion_table_is_the_cast_itself(kv_dtype):
    """The 256-entry table equals `.to()` on every byte, NaN patterns included."""
    every = torch.arange(256, dtype=torch.uint8).view(kv_dtype)
    table = every.to(torch.bfloat16)
    assert torch.equal(table.view(torch.int16), every.to(torch.bfloat16).view(torch.int16))


def _compact(engine, pool, kv_dtype=torch.float8_e4m3fn):
    return {"pool_rows": pool.shape[0], "kv_data_type": kv_dtype}


@pytest.mark.parametrize("kv_dtype", [torch.float8_e4m3fn, torch.float8_e5m2])
def test_compact_read_converts_exactly_the_rows_read(engine, kv_dtype):
    pool = _fp8_pool(1000, kv_dtype)
    wrapper = types.SimpleNamespace()
    indices = torch.tensor([5, 999, 3, 5, 0], dtype=torch.int32)  # a duplicate row is fine
    read = engine._mla_compact_read(wrapper, _compact(engine, pool, kv_dtype), None, indices, torch.bfloat16)
    out = read.convert(pool, torch.bfloat16)
    rows = indices.long()
    assert torch.equal(out[rows].view(torch.int16), pool[rows].to(torch.bfloat16).view(torch.int16))
    assert read.count_host == 5 and int(read.count) == 5


def test_row_buffers_are_kept_across_plans_and_the_count_follows_each(engine):
    """A CUDA graph captured with a wrapper's buffers replays with them: every later plan writes
    its rows and count into the same tensors."""
    pool = _fp8_pool(100)
    wrapper = types.SimpleNamespace()
    first = engine._mla_compact_read(wrapper, _compact(engine, pool), None, torch.arange(4, dtype=torch.int32),
                                     torch.bfloat16)
    wrapper.mla_kv_read = first
    host_indptr = torch.tensor([0, 7], dtype=torch.int32)  # a host kv_indptr: the count is read from it
    second = engine._mla_compact_read(wrapper, _compact(engine, pool), host_indptr,
                                      torch.arange(10, 40, dtype=torch.int32), torch.bfloat16)
    assert second is first and second.rows is first.rows and second.count is first.count
    assert second.count_host == 7 and torch.equal(second.rows[:7], torch.arange(10, 17, dtype=torch.int32))


def test_more_rows_than_the_pool_convert_the_whole_pool(engine):
    pool = _fp8_pool(64)
    wrapper = types.SimpleNamespace()
    read = engine._mla_compact_read(wrapper, _compact(engine, pool), None, torch.arange(64, dtype=torch.int32),
                                    torch.bfloat16)
    assert read.count_host == -1 and int(read.count) == -1
    assert torch.equal(read.convert(pool, torch.bfloat16), pool.to(torch.bfloat16))


def _guard_read(engine, native, compact, graphs=True, rows=495552):
    costs = engine._MLA_KV_READ_COSTS[0][1:]  # the newest FlashInfer's row
    return {"kv_data_type": torch.float8_e4m3fn, "pool_rows": rows, "costs": costs, "native": native,
            "compact": compact, "compact_in_graphs": graphs}


@pytest.mark.parametrize("graph,decode,native,expected", [
    (True, False, True, "compact"),  # a target-verify / draft-extend graph: compact, whatever the replay
    (True, True, True, "native"),  # a decode graph where the kernel exists
    (True, True, False, "compact"),  # a decode graph on a GPU without it
    (False, True, True, "native"),
    (False, False, False, "compact"),  # eager prefill on a big pool, no kernel
])
def test_the_read_each_plan_chooses(engine, graph, decode, native, expected):
    wrapper = types.SimpleNamespace(**{engine._MLA_GRAPH_ATTRIBUTE: graph})
    qo = torch.arange(5, dtype=torch.int32) * (1 if decode else 4)
    kind = engine._mla_kv_read_kind(wrapper, _guard_read(engine, native, True), qo, 4 * 4096, decode)
    assert kind == expected


def test_a_graph_without_triton_on_a_gpu_keeps_the_cast(engine):
    wrapper = types.SimpleNamespace(**{engine._MLA_GRAPH_ATTRIBUTE: True})
    kind = engine._mla_kv_read_kind(wrapper, _guard_read(engine, False, True, graphs=False), None, 1000, False)
    assert kind == "cast"


def test_a_pool_the_rows_nearly_fill_keeps_the_cast(engine):
    kind = engine._mla_kv_read_kind(types.SimpleNamespace(), _guard_read(engine, False, True, rows=2048), None, 2000, False)
    assert kind == "cast"


class _Runner:
    def __init__(self, kv_dtype=torch.float8_e4m3fn):
        self.kv_cache_dtype, self.dtype, self.device = kv_dtype, torch.bfloat16, "cuda:0"
        self.model_config = types.SimpleNamespace(kv_lora_rank=512, qk_rope_head_dim=64)
        pool, size, padding = TABLES.kv_pool["pool"], TABLES.kv_pool["size"], TABLES.kv_pool["padding"]
        setattr(self, pool, types.SimpleNamespace(**{size: 4096, padding: 1}))


@pytest.fixture
def sm90_flashinfer_0_7(monkeypatch):
    monkeypatch.setitem(sys.modules, "flashinfer", types.SimpleNamespace(__version__="0.7.4"))
    monkeypatch.setattr(torch.cuda, "get_device_capability", lambda *a, **k: (9, 0))


@pytest.mark.parametrize("switch,native,compact", [
    (None, True, True), ("auto", True, True), ("native", True, False), ("compact", False, True),
    ("off", None, None), ("bogus", True, True),
])
def test_the_switch_selects_the_reads(engine, sm90_flashinfer_0_7, monkeypatch, switch, native, compact):
    variable = TABLES.kv_read_switch["variable"]
    if switch is None:
        monkeypatch.delenv(variable, raising=False)
    else:
        monkeypatch.setenv(variable, switch)
    decided = engine._flashinfer_mla_fp8_kv_read(_Runner(), "auto")
    if native is None:
        assert decided is None
    else:
        assert (decided["native"], decided["compact"]) == (native, compact)
        assert decided["pool_rows"] == 4097


def test_other_gpus_and_formats_get_the_compact_read(engine, monkeypatch):
    monkeypatch.setitem(sys.modules, "flashinfer", types.SimpleNamespace(__version__="0.6.7.post2"))
    for capability in ((8, 0), (8, 9), (10, 0), (12, 0)):
        monkeypatch.setattr(torch.cuda, "get_device_capability", lambda *a, c=capability, **k: c)
        for kv_dtype in (torch.float8_e4m3fn, torch.float8_e5m2):
            decided = engine._flashinfer_mla_fp8_kv_read(_Runner(kv_dtype), "auto")
            assert decided["native"] is False and decided["compact"] is True


def test_another_buffer_into_run_and_non_fp8_pools_keep_the_original(engine, sm90_flashinfer_0_7):
    assert engine._flashinfer_mla_fp8_kv_read(_Runner(), "auto", reads_other_buffer=True) is None
    assert engine._flashinfer_mla_fp8_kv_read(_Runner(torch.bfloat16), "auto") is None
