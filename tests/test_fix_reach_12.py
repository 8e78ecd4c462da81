"""CL003's reach, round 12 of the blind fix-behaviour benchmark (benchmarks/fix_behaviour_12).

The blind round changed no behaviour (35/35 hazards refused) but refused 5 of 13 safe cases. These
families are now proven harmless by the same judge as the code between the cast and the gather
(docs/fix.md, "Round 12"; rules/casts.toml [cast_motion] "round 12"):

- library functions read-only *given* their arguments (immutable_argument_functions: `os.path.join`,
  `functools.reduce`, `zlib.crc32`...) where every argument is a builtin immutable value and every
  callable argument is proven read-only (`operator.mul`, a lambda of the file with a read-only body);
- in-place torch functions (inplace_functions: `torch.nn.init.*_`, `torch._foreach_*_`,
  `torch.ops.aten.*_`) whose written arguments are proven distinct from the pool (a fresh allocation,
  the backend's own workspace never handed on: round 8's rule for in-place tensor methods);
- a method of an Enum (looked up by value, member or name) or plain dataclass of the file, called on the
  instance made right there, judged by its body as a function of the file (round 11);
- `.to(torch.get_default_dtype())`: a dtype, not another tensor; only `set_default_dtype`, never proven
  read-only, changes it.

For each, spellings in the styles of sglang, vLLM, lmdeploy and TRT-LLM are fixed and return exactly what
the input returns (CPU torch), and the look-alikes a weaker rule would pass stay unfixed by default and,
forced, change the result.
"""

from __future__ import annotations

import pytest

from fix_safety_helpers import assert_exact, assert_hazard, reach_source

pytest.importorskip("torch")

IMPORTS = """import dataclasses
import enum
import functools
import itertools
import operator
import os
import zlib
"""


def source(prelude: str, between: str, ret: str = "0", gather: str = "k[kv_indices]", init: str = "") -> bytes:
    return reach_source(IMPORTS, prelude, between, ret, gather, init)


# -- 1. library functions read-only given builtin immutable arguments ------------------------------

IMMUTABLE_SAFE = {
    # sglang: the query's element count
    "functools.reduce(operator.mul, .shape, 1)": ("", "n = functools.reduce(operator.mul, kv_indices.shape, 1)\n", "n"),
    # vLLM: a debug dump path of literals and an f-string
    "os.path.join of strings": (
        "",
        'path = os.path.join("/tmp/kv_dumps", f"layer{layer.layer_id}.pt")\n',
        "path",
    ),
    # lmdeploy: block count through a lambda of the file
    "functools.reduce with a read-only lambda": (
        "",
        "blocks = functools.reduce(lambda a, b: a * b, (4, 2), 1)\n",
        "blocks",
    ),
    # TRT-LLM: a layout tag's checksum, a local bound only to literals
    "zlib.crc32 of a bytes literal through a local": (
        "",
        'tag = b"kv-cache-v1"\ncrc = zlib.crc32(tag)\n',
        "crc",
    ),
    "os.path.basename of a literal and len()": (
        "",
        'name = os.path.basename("/tmp/kv/" + "snap")\nn = len(name)\n',
        "(name, n)",
    ),
}


@pytest.mark.parametrize("name", sorted(IMMUTABLE_SAFE))
def test_a_library_function_of_builtin_values_is_fixed_exactly(name):
    prelude, between, ret = IMMUTABLE_SAFE[name]
    assert_exact(source(prelude, between, ret))


FSPATH = """

class Snapshot:
    def __fspath__(self):
        commit()
        return "snap"
"""


def test_os_path_join_of_a_handle_with_fspath_is_not_fixed():
    src = source(FSPATH, 'path = os.path.join("/tmp", self.snap)\n', "path", init="self.snap = Snapshot()")
    assert_hazard(src, "os.path.join")


WRITER = """

class Queue:
    def commit_and_count(self, total, x):
        commit()
        return total + x
"""


def test_functools_reduce_of_a_writing_bound_method_is_not_fixed():
    src = source(WRITER, "n = functools.reduce(self.q.commit_and_count, [1, 2], 0)\n", "n", init="self.q = Queue()")
    assert_hazard(src, "functools.reduce")


def test_functools_reduce_of_a_writing_lambda_is_not_fixed():
    src = source("", "n = functools.reduce(lambda a, b: a + b + commit(), (1, 2), 0)\n", "n")
    assert_hazard(src, "functools.reduce")


