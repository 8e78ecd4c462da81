"""CL003's reach, round 7 of the blind fix-behaviour benchmark (benchmarks/fix_behaviour_7).

The blind round of realistic engine code found no changed rewrite, but 4 of 16 safe cases refused:
a metadata dataclass made between the cast and the gather, a fresh `kv_indptr` built with
`torch.cumsum`, `logger.debug` of ints, and `torch.sort`'s result unpacked. Each family is now proven
harmless by provenance (docs/fix.md, "Round 7"; rules/casts.toml [cast_motion] "round 7"):

- torch's index-building functions (`cumsum`, `sort`, `unique`, `searchsorted`, ...) are read-only
  and allocate their result; the tuple `torch.sort`/`torch.topk` answer iterates in torch's own code;
- a call of a plain dataclass of the file (bound once; no base, metaclass, dunder, property, or
  default that runs code) only stores its fields;
- a stdlib logger's record methods run no code of the file where the file gives logging none (no
  handler, filter, formatter, record factory, replaced stream; no member logging calls that writes)
  and `%`-formatting runs no writing member of the file.

For each, other realistic spellings are fixed and return exactly what the input returns (CPU torch),
and beside each the hazard look-alike (the same spelling where the name is the file's code, or the
class, logger or argument runs a store) stays unfixed by default - and applied anyway, changes what
the code returns.
"""

from __future__ import annotations

import pytest

from fix_safety_helpers import assert_exact, assert_hazard, assert_not_fixed_by_default, reach_source

pytest.importorskip("torch")

IMPORTS = """import dataclasses
import logging
from dataclasses import dataclass, field
"""


def source(prelude: str, between: str, ret: str = "0", gather: str = "k[kv_indices]") -> bytes:
    return reach_source(IMPORTS, prelude, between, ret, gather, init="self.forward_metadata = None")


# -- torch's index-building functions: fresh tensors ---------------------------------------------

FRESH_SAFE = {
    "cumsum into a zeros indptr": (
        "bs = kv_indices.numel()\n"
        "kv_indptr = torch.zeros(bs + 1, dtype=torch.int32)\n"
        "kv_indptr[1:] = torch.cumsum(torch.ones(bs, dtype=torch.int32), dim=0)\n",
        "kv_indptr",
    ),
    "cumsum of seq_lens, written in place": (
        "seq_lens = torch.tensor([2, 3])\nindptr = torch.cumsum(seq_lens, 0)\nindptr.add_(1)\n",
        "indptr",
    ),
    "unique then searchsorted": (
        "pages = torch.unique(kv_indices // 2)\npos = torch.searchsorted(pages, kv_indices // 2)\n",
        "pos",
    ),
    "topk unpacked, argsort, flip": (
        "vals, order = torch.topk(kv_indices, 1)\nrev = torch.flip(torch.argsort(kv_indices), (0,))\n",
        "(vals, order, rev)",
    ),
    "diff, clamp, repeat_interleave, bincount": (
        "d = torch.clamp(torch.diff(kv_indices), min=0)\n"
        "r = torch.repeat_interleave(kv_indices, 2)\n"
        "c = torch.bincount(kv_indices)\n",
        "(d, r, c)",
    ),
}


@pytest.mark.parametrize("name", sorted(FRESH_SAFE))
def test_index_building_is_fixed_exactly(name):
    between, ret = FRESH_SAFE[name]
    assert_exact(source("", between, ret))


def test_sorted_gather_index_is_fixed_exactly():
    assert_exact(source("", "sorted_idx, order = torch.sort(kv_indices)\n", "order", gather="k[sorted_idx]"))


def test_cumsum_out_into_the_pool_is_not_fixed():
    # the same function handed `out=` a view of the pool: never read-only (torch 2.13 has no FP8
    # cumsum on CPU, so this one is not shown to change the result)
    assert_not_fixed_by_default(source("", "torch.cumsum(kv_indices, 0, out=self.pool.k[:2, 0])\n"), "torch.cumsum")


def test_file_function_named_like_torch_is_not_trusted():
    # `cumsum` of the file (not torch's) that commits: a module function of the file is not proven
    prelude = "\n\ndef cumsum(x, dim):\n    commit()\n    return x\n"
    assert_hazard(source(prelude, "indptr = cumsum(kv_indices, 0)\n", "indptr"), "calls `cumsum(...)`")


