"""The per-decode-step total: only the sites a decode step runs, per backend class, the largest
shown (issue 12, bug 5)."""

import json
import textwrap

import pytest

from castlint.models import Cost, Finding, Position, Severity, human_bytes, step_total
from castlint.tables import load_tables
from conftest import corpus_check, run_castlint, sglang_tree

GB = 10**9
WORDS = load_tables().decode_step_exclude_words


def finding(function, step_bytes, severity=Severity.ERROR, path="a.py"):
    return Finding(
        "CL001",
        "whole-pool-cast",
        severity,
        path,
        Position(1, 1),
        Position(1, 2),
        "m",
        cost=Cost(step_bytes // 78, step_bytes, "glm-5", 495552),
        function=function,
    )


def test_extend_sites_are_not_in_the_decode_step():
    total = step_total(
        [
            finding("B.forward_decode", 66 * GB),
            finding("B.forward_extend", 66 * GB),
            finding("B._forward_extend_paged", 10 * GB),
            finding("B.prefill_helper", 5 * GB),
        ],
        WORDS,
    )
    assert total.bytes_per_step == 66 * GB and total.backend == "B"


def test_alternative_backends_are_not_summed():
    total = step_total(
        [
            finding("Fa3.forward_decode", 66 * GB, path="fa3.py"),
            finding("Xpu.forward_decode", 66 * GB, path="xpu.py"),
            finding("Mla.forward_decode", 66 * GB, path="mla.py"),
            finding("Mla.helper", 10 * GB, path="mla.py"),
        ],
        WORDS,
    )
    assert total.bytes_per_step == 76 * GB and total.backend == "Mla" and total.alternatives == 3


def test_warnings_and_module_functions():
    total = step_total([finding("B.setup", 66 * GB, severity=Severity.WARNING), finding("forward", 3 * GB)], WORDS)
    assert total.bytes_per_step == 3 * GB and total.backend == "a.py"
    assert step_total([], WORDS).bytes_per_step == 0


def test_summary_line(tmp_path):
    (tmp_path / "b.py").write_text(
        textwrap.dedent("""
        class A:
            def forward_decode(self, q, layer):
                return self.token_to_kv_pool.get_key_buffer(layer.layer_id).to(q.dtype)

            def forward_extend(self, q, layer):
                return self.token_to_kv_pool.get_key_buffer(layer.layer_id).to(q.dtype)


        class B:
            def forward_decode(self, q, layer):
                return self.token_to_kv_pool.get_key_buffer(layer.layer_id).to(q.dtype)
    """)
    )
    proc = run_castlint("check", tmp_path)
    assert proc.stdout.splitlines()[-1].endswith(
        "hot-path casts move 66.8 GB per decode step in the costliest of 2 backends (A; a server runs one)."
    )


@pytest.mark.network
def test_sglang_0_4_8_counts_forward_decode_once():
    """Before: 2 x 66.8 GB, one of the two sites being in forward_extend."""
    proc = run_castlint("check", sglang_tree("0.4.8") / "srt/layers/attention/flashinfer_mla_backend.py")
    summary = proc.stdout.splitlines()[-1]
    assert "hot-path casts move 66.8 GB per decode step." in summary, summary
    hot = [
        f
        for f in json.loads(
            run_castlint(
                "check", "-f", "json", sglang_tree("0.4.8") / "srt/layers/attention/flashinfer_mla_backend.py"
            ).stdout
        )["findings"]
        if f["severity"] == "error" and f["code"] == "CL001"
    ]
    assert sorted(f["function"].split(".")[1] for f in hot) == ["forward_decode", "forward_extend"]


@pytest.mark.network
def test_sglang_0_5_23_shows_the_largest_backend_not_the_sum():
    """Before: hundreds of GB, summed over FA3, xpu, musa, FlashInfer-MLA and the rest. The whole
    tree, from its parent, on the cache the corpus tests' cold check left (conftest.corpus_check)."""
    corpus_check("sglang==0.5.23")
    tree = sglang_tree("0.5.23")

    def castlint(*args):
        return run_castlint(*args, tree, cwd=tree.parent)

    findings = json.loads(castlint("check", "-f", "json").stdout)["findings"]
    total = step_total([_finding(f) for f in findings], WORDS)
    backends = {name.split(" (")[0] for name, _ in total.backends}
    assert {"FlashAttentionBackend", "FlashInferMLAAttnBackend", "XPUAttentionBackend"} <= backends
    summed = sum(n for _, n in total.backends)
    assert total.bytes_per_step == max(n for _, n in total.backends) < summed
    summary = castlint("check").stdout.splitlines()[-1]
    assert (
        f"hot-path casts move {human_bytes(total.bytes_per_step)} per decode step in the costliest of "
        f"{total.alternatives} backends ({total.backend}; a server runs one)."
    ) in summary, summary
    stats = castlint("check", "--statistics").stdout
    assert "FlashInferMLAAttnBackend" in stats and "XPUAttentionBackend" in stats


def _finding(d):
    """A Finding from its --format json dict (what step_total reads)."""
    cost = Cost(**d["cost"]) if d["cost"] else None
    return Finding(
        d["code"],
        d["name"],
        Severity(d["severity"]),
        d["path"],
        Position(**d["start"]),
        Position(**d["end"]),
        d["message"],
        cost=cost,
        function=d["function"],
        accessor=d.get("accessor"),
    )  # a pool accessor's finding is no backend (issue 22)


def test_github_summary_and_bot_comment_show_the_costliest_backend_not_the_sum():
    from castlint.bot.comment import Links, render
    from castlint.report import github

    findings = [
        finding("Fa3.forward_decode", 66 * GB, path="fa3.py"),
        finding("Xpu.forward_decode", 66 * GB, path="xpu.py"),
        finding("Mla.forward_decode", 66 * GB, path="mla.py"),
        finding("Mla.forward_extend", 66 * GB, path="mla.py"),
    ]
    summary = github.render(findings, [], {"files": 3, "step_total_exclude": WORDS}).splitlines()[-1]
    assert f"move {human_bytes(66 * GB)} per decode step in the costliest of 3 backends" in summary
    body = render(
        findings,
        [],
        paths={i: f.path for i, f in enumerate(findings)},
        links=Links("https://x", "o/r", "a" * 40),
        fixes={},
        files_checked=3,
        previous=None,
        version="0",
        step_exclude=WORDS,
    )
    assert f"**{human_bytes(66 * GB)} per decode step** in the costliest of 3 alternative backends" in body
    assert human_bytes(4 * 66 * GB) not in body.split("| |")[0]
