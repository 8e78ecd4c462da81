"""The trigger vocabulary: named word sets, from the tables, that rules build their trigger
groups from (castlint.checks.base.Rule.triggers) and the analysis reads to tell which code
can carry a pool (castlint.analysis.tree_index).

It sits below the analysis and the rules; castlint.prefilter, above the rule registry,
turns every rule's groups into the text test a file must pass to be parsed.
"""
from __future__ import annotations

from typing import FrozenSet, Tuple

from castlint.tables import ATTRIBUTE_ENDS, Tables

SUPPRESSION_WORDS = frozenset({"castlint", "noqa: CL", "noqa:CL", "NOQA: CL"})


class TriggerWords:
    """Named word sets, from the tables, that rules build their trigger groups from."""

    def __init__(self, tables: Tables):
        # `.kv_cache[`, `.kv_cache)`, ... but not `.kv_cache_dtype`: the attribute itself, for
        # the names that other attributes extend; the others as they are (fewer words to scan)
        # accessors as a method of something (`.get_key_buffer`: called, or held uncalled as a
        # bound method or a partial) or named in getattr(obj, "get_key_buffer")
        named = {f"{q}{name}{q}" for name in tables.accessors for q in "'\""}
        self.pools: FrozenSet[str] = frozenset({f".{name}" for name in tables.accessors} | named | {
            f".{name}{after}" if name in tables.cache_attributes_whole else f".{name}"
            for name in tables.cache_attributes for after in ATTRIBUTE_ENDS})
        self.casts = frozenset({f".{method}(" for method in tables.casts}
                               | {f".{method}(" for method in tables.copy_methods})
        wrappers = set()
        for wrapper in tables.wrappers:
            wrappers.update({wrapper.cls, wrapper.q_dtype.keyword, wrapper.kv_dtype.keyword, *wrapper.aliases})
        self.wrappers = frozenset(wrappers)
        self.kv_dtype_reach = frozenset(set(tables.kv_cache_dtype_attributes) | set(tables.kv_cache_dtype_holders))
        self.helpers = frozenset(tables.conversion_helpers)
        # a kernel that reads a pool by row index, and an accessor that may dequantize it whole
        self.row_kernels = frozenset(row["function"] for row in tables.row_kernels)
        self.dequantizing_accessors = frozenset(f".{a[k]}(" for a in tables.dequantizing_accessors
                                                for k in ("key", "value"))
        self.cache_parameters = frozenset(name for p in tables.cache_parameters for name in p.params)
        self.conversions = self.casts | self.helpers
        self.suppressions = SUPPRESSION_WORDS
        # a whole cache that arrives as a parameter: its name, the other parameters of
        # the engine's calling convention, and a conversion; one group per convention
        by_requires: dict = {}
        for p in tables.cache_parameters:
            by_requires.setdefault(tuple(sorted(p.requires)), set()).update(p.params)
        self.conventions: Tuple[tuple, ...] = tuple(
            (frozenset(params), frozenset(requires), self.conversions) if requires
            else (frozenset(params), self.conversions)
            for requires, params in sorted(by_requires.items()))
        # a pool and a conversion, or a whole cache that arrives as a parameter (CL001, CL003, CL005)
        self.pool_conversions: Tuple[tuple, ...] = ((self.pools, self.casts),) + self.conventions