def test_itertools_accumulate_of_a_writer_is_not_fixed():
    between = "n = list(itertools.accumulate((1, 2), self.q.commit_and_count))\n"
    src = source(WRITER, between, "n", init="self.q = Queue()")
    assert_hazard(src, "accumulate")


BYTES = """

class Chunk:
    def __bytes__(self):
        commit()
        return b"x"
"""


def test_zlib_crc32_of_an_object_with_bytes_is_not_fixed():
    src = source(BYTES, "crc = zlib.crc32(bytes(self.chunk))\n", "crc", init="self.chunk = Chunk()")
    assert_hazard(src, "zlib.crc32")


# -- 2. in-place torch functions on tensors proven distinct from the pool ---------------------------

INPLACE_SAFE = {
    # sglang: the backend's own workspace, allocated in __init__, reset in place
    "nn.init.zeros_ of the backend's workspace": (
        "",
        "torch.nn.init.zeros_(self.workspace)\n",
        "self.workspace.sum()",
        "self.workspace = torch.ones(4, 2)",
    ),
    # vLLM: a fresh local filled with a constant
    "nn.init.constant_ of a fresh local": (
        "",
        "buf = torch.empty(2, 2)\ntorch.nn.init.constant_(buf, 0.5)\n",
        "buf",
        "",
    ),
    # lmdeploy: _foreach_zero_ over a list of fresh tensors
    "torch._foreach_zero_ of fresh tensors": (
        "",
        "bufs = [torch.ones(2), torch.ones(3)]\ntorch._foreach_zero_(bufs)\n",
        "bufs[0].sum()",
        "",
    ),
    # TRT-LLM / FX style: an ATen overload on a fresh scratch tensor
    "torch.ops.aten.zero_.default of a fresh tensor": (
        "",
        "scratch = torch.ones(2, 2)\ntorch.ops.aten.zero_.default(scratch)\n",
        "scratch",
        "",
    ),
    "nn.init.ones_(tensor=workspace) by keyword": (
        "",
        "torch.nn.init.ones_(tensor=self.workspace)\n",
        "self.workspace.sum()",
        "self.workspace = torch.zeros(4, 2)",
    ),
}


@pytest.mark.parametrize("name", sorted(INPLACE_SAFE))
def test_an_in_place_torch_function_on_the_backends_own_tensor_is_fixed_exactly(name):
    prelude, between, ret, init = INPLACE_SAFE[name]
    assert_exact(source(prelude, between, ret, init=init))


def test_nn_init_zeros_of_a_pool_slot_is_not_fixed():
    assert_hazard(source("", "torch.nn.init.zeros_(self.pool.get_key_buffer(0)[3])\n"), "zeros_")


def test_nn_init_ones_of_a_workspace_installed_as_the_pool_is_not_fixed():
    init = "self.workspace = torch.zeros(8, 2, dtype=torch.float8_e4m3fn)\npool.k = self.workspace"
    assert_hazard(source("", "torch.nn.init.ones_(self.workspace)\n", init=init), "ones_")


def test_foreach_copy_into_pool_rows_is_not_fixed():
    between = "dsts = [self.pool.k[3]]\ntorch._foreach_copy_(dsts, [torch.full((2,), 0.5).to(torch.float8_e4m3fn)])\n"
    assert_hazard(source("", between), "_foreach_copy_")


def test_aten_zero_of_a_rows_view_is_not_fixed():
    between = "rows = self.pool.k[2:4]\ntorch.ops.aten.zero_.default(rows)\n"
    assert_hazard(source("", between), "zero_")


# -- 3. a method of an Enum or plain dataclass of the file, by its body ------------------------------

LAYOUT = """

class KVLayout(enum.Enum):
    NHD = "NHD"
    HND = "HND"

    def stride_order(self):
        return (0, 1, 2) if self is KVLayout.NHD else (1, 0, 2)
"""

PLAN = """

@dataclasses.dataclass
class BlockPlan:
    block: int = 4

    def blocks(self, n):
        return (n + self.block - 1) // self.block
"""

