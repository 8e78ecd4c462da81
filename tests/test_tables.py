"""rules/*.toml: validated on load, shipped in the wheel, and the single source of API facts."""

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from castlint.tables import TableError, load_tables
from conftest import ROOT

TABLES = load_tables()


def test_builtin_tables_load_and_cover_the_facts():
    assert {"get_key_buffer", "get_value_buffer", "get_kv_buffer"} <= set(TABLES.accessors)
    assert {"to", "float", "half", "bfloat16", "double", "type", "type_as"} <= set(TABLES.casts)
    assert TABLES.reinterpret_methods == {"view"}
    classes = {w.cls for w in TABLES.wrappers}
    assert {
        "BatchMLAPagedAttentionWrapper",
        "BatchDecodeWithPagedKVCacheWrapper",
        "BatchPrefillWithPagedKVCacheWrapper",
        "fast_mla_decode_plan",
        "fast_mla_prefill_plan",
    } <= classes
    decode = next(w for w in TABLES.wrappers if w.cls == "BatchDecodeWithPagedKVCacheWrapper")
    assert "data_type" in decode.aliases
    fast = next(w for w in TABLES.wrappers if w.cls == "fast_mla_decode_plan")
    assert fast.function and fast.kv_dtype.index == 12  # the wrapper (self) is argument 0
    assert TABLES.presets["deepseek-v3"].layers == 61 and TABLES.presets["glm-5"].layers == 78
    assert TABLES.presets["glm-5"].kv_lora_rank == 512 and TABLES.presets["glm-5"].rope_dim == 64
    assert "quantize_k_cache" in TABLES.conversion_helpers
    assert (
        TABLES.flashinfer_pin("0.5.23") == "0.7.2" and TABLES.flashinfer_pin("0.5.10") == "0.6.7.post2"
    )  # its wheel pins it (rules/sglang.toml)


def test_issue_11_facts_are_data():
    """Calling conventions, FP4 pool helpers, allocation words, index values: tables, not code."""
    vllm = [row for row in TABLES.cache_parameters if row.engine == "vllm"]
    assert any(
        "kv_cache" in row.params and "forward" in row.methods and row.requires == ("attn_metadata",) for row in vllm
    )
    assert {row.engine for row in TABLES.cache_parameters} >= {"vllm", "lmdeploy"}
    assert "kv_cache_manager" in TABLES.accessors["get_buffers"].receivers  # TensorRT-LLM (and its draft manager)
    fp4 = TABLES.conversion_helpers["batched_dequantize"]
    assert (fp4.source_dtype, fp4.target_dtype, fp4.scale_block) == ("fp4_e2m1", "bfloat16", 16)
    assert TABLES.dtype_bytes["fp4_e2m1"] == 0.5
    assert "bs" in TABLES.batch_words and "size" in TABLES.pool_words and "layer_id" in TABLES.scalar_attributes
    assert {"split", "chunk", "unbind"} <= TABLES.tuple_view_methods and "narrow" in TABLES.narrow_methods
    assert "copy_" in TABLES.copy_methods and "torch.Tensor" in TABLES.unbound_receivers
    assert "kv_cache" in TABLES.cache_attributes


def test_prefilter_reads_cache_attributes_whole():
    """`.kv_cache[` is a cache attribute; `.kv_cache_dtype` is not."""
    from castlint.engine import encoded_triggers
    from castlint.prefilter import has_trigger

    groups = encoded_triggers(TABLES)
    assert has_trigger(b"x = self.kv_cache[ve].to(torch.float32)\n", groups)
    assert not has_trigger(b"x = self.kv_cache_dtype.to(torch.float32)\n", groups)
    # a convention parameter passes only with the rest of its convention
    assert has_trigger(b"def forward(self, q, kv_cache, attn_metadata):\n    return kv_cache.float()\n", groups)
    assert not has_trigger(b"def forward(self, q, kv_cache):\n    return kv_cache.float()\n", groups)


@pytest.mark.parametrize(
    "text,needle",
    [
        (
            "schema = 1\n[[cache_parameter]]\nengine = 'x'\nmethods = ['forward']\nparams = ['c']\nreturns = 'list'\n",
            "[cache_parameter[0].returns] must be 'tensor' or 'tuple'",
        ),
        (
            "schema = 1\n[[cache_parameter]]\nengine = 'x'\nmethods = []\nparams = ['c']\n",
            "needs at least one method and one parameter",
        ),
        ("schema = 1\n[dtype_bytes]\nfp4 = 0\n", "[dtype_bytes.fp4] must be a positive number"),
        (
            "schema = 1\n[[conversion_helper]]\nname = 'h'\ndirection = 'dequantize'\nscale_block = -1\n",
            "[conversion_helper[0].scale_block]",
        ),
        ("schema = 1\n[allocation]\nsizes = ['x']\n", "unknown key(s): sizes"),
    ],
)
def test_invalid_issue_11_tables(tmp_path, text, needle):
    bad = tmp_path / "mine.toml"
    bad.write_text(text)
    with pytest.raises(TableError) as info:
        load_tables([bad])
    assert needle in str(info.value)


