"""CL003's reach, round 15 of the blind fix-behaviour benchmark (benchmarks/fix_behaviour_15).

The blind round changed no behaviour (32/32 hazards refused) but refused 12 of 14 safe cases. These
families are now proven harmless by the same judge as the code between the cast and the gather
(docs/fix.md, "Round 15"; rules/casts.toml [cast_motion] "round 15"):

- any value stored by `self.<name> = v` into a plain instance (round 14's `_plain_self_store`) where nothing
  of the file may run when an object is dropped (no finalizer dunder, no `weakref.finalize`/`weakref.ref`
  callback, no generator with a `finally`/`with`): object's own `__setattr__` runs, and the old value dropped
  runs no code of the file; `op=` keeps round 14's rule (the old value's in-place dunder runs);
- read-only calls listed this round: `torch.reciprocal` (a new tensor), `.amax()`/`.amin()` (reductions),
  `inspect.getattr_static` (it runs no descriptor, `__getattr__` or `__getattribute__` of the object),
  `sys.getsizeof` (it runs only `__sizeof__`, judged as every implicit member of the file) and
  `.__sizeof__()`;
- a fresh torch.nn layer (fresh_module_constructors: `torch.nn.Linear(4, 4, dtype=...)`) held by `self` of a
  plain class, every other occurrence of the attribute a conversion as a statement
  (`self.lm_head_adapter.to(torch.float16)`): it converts only its own Parameters, never the pool nor a module
  whose dtype the moved cast reads;
- iterating a value proven a tensor (the pool, a view of it): torch's Tensor.__iter__ hands out `unbind(0)`
  row views and writes nothing; the rows stay the pool's (a store or in-place method through one is judged
  as one on the pool), and a class of the file defining a member it runs (`__iter__`, `unbind`, `dim`,
  `__torch_function__`) with a body not proven read-only is refused.

For each, spellings in the styles of sglang, vLLM, lmdeploy and TRT-LLM are fixed and return exactly what
the input returns (CPU torch), and the look-alikes a weaker rule would pass stay unfixed by default and,
forced, change the result.
"""

from __future__ import annotations

import pytest

from castlint.fixes import FixOptions, fix_source
from castlint.models import FixSafety
from fix_safety_helpers import (
    TABLES,
    assert_exact,
    assert_hazard,
    cl003,
    reach_source,
    reason,
    torch_outcome,
)

pytest.importorskip("torch")

IMPORTS = "import inspect\nimport sys\nimport weakref"


def source(prelude: str, between: str, ret: str = "0", gather: str = "k[kv_indices]", init: str = "") -> bytes:
    """A reach case (fix_safety_helpers.reach_source); commit() writes row 1, a row the gather reads."""
    return reach_source(IMPORTS, prelude, between, ret, gather, init, commit_row=1)


# -- 1. any value stored into a plain instance, where no finalizer of the file may run ----------------

USED = """

class UsedSlots:
    def __init__(self, used):
        self.used = used

    def __truediv__(self, capacity):
        return self.used / capacity
"""

STORE_SAFE = {
    # sglang: the token usage, a division of a counter object whose `__truediv__` only reads
    "self.last_token_usage = used / size": (
        USED,
        "self.last_token_usage = self.used_slots / 8\n",
        "self.last_token_usage",
        "self.used_slots = UsedSlots(3)\nself.last_token_usage = 0.0",
    ),
    # vLLM: the layer's amax, a tensor computed from a view of the pool, kept on the backend
    "self.k_amax = view.float().abs().amax()": (
        "",
        "cache_view = self.pool.get_key_buffer(0)[:]\nself.k_amax = cache_view.float().abs().amax()\n",
        "self.k_amax",
        "self.k_amax = None",
    ),
    # lmdeploy: a stats dict of the step rebuilt each call
    "self.stats = {dict display}": (
        "",
        'self.stats = {"rows": len(kv_indices), "layer": layer.layer_id}\n',
        "self.stats",
        "self.stats = {}",
    ),
    # TRT-LLM: the inverse KV scale, a tensor of torch.reciprocal
    "self.inv_scale = torch.reciprocal(scale)": (
        "",
        "self.inv_scale = torch.reciprocal(torch.full((2,), 4.0))\n",
        "self.inv_scale",
        "self.inv_scale = None",
    ),
}


