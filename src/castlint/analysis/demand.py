"""Which imported names a module's own sites need: linking per use, not per import.

`follow-imports = "uses"` (the default) links a definition of another module of the tree
only when a value that reaches one of the module's own sites can come from it. The sites
are the analysis's (castlint.triggers' vocabulary, read from the tables): the receiver and
arguments of a cast or copy method, the arguments of a conversion helper, the arguments of
an attention wrapper's plan call, and the arguments of a call of an imported function that
converts or plans (a generic helper given the pool, a plan helper: `acts` answers for a name). From each site
the value is followed backwards through the function's local assignments, `self.x`
attributes assigned anywhere in the class (and the parameter annotations they come from),
the returns of the class's own methods it calls; a `self.m(...)` the class does not
define, a `self.x` it never assigns, or a `super()` call demands the class's bases.

The answer is the set of names (`f`, `mod.f`, `pkg.mod.Cls`) those values read: a
superset of what the flow model can follow from the sites, so linking only those keeps
every finding linking can give, while a file that imports half the tree and converts one
local tensor links nothing. One `ast` walk per function; the module's tree is the one the
tree index already parsed.
"""

from __future__ import annotations

import ast
from typing import Callable, Dict, FrozenSet, List, Optional, Set, Tuple

from castlint.common import pyast
from castlint.tables import Tables

_VOCABULARY: Dict[int, tuple] = {}


def _vocabulary(tables: Tables) -> Tuple[FrozenSet[str], FrozenSet[str], FrozenSet[str], FrozenSet[str]]:
    """(cast and copy methods, conversion helper names, plan methods, plan functions)."""
    hit = _VOCABULARY.get(id(tables))
    if hit is None or hit[0] is not tables:
        methods = frozenset(set(tables.casts) | set(tables.copy_methods))
        helpers = frozenset(name.rpartition(".")[2] for name in tables.conversion_helpers)
        plan_methods = frozenset(m for w in tables.wrappers if not w.function for m in w.methods)
        plan_functions = frozenset(w.cls.rpartition(".")[2] for w in tables.wrappers if w.function)
        hit = _VOCABULARY[id(tables)] = (tables, (methods, helpers, plan_methods, plan_functions))
    return hit[1]


def _is_self(node) -> bool:
    return isinstance(node, ast.Name) and node.id in ("self", "cls")


class _Function:
    """One function's local assignments, parameters and their annotations."""

    def __init__(self, node, owner: Optional["_Class"]):
        self.node = node
        self.owner = owner
        self.assigned: Dict[str, List[ast.AST]] = {}
        self.annotations: Dict[str, ast.AST] = {}
        args = node.args
        for a in (*args.posonlyargs, *args.args, *args.kwonlyargs, *filter(None, (args.vararg, args.kwarg))):
            if a.annotation is not None:
                self.annotations[a.arg] = a.annotation
        self.returns: List[ast.AST] = []
        self.calls: List[ast.Call] = []
        for sub in _own_nodes(node):
            if isinstance(sub, ast.Assign):
                for target in sub.targets:
                    self._bind(target, sub.value)
            elif isinstance(sub, ast.AnnAssign):
                self._bind(sub.target, sub.annotation)  # `self.pool: Pool = runner.pool`
                if sub.value is not None:
                    self._bind(sub.target, sub.value)
            elif isinstance(sub, ast.AugAssign):
                self._bind(sub.target, sub.value)
            elif isinstance(sub, ast.NamedExpr):
                self._bind(sub.target, sub.value)
            elif isinstance(sub, (ast.For, ast.AsyncFor, ast.comprehension)):
                self._bind(sub.target, sub.iter)
            elif isinstance(sub, ast.withitem) and sub.optional_vars is not None:
                self._bind(sub.optional_vars, sub.context_expr)
            elif isinstance(sub, (ast.Return, ast.Yield, ast.YieldFrom)) and sub.value is not None:
                self.returns.append(sub.value)
            elif isinstance(sub, ast.Call):
                self.calls.append(sub)

    def _bind(self, target, value) -> None:
        for sub in ast.walk(target):
            if isinstance(sub, ast.Name):
                self.assigned.setdefault(sub.id, []).append(value)
            elif isinstance(sub, ast.Attribute) and _is_self(sub.value) and self.owner is not None:
                self.owner.attributes.setdefault(sub.attr, []).append((value, self))


class _Class:
    def __init__(self, node):
        self.node = node
        self.bases = [b for b in node.bases]
        self.methods: Dict[str, ast.AST] = {}
        self.attributes: Dict[str, List[Tuple[ast.AST, _Function]]] = {}
        self._scanned = False
        self.class_level: Set[str] = set()
        for statement in node.body:
            if isinstance(statement, (ast.Assign, ast.AnnAssign)):
                targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
                for target in targets:
                    if isinstance(target, ast.Name):
                        self.class_level.add(target.id)

    def attributes_of(self, name: str, of) -> List[Tuple[ast.AST, "_Function"]]:
        """The values assigned to `self.name` in the class's methods (read once per class)."""
        if not self._scanned:
            self._scanned = True
            for method in self.methods.values():
                of(method)  # (_Function binds self attributes on its owner)
        return self.attributes.get(name, [])


