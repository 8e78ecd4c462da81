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
    assert {"BatchMLAPagedAttentionWrapper", "BatchDecodeWithPagedKVCacheWrapper",
            "BatchPrefillWithPagedKVCacheWrapper", "fast_mla_decode_plan", "fast_mla_prefill_plan"} <= classes
    decode = next(w for w in TABLES.wrappers if w.cls == "BatchDecodeWithPagedKVCacheWrapper")
    assert "data_type" in decode.aliases
    fast = next(w for w in TABLES.wrappers if w.cls == "fast_mla_decode_plan")
    assert fast.function and fast.kv_dtype.index == 12  # the wrapper (self) is argument 0
    assert TABLES.presets["deepseek-v3"].layers == 61 and TABLES.presets["glm-5"].layers == 78
    assert TABLES.presets["glm-5"].kv_lora_rank == 512 and TABLES.presets["glm-5"].rope_dim == 64
    assert "quantize_k_cache" in TABLES.conversion_helpers
    assert TABLES.flashinfer_pin("0.5.23") == "0.7.2" and TABLES.flashinfer_pin("0.5.10") == "0.6.7.post2"  # its wheel pins it (rules/sglang.toml)


def test_prefilter_is_derived_from_the_tables(tmp_path):
    extra = tmp_path / "extra.toml"
    extra.write_text("schema = 1\n[[accessor]]\nname = 'get_paged_latent'\n")
    words = {w for group in load_tables([extra]).trigger_groups() for ws in group for w in ws}
    assert "get_paged_latent(" in words


@pytest.mark.parametrize("text,needle", [
    ("schema = 2\n", "[schema] unsupported schema 2"),
    ("schema = 1\nsurprise = 1\n", "unknown key(s): surprise"),
    ("schema = 1\n[[accessor]]\nreturns = 'tensor'\n", "[accessor[0].name] is required"),
    ("schema = 1\n[[cast]]\nmethod = 'to'\nform = 'sometimes'\n", "[cast[0].form]"),
    ("schema = 1\n[[wrapper]]\nclass = 'W'\nmodule = 'm'\nq_dtype = { index = 'ten', keyword = 'q' }\n"
     "kv_dtype = { keyword = 'kv' }\nmethods = ['plan']\n", "[wrapper[0].q_dtype.index] must be int"),
    ("schema = 1\n[preset.tiny]\nlayers = 0\nkv_lora_rank = 1\nrope_dim = 1\nkv_dtype = 'uint8'\ncompute_dtype = 'bfloat16'\n",
     "[preset.tiny.layers] must be positive"),
    ("schema = 1\n[[release]]\nversion = 'banana'\nflashinfer = '0.7.2'\n", "versions must look like"),
    ("not toml = = =\n", "invalid TOML"),
])
def test_invalid_tables_name_file_and_key(tmp_path, text, needle):
    bad = tmp_path / "mine.toml"
    bad.write_text(text)
    with pytest.raises(TableError) as info:
        load_tables([bad])
    assert str(bad) in str(info.value) and needle in str(info.value)


def test_wheel_ships_the_rule_tables(tmp_path):
    """`pip install .` (not only editable) must install rules/*.toml inside the package."""
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                    "-w", str(tmp_path), str(ROOT)], check=True, capture_output=True, timeout=600)
    wheel = next(tmp_path.glob("castlint-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    shipped = {Path(n).name for n in names if n.startswith("castlint/rules/")}
    assert shipped == {p.name for p in (ROOT / "rules").glob("*.toml")}
    site = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(site), str(wheel)],
                   check=True, capture_output=True, timeout=600)
    out = subprocess.run([sys.executable, "-c", "from castlint.tables import builtin_rules_dir, load_tables;"
                          "print(builtin_rules_dir()); print(len(load_tables().accessors))"],
                         cwd=tmp_path, env={"PYTHONPATH": str(site), "PATH": "/usr/bin:/bin"},
                         capture_output=True, text=True, check=True)
    assert out.stdout.splitlines()[0].startswith(str(site))
