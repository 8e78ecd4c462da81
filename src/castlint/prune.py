"""Cut a file down to the code a rule can fire on, before libcst sees it.

libcst's metadata (scopes, positions) costs far more than the text prefilter
saves: a 200 KB attention backend takes seconds. Most of such a file cannot
matter: a finding needs a dtype cast, helper or plan call whose operand may come
from a KV pool, and the analysis (castlint.analysis.dataflow) moves values only

- within one function (names, reaching assignments),
- within one class (``self.x`` assignments, ``self.method(arg)`` call sites,
  the hot-path call graph),
- from module-level statements (globals).

So, with the C parser (``ast``, ~20x faster than libcst), this module computes
an over-approximation of "may hold a pool" per top-level function or class: an
expression is *tainted* when it mentions an accessor call or cache attribute
from the tables, a tainted name (any identifier assigned a tainted value
anywhere in that function or class), a tainted ``self.x``, or a parameter of a
method that some ``self.method(...)`` call passes a tainted argument. Every
value the dataflow analysis calls a pool or a gather of one is tainted.

It then keeps, verbatim and at their own line numbers:

- every module-level statement that is not a def or class;
- every class body statement that is not a method;
- every method or function that holds a candidate (a cast whose receiver is
  tainted, a conversion helper given a tainted argument, any attention
  ``plan``-like call: then the whole class), assigns a tainted value to
  ``self.x``, or passes a tainted argument to ``self.method(...)``;

and replaces every other def by a one-line stub of the same name (so scopes see
the same bindings). Dropped methods hold only untainted values, whose origin is
OTHER, so dropping them changes no origin. What they still feed, the pruned tree
cannot show, is handed over explicitly: the hot-path call graph of a partly
pruned class (``hot_hints``) and the identifiers they mention
(``dropped_names``), which some rules test module-wide.

Whenever in doubt (a ``global`` statement, a pool mentioned at module level, a
BOM, a file ``ast`` cannot parse) the plan is FULL: analyse the whole file.
tests/test_corpus.py checks that pruned and whole-file analysis give the same
findings on every file of several sglang releases.
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from typing import Dict, FrozenSet, List, Optional, Set, Tuple

from castlint.tables import Tables

FULL = "full"  # analyse the whole file
NOTHING = "nothing"  # no rule can fire: no need to parse with libcst
PRUNED = "pruned"

HOT_PATH_FUNCTIONS = ("forward", "forward_decode", "forward_extend", "__call__")  # as in analysis.dataflow
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)
_NEWLINE = re.compile(r"\r\n|\r|\n")
KEEP_RATIO = 0.9  # prune only when it drops at least a tenth of the file


@dataclass
class Pruned:
    text: str
    line_map: List[int]  # line_map[pruned line] = line in the file (index 0 unused)
    hot_hints: Dict[Tuple[str, int], FrozenSet[str]] = field(default_factory=dict)
    dropped_names: Set[str] = field(default_factory=set)
    dropped_attr_names: Set[str] = field(default_factory=set)


@dataclass
class Plan:
    kind: str
    pruned: Optional[Pruned] = None
    reason: str = ""
    error: Optional[SyntaxError] = None  # what ast said, when it could not parse the file


class _Words:
    """What the tables make interesting, as plain sets (built once per Tables)."""

    def __init__(self, tables: Tables):
        self.accessors = frozenset(tables.accessors)
        self.cache_attributes = frozenset(tables.cache_attributes)
        self.casts = frozenset(tables.casts)
        self.helpers = frozenset(tables.conversion_helpers)
        # methods through which ModuleAnalysis.origin follows the receiver
        self.through_methods = frozenset(set(tables.gather_methods) | set(tables.view_methods)
                                         | set(tables.reinterpret_methods) | set(tables.casts))
        # functions through which it follows the first argument (by their last name part)
        self.through_functions = frozenset({f.rsplit(".", 1)[-1] for f in tables.gather_functions}
                                           | {f.rsplit(".", 1)[-1] for f in tables.view_functions})
        methods, functions = set(), set()
        for wrapper in tables.wrappers:
            if wrapper.function:
                functions.add(wrapper.cls)
            else:
                methods.update(wrapper.methods)
        self.wrapper_methods = frozenset(methods)
        self.wrapper_functions = frozenset(functions)
        # a def or class whose text has none of these cannot hold a candidate
        self.gate_words = tuple(sorted({word.encode() for word in
                                        set(self.accessors) | set(self.cache_attributes) | methods | functions}))


def _words(tables: Tables) -> _Words:
    """The word sets for these tables, built once and kept on the Tables object."""
    words = getattr(tables, "_castlint_prune_words", None)
    if words is None:
        words = _Words(tables)
        try:
            tables._castlint_prune_words = words
        except AttributeError:  # a Tables with __slots__: rebuild each time
            pass
    return words


_FIELDS: Dict[type, Tuple[str, ...]] = {}
_SKIP_FIELDS = {"ctx", "type_comment", "id", "arg", "attr", "value_str", "kind", "level", "is_async", "conversion"}


def _walk(root: ast.AST, skip: tuple = ()):
    """ast.walk, depth first and about twice as fast (order does not matter here).
    Nodes of the types in skip (below the root) are left out with their subtrees."""
    stack = [root]
    pop, push, AST = stack.pop, stack.append, ast.AST
    fields = _FIELDS
    while stack:
        node = pop()
        if skip and node is not root and isinstance(node, skip):
            continue
        yield node
        names = fields.get(type(node))
        if names is None:
            names = fields[type(node)] = tuple(f for f in node._fields if f not in _SKIP_FIELDS)
        for name in names:
            value = getattr(node, name, None)
            if type(value) is list:
                for item in value:
                    if isinstance(item, AST):
                        push(item)
            elif isinstance(value, AST):
                push(value)


class _Refs:
    __slots__ = ("names", "attrs", "base")

    def __init__(self):
        self.names: Set[str] = set()
        self.attrs: Set[str] = set()  # x of self.x
        self.base = False  # an accessor call or a cache attribute


def _refs(node: ast.AST, w: _Words, aliases=frozenset()) -> _Refs:
    """What an expression's origin (ModuleAnalysis._origin) can depend on."""
    out = _Refs()
    _flow(node, w, aliases, out)
    return out


