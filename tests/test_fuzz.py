"""Property tests: check and fix never crash, fix output parses, a second fix is a no-op,
and the pruned analysis agrees with the whole-file one.

Two generators:

- `backends()`: random backend-like classes built from the pieces the rules care
  about (pool accessors, cache attributes, casts in every spelling, gathers,
  views, slices, self attributes, self.method(arg) calls, guards, tuple
  unpacking, conversion helpers, plan calls), laid out with random comments,
  blank lines, trailing whitespace, tabs or spaces and LF or CRLF. These reach
  the analysis and the codemods.
- hypothesmith's grammar-based Python, for everything else the parser may see.

CI runs a bounded, derandomized (the same every run) number of examples (CASTLINT_FUZZ_EXAMPLES,
default 20 per property, 5 for the grammar-generated one: 40 took about 50 CPU-s of the suite);
docs/performance.md records a longer run.
"""

from __future__ import annotations

import os

import hypothesmith
import libcst as cst
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from castlint.config import Config
from castlint.engine import check_file
from castlint.fixes import FixError, FixOptions, fix_source
from castlint.tables import load_tables

TABLES = load_tables()
EXAMPLES = int(os.environ.get("CASTLINT_FUZZ_EXAMPLES", "20"))
SETTINGS = settings(
    max_examples=EXAMPLES,
    deadline=None,
    database=None,
    derandomize=not os.environ.get("CASTLINT_FUZZ_RANDOM"),
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)

POOLS = [
    "self.pool.get_key_buffer(layer.layer_id)",
    "self.token_to_kv_pool.get_value_buffer(layer.layer_id)",
    "pool.get_kv_buffer(layer_id)",
    "self.k_buffer",
    "self.pool.kv_buffer[layer.layer_id]",
    "forward_batch.token_to_kv_pool.get_key_buffer(0)",
]
OTHER = ["q", "k", "x", "loc", "self.scale", "forward_batch.out_cache_loc", "torch.empty(4)"]
SUFFIXES = [
    ".to(torch.bfloat16)",
    ".to(q.dtype)",
    ".to(q)",
    ".to(dtype=torch.float16)",
    ".float()",
    ".half()",
    ".type(torch.float32)",
    ".bfloat16()",
    ".type_as(q)",
    ".to(self.device)",
    ".view(torch.uint8)",
    ".view(-1, 1, 576)",
    ".reshape(-1, 576)",
    ".contiguous()",
    "[loc]",
    "[:, :, :512]",
    "[..., 512:]",
    "[layer.layer_id]",
    ".index_select(0, loc)",
    ".gather(0, loc)",
    ".unsqueeze(1)",
    ".size(0)",
    ".shape",
]
NAMES = ["kv", "k_cache", "buf", "nope", "rope", "x", "out"]
METHODS = ["forward_decode", "forward_extend", "forward", "_helper", "_cast", "init_forward_metadata", "__init__"]


@st.composite
def expressions(draw):
    base = draw(st.sampled_from(POOLS + OTHER + NAMES))
    for suffix in draw(st.lists(st.sampled_from(SUFFIXES), max_size=3)):
        base += suffix
    wrap = draw(
        st.sampled_from(
            [
                "{}",
                "{}",
                "{}",
                "quantize_k_cache({})",
                "torch.index_select({}, 0, loc)",
                "({} if flag else {})",
                "({}, q)",
            ]
        )
    )
    return wrap.format(base, base) if wrap.count("{}") == 2 else wrap.format(base)


@st.composite
def statements(draw, depth=0):
    kind = draw(
        st.sampled_from(
            ["assign", "assign", "self", "return", "call", "if", "unpack", "plan", "for"]
            if depth < 2
            else ["assign", "self", "return", "call"]
        )
    )
    e = draw(expressions())
    name = draw(st.sampled_from(NAMES))
    if kind == "assign":
        return [f"{name} = {e}"]
    if kind == "self":
        return [f"self.{name} = {e}"]
    if kind == "return":
        return [f"return {e}"]
    if kind == "call":
        return [f"{name} = self.{draw(st.sampled_from(METHODS))}({e})"]
    if kind == "unpack":
        return [f"{name}, other = {e}, q", "k2, v2 = pool.get_kv_buffer(layer_id)"]
    if kind == "plan":
        dtype = draw(st.sampled_from(["self.data_type", "model_runner.dtype", "model_runner.kv_cache_dtype"]))
        return [f"wrapper.plan(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, {dtype}, self.data_type)"]
    body = [s for _ in range(draw(st.integers(1, 3))) for s in draw(statements(depth + 1))]
    if kind == "for":
        return ["for i in range(2):"] + ["\t" + s for s in body]
    guard = draw(st.sampled_from(["not self.castlint_native_fp8_kv", "self.castlint_native_fp8_kv", "flag"]))
    return [f"if {guard}:"] + ["\t" + s for s in body] + ["else:", f"\t{name} = {e}"]


