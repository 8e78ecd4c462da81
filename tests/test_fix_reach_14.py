"""CL003's reach, round 14 of the blind fix-behaviour benchmark (benchmarks/fix_behaviour_14).

The blind round changed no behaviour (33/33 hazards refused) but refused 13 of 15 safe cases. These
families are now proven harmless by the same judge as the code between the cast and the gather
(docs/fix.md, "Round 14"; rules/casts.toml [cast_motion] "round 14"):

- a call of a closure of the file that rebinds a `nonlocal` name other than the dtype's: the name's values
  are judged as every value the enclosing function and its closures bind it to (`n = 0`, `n += 1`: an
  int, whose `+=` writes nothing), not as an unknown object that may be or hold the pool;
- a builtin immutable value stored into an attribute of `self` in a plain method of a plain class of the
  file (`self.prefetch_skips += 1` beside a `functools.total_ordering` comparison of pure members): object's
  own `__setattr__` runs (no class of the file defines the name or an attribute hook, no string names
  it), the old value dropped is a builtin immutable one (every assignment of the name in the file is), and
  every read of the name is in that method;
- `pickle.dumps` of builtin immutable values and of list/set/dict displays of them (immutable_argument_
  functions; _builtin_display): the C Pickler saves exact builtins by their own fast path, consulting no
  `__reduce_ex__`, `copyreg` entry or `reducer_override`;
- an autocast scope (`torch.autocast`, `torch.amp.autocast`: autocast_managers) on "cpu" (autocast_devices)
  with a dtype it supports (autocast_dtypes), constant flags and no `as`: it warns nothing (no warnings
  hook of the file runs), its construction runs no code of the file, entering and leaving switch torch's
  thread-local autocast state and write no tensor; the scope's body is judged node by node. Where it holds
  the gather but not the cast, the moved cast runs inside it: neither the cast nor indexing is an autocast
  op, but a cast argument reading the autocast state would change, so the cast's arguments must be
  constants or `torch.<dtype>`.

For each, spellings in the styles of sglang, vLLM, lmdeploy and TRT-LLM are fixed and return exactly what
the input returns (CPU torch), and the look-alikes a weaker rule would pass stay unfixed by default and,
forced, change the result.
"""

from __future__ import annotations

import pytest

from fix_safety_helpers import assert_exact, assert_hazard, assert_not_fixed_by_default, reach_source

pytest.importorskip("torch")

IMPORTS = ""

CAST = b"get_key_buffer(0).to(torch.bfloat16)"


def source(
    prelude: str,
    between: str,
    ret: str = "0",
    gather: str = "k[kv_indices]",
    init: str = "",
    cast: str = "",
    before: str = "",
    methods: str = "",
) -> bytes:
    """A reach case (fix_safety_helpers.reach_source); cast replaces the cast's `.to(torch.bfloat16)`, before
    goes into the forward before the cast."""
    src = reach_source(IMPORTS, prelude, between, ret, gather, init, commit_row=1, methods=methods)
    if cast:
        src = src.replace(CAST, b"get_key_buffer(0)" + cast.encode(), 1)
    if before:
        lines = "".join("        " + line + "\n" for line in before.splitlines()).encode()
        src = src.replace(
            b"        k = self.pool.get_key_buffer(0)", lines + b"        k = self.pool.get_key_buffer(0)", 1
        )
    return src


# -- 1. autocast scopes of constant arguments ---------------------------------------------------------

AUTOCAST_SAFE = {
    # sglang: the scores under a float16 autocast, the gather inside the scope
    "torch.autocast holding the gather": (
        "",
        'with torch.autocast("cpu", dtype=torch.float16):\n    k_sel = k[kv_indices]\n'
        "    s = (k_sel.float() @ torch.ones(2, 2)).sum()\n",
        "s",
        "k_sel",
    ),
    # vLLM: a disabled amp scope by keyword, wholly between the cast and the gather
    "torch.amp.autocast(enabled=False) in between": (
        "",
        'with torch.amp.autocast(device_type="cpu", dtype=torch.bfloat16, enabled=False):\n'
        "    w = torch.ones(2, 2) @ torch.ones(2, 2)\n",
        "w",
        "k[kv_indices]",
    ),
    # lmdeploy: imported by name, the default dtype, around a matmul of the step's own tensors
    "autocast imported by name": (
        "\nfrom torch import autocast\n",
        'with autocast("cpu"):\n    w = torch.matmul(torch.ones(2, 2), torch.ones(2, 2))\n',
        "w.dtype",
        "k[kv_indices]",
    ),
    # TRT-LLM: no weight cache, the gather and a projection inside the scope
    "torch.autocast(cache_enabled=False) holding the gather": (
        "",
        'with torch.autocast(device_type="cpu", dtype=torch.bfloat16, cache_enabled=False):\n'
        "    rows = torch.index_select(k, 0, kv_indices)\n    p = torch.matmul(rows.float(), torch.ones(2, 2))\n",
        "p",
        "rows",
    ),
}


