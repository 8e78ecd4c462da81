"""CL003's reach, round 9 of the blind fix-behaviour benchmark (benchmarks/fix_behaviour_9).

The blind round changed no behaviour (37/37 hazards refused) but refused 8 of 14 safe cases. Six
families are now proven harmless by provenance (docs/fix.md, "Round 9"; rules/casts.toml [cast_motion]
"round 9"), never by a name the file could redefine:

- attention and packing on the step's own values: `torch.softmax`, `torch.matmul`, `struct.pack`
  (read-only functions, by qualified name; their arguments' protocols judged as implicit code);
- builtin containers held by the file (`self.plan_cache.get(key)`, `self.plan_cache[key] = plan`,
  `self.headers.append(h)`): an attribute whose every assignment in the file is a display or a builtin
  container call, or a local bound only to one;
- `print(..., file=f)` where f is proven an `io.StringIO` (attribute or local);
- `with torch.inference_mode():` / `with torch.no_grad():` holding the gather;
- a plain dataclass whose `__post_init__` only validates and sets the fresh instance's own fields.

Two refused safe cases stay refused, soundly: an in-place write into the index (`kv_indices.clamp_()`)
or into a parameter (`q.mul_()`) writes an attribute's or a parameter's tensor, which may be (a view
of) the pool; no provenance in the file proves it distinct.

For each, other realistic spellings are fixed and return exactly what the input returns (CPU torch),
and beside each the look-alike a weaker rule would pass stays unfixed by default - and, where CPU torch
can show it, applied anyway changes what the code returns.
"""

from __future__ import annotations

import pytest

from fix_safety_helpers import REACH_MODULE, assert_exact, assert_hazard, assert_not_fixed_by_default, reach_source

pytest.importorskip("torch")

IMPORTS = """import dataclasses
import io
import struct
"""


def source(prelude: str, between: str, ret: str = "0", gather: str = "k[kv_indices]", init: str = "") -> bytes:
    return reach_source(IMPORTS, prelude, between, ret, gather, init)


COMMITS_ON_STR = "\n\nclass Tag:\n    def __str__(self):\n        commit()\n        return 'tag'\n"
COMMITS_ON_INDEX = "\n\nclass Slot:\n    def __index__(self):\n        commit()\n        return 3\n"
COMMITS_ON_HASH = "\n\nclass Key:\n    def __hash__(self):\n        commit()\n        return 1\n"


# -- attention and packing on the step's own values ------------------------------------------------

READ_FUNCTIONS_SAFE = {
    "softmax of q against itself": (
        "",
        "q = torch.ones(2, 4) * 0.5\nprobs = torch.softmax(q @ q.transpose(-1, -2), dim=-1)\n",
        "probs",
    ),
    "functional log_softmax and matmul": (
        "\nimport torch.nn.functional as F\n",
        "q = torch.ones(2, 4)\nlogits = torch.matmul(q, q.t())\nlp = F.log_softmax(logits, dim=-1)\n",
        "lp",
    ),
    "struct header of ints": ("", 'hdr = struct.pack("<ii", layer.layer_id, kv_indices.numel())\n', "hdr"),
    "struct imported by name": (
        "\nfrom struct import calcsize, pack\n",
        'hdr = pack("<h", 7) + pack("<i", calcsize("<i"))\n',
        "hdr",
    ),
}


@pytest.mark.parametrize("name", sorted(READ_FUNCTIONS_SAFE))
def test_attention_and_packing_are_fixed_exactly(name):
    prelude, between, ret = READ_FUNCTIONS_SAFE[name]
    assert_exact(source(prelude, between, ret))


def test_softmax_of_the_file_is_not_trusted():
    prelude = "\n\ndef softmax(x, dim):\n    commit()\n    return x\n"
    assert_hazard(source(prelude, "p = softmax(kv_indices, dim=0)\n", "0"), "softmax")


def test_struct_pack_of_an_index_that_commits_is_not_fixed():
    # struct.pack runs `__index__` of its argument: a Slot of the file that writes the pool
    src = source(COMMITS_ON_INDEX, 'hdr = struct.pack("<i", self.slot)\n', "0", init="self.slot = Slot()")
    assert_hazard(src, "struct.pack")


def test_pack_into_is_not_read_only():
    src = source("", 'struct.pack_into("<i", self.buf, 0, 3)\n', "0", init="self.buf = bytearray(8)")
    assert_not_fixed_by_default(src, "pack_into")


