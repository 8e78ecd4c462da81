"""Accessors learnt from the engine's own pool classes.

The tables list the accessors castlint knows (rules/accessors.toml). A checked tree
that defines its own KV pools tells the rest: a method that returns one layer of a
preallocated per-layer buffer (`return self.k_buffer[layer_id - self.start_layer]`,
as stored or through a conversion) is an accessor, and every call of it elsewhere
in the tree reads a whole pool. This module finds such methods with `ast` (a fast
pre-pass over the files that name a cache attribute) and returns the tables with
them added; the tables stay the fallback.
"""
from __future__ import annotations

import ast
import dataclasses
import hashlib
import re
from typing import Dict, FrozenSet, Iterable, Optional, Set, Tuple

from castlint.common import pyast
from castlint.tables import Accessor, Tables

_MAX_BYTES = 4 << 20  # pools are defined in ordinary source files; skip anything bigger


def _layer_slice(node: ast.AST, cache_attributes: Set[str], params: Set[str]) -> bool:
    """`self.<cache attribute>[<an index naming a parameter>]`."""
    if not isinstance(node, ast.Subscript):
        return False
    holder = node.value
    if not (isinstance(holder, ast.Attribute) and isinstance(holder.value, ast.Name)
            and holder.value.id == "self" and holder.attr in cache_attributes):
        return False
    index = node.slice
    if isinstance(index, ast.BinOp) and isinstance(index.op, ast.Sub):  # layer_id - self.start_layer
        index = index.left
    return isinstance(index, ast.Name) and index.id in params  # one layer, not a slice or tokens


def _returns_a_layer(func: ast.FunctionDef, cache_attributes: Set[str]) -> bool:
    """Every return of func gives one layer of a cache attribute, as stored or through
    calls that take it (a dequantize, a `.view(dtype)`, a `.to(...)`)."""
    params = {a.arg for a in func.args.args[1:] + func.args.posonlyargs + func.args.kwonlyargs}
    nodes = list(ast.walk(func))
    returns = [n for n in nodes if isinstance(n, ast.Return) and n.value is not None]
    if not params or not returns or any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in nodes):
        return False
    for ret in returns:
        value = ret.value
        while isinstance(value, ast.Call):
            inner = value.func.value if isinstance(value.func, ast.Attribute) else None
            candidates = [inner, *value.args] if inner is not None else list(value.args)
            value = next((c for c in candidates if c is not None and any(
                _layer_slice(n, cache_attributes, params) for n in ast.walk(c))), None)
        if value is None or not _layer_slice(value, cache_attributes, params):
            return False
    return True


def accessors_in(source: bytes, cache_attributes: Set[str], lines: Optional[Set[int]] = None) -> Set[str]:
    """The names of the methods of source's classes that return one layer of a pool
    (only methods spanning one of `lines` are read, when given)."""
    try:
        tree = pyast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return set()
    found = set()
    classes = [n for n in tree.body if isinstance(n, ast.ClassDef)]
    while classes:
        cls = classes.pop()
        for func in cls.body:
            if isinstance(func, ast.ClassDef):
                classes.append(func)
            elif isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)) and not func.name.startswith("__") \
                    and (lines is None or any(func.lineno <= line <= func.end_lineno for line in lines)) \
                    and _returns_a_layer(func, cache_attributes):
                found.add(func.name)
    return found


def _match_lines(source: bytes, pattern: "re.Pattern") -> Set[int]:
    return {source.count(b"\n", 0, m.start()) + 1 for m in pattern.finditer(source)}


_PATTERNS: Dict[int, Tuple[Tables, "re.Pattern"]] = {}
_WITH: Dict[Tuple[int, FrozenSet[str]], Tuple[Tables, Tables]] = {}


def _pattern(tables: Tables) -> "re.Pattern":
    hit = _PATTERNS.get(id(tables))
    if hit is None or hit[0] is not tables:
        words = "|".join(re.escape(a) for a in sorted(tables.cache_attributes)) or "(?!)"
        hit = _PATTERNS[id(tables)] = (tables, re.compile(rf"self\.(?:{words})\[".encode()))
    return hit[1]


def with_accessors(tables: Tables, names: Iterable[str]) -> Tables:
    """tables plus these learnt accessors (the same object for the same names)."""
    learnt = frozenset(names) - set(tables.accessors)
    if not learnt:
        return tables
    key = (id(tables), learnt)
    hit = _WITH.get(key)
    found = hit[1] if hit is not None and hit[0] is tables else None  # an id may be reused
    if found is None:
        accessors = dict(tables.accessors)
        for name in sorted(learnt):
            accessors[name] = Accessor(name, "tensor", "learnt from a pool class of the checked tree")
        digest = hashlib.sha256((tables.digest + "\0" + "\0".join(sorted(learnt))).encode()).hexdigest()[:16]
        found = dataclasses.replace(tables, accessors=accessors, digest=digest)
        _WITH[key] = (tables, found)
    return found


def file_tables(source: bytes, tables: Tables) -> Tables:
    """tables with the accessors that source's own pool classes define."""
    pattern = _pattern(tables)
    if b"return" not in source or not pattern.search(source):
        return tables
    return with_accessors(tables, accessors_in(source, set(tables.cache_attributes), _match_lines(source, pattern)))


def learn_accessors(files: Iterable[str], tables: Tables) -> Tables:
    """tables with the accessors the files' pool classes define (unchanged when none)."""
    attributes = set(tables.cache_attributes)
    pattern = _pattern(tables)
    learnt: Set[str] = set()
    for path in files:
        source = _read(path)
        if source is not None and b"return" in source and pattern.search(source):
            learnt |= accessors_in(source, attributes, _match_lines(source, pattern))
    return with_accessors(tables, learnt)


def _read(path: str) -> Optional[bytes]:
    try:
        with open(path, "rb") as fh:
            data = fh.read(_MAX_BYTES + 1)
    except OSError:
        return None
    return data if len(data) <= _MAX_BYTES else None
