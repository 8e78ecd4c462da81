"""`castlint validate --device cpu` on the speculative-decoding sites, and the pieces around them.

* target-verify / draft-extend and their CUDA-graph variants driven through sglang 0.5.23's,
  0.5.16's and 0.5.10's own entry points, original against original (the harness and the fp32
  reference agree with sglang's own plan), and against `castlint fix`'s rewrite;
* a patch that keeps capture-time state fails: the graph sites capture at sglang's capture
  shapes (seq_lens = the fill value) and replay at the real ones;
* the chunked fp32 reference, the per-step line, the heat map's colours, --no-native.
"""

from __future__ import annotations

import functools
import json
import os

import pytest

torch = pytest.importorskip("torch")

from castlint.validate.harness import HarnessConfig, run_validation  # noqa: E402

pytestmark = pytest.mark.torch

SPEC_SITES = ("target-verify", "target-verify-cuda-graph", "draft-extend", "draft-extend-cuda-graph")
SMALL = dict(
    device="cpu",
    preset="deepseek-r1",
    num_heads_total=128,
    tp=8,
    pool_tokens=4096,
    batch_size=2,
    context_len=64,
    extend_len=8,
    draft_tokens=4,
    iters=1,
    warmup=1,
    profile=False,
    use_sglang=False,
)
BACKEND = "srt/layers/attention/flashinfer_mla_backend.py"


@pytest.fixture(autouse=True)
def one_thread():
    """The reference's shapes are tiny: on a busy machine, torch's thread pool costs more than it gives."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def _release(version: str) -> bytes:
    from conftest import sglang_tree

    return (sglang_tree(version) / BACKEND).read_bytes()


@functools.lru_cache(maxsize=None)
def _fixed(source: bytes) -> bytes:
    from castlint.fixes import FixOptions, fix_source
    from castlint.tables import load_tables

    return fix_source(source, "flashinfer_mla_backend.py", load_tables(), FixOptions()).new_source


def _sites(result):
    return {site.name: site for site in result.sites}


@pytest.mark.network
@pytest.mark.parametrize("version,graph_draft_extend", [("0.5.23", False), ("0.5.16", False), ("0.5.10", True)])
def test_spec_sites_run_the_original_release(version, graph_draft_extend):
    """Original against original: each new site passes and matches the fp32 reference (causal within
    the draft window), or, where the release has no such CUDA-graph path, is skipped saying why."""
    original = _release(version)
    result = run_validation(original, original, HarnessConfig(**SMALL, sites=SPEC_SITES))
    sites = _sites(result)
    assert result.passed, {s.name: s.reasons for s in result.sites}
    for name in SPEC_SITES:
        if name == "draft-extend-cuda-graph" and not graph_draft_extend:
            assert sites[name].status == "skipped"
            assert "no CUDA-graph path for DRAFT_EXTEND_V2" in sites[name].reasons[0]
            continue
        assert sites[name].status == "pass", sites[name].reasons
        assert sites[name].max_abs == 0.0
        assert sites[name].original.vs_fp32_max_abs < 0.01, name
    graph_plans = sites["target-verify-cuda-graph"].original.plans
    assert len(graph_plans) == 2  # the capture's plan, then the replay's
    if version == "0.5.23":  # the replay re-plans through sglang's sync-free fast_mla_prefill_plan
        assert [p["via"] for p in graph_plans] == ["wrapper.plan", "fast_mla_prefill_plan"]
    assert result.doubles_unknown_reads == []


@pytest.mark.network
def test_graph_site_catches_a_patch_that_keeps_capture_time_indices():
    """The verify graph is captured at sglang's capture shapes (seq_lens 1, request row 0) and replayed
    at the real ones: a patch whose replay plan leaves the captured kv_indices in the graph's buffer
    reads the capture's rows and fails."""
    original = _release("0.5.23")
    stale = original.replace(b"    self._kv_indices_buf[: len(kv_indices)].copy_(kv_indices, non_blocking=True)\n", b"")
    assert stale != original
    result = run_validation(original, stale, HarnessConfig(**SMALL, sites=("target-verify-cuda-graph",)))
    site = result.sites[0]
    assert site.status == "fail" and site.mismatched > 0, site.reasons


