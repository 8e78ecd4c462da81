"""Accessors learnt from the engine's own pool classes.

The tables list the accessors castlint knows (rules/accessors.toml). A tree that defines
its own KV pools tells the rest: a method of a class that *allocates* per-layer buffers
and returns one layer of one is an accessor, whatever its name or the buffer's, and every
call of it elsewhere reads a whole pool. What counts, decided from where the value comes
from (never from its spelling alone):

- a *buffer* of a class: `self.x` assigned a list, dict or generator of `[allocation]`
  tensors built in a comprehension or a loop (one per layer: `[torch.zeros((size + 1,
  ...)) for _ in range(layer_num)]`, `{lid: torch.empty(...) for lid in ids}`, `x.append(
  torch.zeros(...))`), a list of pairs of them, one tensor whose first dimension is a layer
  count (`torch.zeros((layer_num, size, ...))`), or a cache attribute of the tables
  (`kv_buffer`, on any object: `self.swa_kv_pool.kv_buffer`). A first dimension from the
  batch size is a staging buffer; a one-dimensional tensor per layer is a scale, not KV;
- *one layer* of a buffer: indexed by anything that is no slice or tensor (`layer_id -
  self.start_layer`, `self._local(layer_id)`, `self.layer_map[layer_id]`), then viewed
  (`[views]`, `[..., :512]`, `[:, 0]`, `.view(-1, page, ...)`, `paged_view(...)`), split
  (a tuple), converted (a cast or a `[[conversion_helper]]`: still the whole layer, and the
  conversion itself is reported where it is, CL001/CL004), or returned by another accessor
  (`self.full.get_key_buffer(i)`, a learnt one: a fixed point), through local names;
- an *accessor*: a method with a parameter besides self, no generator, whose returns give
  one layer (or a tuple of layers) on some path and, on no path, a gather or an active
  prefix of a buffer (`self.k[i][loc]`, `self.k[i][:n]`); other returns (None, a value
  of another object) do not count against it.

Learnt accessors are added to the tables of the file that defines them, of the files that
import its module (castlint.analysis.tree_index) and of the files that import a package
of `[learn] packages` installed on sys.path (read, never imported; `engine_tables`, the
learnt table of a package cached on disk by file signature). Buffers are also cache
attributes for the file that defines them (so a conversion inside an accessor is one of a
whole pool). Container and tensor method names (`get`, `view`, ...) are never learnt.
"""

from __future__ import annotations

import ast
import dataclasses
import fnmatch
import hashlib
import json
import os
import re
import sys
import time
from typing import Dict, FrozenSet, Iterable, List, Mapping, Optional, Set, Tuple, Union

from castlint.common import pyast
from castlint.common.words import any_word
from castlint.tables import Accessor, Tables

_MAX_BYTES = 4 << 20  # pools are defined in ordinary source files; skip anything bigger
_MAX_ROUNDS = 6  # accessor-through-accessor fixed point
_MAX_PACKAGE_FILES = 20000

LAYER, TUPLE, BAD = "tensor", "tuple", "bad"  # one layer, several layers, a part of a buffer
LIST, PAIRS, STACK = "list", "pairs", "stack"  # per-layer buffers: tensors, pairs, one stacked tensor
PLANES = "planes"  # per-layer tensors whose first dimension is a literal count of planes: (2, size + 1, ...)


@dataclasses.dataclass(frozen=True)
class Learned:
    accessors: Tuple[Tuple[str, str], ...] = ()  # (name, "tensor" | "tuple"), sorted
    buffers: FrozenSet[str] = frozenset()  # the per-layer buffer attributes the classes allocate
    converting: FrozenSet[str] = frozenset()  # accessors that convert what they return
    # (accessor, spellings of the dtype its buffers are allocated in: `self.dtype`, `torch.bfloat16`),
    # for accessors that return a buffer as allocated (no cast, reinterpret or delegation)
    dtypes: Tuple[Tuple[str, Tuple[str, ...]], ...] = ()
    # accessors learnt only from methods that read no per-layer buffer, only another accessor's result
    # (a backend's reader: `self.backend.pool.get_key_buffer(i)`): Accessor.reader
    readers: FrozenSet[str] = frozenset()
    # readers learnt in classes that allocate no buffer and that read only an object they hold (a holder of an
    # engine's pool: `self.pool = token_to_kv_pool`; not `self.get_buffers(i)` of a manager subclass): Accessor.holder
    holders: FrozenSet[str] = frozenset()

    def __bool__(self) -> bool:
        return bool(self.accessors or self.buffers)

    @property
    def names(self) -> FrozenSet[str]:
        return frozenset(name for name, _ in self.accessors)


# -- words ------------------------------------------------------------------------


def _parts(text: str) -> Set[str]:
    return {p for piece in text.lower().split(".") for p in piece.split("_") if p}


def _idents(node: ast.AST) -> Set[str]:
    out: Set[str] = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name):
            out |= _parts(sub.id)
        elif isinstance(sub, ast.Attribute):
            out |= _parts(sub.attr)
    return out


def _last(node: ast.AST) -> Optional[str]:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


_NEVER: Dict[int, Tuple[Tables, FrozenSet[str]]] = {}


def _never_learnt(tables: Tables) -> FrozenSet[str]:
    """Names that are container or tensor methods, or listed in [learn] skip_methods."""
    hit = _NEVER.get(id(tables))
    if hit is None or hit[0] is not tables:
        names = set(dir(dict)) | set(dir(list)) | set(dir(tuple)) | set(dir(str)) | set(dir(object))
        names |= set(tables.view_methods) | set(tables.tuple_view_methods) | set(tables.casts)
        names |= set(tables.gather_methods) | set(tables.narrow_methods) | set(tables.copy_methods)
        names |= set(tables.reinterpret_methods) | set(tables.learn_skip_methods) | set(tables.whole_copy_methods)
        hit = _NEVER[id(tables)] = (tables, frozenset(names))
    return hit[1]


# -- buffers: what a class allocates ------------------------------------------------


def _alloc_dims(call: ast.AST, tables: Tables, env: Optional[Dict[str, ast.AST]] = None) -> Optional[List[ast.AST]]:
    """The dimensions of an `[allocation]` call (`torch.zeros((a, b), ...)`, `torch.empty(a, b)`,
    `x.new_zeros(...)`, a shape bound to a local first: `shape = (a, b); torch.empty(shape)`);
    None when it is no allocation."""
    if not isinstance(call, ast.Call):
        return None
    name = _last(call.func)
    if name not in tables.allocation_functions:
        return None
    if name.endswith("_like"):
        return []  # the shape of another tensor: unknown
    positional = [a for a in call.args if not isinstance(a, ast.Starred)]
    size = next((k.value for k in call.keywords if k.arg == "size"), None)
    if size is not None:
        positional = [size]
    if not positional:
        return []
    first = positional[0]
    if isinstance(first, ast.Name) and env and isinstance(env.get(first.id), (ast.Tuple, ast.List)):
        first = env[first.id]  # `shape = (num_blocks, block_size, ...)`, then `torch.empty(shape)`
    if isinstance(first, (ast.Tuple, ast.List)):
        # `torch.ones(())`: a 0-dim tensor (a scale), no slots: no allocation of a pool
        return list(first.elts) if first.elts else None
    if name in ("full", "new_full") and len(positional) >= 1:
        return [first] if not isinstance(first, (ast.Tuple, ast.List)) else list(first.elts)
    return positional


def _per_token(dims: List[ast.AST], tables: Tables) -> bool:
    """An allocation that holds tokens (a pool of one layer): not batch-sized, not a scale."""
    if not dims:
        return True  # `torch.empty_like(...)`, a shape held elsewhere: taken as a pool
    if all(isinstance(d, ast.Constant) for d in dims):
        return False  # a fixed shape (`(256, 4)`): per-request state, no pool sized at run time
    words = _idents(dims[0])
    if words & tables.batch_words:
        return False
    return len(dims) >= 2 or bool(words & tables.pool_words)