def _flow(node: ast.AST, w: _Words, aliases, out: _Refs) -> None:
    while True:
        t = type(node)
        if t is ast.Name:
            out.names.add(node.id)
            return
        if t is ast.Attribute:
            if node.attr in w.cache_attributes:
                out.base = True
            if type(node.value) is ast.Name and node.value.id == "self":
                out.attrs.add(node.attr)
            return  # the origin of obj.x is not that of obj
        if t is ast.Call:
            func = node.func
            through_args = False
            if type(func) is ast.Attribute:
                if func.attr in w.accessors:
                    out.base = True
                through_args = func.attr in w.through_functions
                if func.attr in w.through_methods:
                    if through_args:
                        for arg in list(node.args) + [k.value for k in node.keywords]:
                            _flow(arg, w, aliases, out)
                    node = func.value
                    continue
            elif type(func) is ast.Name:
                through_args = func.id in w.through_functions or func.id in aliases
            if through_args:
                for arg in list(node.args) + [k.value for k in node.keywords]:
                    _flow(arg, w, aliases, out)
            return
        if t is ast.Subscript:
            node = node.value
            continue
        if t is ast.IfExp:
            _flow(node.body, w, aliases, out)
            node = node.orelse
            continue
        if t in (ast.Tuple, ast.List):
            for element in node.elts:
                if type(element) is not ast.Starred:
                    _flow(element, w, aliases, out)
            return
        return


def _base_only(node: ast.AST, w: _Words) -> bool:
    for n in _walk(node):
        t = type(n)
        if t is ast.Attribute and n.attr in w.cache_attributes:
            return True
        if t is ast.Call:
            func = n.func
            name = func.attr if type(func) is ast.Attribute else func.id if type(func) is ast.Name else None
            if name in w.accessors:
                return True
    return False