@pytest.mark.parametrize("name", sorted(STORE_SAFE))
def test_any_value_stored_into_a_plain_instance_without_finalizers_is_fixed_exactly(name):
    prelude, between, ret, init = STORE_SAFE[name]
    assert_exact(source(prelude, between, ret, init=init))


STAGED_DEL = """

class Staged:
    def __del__(self):
        commit()
"""

STREAM_FINALLY = """

def stream():
    try:
        yield 1
    finally:
        commit()
"""

TICK = "\nimport asyncio\n"

STAGE_FINALLY = (
    TICK
    + """

async def stage():
    try:
        await asyncio.sleep(0)
    finally:
        commit()
"""
)

STAGE_PLAIN = (
    TICK
    + """

async def stage():
    await asyncio.sleep(0)
    commit()
"""
)

METER = """

class Meter:
    def __init__(self):
        self._usage = 0.0

    @property
    def usage(self):
        return self._usage

    @usage.setter
    def usage(self, value):
        commit()
        self._usage = value
"""

STAGED_CLOSE = """

class Staged:
    def close(self):
        commit()
"""

STREAM_PLAIN = """

def stream():
    yield 1
    commit()
"""

# each look-alike beside its twin, which differs only where the proof looks and is fixed exactly:
# (look-alike prelude, between, init, words; twin prelude, between, ret, init)
STORE_HAZARDS = {
    # the old value's class has a `__del__` that writes the pool (the twin's `close` is never called)
    "old value with __del__": (
        (STAGED_DEL, "self.staged = None\n", "self.staged = Staged()", "self.staged"),
        (STAGED_CLOSE, "self.staged = None\n", "0", "self.staged = Staged()"),
    ),
    # the old value is a suspended generator whose `finally` writes the pool when it is closed (the twin's
    # write after its `yield` never runs: a suspended generator closed runs no more of its body)
    "old value a suspended generator with finally": (
        (STREAM_FINALLY, "self.it = None\n", "it = stream()\nnext(it)\nself.it = it", "self.it"),
        (STREAM_PLAIN, "self.it = None\n", "0", "it = stream()\nnext(it)\nself.it = it"),
    ),
    # the old value is a coroutine suspended at an `await`, closed when dropped: its `finally` writes the pool
    "old value a suspended coroutine with finally": (
        (STAGE_FINALLY, "self.co = None\n", "co = stage()\nco.send(None)\nself.co = co", "self.co"),
        (STAGE_PLAIN, "self.co = None\n", "0", "co = stage()\nco.send(None)\nself.co = co"),
    ),
    # the old value has a weakref.finalize callback that writes the pool (the twin's weakref has none)
    "old value with a weakref.finalize callback": (
        (
            "\n\nclass Buf:\n    pass\n",
            "self.buf = None\n",
            "buf = Buf()\nweakref.finalize(buf, commit)\nself.buf = buf",
            "self.buf",
        ),
        (
            "\n\nclass Buf:\n    pass\n",
            "self.buf = None\n",
            "0",
            "buf = Buf()\nself.ref = weakref.ref(buf)\nself.buf = buf",
        ),
    ),
    # not `self`: a property setter of the helper's class writes the pool (the twin stores into self)
    "a property setter of another object": (
        (
            METER,
            "self.meter.usage = self.pool.get_key_buffer(0).float().sum()\n",
            "self.meter = Meter()",
            "self.meter.usage",
        ),
        (
            METER,
            "self.last_usage = self.pool.get_key_buffer(0).float().sum()\n",
            "self.last_usage",
            "self.meter = Meter()",
        ),
    ),
}