def _planes_first(node: ast.AST, tables: Tables, env: Dict[str, ast.AST]) -> bool:
    """An allocation whose first dimension is a literal count of planes (K and V, latent and
    rope) and whose next one holds the tokens: `torch.zeros((2, size + 1, heads, dim))`."""
    if isinstance(node, ast.Name) and node.id in env:
        node = env[node.id]
    dims = _alloc_dims(node, tables, env)
    return (
        bool(dims)
        and len(dims) >= 3
        and isinstance(dims[0], ast.Constant)
        and isinstance(dims[0].value, int)
        and 1 < dims[0].value <= 4
        and _per_token(dims[1:], tables)
    )


def _element_kind(node: ast.AST, tables: Tables, env: Dict[str, ast.AST]) -> Optional[str]:
    """What one element of a per-layer container is: a tensor of one layer (LAYER), a pair of
    them (TUPLE), else None."""
    if isinstance(node, ast.Name) and node.id in env:
        node = env[node.id]
    dims = _alloc_dims(node, tables, env)
    if dims is not None:
        return LAYER if _per_token(dims, tables) else None
    if isinstance(node, (ast.Tuple, ast.List)) and node.elts:
        kinds = [_element_kind(e, tables, env) for e in node.elts]
        return TUPLE if all(k == LAYER for k in kinds) else None
    return None


def _buffer_kind(value: ast.AST, tables: Tables, env: Dict[str, ast.AST]) -> Optional[str]:
    """LIST / PAIRS / STACK when value allocates per-layer buffers, else None."""
    if isinstance(value, ast.Name) and value.id in env:
        value = env[value.id]
    if isinstance(value, ast.Call) and _last(value.func) in ("list", "tuple") and value.args:
        value = value.args[0]
    if isinstance(value, (ast.ListComp, ast.GeneratorExp, ast.SetComp, ast.DictComp)):
        elt = value.value if isinstance(value, ast.DictComp) else value.elt
        element = _element_kind(elt, tables, env)
        if element == LAYER and _planes_first(elt, tables, env):
            return PLANES
    else:
        dims = _alloc_dims(value, tables, env)
        if (
            dims
            and len(dims) >= 3
            and _idents(dims[0]) & tables.layer_words
            and not _idents(dims[0]) & tables.batch_words
        ):
            return STACK
        return None
    return {LAYER: LIST, TUPLE: PAIRS}.get(element)


class _Index:
    """One walk of a function: its assignments, appends, returns, yields."""

    __slots__ = ("appends", "assigned", "assigns", "generator", "returns", "unpacked", "values")

    def __init__(self, func):
        self.assigns: List[tuple] = []  # (targets, value) of = and annotated =
        self.appends: List[ast.Call] = []
        self.returns: List[ast.AST] = []
        self.generator = False
        self.assigned: Dict[str, List[ast.AST]] = {}  # name -> values (=, annotated =, :=)
        self.unpacked: Dict[str, Tuple[ast.AST, int]] = {}
        stack = list(ast.iter_child_nodes(func))
        while stack:
            node = stack.pop()
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
                continue  # nested definitions: their own returns and names
            stack.extend(ast.iter_child_nodes(node))
            if isinstance(node, (ast.Assign, ast.AnnAssign, ast.NamedExpr)):
                if node.value is None:
                    continue
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                self.assigns.append((targets, node.value))
                for target in targets:
                    if isinstance(target, ast.Name):
                        self.assigned.setdefault(target.id, []).append(node.value)
                    elif isinstance(target, (ast.Tuple, ast.List)):
                        for k, elt in enumerate(target.elts):
                            if isinstance(elt, ast.Name):
                                self.unpacked[elt.id] = (node.value, k)
            elif isinstance(node, ast.Return):
                if node.value is not None:
                    self.returns.append(node.value)
            elif isinstance(node, (ast.Yield, ast.YieldFrom)):
                self.generator = True
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("append", "extend")
                and node.args
            ):
                self.appends.append(node)
        self.values = {k: v[0] for k, v in self.assigned.items() if len(v) == 1}


class _NoReturn:
    returns = ()
    generator = False


_NO_RETURN = _NoReturn()


def _allocates(tables: Tables) -> None:
    """Set _ALLOCATES: an allocation or an append in a method's text."""
    global _ALLOCATES, _ALLOCATES_FOR
    if _ALLOCATES_FOR is not tables:
        words = "|".join(re.escape(f) for f in sorted(tables.allocation_functions)) or "(?!)"
        attributes = "|".join(map(re.escape, sorted(tables.cache_attributes))) or "(?!)"
        _ALLOCATES = re.compile(rf"\b(?:{words})\(|\.(?:append|extend)\(|\b(?:{attributes})\b")
        _ALLOCATES_FOR = tables


_ALLOCATES_FOR: Optional[Tables] = None


def _appended(index: _Index, tables: Tables, env: Dict[str, ast.AST]) -> Dict[str, str]:
    """`self.x.append(torch.zeros(...))` / `bufs.append(...)`: {target text: kind}."""
    out: Dict[str, str] = {}
    for node in index.appends:
        target = pyast.dotted(node.func.value)
        if target is None:
            continue
        arg = node.args[0]
        if node.func.attr == "append":
            kind = _element_kind(arg, tables, env)
        else:
            kind = {LIST: LAYER, PLANES: LAYER, PAIRS: TUPLE}.get(_buffer_kind(arg, tables, env))
        if kind is not None:
            out[target] = {LAYER: LIST, TUPLE: PAIRS}[kind]
    return out


_ALLOCATES = re.compile(r"\(|\[")  # replaced per tables by _allocates()


def _span(lines: List[str], node) -> str:
    return "".join(lines[node.lineno - 1 : (getattr(node, "end_lineno", None) or node.lineno)])


def class_buffers(
    cls: ast.ClassDef, tables: Tables, indexes: Optional[Dict[int, _Index]] = None, text: Optional[List[str]] = None
) -> Dict[str, str]:
    """{attribute: LIST | PLANES | PAIRS | STACK} of the per-layer buffers a class allocates."""
    out: Dict[str, str] = {}
    staging: Set[str] = set()
    for func in cls.body:
        if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        if text is not None and not _ALLOCATES.search(_span(text, func)):
            continue  # allocates nothing on self: no buffer (cheap text test first)
        index = indexes.get(id(func)) if indexes is not None else None
        if index is None:
            index = _Index(func)
            if indexes is not None:
                indexes[id(func)] = index
        if not any(isinstance(t, ast.Attribute) for targets, _ in index.assigns for t in targets):
            continue
        env = index.values
        appended = _appended(index, tables, env) if index.appends else {}
        for targets, value in index.assigns:
            for target in targets:
                if not (
                    isinstance(target, ast.Attribute)
                    and isinstance(target.value, ast.Name)
                    and target.value.id == "self"
                ):
                    continue
                kind = _buffer_kind(value, tables, env)
                if kind is None and isinstance(value, (ast.List, ast.Name)):
                    kind = appended.get(pyast.dotted(value) or "") if isinstance(value, ast.Name) else None
                    kind = kind or appended.get(f"self.{target.attr}")
                if kind is not None:
                    out.setdefault(target.attr, kind)
                else:
                    dims = _alloc_dims(value, tables, env)
                    if dims and _idents(dims[0]) & tables.batch_words:
                        staging.add(target.attr)
    for name in staging:
        if out.get(name) is None and name in tables.cache_attributes:
            out[name] = "staging"
    return out


# -- what a method returns -----------------------------------------------------------


