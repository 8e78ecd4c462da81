"""The FlashInfer MLA rewrite is all or nothing, and what it writes behaves like its input.

Issue 10, items 1-3, as classes of engine code (the fixture backend, varied):
* every `__init__` shape gets the read choice before anything can read it (trailing
  if/for/try/with, an early return, a late super().__init__), and a plan() whose class
  has no __init__ refuses the whole file with the reason;
* a plan() the fix cannot redirect (a literal BF16 kv dtype) keeps its wrapper on the
  original cast, and a cast value with another reader (an assert, a helper) is refused;
* extra cast arguments (`non_blocking=True`) are kept, and `[*]` means the fix applies.
Each rewritten variant runs on the fake torch/FlashInfer on both branches of the guard.
"""

from __future__ import annotations

import pytest

from castlint.fixes import FixOptions, fix_source
from castlint.tables import load_tables
from conftest import FIXTURES
from faketorch.harness import Env
from test_fix_equivalence import assert_native, assert_same, check_pair

TABLES = load_tables()
SOURCE = (FIXTURES / "fix" / "mla_backend.in.py").read_text()
NATIVE = Env(flashinfer="0.7.2", capability=(9, 0))
FALLBACK = Env(flashinfer="0.7.2", capability=(12, 0))
DECODE_INIT = """    def __init__(self, model_runner, attn_backend):
        self.num_heads = model_runner.model_config.num_attention_heads
        self.kv_lora_rank = model_runner.model_config.kv_lora_rank
        self.qk_rope_head_dim = model_runner.model_config.qk_rope_head_dim
        self.data_type = model_runner.dtype
"""
BACKEND_SUPER = "        super().__init__()\n        self.token_to_kv_pool = model_runner.token_to_kv_pool\n"


def variant(old: str, new: str) -> str:
    assert old in SOURCE, old
    return SOURCE.replace(old, new, 1)


def cl001(path):
    from castlint.config import Config
    from castlint.engine import check_paths

    run = check_paths([str(path)], TABLES, Config(), jobs=1, cache=False)
    return [f for f in run.findings if f.code == "CL001"]


def fix(source: str, **options):
    return fix_source(source.encode(), "backend.py", TABLES, FixOptions(**options))


def behaves(source: str, result) -> None:
    assert result.changed, result.skipped
    compile(result.new_source, "backend.py", "exec")
    original, native = check_pair(source.encode(), result.new_source, NATIVE)
    assert_native(original, native, "native branch")
    original, fallback = check_pair(source.encode(), result.new_source, FALLBACK)
    assert_same(original, fallback, "fallback branch")
    again = fix_source(result.new_source, "backend.py", TABLES, FixOptions())
    assert again.new_source == result.new_source


INIT_SHAPES = {
    "trailing if": DECODE_INIT + "        if self.num_heads > 64:\n            self.num_heads = 64\n",
    "trailing for": DECODE_INIT + "        for _ in range(1):\n            self.spare = None\n",
    "trailing try": DECODE_INIT + "        try:\n            self.spare = model_runner.spare\n"
    "        except AttributeError:\n            self.spare = None\n",
    "trailing with": DECODE_INIT.replace("        self.data_type = model_runner.dtype\n", "")
    + "        with memoryview(b'') as _:\n            self.data_type = model_runner.dtype\n",
    "early return": DECODE_INIT.replace(
        "        self.data_type = model_runner.dtype\n",
        "        self.data_type = model_runner.dtype\n        if self.num_heads:\n"
        "            return\n        self.unused = 1\n",
    ),
    "docstring first": DECODE_INIT.replace("attn_backend):\n", 'attn_backend):\n        """Plans decode."""\n'),
}


@pytest.mark.parametrize("shape", sorted(INIT_SHAPES))
def test_any_updater_init_shape_gets_the_read_choice(shape):
    source = variant(DECODE_INIT, INIT_SHAPES[shape])
    result = fix(source)
    text = result.new_source.decode()
    decode_init = text[
        text.index("class DecodeUpdater") : text.index("    def plan(", text.index("class DecodeUpdater"))
    ]
    first = [line.strip() for line in decode_init.splitlines()[2:] if line.strip()]
    if shape == "docstring first":
        assert first[0].startswith('"""')
        first = first[1:]
    assert first[0] == "self.kv_read = attn_backend.kv_read", first
    behaves(source, result)


