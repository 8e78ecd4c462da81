"""The libcst tree, walked fast: nodes and children in field order, scopes without idle
walks, the node index built in one pass, and the navigation every analysis reads (parents,
enclosing definitions, positions mapped back through a pruned copy).

What a value is (castlint.analysis.dataflow) is built on this; nothing here knows a pool."""

from __future__ import annotations

import bisect
import dataclasses
import operator
from typing import Dict, List, Optional, Sequence, Tuple

import libcst as cst
from libcst.metadata import CodePosition, CodeRange, ScopeProvider


def iter_nodes(node: cst.CSTNode, kind):
    """Every node of type kind in the subtree, in source order (libcst.matchers costs
    0.15 s to import). A subtree of the module indexed last is answered from its spans."""
    spans = _SPANS[0]
    if spans is not None:
        found = spans.within(node, kind)
        if found is not None:
            return iter(found)
    return _walk_nodes(node, kind)


def _walk_nodes(node: cst.CSTNode, kind):
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, kind):
            yield current
        stack.extend(reversed(children(current)))


_NESTED_SCOPES = (cst.FunctionDef, cst.Lambda, cst.ClassDef)


def own_nodes(fn: cst.CSTNode):
    """Every node under fn in source order, not descending into a def, lambda or class nested in it (those
    nodes themselves are given, not their insides): fn's own body, without libcst rebuilding it."""
    stack = list(reversed(children(fn)))
    nested = _NESTED_SCOPES
    while stack:
        node = stack.pop()
        yield node
        if type(node) not in nested:
            stack.extend(reversed(children(node)))


# -- walking libcst trees without rebuilding them -----------------------------
# libcst's CSTNode.visit (and CSTNode.children) go through _visit_and_replace_children,
# which builds a new copy of every node it passes (constructor and validation), even
# for a read-only visitor that throws the copy away; that copying was most of the cost
# of the scope and node-index walks. The walks below read each node's child fields in
# the order _visit_and_replace_children visits them (source order), so they meet the
# same nodes in the same order. tests/test_speed_walk.py compares them with libcst's.

_CHILD_FIELDS: Dict[type, Tuple[str, ...]] = {}
_IS_NODE: Dict[type, bool] = {}


class _FieldOrder(cst.CSTVisitor):
    """Records the child fields _visit_and_replace_children visits, in order, one level deep."""

    def __init__(self):
        super().__init__()
        self.fields: List[str] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        return False

    def on_leave(self, original_node: cst.CSTNode) -> None:
        pass

    def on_visit_attribute(self, node: cst.CSTNode, attribute: str) -> None:
        self.fields.append(attribute)

    def on_leave_attribute(self, original_node: cst.CSTNode, attribute: str) -> None:
        pass


def child_fields(node: cst.CSTNode) -> Tuple[str, ...]:
    """The fields of node's type that hold its children, in source order, learnt once per
    type from libcst itself (the fields _visit_and_replace_children visits). A field it
    visits only when set (a formatted string's format_spec) is unset on a node that lacks
    it: such fields come last."""
    cls = type(node)
    order = _CHILD_FIELDS.get(cls)
    if order is None:
        recorder = _FieldOrder()
        node._visit_and_replace_children(recorder)
        names = list(dict.fromkeys(recorder.fields))
        names += [f.name for f in dataclasses.fields(cls) if f.name not in names and getattr(node, f.name) is None]
        order = _CHILD_FIELDS[cls] = tuple(names)
    return order


def _is_node(tp: type) -> bool:
    known = _IS_NODE.get(tp)
    if known is None:  # CSTNode is an ABC: isinstance() on it per node is slow
        known = _IS_NODE[tp] = issubclass(tp, cst.CSTNode)
    return known


def field_nodes(value) -> Sequence[cst.CSTNode]:
    """The nodes a child field holds: the value itself, or the nodes of its sequence."""
    tp = type(value)
    if tp is tuple or tp is list:
        return [item for item in value if _IS_NODE.get(type(item)) or _is_node(type(item))]
    return (value,) if _IS_NODE.get(tp) or _is_node(tp) else ()


_FIELD_VALUES: Dict[type, object] = {}  # node type -> a function giving its child fields' values, in order


def _field_values(node: cst.CSTNode):
    names = child_fields(node)
    get = operator.attrgetter(*names) if names else (lambda _node: ())
    if len(names) == 1:
        one = get
        get = lambda n: (one(n),)  # noqa: E731 - attrgetter of one name gives the value itself
    _FIELD_VALUES[type(node)] = get
    return get