@pytest.mark.parametrize("name", sorted(AUTOCAST_SAFE))
def test_an_autocast_scope_of_constant_arguments_is_fixed_exactly(name):
    prelude, between, ret, gather = AUTOCAST_SAFE[name]
    assert_exact(source(prelude, between, ret, gather))


COMPUTE = """

class Numerics:
    @property
    def compute_dtype(self):
        return torch.get_autocast_dtype("cpu")
"""


def test_a_cast_reading_the_autocast_dtype_moved_into_the_scope_is_not_fixed():
    between = 'with torch.autocast("cpu", dtype=torch.float16):\n    k_sel = k[kv_indices]\n'
    src = source(COMPUTE, between, gather="k_sel", init="self.num = Numerics()", cast=".to(self.num.compute_dtype)")
    assert_hazard(src, "autocast scope")


def test_a_cast_inside_an_autocast_scope_that_exits_before_the_gather_is_not_fixed():
    src = source(COMPUTE, "", init="self.num = Numerics()").replace(
        b"k = self.pool.get_key_buffer(0).to(torch.bfloat16)\n",
        b'with torch.autocast("cpu", dtype=torch.float16):\n'
        b"            k = self.pool.get_key_buffer(0).to(self.num.compute_dtype)\n",
    )
    assert_hazard(src, "exits before the gather")


AMP = """

class AmpConfig:
    @property
    def dtype(self):
        commit()
        return torch.float16
"""


def test_an_autocast_scope_whose_dtype_is_a_property_of_the_file_is_not_fixed():
    between = 'with torch.autocast("cpu", dtype=self.amp.dtype):\n    w = torch.ones(2)\n'
    assert_hazard(source(AMP, between, init="self.amp = AmpConfig()"), "torch.autocast")


WARN_HOOK = """
import warnings


def _saw(*args, **kwargs):
    commit()


warnings.showwarning = _saw
"""


@pytest.mark.parametrize(
    "item",
    ['torch.autocast("cpu", dtype=torch.float32)', 'torch.autocast("cuda")', "torch.cpu.amp.autocast()"],
)
def test_an_autocast_scope_that_warns_into_a_hook_of_the_file_is_not_fixed(item):
    # an unsupported dtype, "cuda" without CUDA (this CPU torch), a deprecated spelling: torch warns, and the
    # file's showwarning hook writes the pool
    src = source(WARN_HOOK, f"with {item}:\n    w = torch.ones(2)\n")
    assert_hazard(src, "enters and exits")


def test_an_autocast_scope_whose_body_writes_the_pool_is_not_fixed():
    between = 'with torch.autocast("cpu", dtype=torch.float16):\n    n = commit()\n'
    assert_hazard(source("", between, "n"), "commit")


# -- 2. a closure rebinding a `nonlocal` name other than the dtype -----------------------------------

