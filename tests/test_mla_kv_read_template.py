"""The engine module the MLA fixes add (castlint/fixes/templates/mla_kv_read.py), filled from
the real tables as the fix fills it and run on the CPU build of torch: the compact read's
exactness and row buffers, the per-plan choice (CUDA-graph wrappers fixed at capture), the
SGLANG_MLA_KV_READ switch, and both profiles formatted as sglang formats."""

from __future__ import annotations

import subprocess
import sys
import types

import pytest

torch = pytest.importorskip("torch")

from castlint.fixes.kv_read_module import declare_switch, module_source  # noqa: E402
from castlint.tables import load_tables  # noqa: E402

pytestmark = pytest.mark.torch
TABLES = load_tables()
SWITCH = TABLES.kv_read_switch["variable"]
PARAMETERS = TABLES.mla_signatures[-1]["plan_positional"]
RUN_SCALES = tuple(TABLES.mla_signatures[-1]["run_scales"])
KV_DTYPE = TABLES.mla_wrapper().kv_dtype.keyword


def _module(profile="full", mechanism=None):
    module = types.ModuleType(f"mla_kv_read_{profile}")
    exec(compile(module_source(TABLES, profile, mechanism), module.__name__, "exec"), module.__dict__)
    return module


@pytest.fixture(scope="module")
def engine():
    return _module()


class Wrapper:
    """A stand-in for FlashInfer's MLA wrapper (the read choice is kept by wrapper): its plan()
    records what it was given."""

    def plan(self, *args, **kwargs):
        self.planned = (args, kwargs)
        return "planned"


def plan(reads, wrapper, qo_indptr, kv_indptr, kv_indices, kv_dtype, decode):
    """Plan `wrapper` through the module as the fixed backend does (call_plan(wrapper.plan, ...),
    FlashInfer's positional plan); the KV dtype the plan got."""
    args = [qo_indptr, kv_indptr, kv_indices, None, 64, 512, 64, 1, not decode, 0.1, torch.bfloat16, kv_dtype]
    assert reads.call_plan(wrapper.plan, *args) == "planned"
    return wrapper.planned[0][PARAMETERS.index(KV_DTYPE)]


class Runner:
    def __init__(self, kv_dtype=torch.float8_e4m3fn, device="cpu", rows=4096):
        self.kv_cache_dtype, self.dtype, self.device = kv_dtype, torch.bfloat16, device
        self.model_config = types.SimpleNamespace(kv_lora_rank=512, qk_rope_head_dim=64)
        pool, size, padding = TABLES.kv_pool["pool"], TABLES.kv_pool["size"], TABLES.kv_pool["padding"]
        setattr(self, pool, types.SimpleNamespace(**{size: rows, padding: 1}))


@pytest.fixture
def sm90(monkeypatch):
    monkeypatch.delenv(SWITCH, raising=False)
    monkeypatch.setitem(sys.modules, "flashinfer", types.SimpleNamespace(__version__="0.7.4"))
    monkeypatch.setattr(torch.cuda, "get_device_capability", lambda *a, **k: (9, 0))


def _fp8_pool(rows, dtype=torch.float8_e4m3fn, seed=0):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(rows, 1, 576, generator=g) * 0.5).to(dtype)


def _bits(x):
    return x.view(torch.int16)


@pytest.mark.parametrize("kv_dtype", [torch.float8_e4m3fn, torch.float8_e5m2])
def test_the_conversion_table_is_the_cast_itself(engine, kv_dtype):
    """Converting through the 256-entry table (what the kernel does) is `.to()` on every byte,
    NaN patterns included."""
    every = torch.arange(256, dtype=torch.uint8).view(kv_dtype)
    table = engine._lut(every, torch.bfloat16)
    assert torch.equal(_bits(table[every.view(torch.uint8).long()]), _bits(every.to(torch.bfloat16)))


@pytest.mark.parametrize("kv_dtype", [torch.float8_e4m3fn, torch.float8_e5m2])
def test_a_compact_read_converts_exactly_the_rows_a_plan_reads(engine, sm90, kv_dtype):
    pool = _fp8_pool(1001, kv_dtype)
    reads = engine.MlaKvRead(Runner(kv_dtype, rows=100_000))  # the choice sees a big pool
    wrapper = Wrapper()
    indices = torch.tensor([5, 999, 3, 5, 0], dtype=torch.int32)  # a duplicate row is fine
    dtype = plan(reads, wrapper, None, None, indices, torch.bfloat16, decode=False)
    read = reads.read(wrapper)
    assert read.compact and dtype == torch.bfloat16  # a small prefill on a big pool: compact, BF16 plan
    out = read.convert(pool, torch.bfloat16)
    rows = indices.long()
    assert torch.equal(_bits(out[rows]), _bits(pool[rows].to(torch.bfloat16)))
    assert read.count_host == 5 and int(read.count) == 5


