"""CL003's reach, round 10 of the blind fix-behaviour benchmark (benchmarks/fix_behaviour_10).

The blind round changed no behaviour (32/32 hazards refused) but refused 10 of 12 safe cases. Three
families are now proven harmless by provenance (docs/fix.md, "Round 10"; rules/casts.toml [cast_motion]
"round 10"), never by a name the file could redefine:

- membership in a builtin container held by the file (`layer.layer_id in self.sliding_layers`): round 9's
  proof that the attribute is a builtin list, dict or set; the elements' `__eq__`/`__hash__` judged as
  implicit code of the file (round 6);
- iterating such a container or its views (`for k, v in self.sampling.items()`), the items of `items()`
  being builtin (key, value) tuples;
- `DEBUG.get()` on a name bound only to `contextvars.ContextVar(...)` (qualified through the imports).

For each, other spellings are fixed and return exactly what the input returns (CPU torch), and beside
each the look-alike a weaker rule would pass stays unfixed by default and, forced, changes the result.
The other seven refused safe cases stay refused (docs/fix.md says why).
"""

from __future__ import annotations

import pytest

from fix_safety_helpers import assert_exact, assert_hazard, assert_not_fixed_by_default, reach_source

pytest.importorskip("torch")

IMPORTS = """import contextvars
from contextvars import ContextVar as CV
"""


def source(prelude: str, between: str, ret: str = "0", gather: str = "k[kv_indices]", init: str = "") -> bytes:
    return reach_source(IMPORTS, prelude, between, ret, gather, init)


COMMITS_ON_EQ = (
    "\n\nclass Rid:\n    def __init__(self, n):\n        self.n = n\n\n"
    "    def __eq__(self, other):\n        commit()\n        return False\n\n"
    "    def __hash__(self):\n        return 1\n"
)
COMMITS_ON_CONTAINS = (
    "\n\nclass Window:\n    def __contains__(self, x):\n        commit()\n        return True\n\n"
    "    def __iter__(self):\n        commit()\n        return iter(())\n\n"
    "    def items(self):\n        commit()\n        return ()\n"
)

# -- membership in a builtin container held by the file ----------------------------------------------

MEMBERSHIP_SAFE = {
    "set attribute of ints": ("self.sliding = {0, 2}", "w = 4 if layer.layer_id in self.sliding else -1\n", "w"),
    "frozenset call, not in": (
        "self.full_layers = frozenset(range(3))",
        "skip = layer.layer_id not in self.full_layers\n",
        "skip",
    ),
    "dict keyed by layer, rebuilt elsewhere": (
        "self.windows = {}\nself.windows = {i: 4 for i in range(2)}",
        "w = self.windows[layer.layer_id] if layer.layer_id in self.windows else 0\n",
        "w",
    ),
    "local list bound to a display": ("", "ids = [0, 1]\nhit = layer.layer_id in ids\n", "hit"),
}


@pytest.mark.parametrize("name", sorted(MEMBERSHIP_SAFE))
def test_membership_in_a_held_builtin_container_is_fixed_exactly(name):
    init, between, ret = MEMBERSHIP_SAFE[name]
    assert_exact(source("", between, ret, init=init))


def test_membership_in_a_container_of_the_file_is_not_fixed():
    # `__contains__` of the file's class writes the pool: an attribute not proven a builtin container
    src = source(COMMITS_ON_CONTAINS, "w = layer.layer_id in self.sliding\n", "w", init="self.sliding = Window()")
    assert_hazard(src, "membership")


def test_a_set_attribute_rebound_to_the_files_container_is_not_fixed():
    # every assignment must be a builtin container: one binding elsewhere to the file's class refuses
    prelude = COMMITS_ON_CONTAINS + "\n\ndef reconfigure(backend):\n    backend.sliding = Window()\n"
    src = source(prelude, "w = layer.layer_id in self.sliding\n", "w", init="self.sliding = {0}")
    assert_not_fixed_by_default(src, "membership")


def test_membership_comparing_the_files_elements_is_not_fixed():
    # a builtin list of the file's objects: `in` calls their `__eq__`, which writes the pool
    src = source(COMMITS_ON_EQ, "hit = layer.layer_id in self.reqs\n", "hit", init="self.reqs = [Rid(5)]")
    assert_hazard(src, "__eq__")


# -- iterating a held builtin container and its views ------------------------------------------------