@pytest.mark.parametrize(
    "late",
    [
        "        self.token_to_kv_pool = model_runner.token_to_kv_pool\n        super().__init__()\n",
        "        self.token_to_kv_pool = model_runner.token_to_kv_pool\n        if True:\n            "
        "super().__init__()\n",
    ],
)
def test_backend_with_a_late_super_init(late):
    source = variant(BACKEND_SUPER, late)
    result = fix(source)
    text = result.new_source.decode()
    init = text[text.index("class ToyMLABackend") :]
    assert init.index("self.kv_read = MlaKvRead(") < init.index("super().__init__()")
    behaves(source, result)


def test_a_plan_without_an_init_refuses_the_whole_file():
    source = variant(
        DECODE_INIT, "    num_heads = 128\n    kv_lora_rank = 512\n    qk_rope_head_dim = 64\n    data_type = None\n"
    )
    result = fix(source)
    assert not result.changed
    assert any("FlashInfer MLA fix not applied" in why and "__init__" in why for _, why in result.skipped), (
        result.skipped
    )


def test_a_literal_bf16_plan_keeps_its_wrapper_on_the_cast():
    """CL002 does not flag `kv_data_type=torch.bfloat16`: that plan is not redirected, its wrapper
    records the original cast, and forward_extend keeps casting (the old fix dropped the cast)."""
    source = variant("            kv_data_type=self.data_type,\n", "            kv_data_type=torch.bfloat16,\n")
    result = fix(source)
    text = result.new_source.decode()
    assert "kv_data_type=torch.bfloat16" in text
    assert "self.kv_read.keep_cast(wrapper)" in text
    behaves(source, result)
    # on the native branch the extend run still gets the BF16 cast, decode the FP8 pool
    original, native = check_pair(source.encode(), result.new_source, NATIVE)
    extend = [
        e
        for label, _, _ in native.calls
        if label.startswith("forward_extend")
        for e in native.log_of(label)
        if e["kind"] == "run"
    ]
    assert extend and all(e["ckv"] == "torch.bfloat16" for e in extend), extend


@pytest.mark.parametrize(
    "reader",
    [
        "        assert k_buffer.dtype == q.dtype\n",
        "        self.last_kv = k_buffer\n",
        "        helper = k_buffer.float()\n",
        "        rows = [k_buffer[i] for i in range(2)]\n",
    ],
)
def test_a_second_reader_of_the_cast_value_refuses_the_fix(reader, tmp_path):
    cast = "        k_buffer = self.token_to_kv_pool.get_key_buffer(layer.layer_id).to(q.dtype)\n"
    source = variant(cast, cast + reader)
    result = fix(source)
    assert not result.changed
    # check does not promise a fix: no [*] on that cast, nor on the other (they share the plans)
    path = tmp_path / "backend.py"
    path.write_text(source)
    found = cl001(path)
    assert found and not any(f.fixable for f in found)
    assert any("also read at line" in (f.unfixable_reason or "") for f in found), [f.unfixable_reason for f in found]


@pytest.mark.parametrize(
    "extra", ["q.dtype, non_blocking=True", "dtype=q.dtype, non_blocking=True", "q.dtype, copy=False"]
)
def test_extra_cast_arguments_are_kept(extra, tmp_path):
    cast = "get_key_buffer(layer.layer_id).to(q.dtype)\n        o = self.decode_wrapper"
    source = variant(cast, f"get_key_buffer(layer.layer_id).to({extra})\n        o = self.decode_wrapper")
    result = fix(source)
    joined = "".join(result.new_source.decode().split())  # however Black wrapped the call
    assert "".join(f"k_buffer = self.kv_read.convert(self.decode_wrapper, k_buffer, {extra}".split()) in joined
    behaves(source, result)
    path = tmp_path / "backend.py"
    path.write_text(source)
    assert cl001(path) and all(f.fixable for f in cl001(path))
