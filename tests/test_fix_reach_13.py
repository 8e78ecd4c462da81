"""CL003's reach, round 13 of the blind fix-behaviour benchmark (benchmarks/fix_behaviour_13).

The blind round changed no behaviour (33/33 hazards refused) but refused 11 of 15 safe cases. These
families are now proven harmless by the same judge as the code between the cast and the gather
(docs/fix.md, "Round 13"; rules/casts.toml [cast_motion] "round 13"):

- strided and window views (`torch.as_strided`, `.unfold`) and a norm: read-only, their result a view
  of their argument (a store through a view of the pool stays a store into the pool);
- `contextlib.nullcontext(x)` (null_context_managers): entering hands x back, leaving does nothing;
- a call of a generator function of the file: it runs no line of its body until advanced, and
  advancing it is iterating a value not proven a builtin container (refused where it happens);
- `atexit.register(f, ...)` as a statement (exit_registrars): f is kept for interpreter exit only;
- `json.loads` of a builtin immutable value (immutable_argument_functions), including an attribute
  every assignment of which is a literal or a `json.dumps(...)` (str_result_functions), no hook;
- `"...".format(...)` of a str literal (literal_format_methods): what the f-string would run, the
  attribute names its fields spell judged as attribute reads (a property of the file is not proven);
- `itertools.groupby` (group_iterators): a group bound by `for key, group in groupby(...)` is a proven
  iterable, its groupby's argument, key and the items' `__eq__` judged where it is called;
- `.to(get_dtype())` of a getter of the file whose body is one `return torch.<dtype>`, plain or
  cached: every call answers that dtype.

For each, spellings in the styles of sglang, vLLM, lmdeploy and TRT-LLM are fixed and return exactly what
the input returns (CPU torch), and the look-alikes a weaker rule would pass stay unfixed by default and,
forced, change the result.
"""

from __future__ import annotations

import pytest

from fix_safety_helpers import assert_exact, assert_hazard, reach_source

pytest.importorskip("torch")

IMPORTS = """import atexit
import contextlib
import functools
import itertools
import json
"""


def source(prelude: str, between: str, ret: str = "0", gather: str = "k[kv_indices]", init: str = "") -> bytes:
    return reach_source(IMPORTS, prelude, between, ret, gather, init, commit_row=1)


ROWS = "torch.full((2,), 0.5).to(torch.float8_e4m3fn)"

# -- 1. strided and window views, a norm -------------------------------------------------------------

VIEW_SAFE = {
    # sglang: a strided view of the step's query and its norm
    "torch.as_strided of a local and its norm": (
        "q = torch.arange(16.0).reshape(2, 2, 4)\nq_flat = torch.as_strided(q, (2, 8), (8, 1))\n"
        "q_norm = q_flat.float().norm(dim=-1)\n",
        "q_norm",
        "",
    ),
    # vLLM: the page count of the pool's windows (a view read for its shape only)
    "unfold of the pool for its shape": (
        "num_pages = self.pool.get_key_buffer(0).unfold(0, 4, 4).shape[0]\n",
        "num_pages",
        "",
    ),
    # lmdeploy: sliding windows over the block ids
    "unfold of the indices": ("windows = kv_indices.unfold(0, 2, 1)\nn = windows.shape\n", "n", ""),
    # TRT-LLM: the backend's own workspace seen as a square
    "torch.as_strided of the backend's workspace": (
        "sq = torch.as_strided(self.workspace, (2, 2), (2, 1)).norm()\n",
        "sq",
        "self.workspace = torch.ones(4, 2)",
    ),
}


@pytest.mark.parametrize("name", sorted(VIEW_SAFE))
def test_a_strided_or_window_view_is_fixed_exactly(name):
    between, ret, init = VIEW_SAFE[name]
    assert_exact(source("", between, ret, init=init))


def test_a_store_through_a_strided_view_of_the_pool_is_not_fixed():
    between = f"pages = torch.as_strided(self.pool.get_key_buffer(0), (4, 2, 2), (4, 2, 1))\npages[0, 1] = {ROWS}\n"
    assert_hazard(source("", between), "pages[0, 1]")


SCRUB_VIEW = f"""

def scrub(view):
    view[1, :, 0] = {ROWS}
"""


def test_a_window_view_of_the_pool_handed_to_a_writer_is_not_fixed():
    between = "pages = self.pool.get_key_buffer(0).unfold(0, 1, 1)\nscrub(pages)\n"
    assert_hazard(source(SCRUB_VIEW, between), "scrub")