@st.composite
def backends(draw):
    lines = ["import torch", "from torch import index_select as pick", ""]
    for c in range(draw(st.integers(1, 2))):
        lines.append(f"class Backend{c}:")
        for m in draw(st.lists(st.sampled_from(METHODS), min_size=1, max_size=4, unique=True)):
            lines.append(f"\tdef {m}(self, q, layer, loc, flag=False, model_runner=None):")
            body = [s for _ in range(draw(st.integers(1, 5))) for s in draw(statements())]
            lines.extend("\t\t" + s for s in body)
            lines.append("")
    if draw(st.booleans()):
        lines.append("def forward(pool, layer_id, loc):")
        lines.extend("\t" + s for _ in range(draw(st.integers(1, 3))) for s in draw(statements()))
    # layout: comments, blank lines, trailing whitespace, suppressions, spaces or tabs, LF or CRLF
    out = []
    for line in lines:
        decoration = draw(
            st.sampled_from(["", "", "", "  ", "\t", "  # note", "  # castlint: ignore[CL001]", "  # noqa: CL003"])
        )
        out.append(line + decoration if line.strip() else line)
        if draw(st.integers(0, 9)) == 0:
            out.append(draw(st.sampled_from(["", "# comment", "    ", "\t# tabbed comment"])))
    indent = draw(st.sampled_from(["\t", "    ", "  "]))
    newline = draw(st.sampled_from(["\n", "\n", "\r\n"]))
    text = newline.join(line.replace("\t", indent) for line in out) + newline
    return text.encode()


def _check_both(tmp_path, source: bytes, name: str = "backend.py"):
    path = tmp_path / name
    path.write_bytes(source)
    config = Config(root=tmp_path)
    cm = config.cost_model(TABLES)
    whole = check_file(str(path), TABLES, config, cm, prune=False)
    pruned = check_file(str(path), TABLES, config, cm, prune=True)
    for result in (whole, pruned):
        assert not [e for e in result.errors if e.kind == "internal"], result.errors
    key = lambda r: [(f.code, f.start, f.end, f.severity, f.message, f.fix, f.function) for f in r.findings]  # noqa: E731
    assert key(pruned) == key(whole)
    if whole.errors or pruned.errors:
        assert [(e.line, e.kind) for e in pruned.errors] == [(e.line, e.kind) for e in whole.errors]
    return whole


def _fix_twice(tmp_path, source: bytes, unsafe: bool):
    path = str(tmp_path / "backend.py")
    try:
        first = fix_source(source, path, TABLES, FixOptions(unsafe=unsafe))
    except (SyntaxError, FixError):
        return None  # reported per file, never written: fine
    new = first.new_source
    if first.changed:
        cst.parse_module(new)
        compile(new, path, "exec", dont_inherit=True)
        # nothing but the fixed statements changes: the line count stays within the edits
        assert new.count(b"\n") >= source.count(b"\n") - 2 * len(first.applied) - 2
    second = fix_source(new, path, TABLES, FixOptions(unsafe=unsafe))
    assert second.new_source == new, "a second fix changed the file again"
    return first


@SETTINGS
@given(source=backends())
def test_check_never_crashes_and_pruning_agrees_on_backends(tmp_path_factory, source):
    _check_both(tmp_path_factory.mktemp("fuzz"), source)


@SETTINGS
@given(source=backends(), unsafe=st.booleans())
def test_fix_output_parses_and_second_fix_is_a_no_op(tmp_path_factory, source, unsafe):
    _fix_twice(tmp_path_factory.mktemp("fuzz"), source, unsafe)


@SETTINGS
@given(source=st.binary(max_size=300) | backends().map(lambda b: b[: len(b) // 2]))
def test_check_never_crashes_on_bytes(tmp_path_factory, source):
    tmp = tmp_path_factory.mktemp("fuzz")
    path = tmp / "noise.py"
    path.write_bytes(source)
    config = Config(root=tmp)
    result = check_file(str(path), TABLES, config, config.cost_model(TABLES))
    assert not [e for e in result.errors if e.kind == "internal"]
    assert all(e.path == str(path) and e.line >= 0 and e.message for e in result.errors)


PY_SOURCE = hypothesmith.from_grammar().map(lambda s: s.encode("utf-8", "surrogatepass"))


@settings(SETTINGS, max_examples=max(5, EXAMPLES // 4))
@given(source=PY_SOURCE)
def test_check_and_fix_never_crash_on_grammar_generated_python(tmp_path_factory, source):
    tmp = tmp_path_factory.mktemp("fuzz")
    _check_both(tmp, source)
    _fix_twice(tmp, source, unsafe=True)