@pytest.mark.parametrize("name", sorted(STORE_HAZARDS))
def test_a_store_whose_drop_or_setter_may_write_is_not_fixed_beside_its_twin(name):
    (prelude, between, init, words), (t_prelude, t_between, t_ret, t_init) = STORE_HAZARDS[name]
    assert_exact(source(t_prelude, t_between, t_ret, init=t_init))
    assert_hazard(source(prelude, between, init=init), words)


# -- 2. reads listed this round: reciprocal, amax, getattr_static, getsizeof ---------------------------

CONNECTOR = """

class Connector:
    def __init__(self):
        self.arrived = 1

    @property
    def num_layers_loaded(self):
        commit()
        return self.arrived

    def flush(self):
        commit()
        return 0
"""

STAGING = """

class HostStaging:
    def __init__(self, chunks):
        self.chunks = list(chunks)

    def __sizeof__(self):
        return object.__sizeof__(self) + sum(c.numel() * c.element_size() for c in self.chunks)
"""

READS_SAFE = {
    # sglang: whether the connector is layerwise, found without running its property
    "isinstance(inspect.getattr_static(conn, prop), property)": (
        CONNECTOR,
        'layerwise = isinstance(inspect.getattr_static(self.conn, "num_layers_loaded"), property)\n',
        "layerwise",
        "self.conn = Connector()",
    ),
    # vLLM: the inverse of the layer's k scale
    "torch.reciprocal(layer scale)": (
        "",
        "inv_k_scale = torch.reciprocal(self.k_scale)\n",
        "inv_k_scale",
        "self.k_scale = torch.tensor(2.0)",
    ),
    # lmdeploy: the host staging buffer's size, its `__sizeof__` summing its chunks
    "sys.getsizeof(staging) > 0": (
        STAGING,
        "big = sys.getsizeof(self.staging) > 0\n",
        "big",
        "self.staging = HostStaging([torch.zeros(2, 4), torch.zeros(1, 4)])",
    ),
    # TRT-LLM: amax/amin of a row view of the pool, for a scale check
    "pool row .amax() / .amin()": (
        "",
        "rows = self.pool.get_key_buffer(0)[1:3].float()\nspan = (rows.amax() - rows.amin()).item()\n",
        "span",
        "",
    ),
}


@pytest.mark.parametrize("name", sorted(READS_SAFE))
def test_reads_listed_this_round_are_fixed_exactly(name):
    prelude, between, ret, init = READS_SAFE[name]
    assert_exact(source(prelude, between, ret, init=init))


SCALE_SUBCLASS = """

class CalibratedScale(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        commit()
        return super().__torch_function__(func, types, args, kwargs or {})
"""

WRITING_SIZEOF = """

class HostStaging:
    def __init__(self):
        self.chunks = [torch.zeros(2)]

    def compact(self):
        commit()
        return 0

    def __sizeof__(self):
        return object.__sizeof__(self) + self.compact()
"""

STATS = """

class Stats:
    def amax(self):
        commit()
        return 1.0
"""