def test_own_calling_convention_by_extend_rules(tmp_path):
    """A user's engine: a table row makes its parameter a whole cache, no Python needed."""
    import libcst as cst

    from castlint.config import Config
    from castlint.engine import analyze_module

    extra = tmp_path / "engine.toml"
    extra.write_text(
        "schema = 1\n[[cache_parameter]]\nengine = 'mine'\nmethods = ['attend']\n"
        "params = ['cache']\nrequires = ['plan']\nreturns = 'tensor'\n"
    )
    tables = load_tables([extra])
    source = "def attend(q, cache, plan):\n    return cache.to(q.dtype)\n"
    config = Config()
    found = analyze_module(cst.parse_module(source), "x.py", source, tables, config, config.cost_model(tables))
    assert [f.code for f in found] == ["CL001"]
    assert analyze_module(cst.parse_module(source), "x.py", source, TABLES, config, config.cost_model(TABLES)) == []


def test_prefilter_is_derived_from_the_tables(tmp_path):
    from castlint.prefilter import trigger_groups

    extra = tmp_path / "extra.toml"
    extra.write_text("schema = 1\n[[accessor]]\nname = 'get_paged_latent'\n")
    words = {w for group in trigger_groups(load_tables([extra])) for ws in group for w in ws}
    assert ".get_paged_latent" in words and "'get_paged_latent'" in words  # called or bound; getattr


@pytest.mark.parametrize(
    "text,needle",
    [
        ("schema = 2\n", "[schema] unsupported schema 2"),
        ("schema = 1\nsurprise = 1\n", "unknown key(s): surprise"),
        ("schema = 1\n[[accessor]]\nreturns = 'tensor'\n", "[accessor[0].name] is required"),
        ("schema = 1\n[[cast]]\nmethod = 'to'\nform = 'sometimes'\n", "[cast[0].form]"),
        (
            "schema = 1\n[[wrapper]]\nclass = 'W'\nmodule = 'm'\nq_dtype = { index = 'ten', keyword = 'q' }\n"
            "kv_dtype = { keyword = 'kv' }\nmethods = ['plan']\n",
            "[wrapper[0].q_dtype.index] must be int",
        ),
        (
            "schema = 1\n[preset.tiny]\nlayers = 0\nkv_lora_rank = 1\nrope_dim = 1\nkv_dtype = "
            "'uint8'\ncompute_dtype = 'bfloat16'\n",
            "[preset.tiny.layers] must be positive",
        ),
        ("schema = 1\n[[release]]\nversion = 'banana'\nflashinfer = '0.7.2'\n", "versions must look like"),
        ("not toml = = =\n", "invalid TOML"),
    ],
)
def test_invalid_tables_name_file_and_key(tmp_path, text, needle):
    bad = tmp_path / "mine.toml"
    bad.write_text(text)
    with pytest.raises(TableError) as info:
        load_tables([bad])
    assert str(bad) in str(info.value) and needle in str(info.value)


def test_wheel_ships_the_rule_tables(tmp_path):
    """`pip install .` (not only editable) must install rules/*.toml inside the package."""
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp_path),
            str(ROOT),
        ],
        check=True,
        capture_output=True,
        timeout=600,
    )
    wheel = next(tmp_path.glob("castlint-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    shipped = {Path(n).name for n in names if n.startswith("castlint/rules/")}
    assert shipped == {p.name for p in (ROOT / "rules").glob("*.toml")}
    site = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(site), str(wheel)],
        check=True,
        capture_output=True,
        timeout=600,
    )
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            "from castlint.tables import builtin_rules_dir, load_tables;"
            "print(builtin_rules_dir()); print(len(load_tables().accessors))",
        ],
        cwd=tmp_path,
        env={"PYTHONPATH": str(site), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.splitlines()[0].startswith(str(site))


def test_a_native_fp8_kv_row_must_state_what_the_guard_checks(tmp_path):
    """The fix's guard is generated from the newest native [[fp8_kv_mla]] row: no fallback in code."""
    extra = tmp_path / "extra.toml"
    extra.write_text(
        'schema = 1\n[[fp8_kv_mla]]\nsince = "9.9"\nbackends = ["fa3"]\nhead_dim_ckv = [512]\n'
        'head_dim_kpe = [64]\nkv_dtypes = ["float8_e4m3fn"]\nq_dtypes = ["bfloat16"]\n'
    )
    with pytest.raises(TableError) as exc:
        load_tables([extra])
    assert "fp8_kv_mla[0].compute_capability" in str(exc.value)


def test_a_table_file_is_parsed_once_and_loading_never_changes_what_was_parsed():
    """load_tables keeps each file's parsed TOML by its bytes: the loaders only read it, so a second load
    builds equal tables from the same data, unchanged by the first."""
    import copy

    from castlint import tables as tables_module

    first = tables_module.load_tables()
    parsed = {key: copy.deepcopy(data) for key, data in tables_module._PARSED.items()}
    assert parsed  # every builtin file went through the cache
    second = tables_module.load_tables()
    assert tables_module._PARSED == parsed
    assert first == second and first is not second
    assert first.digest == second.digest and first.sources == second.sources


def test_every_dim_taking_op_has_its_dim_argument():
    """The select and dim-split ops of [views] each say where their dimension argument sits
    ([dim_arguments]): the analysis has no default of its own for an op the table leaves out."""
    tables = load_tables()
    ops = set(tables.select_methods) | set(tables.dim_split_methods)
    ops |= {name.rsplit(".", 1)[-1] for name in set(tables.select_functions) | set(tables.dim_split_functions)}
    assert ops and not ops - set(tables.dim_arguments), sorted(ops - set(tables.dim_arguments))