def children(node: cst.CSTNode) -> List[cst.CSTNode]:
    """node.children, without rebuilding node."""
    out: List[cst.CSTNode] = []
    known = _IS_NODE
    for value in (_FIELD_VALUES.get(type(node)) or _field_values(node))(node):
        tp = type(value)
        if tp is tuple or tp is list:
            for item in value:
                is_node = known.get(type(item))
                if is_node or (is_node is None and _is_node(type(item))):
                    out.append(item)
        else:
            is_node = known.get(tp)
            if is_node or (is_node is None and _is_node(tp)):
                out.append(value)
    return out


def _real(method) -> bool:
    return method is not None and not getattr(method, "_is_no_op", False)


class _DirectVisit:
    """Mixin for a read-only libcst visitor: on_visit walks the children itself (same
    order, same visit_X/leave_X and attribute hooks) and returns False, so that libcst
    never rebuilds a node. Only for visitors that keep CSTVisitor's on_visit."""

    _steps: Dict[type, tuple] = {}  # per subclass: node type -> (visit_X, leave_X, ((field, hooked), ...))

    def _step(self, tp: type, node: cst.CSTNode) -> tuple:
        step = self._steps.get(tp)
        if step is None:
            cls, name = type(self), tp.__name__
            visit = getattr(cls, f"visit_{name}", None)
            leave = getattr(cls, f"leave_{name}", None)
            fields = tuple(
                (
                    field,
                    _real(getattr(cls, f"visit_{name}_{field}", None))
                    or _real(getattr(cls, f"leave_{name}_{field}", None)),
                )
                for field in child_fields(node)
            )
            step = self._steps[tp] = (visit if _real(visit) else None, leave if _real(leave) else None, fields)
        return step

    def on_visit(self, node: cst.CSTNode) -> bool:
        visit, _, fields = self._steps.get(type(node)) or self._step(type(node), node)
        if visit is not None and visit(self, node) is False:
            return False
        for field, hooked in fields:
            if hooked:
                self.on_visit_attribute(node, field)
            for child in field_nodes(getattr(node, field)):
                self.on_visit(child)
                self.on_leave(child)
            if hooked:
                self.on_leave_attribute(node, field)
        return False

    def on_leave(self, original_node: cst.CSTNode) -> None:
        leave = (self._steps.get(type(original_node)) or self._step(type(original_node), original_node))[1]
        if leave is not None:
            leave(self, original_node)


_SCOPE_VISITORS = None
# ScopeVisitor.on_leave, as _DirectScopeVisitor.on_leave repeats it (checked by its names)
_SCOPE_ON_LEAVE_NAMES = (
    "provider",
    "set_metadata",
    "scope",
    "isinstance",
    "_ASSIGNMENT_LIKE_NODES",
    "_assignment_count",
    "super",
    "on_leave",
)


def _direct_scope_visitors():
    """(ExpressionContextVisitor, ScopeVisitor) subclasses that walk with _DirectVisit, or
    None when this libcst's visitors are not the ones they were written against."""
    global _SCOPE_VISITORS
    if _SCOPE_VISITORS is None:
        from libcst.metadata import scope_provider
        from libcst.metadata.expression_context_provider import ExpressionContextVisitor
        from libcst.metadata.scope_provider import ScopeVisitor

        plain = cst.CSTVisitor
        if (
            ScopeVisitor.on_visit is not plain.on_visit
            or ExpressionContextVisitor.on_visit is not plain.on_visit
            or ExpressionContextVisitor.on_leave is not plain.on_leave
            or ScopeVisitor.on_leave.__code__.co_names != _SCOPE_ON_LEAVE_NAMES
        ):
            _SCOPE_VISITORS = ()
            return None
        assigning_types = scope_provider._ASSIGNMENT_LIKE_NODES
        assigning: Dict[type, bool] = {}

        class _DirectContextVisitor(_DirectVisit, ExpressionContextVisitor):
            _steps = {}

        class _DirectScopeVisitor(_DirectVisit, ScopeVisitor):
            _steps = {}

            def on_leave(self, original_node: cst.CSTNode) -> None:
                self.provider.set_metadata(original_node, self.scope)
                tp = type(original_node)
                known = assigning.get(tp)
                if known is None:
                    known = assigning[tp] = issubclass(tp, assigning_types)
                if known:
                    self.scope._assignment_count += 1
                _DirectVisit.on_leave(self, original_node)

        _SCOPE_VISITORS = (_DirectContextVisitor, _DirectScopeVisitor)
    return _SCOPE_VISITORS or None


