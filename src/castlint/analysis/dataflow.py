"""Follow values through assignments on the libcst tree.

`ModuleAnalysis.origin(expr)` answers: is this expression a whole KV pool
(every slot of a layer), a gather of some slots of one, or something else? It
follows names to every reaching assignment (ScopeProvider), `self.x` to its
assignments anywhere in the class, and a method parameter to the arguments
passed at `self.method(...)` call sites in the same class.
"""
from __future__ import annotations

from enum import IntEnum
from typing import Dict, List, Optional, Sequence, Tuple

import libcst as cst
from libcst.metadata import (
    Assignment,
    CodePosition,
    CodeRange,
    ParentNodeProvider,
    PositionProvider,
    QualifiedNameProvider,
    ScopeProvider,
)

from castlint.tables import Tables


class Origin(IntEnum):
    """Ordered so that max() over several reaching assignments picks the worst."""

    OTHER = 0
    GATHERED = 1  # some slots of a pool: batch-sized
    POOL_TUPLE = 2  # several whole pools at once (get_kv_buffer)
    POOL = 3  # a whole pool, or a view of one


HOT_PATH_FUNCTIONS = ("forward", "forward_decode", "forward_extend", "__call__")
MAX_DEPTH = 12


def iter_nodes(node: cst.CSTNode, kind):
    """Every node of type kind in the subtree (libcst.matchers costs 0.15 s to import)."""
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, kind):
            yield current
        stack.extend(reversed(current.children))


def dotted(node: cst.CSTNode) -> Optional[str]:
    """`a.b.c` for Name/Attribute chains, else None."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        base = dotted(node.value)
        return None if base is None else f"{base}.{node.attr.value}"
    return None


def _resolve_scopes(wrapper: cst.MetadataWrapper):
    """wrapper.resolve(ScopeProvider), without two idle walks of the tree.

    ScopeProvider and the ExpressionContextProvider it depends on are batchable
    providers whose work happens in visit_Module (each runs its own visitor), so
    resolving them through the wrapper walks the whole tree twice more for
    nothing; this runs their visitors directly. Falls back to the wrapper if
    libcst's internals differ."""
    try:
        from libcst.metadata import ExpressionContextProvider
        from libcst.metadata.expression_context_provider import ExpressionContext, ExpressionContextVisitor
        from libcst.metadata.scope_provider import ScopeVisitor

        contexts = ExpressionContextProvider()
        wrapper.module.visit(ExpressionContextVisitor(contexts, ExpressionContext.LOAD))
        provider = ScopeProvider()
        provider.metadata = {ExpressionContextProvider: contexts._computed}
        visitor = ScopeVisitor(provider)
        wrapper.module.visit(visitor)
        visitor.infer_accesses()
        provider.metadata = {}
        return provider._computed
    except (ImportError, AttributeError, TypeError):
        return wrapper.resolve(ScopeProvider)