class _Method:
    """Reads one method's returns against its class's buffers and the accessors known."""

    def __init__(
        self,
        func,
        buffers: Dict[str, str],
        known: Mapping[str, str],
        tables: Tables,
        index: Optional[_Index] = None,
        planes: FrozenSet[str] = frozenset(),
    ):
        self.func = func
        self.planes = planes  # the class's methods that return one planes-first layer
        self._plane_nodes: Set[int] = set()  # nodes that are one layer of a planes-first buffer
        self.buffers = buffers
        self.known = known
        self.tables = tables
        self.params = {a.arg for a in func.args.args[1:] + func.args.posonlyargs + func.args.kwonlyargs}
        if func.args.vararg is not None:
            self.params.add(func.args.vararg.arg)
        self.index = index if index is not None else _Index(func)
        self.converts = False  # a return passes through a cast or a conversion helper
        self.used: Set[str] = set()  # the class's buffers a return reads
        self.opaque = False  # a return delegates or reinterprets: its dtype is not the allocation's
        self.reads_buffer = False  # a return reads a per-layer buffer itself (its class's, or a cache attribute)
        self.self_delegation = False  # a return delegates to self's own accessor (`self.get_buffers(i)`, super())
        self.borrows = False  # a return reads a cache attribute of an object self holds (`self.engine.gpu_cache`)
        self.assigned = self.index.assigned
        self.unpacked = self.index.unpacked
        self._busy: Set[str] = set()

    def container(self, node: ast.AST) -> Optional[str]:
        """LIST / PAIRS / STACK when node is a per-layer buffer: `self.<buffer>`, or a cache
        attribute of any object (`self.swa_kv_pool.kv_buffer`)."""
        if isinstance(node, ast.Attribute):
            if isinstance(node.value, ast.Name) and node.value.id == "self" and node.attr in self.buffers:
                kind = self.buffers[node.attr]
                if kind != "staging":
                    self.used.add(node.attr)
                    self.reads_buffer = True
                return None if kind == "staging" else kind
            if node.attr in self.tables.cache_attributes:
                self.opaque = True  # a cache attribute the class does not allocate: dtype unknown
                if node.attr in self.tables.cache_list_attributes and self._held(node.value):
                    # an engine's list of per-layer caches ([cache_attributes] python_lists), borrowed through an
                    # object self holds (`self.cache_engine.gpu_cache`): read as a held accessor's result is (a
                    # reader), not as the class's own buffer. Another pool's own buffer (`self.device_pool.k_buffer`
                    # of a host tier over it) still makes the class a pool
                    self.borrows = True
                else:
                    self.reads_buffer = True
                return LIST
        if (
            isinstance(node, ast.Name)
            and node.id not in self.params
            and node.id in self.assigned
            and node.id not in self._busy
        ):
            self._busy.add(node.id)
            try:
                kinds = {self.container(v) for v in self.assigned[node.id]}
            finally:
                self._busy.discard(node.id)
            return kinds.pop() if len(kinds) == 1 else None
        return None

    def _entry(self, value: ast.AST) -> bool:
        """Is value one entry of a cache attribute whose entries split into whole caches (`k, v =
        self.gpu_cache[i]`: lmdeploy's (k, v) pair per layer; [cache_attributes] entry_lists)?"""
        return (
            isinstance(value, ast.Subscript)
            and isinstance(value.value, ast.Attribute)
            and value.value.attr in self.tables.cache_entry_lists
            and self._layer_index(value.slice)
        )

    def _layer_index(self, index: ast.AST) -> bool:
        """An index selecting one layer of a per-layer container: anything but a slice, a
        tensor of indices or a mask."""
        if isinstance(index, (ast.Slice, ast.Compare, ast.List)):
            return False
        if isinstance(index, ast.Tuple):
            return False
        return not (isinstance(index, ast.Call) and _last(index.func) in self.tables.tensor_calls)

    def _token_view(self, elements: List[ast.AST]) -> str:
        """A subscript of one layer: LAYER when it keeps every token, else BAD."""
        for position, element in enumerate(elements):
            if isinstance(element, ast.Slice):
                if position == 0 and element.upper is not None and not self._extent(element.upper):
                    return BAD  # an active prefix
                if position == 0 and element.lower is not None and element.upper is not None:
                    return BAD
                continue
            if isinstance(element, ast.Constant) and element.value is Ellipsis:
                return LAYER
            if isinstance(element, ast.Constant) and element.value is None:
                continue
            if position == 0:
                return BAD  # an index of the token dimension: a gather
            if isinstance(element, ast.Constant) and isinstance(element.value, int):
                continue  # a select of a later dimension (K of a [blocks, 2, ...] pool)
            return BAD
        return LAYER

    def _plane_view(self, elements: List[ast.AST]) -> str:
        """A subscript of one planes-first layer: a constant first index picks a plane (every
        token of it), then the token dimension decides."""
        first = elements[0]
        if isinstance(first, ast.Constant) and isinstance(first.value, int) and not isinstance(first.value, bool):
            return self._token_view(elements[1:]) if len(elements) > 1 else LAYER
        if isinstance(first, ast.Slice) and first.lower is None and first.upper is None:
            return self._token_view(elements[1:]) if len(elements) > 1 else LAYER
        return BAD

    def _is_planes(self, node: ast.AST, depth: int = 0) -> bool:
        """Is node one layer of a planes-first buffer: a subscript of one, a local bound to one,
        or what a method of the class returning one gives (`self._lane(layer_id)`)?"""
        if depth > 6:
            return False
        if id(node) in self._plane_nodes:
            return True
        if isinstance(node, ast.Subscript) and self.container(node.value) == PLANES:
            return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            return node.func.attr in self.planes and self._own(node.func.value)
        if isinstance(node, ast.Name) and node.id not in self.params and node.id not in self._busy:
            values = self.assigned.get(node.id, ())
            self._busy.add(node.id)
            try:
                return bool(values) and all(self._is_planes(v, depth + 1) for v in values)
            finally:
                self._busy.discard(node.id)
        return False

    def plane_layers(self) -> bool:
        """Does every return of this accessor give one planes-first layer?"""
        return bool(self.index.returns) and all(self._is_planes(v) for v in self.index.returns)

    def _extent(self, bound: ast.AST) -> bool:
        if isinstance(bound, ast.UnaryOp) and isinstance(bound.op, ast.USub):
            return True
        return bool(_idents(bound) & self.tables.extent_words)

    def kind(self, node: ast.AST, depth: int = 0) -> Optional[str]:
        if depth > 12 or node is None:
            return None
        t = self.tables
        if isinstance(node, ast.Subscript):
            elements = list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]
            container = self.container(node.value)
            if container is not None:
                if not self._layer_index(elements[0]):
                    return BAD if container == STACK else None
                if container == PAIRS:
                    if len(elements) > 1:
                        return None
                    return TUPLE
                if container == PLANES:
                    if len(elements) == 1:
                        self._plane_nodes.add(id(node))
                        return LAYER
                    return self._plane_view(elements[1:])
                return self._token_view(elements[1:]) if len(elements) > 1 else LAYER
            base = self.kind(node.value, depth + 1)
            if base == LAYER:
                if self._is_planes(node.value):
                    return self._plane_view(elements)
                return self._token_view(elements)
            if base == TUPLE:  # `pair[0]`, `pair[which]`: one of the layer's tensors (no slice of the pair)
                if len(elements) == 1 and self._layer_index(elements[0]):
                    return LAYER
                return None
            return BAD if base == BAD else None
        if isinstance(node, ast.Call):
            func = node.func
            name = _last(func)
            if isinstance(func, ast.Attribute):
                receiver = self.kind(func.value, depth + 1)
                if receiver == LAYER and (name in t.view_methods or name in t.casts or name in t.reinterpret_methods):
                    if name in t.casts:
                        self.converts = True
                    elif name in t.reinterpret_methods:
                        self.opaque = True
                    return LAYER
                if receiver == LAYER and name in t.tuple_view_methods:
                    return TUPLE
                if receiver in (LAYER, BAD) and (name in t.gather_methods or name in t.narrow_methods):
                    return BAD
                if name in self.known and self._receiver_ok(name, func.value, node) and self._own(func.value):
                    self.opaque = True
                    if not self._held(func.value):
                        self.self_delegation = True
                    return self.known[name]  # delegation to the class's own or a held pool
            elif name in self.known and name not in t.accessors:
                return None
            if name in t.view_functions or pyast.dotted(func) in t.view_functions:
                return self.kind(node.args[0], depth + 1) if node.args else None
            if name in t.conversion_helpers:
                helper = t.conversion_helpers[name]
                args = [a for a in node.args if not isinstance(a, ast.Starred)]
                if helper.arg < len(args) and self.kind(args[helper.arg], depth + 1) == LAYER:
                    self.converts = True
                    return LAYER
            if name in t.gather_functions or pyast.dotted(func) in t.gather_functions:
                return BAD if node.args and self.kind(node.args[0], depth + 1) in (LAYER, BAD) else None
            return None
        # several layers: a tuple or list, or a dict of them by name (`{"k": k.to(dt), "v": v.to(dt)}`)
        elements = node.elts if isinstance(node, (ast.Tuple, ast.List)) else _named_values(node)
        if elements:
            kinds = [self.kind(e, depth + 1) for e in elements]
            if BAD in kinds:
                return BAD
            return TUPLE if all(k == LAYER for k in kinds) else None
        if isinstance(node, ast.IfExp):
            return _merge([self.kind(node.body, depth + 1), self.kind(node.orelse, depth + 1)])
        if isinstance(node, ast.BinOp):
            # arithmetic on the layer (`layer.to(dt) * scale`, `(packed & 0x0F)`): every slot still
            sides = [self.kind(node.left, depth + 1), self.kind(node.right, depth + 1)]
            if BAD in sides:
                return BAD
            return LAYER if LAYER in sides else None
        if isinstance(node, ast.Name):
            if node.id in self.params or node.id in self._busy:
                return None
            self._busy.add(node.id)
            try:
                kinds = [self.kind(v, depth + 1) for v in self.assigned.get(node.id, ())]
                if node.id in self.unpacked:
                    value, _ = self.unpacked[node.id]
                    kinds.append(LAYER if self.kind(value, depth + 1) == TUPLE or self._entry(value) else None)
            finally:
                self._busy.discard(node.id)
            return _merge(kinds)
        return None

    def _own(self, node: ast.AST, depth: int = 0) -> bool:
        """Is node reached from self (`self`, `self.full`, `super()`, `self._pool(r)`, a local
        unpacked from `self.layer_mapping[i]`)? A pool that arrives as a parameter belongs to
        the caller: a method that reads one is a helper, not the pool's accessor."""
        if depth > 8:
            return False
        if isinstance(node, ast.Name):
            if node.id == "self":
                return True
            if node.id in self.params or node.id in self._busy:
                return False
            values = list(self.assigned.get(node.id, ()))
            if node.id in self.unpacked:
                values.append(self.unpacked[node.id][0])
            self._busy.add(node.id)
            try:
                return bool(values) and all(self._own(v, depth + 1) for v in values)
            finally:
                self._busy.discard(node.id)
        if isinstance(node, ast.Call):
            if isinstance(node.func, ast.Name) and node.func.id == "super":
                return True
            return self._own(node.func, depth + 1)
        if isinstance(node, (ast.Attribute, ast.Subscript)):
            return self._own(node.value, depth + 1)
        return False

    def _held(self, node: ast.AST, depth: int = 0) -> bool:
        """Is node (a receiver _own accepts) an object self holds (`self.pool`, `self.runner.pool`, a local
        of one), not self itself or its base (`self`, `super()`)?"""
        if depth > 8:
            return False
        if isinstance(node, ast.Name):
            if node.id == "self":
                return False
            values = list(self.assigned.get(node.id, ()))
            if node.id in self.unpacked:
                values.append(self.unpacked[node.id][0])
            return bool(values) and all(self._held(v, depth + 1) for v in values)
        if isinstance(node, ast.Attribute):
            return isinstance(node.value, ast.Name) and node.value.id == "self" or self._held(node.value, depth + 1)
        if isinstance(node, ast.Subscript):
            return self._held(node.value, depth + 1)
        return False

    def _receiver_ok(self, name: str, receiver: ast.AST, call: Optional[ast.Call] = None) -> bool:
        accessor = self.tables.accessors.get(name)
        if accessor is None or not accessor.receivers:
            return True
        if (
            call is not None
            and accessor.arity
            and len(call.args) == accessor.arity
            and all(k.arg is not None for k in call.keywords)
            and not any(isinstance(a, ast.Starred) for a in call.args)
            and self._layer_index(call.args[0])
            and not isinstance(call.args[0], ast.Constant)
        ):
            # the accessor's own signature (`self.get_buffers(layer_idx)` in a subclass of the engine's
            # manager), as ModuleAnalysis._accessor_receiver_ok reads it on any receiver
            return True
        text = pyast.dotted(receiver) or ""
        return text.rsplit(".", 1)[-1] in accessor.receivers

    def returns(self) -> Optional[str]:
        """LAYER / TUPLE when the method is an accessor, else None."""
        if self.index.generator or not self.index.returns:
            return None
        kinds = [self.kind(value) for value in self.index.returns]
        if BAD in kinds:
            return None
        found = [k for k in kinds if k in (LAYER, TUPLE)]
        if not found:
            return None
        return TUPLE if TUPLE in found else LAYER


