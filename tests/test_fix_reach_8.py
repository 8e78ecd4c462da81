"""CL003's reach, round 8 of the blind fix-behaviour benchmark (benchmarks/fix_behaviour_8).

The blind round of realistic engine code found no changed rewrite, but 8 of 13 safe cases refused. Each
family is now proven harmless by provenance (docs/fix.md, "Round 8"; rules/casts.toml [cast_motion]
"round 8"), never by a name the file could redefine:

- clocks (`time.perf_counter`, `time.monotonic`), `torch.cuda.is_available`, `torch.where` and
  `torch.outer` without `out=`, and a RoPE table's `cos`/`sin`/`exp`/`chunk` are read-only;
- a converted variable read as the input of a gather function (`torch.index_select(k, 0, idx)`);
- `dataclasses.replace` of an instance proven a plain dataclass of the file (round 7's rule);
- a call of a module function whose one decorator is `functools.lru_cache`/`cache` and whose body is
  proven read-only;
- counter updates (`stats["steps"] += n`) into a proven dict of str keys and int values;
- in-place writes into a buffer attribute proven distinct from the pool: every assignment a fresh
  allocation, every read keeping it in place.

For each, other realistic spellings are fixed and return exactly what the input returns (CPU torch),
and beside each the hazard look-alike stays unfixed by default - and, where CPU torch can show it,
applied anyway changes what the code returns.
"""

from __future__ import annotations

import pytest

from fix_safety_helpers import assert_exact, assert_hazard, assert_not_fixed_by_default, reach_source

pytest.importorskip("torch")

IMPORTS = """import dataclasses
import functools
import time
"""


def source(prelude: str, between: str, ret: str = "0", gather: str = "k[kv_indices]", init: str = "") -> bytes:
    init = (init + "\n" if init else "") + "self.forward_metadata = None"
    return reach_source(IMPORTS, prelude, between, ret, gather, init)


# -- clocks, device queries, torch.where / torch.outer, RoPE tables ---------------------------------

READ_ONLY_SAFE = {
    "monotonic timing": ("", "t0 = time.monotonic()\nok = time.monotonic() - t0 >= 0\n", "ok"),
    "perf_counter_ns imported by name": (
        "\nfrom time import perf_counter_ns\n",
        "t0 = perf_counter_ns()\nn = kv_indices.numel()\n",
        "n",
    ),
    "cuda query picks the device string": (
        "",
        'dev = "cuda" if torch.cuda.is_available() and torch.cuda.device_count() > 0 else "cpu"\n',
        "dev",
    ),
    "torch.where with a scalar fallback": ("", "kv_indices = torch.where(kv_indices >= 0, kv_indices, 0)\n", "0"),
    "rope table with exp and chunk": (
        "",
        "inv = torch.exp(-torch.arange(0, 4, 2).float())\n"
        "freqs = torch.outer(torch.arange(8).float(), inv)\n"
        "cos, sin = torch.cat([freqs.cos(), freqs.sin()], dim=-1)[kv_indices].chunk(2, dim=-1)\n",
        "(cos, sin)",
    ),
}


@pytest.mark.parametrize("name", sorted(READ_ONLY_SAFE))
def test_read_only_stdlib_and_torch_calls_are_fixed_exactly(name):
    prelude, between, ret = READ_ONLY_SAFE[name]
    assert_exact(source(prelude, between, ret))


def test_file_perf_counter_is_not_trusted():
    # a `perf_counter` of the file that commits: not the clock of the standard library
    prelude = "\n\ndef perf_counter():\n    commit()\n    return 0.0\n"
    assert_hazard(source(prelude, "t0 = perf_counter()\n", "0"), "perf_counter")


def test_file_object_named_time_is_not_trusted():
    prelude = (
        "\n\nclass _Clock:\n    def perf_counter(self):\n        commit()\n        return 0.0\n\n\nclock = _Clock()\n"
    )
    assert_hazard(source(prelude, "t0 = clock.perf_counter()\n", "0"), "perf_counter")


def test_where_out_into_the_pool_is_not_fixed():
    src = source("", "torch.where(kv_indices > 0, kv_indices, 0, out=self.pool.k[:2, 0])\n")
    assert_not_fixed_by_default(src, "torch.where")


def test_cos_of_a_file_class_that_commits_is_not_trusted():
    prelude = "\n\nclass Freqs:\n    def cos(self):\n        commit()\n        return 1.0\n"
    assert_hazard(source(prelude, "c = Freqs().cos()\n", "c"), "cos")


# -- a converted variable gathered by torch.index_select ------------------------------------------


def test_index_select_function_on_the_variable_is_fixed_exactly():
    between = 'dev = "cuda" if torch.cuda.is_available() else "cpu"\n'
    assert_exact(source("", between, "dev", gather="torch.index_select(k, 0, kv_indices)"))