class ModuleAnalysis:
    METADATA = (ScopeProvider, ParentNodeProvider, PositionProvider, QualifiedNameProvider)

    def __init__(self, wrapper: cst.MetadataWrapper, tables: Tables, pruned=None):
        """pruned: a castlint.prune.Pruned when wrapper.module is a pruned copy of the
        file (positions are then mapped back to the file's lines)."""
        self.wrapper = wrapper
        self.module = wrapper.module
        self.tables = tables
        self.scopes = _resolve_scopes(wrapper)
        self._positions = None  # resolved on first use
        self._qualified = None  # resolved on first use: most files never need it
        # One walk gives the parent map and the node index (ParentNodeProvider walks
        # the tree again through CSTNode.children, which costs as much as a parse).
        self.nodes = NodeIndex.build(self.module)
        self.parents = self.nodes.parents
        self._pruned = pruned
        if pruned is not None:
            self.nodes.names |= pruned.dropped_names
            self.nodes.attr_names |= pruned.dropped_attr_names
        self._origin_cache: Dict[int, Origin] = {}
        self._in_progress: set = set()
        self._self_attr_index: Dict[Tuple[int, str], List[cst.BaseExpression]] = {}
        self._method_calls: Dict[Tuple[int, str], List[cst.Call]] = {}
        self._indexed_classes: set = set()
        self._hot_cache: Dict[int, set] = {}
        self._pool_casts: Optional[List[Tuple[cst.Call, str]]] = None

    @property
    def qualified(self):
        if self._qualified is None:
            self._qualified = self.wrapper.resolve(QualifiedNameProvider)
        return self._qualified

    @property
    def positions(self):
        """node -> CodeRange, as PositionProvider gives (castlint.positions: same spans, faster)."""
        if self._positions is None:
            from castlint.positions import compute_positions

            self._positions = compute_positions(self.module)
        return self._positions

    # -- tree helpers ------------------------------------------------------
    def code(self, node: cst.CSTNode) -> str:
        return self.module.code_for_node(node).strip()

    def position(self, node: cst.CSTNode) -> CodeRange:
        pos = self.positions[node]
        if self._pruned is not None:  # lines of the pruned copy -> lines of the file
            lines = self._pruned.line_map
            pos = CodeRange(CodePosition(lines[pos.start.line], pos.start.column),
                            CodePosition(lines[pos.end.line], pos.end.column))
        return pos

    def parent(self, node: cst.CSTNode) -> Optional[cst.CSTNode]:
        return self.parents.get(node)

    def ancestors(self, node: cst.CSTNode):
        node = self.parents.get(node)
        while node is not None:
            yield node
            node = self.parents.get(node)

    def enclosing_function(self, node: cst.CSTNode) -> Optional[cst.FunctionDef]:
        for anc in self.ancestors(node):
            if isinstance(anc, cst.FunctionDef):
                return anc
        return None

    def enclosing_class(self, node: cst.CSTNode) -> Optional[cst.ClassDef]:
        for anc in self.ancestors(node):
            if isinstance(anc, cst.ClassDef):
                return anc
        return None

    def method_class(self, func: cst.FunctionDef) -> Optional[cst.ClassDef]:
        """The class whose body directly defines func, if any."""
        parent = self.parents.get(func)
        if isinstance(parent, cst.IndentedBlock):
            parent = self.parents.get(parent)
        return parent if isinstance(parent, cst.ClassDef) else None

    # -- words from the tables ----------------------------------------------
    def _has_word(self, text: str, words: Sequence[str]) -> bool:
        low = text.lower()
        return any(word in low for word in words)

    def is_layer_index(self, index: cst.BaseExpression) -> bool:
        names = [n.value for n in iter_nodes(index, cst.Name)] + [
            a.attr.value for a in iter_nodes(index, cst.Attribute)
        ]
        return bool(names) and any(self._has_word(n, self.tables.layer_index_words) for n in names)

    # -- origins -------------------------------------------------------------
    def origin(self, expr: cst.BaseExpression, depth: int = 0) -> Origin:
        key = id(expr)
        if key in self._origin_cache:
            return self._origin_cache[key]
        if key in self._in_progress or depth > MAX_DEPTH:
            return Origin.OTHER
        self._in_progress.add(key)
        try:
            result = self._origin(expr, depth + 1)
        finally:
            self._in_progress.discard(key)
        self._origin_cache[key] = result
        return result

    def _origin(self, expr: cst.BaseExpression, depth: int) -> Origin:
        t = self.tables
        if isinstance(expr, cst.Call):
            func = expr.func
            if isinstance(func, cst.Attribute):
                name = func.attr.value
                if name in t.accessors:
                    return Origin.POOL_TUPLE if t.accessors[name].returns == "tuple" else Origin.POOL
                receiver = self.origin(func.value, depth)
                if receiver >= Origin.POOL_TUPLE:
                    if name in t.gather_methods:
                        return Origin.GATHERED
                    if name in t.view_methods or name in t.reinterpret_methods:
                        return receiver
                    if self.cast_target(expr) is not None:
                        return Origin.POOL  # a converted copy is still pool-sized
                if receiver == Origin.GATHERED and (
                    name in t.view_methods or self.cast_target(expr) is not None
                ):
                    return Origin.GATHERED
            qualified = self.call_name(expr)
            if qualified and expr.args:
                short = qualified.rsplit(".", 1)[-1]
                first = self.origin(expr.args[0].value, depth)
                if qualified in t.gather_functions and first >= Origin.POOL_TUPLE:
                    return Origin.GATHERED
                if short in t.view_functions and first >= Origin.POOL_TUPLE:
                    return first
            return Origin.OTHER
        if isinstance(expr, cst.Attribute):
            if expr.attr.value in t.cache_attributes:
                return Origin.POOL
            if isinstance(expr.value, cst.Name) and expr.value.value == "self":
                return self._self_attr_origin(expr, depth)
            return Origin.OTHER
        if isinstance(expr, cst.Subscript):
            base = self.origin(expr.value, depth)
            if base == Origin.POOL_TUPLE:
                return Origin.POOL
            if base == Origin.POOL:
                return Origin.POOL if self.subscript_keeps_whole(expr) else Origin.GATHERED
            return Origin.GATHERED if base == Origin.GATHERED else Origin.OTHER
        if isinstance(expr, cst.Name):
            return self._name_origin(expr, depth)
        if isinstance(expr, cst.IfExp):
            return max(self.origin(expr.body, depth), self.origin(expr.orelse, depth))
        if isinstance(expr, (cst.Tuple, cst.List)):
            inner = [self.origin(e.value, depth) for e in expr.elements if isinstance(e, cst.Element)]
            return Origin.POOL_TUPLE if any(o >= Origin.POOL_TUPLE for o in inner) else Origin.OTHER
        return Origin.OTHER

    def subscript_keeps_whole(self, sub: cst.Subscript) -> bool:
        """buf[:, :, :512], buf[...], pool[layer_id] keep every token; pool[idx] does not."""
        for element in sub.slice:
            inner = element.slice
            if isinstance(inner, cst.Slice):
                continue
            if isinstance(inner, cst.Index):
                value = inner.value
                if isinstance(value, (cst.Ellipsis, cst.Name)) and (
                    isinstance(value, cst.Ellipsis) or value.value == "None"
                ):
                    continue
                if element is sub.slice[0] and (
                    (isinstance(value, cst.Integer) and self._is_cache_attribute(sub.value))
                    or (not isinstance(value, cst.Integer) and self.is_layer_index(value))
                ):
                    continue
            return False
        return True

    def _is_cache_attribute(self, expr: cst.BaseExpression) -> bool:
        return isinstance(expr, cst.Attribute) and expr.attr.value in self.tables.cache_attributes

    def call_name(self, call: cst.Call) -> Optional[str]:
        # What QualifiedNameProvider gives for this node, without resolving it for
        # every node of the module (that walk cost more than the rest of a check).
        scope = self.scopes.get(call.func)
        names = scope.get_qualified_names_for(call.func) if scope is not None else set()
        for qn in sorted(names, key=lambda q: q.name):
            return qn.name
        return dotted(call.func)

    def _name_origin(self, name: cst.Name, depth: int) -> Origin:
        scope = self.scopes.get(name)
        if scope is None:
            return Origin.OTHER
        accesses = [a for a in scope.accesses[name.value] if a.node is name]
        referents = set()
        for access in accesses:
            referents.update(access.referents)
        if not referents:
            referents = set(scope.assignments[name.value])
        use_line = self.positions[name].start.line
        reaching = [r for r in referents if isinstance(r, Assignment)]
        before = [r for r in reaching if self.positions[r.node].start.line <= use_line and r.node is not name]
        best = Origin.OTHER
        for assignment in before or reaching:
            best = max(best, self._assignment_origin(assignment, depth))
            if best == Origin.POOL:
                break
        return best

    def assigned_value(self, target: cst.CSTNode) -> Tuple[Optional[cst.BaseExpression], Optional[int]]:
        """For a Name being assigned, the expression assigned (and tuple index)."""
        index = None
        node = target
        parent = self.parents.get(node)
        while isinstance(parent, (cst.Element, cst.Tuple, cst.List)):
            if isinstance(parent, cst.Element):
                container = self.parents.get(parent)
                if isinstance(container, (cst.Tuple, cst.List)):
                    index = list(container.elements).index(parent)
                node = container
            else:
                node = parent
            parent = self.parents.get(node)
        if isinstance(parent, cst.AssignTarget):
            assign = self.parents.get(parent)
            if isinstance(assign, cst.Assign):
                return assign.value, index
        if isinstance(parent, cst.AnnAssign) and parent.value is not None:
            return parent.value, index
        if isinstance(parent, cst.NamedExpr):
            return parent.value, index
        return None, None

    def _assignment_origin(self, assignment: Assignment, depth: int) -> Origin:
        node = assignment.node
        if isinstance(node, cst.Param) or isinstance(self.parents.get(node), cst.Param):
            param = node if isinstance(node, cst.Param) else self.parents.get(node)
            return self._param_origin(param, depth)
        if not isinstance(node, cst.Name):
            return Origin.OTHER
        value, index = self.assigned_value(node)
        if value is None:
            return Origin.OTHER
        if index is not None:
            if isinstance(value, (cst.Tuple, cst.List)) and index < len(value.elements):
                return self.origin(value.elements[index].value, depth)
            origin = self.origin(value, depth)
            return Origin.POOL if origin == Origin.POOL_TUPLE else (Origin.GATHERED if origin == Origin.GATHERED else Origin.OTHER)
        return self.origin(value, depth)

    # -- self attributes and parameters --------------------------------------
    def _index_class(self, cls: cst.ClassDef) -> None:
        if id(cls) in self._indexed_classes:
            return
        self._indexed_classes.add(id(cls))
        for target, value in self.nodes.self_assignments:
            if self.enclosing_class(target) is cls:
                self._self_attr_index.setdefault((id(cls), target.attr.value), []).append(value)
        for call in self.nodes.self_calls:
            if self.enclosing_class(call) is cls:
                self._method_calls.setdefault((id(cls), call.func.attr.value), []).append(call)

    def self_attr_values(self, cls: cst.ClassDef, attr: str) -> List[cst.BaseExpression]:
        self._index_class(cls)
        return self._self_attr_index.get((id(cls), attr), [])

    def _self_attr_origin(self, expr: cst.Attribute, depth: int) -> Origin:
        cls = self.enclosing_class(expr)
        if cls is None:
            return Origin.OTHER
        best = Origin.OTHER
        for value in self.self_attr_values(cls, expr.attr.value):
            best = max(best, self.origin(value, depth))
        return best

    def _param_origin(self, param: cst.Param, depth: int) -> Origin:
        func = next((a for a in self.ancestors(param) if isinstance(a, cst.FunctionDef)), None)
        if func is None:
            return Origin.OTHER
        cls = self.method_class(func)
        if cls is None:
            return Origin.OTHER
        self._index_class(cls)
        params = list(func.params.params)
        positional = [p.name.value for p in params]
        if positional and positional[0] in ("self", "cls"):
            positional = positional[1:]
        name = param.name.value
        best = Origin.OTHER
        for call in self._method_calls.get((id(cls), func.name.value), []):
            for i, arg in enumerate(call.args):
                if arg.star:
                    continue
                if arg.keyword is not None:
                    if arg.keyword.value == name:
                        best = max(best, self.origin(arg.value, depth))
                elif i < len(positional) and positional[i] == name:
                    best = max(best, self.origin(arg.value, depth))
        return best

    # -- casts -----------------------------------------------------------------
    def dtype_like(self, expr: cst.BaseExpression) -> bool:
        t = self.tables
        text = dotted(expr)
        if text is None:
            return False
        if text.startswith("torch.") and text.split(".", 1)[1] in t.torch_dtypes:
            return True
        last = text.rsplit(".", 1)[-1]
        return self._has_word(last, t.dtype_words)

    def device_like(self, expr: cst.BaseExpression) -> bool:
        if isinstance(expr, (cst.SimpleString, cst.FormattedString, cst.Integer)):
            return True
        if isinstance(expr, cst.Call):
            return (dotted(expr.func) or "").endswith("device")
        text = dotted(expr)
        return text is not None and self._has_word(text.rsplit(".", 1)[-1], self.tables.device_words)

    def cast_target(self, call: cst.Call) -> Optional[str]:
        """The dtype a call converts to (as written), or None if it is no dtype cast."""
        if not isinstance(call.func, cst.Attribute):
            return None
        spelling = self.tables.casts.get(call.func.attr.value)
        if spelling is None or spelling.method in self.tables.reinterpret_methods:
            return None
        positional = [a.value for a in call.args if a.keyword is None and not a.star]
        keywords = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
        if spelling.form == "no-args":
            return spelling.target if not call.args else None
        if spelling.form in ("one-arg", "tensor-arg"):
            first = positional[0] if positional else keywords.get("dtype") or keywords.get("other")
            if first is None:
                return None
            return self.code(first) if spelling.form == "one-arg" else f"{self.code(first)}.dtype"
        # form "to"
        if "dtype" in keywords:
            return self.code(keywords["dtype"])
        for value in positional:
            if self.dtype_like(value):
                return self.code(value)
        if positional and not self.device_like(positional[0]):
            if isinstance(positional[0], (cst.Name, cst.Attribute, cst.Subscript, cst.Call)):
                return f"{self.code(positional[0])}.dtype"
        return None

    def pool_casts(self) -> List[Tuple[cst.Call, str]]:
        """(call, target dtype) for every dtype cast of a whole pool outside the fix's fallback."""
        if self._pool_casts is None:
            self._pool_casts = [
                (call, target) for call in self.nodes.calls
                if isinstance(call.func, cst.Attribute)
                and (target := self.cast_target(call)) is not None
                and self.origin(call.func.value) >= Origin.POOL_TUPLE
                and not self.guarded_fallback(call)
            ]
        return self._pool_casts

    def guarded_fallback(self, node: cst.CSTNode) -> bool:
        """True under `if not <guard>:` or in the else of `if <guard>:`."""
        guards = self.tables.guard_names
        child = node
        for anc in self.ancestors(node):
            if isinstance(anc, cst.If):
                names = {n.value for n in iter_nodes(anc.test, cst.Name)} | {
                    a.attr.value for a in iter_nodes(anc.test, cst.Attribute)
                }
                if names & guards:
                    negated = isinstance(anc.test, cst.UnaryOperation) and isinstance(anc.test.operator, cst.Not)
                    in_else = anc.orelse is not None and child is anc.orelse
                    if negated != in_else:
                        return True
            if isinstance(anc, cst.FunctionDef):
                return False
            child = anc
        return False

    # -- hot paths -----------------------------------------------------------
    def hot_functions(self, cls: cst.ClassDef) -> set:
        """Names of hot-path methods of cls: the entry points and what they call via self."""
        if id(cls) in self._hot_cache:
            return self._hot_cache[id(cls)]
        if self._pruned is not None and self._pruned.hot_hints:
            # Methods dropped from a pruned class still call others: use the call
            # graph the pruner computed on the whole class.
            key = (cls.name.value, self.position(cls).start.line)
            if key in self._pruned.hot_hints:
                self._hot_cache[id(cls)] = set(self._pruned.hot_hints[key])
                return self._hot_cache[id(cls)]
        methods = {
            f.name.value: f for f in cls.body.body if isinstance(f, cst.FunctionDef)
        } if isinstance(cls.body, cst.IndentedBlock) else {}
        hot = {name for name in methods if name in HOT_PATH_FUNCTIONS}
        frontier = list(hot)
        calls_by_method: Dict[str, List[str]] = {}
        for call in self.nodes.self_calls:
            func = self.enclosing_function(call)
            if func is not None and self.method_class(func) is cls:
                calls_by_method.setdefault(func.name.value, []).append(call.func.attr.value)
        while frontier:
            for callee in calls_by_method.get(frontier.pop(), ()):
                if callee in methods and callee not in hot:
                    hot.add(callee)
                    frontier.append(callee)
        self._hot_cache[id(cls)] = hot
        return hot

    def in_hot_path(self, node: cst.CSTNode) -> bool:
        func = self.enclosing_function(node)
        while func is not None:
            cls = self.method_class(func)
            if cls is not None:
                return func.name.value in self.hot_functions(cls)
            if func.name.value in HOT_PATH_FUNCTIONS:
                return True
            func = self.enclosing_function(func)
        return False

    def function_name(self, node: cst.CSTNode) -> Optional[str]:
        func = self.enclosing_function(node)
        if func is None:
            return None
        cls = self.method_class(func)
        return f"{cls.name.value}.{func.name.value}" if cls is not None else func.name.value

    # -- dtype values (for CL002) --------------------------------------------
    def resolve_value(self, expr: cst.BaseExpression, depth: int = 0) -> Tuple[str, ...]:
        """The terminal expressions a dtype argument comes from, as source text."""
        if depth > MAX_DEPTH:
            return (self.code(expr),)
        if isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name) and expr.value.value == "self":
            cls = self.enclosing_class(expr)
            values = self.self_attr_values(cls, expr.attr.value) if cls is not None else []
            if values:
                out: List[str] = []
                for value in values:
                    out.extend(self.resolve_value(value, depth + 1))
                return tuple(sorted(set(out)))
        if isinstance(expr, cst.Name):
            scope = self.scopes.get(expr)
            if scope is not None:
                assignments = [a for a in scope.assignments[expr.value] if isinstance(a, Assignment)]
                values = []
                for a in assignments:
                    if isinstance(a.node, cst.Name):
                        value, index = self.assigned_value(a.node)
                        if value is not None and index is None:
                            values.append(value)
                if values and len(values) == len(assignments):
                    out = []
                    for value in values:
                        out.extend(self.resolve_value(value, depth + 1))
                    return tuple(sorted(set(out)))
        return (self.code(expr),)