def _own_nodes(func):
    """The nodes of func, not of functions, lambdas or classes nested in it."""
    stack = list(ast.iter_child_nodes(func))
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            stack.extend(ast.iter_child_nodes(node))


def _named_values(node: ast.AST) -> list:
    """The values of a dict display keyed by constants (no `**other`); [] for anything else."""
    if isinstance(node, ast.Dict) and node.keys and all(isinstance(k, ast.Constant) for k in node.keys):
        return list(node.values)
    return []


def _merge(kinds) -> Optional[str]:
    kinds = [k for k in kinds if k is not None]
    if not kinds:
        return None
    if BAD in kinds:
        return BAD
    return LAYER if LAYER in kinds else TUPLE


def _classes(tree: ast.Module):
    stack = [n for n in tree.body if isinstance(n, ast.ClassDef)]
    stack += [
        n for s in tree.body if isinstance(s, (ast.If, ast.Try)) for n in ast.walk(s) if isinstance(n, ast.ClassDef)
    ]
    while stack:
        cls = stack.pop()
        yield cls
        stack.extend(n for n in cls.body if isinstance(n, ast.ClassDef))


def learn_tree(
    tree: ast.Module, tables: Tables, known: Optional[Mapping[str, str]] = None, lines: Optional[List[str]] = None
) -> Learned:
    """The accessors and buffers of a parsed module's pool classes (lines: the module's source
    lines, for cheap text tests of each method before it is read)."""
    never = _never_learnt(tables)
    base = {name: a.returns for name, a in tables.accessors.items()}
    base.update(known or {})
    classes = []
    buffers: Set[str] = set()
    indexes: Dict[int, _Index] = {}
    received = _text_tests(tables, known or ())[4]
    handed = _manager_methods(tree, tables) if lines is None or received.search("".join(lines).encode()) else {}
    for cls in _classes(tree):
        own = class_buffers(cls, tables, indexes, lines if lines is not None and _ALLOCATES is not None else None)
        allocates = bool(own)
        if handed:
            for name in _handed_buffers(cls, handed):
                own.setdefault(name, LIST)
        # per-layer lists and pairs are cache attributes of the file; a layer-stacked tensor is not
        # (`stack[:, slots]` indexes its second dimension: the analysis reads a container's first)
        buffers |= {name for name, kind in own.items() if kind in (LIST, PLANES, PAIRS)}
        methods = [
            f
            for f in cls.body
            if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
            and f.name not in never
            and not f.name.startswith("__")
            and (f.args.args[1:] or f.args.kwonlyargs or f.args.vararg)
            and not any(_last(d) in ("staticmethod", "property") for d in f.decorator_list)
        ]
        if methods:
            classes.append((cls, own, methods, allocates))
    learnt: Dict[str, str] = {}
    planes: Set[str] = set()  # learnt accessors that return one planes-first layer
    converting: Set[str] = set()
    readers: Set[str] = set()
    holders: Set[str] = set()
    dtypes: Dict[str, Tuple[str, ...]] = {}
    class_dtypes: Dict[int, Dict[str, Optional[Tuple[str, ...]]]] = {}
    for _ in range(_MAX_ROUNDS):
        changed = False
        known_now = dict(base)
        known_now.update(learnt)
        for cls, own, methods, allocates in classes:
            for func in methods:
                if func.name in learnt or func.name in tables.accessors:
                    continue
                index = indexes.get(id(func))
                if index is None:
                    if lines is not None and "return" not in _span(lines, func):
                        indexes[id(func)] = index = _NO_RETURN
                    else:
                        index = indexes[id(func)] = _Index(func)
                if not index.returns or index.generator:
                    continue
                method = _Method(func, own, known_now, tables, index, frozenset(planes))
                kind = method.returns()
                if kind is not None:
                    learnt[func.name] = kind
                    if not method.reads_buffer:
                        readers.add(func.name)
                        if not allocates and not method.self_delegation:
                            holders.add(func.name)
                    if kind == LAYER and method.plane_layers():
                        planes.add(func.name)
                    if method.converts:
                        converting.add(func.name)
                    elif not method.opaque and method.used:
                        if id(cls) not in class_dtypes:
                            class_dtypes[id(cls)] = buffer_dtypes(cls, tables, indexes)
                        spelled = {class_dtypes[id(cls)].get(b) for b in method.used}
                        if len(spelled) == 1 and None not in spelled:
                            dtypes[func.name] = spelled.pop()
                    changed = True
        if not changed:
            break
    return Learned(
        tuple(sorted(learnt.items())),
        frozenset(buffers - set(tables.cache_attributes)),
        frozenset(converting),
        tuple(sorted(dtypes.items())),
        frozenset(readers),
        frozenset(holders),
    )


