"""CL003's reach, round 11 of the blind fix-behaviour benchmark (benchmarks/fix_behaviour_11).

The blind round changed no behaviour (37/37 hazards refused) but refused 11 of 14 safe cases. These are
now proven harmless by the same judge as the code between the cast and the gather (docs/fix.md, "Round
11"; rules/casts.toml [cast_motion] "round 11"), never by a name the file could redefine:

- a call of a def or lambda of the file (module-level or nested, bound once): its body proven read-only,
  the functions it calls too (depth bounded, a cycle refused); `nonlocal` rebinding at the outermost call
  judged as a rebinding at the call site;
- a decorator that only returns a wrapper (under `functools.wraps`): the wrapper's body, a call of the
  decorated function in it judged by the decorated body;
- `getattr(x, name)(...)` where name is a string literal or an attribute assigned only string literals,
  each a read method of the tables;
- `heapq.heappush` on a proven builtin list; unpacking the items of a list attribute of tuple displays;
- `json.dumps` (its `default=`/`cls=` judged as callbacks), the operator module's out-of-place operators;
- `with contextlib.suppress(<builtin exceptions>):`, its body judged node by node.

For each, other spellings are fixed and return exactly what the input returns (CPU torch), and beside
each the look-alike a weaker rule would pass stays unfixed by default and, forced, changes the result.
"""

from __future__ import annotations

import pytest

from fix_safety_helpers import assert_exact, assert_hazard, assert_not_fixed_by_default, reach_source

pytest.importorskip("torch")

IMPORTS = """import contextlib
import functools
import heapq
import json
import operator
from contextlib import suppress
"""


def source(prelude: str, between: str, ret: str = "0", gather: str = "k[kv_indices]", init: str = "") -> bytes:
    return reach_source(IMPORTS, prelude, between, ret, gather, init)


# -- functions of the file, proven by their bodies -----------------------------------------------------

FUNCTION_SAFE = {
    "module-level def calling another def": (
        "\n\ndef _scale(d):\n    return d ** -0.5\n\n\ndef sm_scale(layer):\n    return _scale(layer.head_dim) * 2\n",
        "s = sm_scale(layer)\n",
        "s",
    ),
    "nested def with a keyword default": (
        "",
        "def cap(x, c=30.0):\n    y = x / c\n    return c * torch.tanh(y)\n\ncapped = cap(torch.ones(2), c=10.0)\n",
        "capped",
    ),
    "lambda bound to a name": ("", "half = lambda d: d // 2\nh = half(layer.head_dim)\n", "h"),
    "lambda whose default reads an attribute": (
        "",
        "scale_of = lambda d=layer.head_dim: d ** -0.5\ns = scale_of()\n",
        "s",
    ),
}


@pytest.mark.parametrize("name", sorted(FUNCTION_SAFE))
def test_a_function_of_the_file_with_a_read_only_body_is_fixed_exactly(name):
    prelude, between, ret = FUNCTION_SAFE[name]
    assert_exact(source(prelude, between, ret))


def test_a_nested_def_whose_body_commits_is_not_fixed():
    assert_hazard(source("", "def land():\n    return commit()\n\nn = land()\n", "n"), "land")


def test_a_def_reaching_a_writer_two_calls_down_is_not_fixed():
    prelude = "\n\ndef inner():\n    return commit()\n\n\ndef outer(x):\n    return inner() + x\n"
    assert_hazard(source(prelude, "n = outer(1)\n", "n"), "commit")


def test_a_lambda_whose_default_is_a_writer_is_not_fixed():
    # the default runs when the lambda is made, between the cast and the gather
    assert_hazard(source("", "f = lambda n=commit(): n\nn = f()\n", "n"), "commit")


def test_a_function_bound_twice_is_not_trusted():
    # rebinding the name to a writer: the body of the first def proves nothing about the call
    prelude = "\n\ndef step():\n    return 1\n\n\ndef step():\n    return commit()\n"
    assert_hazard(source(prelude, "n = step()\n", "n"), "step")


def test_a_recursive_function_is_not_proven():
    prelude = "\n\ndef depth(n):\n    return 0 if n <= 0 else depth(n - 1) + 1\n"
    assert_not_fixed_by_default(source(prelude, "d = depth(2)\n", "d"), "recursively")


# -- nonlocal rebinding ----------------------------------------------------------------------------------


def test_a_nonlocal_rebinding_of_the_index_is_fixed_exactly():
    # the gather reads the index where it is written, in the input and in the fix: the new value both times
    between = "def flip():\n    nonlocal kv_indices\n    kv_indices = kv_indices.flip(0)\n\nflip()\n"
    assert_exact(source("", between, "kv_indices"))