def test_matmul_out_into_the_pool_is_not_fixed():
    src = source("", "q = torch.ones(2, 2)\ntorch.matmul(q, q, out=self.pool.k[:2].float())\n")
    assert_not_fixed_by_default(src, "matmul")


# -- builtin containers held by the file ------------------------------------------------------------

CONTAINERS_SAFE = {
    "plan cache attribute: get, then store on a miss": (
        "self.plan_cache = {}",
        "key = (kv_indices.numel(), layer.layer_id)\nplan = self.plan_cache.get(key)\n"
        'if plan is None:\n    plan = {"splits": 2}\n    self.plan_cache[key] = plan\n',
        "dict(plan)",
    ),
    "headers list attribute appended to": (
        "self.headers = list()",
        'self.headers.append(struct.pack("<i", layer.layer_id))\n',
        "list(self.headers)",
    ),
    "local dict with setdefault": (
        "",
        "seen = dict()\nseen.setdefault(layer.layer_id, 0)\nacc = []\nacc.append(seen.get(0))\n",
        "(seen, acc)",
    ),
    "attribute set rebuilt by a comprehension elsewhere": (
        "self.live = set()\nself.live = {i for i in range(3)}",
        "self.live.add(layer.layer_id)\n",
        "sorted(self.live)",
    ),
}


@pytest.mark.parametrize("name", sorted(CONTAINERS_SAFE))
def test_builtin_container_updates_are_fixed_exactly(name):
    init, between, ret = CONTAINERS_SAFE[name]
    assert_exact(source("", between, ret, init=init))


def test_a_mapping_of_the_file_is_not_a_plain_dict():
    prelude = "\n\nclass PlanCache(dict):\n    def get(self, key):\n        commit()\n        return None\n"
    src = source(prelude, "plan = self.plan_cache.get(1)\n", "0", init="self.plan_cache = PlanCache()")
    assert_hazard(src, "plan_cache.get")


def test_a_dict_attribute_rebound_elsewhere_is_not_plain():
    prelude = (
        "\n\nclass Log:\n    def append(self, x):\n        commit()\n\n\n"
        "def attach(backend):\n    backend.headers = Log()\n"
    )
    src = source(prelude, "self.headers.append(1)\n", "0", init="self.headers = []\nattach(self)")
    assert_hazard(src, "headers.append")


def test_a_container_attribute_given_by_keyword_is_not_plain():
    # an object of the file may get the attribute from a keyword (a namespace, a dataclass field)
    prelude = (
        "\nimport types\n\n\nclass Log:\n    def append(self, x):\n        commit()\n\n\n"
        "SHADOW = types.SimpleNamespace(headers=Log())\n"
    )
    src = source(prelude, "self.shadow.headers.append(1)\n", "0", init="self.headers = []\nself.shadow = SHADOW")
    assert_hazard(src, "headers.append")


def test_a_lookup_whose_key_hash_commits_is_not_fixed():
    src = source(
        COMMITS_ON_HASH, "plan = self.plan_cache.get(self.key)\n", "0", init="self.plan_cache = {}\nself.key = Key()"
    )
    assert_hazard(src, "plan_cache.get")


def test_a_store_dropping_a_finalizable_value_is_not_fixed():
    prelude = "\n\nclass Lease:\n    def __del__(self):\n        commit()\n"
    init = 'self.plan_cache = {}\nself.plan_cache["a"] = Lease()'
    src = source(prelude, 'self.plan_cache["a"] = 0\n', "0", init=init)
    assert_hazard(src, "plan_cache")


def test_a_container_holding_the_pool_may_not_be_written_into():
    # the container is plain, but an item of it is the pool: a store into the item writes the pool
    init = "self.bufs = [self.pool.k]"
    src = source("", "self.bufs[0][3] = 0.5\n", "0", init=init)
    assert_hazard(src, "bufs")


def test_pop_is_not_a_proven_container_method():
    src = source("", "self.plan_cache.pop(1, None)\n", "0", init="self.plan_cache = {}")
    assert_not_fixed_by_default(src, "pop")


# -- print to an in-memory text stream ---------------------------------------------------------------

PRINT_SAFE = {
    "trace attribute": (
        "",
        "self.trace = io.StringIO()",
        'print(f"layer={layer.layer_id} bs={kv_indices.numel()}", file=self.trace)\n',
        "self.trace.getvalue()",
    ),
    "local buffer with sep and end": (
        "",
        "",
        'buf = io.StringIO()\nprint("bs", kv_indices.numel(), sep="=", end="", file=buf)\n',
        "buf.getvalue()",
    ),
    "StringIO imported by name": (
        "\nfrom io import StringIO\n",
        'self.trace = StringIO("start ")',
        'print("decode", file=self.trace, flush=True)\n',
        "self.trace.getvalue()",
    ),
}