def _manager_receivers(tables: Tables) -> FrozenSet[str]:
    """The attributes that hold an engine's pool manager: every [[accessor]] row's `receivers`
    (`metadata.kv_cache_manager`)."""
    return frozenset(r for a in tables.accessors.values() for r in a.receivers)


def _manager_methods(tree: ast.Module, tables: Tables) -> Dict[str, int]:
    """{method name: how many module defs have it} of the methods this module calls on a pool manager
    (`metadata.kv_cache_manager.get_layer_view(i)`, or through a name bound to one: `mgr =
    metadata.kv_cache_manager; mgr.get_layer_view(i, dtype=d)`), other than the table's accessors."""
    receivers = _manager_receivers(tables)
    if not receivers:
        return {}
    called: Set[str] = set()
    defs: Dict[str, int] = {}
    for func in ast.walk(tree):
        if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        defs[func.name] = defs.get(func.name, 0) + 1
        bound: Dict[str, int] = {}
        calls = []
        for node in ast.walk(func):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                holds = isinstance(node.value, ast.Attribute) and node.value.attr in receivers
                bound[node.targets[0].id] = bound.get(node.targets[0].id, 0) + (1 if holds else 2)
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                calls.append(node.func)
        for callee in calls:
            receiver = callee.value
            if (isinstance(receiver, ast.Attribute) and receiver.attr in receivers) or (
                isinstance(receiver, ast.Name) and bound.get(receiver.id) == 1
            ):
                called.add(callee.attr)
    return {name: defs[name] for name in called if name in defs and name not in tables.accessors}


def _handed_buffers(cls: ast.ClassDef, called: Dict[str, int]) -> Set[str]:
    """The attributes of a pool manager's class that hold the per-layer buffers handed to it: cls
    defines the only def of a method the module calls on a pool manager (_manager_methods), that method
    indexes `self.<a>` by its first parameter (the layer), and `__init__` stores a parameter of its own
    as `self.<a>` (`self._pools = pools`): the manager's layers, allocated elsewhere."""
    init = next((f for f in cls.body if isinstance(f, ast.FunctionDef) and f.name == "__init__"), None)
    if init is None:
        return set()
    params = {a.arg for a in init.args.args[1:] + init.args.kwonlyargs}
    stored = set()
    for node in ast.walk(init):
        if (
            isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Name)
            and node.value.id in params
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Attribute)
            and isinstance(node.targets[0].value, ast.Name)
            and node.targets[0].value.id == "self"
        ):
            stored.add(node.targets[0].attr)
    found: Set[str] = set()
    for func in cls.body:
        if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)) or called.get(func.name) != 1:
            continue
        if len(func.args.args) < 2:
            continue
        layer = func.args.args[1].arg
        for node in ast.walk(func):
            if (
                isinstance(node, ast.Subscript)
                and isinstance(node.slice, ast.Name)
                and node.slice.id == layer
                and isinstance(node.value, ast.Attribute)
                and isinstance(node.value.value, ast.Name)
                and node.value.value.id == "self"
                and node.value.attr in stored
            ):
                found.add(node.value.attr)
    return found


def _allocation_dtypes(value: ast.AST, tables: Tables, env: Dict[str, ast.AST]) -> Optional[Set[str]]:
    """The `dtype=` of every `[allocation]` call in value (a name of env read through once):
    its source text, "?" for one without a dtype; None when value allocates nothing."""
    if isinstance(value, ast.Name) and value.id in env:
        value = env[value.id]
    found: Set[str] = set()
    for node in ast.walk(value):
        if isinstance(node, ast.Call) and _last(node.func) in tables.allocation_functions:
            dtype = next((k.value for k in node.keywords if k.arg == "dtype"), None)
            found.add(ast.unparse(dtype) if dtype is not None else "?")
    return found or None


def buffer_dtypes(
    cls: ast.ClassDef, tables: Tables, indexes: Optional[Dict[int, _Index]] = None
) -> Dict[str, Optional[Tuple[str, ...]]]:
    """{buffer attribute: spellings of the one dtype every allocation stored in it is made
    with (`self.index_state_dtype`, and `torch.bfloat16` when the class body sets
    `index_state_dtype = torch.bfloat16`), None when they differ or one has none}. An
    assignment that allocates nothing (the `self.k = []` placeholder) does not count;
    `self.k.append(torch.zeros(...))` does."""
    constants: Dict[str, str] = {}
    for statement in cls.body:
        target = (
            statement.targets[0]
            if isinstance(statement, ast.Assign) and len(statement.targets) == 1
            else statement.target
            if isinstance(statement, ast.AnnAssign)
            else None
        )
        value = getattr(statement, "value", None)
        if isinstance(target, ast.Name) and value is not None and (pyast.dotted(value) or "").startswith("torch."):
            constants[f"self.{target.id}"] = pyast.dotted(value)
    seen: Dict[str, Set[str]] = {}
    for func in cls.body:
        if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        index = indexes.get(id(func)) if indexes is not None else None
        if index is None or isinstance(index, _NoReturn):
            index = _Index(func)
        env = index.values
        stores = [
            (t.attr, v)
            for targets, v in index.assigns
            for t in targets
            if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self"
        ]
        stores += [
            (c.func.value.attr, c.args[0])
            for c in index.appends
            if isinstance(c.func.value, ast.Attribute)
            and isinstance(c.func.value.value, ast.Name)
            and c.func.value.value.id == "self"
        ]
        for attr, value in stores:
            found = _allocation_dtypes(value, tables, env)
            if found is not None:
                seen.setdefault(attr, set()).update(found)
    out: Dict[str, Optional[Tuple[str, ...]]] = {}
    for attr, found in seen.items():
        if len(found) != 1 or "?" in found:
            out[attr] = None
            continue
        dtype = found.pop()
        if not dtype.startswith(("self.", "torch.")):
            out[attr] = None  # a local or a parameter of the pool's own: not spelled at a call
            continue
        out[attr] = (dtype, constants[dtype]) if dtype in constants else (dtype,)
    return out