def test_an_in_place_copy_into_a_strided_view_of_the_pool_is_not_fixed():
    between = f"rows = torch.as_strided(self.pool.get_key_buffer(0), (2,), (1,), 2)\nrows.copy_({ROWS})\n"
    assert_hazard(source("", between), "copy_")


# -- 2. contextlib.nullcontext -----------------------------------------------------------------------

NULL_SAFE = {
    # sglang: no transfer stream, so a null context around the bookkeeping
    "nullcontext(self.trace) as trace": (
        "",
        "with contextlib.nullcontext(self.trace) as trace:\n    trace.append(int(kv_indices.numel()))\n",
        "self.trace",
        "self.trace = []",
    ),
    # vLLM: `nullcontext()` when the profiler is off
    "nullcontext() around a read": ("", "with contextlib.nullcontext():\n    n = kv_indices.numel()\n", "n", ""),
    # lmdeploy: imported by name, given by keyword
    "nullcontext(enter_result=...)": (
        "\nfrom contextlib import nullcontext\n",
        "with nullcontext(enter_result=4) as bs:\n    s = bs * 2\n",
        "s",
        "",
    ),
    # TRT-LLM: the layer id handed through
    "nullcontext(layer.layer_id) as lid": (
        "",
        'with contextlib.nullcontext(layer.layer_id) as lid:\n    tag = f"layer{lid}"\n',
        "tag",
        "",
    ),
}


@pytest.mark.parametrize("name", sorted(NULL_SAFE))
def test_a_null_context_is_fixed_exactly(name):
    prelude, between, ret, init = NULL_SAFE[name]
    assert_exact(source(prelude, between, ret, init=init))


STREAM = """

class LayerStream:
    def close(self):
        commit()
"""


def test_contextlib_closing_is_not_fixed():
    src = source(STREAM, "with contextlib.closing(self.stream):\n    pass\n", init="self.stream = LayerStream()")
    assert_hazard(src, "closing")


OVERWRITE = f"""

def overwrite(rows):
    rows[1] = {ROWS}
"""


def test_a_null_context_of_the_pool_handed_to_a_writer_is_not_fixed():
    between = "with contextlib.nullcontext(self.pool.get_key_buffer(0)) as buf:\n    overwrite(buf)\n"
    assert_hazard(source(OVERWRITE, between), "overwrite")


def test_an_exit_stack_whose_callback_commits_is_not_fixed():
    between = "with contextlib.ExitStack() as stack:\n    stack.callback(commit)\n"
    assert_hazard(source("", between), "ExitStack")


# -- 3. a generator function called, not advanced ------------------------------------------------------

LANDER = """

def iter_land(pool, chunks):
    for loc in chunks:
        pool.set_kv_buffer(0, loc, torch.full((1, 2), 0.5))
        yield loc
"""

GEN_SAFE = {
    # sglang: the lander made before the gather, its type read
    "bound, its type read": (LANDER, "lander = iter_land(self.pool, [3])\n", "type(lander).__name__"),
    # vLLM: made and dropped (its body never runs)
    "called and dropped": (LANDER, "iter_land(self.pool, [3, 1])\n", "0"),
    # lmdeploy: advanced only after the gather
    "advanced after the gather": (LANDER, "lander = iter_land(self.pool, [1])\n", "sum(lander)"),
    # TRT-LLM: a generator delegating with `yield from`, its writer after
    "yield from, writer after": (
        "\n\ndef drain(pool):\n    yield from range(2)\n    commit()\n",
        "d = drain(self.pool)\n",
        "d is None",
    ),
}


@pytest.mark.parametrize("name", sorted(GEN_SAFE))
def test_a_generator_function_called_not_advanced_is_fixed_exactly(name):
    prelude, between, ret = GEN_SAFE[name]
    assert_exact(source(prelude, between, ret))


def test_a_generator_advanced_by_next_is_not_fixed():
    assert_hazard(source(LANDER, "lander = iter_land(self.pool, [1])\nn = next(lander)\n", "n"), "lander")


def test_a_generator_drained_by_a_for_loop_is_not_fixed():
    between = "lander = iter_land(self.pool, [1])\nfor n in lander:\n    pass\n"
    assert_hazard(source(LANDER, between), "lander")


def test_a_generator_drained_by_list_is_not_fixed():
    assert_hazard(source(LANDER, "landed = list(iter_land(self.pool, [1]))\n", "landed"), "iter_land")


def test_a_generator_sent_to_is_not_fixed():
    assert_hazard(source(LANDER, "lander = iter_land(self.pool, [1])\nlander.send(None)\n"), "send")