NONLOCAL_SAFE = {
    # sglang: a fallback counter and a reasons list of the backend
    "nonlocal int counter += 1": (
        "num_fallbacks = 0\n\ndef note_fallback(reason):\n    nonlocal num_fallbacks\n"
        "    self.reasons.append(reason)\n    num_fallbacks += 1\n",
        'if layer.layer_id in self.risky:\n    note_fallback("k overflow risk")\n',
        "(num_fallbacks, self.reasons)",
        "self.reasons = []\nself.risky = {0}",
    ),
    # vLLM: a KV scale halved by a callback on overflow
    "nonlocal float scale *= 0.5": (
        "scale = 1.0\n\ndef on_overflow():\n    nonlocal scale\n    scale *= 0.5\n",
        "on_overflow()\n",
        "scale",
        "",
    ),
    # lmdeploy: a log line grown by string concatenation
    "nonlocal str += f-string": (
        'trace = ""\n\ndef log(step):\n    nonlocal trace\n    trace += f"[{step}]"\n',
        'log("gather")\nlog(layer.layer_id)\n',
        "trace",
        "",
    ),
    # TRT-LLM: a byte budget decremented per layer
    "nonlocal budget -= len(rows) * 64": (
        "budget = 4096\n\ndef charge(rows):\n    nonlocal budget\n    budget -= len(rows) * 64\n",
        "charge([3, 1])\n",
        "budget",
        "",
    ),
}


@pytest.mark.parametrize("name", sorted(NONLOCAL_SAFE))
def test_a_closure_rebinding_another_nonlocal_name_is_fixed_exactly(name):
    before, between, ret, init = NONLOCAL_SAFE[name]
    assert_exact(source("", between, ret, init=init, before=before))


def test_a_closure_rebinding_the_dtype_nonlocal_is_not_fixed():
    before = "dt = torch.bfloat16\n\ndef fall_back():\n    nonlocal dt\n    dt = torch.float32\n"
    assert_hazard(source("", "fall_back()\n", cast=".to(dt)", before=before), "dt")


def test_a_nonlocal_view_of_the_pool_updated_in_place_is_not_fixed():
    before = "raw = self.pool.k.view(torch.uint8)\n\ndef bump():\n    nonlocal raw\n    raw += 1\n"
    assert_hazard(source("", "bump()\n", before=before), "raw")


def test_a_nonlocal_bound_by_a_for_loop_over_the_pool_is_not_fixed():
    before = "for raw in [self.pool.k.view(torch.uint8)]:\n    pass\n\ndef bump():\n    nonlocal raw\n    raw += 1\n"
    assert_hazard(source("", "bump()\n", before=before), "raw")


def test_a_nonlocal_of_an_int_and_a_pool_view_is_not_fixed():
    before = (
        "raw = 0\nif layer.layer_id == 0:\n    raw = self.pool.k.view(torch.uint8)\n\n"
        "def bump():\n    nonlocal raw\n    raw += 1\n"
    )
    assert_hazard(source("", "bump()\n", before=before), "raw")


# -- 3. a builtin immutable value stored into an attribute of a plain instance -----------------------

PROGRESS = """
import functools


@functools.total_ordering
class Progress:
    def __init__(self, landed):
        self.landed = landed

    def __eq__(self, other):
        return self.landed == int(other)

    def __lt__(self, other):
        return self.landed < int(other)
"""

STORE_SAFE = {
    # sglang: HiCache prefetch progress compared by a total_ordering-derived `<=`, a skip counter bumped
    "total_ordering <= then self.skips += 1": (
        PROGRESS,
        "if self.progress <= self.threshold:\n    self.skips += 1\n",
        "self.skips",
        "self.progress = Progress(3)\nself.threshold = 8\nself.skips = 0",
    ),
    # vLLM: the step's decode token count kept on the backend
    "self.num_decode_tokens = len(...)": (
        "",
        "self.num_decode_tokens = len([3, 1])\n",
        "self.num_decode_tokens",
        "self.num_decode_tokens = 0",
    ),
    # lmdeploy: the last layer's tag, an f-string
    "self.last_layer = f-string": (
        "",
        'self.last_layer = f"layer{2 * 3}"\n',
        "self.last_layer",
        'self.last_layer = ""',
    ),
    # TRT-LLM: a token budget decremented
    "self.budget -= 2 * 64": ("", "self.budget -= 2 * 64\n", "self.budget", "self.budget = 4096"),
}


@pytest.mark.parametrize("name", sorted(STORE_SAFE))
def test_an_immutable_store_into_a_plain_instance_is_fixed_exactly(name):
    prelude, between, ret, init = STORE_SAFE[name]
    assert_exact(source(prelude, between, ret, init=init))


def test_a_store_through_a_setattr_of_the_file_is_not_fixed():
    methods = (
        "\ndef __setattr__(self, name, value):\n    if name == 'skips':\n        commit()\n"
        "    object.__setattr__(self, name, value)\n"
    )
    src = source("", "self.skips = 1\n", "self.skips", methods=methods)
    assert_hazard(src, "assigns `self.skips`")