@pytest.mark.network
def test_cli_target_verify_reports_the_read_each_wrapper_chose(tmp_path):
    """`castlint validate --site target-verify --format json` on sglang 0.5.23, fixed in memory by the
    CLI: the JSON names the read (native | compact | cast) of every planned wrapper and of the verify
    wrapper the site ran; --draft-tokens sets the window."""
    from conftest import run_castlint, sglang_tree

    out = tmp_path / "verify.json"
    proc = run_castlint(
        "validate",
        sglang_tree("0.5.23"),
        "--device",
        "cpu",
        "--preset",
        "deepseek-r1",
        "--tp",
        "8",
        "--pool-tokens",
        "4096",
        "--batch-size",
        "2",
        "--context-len",
        "64",
        "--draft-tokens",
        "3",
        "--site",
        "target-verify",
        "--no-profile",
        "--format",
        "json",
        "-o",
        out,
    )
    assert proc.returncode == 0, proc.stderr
    report = json.loads(out.read_text())
    site = report["sites"][0]
    assert report["config"]["draft_tokens"] == 3 and site["site"] == "target-verify"
    assert site["status"] == "pass", site["reasons"]
    reads = site["patched"]["reads"]
    assert "prefill_wrapper_verify" in reads and set(reads.values()) <= {"native", "compact", "cast"}
    assert site["patched"]["read"] == reads["prefill_wrapper_verify"]
    assert site["original"]["reads"] == {} and site["original"]["read"] is None


@pytest.mark.network
def test_verify_graph_wrapper_does_not_keep_the_whole_pool_cast():
    """The CUDA-graph verify wrapper of the fixed 0.5.23 backend reads the pool without casting all of
    it (native or compact), in a graph captured at other shapes than it replays, within tolerance.
    (Needs the emitted code's graph-safe reads: the earlier fix kept the cast on graph wrappers.)"""
    original = _release("0.5.23")
    result = run_validation(
        original, _fixed(original), HarnessConfig(**dict(SMALL, profile=True), sites=("target-verify-cuda-graph",))
    )
    site = result.sites[0]
    assert site.status == "pass", site.reasons
    assert site.patched.read in ("native", "compact"), site.patched.reads
    assert not site.patched.proof.moves_whole_pool


def test_chunked_reference_equals_the_unchunked_one(monkeypatch):
    """The fp32 reference in chunks of queries (scores bounded by chunk_bytes) gives the one-piece
    result, causal and not, with a query that sees no kv at all (0, as FlashInfer gives)."""
    from castlint.validate.doubles import mla as reference

    torch.manual_seed(0)
    heads, tokens = 3, 13
    q, qp = torch.randn(tokens, heads, 16), torch.randn(tokens, heads, 8)
    ckv, kpe = torch.randn(64, 1, 16), torch.randn(64, 1, 8)
    qo, kvp = torch.tensor([0, 9, 11, 13]), torch.tensor([0, 20, 21, 40])  # request 1: 2 queries, 1 kv
    idx = torch.randperm(64)[:40]
    sizes = []
    real = reference._attend_rows
    monkeypatch.setattr(
        reference, "_attend_rows", lambda qn, *a: sizes.append(qn.shape[0] * heads * a[1].shape[0] * 4) or real(qn, *a)
    )
    for causal in (True, False):
        whole, whole_lse = reference.mla_reference(q, qp, ckv, kpe, qo, kvp, idx, 0.2, causal)
        sizes.clear()
        chunked, chunked_lse = reference.mla_reference(
            q, qp, ckv, kpe, qo, kvp, idx, 0.2, causal, chunk_bytes=2 * heads * 20 * 4
        )
        assert torch.allclose(whole, chunked, atol=1e-6) and torch.equal(whole_lse.isinf(), chunked_lse.isinf())
        assert len(sizes) > 3 and max(sizes) <= 2 * heads * 20 * 4
    assert torch.equal(whole[9:11].abs().sum(-1) > 0, torch.ones(2, heads, dtype=torch.bool))
    causal, _ = reference.mla_reference(q, qp, ckv, kpe, qo, kvp, idx, 0.2, True)
    assert torch.count_nonzero(causal[9]) == 0  # its first query sees none of the request's one kv row