class _Unit:
    """One method or top-level function (or a class body's other statements).

    Names are local to a unit (a method sees its own locals and module globals,
    never another method's), so each unit has its own tainted names; self
    attributes are shared by the units of a class."""

    __slots__ = ("node", "assigns", "self_calls", "casts", "helpers", "plans", "names", "globals", "self_attrs")

    def __init__(self, node):
        self.node = node
        self.assigns: List[Tuple[Set[str], Set[str], _Refs]] = []  # target names, target self attrs, value
        # self.method(...) calls: method, [(position, argument)], [(keyword, argument)]
        self.self_calls: List[Tuple[str, List[Tuple[int, _Refs]], List[Tuple[str, _Refs]]]] = []
        self.casts: List[_Refs] = []  # receivers of dtype-cast calls
        self.helpers: List[List[_Refs]] = []
        self.plans = 0
        self.names: Set[str] = set()  # tainted names
        self.globals: Set[str] = set()  # names declared global in it
        self.self_attrs: Set[str] = set()  # every x of self.x it mentions


# function name -> (unit defining it, its positional parameters as _param_origin counts them)
Params = Dict[str, List[Tuple[_Unit, List[str]]]]


def _targets(node: ast.AST, names: Set[str], attrs: Set[str]) -> None:
    for n in _walk(node):
        if type(n) is ast.Name:
            names.add(n.id)
        elif type(n) is ast.Attribute and type(n.value) is ast.Name and n.value.id == "self":
            attrs.add(n.attr)


def _collect(unit: _Unit, w: _Words, params: Params, aliases=frozenset()) -> None:
    # Only what ModuleAnalysis.assigned_value follows: =, annotated = and :=
    # (a for/with/except target or an augmented assignment has origin OTHER).
    for n in _walk(unit.node):
        t = type(n)
        if t is ast.Assign:
            names, attrs = set(), set()
            for target in n.targets:
                _targets(target, names, attrs)
            unit.assigns.append((names, attrs, _refs(n.value, w, aliases)))
        elif t in (ast.AnnAssign, ast.NamedExpr):
            if n.value is not None:
                names, attrs = set(), set()
                _targets(n.target, names, attrs)
                unit.assigns.append((names, attrs, _refs(n.value, w, aliases)))
        elif t in _DEFS:
            # ModuleAnalysis._param_origin: the regular parameters, less a leading self/cls
            positional = [p.arg for p in n.args.args]
            if positional and positional[0] in ("self", "cls"):
                positional = positional[1:]
            params.setdefault(n.name, []).append((unit, positional))
        elif t is ast.Global:
            unit.globals.update(n.names)
        elif t is ast.Attribute:
            if type(n.value) is ast.Name and n.value.id == "self":
                unit.self_attrs.add(n.attr)
        elif t is ast.Call:
            func = n.func
            if type(func) is ast.Attribute:
                name = func.attr
                if name in w.casts:
                    unit.casts.append(_refs(func.value, w, aliases))
                if type(func.value) is ast.Name and func.value.id == "self":
                    # keyword names too: a lambda's parameter takes its origin from a
                    # keyword argument of the same name (see ModuleAnalysis._param_origin)
                    # a positional argument's index is the same in libcst's Call.args (no
                    # positional argument can follow a keyword one); *args and **kwargs
                    # are skipped by _param_origin
                    unit.self_calls.append((
                        name,
                        [(i, _refs(a, w, aliases)) for i, a in enumerate(n.args) if type(a) is not ast.Starred],
                        [(k.arg, _refs(k.value, w, aliases)) for k in n.keywords if k.arg]))
                if name in w.wrapper_methods:
                    unit.plans += 1
            elif type(func) is ast.Name:
                name = func.id
                if name in w.wrapper_functions:
                    unit.plans += 1
            else:
                name = None
            if name in w.helpers:
                unit.helpers.append([_refs(a, w, aliases) for a in n.args] + [_refs(k.value, w, aliases) for k in n.keywords])


def _tainted(r: _Refs, unit: _Unit, attrs: Set[str]) -> bool:
    return r.base or bool(r.names & unit.names) or bool(r.attrs & attrs)


def _taint(units: List[_Unit], params: Params) -> Set[str]:
    """Fill each unit's tainted names; return the tainted self attributes."""
    attrs: Set[str] = set()
    changed = True
    while changed:
        changed = False
        for unit in units:
            for target_names, target_attrs, value in unit.assigns:
                if _tainted(value, unit, attrs) and not (target_names <= unit.names and target_attrs <= attrs):
                    unit.names |= target_names
                    attrs |= target_attrs
                    changed = True
            for method, positional, keywords in unit.self_calls:
                targets = set()
                for callee, names in params.get(method, ()):
                    for i, arg in positional:
                        if i < len(names) and _tainted(arg, unit, attrs):
                            targets.add((callee, names[i]))
                    for keyword, arg in keywords:
                        # a parameter, or a lambda parameter, of that name
                        if _tainted(arg, unit, attrs):
                            targets.add((callee, keyword))
                for callee, name in targets:
                    if name not in callee.names:
                        callee.names.add(name)
                        changed = True
    return attrs