def test_sort_of_the_files_torch_stand_in_is_not_trusted():
    # a local object named like torch whose sort commits: not the torch module
    prelude = "\n\nclass _Ops:\n    def sort(self, x):\n        commit()\n        return x, x\n\n\nops = _Ops()\n"
    assert_hazard(source(prelude, "sorted_idx, order = ops.sort(kv_indices)\n", "order"), "sort")


def test_unpacking_a_generator_of_the_file_stays_unproven():
    # round 6's iteration family: unpacking a generator that commits is not torch's tuple
    prelude = "\n\ndef staged(x):\n    commit()\n    yield x\n    yield x\n"
    assert_hazard(source(prelude, "a, b = staged(kv_indices)\n", "a"), "staged")


# -- a plain dataclass of the file, constructed ----------------------------------------------------

DATACLASS_SAFE = {
    "dataclass with defaults, or-fallback": (
        "\n\n@dataclasses.dataclass\nclass DecodeMetadata:\n    max_seq_len: int = 16\n    page_size: int = 1\n",
        "md = self.forward_metadata or DecodeMetadata(max_seq_len=8)\nmax_len = md.max_seq_len\n",
        "max_len",
    ),
    "frozen dataclass with field(default_factory=list) and a plain method": (
        "\n\n@dataclass(frozen=True)\nclass ExtendMetadata:\n"
        '    """The extend step\'s metadata."""\n\n'
        "    seq_lens: list = field(default_factory=list)\n    max_extend_len: int = field(default=4)\n\n"
        "    def total(self):\n        return sum(self.seq_lens)\n",
        "md = ExtendMetadata([2, 3], 5)\nn = md.max_extend_len\n",
        "n",
    ),
    "dataclass built from ints of the batch": (
        "\n\n@dataclass\nclass Plan:\n    bs: int\n    num_pages: int\n",
        "plan = Plan(kv_indices.numel(), layer.layer_id + 1)\n",
        "(plan.bs, plan.num_pages)",
    ),
}


@pytest.mark.parametrize("name", sorted(DATACLASS_SAFE))
def test_plain_dataclass_construction_is_fixed_exactly(name):
    prelude, between, ret = DATACLASS_SAFE[name]
    assert_exact(source(prelude, between, ret))


DATACLASS_HAZARDS = {
    "__post_init__ commits": (
        "\n\n@dataclass\nclass DecodeMetadata:\n    max_seq_len: int = 16\n\n"
        "    def __post_init__(self):\n        commit()\n",
        "calls `DecodeMetadata(...)`",
    ),
    "a plain class whose __init__ commits": (
        "\n\nclass DecodeMetadata:\n    def __init__(self, max_seq_len):\n"
        "        self.max_seq_len = max_seq_len\n        commit()\n",
        "calls `DecodeMetadata(...)`",
    ),
    "a field's default_factory of the file commits": (
        "\n\ndef _staged():\n    commit()\n    return []\n\n\n"
        "@dataclass\nclass DecodeMetadata:\n    max_seq_len: int = 16\n"
        "    rows: list = field(default_factory=_staged)\n",
        "calls `DecodeMetadata(...)`",
    ),
    "a property setter under a field's name": (
        "\n\n@dataclass\nclass DecodeMetadata:\n    max_seq_len: int = 16\n\n"
        "    @property\n    def max_seq_len(self):\n        return self._m\n\n"
        "    @max_seq_len.setter\n    def max_seq_len(self, value):\n        commit()\n        self._m = value\n",
        "calls `DecodeMetadata(...)`",
    ),
    "the name rebound to a factory that commits": (
        "\n\n@dataclass\nclass DecodeMetadata:\n    max_seq_len: int = 16\n\n\n"
        "def _made(**kw):\n    commit()\n    return _Meta(**kw)\n\n\n_Meta = DecodeMetadata\nDecodeMetadata = _made\n",
        "calls `DecodeMetadata(...)`",
    ),
    "a base whose __init_subclass__-free __init__ commits": (
        "\n\nclass Base:\n    def __init__(self, max_seq_len=16):\n        commit()\n\n\n"
        "@dataclass(init=False)\nclass DecodeMetadata(Base):\n    max_seq_len: int = 16\n",
        "calls `DecodeMetadata(...)`",
    ),
    "__setattr__ bound outside the class": (
        "\n\n@dataclass\nclass DecodeMetadata:\n    max_seq_len: int = 16\n\n\n"
        "def _set(self, name, value):\n    commit()\n    object.__setattr__(self, name, value)\n\n\n"
        "DecodeMetadata.__setattr__ = _set\n",
        "calls `DecodeMetadata(...)`",
    ),
}