def _timed_result(original_ms: float, patched_ms: float):
    from castlint.validate.harness import SiteResult, Timing, ValidationResult

    site = SiteResult(name="target-verify", functions="")
    site.original.timing = Timing(original_ms, original_ms, original_ms, 3, 0.0, "")
    site.patched.timing = Timing(patched_ms, patched_ms, patched_ms, 3, 0.0, "")
    skipped = SiteResult(name="draft-extend-cuda-graph", functions="", status="skipped")
    config = {
        "preset": "glm-5",
        "model_layers": 78,
        "num_heads_total": 64,
        "tp": 1,
        "heads": 64,
        "kv_lora_rank": 512,
        "rope_dim": 64,
        "pool_tokens": 495552,
        "batch_size": 8,
        "context_len": 4096,
        "extend_len": 32,
        "draft_tokens": 4,
        "atol": 0.01,
        "rtol": 0.01,
    }
    return ValidationResult(
        file="f.py",
        baseline="b",
        environment={"kv_read": "auto"},
        config=config,
        guard={},
        sites=[site, skipped],
        doubles_unknown_reads=[],
        plan_calls={},
    )


def test_per_step_line_multiplies_the_saving_by_the_presets_layers(tmp_path):
    """(original_ms - patched_ms) x the preset's layers (78 for GLM-5), per site, in text and JSON."""
    from rich.console import Console

    from castlint.validate.report import per_step_line, render_text, to_json

    result = _timed_result(0.5, 0.1)
    line = per_step_line(result)
    assert line == "per step over 78 layers (glm-5): target-verify 31.200 ms saved (39.000 → 7.800 ms)"
    out = tmp_path / "report.txt"
    with open(out, "w") as fh:
        render_text(result, Console(file=fh, width=200))
    assert line in out.read_text()
    data = to_json(result)
    assert data["per_step"] == {"layers": 78, "preset": "glm-5", "saved_ms": {"target-verify": pytest.approx(31.2)}}
    assert data["sites"][0]["per_step"]["saved_ms"] == pytest.approx(31.2)
    assert data["sites"][1]["per_step"] is None
    assert "7.800 ms lost" in per_step_line(_timed_result(0.1, 0.2))


def test_heat_map_colour_follows_the_verdict():
    """A cell that passes inside its margin (0.98x within 6.5 %) is not painted as failed; a failed one
    is red whatever its speed-up; a skipped one grey; a faster pass green."""
    from castlint.validate import sweep

    def cell(status, speedup):
        return sweep.Cell(
            "target-verify", 495552, 8, 4096, draft_tokens=4, status=status, speedup=speedup, margin=0.065
        )

    within = cell("pass", 0.98)
    assert sweep.cell_color(within) == sweep.COLOR_PARITY != sweep.COLOR_FAILED
    assert sweep.cell_color(cell("fail", 1.5)) == sweep.COLOR_FAILED
    assert sweep.cell_color(cell("skipped", None)) == sweep.COLOR_SKIPPED
    faster = sweep.cell_color(cell("pass", 3.0))
    assert faster not in (sweep.COLOR_FAILED, sweep.COLOR_PARITY) and int(faster[3:5], 16) > int(faster[1:3], 16)
    svg = sweep.heatmap_svg([within, replace_site(within, "decode", "fail", 1.2)], "t")
    assert f'fill="{sweep.COLOR_PARITY}"' in svg and f'fill="{sweep.COLOR_FAILED}"' in svg
    assert "0.98x" in svg and "0.98x fail" not in svg and "1.20x fail" in svg


def replace_site(cell, site, status, speedup):
    from dataclasses import replace

    return replace(cell, site=site, status=status, speedup=speedup)


def test_sweep_grid_covers_the_new_sites_and_the_native_read_off():
    from castlint.validate.sweep import grid, passed

    cells = grid("cuda")
    assert {c.pool_tokens for c in cells} == {65536, 495552}
    assert {c.site for c in cells} == {"decode", "extend-paged", *SPEC_SITES}
    assert {(c.batch_size, c.draft_tokens) for c in cells if c.site == "target-verify"} == {(8, 4), (32, 4)}
    assert sum(c.site == "extend-paged" and c.context_len == 32768 and c.extend_len == 8192 for c in cells) == 3
    off = [c for c in cells if not c.native]
    assert off and all(c.pool_tokens == 495552 for c in off) and {c.site for c in off} >= {"target-verify", "decode"}
    assert len(cells) <= 32  # one command per FlashInfer version stays under 10 minutes on an H200
    assert all(not c.native for c in grid("cuda", native=False))
    done = [
        c.__class__(**{**vars(c), "status": "skipped" if c.site == "draft-extend-cuda-graph" else "pass"})
        for c in cells
    ]
    assert passed(done)  # a skipped cell (a path the release lacks) fails nothing


