"""`castlint validate --device cpu`: the whole harness against the pure-torch reference MLA.

The backend under test is a small sglang-shaped FlashInfer MLA backend written
for these tests (same structure as sglang's: indices updaters that plan a
BatchMLAPagedAttentionWrapper positionally with the model dtype, forward_decode
and the paged forward_extend casting the whole FP8 pool with `.to(q.dtype)`).
`castlint fix` rewrites it in memory; validate must pass it, and must fail two
deliberately broken variants with a report that says what is wrong.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import torch  # CI installs the CPU build (torch==2.13.0)

from castlint.validate.command import run_validate  # noqa: E402

pytestmark = pytest.mark.torch

BACKEND = textwrap.dedent('''
    from __future__ import annotations

    """A condensed FlashInfer MLA attention backend in sglang's layout (test fixture)."""

    from dataclasses import dataclass
    from typing import Optional

    import torch

    from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
    from sglang.srt.layers.attention.utils import create_flashinfer_kv_indices_triton
    from sglang.srt.model_executor.forward_batch_info import ForwardBatch, ForwardMode
    from sglang.srt.runtime_context import get_parallel
    from sglang.srt.utils import is_flashinfer_available

    if is_flashinfer_available():
        from flashinfer import BatchMLAPagedAttentionWrapper


    @dataclass
    class DecodeMetadata:
        decode_wrapper: BatchMLAPagedAttentionWrapper


    @dataclass
    class PrefillMetadata:
        prefill_wrapper: BatchMLAPagedAttentionWrapper
        use_ragged: bool


    class FlashInferMLAAttnBackend(AttentionBackend):
        def __init__(self, model_runner, skip_prefill: bool = False):
            super().__init__()
            self.device = model_runner.device
            self.max_context_len = model_runner.model_config.context_len
            self.token_to_kv_pool = model_runner.token_to_kv_pool
            self.workspace_buffer = torch.empty(16 * 1024 * 1024, dtype=torch.uint8, device=model_runner.device)
            max_bs = model_runner.req_to_token_pool.size
            self.kv_indptr = torch.zeros((max_bs + 1,), dtype=torch.int32, device=model_runner.device)
            self.qo_indptr = torch.zeros((max_bs + 1,), dtype=torch.int32, device=model_runner.device)
            self.q_indptr_decode = torch.arange(0, max_bs + 1, dtype=torch.int32, device=model_runner.device)
            self.decode_wrapper = BatchMLAPagedAttentionWrapper(self.workspace_buffer, backend="auto")
            self.prefill_wrapper_paged = BatchMLAPagedAttentionWrapper(self.workspace_buffer, backend="auto")
            self.indices_updater_decode = FlashInferMLAIndicesUpdaterDecode(model_runner, self)
            self.indices_updater_prefill = FlashInferMLAIndicesUpdaterPrefill(model_runner, self)
            self.forward_metadata = None

        def init_forward_metadata(self, forward_batch: ForwardBatch):
            if forward_batch.forward_mode.is_decode_or_idle():
                self.indices_updater_decode.update(
                    forward_batch.req_pool_indices, forward_batch.seq_lens, self.decode_wrapper
                )
                self.forward_metadata = DecodeMetadata(self.decode_wrapper)
            else:
                self.indices_updater_prefill.update(
                    forward_batch.req_pool_indices,
                    forward_batch.seq_lens,
                    forward_batch.extend_prefix_lens,
                    self.prefill_wrapper_paged,
                )
                self.forward_metadata = PrefillMetadata(self.prefill_wrapper_paged, False)

        def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True, q_rope=None, k_rope=None):
            if save_kv_cache and k is not None:
                self.token_to_kv_pool.set_mla_kv_buffer(layer, forward_batch.out_cache_loc, k, k_rope)
            q = q.view(-1, layer.tp_q_head_num, layer.v_head_dim)
            q_rope = q_rope.view(-1, layer.tp_q_head_num, layer.head_dim - layer.v_head_dim)
            k_buf = self.token_to_kv_pool.get_key_buffer(layer.layer_id).to(q.dtype)
            o = q.new_empty(q.shape)
            o = self.forward_metadata.prefill_wrapper.run(
                q,
                q_rope,
                k_buf[:, :, : layer.v_head_dim],
                k_buf[:, :, layer.v_head_dim :],
                out=o,
            )
            return o.view(-1, layer.tp_q_head_num * layer.v_head_dim)

        def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True, q_rope=None, k_rope=None):
            decode_wrapper = self.forward_metadata.decode_wrapper
            if save_kv_cache and k is not None:
                self.token_to_kv_pool.set_mla_kv_buffer(layer, forward_batch.out_cache_loc, k, k_rope)
            q_nope = q.view(-1, layer.tp_q_head_num, layer.v_head_dim)
            q_rope = q_rope.view(-1, layer.tp_q_head_num, layer.head_dim - layer.v_head_dim)
            k_buffer = self.token_to_kv_pool.get_key_buffer(layer.layer_id).to(q.dtype)
            o = q_nope.new_empty(q_nope.shape)
            o = decode_wrapper.run(
                q_nope,
                q_rope,
                k_buffer[:, :, : layer.v_head_dim],
                k_buffer[:, :, layer.v_head_dim :],
                out=o,
            )
            return o.view(-1, layer.tp_q_head_num * layer.v_head_dim)


    class FlashInferMLAIndicesUpdaterDecode:
        def __init__(self, model_runner, attn_backend):
            self.num_local_heads = model_runner.model_config.num_attention_heads // get_parallel().attn_tp_size
            self.kv_lora_rank = model_runner.model_config.kv_lora_rank
            self.qk_rope_head_dim = model_runner.model_config.qk_rope_head_dim
            self.scaling = model_runner.model_config.scaling
            self.data_type = model_runner.dtype
            self.req_to_token = model_runner.req_to_token_pool.req_to_token
            self.kv_indptr = attn_backend.kv_indptr
            self.q_indptr = attn_backend.q_indptr_decode

        def update(self, req_pool_indices, seq_lens, wrapper):
            bs = len(seq_lens)
            kv_indptr = self.kv_indptr
            kv_indptr[1 : bs + 1] = torch.cumsum(seq_lens, dim=0)
            kv_indptr = kv_indptr[: bs + 1]
            kv_indices = torch.empty(int(seq_lens.sum()), dtype=torch.int32, device=req_pool_indices.device)
            create_flashinfer_kv_indices_triton[(bs,)](
                self.req_to_token, req_pool_indices, seq_lens, kv_indptr, None, kv_indices,
                self.req_to_token.shape[1],
            )
            wrapper.plan(
                self.q_indptr[: bs + 1],
                kv_indptr,
                kv_indices,
                seq_lens.to(torch.int32),
                self.num_local_heads,
                self.kv_lora_rank,
                self.qk_rope_head_dim,
                1,
                False,
                self.scaling,
                self.data_type,
                self.data_type,
            )


    class FlashInferMLAIndicesUpdaterPrefill:
        def __init__(self, model_runner, attn_backend):
            self.num_local_heads = model_runner.model_config.num_attention_heads // get_parallel().attn_tp_size
            self.kv_lora_rank = model_runner.model_config.kv_lora_rank
            self.qk_rope_head_dim = model_runner.model_config.qk_rope_head_dim
            self.scaling = model_runner.model_config.scaling
            self.data_type = model_runner.dtype
            self.q_data_type = model_runner.dtype
            self.req_to_token = model_runner.req_to_token_pool.req_to_token
            self.kv_indptr = attn_backend.kv_indptr
            self.qo_indptr = attn_backend.qo_indptr

        def update(self, req_pool_indices, seq_lens, prefix_lens, wrapper_paged):
            bs = len(seq_lens)
            kv_indptr = self.kv_indptr
            kv_indptr[1 : bs + 1] = torch.cumsum(seq_lens, dim=0)
            kv_indptr = kv_indptr[: bs + 1]
            kv_indices = torch.empty(int(seq_lens.sum()), dtype=torch.int32, device=req_pool_indices.device)
            create_flashinfer_kv_indices_triton[(bs,)](
                self.req_to_token, req_pool_indices, seq_lens, kv_indptr, None, kv_indices,
                self.req_to_token.shape[1],
            )
            qo_indptr = self.qo_indptr
            qo_indptr[1 : bs + 1] = torch.cumsum(seq_lens - prefix_lens, dim=0)
            qo_indptr = qo_indptr[: bs + 1]
            wrapper_paged.plan(
                qo_indptr,
                kv_indptr,
                kv_indices,
                kv_indptr[1:] - kv_indptr[:-1],
                self.num_local_heads,
                self.kv_lora_rank,
                self.qk_rope_head_dim,
                1,
                True,
                self.scaling,
                self.q_data_type,
                self.data_type,
            )