def _own_nodes(function):
    """The nodes of a function's body, not those of functions or classes nested in it."""
    stack = list(function.body)
    while stack:
        node = stack.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
                stack.append(child)
            elif isinstance(child, ast.Lambda):
                stack.append(child.body)


def demanded(tree, tables: Tables, acts: Callable[[str], bool]) -> FrozenSet[str]:
    """The names (and dotted names) that values reaching the module's sites read (see the
    module's doc). acts(name): does the imported definition `name` convert what it is given, or plan?
    A name counts when the slice calls it (`f(...)`, `mod.f(...)`, `self.x.m(...)` for the
    class of `self.x`), names it as a base, or annotates a value a method is called on."""
    methods, helpers, plan_methods, plan_functions = _vocabulary(tables)
    owners: Dict[int, Optional[_Class]] = {}  # id(function node) -> its class
    built: Dict[int, _Function] = {}
    sites: List[Tuple[ast.Call, ast.AST]] = []

    def visit(body, owner: Optional[_Class], function) -> None:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                owners[id(node)] = owner
                if owner is not None:
                    owner.methods.setdefault(node.name, node)
                visit(node.body, None, node)
            elif isinstance(node, ast.ClassDef):
                visit(node.body, _Class(node), None)
            else:
                if function is not None:
                    for sub in ast.walk(node):
                        if isinstance(sub, ast.Call):
                            sites.append((sub, function))
                for field in ("body", "orelse", "finalbody"):
                    inner = getattr(node, field, None)
                    if isinstance(inner, list) and function is None:
                        visit(inner, owner, None)

    visit(tree.body, None, None)

    def of(node) -> _Function:
        function = built.get(id(node))
        if function is None:
            function = built[id(node)] = _Function(node, owners.get(id(node)))
        return function

    out: Set[str] = set()
    seen: Set[Tuple[int, int, bool]] = set()
    work: List[Tuple[ast.AST, _Function, bool]] = []

    def push(expr, function: _Function, receiver: bool = False) -> None:
        key = (id(expr), id(function), receiver)
        if key not in seen:
            seen.add(key)
            work.append((expr, function, receiver))

    def names(expr) -> None:
        for sub in ast.walk(expr):
            name = pyast.dotted(sub)
            if name:
                out.add(name)

    def bases_of(owner: _Class) -> None:
        for base in owner.bases:
            names(base)

    for call, node in sites:
        func = call.func
        leaf = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        arguments = [*call.args, *(k.value for k in call.keywords)]
        if isinstance(func, ast.Attribute) and leaf in methods:
            function = of(node)
            push(func.value, function)
            for argument in arguments:
                push(argument, function)
        elif leaf in helpers or leaf in plan_functions or (isinstance(func, ast.Attribute) and leaf in plan_methods):
            function = of(node)
            for argument in arguments:
                push(argument, function)
        else:
            name = pyast.dotted(func)
            if name and "." not in name or (name and not _is_self(func.value)):
                if acts(name):
                    out.add(name)
                    function = of(node)
                    for argument in arguments:
                        push(argument, function)
    while work:
        expr, function, receiver = work.pop()
        owner = function.owner
        if receiver:  # a method is called on it: the class it holds matters
            if isinstance(expr, ast.Name):
                annotation = function.annotations.get(expr.id)
                if annotation is not None:
                    names(annotation)
                values = function.assigned.get(expr.id, ())
                for value in values:
                    push(value, function, True)
                if annotation is None and not values:
                    out.add(expr.id)  # a class or module-level name (an annotation's)
            elif isinstance(expr, ast.Attribute) and _is_self(expr.value) and owner is not None:
                for value, where in owner.attributes_of(expr.attr, of):
                    push(value, where, True)
            elif isinstance(expr, ast.Call):
                push(expr, function)
            elif not isinstance(expr, ast.Attribute):
                names(expr)  # an annotation
            continue
        for sub in ast.walk(expr):
            if isinstance(sub, ast.Name):
                for value in function.assigned.get(sub.id, ()):
                    push(value, function)
            elif isinstance(sub, ast.Call):
                func = sub.func
                name = pyast.dotted(func)
                if isinstance(func, ast.Name) and func.id == "super":
                    if owner is not None:
                        bases_of(owner)
                    continue
                if name:
                    out.add(name)
                if isinstance(func, ast.Attribute):
                    push(func.value, function, True)
                    if _is_self(func.value) and owner is not None:
                        method = owner.methods.get(func.attr)
                        if method is not None:
                            inner = of(method)
                            for value in inner.returns:
                                push(value, inner)
                        elif func.attr not in owner.class_level:
                            bases_of(owner)  # a method a base defines
            elif isinstance(sub, ast.Attribute) and _is_self(sub.value) and owner is not None:
                attributes = owner.attributes_of(sub.attr, of)
                for value, where in attributes:
                    push(value, where)
                if not attributes and sub.attr not in owner.methods and sub.attr not in owner.class_level:
                    bases_of(owner)  # a member a base sets
    return frozenset(out)