@pytest.mark.parametrize("name", sorted(PRINT_SAFE))
def test_print_to_a_string_stream_is_fixed_exactly(name):
    prelude, init, between, ret = PRINT_SAFE[name]
    assert_exact(source(prelude, between, ret, init=init))


def test_print_to_a_stream_of_the_file_is_not_fixed():
    prelude = "\n\nclass Sink:\n    def write(self, s):\n        commit()\n\n    def flush(self):\n        pass\n"
    src = source(prelude, 'print("x", file=self.trace)\n', "0", init="self.trace = Sink()")
    assert_hazard(src, "print")


def test_print_to_a_trace_rebound_elsewhere_is_not_fixed():
    prelude = (
        "\n\nclass Sink:\n    def write(self, s):\n        commit()\n\n\n"
        "def redirect(backend):\n    backend.trace = Sink()\n"
    )
    init = "self.trace = io.StringIO()\nredirect(self)"
    assert_hazard(source(prelude, 'print("x", file=self.trace)\n', "0", init=init), "print")


def test_print_of_an_argument_whose_str_commits_is_not_fixed():
    src = source(
        COMMITS_ON_STR, "print(self.tag, file=self.trace)\n", "0", init="self.trace = io.StringIO()\nself.tag = Tag()"
    )
    assert_hazard(src, "print")


def test_print_to_stdout_is_not_proven():
    assert_not_fixed_by_default(source("", 'print("decode")\n', "0"), "print")


def test_print_to_a_stream_given_a_parameter_is_not_proven():
    # the stream is a parameter's: any object with a write method
    src = source("", "print(1, file=layer)\n", "0")
    assert_not_fixed_by_default(src, "print")


# -- grad-mode switches holding the gather -------------------------------------------------------------

GRAD_MODE_SAFE = {
    "inference_mode around the gather": (
        "",
        "0",
        "with torch.inference_mode():\n    rows = k[kv_indices]\n    n = kv_indices.numel()\n",
        "rows, n",
    ),
    "no_grad around the gather, several items": (
        "",
        "0",
        "with torch.no_grad(), torch.inference_mode():\n    rows = k[kv_indices] * 2\n",
        "rows",
    ),
    "inference_mode imported by name, wholly in between": (
        "\nfrom torch import inference_mode\n",
        "k[kv_indices]",
        "with inference_mode():\n    n = kv_indices.numel()\n",
        "n",
    ),
}


@pytest.mark.parametrize("name", sorted(GRAD_MODE_SAFE))
def test_grad_mode_blocks_are_fixed_exactly(name):
    prelude, gather, between, ret = GRAD_MODE_SAFE[name]
    assert_exact(source(prelude, between, ret, gather=gather))


def test_inference_mode_of_the_file_is_not_trusted():
    prelude = (
        "\n\nclass inference_mode:\n    def __enter__(self):\n        return self\n\n"
        "    def __exit__(self, *exc):\n        commit()\n"
    )
    src = source(prelude, "with inference_mode():\n    n = 1\n", "0")
    assert_hazard(src, "inference_mode")


def test_a_grad_mode_block_that_commits_is_not_fixed():
    src = source("", "with torch.no_grad():\n    commit()\n", "0")
    assert_hazard(src, "commit")


def test_enable_grad_and_autocast_are_not_proven():
    # (a CPU autocast of a supported dtype is proven since round 14: tests/test_fix_reach_14.py; "cuda"
    # warns where CUDA is absent, and a warnings hook of the file could run)
    for manager in ("torch.enable_grad()", 'torch.autocast("cuda")'):
        src = source("", f"with {manager}:\n    n = 1\n", "0")
        assert_not_fixed_by_default(src, "with")


def test_grad_mode_with_an_argument_or_a_name_is_not_proven():
    for manager in ("torch.inference_mode(self.flag)", "torch.no_grad() as g"):
        src = source("", f"with {manager}:\n    n = 1\n", "0", init="self.flag = False")
        assert_not_fixed_by_default(src, "with")