def _has_site(unit: _Unit, attrs: Set[str]) -> bool:
    """Does the unit hold a call a rule may flag?"""
    return unit.plans > 0 or any(_tainted(r, unit, attrs) for r in unit.casts) or any(
        any(_tainted(a, unit, attrs) for a in args) for args in unit.helpers)


def _feeds(unit: _Unit, attrs: Set[str], need_attrs: Set[str], need_methods: Set[str]) -> bool:
    """Does the unit give a tainted value to a self attribute or a method that is needed?"""
    for _, t_attrs, value in unit.assigns:
        if t_attrs & need_attrs and _tainted(value, unit, attrs):
            return True
    for method, positional, keywords in unit.self_calls:
        if method in need_methods and (any(_tainted(a, unit, attrs) for _, a in positional)
                                       or any(_tainted(a, unit, attrs) for _, a in keywords)):
            return True
    return False


def _taints_globals(unit: _Unit, attrs: Set[str]) -> bool:
    return bool(unit.globals) and any(names & unit.globals and _tainted(v, unit, attrs)
                                      for names, _, v in unit.assigns)


def _import_aliases(tree: ast.AST, source: bytes, w: _Words) -> frozenset:
    """Names under which the module imports a function origin() follows (torch.gather as g)."""
    if b"import" not in source or not any(name.encode() in source for name in w.through_functions):
        return frozenset()
    out = set()
    stack = list(tree.body)
    while stack:  # statements only: an import is never inside an expression
        node = stack.pop()
        t = type(node)
        if t is ast.ImportFrom:
            for alias in node.names:
                if alias.name in w.through_functions:
                    out.add(alias.asname or alias.name)
        elif t is ast.Import:
            for alias in node.names:
                if alias.asname and alias.name.rsplit(".", 1)[-1] in w.through_functions:
                    out.add(alias.asname)
        else:
            for name in ("body", "orelse", "finalbody", "handlers", "cases"):
                children = getattr(node, name, None)
                if children:
                    stack.extend(children)
    return frozenset(out)


def _first_line(node) -> int:
    decorators = getattr(node, "decorator_list", None)
    return min([node.lineno] + [d.lineno for d in decorators]) if decorators else node.lineno


def _hot_set(cls: ast.ClassDef) -> FrozenSet[str]:
    """ModuleAnalysis.hot_functions, computed on the whole class."""
    methods = {}
    for stmt in cls.body:
        if isinstance(stmt, _DEFS):
            methods[stmt.name] = stmt
    hot = {name for name in methods if name in HOT_PATH_FUNCTIONS}
    calls_by_method: Dict[str, List[str]] = {}
    for stmt in cls.body:
        if isinstance(stmt, _DEFS):
            out = calls_by_method.setdefault(stmt.name, [])
            for n in _walk(stmt, skip=_DEFS):  # the method, less the functions nested in it
                if type(n) is ast.Call and type(n.func) is ast.Attribute and type(n.func.value) is ast.Name \
                        and n.func.value.id == "self":
                    out.append(n.func.attr)
    frontier = list(hot)
    while frontier:
        for callee in calls_by_method.get(frontier.pop(), ()):
            if callee in methods and callee not in hot:
                hot.add(callee)
                frontier.append(callee)
    return frozenset(hot)


def _identifiers(node: ast.AST, names: Set[str], attrs: Set[str]) -> None:
    """The identifiers libcst would hold as Name (and Attribute.attr) nodes under node."""
    for n in _walk(node):
        t = type(n)
        if t is ast.Name:
            names.add(n.id)
        elif t is ast.Attribute:
            names.add(n.attr)
            attrs.add(n.attr)
        elif t in _DEFS or t is ast.ClassDef:
            names.add(n.name)
        elif t is ast.arg:
            names.add(n.arg)
        elif t is ast.keyword:
            if n.arg:
                names.add(n.arg)
        elif t is ast.alias:
            parts = n.name.split(".")
            names.update(p for p in parts if p != "*")
            attrs.update(parts[1:])
            if n.asname:
                names.add(n.asname)
        elif t is ast.ImportFrom:
            if n.module:
                parts = n.module.split(".")
                names.update(parts)
                attrs.update(parts[1:])
        elif t in (ast.Global, ast.Nonlocal):
            names.update(n.names)
        elif t is ast.ExceptHandler:
            if n.name:
                names.add(n.name)
        elif t in (ast.MatchAs, ast.MatchStar):
            if n.name:
                names.add(n.name)
        elif t is ast.MatchMapping:
            if n.rest:
                names.add(n.rest)
        elif t is ast.MatchClass:
            names.update(n.kwd_attrs)