def test_a_nonlocal_rebinding_of_the_casts_dtype_is_not_fixed():
    # the moved cast would read the new dtype
    src = source(
        "",
        "def widen():\n    nonlocal dt\n    dt = torch.float32\n\nwiden()\n",
        "0",
    ).replace(
        b"k = self.pool.get_key_buffer(0).to(torch.bfloat16)\n",
        b"dt = torch.bfloat16\n        k = self.pool.get_key_buffer(0).to(dt)\n",
    )
    assert_hazard(src, "dt")


def test_a_nonlocal_in_a_function_called_from_a_function_is_not_proven():
    between = (
        "def flip():\n    nonlocal kv_indices\n    kv_indices = kv_indices.flip(0)\n\n"
        "def run_flip():\n    flip()\n\nrun_flip()\n"
    )
    assert_not_fixed_by_default(source("", between, "kv_indices"), "nonlocal")


# -- decorators returning a plain wrapper ----------------------------------------------------------------

COUNTED = (
    "\n\n_COUNTS = {}\n\n\ndef counted(fn):\n    @functools.wraps(fn)\n    def wrapper(*args, **kwargs):\n"
    "        _COUNTS[fn.__name__] = _COUNTS.get(fn.__name__, 0) + 1\n        return fn(*args, **kwargs)\n\n"
    "    return wrapper\n"
)


def test_a_counting_decorator_over_a_read_only_function_is_fixed_exactly():
    prelude = COUNTED + "\n\n@counted\ndef pages(n, page=4):\n    return (n + page - 1) // page\n"
    assert_exact(source(prelude, "p = pages(layer.head_dim, page=2)\n", "(p, dict(_COUNTS))"))


def test_a_wrapper_that_commits_is_not_fixed():
    prelude = (
        "\n\ndef flushed(fn):\n    @functools.wraps(fn)\n    def wrapper(*args):\n        commit()\n"
        "        return fn(*args)\n\n    return wrapper\n\n\n@flushed\ndef pages(n):\n    return n\n"
    )
    assert_hazard(source(prelude, "p = pages(3)\n", "p"), "commit")


def test_a_plain_wrapper_over_a_writer_is_not_fixed():
    prelude = COUNTED + "\n\n@counted\ndef land(n):\n    commit()\n    return n\n"
    assert_hazard(source(prelude, "p = land(3)\n", "p"), "commit")


def test_a_decorator_that_returns_something_else_is_not_trusted():
    prelude = (
        "\n\ndef swap(fn):\n    def wrapper(*args):\n        return fn(*args)\n\n    return commit\n\n\n"
        "@swap\ndef pages(n):\n    return n\n"
    )
    assert_not_fixed_by_default(source(prelude, "p = pages()\n", "p"), "plain wrapper")


# -- getattr of a read method by a literal name --------------------------------------------------------


def test_getattr_of_an_out_of_place_method_is_fixed_exactly():
    assert_exact(source("", 'q = getattr(torch.ones(2), "mul")(0.5)\n', "q"))
    assert_exact(source("", "q = getattr(torch.ones(2), self.op)(2.0)\n", "q", init='self.op = "div"'))


def test_getattr_of_an_in_place_name_on_the_pool_is_not_fixed():
    src = source("", "getattr(self.pool.k, self.op)()\n", "0", init='self.op = "zero_"')
    assert_hazard(src, "getattr(self.pool.k, self.op)")


def test_getattr_by_a_name_assigned_elsewhere_is_not_trusted():
    prelude = "\n\ndef configure(backend, name):\n    backend.op = name\n"
    src = source(prelude, "q = getattr(torch.ones(2), self.op)(2.0)\n", "q", init='self.op = "mul"')
    assert_not_fixed_by_default(src, "cannot name")


# -- heapq on a builtin list; unpacking its tuples -----------------------------------------------------


def test_a_heap_of_int_tuples_is_fixed_exactly():
    between = (
        "for prio, rid in ((3, 0), (1, 1)):\n    heapq.heappush(self.queue, (prio, rid))\n"
        "order = [rid for _, rid in self.queue]\n"
    )
    assert_exact(source("", between, "order", init="self.queue = []"))