_TEXT: Dict[tuple, Tuple[Tables, tuple]] = {}


def _text_tests(tables: Tables, known: Iterable[str] = ()) -> tuple:
    """(a return that indexes an attribute of self, an allocation stored on self or in a list,
    a subscript of a cache attribute, a return that delegates to an accessor or an accessor called on
    self): a file can
    define a pool class only if its text has the first two, or the third."""
    key = (id(tables), frozenset(known))
    hit = _TEXT.get(key)
    if hit is None or hit[0] is not tables:
        allocation = "|".join(re.escape(f) for f in sorted(tables.allocation_functions)) or "(?!)"
        attributes = "|".join(re.escape(a) for a in sorted(tables.cache_attributes)) or "(?!)"
        accessors = "|".join(re.escape(a) for a in sorted(set(tables.accessors) | set(key[1]))) or "(?!)"
        received = "|".join(re.escape(r) for r in sorted(_manager_receivers(tables))) or "(?!)"
        hit = _TEXT[key] = (
            tables,
            (
                re.compile(rb"return\s+[^\n#]*\bself\.\w+[\w.]*\s*\["),
                # (`[(torch.empty(shape), torch.empty(shape)) for _ in ...]`: a pair per layer)
                re.compile(
                    rf"(?:self\.\w+\s*(?::[^=\n]*)?=|\[|\.append\()\s*\(?\s*(?:torch\.)?(?:{allocation})\(".encode()
                ),
                re.compile(rf"\.(?:{attributes})\[|return\s+[^\n#]*\.(?:{accessors})\(".encode()),
                # an accessor the class inherits, called on self (`raw = self.get_buffers(i)`, then converted)
                re.compile(rf"self\.(?:{accessors})\(".encode()),
                # a pool manager's attribute (`metadata.kv_cache_manager`): its class may be defined here,
                # holding the layers handed to it (_handed_buffers)
                re.compile(rf"\.(?:{received})\b".encode()),
            ),
        )
        if len(_TEXT) > 64:
            _TEXT.clear()
    return hit[1]


_SPLIT: Dict[bytes, tuple] = {}


def _split(pattern: "re.Pattern") -> tuple:
    """pattern's top-level alternatives (`\\.(?:...)\\[` and `return...`), each compiled apart: a search of
    each starts from its own literal (one of the alternation is tried at every offset). Found by
    compiling each piece: the pattern itself where it does not split so."""
    hit = _SPLIT.get(pattern.pattern)
    if hit is None:
        parts = _top_alternatives(pattern.pattern)
        try:
            hit = tuple(re.compile(part, pattern.flags) for part in parts) if len(parts) > 1 else (pattern,)
        except re.error:
            hit = (pattern,)
        if len(_SPLIT) > 64:
            _SPLIT.clear()
        _SPLIT[pattern.pattern] = hit
    return hit


def _top_alternatives(pattern: bytes) -> list:
    """pattern split at its `|` outside any group or class (escapes skipped)."""
    parts, depth, start, i, in_class = [], 0, 0, 0, False
    while i < len(pattern):
        c = pattern[i : i + 1]
        if c == b"\\":
            i += 2
            continue
        if in_class:
            in_class = c != b"]"
        elif c == b"[":
            in_class = True
            if pattern[i + 1 : i + 2] == b"]":
                i += 1  # (a `]` first in a class is a member)
        elif c == b"(":
            depth += 1
        elif c == b")":
            depth -= 1
        elif c == b"|" and depth == 0:
            parts.append(pattern[start:i])
            start = i + 1
        i += 1
    parts.append(pattern[start:])
    return parts


def candidate(source: bytes, tables: Tables, known: Iterable[str] = ()) -> bool:
    """Could source define a pool class (cheap text tests)?"""
    if b"class" not in source or b"return" not in source:
        return False
    returns, allocation, reads, inherited, received = _text_tests(tables, known)
    if any(part.search(source) is not None for part in _split(reads)) or inherited.search(source) is not None:
        return True
    if returns.search(source) is None:
        return False
    # allocated buffers, or a pool manager's attribute: its class may hold the layers handed to it (_handed_buffers)
    return allocation.search(source) is not None or received.search(source) is not None


_FILES: Dict[tuple, Tuple[Tables, Learned]] = {}


def learn_source(source: bytes, tables: Tables, known: Optional[Mapping[str, str]] = None) -> Learned:
    """What source's pool classes teach (memoised by the bytes)."""
    if not candidate(source, tables, known or ()):
        return Learned()
    key = (hashlib.sha1(source).digest(), tuple(sorted((known or {}).items())))
    hit = _FILES.get(key)
    if hit is not None and hit[0] is tables:
        return hit[1]
    _allocates(tables)
    try:
        lines = source.decode("utf-8", "replace").splitlines(keepends=True)
        found = learn_tree(pyast.parse(source), tables, known, lines)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        found = Learned()
    if len(_FILES) > 4096:
        _FILES.clear()
    _FILES[key] = (tables, found)
    return found


def accessors_in(source: bytes, cache_attributes=None, lines=None, tables: Optional[Tables] = None) -> Set[str]:
    """The names of the accessors source's pool classes define (kept for callers of the
    earlier interface; tables: the tables to read against)."""
    if tables is None:
        from castlint.tables import load_tables

        tables = load_tables()
    return set(learn_source(source, tables).names)


# -- tables with what was learnt -------------------------------------------------------

_WITH: Dict[tuple, Tuple[Tables, Tables]] = {}
Learnable = Union[Learned, Mapping[str, str], Iterable]


def _pairs(learnt: Learnable) -> Tuple[Dict[str, str], FrozenSet[str]]:
    if isinstance(learnt, Learned):
        return dict(learnt.accessors), learnt.buffers
    if isinstance(learnt, Mapping):
        return dict(learnt), frozenset()
    out = {}
    for item in learnt:
        if isinstance(item, tuple):
            out[item[0]] = item[1]
        else:
            out[item] = LAYER
    return out, frozenset()


def with_accessors(
    tables: Tables,
    learnt: Learnable,
    buffers: Iterable[str] = (),
    dtypes: Optional[Mapping[str, Tuple[str, ...]]] = None,
) -> Tables:
    """tables plus these learnt accessors (names, {name: returns}, (name, returns) pairs or
    a Learned) and buffer attributes; dtypes: {accessor: spellings of the dtype its buffers are
    allocated in} (a Learned brings its own); the same object for the same additions."""
    accessors, own_buffers = _pairs(learnt)
    accessors = {k: v for k, v in accessors.items() if k not in tables.accessors}
    extra = (frozenset(buffers) | own_buffers) - set(tables.cache_attributes)
    if not accessors and not extra:
        return tables
    allocated = dict(learnt.dtypes) if isinstance(learnt, Learned) else {}
    allocated.update(dtypes or {})
    allocated = {k: tuple(v) for k, v in allocated.items() if k in accessors}
    readers = learnt.readers & set(accessors) if isinstance(learnt, Learned) else frozenset()
    holders = learnt.holders & readers if isinstance(learnt, Learned) else frozenset()
    items = frozenset(accessors.items())
    key = (id(tables), items, extra, frozenset(allocated.items()), readers, holders)
    hit = _WITH.get(key)
    found = hit[1] if hit is not None and hit[0] is tables else None  # an id may be reused
    if found is None:
        table = dict(tables.accessors)
        for name, returns in sorted(accessors.items()):
            table[name] = Accessor(
                name,
                returns,
                "learnt from a pool class of the checked tree",
                dtype=allocated.get(name, ()),
                reader=name in readers,
                holder=name in holders,
            )
        text = (
            "\0".join(
                f"{n}={r}"
                + ("/" + "|".join(allocated[n]) if n in allocated else "")
                + ("/r" if n in readers else "")
                + ("/h" if n in holders else "")
                for n, r in sorted(accessors.items())
            )
            + "\1"
            + "\0".join(sorted(extra))
        )
        digest = hashlib.sha256((tables.digest + "\0" + text).encode()).hexdigest()[:16]
        found = dataclasses.replace(
            tables, accessors=table, digest=digest, cache_attributes=set(tables.cache_attributes) | extra
        )
        if len(_WITH) > 1024:
            _WITH.clear()
        _WITH[key] = (tables, found)
    return found