def test_index_select_function_whose_index_commits_is_not_fixed():
    prelude = "\n\ndef admit(idx):\n    commit()\n    return idx\n"
    src = source(prelude, "", "0", gather="torch.index_select(k, 0, admit(kv_indices))")
    assert_hazard(src, "admit")


# -- dataclasses.replace of a plain dataclass of the file --------------------------------------------

META = "\n\n@dataclasses.dataclass(frozen=True)\nclass Meta:\n    max_seq_len: int\n    num_kv_splits: int = 2\n"
REPLACE_SAFE = {
    "replace rebinding the same name": (
        META,
        "md = Meta(8)\nmd = dataclasses.replace(md, max_seq_len=int(kv_indices.max()) + 1)\n",
        "md.max_seq_len",
    ),
    "replace imported by name, of a fresh construction": (
        "\nfrom dataclasses import replace\n" + META,
        "md = replace(Meta(4, 1), num_kv_splits=4)\n",
        "(md.max_seq_len, md.num_kv_splits)",
    ),
}


@pytest.mark.parametrize("name", sorted(REPLACE_SAFE))
def test_replace_of_a_plain_dataclass_is_fixed_exactly(name):
    prelude, between, ret = REPLACE_SAFE[name]
    assert_exact(source(prelude, between, ret))


def test_replace_of_a_dataclass_whose_post_init_commits_is_not_fixed():
    prelude = (
        "\n\n@dataclasses.dataclass\nclass Meta:\n    max_seq_len: int = 8\n\n"
        "    def __post_init__(self):\n        commit()\n"
    )
    src = source(prelude, "md = dataclasses.replace(self.forward_metadata or Meta(), max_seq_len=4)\n", "0")
    assert_not_fixed_by_default(src, "")


def test_replace_of_an_unproven_instance_is_not_fixed():
    # an attribute may hold an object of any class (another file's dataclass with a __post_init__)
    src = source(META, "md = dataclasses.replace(self.forward_metadata, max_seq_len=4)\n", "0")
    assert_not_fixed_by_default(src, "dataclasses.replace")


def test_file_replace_that_commits_is_not_trusted():
    prelude = META + "\n\ndef replace(md, **changes):\n    commit()\n    return md\n"
    assert_hazard(source(prelude, "md = replace(Meta(8), max_seq_len=4)\n", "0"), "replace")


# -- a functools.lru_cache'd pure function of the file ---------------------------------------------

CACHED_SAFE = {
    "lru_cache(maxsize=None) page count": (
        "\n\n@functools.lru_cache(maxsize=None)\ndef num_pages(n, page):\n    return (n + page - 1) // page\n",
        "p = num_pages(int(kv_indices.numel()), 2)\n",
        "p",
    ),
    "functools.cache with locals": (
        "\n\n@functools.cache\ndef split_sizes(n, parts):\n    base = n // parts\n    return [base] * parts\n",
        "sizes = split_sizes(8, 2)\n",
        "sizes",
    ),
    "lru_cache imported by name, positional maxsize": (
        "\nfrom functools import lru_cache\n\n\n@lru_cache(128)\ndef block_table_width(max_len, page=16):\n"
        "    return max(1, max_len // page)\n",
        "w = block_table_width(layer.head_dim * 8)\n",
        "w",
    ),
}


@pytest.mark.parametrize("name", sorted(CACHED_SAFE))
def test_cached_pure_function_is_fixed_exactly(name):
    prelude, between, ret = CACHED_SAFE[name]
    assert_exact(source(prelude, between, ret))


def test_cached_function_that_commits_is_not_fixed():
    prelude = "\n\n@functools.lru_cache(maxsize=None)\ndef num_pages(n):\n    commit()\n    return n\n"
    assert_hazard(source(prelude, "p = num_pages(2)\n", "p"), "num_pages")


def test_cached_function_that_writes_a_global_pool_is_not_fixed():
    prelude = "\n\n@functools.lru_cache(maxsize=None)\ndef warm(n):\n    POOL.k[3] = POOL.k[0]\n    return n\n"
    assert_hazard(source(prelude, "p = warm(2)\n", "p"), "warm")


def test_cached_function_with_another_decorator_is_not_trusted():
    prelude = (
        "\n\ndef traced(f):\n    commit()\n    return f\n\n\n"
        "@functools.lru_cache(maxsize=None)\n@traced\ndef num_pages(n):\n    return n\n"
    )
    assert_not_fixed_by_default(source(prelude, "p = num_pages(2)\n", "p"), "num_pages")


# -- counters in a dict of str keys and int values ------------------------------------------------

COUNTER_SAFE = {
    "local counters": ('counts = {"steps": 0, "tokens": 0}\ncounts["steps"] += 1\ncounts["tokens"] += 2\n', "counts"),
    "local dict() counters read back": ('c = dict()\nc["n"] = 0\nc["n"] += kv_indices.numel()\n', 'c.get("n")'),
}