def _fast_plan(wrapper, *args, **kwargs):
    """sglang's fast_mla_*_plan: a function that takes the wrapper first."""
    return wrapper.plan(*args, **kwargs)


@pytest.mark.parametrize("form", ["method", "function", "partial", "keywords", "aliases", "metadata"])
@pytest.mark.parametrize("decode", [True, False])
def test_every_plan_spelling_is_bound_by_flashinfers_names(engine, sm90, form, decode):
    """call_plan(callee, *args) binds a plan's arguments by the names rules/flashinfer.toml lists,
    whichever way a release spells the call: the read sees the plan's indices (a decode reads
    natively, a small prefill on a big pool converts exactly its rows) and only the KV dtype
    argument changes, where the call passed it."""
    import functools

    reads, wrapper = engine.MlaKvRead(Runner(rows=100_000)), Wrapper()
    indices = torch.tensor([7, 3, 11], dtype=torch.int32)
    qo, kv_indptr = torch.tensor([0, 1 if decode else 3]), torch.tensor([0, 3])
    values = dict(
        zip(PARAMETERS, [qo, kv_indptr, indices, None, 64, 512, 64, 1, not decode, 0.1, torch.bfloat16, torch.bfloat16])
    )
    args, kwargs = list(values.values()), {}
    if form in ("keywords", "aliases", "metadata"):
        args, kwargs = [], dict(values)
    if form == "aliases":  # sglang 0.5.1's fast plan: qo_indptr_cpu=, kv_indptr_cpu=
        aliases = {name: alias for alias, name in engine.PLAN_KEYWORD_ALIASES.items()}
        kwargs = {aliases.get(k, k): v for k, v in kwargs.items()}
    if form == "metadata":  # FlashInfer 0.7: plan(metadata=MLAPlanMetadata.csr(...), ...)
        csr = types.SimpleNamespace(**{k: kwargs.pop(k) for k in PARAMETERS[:4]})
        kwargs = {engine.PLAN_METADATA: csr, **kwargs}
    callee = {"function": _fast_plan, "partial": functools.partial(_fast_plan, wrapper)}.get(form, wrapper.plan)
    given = ([wrapper] if form == "function" else []) + args
    assert reads.call_plan(callee, *given, **kwargs) == "planned"
    read = reads.read(wrapper)
    assert read.kind == ("native" if decode else "compact")
    planned_args, planned_kwargs = wrapper.planned
    expected = torch.float8_e4m3fn if decode else torch.bfloat16
    if kwargs:
        assert planned_kwargs == {**kwargs, KV_DTYPE: expected} and list(planned_args) == []
    else:
        assert list(planned_args) == args[: PARAMETERS.index(KV_DTYPE)] + [expected] and planned_kwargs == {}
    if not decode:
        assert read.count_host == 3 and torch.equal(read.rows[:3], indices)
    pool = _fp8_pool(20)
    converted = reads.convert(wrapper, pool, torch.bfloat16)
    assert (
        converted is pool
        if decode
        else torch.equal(_bits(converted[indices.long()]), _bits(pool[indices.long()].to(torch.bfloat16)))
    )
    assert reads.scales(wrapper) == (dict.fromkeys(RUN_SCALES, 1.0) if decode else {})


def test_the_cast_keeps_its_arguments(engine, sm90, monkeypatch):
    monkeypatch.setenv(SWITCH, "off")
    reads, wrapper, pool = engine.MlaKvRead(Runner()), Wrapper(), _fp8_pool(4)
    plan(reads, wrapper, None, None, torch.arange(4, dtype=torch.int32), torch.bfloat16, True)
    assert reads.read(wrapper).kind == "cast"  # off: the original read everywhere
    out = reads.convert(wrapper, pool, dtype=torch.bfloat16, copy=True)
    assert torch.equal(_bits(out), _bits(pool.to(torch.bfloat16))) and reads.scales(wrapper) == {}