def file_tables(source: bytes, tables: Tables, shaped: bool = True) -> Tables:
    """tables with the accessors (and buffers) that source's own pool classes define, and (shaped) the
    getters by shape it calls on the engine's pool object that no table knows (shaped_getters)."""
    learnt = learn_source(source, tables)
    tables = with_accessors(tables, learnt) if learnt else tables
    return with_shaped_getters(source, tables) if shaped else tables


def with_shaped_getters(source: bytes, tables: Tables) -> Tables:
    """tables with the getters by shape that source calls on the engine's pool object (shaped_getters)."""
    shaped = shaped_getters(source, tables)
    return with_accessors(tables, {name: "tensor" for name in shaped}) if shaped else tables


_GETTER_CALL = re.compile(rb"\.[ \t]*(get_\w+)[ \t]*\(([^(),]*(?:\([^()]*\))?[^(),]*)\)")
_RECEIVER = re.compile(rb"(\w+)[ \t]*$")
_SHAPED: Dict[tuple, FrozenSet[str]] = {}


def shaped_getters(source: bytes, tables: Tables) -> FrozenSet[str]:
    """The methods the file calls on the engine's pool object ([learn] pool_receivers: spelled through
    that attribute, or a `self.x` the file assigns from it) that [learn] buffer_getters names like a layer's
    buffer getter, with one argument (the layer index) and no word of [learn] not_buffer_words, that no
    table knows: `self.pool.get_latent_buffer(layer.layer_id)` of `self.pool = model_runner.token_to_kv_pool`."""
    receivers = tables.pool_receivers
    if not receivers or not tables.buffer_getters or not any(r.encode() in source for r in receivers):
        return frozenset()
    key = (hash(source), id(tables))
    hit = _SHAPED.get(key)
    if hit is not None:
        return hit
    names = set(receivers)
    for held in re.finditer(rb"self\.(\w+)\s*=\s*[\w.]*\.(\w+)\s*(?:\n|#|;)", source):
        if held.group(2).decode("ascii", "replace") in receivers:
            names.add(held.group(1).decode("ascii", "replace"))
    found, unpacked = set(), set()
    for call in _GETTER_CALL.finditer(source):
        before = _RECEIVER.search(source, max(0, call.start() - 80), call.start())
        receiver = before.group(1).decode("ascii", "replace") if before is not None else ""
        name = call.group(1).decode("ascii", "replace")
        if receiver not in names or name in tables.accessors or not call.group(2).strip():
            continue
        if b"=" in call.group(2) or b"*" in call.group(2):
            continue  # (a keyword or a spread: not the one layer index)
        if not any(fnmatch.fnmatchcase(name, pattern) for pattern in tables.buffer_getters):
            continue
        if set(name.split("_")) & tables.not_buffer_words:
            continue
        line = source[source.rfind(b"\n", 0, call.start()) + 1 : call.start()]
        if re.match(rb"\s*\(?[\w.]+\s*,", line):
            unpacked.add(name)  # (`k, v, ks, vs = pool.get_raw_kv_buffer(i)`: several values, not one buffer)
        found.add(name)
    found -= unpacked
    if len(_SHAPED) > 1024:
        _SHAPED.clear()
    _SHAPED[key] = frozenset(found)
    return _SHAPED[key]


_CONVERSIONS: Dict[int, Tuple[Tables, tuple]] = {}


_LAST_ANSWER: list = [None, None, False]  # [source, tables, converts_something's answer]


def converts_something(source: bytes, tables: Tables) -> bool:
    """Does the text name a conversion (a cast spelling or a conversion helper)? (The last
    answer is kept: the prefilter's tests ask it of the same bytes in turn.)"""
    if _LAST_ANSWER[0] is source and _LAST_ANSWER[1] is tables:
        return _LAST_ANSWER[2]
    hit = _CONVERSIONS.get(id(tables))
    if hit is None or hit[0] is not tables:
        from castlint.analysis import tree_index

        hit = _CONVERSIONS[id(tables)] = (tables, tree_index._vocabulary(tables)[3])
    answer = any_word(source, hit[1])
    _LAST_ANSWER[:] = [source, tables, answer]
    return answer


def may_learn(source: bytes, tables: Tables) -> bool:
    """Can the file's own pool classes give it a finding the prefilter's words miss? It
    converts something, and one of its classes is a pool class that teaches an accessor
    it calls or a buffer it converts (cheap text tests first)."""
    if not candidate(source, tables):
        return False
    if not converts_something(source, tables):
        return False
    learnt = learn_source(source, tables)
    # it calls an accessor it defines, or one of them converts what it returns (CL004-style)
    return any(f".{name}(".encode() in source for name in learnt.names) or bool(learnt.converting)


def may_call_learned(path: str, source: bytes, tables: Tables) -> bool:
    """Does the file convert something and call an accessor that an engine it imports
    teaches (`engine_learned`)? Cheap text tests first."""
    packages = {name for name in tables.learn_packages if name.encode() in source}
    if not packages or b"import" not in source or not converts_something(source, tables):
        return False
    if not imported_packages(source, among=packages):
        return False
    return any(f".{a}(".encode() in source for a in engine_learned(path, source, tables)[0])


def learn_accessors(files: Iterable[str], tables: Tables) -> Tables:
    """tables with the accessors the files' pool classes define (unchanged when none)."""
    learnt: Dict[str, str] = {}
    for path in files:
        source = _read(path)
        if source is not None:
            learnt.update(learn_source(source, tables).accessors)
    return with_accessors(tables, learnt)


def _read(path: str) -> Optional[bytes]:
    try:
        with open(path, "rb") as fh:
            data = fh.read(_MAX_BYTES + 1)
    except OSError:
        return None
    return data if len(data) <= _MAX_BYTES else None


# -- an installed engine ---------------------------------------------------------------

_IMPORTS = re.compile(
    rb"^[ \t]*(?:from[ \t]+([A-Za-z_]\w*)[\w.]*[ \t]+import|import[ \t]+([A-Za-z_]\w*))", re.MULTILINE
)
_PACKAGES: Dict[str, Tuple[tuple, "PackageTable"]] = {}
_FRESH: Dict[str, tuple] = {}  # root -> (tables, when its files were last stat'ed, the table)
_FRESH_S = 30.0  # a package's files are stat'ed again after this long (long-lived processes)


@dataclasses.dataclass(frozen=True)
class PackageTable:
    root: str
    accessors: Tuple[Tuple[str, str], ...] = ()
    teachers: Tuple[Tuple[str, Tuple[str, ...]], ...] = ()  # (file, names it teaches)
    dtypes: Tuple[Tuple[str, Tuple[str, ...]], ...] = ()  # (accessor, its buffers' allocation dtype)


def imported_packages(source: bytes, among: Optional[Iterable[str]] = None) -> Set[str]:
    """The top-level packages source imports (`import a.b`, `from a.b import c`: `a`); among:
    only these (found from where their names occur, not by a scan of every line)."""
    if among is None:
        return {(m.group(1) or m.group(2)).decode("ascii", "replace") for m in _IMPORTS.finditer(source)}
    return {name for name in among if _imports(source, name.encode())}


_IMPORT_HEAD = re.compile(rb"[ \t]*(?:(from)|import)[ \t]+\Z")
_FROM_TAIL = re.compile(rb"[\w.]*[ \t]+import")