METHOD_SAFE = {
    # sglang: an Enum looked up by the configured value
    "Enum(value).method()": (LAYOUT, "order = KVLayout(self.layout).stride_order()\n", "order", 'self.layout = "HND"'),
    # vLLM: a member named directly
    "Enum.MEMBER.method()": (LAYOUT, "order = KVLayout.HND.stride_order()\n", "order", ""),
    # lmdeploy: a member looked up by name
    'Enum["NAME"].method()': (LAYOUT, 'order = KVLayout["NHD"].stride_order()\n', "order", ""),
    # TRT-LLM: a plain dataclass made right there
    "dataclass(...).method()": (PLAN, "nb = BlockPlan(block=2).blocks(layer.head_dim)\n", "nb", ""),
}


@pytest.mark.parametrize("name", sorted(METHOD_SAFE))
def test_a_method_of_an_enum_or_plain_dataclass_of_the_file_is_fixed_exactly(name):
    prelude, between, ret, init = METHOD_SAFE[name]
    assert_exact(source(prelude, between, ret, init=init))


def test_an_enum_member_method_that_commits_is_not_fixed():
    prelude = """

class StoreMode(enum.Enum):
    DEFERRED = "deferred"
    EAGER = "eager"

    def apply(self):
        if self is StoreMode.EAGER:
            commit()
        return self.value
"""
    src = source(prelude, "mode = StoreMode(self.mode).apply()\n", "mode", init='self.mode = "eager"')
    assert_hazard(src, "apply")


def test_an_enum_lookup_whose_missing_commits_is_not_fixed():
    prelude = """

class StoreMode(enum.Enum):
    DEFERRED = "deferred"

    @classmethod
    def _missing_(cls, value):
        commit()
        return cls.DEFERRED

    def tag(self):
        return 1
"""
    src = source(prelude, "mode = StoreMode(self.mode).tag()\n", "mode", init='self.mode = "eager"')
    assert_hazard(src, "StoreMode")


def test_an_enum_whose_method_is_replaced_is_not_fixed():
    prelude = (
        LAYOUT
        + """

def _committing_order(self):
    commit()
    return (0, 1, 2)


KVLayout.stride_order = _committing_order
"""
    )
    src = source(prelude, 'order = KVLayout("NHD").stride_order()\n', "order")
    assert_hazard(src, "KVLayout")


def test_a_plain_class_whose_init_commits_is_not_fixed():
    prelude = """

class Plan:
    def __init__(self):
        self.n = commit()

    def blocks(self):
        return 1
"""
    assert_hazard(source(prelude, "nb = Plan().blocks()\n", "nb"), "Plan")


# -- 4. `.to(torch.get_default_dtype())` -------------------------------------------------------------


def default_dtype_source(prelude: str, between: str, ret: str = "0", gather: str = "k[kv_indices]") -> bytes:
    src = source(prelude, between, ret, gather)
    return src.replace(b".to(torch.bfloat16)\n", b".to(torch.get_default_dtype())\n", 1)


DEFAULT_SAFE = {
    "scale arithmetic between": ("", "sm_scale = layer.head_dim ** -0.5\n", "sm_scale", "k[kv_indices]"),
    "index_select gather": ("", "n = kv_indices.numel()\n", "n", "k.index_select(0, kv_indices)"),
    "a read-only function of the file between": (
        "\n\ndef _scale(d):\n    return d ** -0.5\n",
        "s = _scale(layer.head_dim)\n",
        "s",
        "torch.index_select(k, 0, kv_indices)",
    ),
}


@pytest.mark.parametrize("name", sorted(DEFAULT_SAFE))
def test_a_cast_to_the_default_dtype_is_fixed_exactly(name):
    prelude, between, ret, gather = DEFAULT_SAFE[name]
    src = default_dtype_source(prelude, between, ret, gather)
    assert b"get_default_dtype()" in src
    assert_exact(src)


def test_set_default_dtype_between_is_not_fixed():
    assert_hazard(default_dtype_source("", "torch.set_default_dtype(torch.float64)\n"), "set_default_dtype")


def test_a_lazy_init_that_sets_the_default_dtype_is_not_fixed():
    prelude = "\n\ndef ensure_draft():\n    torch.set_default_dtype(torch.float64)\n    return 1\n"
    assert_hazard(default_dtype_source(prelude, "d = ensure_draft()\n", "d"), "ensure_draft")


def test_a_lambda_that_sets_the_default_dtype_is_not_fixed():
    between = "to_fp64 = lambda: torch.set_default_dtype(torch.float64)\nto_fp64()\n"
    assert_hazard(default_dtype_source("", between), "set_default_dtype")