def test_a_graph_wrapper_keeps_its_row_buffers_and_its_read_across_replays(engine, sm90):
    """A CUDA graph captured with a wrapper's buffers replays with them: every later plan writes
    its rows and count into the same tensors, and the read stays compact whatever the shape."""
    reads = engine.MlaKvRead(Runner(rows=100))
    wrapper = Wrapper()
    reads.in_cuda_graph(wrapper)
    plan(reads, wrapper, None, None, torch.arange(4, dtype=torch.int32), torch.bfloat16, decode=False)
    first = reads.read(wrapper)
    host_indptr = torch.tensor([0, 7], dtype=torch.int32)  # a host kv_indptr: the count is read from it
    plan(reads, wrapper, None, host_indptr, torch.arange(10, 40, dtype=torch.int32), torch.bfloat16, decode=False)
    second = reads.read(wrapper)
    assert second is first and second.rows is first.rows and second.count is first.count
    assert second.count_host == 7 and torch.equal(second.rows[:7], torch.arange(10, 17, dtype=torch.int32))
    plan(reads, wrapper, None, None, torch.arange(101, dtype=torch.int32), torch.bfloat16, decode=False)
    whole = reads.read(wrapper)
    assert whole.compact and whole.count_host == -1 and int(whole.count) == -1  # more rows than the pool
    pool = _fp8_pool(101)
    assert torch.equal(_bits(whole.convert(pool, torch.bfloat16)), _bits(pool.to(torch.bfloat16)))


@pytest.mark.parametrize(
    "graph,decode,native,expected",
    [
        (True, False, True, "compact"),  # a target-verify / draft-extend graph: compact, whatever the replay
        (True, True, True, "native"),  # a decode graph where the kernel exists
        (True, True, False, "compact"),  # a decode graph on a GPU without it
        (False, True, True, "native"),
        (False, False, False, "compact"),  # an eager prefill on a big pool, no kernel
    ],
)
def test_the_read_each_plan_chooses(engine, sm90, monkeypatch, graph, decode, native, expected):
    if not native:
        monkeypatch.setattr(torch.cuda, "get_device_capability", lambda *a, **k: (12, 0))
    reads = engine.MlaKvRead(Runner(rows=495552))
    wrapper = Wrapper()
    if graph:
        reads.in_cuda_graph(wrapper)
    qo = torch.arange(5, dtype=torch.int32) * (1 if decode else 4)
    kv_dtype = plan(reads, wrapper, qo, None, torch.zeros(4 * 4096, dtype=torch.int32), torch.bfloat16, decode)
    assert reads.read(wrapper).kind == expected
    assert kv_dtype == (torch.float8_e4m3fn if expected == "native" else torch.bfloat16)


def test_a_graph_without_triton_on_a_gpu_keeps_the_cast(engine, sm90):
    reads = engine.MlaKvRead(Runner(device="cuda:0"))
    wrapper = Wrapper()
    reads.in_cuda_graph(wrapper)
    plan(reads, wrapper, None, None, torch.zeros(1000, dtype=torch.int32), torch.bfloat16, decode=False)
    assert reads.read(wrapper).kind == "cast"


def test_a_pool_the_rows_nearly_fill_keeps_the_cast(engine, sm90):
    reads = engine.MlaKvRead(Runner(rows=2048))
    wrapper = Wrapper()
    plan(reads, wrapper, None, None, torch.zeros(2000, dtype=torch.int32), torch.bfloat16, decode=False)
    assert reads.read(wrapper).kind == "cast"
    assert reads.read(Wrapper()).kind == "cast"  # never planned: the original read


@pytest.mark.parametrize(
    "switch,native,compact",
    [
        (None, True, True),
        ("auto", True, True),
        ("native", True, False),
        ("compact", False, True),
        ("off", None, None),
        ("bogus", True, True),
        ("", True, True),
    ],
)
def test_the_switch_selects_the_reads(engine, sm90, monkeypatch, switch, native, compact):
    if switch is not None:
        monkeypatch.setenv(SWITCH, switch)
    allowed = engine.allowed_reads(Runner(), "auto")
    if native is None:
        assert allowed is None
    else:
        assert (allowed.native, allowed.compact) == (native, compact)
        assert allowed.pool_rows == 4097


def test_other_gpus_and_formats_get_the_compact_read(engine, sm90, monkeypatch):
    monkeypatch.setitem(sys.modules, "flashinfer", types.SimpleNamespace(__version__="0.6.7.post2"))
    for capability in ((8, 0), (8, 9), (10, 0), (12, 0)):
        monkeypatch.setattr(torch.cuda, "get_device_capability", lambda *a, c=capability, **k: c)
        for kv_dtype in (torch.float8_e4m3fn, torch.float8_e5m2):
            allowed = engine.allowed_reads(Runner(kv_dtype), "auto")
            assert allowed.native is False and allowed.compact is True