@pytest.mark.parametrize("name", sorted(COUNTER_SAFE))
def test_local_counters_are_fixed_exactly(name):
    between, ret = COUNTER_SAFE[name]
    assert_exact(source("", between, ret))


def test_attribute_counters_are_fixed_exactly():
    init = 'self.stats = {"decode_steps": 0, "tokens": 0}'
    between = 'self.stats["decode_steps"] += 1\nself.stats["tokens"] -= -kv_indices.numel()\n'
    assert_exact(source("", between, "dict(self.stats)", init=init))


def test_counter_dict_holding_the_pool_is_not_fixed():
    # the "counter" dict holds the pool's buffer: `+=` on it is the tensor's in-place add
    init = 'self.stats = {"k": pool.k}'
    assert_not_fixed_by_default(source("", 'self.stats["k"] += 1\n', "0", init=init), "self.stats")


def test_counter_dict_handed_on_is_not_fixed():
    prelude = "\n\nREGISTRY = []\n"
    init = 'self.stats = {"steps": 0}\nREGISTRY.append(self.stats)'
    assert_not_fixed_by_default(source(prelude, 'self.stats["steps"] += 1\n', "0", init=init), "self.stats")


def test_counter_dict_of_a_file_class_is_not_trusted():
    prelude = (
        "\n\nclass Stats(dict):\n    def __setitem__(self, key, value):\n        commit()\n"
        "        super().__setitem__(key, value)\n"
    )
    init = "self.stats = Stats(steps=0)"
    assert_hazard(source(prelude, 'self.stats["steps"] += 1\n', "0", init=init), "self.stats")


# -- a buffer attribute proven distinct from the pool ---------------------------------------------

BUFFER_SAFE = {
    "static q copy": (
        "self.static_q = torch.zeros(8, 2)",
        "bs = kv_indices.numel()\nself.static_q[:bs].copy_(torch.ones(bs, 2))\n",
        "self.static_q.clone()",
    ),
    "zeroed and stored scratch": (
        "self.scratch = torch.empty(4, 2, dtype=torch.float32)",
        "self.scratch.zero_()\nself.scratch[0] = 1.0\n",
        "self.scratch.sum()",
    ),
}


@pytest.mark.parametrize("name", sorted(BUFFER_SAFE))
def test_fresh_buffer_writes_are_fixed_exactly(name):
    init, between, ret = BUFFER_SAFE[name]
    assert_exact(source("", between, ret, init=init))


def test_buffer_bound_to_the_pool_is_not_fixed():
    init = "self.static_k = pool.k"
    src = source("", "self.static_k[3:4].copy_(torch.full((1, 2), 0.5))\n", "0", init=init)
    assert_hazard(src, "static_k")


def test_fresh_buffer_handed_to_the_pool_is_not_fixed():
    # allocated fresh, but then made the pool's storage: the attribute is bound to the pool after all
    init = (
        "self.scratch = torch.zeros(8, 2, dtype=torch.float8_e4m3fn)\nself.scratch.copy_(pool.k)\npool.k = self.scratch"
    )
    src = source("", "self.scratch[3:4].copy_(torch.full((1, 2), 0.5))\n", "0", init=init)
    assert_hazard(src, "scratch")


# -- decorators are applied, not held (fixtures/fix/cast_after_gather_decorated) ----------------------

DECORATORS = """
def traced(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)

    return wrapper


def tagged(tag):
    def deco(fn):
        @functools.wraps(fn)
        def inner(*args, **kwargs):
            return fn(*args, **kwargs)

        return inner

    return deco


@traced
def page_count(n):
    return n // 2


@tagged("rows")
def row_count(n):
    return n
"""


def test_a_decorator_is_not_an_escaping_writer():
    """`@traced` calls the decorator once, on the def; what it (or a factory's decorator) returns is the
    decorated name's binding. An attribute read between the cast and the gather may not run them."""
    assert_exact(source(DECORATORS, "n = kv_indices.numel()\n", "n"))


def test_a_wrapper_a_decorator_also_stores_stays_an_escaping_writer():
    """The same decorator also keeps its wrapper in a table the file reads under another name: an object
    holds the writer, so an attribute read between may run it."""
    stores = DECORATORS.replace("    return wrapper\n", "    HOOKS.append(wrapper)\n    return wrapper\n").replace(
        "def traced(fn):", "HOOKS = []\n\n\ndef traced(fn):"
    )
    stores += "\n\n@traced\ndef flush():\n    return commit()\n"
    src = source(stores, "n = flush.__wrapped__ if kv_indices.numel() else 0\n", "0")
    assert_not_fixed_by_default(src, "passed on as a value")