def test_cast_inside_a_grad_mode_block_and_gather_outside_stays_unsafe():
    # the cast would leave the block: its result's requires_grad / is_inference() may change
    body = "with torch.no_grad():\n    k = self.pool.get_key_buffer(0).to(torch.bfloat16)\nreturn k[kv_indices], 0\n"
    src = REACH_MODULE.format(
        imports=IMPORTS.strip("\n"),
        commit_row=3,
        prelude="",
        init="        pass",
        body="".join("        " + line + "\n" for line in body.splitlines()).rstrip("\n"),
    ).encode()
    assert_not_fixed_by_default(src, "__exit__")


# -- a __post_init__ that only validates and derives fields ------------------------------------------

META = (
    "\n\n@dataclasses.dataclass\nclass Meta:\n    bs: int\n    page_size: int\n    page_shift: int = 0\n\n"
    "    def __post_init__(self):\n{post}"
)
POST_INIT_SAFE = {
    "validates and derives a shift": (
        "        if self.page_size <= 0 or self.page_size & (self.page_size - 1):\n"
        '            raise ValueError(f"page_size {self.page_size}")\n'
        "        self.page_shift = self.page_size.bit_length() - 1\n"
    ),
    "asserts and clamps": (
        "        assert self.bs >= 0, 'bs'\n        self.bs = max(self.bs, 1)\n        self.page_shift = self.bs * 2\n"
    ),
}


@pytest.mark.parametrize("name", sorted(POST_INIT_SAFE))
def test_validating_post_init_is_fixed_exactly(name):
    prelude = META.format(post=POST_INIT_SAFE[name])
    between = "md = Meta(int(kv_indices.numel()), 4)\n"
    assert_exact(source(prelude, between, "(md.bs, md.page_size, md.page_shift)"))


POST_INIT_HAZARDS = {
    "calls a writer": "        commit()\n",
    "writes a global pool": "        POOL.k[3] = torch.full((2,), 0.5).to(POOL.k.dtype)\n",
    "hands self on": "        REGISTRY.append(self)\n        commit()\n",
    "writes into a field's tensor": "        self.rows[3] = 0.5\n",
    "updates a field in place": "        self.rows.fill_(0.5)\n",
}


@pytest.mark.parametrize("name", sorted(POST_INIT_HAZARDS))
def test_writing_post_init_is_not_fixed(name):
    prelude = "\n\nREGISTRY = []" + (
        "\n\n@dataclasses.dataclass\nclass Meta:\n    rows: object\n\n    def __post_init__(self):\n"
        + POST_INIT_HAZARDS[name]
    )
    src = source(prelude, "md = Meta(self.pool.k)\n", "0")
    assert_hazard(src, "Meta")


def test_post_init_retyping_self_is_not_plain():
    prelude = (
        "\n\nclass Other:\n    pass\n\n\n@dataclasses.dataclass\nclass Meta:\n    bs: int\n\n"
        "    def __post_init__(self):\n        self.__class__ = Other\n"
    )
    assert_not_fixed_by_default(source(prelude, "md = Meta(1)\n", "0"), "Meta")


def test_post_init_storing_a_property_is_not_plain():
    prelude = (
        "\n\n@dataclasses.dataclass\nclass Meta:\n    bs: int\n\n"
        "    def __post_init__(self):\n        self.shift = 1\n\n"
        "    @property\n    def shift(self):\n        return 0\n\n"
        "    @shift.setter\n    def shift(self, v):\n        commit()\n"
    )
    assert_hazard(source(prelude, "md = Meta(1)\n", "0"), "Meta")


def test_post_init_with_init_vars_is_not_proven():
    prelude = (
        "\n\n@dataclasses.dataclass\nclass Meta:\n    bs: int\n    scale: dataclasses.InitVar[int] = 1\n\n"
        "    def __post_init__(self, scale):\n        self.bs = self.bs * scale\n"
    )
    assert_not_fixed_by_default(source(prelude, "md = Meta(1, 2)\n", "0"), "Meta")


# -- writes into an attribute's or a parameter's tensor stay unproven ----------------------------------


def test_in_place_write_into_the_index_stays_unproven():
    # the index is an attribute's tensor: it may be a view of the pool (nothing in the file says not)
    assert_not_fixed_by_default(source("", "kv_indices.clamp_(0, 7)\n", "0"), "clamp_")


def test_in_place_write_into_a_parameter_that_is_the_pool_changes_the_result():
    # `x.mul_()` on what the caller gave: here a byte view of the pool
    prelude = "\n\nclass View:\n    def __init__(self):\n        self.q = POOL.k.view(torch.uint8)\n"
    src = source(prelude, "self.view.q.mul_(2)\n", "0", init="self.view = View()")
    assert_hazard(src, "mul_")