# -- 4. atexit.register --------------------------------------------------------------------------------

SCRUB = """

class Scrubber:
    def scrub(self, layer_id):
        POOL.k.zero_()
"""

EXIT_SAFE = {
    # sglang: a shutdown scrub of the layer, a bound method and its argument
    "register(self.scrubber.scrub, layer_id)": (
        SCRUB,
        "atexit.register(self.scrubber.scrub, layer.layer_id)\n",
        "self.scrubber = Scrubber()",
    ),
    # vLLM: a module function that writes the pool
    "register(commit)": ("", "atexit.register(commit)\n", ""),
    # lmdeploy: a lambda
    "register(lambda: ...)": ("", "atexit.register(lambda: commit())\n", ""),
    # TRT-LLM: the pool's own store, its arguments given
    "register(self.pool.set_kv_buffer, ...)": (
        "",
        "atexit.register(self.pool.set_kv_buffer, 0, 1, torch.full((1, 2), 0.5))\n",
        "",
    ),
}


@pytest.fixture
def exit_hooks(monkeypatch):
    """atexit as the cases see it, kept in the test: registered callables run only on `_run_exitfuncs()`,
    never at the interpreter's exit (nor are torch's own exit handlers touched)."""
    import atexit

    registered = []

    def register(fn, *args, **kwargs):
        registered.append((fn, args, kwargs))
        return fn

    def run_exitfuncs():
        while registered:
            fn, args, kwargs = registered.pop()
            fn(*args, **kwargs)

    monkeypatch.setattr(atexit, "register", register)
    monkeypatch.setattr(atexit, "_run_exitfuncs", run_exitfuncs)
    return registered


@pytest.mark.parametrize("name", sorted(EXIT_SAFE))
def test_an_exit_registration_is_fixed_exactly(name, exit_hooks):
    prelude, between, init = EXIT_SAFE[name]
    assert_exact(source(prelude, between, init=init))
    assert exit_hooks  # registered, not run


def test_exit_functions_run_now_are_not_fixed(exit_hooks):
    assert_hazard(source("", "atexit.register(commit)\natexit._run_exitfuncs()\n"), "_run_exitfuncs")


def test_the_registered_callable_called_back_is_not_fixed(exit_hooks):
    assert_hazard(source("", "fn = atexit.register(commit)\nfn()\n"), "atexit.register")


def test_the_registered_callable_stored_and_called_is_not_fixed(exit_hooks):
    # since round 15 the store into the plain backend is proven; the registration whose result is used is not
    assert_hazard(source("", "self.cb = atexit.register(commit)\nself.cb()\n"), "atexit.register")


# -- 5. json.loads of builtin immutable values ---------------------------------------------------------

JSON_SAFE = {
    # sglang: the step's metadata, dumped in __init__
    "json.loads(self.raw_meta) of a json.dumps": (
        "",
        "meta = json.loads(self.raw_meta)\n",
        "meta",
        'self.raw_meta = json.dumps({"step": 7, "num_tokens": [5, 2]})',
    ),
    # vLLM: a literal config
    "json.loads of a literal": ("", "cfg = json.loads('{\"block_size\": 16}')\n", "cfg", ""),
    # lmdeploy: an attribute bound to a literal, no hook given
    "json.loads(..., object_hook=None)": (
        "",
        "cfg = json.loads(self.cfg_text, object_hook=None)\n",
        "cfg",
        'self.cfg_text = \'{"quant": "fp8"}\'',
    ),
    # TRT-LLM: an f-string
    "json.loads of an f-string": ("", "meta = json.loads(f'{{\"layer\": {layer.layer_id}}}')\n", "meta", ""),
}


@pytest.mark.parametrize("name", sorted(JSON_SAFE))
def test_json_loads_of_builtin_values_is_fixed_exactly(name):
    prelude, between, ret, init = JSON_SAFE[name]
    assert_exact(source(prelude, between, ret, init=init))


HOOK = """

class Hooks:
    def hook(self, d):
        commit()
        return d

    def parse(self, text):
        commit()
        return int(text)
"""


def test_json_loads_with_an_object_hook_that_commits_is_not_fixed():
    src = source(HOOK, "meta = json.loads('{\"a\": 1}', object_hook=self.h.hook)\n", "meta", init="self.h = Hooks()")
    assert_hazard(src, "json.loads")


def test_json_loads_with_a_parse_int_that_commits_is_not_fixed():
    src = source(HOOK, "meta = json.loads('{\"a\": 1}', parse_int=self.h.parse)\n", "meta", init="self.h = Hooks()")
    assert_hazard(src, "json.loads")