@pytest.mark.network
def test_no_native_sets_the_read_environment_for_the_run(tmp_path, monkeypatch):
    """--no-native: SGLANG_MLA_KV_READ=compact while the backends are built (the patched module reads
    it then), the value before restored afterwards; the text and JSON reports say "native read off"."""
    from castlint.validate import harness
    from castlint.validate.command import run_validate
    from conftest import sglang_tree

    seen = {}
    built = harness.SiteDriver.__init__

    def record(self, loaded, world):
        seen[loaded.label] = os.environ.get("SGLANG_MLA_KV_READ")
        built(self, loaded, world)

    monkeypatch.setattr(harness.SiteDriver, "__init__", record)
    monkeypatch.setenv("SGLANG_MLA_KV_READ", "auto")
    out, text = tmp_path / "r.json", tmp_path / "r.txt"
    options = dict(
        device="cpu",
        preset="deepseek-r1",
        tp=8,
        pool_tokens=4096,
        batch_size=2,
        context_len=64,
        sites=["target-verify"],
        profile=False,
        iters=1,
        warmup=1,
        no_native=True,
        patched_source=_fixed(_release("0.5.23")),
    )
    assert run_validate(str(sglang_tree("0.5.23")), fmt="json", output_file=str(out), **options) == 0
    assert seen == {"original": "compact", "patched": "compact"}
    assert os.environ["SGLANG_MLA_KV_READ"] == "auto"
    report = json.loads(out.read_text())
    assert report["kv_read"].startswith("native read off") and report["config"]["native_read"] is False
    assert run_validate(str(sglang_tree("0.5.23")), output_file=str(text), **options) == 0
    assert "native read off (SGLANG_MLA_KV_READ=compact)" in text.read_text()
    assert run_validate(str(sglang_tree("0.5.23")), require_native=True, **options) == 2


def test_no_native_fails_a_patch_that_ignores_the_switch():
    """Under --no-native a patched run() on the FP8 pool as stored (the switch ignored) fails the site,
    so that "native read off" numbers are never the native path's."""
    from castlint.validate.harness import SiteResult, _require_native_off

    site = SiteResult(name="decode", functions="")
    site.patched.runs = [{"ckv_dtype": "float8_e4m3fn"}]
    _require_native_off(site)
    assert site.status == "fail" and "does not honour the switch" in site.reasons[0]
    compact = SiteResult(name="decode", functions="")
    compact.patched.runs, compact.patched.read = [{"ckv_dtype": "bfloat16"}], "compact"
    _require_native_off(compact)
    assert compact.status == "pass" and not compact.reasons


@pytest.mark.network
def test_sweep_runs_the_spec_cells_and_skips_what_the_release_lacks(tmp_path):
    """A CPU sweep of the speculative sites on sglang 0.5.23 (fixed in memory): every cell that runs
    passes, the draft-extend graph (no such path in 0.5.23) is skipped, and the exit is 0."""
    from castlint.validate.command import run_validate
    from conftest import sglang_tree

    js, svg = tmp_path / "s.json", tmp_path / "s.svg"
    code = run_validate(
        str(sglang_tree("0.5.23")),
        device="cpu",
        preset="deepseek-r1",
        tp=8,
        sweep=True,
        sweep_pools=[4096],
        sites=["target-verify-cuda-graph", "draft-extend-cuda-graph"],
        json_file=str(js),
        sweep_svg=str(svg),
        output_file=str(tmp_path / "s.md"),
        iters=1,
        warmup=1,
        patched_source=_fixed(_release("0.5.23")),
    )
    cells = json.loads(js.read_text())["cells"]
    assert code == 0, [c["reasons"] for c in cells]
    assert {(c["label"], c["status"]) for c in cells} == {
        ("target-verify-cuda-graph", "pass"),
        ("target-verify-cuda-graph (native read off)", "pass"),
        ("draft-extend-cuda-graph", "skipped"),
    }
    assert "saved_ms_per_step" in cells[0] and "PASS" in (tmp_path / "s.md").read_text()