class NodeIndex(cst.CSTVisitor):
    """Every node the rules look at, collected in one walk of the tree."""

    def __init__(self):
        self.parents: Dict[cst.CSTNode, cst.CSTNode] = {}
        self._stack: List[cst.CSTNode] = []
        self.calls: List[cst.Call] = []
        self.attributes: List[cst.Attribute] = []
        self.names: set = set()  # identifier values seen anywhere
        self.attr_names: set = set()
        self.self_assignments: List[Tuple[cst.Attribute, cst.BaseExpression]] = []
        self.self_calls: List[cst.Call] = []

    @classmethod
    def build(cls, module: cst.Module) -> "NodeIndex":
        index = cls()
        module.visit(index)
        return index

    # The same parent map as ParentNodeProvider: the visitor reaches exactly the
    # nodes that CSTNode.children lists.
    def on_visit(self, node: cst.CSTNode) -> bool:
        stack = self._stack
        if stack:
            self.parents[node] = stack[-1]
        stack.append(node)
        return super().on_visit(node)

    def on_leave(self, original_node: cst.CSTNode) -> None:
        super().on_leave(original_node)
        self._stack.pop()

    def visit_Call(self, node: cst.Call) -> None:
        self.calls.append(node)
        func = node.func
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self":
            self.self_calls.append(node)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self.attributes.append(node)
        self.attr_names.add(node.attr.value)

    def visit_Name(self, node: cst.Name) -> None:
        self.names.add(node.value)

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            t = target.target
            if isinstance(t, cst.Attribute) and isinstance(t.value, cst.Name) and t.value.value == "self":
                self.self_assignments.append((t, node.value))

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        t = node.target
        if node.value is not None and isinstance(t, cst.Attribute) and isinstance(t.value, cst.Name) and t.value.value == "self":
            self.self_assignments.append((t, node.value))