PAYLOAD = """

class Payload(str):
    def startswith(self, *args):
        commit()
        return False
"""


def test_json_loads_of_a_str_subclass_is_not_fixed():
    src = source(PAYLOAD, "meta = json.loads(self.raw_meta)\n", "meta", init="self.raw_meta = Payload('{\"a\": 1}')")
    assert_hazard(src, "json.loads")


# -- 6. `.to(get_dtype())`: a getter of the file of a dtype constant --------------------------------------


def getter_source(prelude: str, between: str, ret: str = "0", call: str = "get_kv_compute_dtype()") -> bytes:
    src = source(prelude, between, ret)
    return src.replace(b".to(torch.bfloat16)\n", f".to({call})\n".encode(), 1)


GETTER_SAFE = {
    # sglang: functools.cache, read again between
    "@functools.cache": (
        "\n\n@functools.cache\ndef get_kv_compute_dtype():\n    return torch.bfloat16\n",
        "acc_bytes = get_kv_compute_dtype().itemsize * 2\n",
        "acc_bytes",
    ),
    # vLLM: lru_cache(maxsize=None)
    "@functools.lru_cache(maxsize=None)": (
        "\n\n@functools.lru_cache(maxsize=None)\ndef get_kv_compute_dtype():\n    return torch.float16\n",
        "n = kv_indices.numel()\n",
        "n",
    ),
    # lmdeploy: a plain getter with a docstring
    "plain def with a docstring": (
        '\n\ndef get_kv_compute_dtype():\n    """The dtype attention reads."""\n    return torch.float32\n',
        "",
        "0",
    ),
    # TRT-LLM: lru_cache(maxsize=1), called between
    "@functools.lru_cache(maxsize=1)": (
        "\n\n@functools.lru_cache(maxsize=1)\ndef get_kv_compute_dtype():\n    return torch.bfloat16\n",
        "d = get_kv_compute_dtype()\n",
        "str(d)",
    ),
}


@pytest.mark.parametrize("name", sorted(GETTER_SAFE))
def test_a_cast_to_a_dtype_getter_of_the_file_is_fixed_exactly(name):
    prelude, between, ret = GETTER_SAFE[name]
    src = getter_source(prelude, between, ret)
    assert b".to(get_kv_compute_dtype())" in src
    assert_exact(src)


CONFIGURED = """

_CONFIG = {"dtype": "bfloat16"}


@functools.cache
def get_kv_compute_dtype():
    return getattr(torch, _CONFIG["dtype"])


def reload():
    _CONFIG["dtype"] = "float32"
    get_kv_compute_dtype.cache_clear()
"""


def test_a_cached_getter_of_configuration_cleared_between_is_not_fixed():
    assert_hazard(getter_source(CONFIGURED, "reload()\n"), "another tensor")


GLOBAL = """

_DTYPE = torch.bfloat16


def get_kv_compute_dtype():
    return _DTYPE


def demote():
    global _DTYPE
    _DTYPE = torch.float32
"""


def test_a_getter_of_a_module_variable_rebound_between_is_not_fixed():
    assert_hazard(getter_source(GLOBAL, "demote()\n"), "another tensor")


REBOUND = """

def get_kv_compute_dtype():
    return torch.bfloat16


def use_fp32():
    global get_kv_compute_dtype
    get_kv_compute_dtype = lambda: torch.float32
"""


def test_a_getter_rebound_between_is_not_fixed():
    assert_hazard(getter_source(REBOUND, "use_fp32()\n"), "another tensor")


ARGUMENT = """

def get_kv_compute_dtype(layer):
    return torch.float32 if layer.head_dim > 2 else torch.bfloat16
"""


def test_a_getter_given_an_argument_changed_between_is_not_fixed():
    src = getter_source(ARGUMENT, "layer.head_dim = 1\n", call="get_kv_compute_dtype(layer)")
    assert_hazard(src, "another tensor")


# -- 7. `"...".format(...)` of a str literal ------------------------------------------------------------

FORMAT_SAFE = {
    # sglang: the step's trace line, attribute fields
    "positional attribute fields": (
        "",
        'self.trace.append("layer {0.layer_id}: bs {1}".format(layer, kv_indices.numel()))\n',
        "self.trace",
        "self.trace = []",
    ),
    # vLLM: automatic numbering
    "automatic fields": ("", 'msg = "{} tokens, dim {}".format(len(kv_indices), layer.head_dim)\n', "msg", ""),
    # lmdeploy: a keyword field with a spec
    "keyword field with a spec": ("", 'tag = "L{lid:03d}".format(lid=layer.layer_id)\n', "tag", ""),
    # TRT-LLM: an indexed field and a nested width
    "indexed field, nested width": ("", 'name = "{0[0]:>{1}}".format(("kv",), 4)\n', "name", ""),
}