ITERATION_SAFE = {
    "items of a dict attribute": (
        'self.sampling = {"temperature": [0.7, 1.0], "top_k": [20, 40]}',
        "summary = {}\nfor name, values in self.sampling.items():\n    summary[name] = len(values)\n",
        "summary",
    ),
    "values in a comprehension": (
        "self.sizes = dict(a=3, b=4)",
        "total = sum([v for v in self.sizes.values()])\n",
        "total",
    ),
    "list attribute iterated directly": (
        "self.steps = []\nself.steps = list(range(3))",
        "acc = 0\nfor s in self.steps:\n    acc = acc + s\n",
        "acc",
    ),
    "keys unpacked with a star": ("self.opts = {'x': 1}", "names = [*self.opts.keys()]\n", "names"),
}


@pytest.mark.parametrize("name", sorted(ITERATION_SAFE))
def test_iterating_a_held_builtin_container_is_fixed_exactly(name):
    init, between, ret = ITERATION_SAFE[name]
    assert_exact(source("", between, ret, init=init))


def test_items_of_the_files_mapping_are_not_fixed():
    src = source(
        COMMITS_ON_CONTAINS,
        "n = 0\nfor a, b in self.sampling.items():\n    n = n + 1\n",
        "n",
        init="self.sampling = Window()",
    )
    assert_hazard(src, "self.sampling")


def test_iterating_a_list_attribute_also_stored_by_keyword_is_not_fixed():
    # a keyword argument of the attribute's name may store anything (a namespace, a dataclass): round 9
    prelude = COMMITS_ON_CONTAINS + "\n\ndef make(ns):\n    return ns(steps=Window())\n"
    src = source(prelude, "acc = 0\nfor s in self.steps:\n    acc = acc + 1\n", "acc", init="self.steps = [1]")
    assert_not_fixed_by_default(src, "self.steps")


def test_a_view_of_an_object_of_the_file_is_not_trusted():
    # `values()` of an attribute not proven a builtin container: the file's class may define it
    src = source(COMMITS_ON_CONTAINS, "n = [x for x in self.sampling.values()]\n", "n", init="self.sampling = Window()")
    assert_not_fixed_by_default(src, "self.sampling")


# -- a ContextVar's value read ------------------------------------------------------------------------

CONTEXT_VAR_SAFE = {
    "module flag read": ('\nDEBUG = contextvars.ContextVar("debug", default=True)\n', "d = DEBUG.get()\n", "d"),
    "imported under another name, with a default": (
        '\nTRACE = CV("trace")\n',
        "trace = []\nif TRACE.get(False):\n    trace.append(layer.layer_id)\n",
        "trace",
    ),
}


@pytest.mark.parametrize("name", sorted(CONTEXT_VAR_SAFE))
def test_a_context_var_read_is_fixed_exactly(name):
    prelude, between, ret = CONTEXT_VAR_SAFE[name]
    assert_exact(source(prelude, between, ret))


def test_a_context_var_set_in_between_feeds_the_cast():
    # the cast's dtype is the variable's value: set in between, the moved cast would read the new one
    prelude = '\nDTYPE = contextvars.ContextVar("dtype", default=torch.bfloat16)\n'
    src = source(prelude, "DTYPE.set(torch.float32)\n", "0").replace(
        b".to(torch.bfloat16)\n", b".to(dtype=DTYPE.get())\n", 1
    )
    assert_hazard(src, "DTYPE")


def test_a_context_var_rebound_to_the_files_object_is_not_trusted():
    prelude = (
        '\nDEBUG = contextvars.ContextVar("debug")\n\n\nclass Flag:\n    def get(self):\n        commit()\n'
        "        return True\n\n\ndef install():\n    global DEBUG\n    DEBUG = Flag()\n"
    )
    src = source(prelude, "d = DEBUG.get()\n", "d")
    assert_not_fixed_by_default(src, "DEBUG.get")


def test_a_get_of_the_files_context_var_class_is_not_trusted():
    prelude = (
        "\n\nclass ContextVar:\n    def __init__(self, name):\n        self.name = name\n\n"
        "    def get(self):\n        commit()\n        return True\n\n\nDEBUG = ContextVar('debug')\n"
    )
    src = source(prelude, "d = DEBUG.get()\n", "d")
    assert_hazard(src, "DEBUG.get")
