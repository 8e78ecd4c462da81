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

FP8_FROM_0_6_10 = textwrap.dedent("""
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
bf16_ms_per_token_query = 1.6e-07
    [[mla_signature]]
    version = "0.6.10"
    plan_positional = ["qo_indptr", "kv_indptr", "kv_indices", "kv_len_arr", "num_heads", "head_dim_ckv",
                       "head_dim_kpe", "page_size", "causal", "sm_scale", "q_data_type", "kv_data_type"]
    run_scales = ["ckv_scale", "kpe_scale"]
    run_checks_dtypes = true
""")

TINY_PRESET = textwrap.dedent("""
    [preset.tiny-mla]
    description = "a small MLA model of the user's (32 heads)"
    layers = 2
    kv_lora_rank = 512
    rope_dim = 64
    num_heads = 32
    kv_dtype = "float8_e4m3fn"
    compute_dtype = "bfloat16"
""")


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


def test_validate_drive_fixed_leaves_no_temporary_file(tmp_path, tree, monkeypatch):
    """issue 22: `validate_drive --fixed` wrote /tmp/castlint-fixed-<pid>-*.py and left it."""
    import tempfile

    from castlint.trace.validate_drive import main

    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    rules = _rules(tmp_path, TINY_PRESET)
    (tmp_path / "castlint.toml").write_text(f'extend-rules = ["{rules}"]\n')
    assert main([str(tree), "--fixed", "--preset", "tiny-mla", "--tp", "2", "--steps", "1"]) == 0
    assert list(scratch.iterdir()) == []


def test_validate_drive_main_reports_a_bad_table(tmp_path, tree, capsys):
    bad = tmp_path / "bad.toml"
    bad.write_text("schema = 1\n[[fp8_kv_mla]]\nbackends = []\n")  # `since` missing
    (tmp_path / "castlint.toml").write_text(f'extend-rules = ["{bad}"]\n')
    from castlint.trace.validate_drive import main

    with pytest.raises(SystemExit) as exc:
        main([str(tree)])
    assert exc.value.code == 2
    assert "bad.toml" in capsys.readouterr().err


# -- the emulated FlashInfer (--device cpu) reads its contract from the tables -------------------------


def _emulated_wrapper(tables, version: str, backend: str = "auto"):
    from castlint.validate.doubles.flashinfer import FlashInferEmulation, make_wrapper_class

    cls = make_wrapper_class(FlashInferEmulation(tables, version=version))
    return cls(torch.empty(16, dtype=torch.uint8), backend=backend)


def _plan(wrapper, q_dtype=torch.bfloat16, kv_dtype=torch.float8_e4m3fn, head_dim_ckv=512, head_dim_kpe=64):
    indptr = torch.tensor([0, 4], dtype=torch.int32)
    wrapper.plan(
        torch.tensor([0, 1], dtype=torch.int32),
        indptr,
        torch.arange(4, dtype=torch.int32),
        torch.tensor([4], dtype=torch.int32),
        16,
        head_dim_ckv,
        head_dim_kpe,
        1,
        False,
        0.1,
        q_dtype,
        kv_dtype,
    )


def _row(**keys) -> str:
    """An [[fp8_kv_mla]] row from 0.6.10 with the builtin rows' keys, some changed."""
    row = dict(
        backends='["fa3"]',
        compute_capability="[9, 0]",
        head_dim_ckv="[512]",
        head_dim_kpe="[64]",
        kv_dtypes='["float8_e4m3fn"]',
        q_dtypes='["bfloat16"]',
    )
    row.update(keys)
    return '[[fp8_kv_mla]]\nsince = "0.6.10"\n' + "".join(f"{k} = {v}\n" for k, v in row.items())


