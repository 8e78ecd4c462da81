"""castlint trace: the runtime watcher, its report, the CLI forms and the pytest plugin.

Small engines are written to tmp_path: `engine/` is the checked tree (an FP8
MLA-style pool with a whole-pool `.to(q.dtype)`, per-batch casts, a gather of
active pages, a `.view(dtype)`; a cast behind getattr; an FP4 pool whose
accessor dequantizes its whole arena through sglang's `batched_dequantize`),
`outside/` a helper package outside it. The sglang 0.5.23 FlashInfer MLA
backend runs through `castlint validate --device cpu`'s harness.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

import castlint.trace as ct  # noqa: E402
from castlint.trace.report import RUNTIME_CODE, build_report, render  # noqa: E402
from conftest import ROOT, run_castlint, sglang_tree  # noqa: E402

pytestmark = pytest.mark.torch

ROWS = 4096  # x 576 bytes: a 2.4 MB FP8 arena, above the 1 MiB threshold the tests use
MIB = "1MiB"

BACKEND = textwrap.dedent('''
    import torch


    class Pool:
        """MLATokenToKVPool's layout: a uint8 arena per layer, read as FP8."""

        def __init__(self, rows, layers=2):
            self.kv_buffer = [torch.zeros(rows, 1, 576, dtype=torch.uint8) for _ in range(layers)]

        def get_key_buffer(self, layer_id):
            return self.kv_buffer[layer_id].view(torch.float8_e4m3fn)


    class Backend:
        def __init__(self, pool):
            self.token_to_kv_pool = pool

        def forward_decode(self, q, layer_id, active):
            k_buffer = self.token_to_kv_pool.get_key_buffer(layer_id).to(q.dtype)
            batch = torch.ones(active.numel(), 576, 2, dtype=torch.float8_e4m3fn).to(q.dtype)
            pages = self.token_to_kv_pool.get_key_buffer(layer_id)[active].to(q.dtype)
            raw = self.token_to_kv_pool.get_key_buffer(layer_id).view(torch.uint8)
            return torch.matmul(k_buffer[:, 0, :64], q.T).sum() + batch.sum() + pages.sum() + raw[:1].sum()
