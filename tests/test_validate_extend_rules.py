"""`castlint validate` and the validate harness that `castlint trace` drives read their API facts from
the tables the run loaded: the builtin rules/*.toml and the config's extend-rules.

A user's table adds a model preset and declares FP8-KV MLA from FlashInfer 0.6.10; the harness
(trace.validate_drive), the emulated FlashInfer of `--device cpu` and `python -m
castlint.trace.validate_drive` must all see it.
"""
from __future__ import annotations

import textwrap

import pytest

torch = pytest.importorskip("torch")

from castlint.tables import load_tables  # noqa: E402
from test_validate_cpu import BACKEND  # noqa: E402

pytestmark = pytest.mark.torch

FP8_FROM_0_6_10 = textwrap.dedent('''
    [[fp8_kv_mla]]
    since = "0.6.10"
    backends = ["fa3"]
    compute_capability = [9, 0]
    head_dim_ckv = [512]
    head_dim_kpe = [64]
    kv_dtypes = ["float8_e4m3fn"]
    q_dtypes = ["bfloat16"]
    [[mla_kv_read]]
    since = "0.6.10"
    margin = 0.8
    cast_ms_per_pool_token = 1.77e-06
    gather_ms = 0.0
    gather_ms_per_token = 2.3e-06
    native_ms = 0.05
    native_ms_per_token_query = 8.6e-07
    [[mla_signature]]
    version = "0.6.10"
    plan_positional = ["qo_indptr", "kv_indptr", "kv_indices", "kv_len_arr", "num_heads", "head_dim_ckv",
                       "head_dim_kpe", "page_size", "causal", "sm_scale", "q_data_type", "kv_data_type"]
    run_scales = ["ckv_scale", "kpe_scale"]
    run_checks_dtypes = true
''')

TINY_PRESET = textwrap.dedent('''
    [preset.tiny-mla]
    description = "a small MLA model of the user's (32 heads)"
    layers = 2
    kv_lora_rank = 512
    rope_dim = 64
    num_heads = 32
    kv_dtype = "float8_e4m3fn"
    compute_dtype = "bfloat16"
''')


def _rules(tmp_path, *sections: str):
    path = tmp_path / "my_rules.toml"
    path.write_text("schema = 1\n" + "\n".join(sections))
    return path


@pytest.fixture
def tree(tmp_path):
    """An sglang-shaped tree (sglang/version.py + the backend file of test_validate_cpu)."""
    pkg = tmp_path / "sglang"
    attention = pkg / "srt" / "layers" / "attention"
    attention.mkdir(parents=True)
    (pkg / "version.py").write_text('__version__ = "0.5.23"\n')
    path = attention / "flashinfer_mla_backend.py"
    path.write_text(BACKEND)
    return path


def test_decode_session_takes_the_run_tables(tmp_path, tree):
    """trace.validate_drive: the preset and the emulated FlashInfer's FP8-KV rows come from the tables
    handed in, so FlashInfer 0.6.13 (no FP8-KV MLA in the builtin tables) reads the pool natively."""
    from castlint.fixes import FixOptions, fix_source
    from castlint.trace.validate_drive import DecodeSession, harness_config

    tables = load_tables([_rules(tmp_path, FP8_FROM_0_6_10, TINY_PRESET)])
    cfg = harness_config("cpu", preset="tiny-mla", tp=2, tables=tables, emulate_flashinfer="0.6.13")
    assert (cfg.num_heads_total, cfg.heads) == (32, 16)
    original = tree.read_bytes()
    fixed = fix_source(original, str(tree), tables, FixOptions()).new_source
    fixed_path = tmp_path / "fixed_backend.py"
    fixed_path.write_bytes(fixed)
    with DecodeSession({"original": (tree, original), "patched": (fixed_path, fixed)}, cfg, tables) as session:
        assert session.guards["patched"], "the fixed file's init-time guard declined"
        assert "decode_wrapper=native" in session.read_modes["patched"]
        for label in ("original", "patched"):
            session.calls[label](False)


def test_validate_drive_main_reads_the_config_beside_the_tree(tmp_path, tree, capsys):
    """`python -m castlint.trace.validate_drive TREE --preset tiny-mla`: the preset is the user's, from
    the extend-rules of the castlint.toml above the tree."""
    from castlint.trace.validate_drive import main

    rules = _rules(tmp_path, TINY_PRESET)
    (tmp_path / "castlint.toml").write_text(f'extend-rules = ["{rules}"]\n')
    assert main([str(tree), "--fixed", "--preset", "tiny-mla", "--tp", "2", "--steps", "1"]) == 0
    err = capsys.readouterr().err
    assert "original:" in err and "patched:" in err and "decode_wrapper=native" in err


def test_validate_drive_main_reports_a_bad_table(tmp_path, tree, capsys):
    bad = tmp_path / "bad.toml"
    bad.write_text("schema = 1\n[[fp8_kv_mla]]\nbackends = []\n")  # `since` missing
    (tmp_path / "castlint.toml").write_text(f'extend-rules = ["{bad}"]\n')
    from castlint.trace.validate_drive import main

    with pytest.raises(SystemExit) as exc:
        main([str(tree)])
    assert exc.value.code == 2
    assert "bad.toml" in capsys.readouterr().err