READS_HAZARDS = {
    "getattr runs the property": (
        (CONNECTOR, 'n = getattr(self.conn, "num_layers_loaded")\n', "self.conn = Connector()", "getattr"),
        (CONNECTOR, 'n = inspect.getattr_static(self.conn, "num_layers_loaded")\n', "0", "self.conn = Connector()"),
    ),
    "hasattr runs the property": (
        (CONNECTOR, 'n = hasattr(self.conn, "num_layers_loaded")\n', "self.conn = Connector()", "hasattr"),
        (
            CONNECTOR,
            'n = inspect.getattr_static(self.conn, "num_layers_loaded", None) is not None\n',
            "n",
            "self.conn = Connector()",
        ),
    ),
    "the static lookup's result called": (
        (
            CONNECTOR,
            'n = inspect.getattr_static(self.conn, "flush")(self.conn)\n',
            "self.conn = Connector()",
            "getattr_static",
        ),
        (CONNECTOR, 'n = callable(inspect.getattr_static(self.conn, "flush"))\n', "n", "self.conn = Connector()"),
    ),
    "torch.reciprocal of a __torch_function__ subclass": (
        (
            SCALE_SUBCLASS,
            "inv = torch.reciprocal(self.scale)\n",
            "self.scale = torch.tensor(2.0).as_subclass(CalibratedScale)",
            "tensor subclass",
        ),
        ("", "inv = torch.reciprocal(self.scale)\n", "inv", "self.scale = torch.tensor(2.0)"),
    ),
    "sys.getsizeof of a __sizeof__ that compacts": (
        (WRITING_SIZEOF, "n = sys.getsizeof(self.staging)\n", "self.staging = HostStaging()", "__sizeof__"),
        (STAGING, "n = sys.getsizeof(self.staging) > 0\n", "n", "self.staging = HostStaging([torch.zeros(2)])"),
    ),
    "an explicit __sizeof__() that compacts": (
        (WRITING_SIZEOF, "n = self.staging.__sizeof__()\n", "self.staging = HostStaging()", "__sizeof__"),
        (STAGING, "n = self.staging.__sizeof__() > 0\n", "n", "self.staging = HostStaging([torch.zeros(2)])"),
    ),
    "amax of a class of the file that writes": (
        (STATS, "m = self.stats.amax()\n", "self.stats = Stats()", "amax"),
        ("", "m = self.pool.get_key_buffer(0).float().amax()\n", "m", ""),
    ),
}


@pytest.mark.parametrize("name", sorted(READS_HAZARDS))
def test_look_alikes_of_the_reads_listed_this_round_are_not_fixed_beside_their_twins(name):
    (prelude, between, init, words), (t_prelude, t_between, t_ret, t_init) = READS_HAZARDS[name]
    assert_exact(source(t_prelude, t_between, t_ret, init=t_init))
    assert_hazard(source(prelude, between, init=init), words)


# -- 3. iterating a tensor: torch's Tensor.__iter__, row views of the pool -----------------------------

ROWS_SAFE = {
    # sglang: count the zero rows of the layer
    "for row in pool": (
        "zero = 0\nfor row in self.pool.get_key_buffer(0):\n    if not bool(row.float().abs().sum()):\n"
        "        zero += 1\n",
        "zero",
    ),
    # vLLM: enumerate the rows of a view of the layer, keep the largest row index with a nonzero
    "for slot, row in enumerate(pool[:])": (
        "last = -1\nfor slot, row in enumerate(self.pool.get_key_buffer(0)[:]):\n"
        "    if row.float().abs().sum() > 0:\n        last = slot\n",
        "last",
    ),
    # lmdeploy: a generator expression over the rows
    "sum(... for row in pool)": (
        "nz = sum(1 for row in self.pool.get_key_buffer(0) if row.float().abs().sum() > 0)\n",
        "nz",
    ),
    # TRT-LLM: zip the first rows with their norms
    "zip(pool rows, range)": (
        "norms = []\nfor row, i in zip(self.pool.get_key_buffer(0)[:4], range(4)):\n"
        "    norms.append(float(row.float().norm()) + i)\n",
        "norms",
    ),
}


@pytest.mark.parametrize("name", sorted(ROWS_SAFE))
def test_iterating_the_rows_of_the_pool_read_only_is_fixed_exactly(name):
    between, ret = ROWS_SAFE[name]
    assert_exact(source("", between, ret))