''').lstrip()

SMALL = dict(
    device="cpu",
    preset="deepseek-r1",
    tp=8,
    pool_tokens=8192,
    batch_size=2,
    context_len=96,
    extend_len=8,
    iters=1,
    warmup=1,
)
ORIGINAL_SITES = ("decode", "extend-paged")  # the fixture has no cuda-graph metadata API


@pytest.fixture
def tree(tmp_path):
    """An sglang-shaped tree: sglang/version.py (0.5.23) + the backend file."""
    pkg = tmp_path / "sglang"
    attention = pkg / "srt" / "layers" / "attention"
    attention.mkdir(parents=True)
    (pkg / "version.py").write_text('__version__ = "0.5.23"\n')
    path = attention / "flashinfer_mla_backend.py"
    path.write_text(BACKEND)
    return path


def _fixed(path: Path, api: str = "auto") -> bytes:
    from castlint.fixes import FixOptions, fix_source
    from castlint.tables import load_tables

    result = fix_source(path.read_bytes(), str(path), load_tables(), FixOptions(flashinfer_api=api))
    assert result.changed, "castlint fix must rewrite the fixture"
    return result.new_source


# run() given the layer's checkpoint k_scale, which MLATokenToKVPool never applied
WRONG_SCALES = b"ckv_scale=layer.k_scale_float, kpe_scale=layer.k_scale_float"


def _module() -> bytes:
    """The module the fix adds beside the backend, as castlint writes it."""
    from castlint.fixes.kv_read_module import module_source
    from castlint.tables import load_tables

    return module_source(load_tables()).encode("utf-8")


def _validate(tmp_path, path: Path, patched: bytes = None, module: bytes = None, **options):
    """Run validate with a JSON report; return (exit code, report). module: the added module
    the patched file imports (written beside it)."""
    out = tmp_path / f"report-{len(list(tmp_path.glob('report-*')))}.json"
    kwargs = dict(SMALL, sites=ORIGINAL_SITES, fmt="json", output_file=str(out))
    kwargs.update(options)
    if patched is not None:
        patched_path = tmp_path / "patched_backend.py"
        patched_path.write_bytes(patched)
        if module is not None:
            (tmp_path / "mla_kv_read.py").write_bytes(module)
        code = run_validate(path=str(patched_path), baseline=str(path), **kwargs)
    else:
        code = run_validate(path=str(path), **kwargs)
    return code, json.loads(out.read_text())


def _site(report, name):
    return next(s for s in report["sites"] if s["site"] == name)


def test_fixed_backend_passes_in_memory(tmp_path, tree):
    code, report = _validate(tmp_path, tree)
    assert code == 0, report
    assert report["passed"] is True
    decided = report["guard"]["kv_read"]
    assert decided["kv_dtype"] == "float8_e4m3fn" and decided["pool_rows"] == SMALL["pool_tokens"] + 1
    assert report["guard"]["branch"].startswith("FP8-KV reads enabled")
    for name in ORIGINAL_SITES:
        site = _site(report, name)
        assert site["status"] == "pass"
        assert site["numerics"]["within_tolerance"] is True
        assert site["numerics"]["max_abs"] == 0.0  # e4m3 -> bf16 is exact and the scale is 1.0
        assert site["numerics"]["cosine"] > 0.99999
        # the kernel proof: the original materialises the whole pool, the patched does not
        orig, patched = site["original"]["proof"], site["patched"]["proof"]
        assert orig["moves_whole_pool"] is True
        assert patched["moves_whole_pool"] is False
        pool_elems = (SMALL["pool_tokens"] + 1) * 576
        assert orig["whole_pool_ops"][0]["op"] == "aten::_to_copy"
        assert orig["whole_pool_bytes"] == pool_elems * (1 + 2)  # read e4m3, write bf16
        assert patched["total_bytes"] < orig["total_bytes"] / (4 if name == "decode" else 1.5)
        assert {p["kv_dtype"] for p in site["original"]["plans"]} == {"bfloat16"}
        assert site["original"]["timing"]["median_ms"] > 0 and site["patched"]["timing"]["median_ms"] > 0
    # decode reads the pool natively: FP8 plan, FP8 run with the pool's scale 1.0
    decode = _site(report, "decode")
    assert {p["kv_dtype"] for p in decode["patched"]["plans"]} == {"float8_e4m3fn"}
    runs = decode["patched"]["runs"]
    assert runs and all(r["ckv_dtype"] == "float8_e4m3fn" and r["ckv_scale"] == 1.0 for r in runs)
    # a prefill on a pool 10x its live tokens converts only the rows it reads (BF16 kernel)
    extend = _site(report, "extend-paged")
    assert "prefill_wrapper_paged=compact" in extend["patched"]["note"]
    assert extend["patched"]["read"] == "compact"
    assert {p["kv_dtype"] for p in extend["patched"]["plans"]} == {"bfloat16"}
    assert all(r["ckv_dtype"] == "bfloat16" and r["ckv_scale"] is None for r in extend["patched"]["runs"])
    executed = {e["function"] for e in report["plan_calls"]["patched"]["executed"]}
    assert executed == {"FlashInferMLAIndicesUpdaterDecode.update", "FlashInferMLAIndicesUpdaterPrefill.update"}
    assert report["environment"]["kernels"] == "pure-torch reference MLA"


@pytest.mark.parametrize("pool,batch,read", [(8192, 2, "compact"), (1024, 10, "cast")])
def test_extend_read_follows_the_crossover(tmp_path, tree, pool, batch, read):
    """Both sides of the gather/cast crossover: a pool 10x the live rows gathers them; a pool
    the live rows nearly fill keeps the original whole-pool cast (gathering would cost more)."""
    code, report = _validate(tmp_path, tree, sites=("extend-paged",), pool_tokens=pool, batch_size=batch, profile=True)
    assert code == 0, report
    site = _site(report, "extend-paged")
    assert f"prefill_wrapper_paged={read}" in site["patched"]["note"]
    assert site["patched"]["proof"]["moves_whole_pool"] is (read == "cast")
    assert site["numerics"]["max_abs"] == 0.0


def test_slower_patch_fails_the_speed_gate(tmp_path, tree):
    """A patch made slower on purpose (0.5 s per call) fails, naming the margin."""
    from castlint.validate.harness import HarnessConfig, run_validation

    fixed = _fixed(tree)
    original = tree.read_bytes()
    cfg = HarnessConfig(
        device="cpu",
        preset="deepseek-r1",
        num_heads_total=128,
        tp=8,
        pool_tokens=2048,
        batch_size=2,
        context_len=96,
        extend_len=8,
        iters=3,
        warmup=1,
        sites=("decode",),
        profile=False,
        speed_gate=True,
        patched_delay_s=0.5,
        use_sglang=False,
    )
    result = run_validation(original, fixed, cfg, filename=str(tree))
    site = result.sites[0]
    assert site.status == "fail" and not result.passed
    assert site.reasons[0].startswith("patched path is slower") and "noise margin" in site.reasons[0]


@pytest.mark.parametrize(
    "original,patched,verdict",
    [
        ((1.00, 0.95, 1.05), (1.00, 0.95, 1.05), "pass"),  # the same distribution
        ((1.00, 0.95, 1.05), (1.08, 1.03, 1.13), "pass"),  # slower, but within the 10 % spread
        ((1.00, 0.99, 1.01), (1.08, 1.07, 1.09), "fail"),  # tight spreads: 8 % is beyond noise
        ((1.00, 0.95, 1.05), (0.10, 0.09, 0.11), "pass"),  # faster
    ],
)
def test_speed_gate_margin_comes_from_the_spread(original, patched, verdict):
    from castlint.validate.harness import SiteResult, Timing, speed_gate

    site = SiteResult(name="decode", functions="")
    site.original.timing = Timing(*original, n=20, host_us=0.0, method="")
    site.patched.timing = Timing(*patched, n=20, host_us=0.0, method="")
    speed_gate(site)
    assert site.status == verdict
    assert site.margin >= 0.02


def test_sweep_cpu_writes_table_json_and_svg(tmp_path, tree):
    out, js, svg = tmp_path / "sweep.md", tmp_path / "sweep.json", tmp_path / "sweep.svg"
    code = run_validate(
        path=str(tree),
        device="cpu",
        preset="deepseek-r1",
        tp=8,
        sweep=True,
        sweep_pools=[4096],
        output_file=str(out),
        json_file=str(js),
        sweep_svg=str(svg),
        iters=1,
        warmup=1,
        sites=ORIGINAL_SITES,
    )
    assert code == 0, out.read_text()
    cells = json.loads(js.read_text())["cells"]
    assert {c["site"] for c in cells} == {"decode", "extend-paged"} and all(c["status"] == "pass" for c in cells)
    # the biggest pool's cells again with the native read off
    assert {c["label"] for c in cells if not c["native"]} == {
        "decode (native read off)",
        "extend-paged (native read off)",
    }
    assert "| decode | 4,096 |" in out.read_text()
    assert svg.read_text().startswith("<svg") and "pool 4,096" in svg.read_text()


@pytest.mark.parametrize(
    "switch,decode,extend",
    [
        (None, "native", "compact"),  # unset: auto
        ("auto", "native", "compact"),
        ("native", "native", "cast"),  # the FP8-KV kernel only: a prefill it does not win keeps the cast
        ("compact", "compact", "compact"),  # never the FP8-KV kernel
        ("off", "cast", "cast"),  # the original path everywhere
    ],
)
def test_each_switch_value_gives_its_path(tmp_path, tree, monkeypatch, switch, decode, extend):
    """SGLANG_MLA_KV_READ, read by the module the fix adds, through the whole CPU harness: each
    value gives its read at each site (plans, runs and the kernel proof agree), and every one
    of them passes against the original."""
    from castlint.validate.harness import KV_READ_ENV

    if switch is None:
        monkeypatch.delenv(KV_READ_ENV, raising=False)
    else:
        monkeypatch.setenv(KV_READ_ENV, switch)
    code, report = _validate(tmp_path, tree, profile=True)
    assert code == 0, report
    assert (report["guard"]["kv_read"] is None) == (switch == "off")
    for name, read in (("decode", decode), ("extend-paged", extend)):
        site = _site(report, name)
        assert site["status"] == "pass" and site["numerics"]["max_abs"] == 0.0, site
        assert site["patched"]["read"] == read, (name, site["patched"]["read"])
        fp8 = {p["kv_dtype"] for p in site["patched"]["plans"]} == {"float8_e4m3fn"}
        assert fp8 == (read == "native"), site["patched"]["plans"]
        assert all((r["ckv_scale"] == 1.0) == (read == "native") for r in site["patched"]["runs"])
        assert site["patched"]["proof"]["moves_whole_pool"] is (read == "cast"), name


def test_patched_file_with_baseline_passes(tmp_path, tree):
    code, report = _validate(tmp_path, tree, patched=_fixed(tree), profile=False)
    assert code == 0
    assert report["baseline"].startswith("--baseline")


def test_wrong_scale_fails_with_a_clear_report(tmp_path, tree):
    # run() given the layer's checkpoint k_scale, which MLATokenToKVPool never applied
    broken = _fixed(tree).replace(b"**self.kv_read.scales(decode_wrapper)", WRONG_SCALES)
    code, report = _validate(tmp_path, tree, patched=broken, profile=False, sites=("decode",))
    assert code == 1
    assert report["passed"] is False
    site = _site(report, "decode")
    assert site["status"] == "fail"
    assert site["numerics"]["within_tolerance"] is False
    assert site["numerics"]["max_abs"] > 0.1
    text = " ".join(site["reasons"])
    assert "differ beyond atol=0.01" in text
    assert "ckv_scale=2" in text and "the scale must be 1.0" in text


def test_wrong_literal_scale_fails(tmp_path, tree):
    broken = _module().replace(b"dict.fromkeys(RUN_SCALES, 1.0) if", b"dict.fromkeys(RUN_SCALES, 0.5) if")
    assert broken != _module()
    code, report = _validate(tmp_path, tree, patched=_fixed(tree), module=broken, profile=False, sites=("decode",))
    assert code == 1
    assert "ckv_scale=0.5" in " ".join(_site(report, "decode")["reasons"])


def test_kv_dtype_left_as_model_dtype_fails_with_a_clear_report(tmp_path, tree):
    broken = _module().replace(b"args[kv_dtype_at] = kv_dtype", b"args[kv_dtype_at] = args[kv_dtype_at]")
    assert broken != _module()
    code, report = _validate(tmp_path, tree, patched=_fixed(tree), module=broken, profile=False, sites=("decode",))
    assert code == 1
    site = _site(report, "decode")
    assert site["status"] == "fail"
    assert site["patched"]["error"].startswith("ValueError: ckv_cache.dtype=torch.float8_e4m3fn does not match")
    assert "left kv_data_type as the model dtype while the FP8 pool is passed" in site["reasons"][0]
    assert {p["kv_dtype"] for p in site["patched"]["plans"]} == {"bfloat16"}


def test_text_report_names_the_failure(tmp_path, tree, capsys):
    broken = _fixed(tree).replace(b"**self.kv_read.scales(decode_wrapper)", WRONG_SCALES)
    patched = tmp_path / "p.py"
    patched.write_bytes(broken)
    out = tmp_path / "report.txt"
    code = run_validate(
        path=str(patched), baseline=str(tree), **dict(SMALL, sites=("decode",), profile=False, output_file=str(out))
    )
    assert code == 1
    text = out.read_text()
    assert "FAIL" in text and "the scale must be 1.0" in text and "decode" in text


def test_old_flashinfer_takes_the_compact_read_and_still_passes(tmp_path, tree):
    # FlashInfer 0.6.13 has no FP8-KV MLA kernel: the guard allows only the compact read, which
    # converts the rows the plan reads and keeps the BF16 plan
    code, report = _validate(tmp_path, tree, emulate_flashinfer="0.6.13", sites=("decode",))
    assert code == 0
    assert report["guard"]["kv_read"]["native"] is False
    assert report["guard"]["kv_read"]["compact"] is True
    site = _site(report, "decode")
    assert site["patched"]["proof"]["moves_whole_pool"] is False
    assert {p["kv_dtype"] for p in site["patched"]["plans"]} == {"bfloat16"}
    code, report = _validate(tmp_path, tree, emulate_flashinfer="0.6.13", sites=("decode",), require_native=True)
    assert code == 1


def test_keyword_call_form_needs_flashinfer_07(tmp_path, tree):
    keyword = _fixed(tree, api="keyword")
    assert b"kv_cache=(" in keyword
    code, _ = _validate(tmp_path, tree, patched=keyword, profile=False, emulate_flashinfer="0.7.2")
    assert code == 0
    code, report = _validate(
        tmp_path, tree, patched=keyword, profile=False, emulate_flashinfer="0.6.18", sites=("decode",)
    )
    assert code == 1
    # FlashInfer 0.6.x has neither plan(metadata=...) nor run(query=..., kv_cache=...)
    assert "unexpected keyword argument" in _site(report, "decode")["patched"]["error"]


def test_cli_validate_json(tmp_path, tree):
    out = tmp_path / "cli.json"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "castlint",
            "validate",
            str(tree),
            "--device",
            "cpu",
            "--preset",
            "deepseek-r1",
            "--tp",
            "8",
            "--pool-tokens",
            "2048",
            "--batch-size",
            "1",
            "--context-len",
            "64",
            "--extend-len",
            "8",
            "--site",
            "decode",
            "--no-profile",
            "--format",
            "json",
            "-o",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    report = json.loads(out.read_text())
    assert report["passed"] and report["config"]["heads"] == 16 and report["config"]["pool_tokens"] == 2048


def test_already_patched_file_needs_a_baseline(tmp_path, tree):
    patched = tmp_path / "p.py"
    patched.write_bytes(_fixed(tree))
    assert run_validate(path=str(patched), **dict(SMALL, sites=("decode",))) == 2


def test_no_gpu_gives_a_clear_message(tmp_path, tree, capsys, monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    code = run_validate(path=str(tree), device="cuda", pool_tokens=2048, context_len=64, batch_size=1)
    assert code == 2
    err = capsys.readouterr().err
    assert "no CUDA GPU" in err and "--device cpu" in err


def test_check_and_fix_never_import_torch(tmp_path, tree):
    code = textwrap.dedent(f"""
        import sys
        from castlint.cli import main
        for argv in (["check", {str(tree)!r}, "--no-cache"], ["fix", "--diff", {str(tree)!r}, "--no-cache"]):
            try:
                main(argv)
            except SystemExit:
                pass
        import castlint.validate, castlint.validate.command
        assert "torch" not in sys.modules, "torch was imported"
        print("ok")
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0 and proc.stdout.strip().endswith("ok"), proc.stderr


@pytest.mark.network
def test_released_sglang_0_5_23(tmp_path):
    from conftest import sglang_tree

    REAL_0523 = sglang_tree("0.5.23")  # fetched from the package index, cached outside the repo
    out = tmp_path / "real.json"
    code = run_validate(
        path=str(REAL_0523), fmt="json", output_file=str(out), profile=False, **{k: v for k, v in SMALL.items()}
    )
    report = json.loads(out.read_text())
    assert code == 0, [s["reasons"] for s in report["sites"]]
    statuses = {s["site"]: s["status"] for s in report["sites"]}
    # 0.5.23 has no draft-extend CUDA graph with FlashInfer MLA (its out-graph metadata refuses the mode)
    assert statuses == {**{name: "pass" for name in statuses}, "draft-extend-cuda-graph": "skipped"}
    assert len(statuses) == 7
    functions = {e["function"] for e in report["plan_calls"]["patched"]["executed"]}
    assert functions == {
        "FlashInferMLAIndicesUpdaterDecode.call_begin_forward",
        "FlashInferMLAIndicesUpdaterPrefill.call_begin_forward",
    }
    graph = _site(report, "decode-cuda-graph")
    assert any(p["via"] == "fast_mla_decode_plan" for p in graph["patched"]["plans"])


def test_original_off_the_reference_is_said_plainly(tmp_path, tree):
    """When the original itself disagrees with the fp32 reference, the report says so, naming the site."""
    from rich.console import Console

    from castlint.validate.harness import HarnessConfig, run_validation
    from castlint.validate.report import render_text

    wrong = tree.read_bytes().replace(
        b"get_key_buffer(layer.layer_id).to(q.dtype)", b"get_key_buffer(layer.layer_id).to(q.dtype) * 2"
    )
    assert wrong != tree.read_bytes()
    cfg = HarnessConfig(
        device="cpu",
        preset="deepseek-r1",
        num_heads_total=128,
        tp=8,
        pool_tokens=2048,
        batch_size=2,
        context_len=96,
        extend_len=8,
        iters=1,
        warmup=1,
        sites=("decode",),
        profile=False,
        use_sglang=False,
    )
    result = run_validation(wrong, wrong, cfg, filename=str(tree))
    site = result.sites[0]
    assert site.status == "pass"  # patched == original
    assert "ORIGINAL code itself differs from the fp32 reference at site decode" in site.baseline_warning
    out = tmp_path / "report.txt"
    with open(out, "w") as fh:
        render_text(result, Console(file=fh, width=200))
    assert "WARNING: the ORIGINAL code itself differs" in out.read_text()


def test_text_report_is_whole_at_80_columns(tmp_path, tree):
    """issue 22 (9): at 80 columns the per-site table (11 columns) becomes a block per site,
    a line per column, and a site panel's title that would be cut moves inside: no cell,
    title or line is cut ("…"), and every cell of the wide table is still there."""
    import re

    from rich.console import Console

    from castlint.validate.harness import HarnessConfig, run_validation
    from castlint.validate.report import _COLUMNS, _site_cells, render_text

    cfg = HarnessConfig(
        device="cpu",
        preset="deepseek-r1",
        num_heads_total=128,
        tp=8,
        pool_tokens=2048,
        batch_size=2,
        context_len=96,
        extend_len=8,
        iters=1,
        warmup=1,
        sites=ORIGINAL_SITES,
        profile=True,
        use_sglang=False,
    )
    result = run_validation(tree.read_bytes(), _fixed(tree), cfg, filename=str(tree))
    assert [site.status for site in result.sites] == ["pass", "pass"]

    def render(width: int) -> str:
        out = tmp_path / f"report-{width}.txt"
        with open(out, "w", encoding="utf-8") as fh:
            render_text(result, Console(file=fh, width=width, highlight=False))
        return out.read_text(encoding="utf-8")

    wide, narrow = render(200), render(80)
    assert "┃ site " in wide and "…" not in wide  # wide enough: the table itself
    assert "…" not in narrow and "┃" not in narrow
    assert max(len(line.rstrip()) for line in narrow.splitlines()) <= 80
    flat = " ".join(re.sub(r"[│╭╮╰╯─]", " ", narrow).split())
    for site in result.sites:
        name, status, *values = [getattr(cell, "plain", cell) for cell in _site_cells(site)]
        assert re.search(rf"^{re.escape(name)}  {status}$", narrow, re.M), name
        for (label, _), value in zip(_COLUMNS[2:], values):
            assert re.search(rf"^  {re.escape(label)} +{re.escape(value)} *$", narrow, re.M), (name, label, value)
            assert value in wide
        assert " ".join(f"functions: {site.functions}".split()) in flat


def test_reference_plan_reads_host_arrays_as_int32_like_flashinfer():
    """FlashInfer's C++ plan reads kv_len_arr as int32: an int64 tensor is misread, silently.
    The CPU reference does the same, so a caller that forgets `.to(torch.int32)` shows up."""
    from castlint.validate.doubles.flashinfer import _as_kernel_int32
    from castlint.validate.doubles.mla import mla_reference

    assert _as_kernel_int32(torch.tensor([5, 7], dtype=torch.int32)).tolist() == [5, 7]
    assert _as_kernel_int32(torch.tensor([5, 7], dtype=torch.int64)).tolist() == [5, 0]
    torch.manual_seed(0)
    q, qp = torch.randn(2, 2, 8), torch.randn(2, 2, 4)
    ckv, kpe = torch.randn(16, 1, 8), torch.randn(16, 1, 4)
    qo, kvp, idx = torch.tensor([0, 1, 2]), torch.tensor([0, 5, 12]), torch.arange(12)
    full, _ = mla_reference(q, qp, ckv, kpe, qo, kvp, idx, 0.3, False)
    same, _ = mla_reference(q, qp, ckv, kpe, qo, kvp, idx, 0.3, False, kv_lens=torch.tensor([5, 7]))
    misread, _ = mla_reference(
        q, qp, ckv, kpe, qo, kvp, idx, 0.3, False, kv_lens=_as_kernel_int32(torch.tensor([5, 7], dtype=torch.int64))
    )
    assert torch.equal(full, same) and not torch.allclose(full[1], misread[1])


@pytest.mark.network
def test_sglang_0_5_10_cuda_graph_decode_matches_the_reference(tmp_path):
    """Issue 9 item 3: the harness handed sglang 0.5.10's CUDA-graph replay an int64 seq_lens_cpu,
    which that release passes to FlashInfer's plan unconverted (0.5.16+ convert it), so the
    original itself was off the fp32 reference by 0.145 on the H200 (0.149 here). sglang's
    CudaGraphRunner passes an int32 buffer; so does the harness now."""
    from conftest import sglang_tree

    tree = sglang_tree("0.5.10")
    out = tmp_path / "r.json"
    code = run_validate(
        path=str(tree),
        device="cpu",
        preset="deepseek-v3",
        tp=16,
        pool_tokens=4096,
        batch_size=8,
        context_len=64,
        sites=("decode-cuda-graph",),
        fmt="json",
        output_file=str(out),
        emulate_flashinfer="0.6.18",
        flashinfer_version="0.6.18",
        profile=False,
        iters=1,
        warmup=1,
    )
    report = json.loads(out.read_text())
    site = report["sites"][0]
    assert code == 0, report
    assert site["original"]["max_abs_vs_fp32_reference"] < 0.01
    assert site["baseline_off_reference"] is None


def test_validate_honours_extend_rules(tmp_path, tree):
    """A user's table (extend-rules) that declares FP8-KV MLA from FlashInfer 0.6.10 reaches both the
    in-memory fix (its guard) and the emulated FlashInfer: 0.6.13 then reads the pool natively."""
    rules = tmp_path / "my_rules.toml"
    from test_validate_extend_rules import FP8_FROM_0_6_10

    rules.write_text("schema = 1\n" + FP8_FROM_0_6_10)
    plain, report = _validate(tmp_path, tree, emulate_flashinfer="0.6.13", sites=("decode",), profile=False)
    assert plain == 0 and report["guard"]["kv_read"]["native"] is False
    config = tmp_path / "elsewhere" / "castlint.toml"
    config.parent.mkdir()
    config.write_text(f'extend-rules = ["{rules}"]\n')
    code, report = _validate(
        tmp_path, tree, emulate_flashinfer="0.6.13", sites=("decode",), profile=False, config_file=str(config)
    )
    assert code == 0, report
    assert report["guard"]["kv_read"] is not None
    assert {p["kv_dtype"] for p in _site(report, "decode")["patched"]["plans"]} == {"float8_e4m3fn"}