def test_another_buffer_into_run_and_non_fp8_pools_keep_the_original(engine, sm90):
    assert engine.allowed_reads(Runner(), "auto", reads_other_buffer=True) is None
    assert engine.MlaKvRead(Runner(), dcp_enabled=True).allowed is None  # run() reads DCP's buffer
    assert engine.allowed_reads(Runner(torch.bfloat16), "auto") is None
    reads = engine.MlaKvRead(Runner(torch.bfloat16))
    wrapper = Wrapper()
    assert plan(reads, wrapper, None, None, torch.zeros(8, dtype=torch.int32), torch.bfloat16, True) == torch.bfloat16
    assert reads.read(wrapper).kind == "cast" and reads.scales(wrapper) == {}


def test_the_minimal_profile_reads_natively_on_decode_only(sm90):
    minimal = _module("minimal")
    assert not hasattr(minimal, "read_kv_pages") and not hasattr(minimal, "MLA_KV_READ_COSTS")
    reads = minimal.MlaKvRead(Runner())
    decode, prefill = Wrapper(), Wrapper()
    # the minimal fix routes decode plans only; the others plan as before
    assert plan(reads, decode, None, None, None, torch.bfloat16, True) == torch.float8_e4m3fn
    assert reads.read(decode).native and reads.scales(decode) == dict.fromkeys(RUN_SCALES, 1.0)
    assert reads.read(prefill).kind == "cast"  # never planned through the module: the cast
    assert plan(reads, prefill, None, None, None, torch.bfloat16, False) == torch.bfloat16  # not a decode plan
    reads.keep_cast(decode)
    assert reads.read(decode).kind == "cast"
    off = minimal.MlaKvRead(Runner(kv_dtype=torch.bfloat16))  # nothing to do: the original dtype
    assert plan(off, decode, None, None, None, torch.bfloat16, True) == torch.bfloat16
    assert off.read(decode).kind == "cast"


@pytest.mark.parametrize("profile", ["full", "minimal"])
@pytest.mark.parametrize("mechanism", [0, -1])
@pytest.mark.parametrize("length", [88, 79, 100, 120])
def test_the_module_is_formatted_as_sglang_formats(tmp_path, profile, mechanism, length):
    """Black and isort (profile black, sglang first-party) at the tree's line length (88 is
    sglang's) leave it as it is; Ruff's default rules find nothing (the three are in the dev
    extra)."""
    from castlint.fixes.style import Style

    path = tmp_path / "mla_kv_read.py"
    path.write_text(module_source(TABLES, profile, TABLES.switch_mechanisms[mechanism], Style(line_length=length)))
    for tool in (
        ["black", "--check", "-q", "-l", str(length)],
        ["isort", "--check-only", "--profile", "black", "-l", str(length), "-p", "sglang"],
        ["ruff", "check", "--no-cache", "--isolated", "-q", "--config", "lint.isort.known-first-party = ['sglang']"],
    ):
        proc = subprocess.run([sys.executable, "-m", *tool, str(path)], capture_output=True, text=True)
        assert proc.returncode == 0, (tool[0], proc.stdout + proc.stderr)


def test_the_switch_is_declared_where_the_release_declares_its_others(monkeypatch):
    row = TABLES.switch_mechanisms[0]
    source = b'class Envs:\n    # fmt: off\n    SGLANG_OTHER = EnvStr("x")\n\n\nenvs = Envs()\n'
    declared = declare_switch(source, row, TABLES)
    assert f'    {SWITCH} = EnvStr("auto")\n'.encode() in declared
    assert declare_switch(declared, row, TABLES) == declared  # declared once
    assert declare_switch(b"x = 1\n", row, TABLES) is None  # no such class: the next mechanism
    variable = types.SimpleNamespace(get=lambda: "compact")  # sglang's EnvStr, set to compact
    environ = types.SimpleNamespace(envs=types.SimpleNamespace(**{SWITCH: variable}))
    for name in ("sglang", "sglang.srt"):
        monkeypatch.setitem(sys.modules, name, types.ModuleType(name))
    monkeypatch.setitem(sys.modules, "sglang.srt.environ", environ)
    assert _module("full", row).kv_read_mode() == "compact"