# (look-alike between, words; twin between, ret): the twin reads the rows the look-alike writes
ROWS_HAZARDS = {
    "a row zeroed in place": (
        ("for row in self.pool.get_key_buffer(0)[1:2]:\n    row.zero_()\n", "zero_"),
        ("n = 0\nfor row in self.pool.get_key_buffer(0)[1:2]:\n    n += row.float().abs().sum().item()\n", "n"),
    ),
    "a row overwritten by copy_": (
        ("for row in self.pool.get_key_buffer(0)[1:2]:\n    row.copy_(torch.zeros(2))\n", "copy_"),
        ("out = []\nfor row in self.pool.get_key_buffer(0)[1:2]:\n    out.append(row.clone())\n", "out"),
    ),
    "a row stored into": (
        ("for row in self.pool.get_key_buffer(0)[1:2]:\n    row[0] = 0.0\n", "row[0]"),
        ("firsts = []\nfor row in self.pool.get_key_buffer(0)[1:2]:\n    firsts.append(float(row[0]))\n", "firsts"),
    ),
    "a list of the rows, one written": (
        ("rows = list(self.pool.get_key_buffer(0))\nrows[1].fill_(0.0)\n", "fill_"),
        ("rows = list(self.pool.get_key_buffer(0))\nr = rows[1].float().sum()\n", "r"),
    ),
}


@pytest.mark.parametrize("name", sorted(ROWS_HAZARDS))
def test_a_row_of_the_pool_written_while_iterating_is_not_fixed_beside_its_twin(name):
    (between, words), (t_between, t_ret) = ROWS_HAZARDS[name]
    assert_exact(source("", t_between, t_ret))
    assert_hazard(source("", between), words)


# -- 4. a fresh torch.nn layer of a plain instance converted in place ----------------------------------

DRAFT_HEAD = """

class DraftHead(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(2, 2, dtype=torch.bfloat16)

    @property
    def dtype(self):
        return next(self.parameters()).dtype
"""

MODULE_SAFE = {
    # sglang: the cast takes the draft head's dtype; another layer (the LM head adapter) is converted
    "adapter.to(torch.float16), cast to draft_head.dtype": (
        DRAFT_HEAD,
        "if not self.adapter_ready:\n    self.lm_head_adapter.to(torch.float16)\n    self.adapter_ready = True\n",
        "self.adapter_ready",
        "self.draft_head = DraftHead()\nself.lm_head_adapter = torch.nn.Linear(4, 4, dtype=torch.bfloat16)\n"
        "self.adapter_ready = False",
    ),
    # vLLM: a norm converted with .half()
    "norm.half()": ("", "self.k_norm.half()\n", "0", "self.k_norm = torch.nn.LayerNorm(4)"),
    # lmdeploy: an embedding converted with .to(dtype=...)
    "embedding.to(dtype=torch.float16)": (
        "",
        "self.rope_table.to(dtype=torch.float16)\n",
        "0",
        "self.rope_table = torch.nn.Embedding(8, 2)",
    ),
    # TRT-LLM: a projection converted with .float()
    "proj.float()": ("", "self.o_proj.float()\n", "0", "self.o_proj = torch.nn.Linear(2, 2, bias=False)"),
}


@pytest.mark.parametrize("name", sorted(MODULE_SAFE))
def test_a_fresh_layer_of_a_plain_instance_converted_in_place_is_fixed_exactly(name):
    prelude, between, ret, init = MODULE_SAFE[name]
    src = source(prelude, between, ret, init=init)
    if "draft_head" in init:
        src = src.replace(b"get_key_buffer(0).to(torch.bfloat16)", b"get_key_buffer(0).to(self.draft_head.dtype)", 1)
    assert_exact(src)


def _draft_cast(src: bytes) -> bytes:
    return src.replace(b"get_key_buffer(0).to(torch.bfloat16)", b"get_key_buffer(0).to(self.draft_head.dtype)", 1)


