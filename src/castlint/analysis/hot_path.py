"""The hot path: the methods a class runs on every decode step.

A cast there costs its whole pool on every layer of every step (an ERROR); elsewhere
(setup, CUDA-graph capture, a fallback) it is a WARNING. Hot are a class's entry points
(the forward methods an engine calls each step, and the pool accessors every backend
calls on every layer: `get_key_buffer` and the `_get_key_buffer` it delegates to) and
every method they reach through `self.method(...)` calls.

One definition, fed plain names by both trees that need it: castlint.prune (the whole
class, with Python's ast, before methods are dropped) and
castlint.analysis.dataflow.ModuleAnalysis (libcst) must agree, or a pruned file's
severities would differ from the whole file's.
"""

from __future__ import annotations

from typing import Collection, Dict, FrozenSet, Iterable, List, Tuple


def is_hot_entry(name: str, entry_points: Collection[str], accessors: Collection[str]) -> bool:
    """A method every decode step runs: an entry point (rules/accessors.toml [hot_path]), or
    a pool accessor (accessors: the table's accessor names; a leading underscore is ignored)."""
    return name in entry_points or name.lstrip("_") in accessors


def hot_methods(
    methods: Collection[str],
    self_calls: Iterable[Tuple[str, str]],
    entry_points: Collection[str],
    accessors: Collection[str],
) -> FrozenSet[str]:
    """The hot methods of one class.

    methods: the names of the methods its body defines; self_calls: (caller, callee) for
    every `self.callee(...)` in the body of method caller (not in functions nested in
    it); accessors: the table's accessor names."""
    calls: Dict[str, List[str]] = {}
    for caller, callee in self_calls:
        calls.setdefault(caller, []).append(callee)
    hot = {name for name in methods if is_hot_entry(name, entry_points, accessors)}
    frontier = list(hot)
    while frontier:
        for callee in calls.get(frontier.pop(), ()):
            if callee in methods and callee not in hot:
                hot.add(callee)
                frontier.append(callee)
    return frozenset(hot)