''').lstrip()

DISPATCH = textwrap.dedent("""
    import os

    import torch

    from outside.helpers import widen


    class Dispatching:
        def __init__(self, pool):
            self.pool = pool
            self.cast = os.environ.get("KV_CAST_METHOD", "to")  # known only at run time

        def forward(self, q):
            k = getattr(self.pool.get_key_buffer(0), self.cast)(q.dtype)
            w = widen(self.pool.get_key_buffer(1))
            return k[:1].sum() + w[:1].sum()
""").lstrip()

FP4 = textwrap.dedent('''
    import torch

    from outside.kvfp4 import KVFP4QuantizeUtil, unpack_fp4_arena


    class FP4Pool:
        """MHATokenToKVPoolFP4's layout: packed e2m1 pairs and block scales, dequantized on read."""

        def __init__(self, rows, heads=4, head_dim=256):
            self.k_buffer = [torch.randint(0, 255, (rows, heads, head_dim // 2), dtype=torch.uint8)]
            self.v_buffer = [torch.randint(0, 255, (rows, heads, head_dim // 2), dtype=torch.uint8)]
            self.k_scale_buffer = [torch.full((rows, heads * head_dim // 16), 127, dtype=torch.uint8)]

        def get_key_buffer(self, layer_id):
            return KVFP4QuantizeUtil.batched_dequantize(self.k_buffer[layer_id], self.k_scale_buffer[layer_id])

        def get_value_buffer(self, layer_id):
            return unpack_fp4_arena(self.v_buffer[layer_id])


    def decode(pool, q):
        k, v = pool.get_key_buffer(0), pool.get_value_buffer(0)
        return k[:1].float().sum() + v[:1].float().sum() + q.float().sum()
''').lstrip()

HELPERS = textwrap.dedent("""
    def widen(t):
        return t.float()
""").lstrip()

KVFP4 = textwrap.dedent('''
    import torch

    E2M1 = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0]


    class KVFP4QuantizeUtil:
        @staticmethod
        def batched_dequantize(quant_tensor, scale_factors, dtype=torch.bfloat16):
            b, m, n_half = quant_tensor.shape
            fp4 = torch.empty(b, m, n_half * 2, dtype=torch.uint8)
            fp4[..., 0::2] = quant_tensor & 0x0F
            fp4[..., 1::2] = (quant_tensor >> 4) & 0x0F
            sign = (fp4 & 0x08) != 0
            values = torch.tensor(E2M1, dtype=torch.float32)[(fp4 & 0x07).long()]
            values = torch.where(sign, -values, values)
            scales = torch.exp2(scale_factors.float() - 127).repeat_interleave(16, dim=-1).view(b, m, -1)
            return (values * scales).to(dtype)


    def unpack_fp4_arena(packed):
        """An engine's own FP4 unpacking helper (named only in a user's rules table)."""
        pairs = torch.stack([packed & 0x0F, packed >> 4], dim=-1).flatten(-2)
        return pairs.to(torch.bfloat16)
''').lstrip()

BENCH = textwrap.dedent("""
    import sys

    import torch

    from engine.backend import Backend, Pool
    from engine.dispatch import Dispatching


    def main(steps=2):
        pool = Pool(4096)
        backend, other = Backend(pool), Dispatching(pool)
        q = torch.randn(2, 64, dtype=torch.bfloat16)
        active = torch.arange(0, 4096, 2)
        for step in range(steps):
            for layer in (0, 1):
                backend.forward_decode(q, layer, active)
            other.forward(q)
        print("bench ok")


    if __name__ == "__main__":
        main(int(sys.argv[1]))
""").lstrip()


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    """The files, importable as engine.* / outside.* (each module loaded once per session)."""
    root = tmp_path_factory.mktemp("trace")
    for rel, text in {
        "engine/__init__.py": "",
        "engine/backend.py": BACKEND,
        "engine/dispatch.py": DISPATCH,
        "engine/fp4.py": FP4,
        "outside/__init__.py": "",
        "outside/helpers.py": HELPERS,
        "outside/kvfp4.py": KVFP4,
        "trace_bench.py": BENCH,
    }.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    sys.path.insert(0, str(root))
    for name in ("engine", "outside"):
        for key in [k for k in sys.modules if k == name or k.startswith(name + ".")]:
            del sys.modules[key]
    mods = {name: importlib.import_module(f"engine.{name}") for name in ("backend", "dispatch", "fp4")}
    yield root, mods
    sys.path.remove(str(root))


def test_torch_is_never_imported_by_the_other_commands():
    code = textwrap.dedent("""
        import sys
        from castlint.cli import main
        for argv in (["--version"], ["rules"], ["trace", "--help"]):
            try:
                main(argv)
            except SystemExit:
                pass
        import castlint.trace, castlint.trace.command, castlint.trace.pytest_plugin, castlint.trace.report
        castlint.trace.step()  # a no-op when nothing is traced
        assert "torch" not in sys.modules, "torch was imported"
        print("ok")
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and proc.stdout.strip().endswith("ok"), proc.stdout + proc.stderr


def line_of(path: Path, needle: str) -> int:
    return next(i for i, text in enumerate(path.read_text().splitlines(), 1) if needle in text)


def _decode(mods, steps=3, threshold=MIB, mark_steps=True, **kw):
    pool = mods["backend"].Pool(ROWS)
    backend = mods["backend"].Backend(pool)
    q = torch.randn(2, 64, dtype=torch.bfloat16)
    active = torch.arange(0, ROWS, 2)  # half the pool: a gather above the threshold, still not reported
    with ct.watch(threshold, **kw) as w:
        for _ in range(steps):
            if mark_steps:
                ct.step()
            for layer in (0, 1):
                backend.forward_decode(q, layer, active)
    return w


def test_whole_pool_cast_confirmed_and_negatives_not_reported(project):
    root, mods = project
    w = _decode(mods)
    findings = w.findings()
    assert len(findings) == 1, [f.message for f in findings]
    f = findings[0]
    path = root / "engine" / "backend.py"
    assert (f.code, os.path.realpath(f.path), f.start.line) == (
        "CL001",
        os.path.realpath(path),
        line_of(path, ").to(q.dtype)"),
    )
    assert f.function == "Backend.forward_decode"
    rt = f.runtime
    assert rt["confirmed"] is True and rt["static_code"] == "CL001"
    assert (rt["op"], rt["in_dtype"], rt["out_dtype"]) == ("aten::_to_copy", "float8_e4m3fn", "bfloat16")
    arena = ROWS * 576
    assert rt["bytes_read_per_call"] == arena and rt["bytes_written_per_call"] == 2 * arena
    # two layers (two arenas) per step, three marked steps
    assert (rt["calls"], rt["steps"], rt["per_step"]) == (6, 3, 2.0)
    assert rt["long_lived"] == ["allocated before the trace started"]
    assert "confirmed at runtime: aten::_to_copy float8_e4m3fn (4096, 1, 576) -> bfloat16" in f.message
    assert "2 per step (6 calls in 3 steps" in f.message
    # the per-batch cast, the gather of active pages and the .view(dtype) are not there
    assert [s["line"] for s in w.sites] == [f.start.line]


def test_steps_inferred_and_pools_made_inside_the_trace(project):
    _, mods = project
    with ct.watch(MIB) as w:  # the pool is made inside the trace: long-lived once converted again
        pool = mods["backend"].Pool(ROWS, layers=1)
        backend = mods["backend"].Backend(pool)
        q = torch.randn(2, 64, dtype=torch.bfloat16)
        for _ in range(4):
            backend.forward_decode(q, 0, torch.arange(8))
    (site,) = w.sites
    assert (site["calls"], site["steps"], site["long_lived"]) == (4, 4, ["converted again"])
    with ct.watch(MIB) as once:  # converted once, made in this step: a per-batch tensor
        mods["backend"].Backend(mods["backend"].Pool(ROWS, layers=1)).forward_decode(q, 0, torch.arange(8))
    assert once.sites == []


def test_below_threshold_and_off(project):
    _, mods = project
    assert _decode(mods, threshold="64MiB").sites == []
    assert _decode(mods, threshold=ROWS * 576 + 1).sites == []
    from torch.utils._python_dispatch import _get_current_dispatch_mode

    assert _get_current_dispatch_mode() is None  # nothing stays installed after the block


def test_getattr_dispatch_and_outside_helper_are_new(project):
    root, mods = project
    pool = mods["backend"].Pool(ROWS)
    d = mods["dispatch"].Dispatching(pool)
    q = torch.randn(2, 64, dtype=torch.bfloat16)
    with ct.watch(MIB) as w:
        for _ in range(2):
            ct.step()
            d.forward(q)
    findings = w.findings()
    by_file = {Path(f.path).name: f for f in findings}
    assert set(by_file) == {"dispatch.py", "helpers.py"}
    hidden = by_file["dispatch.py"]
    assert hidden.code == RUNTIME_CODE == "CL101" and hidden.name == "runtime-whole-buffer-conversion"
    assert hidden.start.line == line_of(root / "engine" / "dispatch.py", "getattr(")
    assert hidden.runtime["confirmed"] is False and hidden.fix is None and hidden.unfixable_reason
    assert "no static finding covers this line" in hidden.message
    helper = by_file["helpers.py"]
    assert helper.code == "CL101" and helper.function == "widen"
    assert helper.runtime["out_dtype"] == "float32"
    # a suppression on the line silences the runtime finding too
    source = (root / "outside" / "helpers.py").read_text()
    (root / "outside" / "helpers.py").write_text(source.replace("return t.float()", "return t.float()  # noqa: CL101"))
    try:
        assert {Path(g.path).name for g in w.findings()} == {"dispatch.py"}
    finally:
        (root / "outside" / "helpers.py").write_text(source)
    # the stack leads back into the engine
    assert helper.runtime["stack"][1].endswith(
        f"dispatch.py:{line_of(root / 'engine' / 'dispatch.py', 'widen(')} in Dispatching.forward"
    )


def test_fp4_accessor_dequantizing_through_a_helper(project, tmp_path):
    """sglang's FP4 pools dequantize the whole arena in the accessor (MHATokenToKVPoolFP4._get_key_buffer ->
    batched_dequantize): caught at the accessor's line. A helper that only a user's table names
    (extend-rules [trace]) is caught the same way, where static analysis sees nothing."""
    root, mods = project
    pool = mods["fp4"].FP4Pool(ROWS)  # a 2 MB packed arena
    q = torch.randn(2, 64, dtype=torch.bfloat16)
    own = tmp_path / "my_rules.toml"
    own.write_text('schema = 1\n[[trace.helper]]\nname = "unpack_fp4_arena"\ndirection = "dequantize"\n')
    results = {}
    for label, rules in (("builtin", ()), ("extended", (own,))):
        with ct.watch(MIB, extra_rules=rules) as w:
            for _ in range(2):
                ct.step()
                mods["fp4"].decode(pool, q)
        results[label] = w.findings()
    fp4 = root / "engine" / "fp4.py"
    key_line, value_line = line_of(fp4, "batched_dequantize("), line_of(fp4, "return unpack_fp4_arena(")
    (f,) = results["builtin"]  # unpack_fp4_arena is not a known helper yet: its ops are not conversions
    assert (Path(f.path).name, f.start.line, f.function) == ("fp4.py", key_line, "FP4Pool.get_key_buffer")
    # CL004 when the static tables know batched_dequantize (then "confirmed"), else new
    assert f.code in ("CL004", "CL101") and f.runtime["confirmed"] == (f.code == "CL004")
    rt = f.runtime
    assert (rt["op"], rt["kind"], rt["helper"]) == ("batched_dequantize()", "dequantize", "batched_dequantize")
    assert (rt["in_dtype"], rt["out_dtype"], rt["calls"], rt["steps"]) == ("uint8", "bfloat16", 2, 2)
    packed = ROWS * 4 * 128
    assert rt["bytes_read_per_call"] >= 2 * packed  # the arena is read twice (low and high nibbles)
    assert rt["bytes_written_per_call"] > 8 * packed  # unpacked values, float32 intermediates, the bf16 result
    assert [(g.start.line, g.code) for g in results["extended"]] == [(key_line, f.code), (value_line, "CL101")]
    g = results["extended"][1]
    assert (g.function, g.runtime["op"], g.runtime["out_dtype"]) == (
        "FP4Pool.get_value_buffer",
        "unpack_fp4_arena()",
        "bfloat16",
    )


def test_copy_into_a_new_buffer_and_deliberate_copies(project):
    pool = torch.zeros(ROWS, 576, dtype=torch.uint8)
    staging = torch.empty(ROWS, 576, dtype=torch.uint8)  # a preallocated host copy: a deliberate copy
    with ct.watch(MIB, pools=[pool]) as w:
        ct.step()
        staging.copy_(pool)
        fresh = torch.empty(ROWS, 576, dtype=torch.bfloat16)
        fresh.copy_(pool.view(torch.float8_e4m3fn))  # a conversion into a new buffer
        pool.view(torch.float8_e4m3fn).clone()  # a copy into a new buffer
    ops = [(s["op"], s["kind"], s["out_dtype"]) for s in w.sites]
    assert ops == [("aten::copy_", "copy", "bfloat16"), ("aten::clone", "copy", "float8_e4m3fn")]
    assert all(s["long_lived"] == ["registered pool"] for s in w.sites)


def test_formats_and_determinism(project):
    _, mods = project
    reports = [_decode(mods, steps=2).report("json") for _ in range(2)]
    assert reports[0] == reports[1]
    data = json.loads(reports[0])
    assert data["trace"]["confirmed"] == 1 and data["findings"][0]["runtime"]["confirmed"] is True
    w = _decode(mods, steps=2)
    sarif = json.loads(w.report("sarif"))
    result = sarif["runs"][0]["results"][0]
    assert result["ruleId"] == "CL001" and result["properties"]["runtime"]["op"] == "aten::_to_copy"
    github = w.report("github")
    assert github.startswith("::error file=") and "confirmed at runtime" in github  # forward_decode: hot path
    # a CL101 gets its rule descriptor in SARIF
    findings, errors, meta = build_report([w.tracer.to_json()], static=False)
    doc = json.loads(render("sarif", findings, errors, meta))
    rules = doc["runs"][0]["tool"]["driver"]["rules"]
    assert doc["runs"][0]["results"][0]["ruleId"] == "CL101"
    assert rules[doc["runs"][0]["results"][0]["ruleIndex"]]["name"] == "runtime-whole-buffer-conversion"


@pytest.mark.network
def test_sglang_0523_flashinfer_mla_through_the_validate_harness(tmp_path):
    """The released backend, run by validate's CPU harness: the whole-pool _to_copy at the line CL001
    reports (confirmed); none on the fixed file's native branch."""
    from castlint.fixes import FixOptions, fix_source
    from castlint.tables import load_tables
    from castlint.trace.validate_drive import DecodeSession, harness_config

    original_path = sglang_tree("0.5.23") / "srt" / "layers" / "attention" / "flashinfer_mla_backend.py"
    original = original_path.read_bytes()
    fixed = fix_source(original, str(original_path), load_tables(), FixOptions()).new_source
    fixed_path = tmp_path / "flashinfer_mla_backend.py"
    fixed_path.write_bytes(fixed)
    cast_line = line_of(original_path, "k_buffer = self.token_to_kv_pool.get_key_buffer(layer.layer_id).to(q.dtype)")
    assert cast_line == 822
    cfg = harness_config("cpu")  # 2,048-token pool: a 1.2 MB arena per layer
    reports = {}
    with DecodeSession({"original": (original_path, original), "patched": (fixed_path, fixed)}, cfg) as session:
        # the emulated SM90 + FlashInfer 0.7.2 passes the fixed file's guard, and its decode plan then reads
        # the FP8 pool natively (no forcing needed)
        assert session.guards["patched"], "the fixed file's init-time guard declined"
        assert "decode_wrapper=native" in session.read_modes["patched"]
        for label in ("original", "patched"):
            with ct.watch(MIB, path_map=session.path_map, pools=session.pools) as w:
                for i in range(2):
                    w.step()
                    session.calls[label](i == 0)  # the real step writes the new token, then attends
            reports[label] = w.findings()
    (f,) = reports["original"]
    assert (f.code, os.path.realpath(f.path), f.start.line, f.start.column) == (
        "CL001",
        os.path.realpath(original_path),
        cast_line,
        20,
    )
    assert f.function == "FlashInferMLAAttnBackend.forward_decode"
    rt = f.runtime
    assert rt["confirmed"] and rt["op"] == "aten::_to_copy" and rt["long_lived"] == ["registered pool"]
    assert (rt["in_dtype"], rt["out_dtype"], rt["in_shape"]) == ("float8_e4m3fn", "bfloat16", "(2049, 1, 576)")
    assert (rt["bytes_read_per_call"], rt["bytes_written_per_call"], rt["per_step"]) == (2049 * 576, 2049 * 576 * 2, 1)
    assert reports["patched"] == []


def _cli(*args, cwd):
    env = dict(os.environ, NO_COLOR="1", COLUMNS="200")
    env.pop("GITHUB_ACTIONS", None)
    return subprocess.run(
        [sys.executable, "-m", "castlint", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )


def _without_stacks(report: str) -> dict:
    data = json.loads(report)
    for f in data["findings"]:
        f["runtime"].pop("stack")  # the callers above the program differ: python vs pytest
    return data


def test_cli_forms_agree_with_and_without_jobs(project, capsys, monkeypatch):
    """`castlint trace -j 2 -- python prog.py` and `castlint trace -j 1 --module prog:main` give one report;
    `castlint check --with-trace` shows it on the static report."""
    root, _ = project
    out = root / "trace.json"
    proc = _cli(
        "trace",
        "-t",
        MIB,
        "-j",
        "2",
        "-f",
        "json",
        "-o",
        str(out),
        "--",
        sys.executable,
        "trace_bench.py",
        "2",
        cwd=root,
    )
    assert proc.returncode == 1, proc.stderr
    assert "bench ok" in proc.stdout
    monkeypatch.chdir(root)
    from castlint.cli import main

    with pytest.raises(SystemExit) as exc:
        main(["trace", "--threshold", MIB, "--module", "trace_bench:main", "-f", "json", "-j", "1"])
    assert exc.value.code == 1
    in_process = capsys.readouterr().out.split("bench ok\n", 1)[1]
    assert _without_stacks(in_process) == _without_stacks(out.read_text())
    data = json.loads(out.read_text())
    codes = sorted((Path(f["path"]).name, f["code"]) for f in data["findings"])
    assert codes == [("backend.py", "CL001"), ("dispatch.py", "CL101"), ("helpers.py", "CL101")]
    assert data["trace"]["processes"] == 1 and data["trace"]["confirmed"] == 1
    backend = next(f for f in data["findings"] if f["code"] == "CL001")["runtime"]
    assert (backend["calls"], backend["steps"], backend["per_step"]) == (4, 2, 2.0)  # 2 layers, 2 steps (inferred)
    # the static report, with the runtime evidence
    proc = run_castlint("check", "--no-cache", "--with-trace", str(out), "engine", cwd=root)  # in-process
    assert proc.returncode == 1
    assert "confirmed at runtime: aten::_to_copy" in proc.stdout
    assert f"engine/dispatch.py:{line_of(root / 'engine' / 'dispatch.py', 'getattr(')}:" in proc.stdout
    assert "helpers.py" not in proc.stdout  # outside the checked files
    with pytest.raises(SystemExit) as exc:
        main(["trace", "--threshold", "nonsense", "--module", "trace_bench:main"])
    assert exc.value.code == 2


PLUGIN_TESTS = textwrap.dedent("""
    import pytest
    import torch

    import castlint.trace

    POOL = torch.zeros(4096, 576, dtype=torch.uint8)
    castlint.trace.register_pool(POOL)


    def test_converts_the_pool():
        k = POOL.view(torch.float8_e4m3fn).to(torch.bfloat16)
        assert k.shape[0] == 4096


    def test_per_batch():
        x = torch.randn(4096, 576).to(torch.bfloat16)
        assert POOL[:8].to(torch.float32).shape == (8, 576)


    @pytest.mark.castlint_trace(allow=True)
    def test_allowed():
        POOL.view(torch.float8_e4m3fn).float()
""").lstrip()


def test_pytest_plugin(tmp_path):
    (tmp_path / "test_engine.py").write_text(PLUGIN_TESTS)
    # the pytest11 entry point as an installed castlint declares it, plus -p: it must load once
    dist = tmp_path / "site" / "castlint_entry-0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: castlint-entry\nVersion: 0\n")
    entry = next(
        line
        for line in (ROOT / "pyproject.toml").read_text().splitlines()
        if "pytest_plugin" in line and "=" in line and not line.startswith("#")
    )
    (dist / "entry_points.txt").write_text(f"[pytest11]\n{entry.replace(chr(34), '')}\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path / "site"), str(ROOT / "src")]))
    env.pop("PYTEST_DISABLE_PLUGIN_AUTOLOAD", None)
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "castlint.trace.pytest_plugin",
            "--castlint-trace=1MiB",
            "--castlint-trace-static=off",
            "-q",
            "-p",
            "no:cacheprovider",
            "test_engine.py",
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    out = proc.stdout
    assert proc.returncode == 1, out + proc.stderr
    assert "1 failed, 2 passed" in out
    line = line_of(tmp_path / "test_engine.py", "k = POOL.view")
    assert "FAILED test_engine.py::test_converts_the_pool" in out
    assert f"test_engine.py:{line}: CL101 in test_converts_the_pool" in out


def test_a_suppression_of_a_runtime_finding_is_not_unused(tmp_path):
    """`# castlint: ignore[CL101]` silences the tracer's finding on that line; the static CL900
    must not call it unused (it silences nothing static by design)."""
    from castlint.cli import main

    path = tmp_path / "a.py"
    path.write_text("def forward(self, layer, q):\n    x = q.float()  # castlint: ignore[CL101]\n    return x\n")
    try:
        code = main(["check", "--no-cache", str(path)])
    except SystemExit as exc:
        code = exc.code
    assert code == 0


def test_trace_sarif_carries_the_fixes_of_the_static_findings(tmp_path, monkeypatch):
    """`castlint trace --format sarif` shows a fixable finding's edits, computed in the static
    check with the run's config and tables, as `castlint check` does."""
    from castlint.config import load_settings
    from castlint.trace.command import _edit_options
    from castlint.trace.report import static_findings

    source = (
        "def forward_decode(self, layer, loc):\n"
        "    return self.pool.get_key_buffer(layer.layer_id).to(torch.bfloat16)[loc]\n"
    )
    (tmp_path / "backend.py").write_text(source)
    monkeypatch.chdir(tmp_path)
    config, tables = load_settings([str(tmp_path)])
    assert _edit_options("text") is None  # a format that shows no edits computes no fix
    by_file, _, _ = static_findings([str(tmp_path / "backend.py")], 1, config, tables, _edit_options("sarif"))
    (findings,) = by_file.values()
    assert [f.code for f in findings] == ["CL003"] and findings[0].fix.edits
    (result,) = json.loads(render("sarif", findings, [], {"files": 1}))["runs"][0]["results"]
    (change,) = result["fixes"][0]["artifactChanges"]
    assert "[loc].to(torch.bfloat16)" in change["replacements"][0]["insertedContent"]["text"]


def test_the_runtime_rules_examples_are_what_trace_reports(tmp_path, project, monkeypatch):
    """CL101's VALID/INVALID examples (its docs) run as methods under the tracer: an INVALID one
    gives CL101 on exactly its lines, a VALID one nothing."""
    import importlib

    from castlint.checks import all_rules

    _, mods = project
    header = (
        "import os\n\nimport torch\n\n\nclass Impl:\n    def __init__(self, pool):\n        self.pool = pool\n"
        '        self.accessor_name = os.environ.get("KV_ACCESSOR", "get_key_buffer")  # known at run time\n\n'
    )
    offset = header.count("\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    for rule in (r for r in all_rules() if r.kind == "runtime"):
        cases = [(src, ()) for src in rule.VALID] + list(rule.INVALID)
        for i, (source, lines) in enumerate(cases):
            name = f"runtime_example_{rule.code}_{i}"
            (tmp_path / f"{name}.py").write_text(header + textwrap.indent(source, "    "))
            module = importlib.import_module(name)
            impl = module.Impl(mods["backend"].Pool(ROWS))
            q = torch.randn(2, 64, dtype=torch.bfloat16)
            with ct.watch(MIB) as w:
                for _ in range(2):
                    ct.step()
                    impl.forward(0, q, torch.arange(2))
            found = sorted(f.start.line - offset for f in w.findings() if f.code == rule.code)
            assert found == sorted(lines), (rule.code, i, found)