def _stub(line: str, node) -> str:
    indent = line[: len(line) - len(line.lstrip(" \t\f"))]
    if isinstance(node, ast.ClassDef):
        return f"{indent}class {node.name}: pass"
    prefix = "async def" if isinstance(node, ast.AsyncFunctionDef) else "def"
    return f"{indent}{prefix} {node.name}(): pass"


def plan(source: bytes, tables: Tables, keep_ratio: float = KEEP_RATIO) -> Plan:
    """How to analyse this file: FULL, NOTHING (no candidate at all) or PRUNED."""
    try:
        return _plan(source, tables, keep_ratio)
    except RecursionError:  # absurdly nested code: let the whole-file analysis decide
        return Plan(FULL, reason="too deeply nested to plan")


def _plan(source: bytes, tables: Tables, keep_ratio: float) -> Plan:
    if source.startswith(b"\xef\xbb\xbf"):
        return Plan(FULL, reason="byte-order mark")
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        return Plan(FULL, reason="ast cannot parse it: libcst decides", error=exc)
    except (ValueError, RecursionError, MemoryError, OverflowError):
        return Plan(FULL, reason="ast cannot parse it: libcst decides")
    w = _words(tables)
    aliases = _import_aliases(tree, source, w)
    any_site = False
    for stmt in tree.body:
        if isinstance(stmt, _DEFS + (ast.ClassDef,)):
            continue
        # Module level: globals flow everywhere, so any pool (or plan) here means FULL.
        if _base_only(stmt, w):
            return Plan(FULL, reason="a pool is named at module level")
        unit = _Unit(stmt)
        _collect(unit, w, {}, aliases)
        if unit.plans or unit.helpers or unit.casts and any(r.base for r in unit.casts):
            return Plan(FULL, reason="a candidate at module level")
    decisions: List[Tuple[ast.AST, bool]] = []  # (def or method node, keep)
    hot_hints: Dict[Tuple[str, int], FrozenSet[str]] = {}
    offsets = [0]
    for line in source.splitlines(keepends=True):
        offsets.append(offsets[-1] + len(line))
    for stmt in tree.body:
        if isinstance(stmt, _DEFS + (ast.ClassDef,)):
            # Nothing is tainted in a def or class that names no pool (the module level
            # names none either), so without a plan-like call or a global it cannot matter.
            first, last = _first_line(stmt), stmt.end_lineno
            segment = source[offsets[first - 1]:offsets[min(last, len(offsets) - 1)]]
            if not any(word in segment for word in w.gate_words) and b"global" not in segment:
                decisions.append((stmt, False))
                continue
        if isinstance(stmt, _DEFS):
            params: Params = {}
            unit = _Unit(stmt)
            _collect(unit, w, params, aliases)
            attrs = _taint([unit], params)
            if _taints_globals(unit, attrs):
                return Plan(FULL, reason="a global is assigned a pool")
            site = _has_site(unit, attrs)
            any_site |= site
            # a def that declares a global assigns a module-level name: keep it
            decisions.append((stmt, site or bool(unit.globals)))
        elif isinstance(stmt, ast.ClassDef):
            params = {}
            methods = [_Unit(s) for s in stmt.body if isinstance(s, _DEFS)]
            rest = _Unit(stmt)  # decorators, bases and non-method statements
            rest_nodes = list(stmt.decorator_list) + list(stmt.bases) + list(stmt.keywords) + \
                [s for s in stmt.body if not isinstance(s, _DEFS)]
            for m in methods:
                _collect(m, w, params, aliases)
            for n in rest_nodes:
                part = _Unit(n)
                _collect(part, w, params, aliases)
                for p_name, entries in params.items():  # parameters of defs nested in class statements
                    params[p_name] = [(rest if u is part else u, ps) for u, ps in entries]
                rest.assigns += part.assigns
                rest.self_calls += part.self_calls
                rest.casts += part.casts
                rest.helpers += part.helpers
                rest.plans += part.plans
                rest.globals |= part.globals
                rest.self_attrs |= part.self_attrs
            units = methods + [rest]
            attrs = _taint(units, params)
            if any(_taints_globals(u, attrs) for u in units):
                return Plan(FULL, reason="a global is assigned a pool")
            sites = [_has_site(m, attrs) for m in methods]
            rest_site = _has_site(rest, attrs)
            plans = rest.plans + sum(m.plans for m in methods)
            class_site = rest_site or any(sites)
            any_site |= class_site
            globals_used = any(u.globals for u in units)
            if not class_site and not globals_used:
                decisions.append((stmt, False))
                continue
            # Keep the methods with a site, and what their sites' values can come from:
            # methods assigning a tainted self.x they read, methods passing a tainted
            # argument to them (and so on), and methods that declare a global.
            keep = [s or bool(m.globals) for m, s in zip(methods, sites)]
            changed = True
            while changed:
                changed = False
                need_attrs = set().union(*(m.self_attrs for m, k in zip(methods, keep) if k), rest.self_attrs) & attrs
                need_methods = {m.node.name for m, k in zip(methods, keep) if k}
                for i, m in enumerate(methods):
                    if not keep[i] and _feeds(m, attrs, need_attrs, need_methods):
                        keep[i] = True
                        changed = True
            if rest.plans:
                decisions.append((stmt, True))
                continue
            if plans:
                # CL002 resolves a plan's dtype arguments (and its receiver's class)
                # through the self.x they mention and what those are assigned from:
                # keep every method that assigns one of them, transitively.
                needed: Set[str] = set(rest.self_attrs)
                for i, m in enumerate(methods):
                    if m.plans:
                        keep[i] = True
                        needed |= m.self_attrs
                changed = True
                while changed:
                    changed = False
                    for i, m in enumerate(methods):
                        if any(t_attrs & needed for _, t_attrs, _ in m.assigns):
                            if not keep[i]:
                                keep[i] = True
                                changed = True
                            if not m.self_attrs <= needed:
                                needed |= m.self_attrs
                                changed = True
            decisions.append((stmt, True))  # header and non-method statements
            if all(keep):
                continue
            for m, k in zip(methods, keep):
                decisions.append((m.node, k))
            hot_hints[(stmt.name, stmt.lineno)] = _hot_set(stmt)
    if not any_site:
        return Plan(NOTHING, reason="no candidate site")
    text = source.decode(_encoding(source))
    parts = _NEWLINE.split(text)
    seps = _NEWLINE.findall(text)
    lines = [p + (seps[i] if i < len(seps) else "") for i, p in enumerate(parts)]  # 0-based
    drop: Dict[int, Tuple[int, ast.AST]] = {}  # first line -> (last line, node)
    for node, keep in decisions:
        if not keep:
            drop[_first_line(node)] = (node.end_lineno, node)
    if not drop:
        return Plan(FULL, reason="every def holds a candidate")
    dropped = sum(last - first + 1 for first, (last, _) in drop.items())
    if len(lines) and (len(lines) - dropped) > keep_ratio * len(lines):
        return Plan(FULL, reason="pruning would keep most of the file")
    out: List[str] = []
    line_map = [0]
    names: Set[str] = set()
    attrs: Set[str] = set()
    i = 1
    n_lines = len(lines)
    while i <= n_lines:
        if i in drop:
            last, node = drop[i]
            newline = _NEWLINE.search(lines[last - 1])
            out.append(_stub(lines[i - 1], node) + (newline.group(0) if newline else "\n"))
            line_map.append(node.lineno)
            _identifiers(node, names, attrs)
            i = last + 1
            continue
        out.append(lines[i - 1])
        line_map.append(i)
        i += 1
    line_map.append(n_lines + 1)  # libcst may place an end position one line past the text
    return Plan(PRUNED, Pruned("".join(out), line_map, hot_hints, names, attrs))


def _encoding(source: bytes) -> str:
    import io
    import tokenize

    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(source).readline)
    except SyntaxError:
        return "utf-8"
    return encoding