# (look-alike between, init, words; twin between, init): the cast takes the draft head's dtype
MODULE_HAZARDS = {
    # the converted module is the draft head itself (its dtype changes)
    "the draft head converted": (
        ("self.draft_head.to(torch.float16)\n", "self.draft_head = DraftHead()", "draft_head"),
        ("self.adapter.to(torch.float16)\n", "self.draft_head = DraftHead()\nself.adapter = torch.nn.Linear(2, 2)"),
    ),
    # the adapter is the draft head's own layer, bound to a second attribute
    "the adapter is the draft head's layer": (
        (
            "self.adapter.to(torch.float16)\n",
            "self.draft_head = DraftHead()\nself.adapter = self.draft_head.fc",
            "adapter",
        ),
        (
            "self.adapter.to(torch.float16)\n",
            "self.draft_head = DraftHead()\nself.adapter = torch.nn.Linear(2, 2, dtype=torch.bfloat16)",
        ),
    ),
    # the adapter is fresh, but the draft head is given it (a shared layer)
    "the fresh adapter shared into the draft head": (
        (
            "self.adapter.to(torch.float16)\n",
            "self.draft_head = DraftHead()\nself.adapter = torch.nn.Linear(2, 2, dtype=torch.bfloat16)\n"
            "self.draft_head.fc = self.adapter",
            "adapter",
        ),
        (
            "self.adapter.to(torch.float16)\n",
            "self.draft_head = DraftHead()\nself.adapter = torch.nn.Linear(2, 2, dtype=torch.bfloat16)\n"
            "self.draft_head.fc = torch.nn.Linear(2, 2, dtype=torch.bfloat16)",
        ),
    ),
}


@pytest.mark.parametrize("name", sorted(MODULE_HAZARDS))
def test_a_converted_layer_the_moved_cast_may_read_is_not_fixed_beside_its_twin(name):
    (between, init, words), (t_between, t_init) = MODULE_HAZARDS[name]
    assert_exact(_draft_cast(source(DRAFT_HEAD, t_between, init=t_init)))
    assert_hazard(_draft_cast(source(DRAFT_HEAD, between, init=init)), words)


HOLDER_MODULE = """

class DraftHead(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(2, 2, dtype=torch.bfloat16)

    @property
    def dtype(self):
        return next(self.parameters()).dtype


class Runner(torch.nn.Module):
    def __init__(self, pool):
        super().__init__()
        self.pool = pool
        self.adapter = torch.nn.Linear(2, 2, dtype=torch.bfloat16)

    @property
    def dtype(self):
        return next(self.parameters()).dtype

    def forward(self, kv_indices):
        k = self.pool.get_key_buffer(0).to(self.dtype)
        self.adapter.to(torch.float16)
        return k[kv_indices]
"""


PLAIN_HOLDER = (
    HOLDER_MODULE.replace("class Runner(torch.nn.Module):", "class Runner:")
    .replace(
        "        super().__init__()\n        self.pool = pool",
        "        self.pool = pool\n        self.head = DraftHead()",
    )
    .replace(
        "        return next(self.parameters()).dtype\n\n    def forward",
        "        return self.head.dtype\n\n    def forward",
    )
)


def test_a_fresh_layer_of_an_nn_module_holder_is_not_fixed_beside_a_plain_holder():
    # the twin: a plain holder, the cast taking another module's dtype - fixed exactly
    twin = source(PLAIN_HOLDER, "", init="self.runner = Runner(self.pool)", ret="self.runner.forward(kv_indices)")
    found = [f for f in cl003(twin) if f.function == "Runner.forward"]
    assert len(found) == 1 and found[0].fix is not None and found[0].fix.safety == FixSafety.SAFE, reason(found[0])
    fixed = fix_source(twin, "backend.py", TABLES, FixOptions()).new_source
    assert fixed != twin and torch_outcome(fixed) == torch_outcome(twin)
    # the holder is an nn.Module: its `parameters()` reach the adapter's by no name, and the cast reads them
    src = source(HOLDER_MODULE, "", init="self.runner = Runner(self.pool)", ret="self.runner(kv_indices)")
    found = [f for f in cl003(src) if f.function == "Runner.forward"]
    assert len(found) == 1 and found[0].fix is not None and found[0].fix.safety == FixSafety.UNSAFE, found
    assert "converts in place" in reason(found[0]), reason(found[0])
    forced = fix_source(src, "backend.py", TABLES, FixOptions(unsafe=True)).new_source
    assert torch_outcome(forced) != torch_outcome(src)