def test_a_heap_of_objects_whose_lt_commits_is_not_fixed():
    prelude = (
        "\n\nclass Req:\n    def __init__(self, n):\n        self.n = n\n\n"
        "    def __lt__(self, other):\n        commit()\n        return self.n < other.n\n"
    )
    between = "heapq.heappush(self.queue, Req(1))\nn = len(self.queue)\n"
    assert_hazard(source(prelude, between, "n", init="self.queue = [Req(2)]"), "__lt__")


def test_unpacking_a_list_attribute_that_may_hold_other_items_is_not_trusted():
    prelude = "\n\ndef admit(backend, req):\n    backend.queue.append(req)\n"
    between = "order = [rid for _, rid in self.queue]\n"
    assert_not_fixed_by_default(source(prelude, between, "order", init="self.queue = []"), "self.queue")


# -- json.dumps, operator functions ----------------------------------------------------------------------


def test_json_dumps_of_plain_values_is_fixed_exactly():
    assert_exact(source("", 's = json.dumps({"layer": layer.layer_id, "d": [1, 2]}, sort_keys=True)\n', "s"))


def test_json_dumps_with_a_writing_default_is_not_fixed():
    prelude = "\n\ndef encode(o):\n    commit()\n    return 0\n"
    assert_hazard(source(prelude, 's = json.dumps({"x": object()}, default=encode)\n', "s"), "encode")


def test_an_out_of_place_operator_is_fixed_exactly():
    assert_exact(source("", "q = operator.mul(torch.ones(2), layer.head_dim ** -0.5)\n", "q"))
    assert_exact(source("", "q = operator.add(1, layer.head_dim)\n", "q"))


def test_an_operator_on_an_object_whose_mul_commits_is_not_fixed():
    prelude = "\n\nclass Scale:\n    def __mul__(self, other):\n        commit()\n        return other\n"
    assert_hazard(source(prelude, "q = operator.mul(Scale(), 2)\n", "q"), "__mul__")


# -- contextlib.suppress ---------------------------------------------------------------------------------


def test_suppress_around_a_plain_lookup_is_fixed_exactly():
    between = "n = 1\nwith contextlib.suppress(KeyError, IndexError):\n    n = self.splits[layer.layer_id + 7]\n"
    assert_exact(source("", between, "n", init="self.splits = {1: 4}"))
    between = "n = 1\nwith suppress(KeyError):\n    n = self.splits[layer.layer_id]\n"
    assert_exact(source("", between, "n", init="self.splits = {0: 4}"))


def test_suppress_after_a_partial_write_is_not_fixed():
    between = "with contextlib.suppress(KeyError):\n    commit()\n    n = self.splits[9]\n"
    assert_hazard(source("", between, "0", init="self.splits = {1: 4}"), "commit")


def test_suppress_of_the_files_exception_class_is_not_trusted():
    prelude = "\n\nclass Skip(Exception):\n    pass\n"
    between = "n = 1\nwith contextlib.suppress(Skip):\n    n = 2\n"
    assert_not_fixed_by_default(source(prelude, between, "n"), "suppress")


# -- a dataclass field made by its default_factory -----------------------------------------------------

STATS = (
    "\n\nimport dataclasses\n\n\n@dataclasses.dataclass\nclass Stats:\n"
    "    pages: list = dataclasses.field(default_factory=list)\n    splits: int = 1\n"
)
SINK = "\n\nclass Sink:\n    def extend(self, xs):\n        commit()\n\n    def append(self, x):\n        commit()\n"


def test_a_default_factory_list_field_is_fixed_exactly():
    between = "st = Stats(splits=2)\nst.pages.extend(kv_indices.tolist())\nst.pages.append(7)\n"
    assert_exact(source(STATS, between, "(st.pages, st.splits)"))


def test_a_field_given_the_files_object_is_not_fixed():
    between = "st = Stats(pages=SINK)\nst.pages.extend([1])\n"
    assert_hazard(source(STATS + SINK + "\n\nSINK = Sink()\n", between, "0"), "extend")


def test_a_field_whose_factory_is_the_files_function_is_not_fixed():
    prelude = (
        SINK + "\n\nimport dataclasses\n\n\n@dataclasses.dataclass\nclass Stats:\n"
        "    pages: object = dataclasses.field(default_factory=Sink)\n"
    )
    assert_hazard(source(prelude, "st = Stats()\nst.pages.append(1)\n", "0"), "Stats")


def test_extending_by_an_iterable_not_proven_builtin_is_not_fixed():
    prelude = STATS + "\n\ndef drain():\n    commit()\n    yield 1\n"
    assert_hazard(source(prelude, "st = Stats()\nst.pages.extend(drain())\n", "0"), "drain")