def dotted(node: cst.CSTNode) -> Optional[str]:
    """`a.b.c` for Name/Attribute chains, else None."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        base = dotted(node.value)
        return None if base is None else f"{base}.{node.attr.value}"
    return None


def name_parts(text: str) -> set:
    """`self.max_num_reqs` -> {'self', 'max', 'num', 'reqs'}: words are matched whole."""
    return {part for piece in text.lower().split(".") for part in piece.split("_") if part}


def resolve_scopes(wrapper: cst.MetadataWrapper):
    """wrapper.resolve(ScopeProvider), without two idle walks of the tree.

    ScopeProvider and the ExpressionContextProvider it depends on are batchable
    providers whose work happens in visit_Module (each runs its own visitor), so
    resolving them through the wrapper walks the whole tree twice more for
    nothing; this runs their visitors directly, through _DirectVisit (no node
    rebuilt). Falls back to the wrapper if libcst's internals differ."""
    try:
        from libcst.metadata import ExpressionContextProvider
        from libcst.metadata.expression_context_provider import ExpressionContext, ExpressionContextVisitor
        from libcst.metadata.scope_provider import ScopeVisitor

        context_visitor, scope_visitor = _direct_scope_visitors() or (ExpressionContextVisitor, ScopeVisitor)
        contexts = ExpressionContextProvider()
        wrapper.module.visit(context_visitor(contexts, ExpressionContext.LOAD))
        provider = ScopeProvider()
        provider.metadata = {ExpressionContextProvider: contexts._computed}
        visitor = scope_visitor(provider)
        wrapper.module.visit(visitor)
        visitor.infer_accesses()
        provider.metadata = {}
        return provider._computed
    except (ImportError, AttributeError, TypeError):
        return wrapper.resolve(ScopeProvider)


class TreeNavigation:
    """Parents, enclosing definitions and positions, for an analysis that sets module,
    parents (NodeIndex.parents), _pruned (a castlint.prune.Pruned or None) and _positions."""

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
            pos = CodeRange(
                CodePosition(lines[pos.start.line], pos.start.column), CodePosition(lines[pos.end.line], pos.end.column)
            )
        return pos

    def parent(self, node: cst.CSTNode) -> Optional[cst.CSTNode]:
        return self.parents.get(node)

    def param_of(self, node: cst.CSTNode) -> Optional[cst.CSTNode]:
        """The Param an assignment's node stands for (the Param itself, or the Name it binds), else the node's
        parent: callers test `isinstance(..., cst.Param)` on the answer."""
        return node if isinstance(node, cst.Param) else self.parents.get(node)

    def ancestors(self, node: cst.CSTNode):
        node = self.parents.get(node)
        while node is not None:
            yield node
            node = self.parents.get(node)

    # (type() tests: libcst's node classes are ABCs, whose isinstance misses cost a Python call each)
    def enclosing_function(self, node: cst.CSTNode) -> Optional[cst.FunctionDef]:
        parents, FunctionDef = self.parents, cst.FunctionDef
        node = parents.get(node)
        while node is not None:
            if type(node) is FunctionDef:
                return node
            node = parents.get(node)
        return None

    def enclosing_class(self, node: cst.CSTNode) -> Optional[cst.ClassDef]:
        installed = self.installed_methods()[0]
        parents, ClassDef, defs = self.parents, cst.ClassDef, (cst.FunctionDef, cst.Lambda)
        node = parents.get(node)
        while node is not None:
            tp = type(node)
            if tp is ClassDef:
                return node
            if installed and tp in defs and id(node) in installed:
                return installed[id(node)]  # a def or lambda installed as a method (a class decorator, type(...))
            node = parents.get(node)
        return None

    def method_class(self, func: cst.FunctionDef) -> Optional[cst.ClassDef]:
        """The class whose body directly defines func (or that a class decorator or a module-level
        `Cls.m = f` installs it in), if any."""
        parent = self.parents.get(func)
        if isinstance(parent, cst.IndentedBlock):
            parent = self.parents.get(parent)
        if isinstance(parent, cst.ClassDef):
            return parent
        return self.installed_methods()[0].get(id(func))

    def class_methods(self, cls: cst.ClassDef) -> Dict[str, cst.FunctionDef]:
        """The defs cls defines (and those installed in it), by name; once per class (read-only)."""
        cache = self.__dict__.setdefault("_class_methods_cache", {})
        found = cache.get(id(cls))
        if found is None:
            if not isinstance(cls.body, cst.IndentedBlock):
                found = {}
            else:
                own = {f.name.value: f for f in cls.body.body if isinstance(f, cst.FunctionDef)}
                extra = self.installed_methods()[1].get(id(cls))
                found = {**own, **extra} if extra else own
            cache[id(cls)] = found
        return found


