"""castlint.prune drops code no rule can fire on; the findings must not change.

Each case is a small backend with unrelated filler around it (so that pruning
really drops code), analysed whole and pruned: same findings, same lines and
columns, same severity. The cases are the ways a value reaches a cast across
functions (self attributes, self.method(arg) calls, the hot-path call graph,
globals, imports) and the module-wide facts CL002 tests.
"""

from __future__ import annotations

import textwrap

import pytest

from castlint import prune
from castlint.config import Config
from castlint.engine import check_file
from castlint.tables import load_tables

TABLES = load_tables()

FILLER_METHODS = "".join(
    f"    def helper_{i}(self, x):\n        y = x + {i}\n        return self.other(y).to(x)\n\n" for i in range(25)
)
FILLER_FUNCS = "".join(f"def util_{i}(x):\n    z = x * {i}\n    return z.float()\n\n" for i in range(25))


def whole_and_pruned(tmp_path, data: bytes):
    """The file's results analysed whole and pruned."""
    path = tmp_path / "backend.py"
    path.write_bytes(data)
    config = Config(root=tmp_path)
    cm = config.cost_model(TABLES)
    return check_file(str(path), TABLES, config, cm, prune=False), check_file(str(path), TABLES, config, cm, prune=True)


def analyse(tmp_path, source: str, newline: str = "\n"):
    data = source.replace("\n", newline).encode()
    whole, pruned = whole_and_pruned(tmp_path, data)
    key = lambda r: [(f.code, f.start, f.end, f.severity.value, f.message, f.fix, f.function) for f in r.findings]  # noqa: E731
    assert key(pruned) == key(whole)
    assert pruned.errors == whole.errors == []
    return prune.plan(data, TABLES), whole.findings