@pytest.mark.parametrize(
    "changed,error",
    [
        ({}, None),
        ({"compute_capability": "[10, 0]"}, "requires an SM100 device, got SM90"),
        ({"q_dtypes": '["float16"]'}, "only supports q_data_type=torch.float16, got torch.bfloat16"),
        ({"head_dim_kpe": "[32]"}, "head_dim_kpe in [32], got 512/64"),
    ],
)
def test_fp8_plan_checks_read_the_capability_row(tmp_path, changed, error):
    """The FP8-KV plan() checks of the emulated FlashInfer 0.6.13 follow the user's row (from 0.6.10)."""
    tables = load_tables([_rules(tmp_path, _row(**changed))])
    wrapper = _emulated_wrapper(tables, "0.6.13")
    if error is None:
        _plan(wrapper)
        assert wrapper._kv_data_type == torch.float8_e4m3fn
    else:
        with pytest.raises(ValueError, match=error.replace("[", r"\[").replace("]", r"\]")):
            _plan(wrapper)


def test_builtin_rows_refuse_fp8_kv_before_0_6_14_and_off_sm90():
    from castlint.validate.doubles.flashinfer import FlashInferEmulation, make_wrapper_class

    with pytest.raises(RuntimeError, match="no FP8-KV MLA in this release"):
        _plan(_emulated_wrapper(load_tables(), "0.6.13"))
    ampere = FlashInferEmulation(load_tables(), version="0.7.2", compute_capability=(8, 0))
    with pytest.raises(ValueError, match="requires an SM90 device, got SM80"):
        _plan(make_wrapper_class(ampere)(torch.empty(16, dtype=torch.uint8), backend="fa3"))


def test_auto_backend_and_default_release_come_from_the_tables(tmp_path):
    """backend="auto" is [auto_backend]'s pick for the emulated SM90; the emulated release by default
    is the FlashInfer the newest listed sglang release pins."""
    from castlint.validate.doubles.flashinfer import FlashInferEmulation

    assert _emulated_wrapper(load_tables(), "0.7.2")._backend == "fa3"
    assert FlashInferEmulation(load_tables()).version == "0.7.2"
    tables = load_tables(
        [_rules(tmp_path, '[auto_backend]\nsm90 = "fa2"\n', '[[release]]\nversion = "0.5.99"\nflashinfer = "0.6.18"\n')]
    )
    assert _emulated_wrapper(tables, "0.7.2")._backend == "fa2"
    emu = FlashInferEmulation(tables)
    assert (emu.version, emu.device_name) == ("0.6.18", "emulated SM90 (pure-torch reference MLA)")


def test_the_loader_records_the_plan_functions_the_tables_name(tmp_path):
    """An sglang plan function that a user's [[wrapper]] row declares (function = true, in the backend
    module) is recorded like fast_mla_decode_plan, with its dtypes where the row places them."""
    from castlint.validate.doubles import Registry, RuntimeSettings
    from castlint.validate.doubles.flashinfer import FlashInferEmulation, make_flashinfer_module
    from castlint.validate.loader import MODULE_NAME, load_backend, stubbed_imports

    tables = load_tables(
        [
            _rules(
                tmp_path,
                textwrap.dedent(f'''
        [[wrapper]]
        class = "my_mla_plan"
        module = "{MODULE_NAME}"
        function = true
        q_dtype = {{ index = 2, keyword = "q_data_type" }}
        kv_dtype = {{ index = 3, keyword = "kv_data_type" }}
        aliases = []
    '''),
            )
        ]
    )
    source = textwrap.dedent("""
        from flashinfer import BatchMLAPagedAttentionWrapper

        def my_mla_plan(wrapper, indptr, q_data_type, kv_data_type):
            return wrapper
    """).encode()
    emu = FlashInferEmulation(tables)
    log: set = set()
    with stubbed_imports(Registry(RuntimeSettings(), log), make_flashinfer_module(emu)):
        loaded = load_backend(source, "original", tables=tables, cpu_emulation=emu)
        loaded.module.my_mla_plan(None, None, torch.bfloat16, kv_data_type=torch.float8_e4m3fn)
    (entry,) = loaded.log.entries
    assert (entry["kind"], entry["via"], entry["q_dtype"], entry["kv_dtype"]) == (
        "plan",
        "my_mla_plan",
        "bfloat16",
        "float8_e4m3fn",
    )