class Spans:
    """The nodes of one module in source order, each with the end of its subtree, so that
    the nodes of a kind under a node are a slice (NodeIndex.build fills it in its walk)."""

    def __init__(self, order: List[cst.CSTNode], depths: List[int]):
        self.order = order
        self.at = {id(node): i for i, node in enumerate(order)}
        ends = [len(order)] * len(order)
        open_: List[int] = []
        for j, depth in enumerate(depths):
            while open_ and depths[open_[-1]] >= depth:
                ends[open_.pop()] = j
            open_.append(j)
        self.ends = ends
        self._of_kind: Dict[object, List[int]] = {}
        self._by_type: Optional[Dict[type, List[int]]] = None

    def within(self, node: cst.CSTNode, kind) -> Optional[List[cst.CSTNode]]:
        """The nodes of type kind in node's subtree (node included), in source order; None
        when node is not one of this module's nodes."""
        i = self.at.get(id(node))
        if i is None or self.order[i] is not node:
            return None
        positions = self._of_kind.get(kind)
        if positions is None:
            positions = self._of_kind[kind] = self._positions_of(kind)
        lo, hi = bisect.bisect_left(positions, i), bisect.bisect_left(positions, self.ends[i])
        order = self.order
        return [order[j] for j in positions[lo:hi]]

    def _positions_of(self, kind) -> List[int]:
        by_type = self._by_type
        if by_type is None:
            by_type = self._by_type = {}
            for j, node in enumerate(self.order):
                tp = type(node)
                found = by_type.get(tp)
                if found is None:
                    by_type[tp] = [j]
                else:
                    found.append(j)
        lists = [found for tp, found in by_type.items() if issubclass(tp, kind)]
        if len(lists) == 1:
            return lists[0]
        return sorted(j for found in lists for j in found)


_SPANS: List[Optional[Spans]] = [None]  # the spans of the module NodeIndex.build indexed last


def block_exits(body) -> bool:
    """Does a block (indented or on the header's line) end by leaving its function or loop
    (return, raise, continue, break)?"""
    if isinstance(body, cst.SimpleStatementSuite):
        small = body.body[-1] if body.body else None
    else:
        last = body.body[-1] if isinstance(body, cst.IndentedBlock) and body.body else None
        small = last.body[-1] if isinstance(last, cst.SimpleStatementLine) and last.body else None
    return isinstance(small, (cst.Return, cst.Raise, cst.Continue, cst.Break))


def is_slice_subscript(node: cst.Subscript) -> bool:
    """`x[:]`, `x[..., :d]`, `x[:n]`: an index with a slice or an ellipsis (a tensor's, not a key)."""
    return any(
        isinstance(e.slice, cst.Slice) or (isinstance(e.slice, cst.Index) and isinstance(e.slice.value, cst.Ellipsis))
        for e in node.slice
    )


