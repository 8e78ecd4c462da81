"""Real released sglang code, fetched from the package index (never committed).

Exact CL001/CL002 findings in the FlashInfer MLA backend, the FA3 MLA cast,
and a whole-tree run with no crash and no internal error.
"""

import json

import pytest

from conftest import run_castlint, sglang_tree

MLA = "srt/layers/attention/flashinfer_mla_backend.py"
FA3 = "srt/layers/attention/flashattention_backend.py"

# (line, code) of every finding castlint reports in the MLA backend, per release.
EXPECTED_MLA = {
    # no cast yet; the decode plan declares q in the KV-cache dtype (CL002, unfixable)
    "0.4.6.post4": [(538, "CL002"), (553, "CL002")],
    # the cast arrives in forward_extend/forward_decode; plans switch to model_runner.dtype
    "0.4.6.post5": [(383, "CL001"), (447, "CL001"), (542, "CL002"), (557, "CL002"), (691, "CL002")],
    "0.5.4": [(562, "CL001"), (626, "CL001"), (721, "CL002"), (736, "CL002"), (869, "CL002")],
    # 761 paged extend and 822 decode; the per-batch dcp_kv_buffer cast at 759 is not flagged
    "0.5.23": [(761, "CL001"), (822, "CL001"), (959, "CL002"), (974, "CL002"), (1134, "CL002"), (1168, "CL002")],
}
EXPECTED_FA3 = {
    "0.4.9": [816, 1065],
    "0.5.23": [1944, 2350],
}


def findings(path, *extra):
    proc = run_castlint("check", "--format", "json", "--no-cache", *extra, path)
    assert proc.returncode in (0, 1), proc.stderr + proc.stdout
    return json.loads(proc.stdout)


@pytest.mark.network
@pytest.mark.parametrize("version", sorted(EXPECTED_MLA))
def test_mla_backend_exact_findings(version):
    report = findings(sglang_tree(version) / MLA)
    got = [(f["start"]["line"], f["code"]) for f in report["findings"]]
    assert got == EXPECTED_MLA[version]
    for f in report["findings"]:
        if f["code"] == "CL001":
            assert f["severity"] == "error"  # forward_decode / forward_extend are hot paths
            assert f["fixable"] and f["cost"]["bytes_per_layer"] == 495552 * 576 * 3
        if version == "0.4.6.post4":
            assert not f["fixable"] and "KV-cache dtype" in f["message"]


@pytest.mark.network
@pytest.mark.parametrize("version", sorted(EXPECTED_FA3))
def test_fa3_mla_cast(version):
    report = findings(sglang_tree(version) / FA3, "--select", "CL001")
    got = [f["start"]["line"] for f in report["findings"]]
    assert got == EXPECTED_FA3[version]
    # the paged-read fix (issue 24): only the pages the page table lists are converted
    assert all(f["fixable"] and f["fix"]["codemod"] == "paged-kv-read" for f in report["findings"]), report["findings"]


@pytest.mark.network
# 0.4.9 and 0.5.23 are whole-tree runs of tests/test_corpus.py (exact findings included)
@pytest.mark.parametrize("version", ["0.4.6.post4", "0.4.6.post5", "0.5.4"])
def test_whole_tree_no_crash_no_internal_error(version):
    tree = sglang_tree(version)
    proc = run_castlint("check", "--format", "json", "--no-cache", tree)
    assert proc.returncode in (0, 1), proc.stderr[-2000:]
    report = json.loads(proc.stdout)
    assert report["errors"] == []
    assert report["summary"]["files_checked"] > 300
    codes = {f["code"] for f in report["findings"]}
    assert "CL002" in codes
    if version != "0.4.6.post4":
        assert "CL001" in codes


# sglang <= 0.4.3 ran MLA through the generic FlashInfer backend (--enable-flashinfer-mla).
LEGACY = "srt/layers/attention/flashinfer_backend.py"
EXPECTED_LEGACY = {
    # decode MLA plan: q and kv both the KV-cache dtype; paged prefill begin_forward without kv_data_type
    "0.4.3": [(737, "CL002"), (994, "CL002")],
    # ... and the paged-prefill MLA plan, on a wrapper annotated Union[Prefill, MLA]
    "0.4.3.post2": [(782, "CL002"), (1045, "CL002"), (1064, "CL002")],
}
# Pools that convert their own storage: the FP4 pools' accessors dequantize the whole layer.
POOL = "srt/mem_cache/memory_pool.py"
EXPECTED_POOL = {"0.5.23": [2843, 2867, 3689, 3707, 5185]}


@pytest.mark.network
@pytest.mark.parametrize("version", sorted(EXPECTED_LEGACY))
def test_legacy_flashinfer_mla_plans(version):
    report = findings(sglang_tree(version) / LEGACY)
    got = [(f["start"]["line"], f["code"]) for f in report["findings"]]
    assert got == EXPECTED_LEGACY[version]
    messages = [f["message"] for f in report["findings"]]
    assert any("both the KV-cache dtype" in m for m in messages)
    assert any("no kv_data_type" in m for m in messages)


@pytest.mark.network
@pytest.mark.parametrize("version", sorted(EXPECTED_POOL))
def test_fp4_pool_accessors_dequantize_the_whole_layer(version):
    report = findings(sglang_tree(version) / POOL, "--select", "CL001,CL004")
    got = [f["start"]["line"] for f in report["findings"]]
    assert got == EXPECTED_POOL[version]
    for f in report["findings"]:
        assert f["code"] == "CL004" and f["severity"] == "error"  # an accessor runs on every layer
        assert "inside the pool accessor" in f["message"]
        # the pool's own cost: e2m1 (half a byte) and one scale byte per 16 values read, BF16 written
        assert f["cost"]["bytes_per_layer"] == int(495552 * 576 * (0.5 + 2 + 1 / 16))