def test_a_store_into_a_property_setter_of_the_file_is_not_fixed():
    methods = "\n@property\ndef skips(self):\n    return 0\n\n@skips.setter\ndef skips(self, value):\n    commit()\n"
    src = source("", "self.skips = 1\n", "self.skips", methods=methods)
    assert_hazard(src, "assigns `self.skips`")


HANDLE = """

class Handle:
    def __del__(self):
        commit()
"""


def test_a_store_dropping_a_handle_with_a_finalizer_is_not_fixed():
    src = source(HANDLE, "self.handle = 0\n", "self.handle", init="self.handle = Handle()")
    assert_hazard(src, "assigns `self.handle`")


DESCRIPTOR = """

class Landing:
    def __set__(self, obj, value):
        commit()

    def __get__(self, obj, owner=None):
        return 0
"""


def test_a_store_into_a_data_descriptor_of_the_file_is_not_fixed():
    src = source(DESCRIPTOR, "self.skips = 1\n", "self.skips", methods="skips = Landing()\n")
    assert_hazard(src, "assigns `self.skips`")


def test_a_store_read_by_a_method_other_than_the_forward_stays_refused():
    # a guard, not a hazard here (the variable form keeps the accessor where it is): every read of the
    # stored name must be in the storing method, so that no accessor or property a moved cast runs reads it
    methods = "\ndef get_key_buffer(self, layer_id):\n    self.pool.k[1] = self.fill\n    return self.pool.k\n"
    src = source("", "self.fill = 0.25\n", init="self.fill = 0.5", methods=methods).replace(
        b"k = self.pool.get_key_buffer(0)", b"k = self.get_key_buffer(0)", 1
    )
    assert_not_fixed_by_default(src, "assigns `self.fill`")


# -- 4. pickle.dumps of builtin values and displays of them -------------------------------------------

PICKLE_SAFE = {
    # sglang: a step record for the detokenizer's socket
    "pickle.dumps of a dict display": (
        'payload = pickle.dumps({"rid": "req-0", "seq_lens": (4, 7), "n": len([3, 1])})\n',
        "pickle.loads(payload)",
    ),
    # vLLM: a tuple with an explicit protocol
    "pickle.dumps(tuple, protocol=5)": (
        'blob = pickle.dumps((f"layer{2}", 3), protocol=5)\n',
        "pickle.loads(blob)",
    ),
    # lmdeploy: the block ids to migrate
    "pickle.dumps of a list display": ("msg = pickle.dumps([1, 2, 3])\n", "len(msg)"),
    # TRT-LLM: nested displays, imported by name
    "dumps of nested displays": (
        'req = dumps({"layer": f"L{2}", "ids": [[1, 2], [3]], "tags": {"a", "b"}})\n',
        "pickle.loads(req)",
    ),
}


@pytest.mark.parametrize("name", sorted(PICKLE_SAFE))
def test_pickle_dumps_of_builtin_values_is_fixed_exactly(name):
    between, ret = PICKLE_SAFE[name]
    assert_exact(source("\nimport pickle\nfrom pickle import dumps\n", between, ret))


REDUCED = """
import copyreg
import pickle


class Handle:
    def __reduce__(self):
        commit()
        return (int, (0,))


class Lease:
    pass


def reduce_lease(lease):
    commit()
    return (int, (1,))


copyreg.pickle(Lease, reduce_lease)
"""


def test_pickle_dumps_of_an_object_with_a_reducer_of_the_file_is_not_fixed():
    assert_hazard(source(REDUCED, "blob = pickle.dumps(Handle())\n", "len(blob)"), "pickle.dumps")


def test_pickle_dumps_of_a_display_holding_an_object_of_the_file_is_not_fixed():
    assert_hazard(source(REDUCED, 'blob = pickle.dumps({"h": [Handle()]})\n', "len(blob)"), "pickle.dumps")


def test_pickle_dumps_of_an_object_with_a_copyreg_reducer_is_not_fixed():
    assert_hazard(source(REDUCED, "blob = pickle.dumps((1, Lease()))\n", "len(blob)"), "pickle.dumps")