def _imports(source: bytes, name: bytes) -> bool:
    """Does a line of source start `import name` or `from name... import` (as _IMPORTS reads it)?"""
    at = source.find(name)
    while at >= 0:
        end = at + len(name)
        if end == len(source) or not (source[end : end + 1].isalnum() or source[end] == 0x5F):
            line = source.rfind(b"\n", 0, at) + 1
            head = _IMPORT_HEAD.match(source, line, at)
            if head is not None and (head.group(1) is None or _FROM_TAIL.match(source, end)):
                return True
        at = source.find(name, end)
    return False


def package_root(name: str, near: Optional[str] = None) -> Optional[str]:
    """The folder of top-level package `name`: an ancestor folder of `near` that is it (the
    checked tree is the engine), else the first sys.path entry that has it. Never imported."""
    if near is not None:
        folder = os.path.dirname(os.path.abspath(near))
        for _ in range(12):
            if os.path.basename(folder) == name and os.path.isfile(os.path.join(folder, "__init__.py")):
                return folder
            parent = os.path.dirname(folder)
            if parent == folder:
                break
            folder = parent
    for entry in sys.path:
        candidate = os.path.join(entry or os.getcwd(), name)
        if os.path.isfile(os.path.join(candidate, "__init__.py")):
            return os.path.abspath(candidate)
    return None


def _cache_dir() -> Optional[str]:
    where = os.environ.get("CASTLINT_LEARN_CACHE")
    if where in ("0", "off", "none"):
        return None
    if where:
        return where
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "castlint", "learned")


_CODE: List[str] = []


def _learning_code() -> str:
    """The digest of this module's source: a table learnt by other code (an upgrade, an
    editable install being edited) is never read back as this code's."""
    if not _CODE:
        try:
            with open(__file__, "rb") as fh:
                _CODE.append(hashlib.sha256(fh.read()).hexdigest()[:16])
        except OSError:
            _CODE.append("")
    return _CODE[0]


def package_table(root: str, tables: Tables) -> PackageTable:
    """What the pool classes of the package at root teach, once per process per version of its
    files, and cached on disk by file signature (path, size, mtime): a later run reads only the
    files that changed."""
    fresh = _FRESH.get(root)
    if fresh is not None and fresh[0] is tables and time.monotonic() - fresh[1] < _FRESH_S:
        return fresh[2]  # walked a moment ago (a run asks once per file)
    files = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "__pycache__")
        files.extend(os.path.join(folder, n) for n in sorted(names) if n.endswith(".py"))
        if len(files) > _MAX_PACKAGE_FILES:
            break
    signatures = []
    for path in files:
        try:
            st = os.stat(path)
        except OSError:
            continue
        signatures.append((path, st.st_size, st.st_mtime_ns))
    key = (tuple(signatures), tables.digest)
    hit = _PACKAGES.get(root)
    if hit is not None and hit[0] == key:
        _FRESH[root] = (tables, time.monotonic(), hit[1])
        return hit[1]
    store_dir = _cache_dir()
    store_path = None
    stored: Dict[str, list] = {}
    if store_dir is not None:
        name = hashlib.sha256(f"{root}\0{tables.digest}\0{_learning_code()}".encode()).hexdigest()[:24] + ".json"
        store_path = os.path.join(store_dir, name)
        try:
            with open(store_path, "r", encoding="utf-8") as fh:
                stored = json.load(fh).get("files", {})
        except (OSError, ValueError, AttributeError):
            stored = {}
    # path -> [size, mtime, a pool-class candidate, [[name, returns]], [[name, [dtype spellings]]]]
    per_file: Dict[str, list] = {}
    changed = False
    for path, size, mtime in signatures:
        entry = stored.get(path)
        if entry is not None and len(entry) == 5 and entry[0] == size and entry[1] == mtime:
            per_file[path] = entry
            continue
        changed = True
        source = _read(path) if size <= _MAX_BYTES else None
        maybe = source is not None and b"class" in source and b"return" in source
        learnt = learn_source(source, tables) if maybe else Learned()
        per_file[path] = [
            size,
            mtime,
            maybe,
            [list(p) for p in learnt.accessors],
            [[n, list(d)] for n, d in learnt.dtypes],
        ]
    if changed:  # accessors that delegate to one another module of the package teaches
        for _ in range(2):
            known = {n: r for e in per_file.values() for n, r in e[3]}
            if not known:
                break
            calls = re.compile(("\\.(?:" + "|".join(re.escape(n) for n in sorted(known)) + ")\\(").encode())
            again = False
            for path, entry in per_file.items():
                if not entry[2]:
                    continue
                source = _read(path)
                if source is None or not calls.search(source) or not candidate(source, tables, known):
                    continue
                found = learn_source(source, tables, known)
                learnt = [list(p) for p in found.accessors]
                if learnt != entry[3]:
                    entry[3] = learnt
                    entry[4] = [[n, list(d)] for n, d in found.dtypes]
                    again = True
            if not again:
                break
    accessors: Dict[str, str] = {n: r for e in per_file.values() for n, r in e[3]}
    teachers = tuple((p, tuple(n for n, _ in e[3])) for p, e in sorted(per_file.items()) if e[3])
    allocated: Dict[str, Optional[Tuple[str, ...]]] = {}
    for e in per_file.values():  # an accessor name two classes define: one dtype for both, or none
        for n, d in e[4]:
            allocated[n] = tuple(d) if allocated.get(n, tuple(d)) == tuple(d) else None
    learnt_names = {n for e in per_file.values() for n, _ in e[3]}
    for e in per_file.values():
        for n, _ in e[3]:
            if n not in {m for m, _ in e[4]}:
                allocated[n] = None  # some class's accessor of that name: dtype unknown
    dtypes = tuple(sorted((n, d) for n, d in allocated.items() if d and n in learnt_names))
    table = PackageTable(root, tuple(sorted(accessors.items())), teachers, dtypes)
    if changed and store_path is not None:
        try:
            os.makedirs(store_dir, exist_ok=True)
            tmp = f"{store_path}.{os.getpid()}.tmp"
            with open(tmp, "w", encoding="utf-8") as fh:
                json.dump({"root": root, "files": per_file}, fh)
            os.replace(tmp, store_path)
        except OSError:
            pass
    _PACKAGES[root] = (key, table)
    _FRESH[root] = (tables, time.monotonic(), table)
    return table


def engine_learned(path: str, source: bytes, tables: Tables) -> Tuple[Dict[str, str], List[str]]:
    """({accessor: returns}, the files that teach the ones source calls) that the engines
    of `[learn] packages` which source imports teach it: their pool classes, read from the
    package's folder (the checked tree's own, or the installed copy on sys.path)."""
    accessors, teachers, _ = engine_learned_dtypes(path, source, tables)
    return accessors, teachers


def engine_learned_dtypes(
    path: str, source: bytes, tables: Tables
) -> Tuple[Dict[str, str], List[str], Dict[str, Tuple[str, ...]]]:
    """engine_learned, and {accessor: the dtype spellings its buffers are allocated in}."""
    wanted = imported_packages(source, among=tables.learn_packages) if b"import" in source else set()
    accessors: Dict[str, str] = {}
    teachers: List[str] = []
    dtypes: Dict[str, Tuple[str, ...]] = {}
    for name in sorted(wanted):
        root = package_root(name, path)
        if root is None:
            continue
        table = package_table(root, tables)
        # the package's whole table (one tables object for every file of the package: the
        # per-tables caches of the analysis stay warm); the files that teach what this one calls
        # key its cached result
        accessors.update((a, r) for a, r in table.accessors if a not in tables.accessors)
        dtypes.update((a, d) for a, d in table.dtypes if a not in tables.accessors)
        used = {a for a, _ in table.accessors if f".{a}(".encode() in source}
        teachers.extend(
            p for p, names in table.teachers if used & set(names) and os.path.abspath(p) != os.path.abspath(path)
        )
    return accessors, teachers, dtypes