class NodeIndex:
    """Every node the rules look at, collected in one walk of the tree."""

    def __init__(self):
        self.parents: Dict[cst.CSTNode, cst.CSTNode] = {}
        self.calls: List[cst.Call] = []
        self.attributes: List[cst.Attribute] = []
        self.names: set = set()  # identifier values seen anywhere
        self.attr_names: set = set()
        self.self_assignments: List[Tuple[cst.Attribute, cst.BaseExpression]] = []
        # every `obj.attr = v` (any receiver, self too): what a property setter or `__setattr__` is given
        self.attribute_stores: List[Tuple[cst.Attribute, cst.BaseExpression]] = []
        self.self_item_assignments: List[Tuple[cst.Attribute, cst.BaseExpression]] = []
        self.name_item_assignments: List[Tuple[cst.Subscript, cst.BaseExpression]] = []
        # `d.setdefault(g, {})[k] = v`, `d[g][k] = v`: a store into an element of a container (the
        # subscript target, its value a subscript or a call)
        self.nested_item_assignments: List[Tuple[cst.Subscript, cst.BaseExpression]] = []
        # every store into a container by key or index (`d[k] = v`, `self.d["k"][i] = v`; not a slice store)
        self.item_stores: List[Tuple[cst.Subscript, cst.BaseExpression]] = []
        # nodes the index makes that the tree does not hold (`value[j]` of an unpacked
        # `self.a, self.b = value`), each with the statement it stands in
        self.synthetic: List[Tuple[cst.CSTNode, cst.CSTNode]] = []
        self.unpacked_parts: Dict[int, tuple] = {}  # id(value[j]) of `self.a, self.b = value` -> (value, j)
        self.self_calls: List[cst.Call] = []
        # `type(self).m(...)`, `self.__class__.m(...)`, `cls.m(...)`: a call through the class of self
        self.self_class_calls: List[cst.Call] = []
        # `buf[:] = x`, `buf[..., :d] = x`: stores into a slice of a tensor (a subscript by keys
        # alone, `d[name] = x`, is a container store)
        self.slice_stores: List[cst.Assign] = []
        self.local_callables: set = set()  # names of defs, and of names assigned a lambda
        # names of parameters and loop targets: a call through one may run a function value
        self.value_holder_names: set = set()
        self.decorated_defs: List[cst.FunctionDef] = []
        self.classes: List[cst.ClassDef] = []
        self.walrus_targets: List[cst.Name] = []  # `x` of every `(x := value)`
        self.match_statements: List[cst.Match] = []  # every `match` statement

    _VISITS: Dict[type, Optional[object]] = {}  # node type -> NodeIndex.visit_<type>, or None

    @classmethod
    def build(cls, module: cst.Module) -> "NodeIndex":
        """One walk in source order (as a CSTVisitor would go), without rebuilding nodes.
        The parent map is ParentNodeProvider's: the walk reaches exactly the nodes that
        CSTNode.children lists."""
        index = cls()
        parents = index.parents
        visits = cls._VISITS
        order: List[cst.CSTNode] = []
        depths: List[int] = []
        stack: List[tuple] = [(module, None, 0)]
        pop, push, seen, at_depth = stack.pop, stack.append, order.append, depths.append
        while stack:
            node, parent, depth = pop()
            seen(node)
            at_depth(depth)
            if parent is not None:
                parents[node] = parent
            tp = type(node)
            try:
                visit = visits[tp]
            except KeyError:
                visit = visits[tp] = getattr(cls, f"visit_{tp.__name__}", None)
            if visit is not None:
                visit(index, node)
            kids = children(node)
            depth += 1
            for i in range(len(kids) - 1, -1, -1):
                push((kids[i], node, depth))
        _SPANS[0] = Spans(order, depths)
        for part, statement in index.synthetic:  # after the tree's own nodes, in their order
            parents[part] = statement
        return index

    def visit_Call(self, node: cst.Call) -> None:
        self.calls.append(node)
        func = node.func
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self":
            self.self_calls.append(node)
        elif isinstance(func, cst.Attribute) and _names_class_of_self(func.value):
            self.self_class_calls.append(node)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self.attributes.append(node)
        self.attr_names.add(node.attr.value)

    def visit_Name(self, node: cst.Name) -> None:
        self.names.add(node.value)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.local_callables.add(node.name.value)
        if node.decorators:
            self.decorated_defs.append(node)

    def visit_Param(self, node: cst.Param) -> None:
        self.value_holder_names.add(node.name.value)

    def visit_For(self, node: cst.For) -> None:
        if isinstance(node.target, cst.Name):
            self.value_holder_names.add(node.target.value)

    def visit_CompFor(self, node: cst.CompFor) -> None:
        if isinstance(node.target, cst.Name):
            self.value_holder_names.add(node.target.value)

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.classes.append(node)

    def visit_Match(self, node: cst.Match) -> None:
        self.match_statements.append(node)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        if isinstance(node.target, cst.Name):
            self.walrus_targets.append(node.target)

    def visit_Assign(self, node: cst.Assign) -> None:
        if isinstance(node.value, cst.Lambda):
            for target in node.targets:
                if isinstance(target.target, cst.Name):
                    self.local_callables.add(target.target.value)
        for target in node.targets:
            t = target.target
            if isinstance(t, cst.Subscript) and is_slice_subscript(t):
                self.slice_stores.append(node)
            elif isinstance(t, cst.Subscript):
                self.item_stores.append((t, node.value))
            if isinstance(t, cst.Attribute):
                self.attribute_stores.append((t, node.value))
            if isinstance(t, cst.Attribute) and isinstance(t.value, cst.Name) and t.value.value in ("self", "cls"):
                self.self_assignments.append((t, node.value))  # (`cls.x = v` in a classmethod: shared by instances)
            elif (
                isinstance(t, cst.Subscript)
                and isinstance(t.value, cst.Attribute)
                and t.value.attr.value == "__dict__"
                and isinstance(t.value.value, cst.Name)
                and t.value.value.value == "self"
                and len(t.slice) == 1
                and isinstance(t.slice[0].slice, cst.Index)
                and isinstance(t.slice[0].slice.value, cst.SimpleString)
                and isinstance(t.slice[0].slice.value.evaluated_value, str)
                and t.slice[0].slice.value.evaluated_value.isidentifier()
            ):
                # `self.__dict__["x"] = v` stores what `self.x = v` does
                attr = cst.Attribute(t.value.value, cst.Name(t.slice[0].slice.value.evaluated_value))
                self.synthetic.append((attr, node))
                self.self_assignments.append((attr, node.value))
            elif isinstance(t, (cst.Tuple, cst.List)):
                elements = list(t.elements)
                star = next((i for i, e in enumerate(elements) if isinstance(e, cst.StarredElement)), None)
                for position, element in enumerate(elements):  # `self.k_all, self.v_all = zip(*pairs)`
                    e = element.value
                    if not (isinstance(e, cst.Attribute) and isinstance(e.value, cst.Name) and e.value.value == "self"):
                        continue
                    if position == star:  # `self.first, *self.rest = kv_buffer`: rest is value[1:], a container
                        lower = cst.Integer(str(position)) if position else None
                        after = len(elements) - position - 1
                        upper = cst.UnaryOperation(cst.Minus(), cst.Integer(str(after))) if after else None
                        part = cst.Subscript(node.value, [cst.SubscriptElement(cst.Slice(lower, upper))])
                        self.synthetic.append((part, node))
                        self.self_assignments.append((e, part))
                        continue
                    if star is None or position < star:
                        index: cst.BaseExpression = cst.Integer(str(position))
                        known: Optional[int] = position
                    else:  # after the starred part: counted from the end
                        index = cst.UnaryOperation(cst.Minus(), cst.Integer(str(len(elements) - position)))
                        known = None
                    part = cst.Subscript(node.value, [cst.SubscriptElement(cst.Index(index))])
                    self.synthetic.append((part, node))
                    self.unpacked_parts[id(part)] = (node.value, known)
                    self.self_assignments.append((e, part))
            elif (
                isinstance(t, cst.Subscript)
                and isinstance(t.value, cst.Attribute)
                and isinstance(t.value.value, cst.Name)
                and t.value.value.value in ("self", "cls")
            ):
                self.self_item_assignments.append((t.value, node.value))  # self.d[k] = v, cls.d[k] = v
            elif isinstance(t, cst.Subscript) and isinstance(t.value, cst.Name):
                self.name_item_assignments.append((t, node.value))  # d[k] = v of a local d
            elif isinstance(t, cst.Subscript) and isinstance(t.value, (cst.Subscript, cst.Call)):
                if not is_slice_subscript(t):
                    self.nested_item_assignments.append((t, node.value))

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        t = node.target
        if (
            isinstance(node.operator, cst.AddAssign)
            and isinstance(node.value, (cst.List, cst.Tuple, cst.ListComp))
            and isinstance(t, cst.Attribute)
            and isinstance(t.value, cst.Name)
            and t.value.value == "self"
        ):
            self.self_assignments.append((t, node.value))  # `self.records += [...]`: the list holds these too

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        t = node.target
        if (
            node.value is not None
            and isinstance(t, cst.Attribute)
            and isinstance(t.value, cst.Name)
            and t.value.value == "self"
        ):
            self.self_assignments.append((t, node.value))


def _names_class_of_self(expr: cst.BaseExpression) -> bool:
    """`type(self)`, `self.__class__` or `cls`: the class of the instance a method runs on."""
    if isinstance(expr, cst.Name):
        return expr.value == "cls"
    if isinstance(expr, cst.Attribute):
        return expr.attr.value == "__class__" and isinstance(expr.value, cst.Name) and expr.value.value == "self"
    return (
        isinstance(expr, cst.Call)
        and isinstance(expr.func, cst.Name)
        and expr.func.value == "type"
        and len(expr.args) == 1
        and isinstance(expr.args[0].value, cst.Name)
        and expr.args[0].value.value == "self"
    )