@pytest.mark.parametrize("name", sorted(FORMAT_SAFE))
def test_str_format_of_a_literal_is_fixed_exactly(name):
    prelude, between, ret, init = FORMAT_SAFE[name]
    assert_exact(source(prelude, between, ret, init=init))


PROGRESS = """

class Progress:
    @property
    def num_loaded(self):
        return commit()
"""


def test_a_format_field_naming_a_property_that_commits_is_not_fixed():
    src = source(PROGRESS, 'msg = "{0.num_loaded}".format(self.progress)\n', "msg", init="self.progress = Progress()")
    assert_hazard(src, "num_loaded")


TAG = """

class Tag:
    def __format__(self, spec):
        commit()
        return "tag"
"""


def test_a_format_field_whose_format_commits_is_not_fixed():
    src = source(TAG, 'msg = "{0}".format(self.tag)\n', "msg", init="self.tag = Tag()")
    assert_hazard(src, "__format__")


ROWS_OBJ = """

class Rows:
    def __getitem__(self, i):
        commit()
        return i
"""


def test_a_format_field_indexing_an_object_that_commits_is_not_fixed():
    src = source(ROWS_OBJ, 'msg = "{0[1]}".format(self.rows)\n', "msg", init="self.rows = Rows()")
    assert_hazard(src, "__getitem__")


MISSING = """

class Defaults(dict):
    def __missing__(self, key):
        commit()
        return 0
"""


def test_format_map_of_a_mapping_whose_missing_commits_is_not_fixed():
    src = source(MISSING, 'msg = "{x}".format_map(self.defaults)\n', "msg", init="self.defaults = Defaults()")
    assert_hazard(src, "format_map")


# -- 8. itertools.groupby and its groups ----------------------------------------------------------------

GROUPBY_SAFE = {
    # sglang: the sorted sequence lengths of the batch, an attribute list of ints
    "groups of a sorted attribute list": (
        "",
        "length_groups = [(n, len(list(grp))) for n, grp in itertools.groupby(sorted(self.seq_lens))]\n",
        "length_groups",
        "self.seq_lens = [5, 2, 5]",
    ),
    # vLLM: run lengths of a literal
    "run lengths of a literal": (
        "",
        "runs = [(b, sum(1 for _ in g)) for b, g in itertools.groupby([1, 1, 2])]\n",
        "runs",
        "",
    ),
    # lmdeploy: a key lambda
    "a key lambda": (
        "",
        "groups = [(p, list(g)) for p, g in itertools.groupby((3, 1, 4), key=lambda x: x % 2)]\n",
        "groups",
        "",
    ),
    # TRT-LLM: a for statement
    "a for statement": (
        "",
        'out = []\nfor key, grp in itertools.groupby("aab"):\n    out.append((key, len(list(grp))))\n',
        "out",
        "",
    ),
}


@pytest.mark.parametrize("name", sorted(GROUPBY_SAFE))
def test_itertools_groupby_of_builtin_values_is_fixed_exactly(name):
    prelude, between, ret, init = GROUPBY_SAFE[name]
    assert_exact(source(prelude, between, ret, init=init))


COMMITTED = """

class Req:
    def __init__(self, adapter):
        self.adapter = adapter

    def committed_adapter(self):
        commit()
        return self.adapter
"""


def test_groupby_with_a_key_that_commits_is_not_fixed():
    between = "groups = [(a, len(list(g))) for a, g in itertools.groupby(self.reqs, key=Req.committed_adapter)]\n"
    src = source(COMMITTED, between, "groups", init='self.reqs = [Req("a"), Req("a")]')
    assert_hazard(src, "committed_adapter")


def test_groupby_over_a_generator_that_commits_is_not_fixed():
    between = "groups = [(n, len(list(g))) for n, g in itertools.groupby(iter_land(self.pool, [1]))]\n"
    assert_hazard(source(LANDER, between, "groups"), "iter_land")


TOKEN = """

class Tok:
    def __eq__(self, other):
        commit()
        return True

    __hash__ = object.__hash__
"""


def test_groupby_of_items_whose_eq_commits_is_not_fixed():
    between = "groups = [len(list(g)) for _, g in itertools.groupby([Tok(), Tok()])]\n"
    assert_hazard(source(TOKEN, between, "groups"), "__eq__")