@pytest.mark.parametrize("name", sorted(DATACLASS_HAZARDS))
def test_construction_that_runs_the_files_code_stays_refused(name):
    prelude, words = DATACLASS_HAZARDS[name]
    assert_hazard(source(prelude, "md = DecodeMetadata(max_seq_len=8)\n", "md.max_seq_len"), words)


def test_lazy_metadata_property_stays_refused():
    # round 7's hazard: a dataclass-looking metadata object whose field read is a property that commits
    prelude = "\n\nclass LazyMetadata:\n    @property\n    def max_seq_len(self):\n        commit()\n        return 4\n"
    src = source(prelude, "md = self.forward_metadata or LazyMetadata()\nmax_len = md.max_seq_len\n", "max_len")
    assert_hazard(src, "LazyMetadata")


# -- a stdlib logger -------------------------------------------------------------------------------

LOGGER = '\n\nlogger = logging.getLogger("castlint.reach7")\n'
# a logger of its own per executed module (handlers added by a hazard stay on it)
LOGGER_OWN = "\n\nlogger = logging.getLogger(__name__)\n"

LOGGING_SAFE = {
    "logger.debug of ints": (LOGGER, 'logger.debug("layer %d bs %d", layer.layer_id, kv_indices.numel())\n'),
    "logger.info of a shape and a dtype": (LOGGER, 'logger.info("idx %s %s", kv_indices.shape, kv_indices.dtype)\n'),
    "warning with stacklevel": (LOGGER, 'logger.warning("slow path for layer %s", layer.layer_id, stacklevel=2)\n'),
    "isEnabledFor guard": (
        LOGGER,
        'if logger.isEnabledFor(logging.DEBUG):\n    logger.debug("bs=%d", len(kv_indices))\n',
    ),
    "getLogger(__name__) called on the spot": ("", 'logging.getLogger(__name__).debug("n %d", kv_indices.numel())\n'),
    "the module-level logging.debug": ("", 'logging.debug("layer %d", layer.layer_id)\n'),
}


@pytest.mark.parametrize("name", sorted(LOGGING_SAFE))
def test_stdlib_logging_is_fixed_exactly(name):
    prelude, between = LOGGING_SAFE[name]
    assert_exact(source(prelude, between))


LOGGING_HAZARDS = {
    "a handler of the file whose emit commits": (
        LOGGER_OWN + "\n\nclass KVHandler(logging.Handler):\n    def emit(self, record):\n        commit()\n\n\n"
        "logger.addHandler(KVHandler())\nlogger.setLevel(logging.DEBUG)\n",
        'logger.debug("layer %d", layer.layer_id)\n',
        "code of its own",
    ),
    "a function filter of the file that commits": (
        LOGGER_OWN + "\n\ndef _flush(record):\n    commit()\n    return True\n\n\n"
        "logger.addFilter(_flush)\nlogger.setLevel(logging.DEBUG)\n",
        'logger.debug("layer %d", layer.layer_id)\n',
        "code of its own",
    ),
    "logger is an object of the file with a committing debug": (
        "\n\nclass KVLog:\n    def debug(self, msg, *args):\n        commit()\n\n\nlogger = KVLog()\n",
        'logger.debug("layer %d", layer.layer_id)\n',
        "debug",
    ),
    "%s formats an object whose __str__ commits": (
        LOGGER_OWN + "\n\nclass Tag:\n    def __str__(self):\n        commit()\n        return 'tag'\n",
        'logger.warning("tag %s", Tag())\n',
        "`__str__`",
    ),
    "%d formats an object whose __index__ commits": (
        LOGGER_OWN + "\n\nclass Slot:\n    def __index__(self):\n        commit()\n        return 3\n",
        'logger.error("slot %d", Slot())\n',
        "`__index__`",
    ),
}


@pytest.mark.parametrize("name", sorted(LOGGING_HAZARDS))
def test_logging_that_may_run_the_files_code_stays_refused(name):
    prelude, between, words = LOGGING_HAZARDS[name]
    assert_hazard(source(prelude, between), words)


def test_logging_imported_under_another_module_is_not_trusted():
    # `logging` here is the file's own stand-in: its getLogger answers an object whose debug commits
    prelude = (
        "\n\nclass _Log:\n    def debug(self, *args):\n        commit()\n\n\n"
        "class logging:  # noqa: N801\n    DEBUG = 10\n\n    @staticmethod\n    def getLogger(name):\n"
        "        return _Log()\n\n\nlogger = logging.getLogger('x')\n"
    )
    assert_hazard(source(prelude, 'logger.debug("layer %d", layer.layer_id)\n'), "debug")