def src(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def test_self_attribute_set_in_another_method(tmp_path):
    source = (
        "import torch\n\nclass Backend:\n    def __init__(self, pool):\n"
        "        self.k = pool.get_key_buffer(0)\n\n"
        + FILLER_METHODS
        + "    def forward(self, q):\n        return self.k.to(torch.bfloat16)\n"
    )
    plan, findings = analyse(tmp_path, source)
    assert plan.kind == prune.PRUNED
    assert [(f.code, f.severity.value) for f in findings] == [("CL001", "error")]


def test_parameter_fed_by_a_self_call(tmp_path):
    source = (
        src("""
        import torch

        class Backend:
            def forward(self, layer):
                kv = self.pool.get_key_buffer(layer.layer_id)
                return self._cast(kv)

            def _cast(self, buf):
                return buf.float()

            def unrelated(self, x):
                return self._cast(x + 1)

        """)
        + FILLER_METHODS
    )
    plan, findings = analyse(tmp_path, source)
    assert plan.kind == prune.PRUNED
    # _cast also takes `x + 1`: the conversion is the call's that passes the pool (issue 19)
    assert [(f.code, f.start.line, f.severity.value) for f in findings] == [("CL001", 6, "error")]


def test_hot_path_through_dropped_methods(tmp_path):
    """forward -> _middle -> _leaf: only _leaf is kept, and it is still a hot path."""
    source = (
        src("""
        import torch

        class Backend:
            def forward(self, q):
                return self._middle(q)

            def _middle(self, q):
                return self._leaf()

            def _leaf(self):
                return self.pool.get_key_buffer(0).to(torch.float16)

            def cold(self):
                return self.pool.get_value_buffer(0).to(torch.float16)

        """)
        + FILLER_METHODS
    )
    plan, findings = analyse(tmp_path, source)
    assert plan.kind == prune.PRUNED and plan.pruned.hot_hints
    assert "return self._middle(q)" not in plan.pruned.text
    assert [(f.start.line, f.severity.value) for f in findings] == [(11, "error"), (14, "warning")]


def test_global_assigned_a_pool_means_whole_file(tmp_path):
    source = (
        src("""
        import torch

        CACHE = None

        def init(pool):
            global CACHE
            CACHE = pool.get_key_buffer(0)

        def use():
            return CACHE.to(torch.bfloat16)

        """)
        + FILLER_FUNCS
    )
    plan, findings = analyse(tmp_path, source)
    assert plan.kind == prune.FULL and [f.code for f in findings] == ["CL001"]


def test_global_assigned_something_else_is_kept(tmp_path):
    source = (
        src("""
        import torch

        K = None

        def init(x):
            global K
            K = x

        def use(pool):
            K = pool.get_key_buffer(0)
            return K.to(torch.bfloat16)

        """)
        + FILLER_FUNCS
    )
    plan, findings = analyse(tmp_path, source)
    assert plan.kind == prune.PRUNED and "global K" in plan.pruned.text
    assert [f.code for f in findings] == ["CL001"]


def test_pool_named_at_module_level_means_whole_file(tmp_path):
    source = "import torch\nBUF = POOL.k_buffer\n\ndef f():\n    return BUF.half()\n\n" + FILLER_FUNCS
    plan, findings = analyse(tmp_path, source)
    assert plan.kind == prune.FULL and [f.code for f in findings] == ["CL001"]


def test_import_alias_of_a_gather_function(tmp_path):
    source = (
        src("""
        import torch
        from torch import index_select as pick

        def forward(pool, idx):
            kv = pool.get_key_buffer(0)
            rows = pick(kv, 0, idx)
            return rows.to(torch.bfloat16), kv.to(torch.bfloat16)

        """)
        + FILLER_FUNCS
    )
    plan, findings = analyse(tmp_path, source)
    assert plan.kind == prune.PRUNED
    line = source.splitlines()[6]
    assert [(f.code, f.start.line, f.start.column) for f in findings] == [("CL001", 7, line.index("kv.to") + 1)]


def test_plan_arguments_resolved_through_dropped_looking_methods(tmp_path):
    """CL002 resolves self.data_type through __init__, and tests kv_cache_dtype module-wide."""
    source = (
        src("""
        class Updater:
            def __init__(self, cfg):
                self.data_type = cfg.dtype
                self.q_data_type = self.data_type

            def call(self, w: BatchMLAPagedAttentionWrapper):
                w.plan(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, self.q_data_type, self.data_type)

        """)
        + FILLER_METHODS.replace("self.other(y).to(x)", "y")
        + src("""
        class Elsewhere:
            def setup(self, runner):
                self.kv = runner.kv_cache_dtype

        """)
        + FILLER_FUNCS
    )
    plan, findings = analyse(tmp_path, source)
    assert plan.kind == prune.PRUNED
    assert "kv_cache_dtype" not in plan.pruned.text and "kv_cache_dtype" in plan.pruned.dropped_attr_names
    assert [f.code for f in findings] == ["CL002"]


def test_tuple_unpacking_views_and_ifexp(tmp_path):
    source = (
        src("""
        import torch

        class Backend:
            def forward_decode(self, layer, fast):
                k, v = self.pool.get_kv_buffer(layer.layer_id)
                nope = k.view(-1, 576)[:, :, :512]
                pick = nope if fast else v
                return pick.to(torch.bfloat16), v.half()

        """)
        + FILLER_METHODS
    )
    plan, findings = analyse(tmp_path, source)
    assert plan.kind == prune.PRUNED and findings


def test_decorators_async_nested_classes_and_class_level_code(tmp_path):
    source = (
        src("""
        import torch

        def deco(f):
            return f

        class Backend:
            WHOLE = None

            @deco
            @staticmethod
            def make(pool):
                return pool.get_key_buffer(0).to(torch.float16)

            async def forward(self):
                class Inner:
                    def go(self, pool):
                        return pool.k_buffer.float()
                return Inner

            @property
            def unrelated(self):
                return 1

        """)
        + FILLER_METHODS
        + "\n"
        + FILLER_FUNCS
    )
    plan, findings = analyse(tmp_path, source)
    assert plan.kind == prune.PRUNED
    assert sorted(f.start.line for f in findings) == [12, 17]


def test_crlf_and_tabs(tmp_path):
    source = (
        "import torch\n\nclass Backend:\n\tdef forward(self, layer, loc):\n"
        "\t\treturn self.pool.get_key_buffer(layer.layer_id).to(torch.bfloat16)[loc]\n\n"
        + FILLER_METHODS.replace("    ", "\t")
    )
    plan, findings = analyse(tmp_path, source, newline="\r\n")
    assert plan.kind == prune.PRUNED and "\r\n" in plan.pruned.text
    assert [(f.code, f.start.line) for f in findings] == [("CL003", 5)]


def test_suppressions_in_dropped_code_are_still_reported_unused(tmp_path):
    source = (
        src("""
        import torch

        def used(pool):
            return pool.get_key_buffer(0).to(torch.half)  # castlint: ignore[CL001]

        def dropped(x):
            return x + 1  # castlint: ignore[CL003]

        """)
        + FILLER_FUNCS
    )
    plan, findings = analyse(tmp_path, source)
    assert plan.kind == prune.PRUNED
    assert [(f.code, f.start.line) for f in findings] == [("CL900", 7)]


def test_nothing_to_find_skips_libcst(tmp_path):
    source = "import torch\n\ndef f(pool, x):\n    n = pool.get_key_buffer(0).shape[0]\n    return x.to(torch.half)\n"
    plan, findings = analyse(tmp_path, source)
    assert plan.kind == prune.NOTHING and findings == []


@pytest.mark.parametrize("prefix", [b"\xef\xbb\xbf", b"# -*- coding: latin-1 -*-\n"])
def test_bom_and_cookie(tmp_path, prefix):
    body = "import torch\n\ndef forward(pool):\n    return pool.get_key_buffer(0).to(torch.half)\n\n" + FILLER_FUNCS
    path = tmp_path / "b.py"
    path.write_bytes(prefix + body.encode())
    config = Config(root=tmp_path)
    cm = config.cost_model(TABLES)
    whole = check_file(str(path), TABLES, config, cm, prune=False)
    pruned = check_file(str(path), TABLES, config, cm, prune=True)
    assert [(f.start, f.end, f.message) for f in pruned.findings] == [
        (f.start, f.end, f.message) for f in whole.findings
    ]
    assert len(whole.findings) == 1


def test_hot_path_is_one_definition_for_prune_and_the_analysis():
    """prune (on the whole class, ast) and ModuleAnalysis (libcst) compute the hot methods
    through castlint.analysis.hot_path, from the same names and self-call edges."""
    import ast as python_ast

    import libcst as cst

    from castlint.analysis import ModuleAnalysis, dataflow, hot_path

    assert not hasattr(prune, "HOT_PATH_FUNCTIONS") and not hasattr(dataflow, "HOT_PATH_FUNCTIONS")
    source = src("""
        class Backend:
            def forward_decode(self, layer):
                helper = lambda: self.via_lambda()
                def nested():
                    return self.only_nested()
                return self.step(layer)
            def step(self, layer):
                return self._get_key_buffer(layer)
            def _get_key_buffer(self, layer):
                return self.deeper()
            def deeper(self):
                pass
            def via_lambda(self):
                pass
            def only_nested(self):
                pass
            def setup(self):
                self.step(0)
    """)
    cls = python_ast.parse(source).body[0]
    from_prune = prune._hot_set(cls, prune._vocabulary(TABLES))
    module = cst.parse_module(source)
    analysis = ModuleAnalysis(cst.MetadataWrapper(module, unsafe_skip_copy=True), TABLES)
    from_analysis = analysis.hot_functions(module.body[0])
    assert (
        from_prune == frozenset(from_analysis) == {"forward_decode", "step", "_get_key_buffer", "deeper", "via_lambda"}
    )
    assert hot_path.is_hot_entry("_get_key_buffer", TABLES.hot_path_entry_points, TABLES.accessors)
    assert hot_path.is_hot_entry("forward", TABLES.hot_path_entry_points, TABLES.accessors)
    assert not hot_path.is_hot_entry("setup", TABLES.hot_path_entry_points, TABLES.accessors)


# -- issue 11: the flows the analysis follows now, the pruner must keep --------------


def test_module_function_fed_from_a_method_and_one_that_returns_a_pool(tmp_path):
    """`widen` names no pool: it matters only through the call that passes one."""
    source = (
        src("""
        import torch

        def widen(buf):
            return buf.float()

        def latent(pool, i):
            return pool.get_key_buffer(i)

        class Backend:
            def forward(self, layer):
                a = widen(self.pool.get_key_buffer(layer.layer_id))
                b = latent(self.pool, layer.layer_id).half()
                return a, b

        """)
        + FILLER_FUNCS
    )
    plan, findings = analyse(tmp_path, source)
    assert plan.kind == prune.PRUNED and "def widen(buf):" in plan.pruned.text
    assert [(f.code, f.start.line) for f in findings] == [("CL001", 4), ("CL001", 12)]


def test_helper_method_return_values_and_lambdas(tmp_path):
    source = (
        src("""
        import torch

        class Backend:
            def _kv(self, layer):
                return self.pool.get_kv_buffer(layer.layer_id)

            def forward_decode(self, q, layer):
                k, v = self._kv(layer)
                up = lambda t: t.to(q.dtype)
                scaled = list(map(lambda c: c.double(), (k, v)))
                return up(v), k.float(), scaled

        """)
        + FILLER_METHODS
    )
    plan, findings = analyse(tmp_path, source)
    assert plan.kind == prune.PRUNED
    assert sorted(f.start.line for f in findings) == [9, 10, 11]


def test_calling_convention_loops_and_comprehensions(tmp_path):
    source = (
        src("""
        import torch

        class Impl:
            def forward(self, layer, query, key, value, kv_cache, attn_metadata, output):
                key_cache, value_cache = kv_cache.unbind(1)
                return key_cache.to(query.dtype)

        class Runner:
            def upcast(self, dtype):
                for k_cache, v_cache in self.kv_caches:
                    k_cache.to(dtype)
                return [c.float() for c in self.kv_caches]

        """)
        + FILLER_FUNCS
    )
    plan, findings = analyse(tmp_path, source)
    assert plan.kind == prune.PRUNED
    assert [f.start.line for f in findings] == [6, 11, 12]


def test_allocations_and_devices_read_from_dropped_looking_methods(tmp_path):
    """The analysis reads __init__'s allocation of kv_buffer (batch-sized: no finding) and
    the device held in self.target (a move: no finding): the pruner must keep __init__."""
    source = (
        src("""
        import torch

        class Graph:
            def __init__(self, max_bs, gpu):
                self.kv_buffer = torch.zeros((max_bs, 576), dtype=torch.bfloat16)
                self.target = torch.device("cuda", gpu)

            def replay(self, bs, layer):
                a = self.kv_buffer[:bs].float()
                b = self.pool.get_key_buffer(layer.layer_id).to(self.target)
                c = self.pool.get_key_buffer(layer.layer_id).to(self.where)
                return a, b, c

        """)
        + FILLER_METHODS
    )
    plan, findings = analyse(tmp_path, source)
    assert plan.kind == prune.PRUNED and "self.kv_buffer = torch.zeros" in plan.pruned.text
    assert [f.start.line for f in findings] == [11]


def test_gathers_end_the_flow(tmp_path):
    """A value that went through a gather (or an index into one cache) holds no candidate."""
    source = (
        src("""
        import torch

        def forward(pool, layer_id, idx):
            rows = torch.index_select(pool.get_key_buffer(layer_id), 0, idx)
            one = pool.get_key_buffer(layer_id)[idx]
            return rows.to(torch.bfloat16), one.float(), pool.get_key_buffer(layer_id).to("cpu")

        """)
        + FILLER_FUNCS
    )
    plan, findings = analyse(tmp_path, source)
    assert plan.kind == prune.NOTHING and findings == []


def test_fixture_files_prune_like_the_whole_file(tmp_path):
    """The issue-11 fixtures, with filler appended so that pruning really happens."""
    from conftest import FIXTURES

    for name in ("binding_forms", "cache_parameters", "pool_accessors", "flow_sensitive", "staging_buffers"):
        source = (FIXTURES / "check" / f"{name}.py").read_text() + "\n\n" + FILLER_FUNCS
        plan, findings = analyse(tmp_path, source)
        assert findings, name


def test_cast_receivers_read_in_statement_order(tmp_path):
    """A name rebound to a gather just before the cast holds no pool (as the analysis reads
    it), but any way the earlier pool can still reach the cast keeps the function."""
    source = (
        src("""
        import torch

        def gathered(pool, layer_id, idx, dtype):
            buf = pool.get_key_buffer(layer_id)
            buf = torch.index_select(buf, 0, idx)
            nope, rope = torch.split(buf, [512, 64], dim=-1)
            if dtype is not None:
                nope = nope.to(dtype)
            return nope

        def through_try(pool, layer_id, idx):
            rows = pool.get_key_buffer(layer_id)[idx]
            try:
                rows = pool.get_key_buffer(layer_id)
                check(rows)
            except ValueError:
                return rows.float()
            return rows

        def through_loop(pool, layer_id, idx, n):
            rows = pool.get_key_buffer(layer_id)[idx]
            for _ in range(n):
                out = rows.half()
                rows = pool.get_key_buffer(layer_id)
            return out

        def through_with(pool, layer_id, idx):
            rows = pool.get_key_buffer(layer_id)[idx]
            with open_cache(pool) as rows:
                return rows.double()

        """)
        + FILLER_FUNCS
    )
    plan, findings = analyse(tmp_path, source)
    assert plan.kind == prune.PRUNED and "def gathered(): pass" in plan.pruned.text
    assert [f.start.line for f in findings] == [17, 23]


def test_cast_at_module_level_in_a_def_under_an_if(tmp_path):
    """Module-level statements (a def inside an if, a named lambda) are one unit."""
    source = (
        src("""
        import torch

        if torch.cuda.is_available():
            def upcast(buf):
                return buf.float()
        else:
            upcast = lambda buf: buf.double()

        def forward(pool, layer_id):
            return upcast(pool.get_key_buffer(layer_id)), pool.k_buffer[layer_id].to(torch.float16)

        """)
        + FILLER_FUNCS
    )
    plan, findings = analyse(tmp_path, source)
    assert sorted(f.start.line for f in findings) == [5, 7, 10]


def test_calling_convention_words_without_the_signature_skip_the_parse(tmp_path):
    """A file that passes the prefilter only through a convention's words (`kv_cache`,
    `attn_metadata`, a cast) but defines no method with that signature holds no candidate."""
    loose = src("""
        def helper(kv_cache, attn_metadata):
            return kv_cache.float()

        def forward(self, x, cache="kv_cache(", attn_metadata=None):
            return x.to(attn_metadata)
        """)
    assert "signature" not in prune.plan(loose.encode(), TABLES).reason  # a string in it: ast decides
    loose = loose.replace('cache="kv_cache(", ', "cache=None, ")
    plan = prune.plan(loose.encode(), TABLES)
    assert plan.kind == prune.NOTHING and "signature" in plan.reason
    real = (
        src("""
        class Impl:
            def forward(self, layer, query, key, value,
                        kv_cache: "torch.Tensor", attn_metadata, output=None):
                return kv_cache.float()
        """)
        + FILLER_FUNCS
    )
    plan, findings = analyse(tmp_path, real)
    assert [f.code for f in findings] == ["CL001"]


PROPERTY_BACKEND = src(
    """
    import torch


    class Pool:
        def __init__(self, n):
            self.k_buffer = [torch.zeros(n, 576, dtype=torch.float8_e4m3fn) for _ in range(4)]
            self.staged = []

        @property
        def is_quantized(self):
            return True

        @property
        def pending(self):
            self.k_buffer[0].zero_()  # a getter that writes the pool (appending to self.staged would not:
            return len(self.staged)  # a list the file builds is no pool, fix-safety round 9)

        def get_key_buffer(self, layer_id):
            return self.k_buffer[layer_id]


    class Backend:
        def __init__(self, pool):
            self.pool = pool

    {filler}
        def forward_decode(self, q, layer, forward_batch):
            latent = self.pool.get_key_buffer(layer.layer_id).to(torch.bfloat16)
            if self.pool.{read}:
                q = q * 2
            return latent[forward_batch.kv_indices]
    """
)


@pytest.mark.parametrize("read", ["is_quantized", "pending"])
def test_a_property_read_between_the_cast_and_its_gather_is_decided_on_the_pruned_copy(tmp_path, read):
    """The fix's proof reads every property getter the moved cast passes (a getter runs code): the
    pruner keeps getters, so a pruned copy decides a writing getter (it blocks the safe label) and the
    whole file is not analysed again; a safe label rests on module-wide facts too (writers passed on,
    library bases, frame reads, finalizers: docs/fix.md, "Round 5"), which dropped code may hold, so
    it is given on the whole file. The verdict is the whole file's either way."""
    source = PROPERTY_BACKEND.format(filler=FILLER_METHODS.rstrip("\n"), read=read)
    whole, pruned = whole_and_pruned(tmp_path, source.encode())
    key = lambda r: [(f.code, f.start, f.fix, f.unfixable_reason) for f in r.findings]  # noqa: E731
    assert key(whole) == key(pruned) and whole.findings
    # the unsafe verdict is not sent back to a whole-file analysis (PrunedTooFar); the safe one is
    assert pruned.mode == (prune.FULL if read == "is_quantized" else prune.PRUNED)
    cl003 = [f for f in whole.findings if f.code == "CL003"]
    assert cl003 and (cl003[0].fix is not None and cl003[0].fix.safety == "safe") == (read == "is_quantized")


@pytest.mark.parametrize(
    "targets, values",
    [
        ("kv, idx, scratch", "pool.get_key_buffer(layer.layer_id), None, torch.empty(4)"),
        ("scratch, kv", "torch.empty(4), pool.get_key_buffer(layer.layer_id)"),
        ("[self.kv, scratch]", "[pool.get_key_buffer(layer.layer_id), torch.empty(4)]"),
        ("(kv, (scratch))", "(pool.get_kv_buffer(layer.layer_id), torch.empty(4))"),
    ],
)
@pytest.mark.parametrize("cast_the_pool", [True, False])
def test_parallel_assignment_binds_each_element_by_position(tmp_path, targets, values, cast_the_pool):
    """`a, b = x, y`: a holds x and b holds y (as the analysis binds them), so a pool on one side of the display
    taints only its own target. A cast of the other target is no candidate: with no cast of the pool the file is
    nothing to analyse; with one, the pruned copy finds what the whole file does."""
    pool_name = "self.kv" if "self.kv" in targets else "kv"
    source = (
        src(f"""
        import torch

        class Backend:
            def forward_decode(self, q, layer, pool):
                {targets} = {values}
                out = scratch.float()
                return {f"{pool_name}.to(torch.bfloat16)" if cast_the_pool else pool_name}, out

        """)
        + FILLER_METHODS
    )
    plan, findings = analyse(tmp_path, source)
    if cast_the_pool:
        assert [f.code for f in findings] == ["CL001"]
    else:
        assert findings == [] and plan.kind == prune.NOTHING


SLICE_HOLDER = """\
import torch


class Attention:
    def __init__(self, n_heads, rank):
        self.heads = slice(rank * n_heads, (rank + 1) * n_heads)
        self.sink = torch.zeros(n_heads * 8)

    def local_sink(self):
        return self.sink[self.heads].float()

"""


def test_a_slice_held_by_an_object_with_no_pool_cast_is_nothing_to_analyse(tmp_path):
    """A slice object only decides whether a pool's subscript keeps every slot: with no cast a pool reaches, the
    file is nothing to analyse, though a slice is held by an object (which otherwise sends it whole)."""
    reader = src("""
        def attend(q, layer, forward_batch, kernel):
            kv = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)
            rows = slice(None)
            return kernel(q, kv[rows], Attention(8, 0).local_sink())

        """)
    plan, findings = analyse(tmp_path, SLICE_HOLDER + reader + FILLER_FUNCS)
    assert plan.kind == prune.NOTHING and findings == []


@pytest.mark.parametrize(
    "read, codes",
    [
        ("self.pool.get_key_buffer(layer.layer_id)[self.rows].to(torch.bfloat16)", ["CL001"]),  # slice(None)
        ("self.pool.get_key_buffer(layer.layer_id)[self.heads].to(torch.bfloat16)", []),  # a bounded slice
        ("self.pool.get_key_buffer(layer.layer_id)[self.tail].to(torch.bfloat16)", ["CL001"]),  # slice(n, None)
    ],
)
def test_a_slice_held_by_an_object_beside_a_pool_read_is_decided_whole(tmp_path, read, codes):
    """With a pool read in the file, a held slice may make its subscript whole: the file is analysed whole
    (the analysis follows the slice into the attribute), and the findings are the whole file's."""
    source = SLICE_HOLDER.replace(
        "        self.sink = torch.zeros(n_heads * 8)\n",
        "        self.sink = torch.zeros(n_heads * 8)\n        self.rows = slice(None)\n"
        "        self.tail = slice(n_heads, None)\n",
    ) + src(f"""
        class Backend(Attention):
            def forward_decode(self, q, layer):
                return {read}

        """)
    plan, findings = analyse(tmp_path, source + FILLER_METHODS)
    assert plan.kind == prune.FULL
    assert [f.code for f in findings] == codes


STARRED_KERNEL = src("""
    import torch
    {import_line}


    class Backend:
        def forward_extend(self, q, layer, forward_batch):
            pool = forward_batch.token_to_kv_pool
            args = (q, pool.get_key_buffer(layer.layer_id), layer.scaling)
            out = store_kernel(*args, page_size=64)
            return out, q.float()

    """)


@pytest.mark.parametrize(
    "import_line, codes",
    [
        ("from engine_kernels import store_kernel", []),  # imported: no body here sees *args
        ("from engine_kernels import store_kernel as store_kernel", []),
        (
            "import engine_kernels\n\n\ndef store_kernel(q, kv, scale, page_size):\n    return kv.to(torch.bfloat16)",
            ["CL001"],
        ),
        (
            "from engine_kernels import store_kernel\n\nstore_kernel = lambda q, kv, s, page_size: kv.half()",
            ["CL001"],
        ),
    ],
)
def test_a_pool_in_starred_arguments_of_an_imported_kernel_reaches_no_body(tmp_path, import_line, codes):
    """`kernel(*args)` with a pool in args: the analysis binds *args to the parameters of a def it sees (a def or
    lambda of the module rebinding the name); an imported kernel's body it never sees, so no site is reached."""
    source = STARRED_KERNEL.replace("{import_line}", import_line) + FILLER_FUNCS
    plan, findings = analyse(tmp_path, source)
    assert [f.code for f in findings] == codes
    if not codes:
        assert plan.kind == prune.NOTHING


ATTRIBUTE_NAMED_GETATTR = src("""
    import dataclasses

    import torch


    @dataclasses.dataclass
    class Meta:
        kv: object = None
        lens: object = None

        def copy_from(self, other):
            for f in dataclasses.fields(self):
                setattr(self, f.name, getattr(other, f.name))


    class Reader:
        {cast_name}

        def read(self, pool, layer, meta):
            buf = pool.get_key_buffer(layer.layer_id)
            meta.kv = buf
            return getattr(buf, self.CAST)(), meta.lens.float()

    """)


@pytest.mark.parametrize(
    "cast_name, codes",
    [
        ("CAST = None", []),  # no string of the module names a cast: the attribute-held name is none
        ('CAST = f"{0}_metadata"', []),
        ('CAST = "bfloat16"', ["CL001"]),
        ('CAST = "half" if torch.cuda.is_available() else "float"', ["CL001"]),
    ],
)
def test_getattr_of_an_attribute_held_name_needs_a_cast_spelled_in_the_module(tmp_path, cast_name, codes):
    """`getattr(obj, self.name)`: the analysis reads the name among the module's constant strings; a module
    that spells no cast or conversion helper holds none, and its file is nothing to analyse."""
    source = ATTRIBUTE_NAMED_GETATTR.replace("{cast_name}", cast_name) + FILLER_FUNCS
    plan, findings = analyse(tmp_path, source)
    assert [f.code for f in findings] == codes
    if not codes:
        assert plan.kind == prune.NOTHING


RETURNS_A_POOL = src("""
    import torch

    REGISTRY = {{}}


    def register(name):
        def wrap(fn):
            REGISTRY[name] = fn
            return fn

        return wrap


    class KVReader(torch.nn.Module):
        def __init__(self, pool):
            super().__init__()
            self.pool = pool
            self.scale = torch.ones(4)

        {decorator}
        def {name}(self, layer_id):
            return self.pool.k_buffer[layer_id]

        def scaled(self, x):
            return x.float() * self.scale.float()


    class Backend:
        def __init__(self, pool):
            self.reader = KVReader(pool)

        def forward_decode(self, q, layer):
            {use}
    """)


@pytest.mark.parametrize(
    "decorator, name, use, codes",
    [
        ("", "latent", "return self.reader.scaled(q)", []),  # nothing names latent: its pool reaches no cast here
        ("", "latent", "return self.reader.latent(layer.layer_id).to(torch.bfloat16)", ["CL001"]),
        ("", "latent", 'return getattr(self.reader, "latent")(layer.layer_id).to(torch.bfloat16)', ["CL001"]),
        ("", "forward", "return self.reader(layer.layer_id).to(torch.bfloat16)", ["CL001"]),
        ("", "__getitem__", "return self.reader[layer.layer_id].to(torch.bfloat16)", ["CL001"]),
        ('@register("kv")', "latent", 'return REGISTRY["kv"](self.reader, layer.layer_id).half()', ["CL001"]),
    ],
)
def test_a_def_that_returns_a_pool_matters_where_the_module_can_call_it(tmp_path, decorator, name, use, codes):
    """A def returning a pool that no code of the module names (no call, attribute read or getattr string, no
    decorator, no dunder or delegated call method) hands it to other files only: with no other site the file is
    nothing to analyse; each way of calling it beside keeps it, and the pruned copy finds the whole file's."""
    source = RETURNS_A_POOL.format(decorator=decorator, name=name, use=use) + FILLER_FUNCS
    plan, findings = analyse(tmp_path, source)
    assert [f.code for f in findings] == codes
    if not codes:
        assert plan.kind == prune.NOTHING


YIELDING = src("""
    import types

    import torch


    class Holder:
        def __init__(self, pool, layer_id):
            self.kv = pool.get_key_buffer(layer_id)
            self.frames = []


    class Backend:
        def __init__(self, pool):
            self.pool = pool

        def _layers(self, layer, frame):
            holder = Holder(self.pool, layer.layer_id)
            ns = types.SimpleNamespace(kv=self.pool.get_value_buffer(layer.layer_id))
            yield {yielded}

        def forward_decode(self, q, layer, frame):
            out = [q.float()]
            for item in self._layers(layer, frame):
                out.append(item.to(torch.bfloat16))
            return out
    """)


@pytest.mark.parametrize(
    "yielded, codes",
    [
        ("frame.to_ndarray(format='rgb24')", []),  # an object nothing here fills: no pool
        ("frame.pixels", []),
        ("holder.kv", ["CL001"]),  # an attribute a class of the module assigns a pool
        ("ns.kv", ["CL001"]),  # an object a unit holds a pool in
    ],
)
def test_a_generator_that_yields_a_pool_read_is_followed_and_one_that_yields_other_objects_is_not(
    tmp_path, yielded, codes
):
    """The taint does not follow a generator's yields into `for x in gen()`, so a yield that may read a pool
    sends the file whole; a yield of another object's attribute is such a read only when that attribute or its
    object can hold a pool here."""
    plan, findings = analyse(tmp_path, YIELDING.format(yielded=yielded) + FILLER_FUNCS)
    assert [f.code for f in findings] == codes
    if not codes:
        assert plan.kind != prune.FULL


PARTIAL_HELD = src("""
    import functools

    import torch


    def _widen(kv):
        return kv


    class Backend:
        def __init__(self, pool):
            self.pool = pool
            self.bound = functools.partial(_widen, pool.k_buffer[0])

        def forward_decode(self, q, layer):
            {use}
    """)


@pytest.mark.parametrize(
    "use, codes",
    [
        ("return q.float() if self.bound.func is _widen else q", []),  # compared: nothing read back flows on
        ("return q.float() if self.bound.args == () else q", []),
        ("return self.bound.args[0].to(torch.bfloat16)", ["CL001"]),  # the bound pool read back and converted
    ],
)
def test_a_partial_read_back_only_in_a_comparison_hands_nothing_on(tmp_path, use, codes):
    """`p.func is f`, `p.args == ()`: a comparison of what a partial binds reads nothing back into a value,
    so it does not send the file whole; a read that flows on does, and the findings are the whole file's."""
    plan, findings = analyse(tmp_path, PARTIAL_HELD.format(use=use) + FILLER_METHODS)
    assert [f.code for f in findings] == codes
    if not codes:
        assert plan.kind != prune.FULL


RECORD_FIELDS = src("""
    import dataclasses

    import torch


    @dataclasses.dataclass
    class LayerKV:
        key: torch.Tensor
        scale: float


    class Backend:
        def __init__(self, pool, modules):
            self.rec = LayerKV(pool.get_key_buffer(0), 1.0)
            self.modules = modules

        def forward_decode(self, q, layer):
            {use}
    """)


@pytest.mark.parametrize(
    "use, codes",
    [
        ("names = [m.name for m in self.modules]\n        return names, q.float()", []),  # no fields() call
        ("return [getattr(self.rec, f.name).float() for f in dataclasses.fields(self.rec)]", ["CL001"]),
    ],
)
def test_a_field_name_read_is_a_record_field_reader_only_beside_a_fields_call(tmp_path, use, codes):
    """`f.name` names a record's field where `f` comes from `dataclasses.fields(rec)`; a `.name` read in a
    module that calls no field function is any object's attribute, not a read of a record built with a pool."""
    plan, findings = analyse(tmp_path, RECORD_FIELDS.format(use=use) + FILLER_METHODS)
    assert [f.code for f in findings] == codes
    if not codes:
        assert plan.kind != prune.FULL


ATTRIBUTE_NAMED_ACCESSOR = src("""
    import torch


    class PlaneReader:
        GETTER = {getter}

        def forward_decode(self, q, layer, forward_batch):
            plane = getattr(forward_batch.token_to_kv_pool, self.GETTER)(layer.layer_id)
            return plane.to(q.dtype), q.float()

    """)


@pytest.mark.parametrize(
    "getter, codes",
    [
        ('"get_key_buffer"', ["CL001"]),  # an accessor named in a class attribute: a pool read
        ('"describe"', []),  # no accessor or cast spelled: the getattr reads no pool
    ],
)
def test_getattr_of_an_attribute_held_accessor_name_reads_the_pool(tmp_path, getter, codes):
    """`getattr(pool, self.GETTER)(i)` with GETTER a string naming an accessor reads the whole pool, which the
    taint does not see: a module that spells an accessor keeps such a getattr (the whole file decides)."""
    plan, findings = analyse(tmp_path, ATTRIBUTE_NAMED_ACCESSOR.format(getter=getter) + FILLER_FUNCS)
    assert [f.code for f in findings] == codes


HELD_LOOKALIKES = src("""
    import dataclasses
    import functools

    import torch


    @dataclasses.dataclass
    class VisionConfig:
        width: int = 8


    def copy_config(dst, src_config):
        for field in dataclasses.fields(VisionConfig):
            setattr(dst, field.name, getattr(src_config, field.name))
        return "float"


    class Backend:
        def __init__(self, pool):
            self.pool = pool

        def forward_decode(self, q, layer):
            kv = self.pool.get_key_buffer(layer.layer_id)
            {use}
    """)


@pytest.mark.parametrize(
    "use, codes",
    [
        ('return q.to(getattr(layer, "orig_dtype", torch.bfloat16)), kv', []),  # a dtype default, no held cast
        ("return functools.partial(torch.nn.functional.pad, value=torch.float16)(q, (0, 1)), kv", []),
        ("return q.float(), kv, copy_config(self, layer)", []),
        ("return list(map(torch.Tensor.bfloat16, [kv]))", ["CL001"]),  # an unbound cast held: found
    ],
)
def test_a_dtype_argument_and_a_field_name_getattr_hold_no_conversion(tmp_path, use, codes):
    """`getattr(m, "dtype", torch.bfloat16)` holds a dtype, not the cast method of that name, and
    `getattr(cfg, field.name)` names an attribute the module never assigns: neither is a conversion held for
    later (which sends a file whole); an unbound cast mapped over the pool is, and is found."""
    plan, findings = analyse(tmp_path, HELD_LOOKALIKES.format(use=use) + FILLER_FUNCS)
    assert [f.code for f in findings] == codes
    if not codes:
        assert plan.kind != prune.FULL
