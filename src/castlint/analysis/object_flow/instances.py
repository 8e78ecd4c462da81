"""Which class of the module an expression is an instance of (`instance_class`): constructions,
returns, annotations, held and wrapped values."""

from __future__ import annotations

import re
from typing import Dict, List, Optional

import libcst as cst

from castlint.analysis.object_flow.shared import _dotted
from castlint.analysis.tree import iter_nodes

_ANNOTATION_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*")  # the names a string annotation spells


def iter_names(node):
    """The names and strings in an annotation (`Optional["Meta"]` -> "Meta")."""
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, (cst.Name, cst.SimpleString)):
            yield current
        elif isinstance(current, cst.Attribute):
            yield current.attr
        elif isinstance(current, cst.Subscript):
            stack.extend(e.slice.value for e in current.slice if isinstance(e.slice, cst.Index))
        elif isinstance(current, cst.BinaryOperation):
            stack.extend((current.left, current.right))


_CONTAINER_ONLY: dict = {}  # id(Tables) -> (the tables, the names)


def _container_only_names(tables) -> frozenset:
    """Public method names of Python's containers and str that no tensor table lists (`update`, `append`,
    `get`, `pop`): a module class defining one may be told by it, the call's arguments permitting."""
    hit = _CONTAINER_ONLY.get(id(tables))
    if hit is None or hit[0] is not tables:
        names = set(dir(dict)) | set(dir(list)) | set(dir(set)) | set(dir(tuple)) | set(dir(str))
        names = {n for n in names if not n.startswith("_")}
        for table in (
            tables.view_methods,
            tables.tuple_view_methods,
            tables.casts,
            tables.gather_methods,
            tables.narrow_methods,
            tables.copy_methods,
            tables.reinterpret_methods,
            tables.learn_skip_methods,
            tables.whole_copy_methods,
            tables.elementwise_methods,
            tables.dtype_argument_methods,
            tables.tensor_container_methods,
        ):
            names -= set(table)
        hit = _CONTAINER_ONLY[id(tables)] = (tables, frozenset(names))
    return hit[1]


class InstanceClasses:
    def instance_class(self, expr: cst.BaseExpression, depth: int = 0) -> Optional[cst.ClassDef]:
        """The class of this module an expression is an instance of: a construction `C(...)`,
        `self`, a name or attribute assigned one, a parameter annotated with the class, or
        what a helper of the module returns."""
        if depth > 6:
            return None
        cache = self.derived.setdefault("instance_class", {})  # the tree does not change: once per node
        key = (id(expr), depth)
        if key not in cache:
            cache[key] = self._instance_class(expr, depth)
        return cache[key]

    def _instance_class(self, expr: cst.BaseExpression, depth: int) -> Optional[cst.ClassDef]:
        if isinstance(expr, cst.Name) and expr.value != "self" and self._type_guards(expr):
            found = self._guarded_class(expr, depth)
            if found is None or self.admitted(expr, found):
                return found
            for tested, positive in self._type_guards(expr):  # `src: Base`, `if isinstance(src, Sub)`: a Sub
                for cls in tested if positive else ():
                    if found in self.class_mro(cls) and self.admitted(expr, cls):
                        return cls
            for cls in self.union_peers(found):  # `src: Union[Pool, Staged]`, Staged excluded: a Pool
                if self.admitted(expr, cls):
                    return cls
            return None
        return self._guarded_class(expr, depth)

    def _guarded_class(self, expr: cst.BaseExpression, depth: int) -> Optional[cst.ClassDef]:
        if isinstance(expr, cst.Name):
            if expr.value == "self":
                return self.enclosing_class(expr)
            for assignment in self.reaching(expr):
                node = assignment.node
                param = self.param_of(node)
                if isinstance(param, cst.Param):
                    found = self.annotated_class(param) or self.param_class(param, None, depth)
                    if found is not None:
                        return found
                    continue
                if isinstance(node, cst.Name):
                    declared = self.parents.get(node)
                    if isinstance(declared, cst.AnnAssign) and declared.target is node:  # `mgr: Manager = ...`
                        found = self.annotated_class(declared)
                        if found is not None:
                            return found
                    kind, value, path = self.binding(node)
                    if kind == "assign" and not path:
                        found = self.instance_class(value, depth + 1)
                        if found is not None:
                            return found
                    elif kind == "for":  # `for rec in self.records`, `for name, rec in d.items()`: an element's class
                        for element in self._iterated_elements(value, path, depth + 1) or ():
                            found = self.instance_class(element, depth + 1)
                            if found is not None and self.admitted(expr, found):
                                return found
                        for found in self._annotated_iteration(value, path, depth):  # `sources: list[Pool]`
                            if self.admitted(expr, found):
                                return found
            return None
        if isinstance(expr, cst.Await):  # `await make_runner()`: what the coroutine returns
            return self.instance_class(expr.expression, depth + 1)
        if isinstance(expr, cst.IfExp):  # `Widen() if c else Plain()`: the class both are instances of
            found = [self.instance_class(e, depth + 1) for e in (expr.body, expr.orelse)]
            return self.common_class([c for c in found if c is not None])
        if isinstance(expr, cst.Call):
            found = self.constructed_class(expr)
            if found is not None:
                return found
            inner = self.wrapped_value(expr, depth + 1)
            if inner is not None:  # `weakref.proxy(pool)`, `self._ref()`: the object itself
                return self.instance_class(inner, depth + 1)
            for value in self.held_values(expr) or ():  # `_RUNNER.get()`: what `_RUNNER.set(r)` stored
                found = self.instance_class(value, depth + 1)
                if found is not None:
                    return found
            replaced = self.replaced_record(expr)
            if replaced is not None:  # `rec._replace(k=x)`: a copy of rec, of its class
                return self.instance_class(replaced[0], depth + 1)
            for element in self._taken_elements(expr, depth + 1) or ():
                # `min(records, key=...)`, `stash.pop(name)`, `next(iter(recs))`: an element's class
                found = self.instance_class(element, depth + 1)
                if found is not None:
                    return found
            taken = self._annotated_taken(expr, depth)
            if taken:  # `next(iter(self.sources))` of `sources: list[Pool]`, `pools.get(name)` of `dict[str, Pool]`
                return taken[0]
            for target, _, _ in self.return_targets(expr, depth + 1):  # what a helper or method returns
                found = self.returned_class(target, depth)
                if found is not None:
                    return found
            return None
        if isinstance(expr, cst.Attribute):
            for value in self.held_attribute(expr) or ():  # `_tls.engine` of `_tls.engine = engine`
                found = self.instance_class(value, depth + 1)
                if found is not None:
                    return found
            owner = self.instance_class(expr.value, depth + 1)
            if owner is None:
                return None
            getter = self.property_getter(owner, expr.attr.value)
            if getter is not None:  # `self.kv.planes` of `@property def kv(self) -> Pool`: what the getter returns
                return self.returned_class(getter, depth)
            mine = isinstance(expr.value, cst.Name) and expr.value.value == "self"
            made: List[cst.ClassDef] = []  # the classes several assignments construct
            for value in self.instance_attr_values(owner, expr.attr.value):
                param = self._plain_param(value) if mine else None
                if param is not None:  # `self.resource = resource`: what self's class is built with
                    found = self.annotated_class(param) or self.param_class(param, owner, depth)
                    if found is not None:
                        return found
                    continue
                found = self.instance_class(value, depth + 1)
                if found is not None and found not in made:
                    made.append(found)
            if made:
                return self.common_class(made)
        if isinstance(expr, cst.Subscript):  # `recs[0]` of a list of records
            for element in self._subscript_elements(expr, depth) or ():
                found = self.instance_class(element, depth + 1)
                if found is not None:
                    return found
            if len(expr.slice) == 1 and isinstance(expr.slice[0].slice, cst.Index):  # `srcs[0]` of `list[Pool]`
                key = expr.slice[0].slice.value
                index = int(key.value) if isinstance(key, cst.Integer) else None
                found = self.declared_elements(expr.value, index, depth)
                if found:
                    return found[0]
        return None

    # Element classes from container annotations: `self.sources: list[Pool]`, `pools: dict[str, "Pool"]`,
    # `Optional[Sequence[Pool]]`, `tuple[Pool, ...]` ([containers] sequence_annotations, dict_annotations,
    # annotation_wrappers): an element read from the container (iterated, indexed, taken) is a Pool.

    def _annotated_iteration(self, iterable: cst.BaseExpression, path, depth: int) -> List[cst.ClassDef]:
        """The classes a for target at path over iterable may be, by the iterated container's annotation:
        `for s in srcs`, `for s in d.values()`, `for name, s in d.items()`, `for i, s in enumerate(srcs)`,
        `for s in sorted(srcs)`."""
        t = self.tables
        while isinstance(iterable, cst.Call) and iterable.args and not iterable.args[0].star:
            qualified = self.qualified(iterable)
            if qualified in t.iter_passthrough or qualified in t.keep_elements:
                iterable = iterable.args[0].value  # `sorted(srcs)`, `list(srcs)`
            elif qualified in t.iter_numbered and path[:1] == (1,):
                iterable, path = iterable.args[0].value, path[1:]  # `enumerate(srcs)`: (i, an element)
            else:
                break
        if isinstance(iterable, cst.Call) and isinstance(iterable.func, cst.Attribute) and not iterable.args:
            method = iterable.func.attr.value
            if method in t.keep_methods and not path:
                return self.declared_elements(iterable.func.value, None, depth)
            if method in t.item_views and path == (1,):
                return self.declared_elements(iterable.func.value, None, depth)
            return []
        return self.declared_elements(iterable, None, depth) if not path else []

    def _annotated_taken(self, call: cst.Call, depth: int) -> List[cst.ClassDef]:
        """The classes one element taken from an annotated container may be: `next(iter(srcs))`,
        `min(srcs, key=...)`, `pools.get(name)`, `queue.popleft()`."""
        t, func = self.tables, call.func
        if isinstance(func, cst.Attribute) and func.attr.value in t.take_methods:
            return self.declared_elements(func.value, None, depth)
        if call.args and not call.args[0].star and self.qualified(call) in t.take_functions:
            inner = call.args[0].value
            if isinstance(inner, cst.Call) and inner.args and self.qualified(inner) in t.keep_elements:
                inner = inner.args[0].value
            if isinstance(inner, cst.Call) and isinstance(inner.func, cst.Attribute) and not inner.args:
                if inner.func.attr.value not in t.keep_methods:
                    return []
                inner = inner.func.value  # `next(iter(d.values()))`
            return self.declared_elements(inner, None, depth)
        return []

    def declared_elements(self, container: cst.BaseExpression, index: Optional[int], depth: int) -> List[cst.ClassDef]:
        """The module classes an element (a mapping's value) of container is, by the annotation of the
        parameter, variable or attribute container reads (`list[Pool]`, `Dict[str, "Pool"]`); [] when
        none is declared or it names no class of the module."""
        if depth > 5 or not self._element_annotations_possible():
            return []
        annotation = self._declared_annotation(container, depth)
        return self._annotation_elements(annotation, index, 0) if annotation is not None else []

    def _element_annotations_possible(self) -> bool:
        """Does any annotation of the module subscript a container (the cheap test: most modules have none)?"""
        found = self.__dict__.get("_element_annotations_memo")
        if found is None:
            t = self.tables
            kinds = t.sequence_annotations | t.dict_annotations
            found = False
            for node in iter_nodes(self.module, cst.Annotation):
                for sub in iter_nodes(node, cst.Subscript):
                    name = _dotted(sub.value) or ""
                    if name in kinds or name.rsplit(".", 1)[-1] in kinds:
                        found = True
                        break
                if not found and isinstance(node.annotation, cst.SimpleString):
                    found = "[" in node.annotation.value
                if found:
                    break
            self._element_annotations_memo = found
        return found

    def _declared_annotation(self, expr: cst.BaseExpression, depth: int) -> Optional[cst.BaseExpression]:
        """The annotation of what expr reads: an annotated parameter or variable (`srcs: list[Pool]`), a name
        assigned such a one, or `obj.attr` annotated in its class (`attr: list[Pool]` in the body,
        `self.attr: list[Pool] = []`) or stored from an annotated constructor parameter."""
        if depth > 5:
            return None
        if isinstance(expr, cst.Name):
            for assignment in self.reaching(expr):
                node = assignment.node
                param = self.param_of(node)
                if isinstance(param, cst.Param):
                    if param.annotation is not None:
                        return param.annotation.annotation
                    continue
                declared = self.parents.get(node) if isinstance(node, cst.Name) else None
                if isinstance(declared, cst.AnnAssign) and declared.target is node:
                    return declared.annotation.annotation
                if isinstance(node, cst.Name):
                    kind, value, path = self.binding(node)
                    if kind == "assign" and not path:
                        found = self._declared_annotation(value, depth + 1)
                        if found is not None:
                            return found
            return None
        if isinstance(expr, cst.Attribute):
            owner = self.instance_class(expr.value, depth + 1)
            if owner is None:
                return None
            attr = expr.attr.value
            for cls in self.c3_mro(owner):
                found = self._attribute_annotations(cls).get(attr)
                if found is not None:
                    return found
            for value in self.instance_attr_values(owner, attr):
                param = self._plain_param(value)
                if param is not None and param.annotation is not None:
                    return param.annotation.annotation
        return None

    def _attribute_annotations(self, cls: cst.ClassDef) -> dict:
        """attr -> annotation of cls's `attr: T` (class body) and `self.attr: T = ...` (its methods); once per class."""
        memo = self.derived.setdefault("attribute_annotations", {})
        found = memo.get(id(cls))
        if found is None:
            found = memo[id(cls)] = {}
            for node in iter_nodes(cls, cst.AnnAssign):
                target = node.target
                if isinstance(target, cst.Name) and self.parents.get(self.parents.get(node)) is not None:
                    if self.enclosing_class(node) is cls and self.parents.get(self.parents.get(node)) is cls.body:
                        found.setdefault(target.value, node.annotation.annotation)
                elif (
                    isinstance(target, cst.Attribute)
                    and isinstance(target.value, cst.Name)
                    and target.value.value == "self"
                    and self.enclosing_class(node) is cls
                ):
                    found.setdefault(target.attr.value, node.annotation.annotation)
        return found

    def _annotation_elements(
        self, annotation: cst.BaseExpression, index: Optional[int], depth: int
    ) -> List[cst.ClassDef]:
        """The module classes an element of a container so annotated is (`list[Pool]`, `Optional[Sequence[Pool]]`,
        `"dict[str, Pool]"`: Pool; `Tuple[Pool, Rows]`: by index, or either)."""
        if depth > 4:
            return []
        annotation = self._parsed_annotation(annotation)
        if isinstance(annotation, cst.BinaryOperation) and isinstance(annotation.operator, cst.BitOr):
            return self._annotation_elements(annotation.left, index, depth + 1) + self._annotation_elements(
                annotation.right, index, depth + 1
            )
        if not isinstance(annotation, cst.Subscript):
            return []
        t = self.tables
        name = _dotted(annotation.value) or ""
        short = name.rsplit(".", 1)[-1]
        args = [e.slice.value for e in annotation.slice if isinstance(e.slice, cst.Index)]

        def named(table) -> bool:
            return name in table or short in table

        if named(t.annotation_wrappers):
            kept = args[:1] if short == "Annotated" else args  # `Annotated[list[Pool], meta]`: its first
            return [c for a in kept for c in self._annotation_elements(a, index, depth + 1)]
        if named(t.dict_annotations):
            return self._plain_annotation_classes(args[-1], depth) if len(args) == 2 else []
        if not named(t.sequence_annotations) or not args:
            return []
        if named(t.positional_annotations) and not (len(args) == 2 and isinstance(args[1], cst.Ellipsis)):
            if index is not None and -len(args) <= index < len(args):
                args = [args[index]]
        else:
            args = args[:1]
        return [c for a in args for c in self._plain_annotation_classes(a, depth)]

    def _parsed_annotation(self, annotation: cst.BaseExpression) -> cst.BaseExpression:
        """A string annotation parsed (`"list[Pool]"`), else itself."""
        if isinstance(annotation, cst.SimpleString) and isinstance(annotation.evaluated_value, str):
            try:
                return cst.parse_expression(annotation.evaluated_value)
            except Exception:  # not an expression: names nothing
                return cst.Name("None")
        return annotation

    def _plain_annotation_classes(self, annotation: cst.BaseExpression, depth: int) -> List[cst.ClassDef]:
        """The module classes a non-container annotation names (`Pool`, `"Pool"`, `Optional[Pool]`, `Pool | Rows`);
        [] for a container (`list[Pool]` is no Pool)."""
        if depth > 4:
            return []
        annotation = self._parsed_annotation(annotation)
        if isinstance(annotation, (cst.Name, cst.Attribute)):
            cls = self.module_classes().get((_dotted(annotation) or "").rsplit(".", 1)[-1])
            return [cls] if cls is not None and not self._is_protocol(cls) else []
        if isinstance(annotation, cst.BinaryOperation) and isinstance(annotation.operator, cst.BitOr):
            return self._plain_annotation_classes(annotation.left, depth + 1) + self._plain_annotation_classes(
                annotation.right, depth + 1
            )
        if isinstance(annotation, cst.Subscript):
            name = _dotted(annotation.value) or ""
            if name in self.tables.annotation_wrappers or name.rsplit(".", 1)[-1] in self.tables.annotation_wrappers:
                args = [e.slice.value for e in annotation.slice if isinstance(e.slice, cst.Index)]
                return [c for a in args for c in self._plain_annotation_classes(a, depth + 1)]
        return []

    def common_class(self, classes: List[cst.ClassDef]) -> Optional[cst.ClassDef]:
        """The nearest class of the module every one of classes is (the strategy base of
        `Widen() if c else Plain()`: its method, and the overrides of the classes constructed, run);
        the first class when they share none."""
        if not classes:
            return None
        rest = [self.c3_mro(c) for c in classes[1:]]
        common = (c for c in self.c3_mro(classes[0]) if all(c in mro for mro in rest))
        return next(common, classes[0])

    def returned_class(self, func, depth: int) -> Optional[cst.ClassDef]:
        """The class of this module what a def returns is an instance of: its return annotation
        (`-> Pool`, `-> "Pool"`, `Optional[Pool]`), else what its return statements return."""
        if not isinstance(func, cst.FunctionDef):
            return None
        if func.returns is not None:
            found = self.annotation_class(func.returns)
            if found is not None:
                return found
        for value in self._return_values(func):
            found = self.instance_class(value, depth + 1)
            if found is not None:
                return found
        return None

    def _holders(self) -> Dict[str, str]:
        """Module-level names an attribute holder makes (rules/accessors.toml [callables]
        attribute_holders: `_tls = threading.local()`) -> "attrs", with what the module stores in
        each (`_tls.engine = engine`); and `("made", id(call))` -> the values stored in the value
        holder (`holder_constructors`: a ContextVar, a queue) that call makes, wherever it is held (a
        module-level or local name, `self._q`): the first argument of every setter call
        (`_KV.set(pool)`, `self._q.put(item)`) whose receiver is that holder. Once per module."""
        found = self.derived.get("holders")
        if found is not None:
            return found
        t = self.tables
        found = self.derived["holders"] = {}
        wanted = t.holder_constructors | t.attribute_holders
        if not wanted:
            return found
        short = {n.rsplit(".", 1)[-1] for n in wanted}
        kinds: Dict[str, str] = {}
        values_made = False
        for c in self.nodes.calls:
            if (_dotted(c.func) or "").rsplit(".", 1)[-1] not in short:
                continue
            q = self.qualified(c.func)
            if q in t.holder_constructors:
                values_made = True
                continue
            if q not in t.attribute_holders:
                continue
            parent = self.parents.get(c)
            target = None
            if isinstance(parent, cst.Assign) and len(parent.targets) == 1:
                target = parent.targets[0].target
            elif isinstance(parent, cst.AnnAssign):
                target = parent.target
            line = self.parents.get(parent) if parent is not None else None
            if isinstance(target, cst.Name) and isinstance(self.parents.get(line), cst.Module):  # module level
                kinds[target.value] = "attrs"
        stored: Dict[tuple, List[cst.BaseExpression]] = {}
        if values_made:
            for c in self.nodes.calls:  # `_KV.set(v)`, `self._q.put(v)`: what get() hands back
                func = c.func
                if (
                    isinstance(func, cst.Attribute)
                    and func.attr.value in t.holder_setters
                    and c.args
                    and c.args[0].keyword is None
                    and not c.args[0].star
                ):
                    for made in self._holder_makings(func.value):
                        stored.setdefault(("made", id(made)), []).append(c.args[0].value)
        for a in self.nodes.attributes:  # `_tls.engine = engine`: what `_tls.engine` reads
            if not (isinstance(a.value, cst.Name) and kinds.get(a.value.value) == "attrs"):
                continue
            target = self.parents.get(a)
            statement = self.parents.get(target)
            if isinstance(target, cst.AssignTarget) and isinstance(statement, cst.Assign):
                stored.setdefault((a.value.value, a.attr.value), []).append(statement.value)
            elif isinstance(statement, (cst.AnnAssign, cst.AugAssign)) or (
                isinstance(target, (cst.AnnAssign,)) and target.value is not None
            ):
                if isinstance(target, cst.AnnAssign) and target.value is not None:
                    stored.setdefault((a.value.value, a.attr.value), []).append(target.value)
        found.update({("kind", name): kind for name, kind in kinds.items()})
        found.update(stored)
        if values_made:
            found[("values", "")] = []  # a value holder is made here: its getters are read
        return found

    def _holder_makings(self, receiver: cst.BaseExpression) -> List[cst.Call]:
        """The value-holder constructions (`queue.SimpleQueue()`, `ContextVar("kv")`) a receiver
        may be: a name (module level or local) every binding of which makes one, or `self.x` that
        the class family assigns one (a `None` placeholder aside)."""
        return self.made_by(receiver, self.tables.holder_constructors)

    def made_by(self, receiver: cst.BaseExpression, makers: set) -> List[cst.Call]:
        """The calls of makers (qualified names) a receiver is: the call itself, a name (module level or
        local) every binding of which is one, or `self.x` that the class family assigns one (a `None`
        placeholder aside); [] when any binding is something else."""
        if isinstance(receiver, cst.Call):
            values = [receiver]
        elif isinstance(receiver, cst.Name):
            values = []
            for assignment in self.reaching(receiver):
                node = assignment.node
                if not isinstance(node, cst.Name):
                    return []
                kind, value, path = self.binding(node)
                if kind != "assign" or path:
                    return []
                values.append(value)
        elif (
            isinstance(receiver, cst.Attribute)
            and isinstance(receiver.value, cst.Name)
            and receiver.value.value == "self"
            and self.enclosing_class(receiver) is not None
        ):
            values = [
                v
                for v in self.instance_attr_values(self.enclosing_class(receiver), receiver.attr.value)
                if not (isinstance(v, cst.Name) and v.value == "None")
            ]
        else:
            return []
        made = [v for v in values if isinstance(v, cst.Call) and self.qualified(v.func) in makers]
        return made if made and len(made) == len(values) else []

    def _is_module_holder(self, name: cst.Name, kind: str) -> bool:
        """Is name the module's holder of that kind here (not a local of the same spelling)?"""
        holders = self._holders()
        if holders.get(("kind", name.value)) != kind:
            return False
        return all(not isinstance(self.scopes.get(a.node), cst.metadata.FunctionScope) for a in self.reaching(name))

    def held_values(self, call: cst.Call) -> Optional[List[cst.BaseExpression]]:
        """What a holder's getter hands back (`_KV.get()` of `_KV = contextvars.ContextVar(...)`,
        `self._q.get()` of `self._q = queue.SimpleQueue()`): every value the module's setter calls
        store in that holder (`_KV.set(self.kv_caches)`), and the getter's default; None when call is
        no holder's getter."""
        func = call.func
        if not (isinstance(func, cst.Attribute) and func.attr.value in self.tables.holder_getters):
            return None
        holders = self._holders()
        if ("values", "") not in holders:
            return None
        made = self._holder_makings(func.value)
        if not made:
            return None
        values = [v for m in made for v in holders.get(("made", id(m)), ())]
        if call.args and call.args[0].keyword is None and not call.args[0].star:
            values.append(call.args[0].value)
        return values

    def held_attribute(self, expr: cst.Attribute) -> Optional[List[cst.BaseExpression]]:
        """What an attribute holder's attribute reads (`_tls.engine` of `_tls = threading.local()`):
        every value the module stores as it (`_tls.engine = engine`); None when expr is no such read."""
        if not isinstance(expr.value, cst.Name):
            return None
        if not self._is_module_holder(expr.value, "attrs"):
            # `forward_batch.attn_ctx` of a parameter: what a method of the same class stores on its
            # parameter of that name (`forward_batch.attn_ctx = AttnCtx(...)` in init_forward_metadata)
            cls = self._param_method_class(expr.value)
            if cls is None or expr.attr.value in self.tables.cache_attributes:
                # a cache attribute ([cache_attributes]) of the object an engine hook is handed
                # (`step_context.kv_caches`) holds what the engine fills in each step as well as what the
                # file stores there (`ctx.kv_caches = [(k.half(), v.half()) for k, v in ctx.kv_caches]`):
                # the stores are not all it holds, so the name decides
                return None
            found = self._external_stores().get(("param", id(cls), expr.value.value, expr.attr.value))
            return list(found) if found else None
        return list(self._holders().get((expr.value.value, expr.attr.value), ()))

    def _param_method_class(self, name: cst.Name) -> Optional[cst.ClassDef]:
        """The class whose method name is a parameter of (every binding reaching it), else None."""
        if name.value in ("self", "cls"):
            return None
        reaching = list(self.reaching(name))
        if not reaching:
            return None
        for assignment in reaching:
            node = assignment.node
            param = self.param_of(node)
            if not isinstance(param, cst.Param):
                return None
        func = self.enclosing_function(name)
        return self.method_class(func) if func is not None else None

    def _external_stores(self) -> Dict[tuple, List[cst.BaseExpression]]:
        """`obj.attr = value` on a name other than self: ("param", id(class), name, attr) when obj is a
        parameter of a method of that class, and ("any", attr) -> (obj, value) for every such store
        (instance_attr_values keeps those whose obj is an instance of the class read). Once per module."""
        found = self.derived.get("external_stores")
        if found is not None:
            return found
        found = self.derived["external_stores"] = {}
        stores = []
        unpacked = self.derived["unpacked_stores"] = {}
        for a in self.nodes.attributes:
            if not isinstance(a.value, cst.Name) or a.value.value in ("self", "cls"):
                continue
            target = self.parents.get(a)
            statement = self.parents.get(target)
            if isinstance(target, cst.AssignTarget) and isinstance(statement, cst.Assign):
                stores.append((a.value, a.attr.value, statement.value))  # (a chained `=`: each target)
            elif isinstance(target, cst.AnnAssign) and target.target is a and target.value is not None:
                stores.append((a.value, a.attr.value, target.value))  # `box.k: Tensor = kv`
            elif (
                isinstance(target, cst.AugAssign)
                and target.target is a
                and isinstance(target.operator, (cst.AddAssign, cst.BitOrAssign))
            ):
                stores.append((a.value, a.attr.value, target.value))  # `ns.planes += (k,)`: holds what it adds
            elif isinstance(target, (cst.Element, cst.StarredElement)):
                kind, value, path = self.binding(a)
                if kind == "assign" and path:
                    # `box.k, box.v = kv.unbind(0)`, `box.k, *box.rest = planes`: the target stands for its
                    # element of the value (unpacked_store_origin)
                    unpacked[id(a)] = (value, path)
                    stores.append((a.value, a.attr.value, a))
        if self.tables.object_setters:  # `setattr(meta, "kv", v)`, `object.__setattr__(rec, "kv", v)`
            for call in self.nodes.calls:
                args = call.args
                if (
                    len(args) == 3
                    and isinstance(call.func, (cst.Name, cst.Attribute))
                    and not any(a.star or a.keyword is not None for a in args)
                    and isinstance(args[0].value, cst.Name)
                    and args[0].value.value not in ("self", "cls")
                    and self.class_named(args[0].value) is None
                    and self._object_setter(call.func)
                ):
                    name = self.constant_string(args[1].value)
                    if name is not None and name.isidentifier():
                        stores.append((args[0].value, name, args[2].value))
        stores.extend(self._external_grows())
        for obj, attr, value in stores:
            found.setdefault(("any", attr), []).append((obj, value))
            cls = self._param_method_class(obj) if isinstance(obj, cst.Name) else None
            if cls is not None:
                found.setdefault(("param", id(cls), obj.value, attr), []).append(value)
        return found

    def _external_grows(self) -> List[tuple]:
        """(obj, attr, held) for `obj.attr.append(v)` / `.extend(vs)` / `heapq.heappush(obj.attr, v)` on an
        object other than self (`self.caches.keys.append(k_cache)` of a record held in `self.caches`): a
        list field filled after construction holds what is stored into it."""
        out = []
        for call in self.nodes.calls:
            func = call.func
            grown = self._grown_by_function(call)
            if grown is not None:
                holder, levels, value = grown[0], 0, self._held_list(grown[1])
            elif isinstance(func, cst.Attribute) and call.args and self._grow_kind(func.attr.value):
                kind = self._grow_kind(func.attr.value)
                holder, levels = self.store_root(func.value)
                value = call.args[-1].value if kind == "last" else call.args[0].value
                value = self.grown_elements(func.attr.value, value) if kind == "many" else self._held_list(value)
            else:
                continue
            if isinstance(holder, cst.Attribute) and not (
                isinstance(holder.value, cst.Name) and holder.value.value in ("self", "cls")
            ):
                out.append((holder.value, holder.attr.value, self._nested_list(value, levels)))
        return out

    def wrapped_value(self, call: cst.Call, depth: int = 0) -> Optional[cst.BaseExpression]:
        """What a call hands back as it is: the first argument of an identity wrapper
        (`weakref.proxy(pool)`), or the referent of a reference it calls (`self._ref()` of
        `self._ref = weakref.ref(runner)`): rules/accessors.toml [callables]."""
        t = self.tables
        func = call.func
        if (
            len(call.args) == 2
            and not any(a.star or a.keyword is not None for a in call.args)
            and (_dotted(func) or "").rsplit(".", 1)[-1] in {n.rsplit(".", 1)[-1] for n in t.type_casts}
            and self.qualified(func) in t.type_casts
        ):  # `typing.cast("Pool", x)`: x
            return call.args[1].value
        if (
            call.args
            and not call.args[0].star
            and call.args[0].keyword is None
            and (_dotted(func) or "").rsplit(".", 1)[-1] in self._runner_names()
            and (
                (isinstance(func, cst.Attribute) and func.attr.value in t.coroutine_runners)
                or self.qualified(func) in t.coroutine_runners
            )
        ):  # `loop.run_until_complete(coro)`, `asyncio.run(coro)`: what the coroutine returns
            return call.args[0].value
        if (
            isinstance(func, cst.Attribute)
            and func.attr.value in t.context_enterers
            and len(call.args) == 1
            and not call.args[0].star
            and call.args[0].keyword is None
        ):  # `stack.enter_context(cm)`: what `with cm as x` binds x to
            entered = self.entered_value(call.args[0].value)
            if entered is not None:
                return entered
        made = self.derived.get("reference_calls")
        if made is None:  # once per module: does it call a wrapper or make a reference at all?
            wanted = t.identity_wrappers | t.reference_makers
            short = {n.rsplit(".", 1)[-1] for n in wanted}
            made = self.derived["reference_calls"] = {
                id(c): self.qualified(c.func)
                for c in self.nodes.calls
                if (_dotted(c.func) or "").rsplit(".", 1)[-1] in short and self.qualified(c.func) in wanted
            }
        if not made or depth > 6:
            return None
        if call.args and not call.args[0].star and made.get(id(call)) in t.identity_wrappers:
            return call.args[0].value
        if call.args or not any(q in t.reference_makers for q in made.values()):
            return None
        values: List[cst.BaseExpression] = []
        if isinstance(func, cst.Name):
            for assignment in self.reaching(func):
                if isinstance(assignment.node, cst.Name):
                    kind, value, path = self.binding(assignment.node)
                    if kind == "assign" and not path:
                        values.append(value)
                    elif kind == "for" and not path:  # `for ref in self.refs: ref()`: an entry
                        values.extend(self.element_values(value, None, depth + 1) or ())
                    elif kind == "assign":  # `ref_k, ref_v = self.refs`: that position
                        values.extend(self.unpacked_values(value, path, depth + 1) or ())
                    elif kind == "for":  # `for ref, dst in zip(self.refs, bufs)`: that position of an entry
                        values.extend(self._iterated_elements(value, path, depth + 1) or ())
        elif isinstance(func, cst.Attribute):
            owner = self.instance_class(func.value, depth + 1)
            if owner is not None and self.find_method(owner, func.attr.value) is None:
                values.extend(self.instance_attr_values(owner, func.attr.value))
        elif isinstance(func, cst.Subscript) and len(func.slice) == 1 and isinstance(func.slice[0].slice, cst.Index):
            key = func.slice[0].slice.value  # `self.refs[0]()`: an entry
            index = int(key.value) if isinstance(key, cst.Integer) else None
            values.extend(self.element_values(func.value, index, depth + 1) or ())
        for value in values:
            if (
                isinstance(value, cst.Call)
                and value.args
                and not value.args[0].star
                and made.get(id(value)) in t.reference_makers
            ):
                return value.args[0].value
        return None

    def entered_value(self, cm: cst.BaseExpression) -> Optional[cst.BaseExpression]:
        """What `with cm as x` binds x to, as an expression of this module's parent map: the first argument
        of a context manager that hands it back ([callables] context_values: `contextlib.nullcontext(c)`), an
        element of what a generator made a context manager yields (context_generators: `@contextmanager`),
        what `cm.__enter__()` returns for an object of a module class defining it (context_protocol);
        None when unknown."""
        cache = self.__dict__.setdefault("_entered_nodes", {})
        if id(cm) in cache:
            return cache[id(cm)]
        cache[id(cm)] = None  # cycles
        t = self.tables
        found = None
        if isinstance(cm, cst.Call):
            if (
                cm.args
                and not cm.args[0].star
                and cm.args[0].keyword is None
                and self.qualified(cm) in t.context_values
            ):
                found = cm.args[0].value
            elif self.qualified(cm) in t.self_entering_contexts:
                found = cm  # `with ExitStack() as stack`: the manager itself
            else:
                generators = [
                    target
                    for target, _, _ in self.return_targets(cm)
                    if isinstance(target, cst.FunctionDef)
                    and any(self._named_in(d.decorator, t.context_generators) for d in target.decorators)
                ]
                if generators:
                    # the generator's (first) yield: the yielded expression itself when it reads no parameter
                    # but self (`yield self.kv_caches`: a dict of caches stays one), else an element of the call
                    found = self._free_yield(generators) or self._element_of(cm, None)
        if found is None and isinstance(cm, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)):
            owner = self.instance_class(cm)
            method = next((m for m in sorted(t.context_protocol) if owner and self.find_method(owner, m)), None)
            if method is not None:
                found = cst.Call(func=self._attribute(cm, method))
                self.parents.setdefault(found, self.parents.get(cm))
        cache[id(cm)] = found
        return found

    def _free_yield(self, generators: List[cst.FunctionDef]) -> Optional[cst.BaseExpression]:
        """The one value the one generator yields, when it names none of its parameters but self."""
        if len(generators) != 1:
            return None
        yields, delegated = self._yield_values(generators[0])
        if len(yields) != 1 or delegated:
            return None
        params = generators[0].params
        names = {p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)} - {"self"}
        if any(isinstance(n, cst.Name) and n.value in names for n in iter_nodes(yields[0], cst.Name)):
            return None
        return yields[0]

    def _runner_names(self) -> frozenset:
        found = self.derived.get("runner_names")
        if found is None:
            found = self.derived["runner_names"] = frozenset(
                n.rsplit(".", 1)[-1] for n in self.tables.coroutine_runners
            )
        return found

    def _plain_param(self, value: cst.BaseExpression) -> Optional[cst.Param]:
        """The parameter a name reads when that is all that reaches it."""
        if not isinstance(value, cst.Name):
            return None
        reaching = self.reaching(value)
        if len(reaching) != 1:
            return None
        node = reaching[0].node
        param = self.param_of(node)
        return param if isinstance(param, cst.Param) else None

    def param_class(self, param: cst.Param, self_cls: Optional[cst.ClassDef], depth: int) -> Optional[cst.ClassDef]:
        """The class of what the visible calls pass for an unannotated parameter: a plain
        function's callers, or for `__init__` the constructions of the classes that inherit it and
        the `super().__init__(...)` calls that reach it (those of self_cls or its subclasses only,
        when self is known to be one: `self.resource` in a subclass's method is what that
        subclass's `super().__init__(...)` passes). Several classes read as their nearest common
        base in the module (whose subclasses' overrides return_targets adds), else none."""
        if depth > 4:
            return None
        owner = self._param_owner(param)
        if not isinstance(owner, cst.FunctionDef):
            return None
        cache = self.derived.setdefault("param_class", {})
        key = (id(param), id(self_cls))
        if key in cache:
            return cache[key]
        cache[key] = None  # cycles
        cls = self.method_class(owner)
        calls: List[tuple] = []
        if cls is not None and owner.name.value == "__init__":
            below = self.class_family(self_cls) if self_cls is not None else None

            def fits(made) -> bool:
                return below is None or (made is not None and self_cls in self.class_mro(made))

            for member in self.class_family(cls):
                if fits(member) and self.find_method(member, "__init__") is owner:
                    calls.extend(
                        (c, True) for c in self.constructor_calls(member) if self.constructed_class(c) is member
                    )
            for call in self._super_init_calls():
                caller = self.enclosing_class(call)
                if caller is not None and fits(caller) and owner in self._super_targets(caller, "__init__", False):
                    calls.append((call, True))
        elif self._bindings:
            return None  # under a followed call, passed_arguments decides
        else:
            calls = [(c, skip) for c, skip, env in self._callers_of(owner) if not env]
        found: List[cst.ClassDef] = []
        for call, skip in calls:
            argument = self._argument_for(call, owner, param, skip_self=skip)
            made = self.instance_class(argument, depth + 1) if argument is not None else None
            if made is not None and made not in found:
                found.append(made)
        result = found[0] if len(found) == 1 else None
        if len(found) > 1:
            common = [c for c in self.c3_mro(found[0]) if all(c in self.class_mro(o) for o in found[1:])]
            result = common[0] if common else None
        cache[key] = result
        return result

    def _super_init_calls(self) -> List[cst.Call]:
        """The module's `super().__init__(...)` calls (once per module)."""
        found = self.derived.get("super_init_calls")
        if found is None:
            found = self.derived["super_init_calls"] = [
                call
                for call in self.nodes.calls
                if isinstance(call.func, cst.Attribute)
                and call.func.attr.value == "__init__"
                and isinstance(call.func.value, cst.Call)
                and isinstance(call.func.value.func, cst.Name)
                and call.func.value.func.value == "super"
            ]
        return found

    def duck_class(self, receiver: cst.BaseExpression, name: str, method: bool) -> Optional[cst.ClassDef]:
        """The class of this module an object of unknown class is, told by what it is used for:
        the one class that defines the method `name` (method) or assigns `self.name` (else), when
        exactly one does (`rm.managers["kv"].impl_pool`, `mgr.get_buffers(i)` with mgr fetched
        from a registry). Never for self, super() or a class of the module, nor for a container or
        tensor method name."""
        if isinstance(receiver, cst.Name) and receiver.value in ("self", "cls"):
            return None
        if isinstance(receiver, cst.Call) and isinstance(receiver.func, cst.Name) and receiver.func.value == "super":
            return None
        shadowing = False  # a container method's name the module's own class defines (`index.update(k, labels)`)
        if method:
            from castlint.analysis.pool_classes import _never_learnt

            if name not in self.tables.duck_protocol and (name in _never_learnt(self.tables) or name.startswith("__")):
                if name not in _container_only_names(self.tables):
                    return None
                shadowing = True
        cache = self.derived.setdefault("duck_classes", {})
        key = (name, method)
        if key not in cache:
            owners = [
                cls
                for cls in self.module_classes().values()
                if (
                    name in self.class_methods(cls)
                    if method
                    else bool(self.self_attr_values(cls, name))
                    or (self.is_record(cls) and name in self.record_fields(cls))  # `meta.cache_ref` of a dataclass
                )
            ]
            cache[key] = owners[0] if len(owners) == 1 else None
        found = cache[key]
        if found is None or self.class_named(receiver) is not None or self.instance_class(receiver) is not None:
            return None
        if shadowing and not self._duck_shadowing_call(receiver, name, found):
            return None
        return found

    def _duck_shadowing_call(self, receiver: cst.BaseExpression, name: str, cls: cst.ClassDef) -> bool:
        """`layer.index.update(k_buf, labels)` with `update` a dict method but also the method of one class of
        the module: that class's, when the call passes arguments that fit its signature (no star, the
        positional count and keyword names) and the receiver is nothing the module binds to another value (a
        parameter, an attribute of one, or a `self.x` only ever assigned names or attributes)."""
        attribute = self.parents.get(receiver)
        call = self.parents.get(attribute) if isinstance(attribute, cst.Attribute) else None
        if not isinstance(call, cst.Call) or call.func is not attribute or not call.args:
            return False
        target = self.find_method(cls, name)
        if not isinstance(target, cst.FunctionDef) or any(a.star for a in call.args):
            return False
        params = target.params
        positional = [*params.posonly_params, *params.params][1:]
        given = sum(1 for a in call.args if a.keyword is None)
        if params.star_arg is cst.MaybeSentinel.DEFAULT or not isinstance(params.star_arg, cst.Param):
            if given > len(positional):
                return False
        named = {p.name.value for p in [*positional, *params.kwonly_params]}
        keywords = [a.keyword.value for a in call.args if a.keyword is not None]
        if params.star_kwarg is None and any(k not in named for k in keywords):
            return False
        bound = given + sum(1 for p in positional[given:] if p.name.value in keywords)
        if bound < sum(1 for p in positional if p.default is None):
            return False
        if isinstance(receiver, cst.Name):
            return all(
                isinstance(a.node, cst.Param) or isinstance(self.parents.get(a.node), cst.Param)
                for a in self.reaching(receiver)
            )
        if not isinstance(receiver, cst.Attribute):
            return False
        owner = receiver.value
        if isinstance(owner, cst.Name) and owner.value == "self":
            enclosing = self.enclosing_class(receiver)
            values = self.self_attr_values(enclosing, receiver.attr.value) if enclosing is not None else []
            return all(isinstance(v, (cst.Name, cst.Attribute)) for v in values)
        return isinstance(owner, (cst.Name, cst.Attribute))

    def constructed_class(self, call: cst.Call) -> Optional[cst.ClassDef]:
        """The class of this module a call constructs: `C(...)`, or the enclosing class made
        from inside it (`cls(...)` in a classmethod, `type(self)(...)`, `self.__class__(...)`)."""
        func = call.func
        name = _dotted(func)
        found = self.module_classes().get(name) if name else None
        if found is None and name and name.startswith(("self.", "cls.")) and name.count(".") == 1:
            # `self.Inner(...)`: a class nested in the enclosing class (or a base of it)
            enclosing = self.enclosing_class(call)
            for owner in self.class_mro(enclosing) if enclosing is not None else ():
                found = self.module_classes().get(f"{owner.name.value}.{name.split('.', 1)[1]}")
                if found is not None:
                    break
        if found is not None or not isinstance(func, (cst.Name, cst.Call, cst.Attribute)):
            return found
        if isinstance(func, cst.Attribute) and func.attr.value in self.tables.record_make_methods:
            made = self.module_classes().get(_dotted(func.value) or "")
            if made is not None and self.is_record(made):  # `Rec._make(pair)`: Rec(*pair)
                return made
        if isinstance(func, cst.Name):
            own = func.value == "cls" and all(
                isinstance(a.node, cst.Param) or isinstance(self.parents.get(a.node), cst.Param)
                for a in self.reaching(func)
            )
        elif isinstance(func, cst.Call):
            own = (
                isinstance(func.func, cst.Name)
                and func.func.value == "type"
                and len(func.args) == 1
                and isinstance(func.args[0].value, cst.Name)
                and func.args[0].value.value == "self"
            )
        else:
            own = func.attr.value == "__class__" and isinstance(func.value, cst.Name) and func.value.value == "self"
        if own:
            return self.enclosing_class(call)
        held = self.held_construction(call)
        return self.constructed_class(held) if held is not None else None

    def held_construction(self, call: cst.Call) -> Optional[cst.Call]:
        """`C(bound..., args...)` as a node of this module's parent map for a call of a class held under
        another name: a partial of it (`self._reader = functools.partial(Reader, pool.k_buffer)`;
        `self._reader(i)` is `Reader(pool.k_buffer, i)`), a name or attribute assigned it (`engine_cls =
        PagedEngine` in a class body: `self.engine_cls(n)`); None otherwise."""
        func = call.func
        while isinstance(func, cst.Subscript):  # `self.kinds["paged"](pool)`: the table's entries
            func = func.value
        found = self.held_constructions(call)
        return found[0] if found else None

    def held_constructions(self, call: cst.Call) -> List[cst.Call]:
        """Every construction held_construction may stand for: each class the holder may hold (`reader_cls =
        RowsReader` in a base, `= WholeReader` in a subclass: either)."""
        func = call.func
        while isinstance(func, cst.Subscript):
            func = func.value
        spelled = (
            func.value if isinstance(func, cst.Name) else func.attr.value if isinstance(func, cst.Attribute) else None
        )
        if spelled is None or spelled not in self._class_holders():
            return []
        cache = self.__dict__.setdefault("_held_constructions", {})
        if id(call) in cache:
            return cache[id(call)]
        cache[id(call)] = []  # cycles
        found = []
        for form, bound in self.callable_values(call.func):
            if isinstance(form, (cst.Name, cst.Attribute)) and self.class_named(form) is not None:
                made = cst.Call(func=form, args=self.merged_args(bound, call.args))
                self.parents.setdefault(made, self.parents.get(call))
                found.append(made)
        cache[id(call)] = found
        return found

    def _class_holders(self) -> frozenset:
        """The names and attributes an assignment gives a value that names a class of the module not as a
        callee (`reader_cls = PlaneReader`, `self._reader = partial(PlaneReader, ...)`, `{"paged": Paged}`):
        only a call through one of them may construct a class held under another name."""
        found = self.__dict__.get("_class_holders_memo")
        if found is not None:
            return found
        out = set()
        references = []
        for cls in self.nodes.classes:  # the Names reading a class (libcst's accesses of its binding)
            scope = self.scopes.get(cls)
            if scope is not None:
                for assignment in scope.assignments[cls.name.value]:
                    references.extend(access.node for access in getattr(assignment, "references", ()))
        for node in references:
            if not isinstance(node, cst.Name):
                continue
            parent = self.parents.get(node)
            if isinstance(parent, cst.Call) and parent.func is node:
                continue  # `Reader(...)`: a construction, not a held class
            if isinstance(parent, (cst.Attribute, cst.ClassDef, cst.Annotation)):
                continue
            for anc in self.ancestors(node):
                if isinstance(anc, (cst.Assign, cst.AnnAssign)):
                    targets = [t.target for t in anc.targets] if isinstance(anc, cst.Assign) else [anc.target]
                    for target in targets:
                        if isinstance(target, cst.Name):
                            out.add(target.value)
                        elif isinstance(target, cst.Attribute):
                            out.add(target.attr.value)
                    break
                if isinstance(anc, (cst.BaseSmallStatement, cst.BaseCompoundStatement)):
                    break
        found = self._class_holders_memo = frozenset(out)
        return found

    def _subscript_elements(self, sub: cst.Subscript, depth: int):
        if len(sub.slice) != 1 or not isinstance(sub.slice[0].slice, cst.Index):
            return None
        key = sub.slice[0].slice.value
        return self.element_values(sub.value, int(key.value) if isinstance(key, cst.Integer) else None, depth + 1)

    def annotated_class(self, param) -> Optional[cst.ClassDef]:
        """The class of this module a parameter's (or an annotated assignment's) annotation
        names (`md: Meta`, `"Meta"`, `Optional[Meta]`)."""
        return self.annotation_class(param.annotation)

    def annotation_class(self, annotation: Optional[cst.Annotation]) -> Optional[cst.ClassDef]:
        if annotation is None:
            return None
        named = self._annotated_classes(annotation.annotation)
        # a typing.Protocol is structural: any class with its methods may be the object (duck_class)
        return None if not named or self._is_protocol(named[0]) else named[0]

    def _annotated_classes(self, annotation: cst.BaseExpression) -> List[cst.ClassDef]:
        """The module's classes an annotation names, in order (`Optional[Meta]`, `"Pool | Rows"`)."""
        classes = self.module_classes()
        out: List[cst.ClassDef] = []
        for node in iter_names(annotation):
            text = node.evaluated_value if isinstance(node, cst.SimpleString) else node.value
            words = (
                _ANNOTATION_WORD.findall(text)
                if isinstance(node, cst.SimpleString) and isinstance(text, str)
                else [text]
            )
            out.extend(classes[w] for w in words if isinstance(w, str) and w in classes and classes[w] not in out)
        return out

    def union_peers(self, cls: cst.ClassDef) -> List[cst.ClassDef]:
        """The other classes of the module an annotation names beside cls (`Union[Pool, Staged]`,
        `Pool | Staged`, `Optional[...]` of them): an object so annotated may be any of them."""
        groups = self.__dict__.get("_union_groups")
        if groups is None:
            groups = self._union_groups = []
            for node in iter_nodes(self.module, cst.Annotation):
                named = self._annotated_classes(node.annotation)
                if len(named) > 1:
                    groups.append(named)
        return [other for group in groups if cls in group for other in group if other is not cls]

    def _is_protocol(self, cls: cst.ClassDef) -> bool:
        return any((_dotted(b.value) or "").rsplit(".", 1)[-1] == "Protocol" for b in cls.bases)

    def class_named(self, expr: cst.BaseExpression) -> Optional[cst.ClassDef]:
        """`Cls` in `Cls.m(...)`: a class of this module named by itself (or `cls` in a
        classmethod), not an instance."""
        if (isinstance(expr, cst.Call) and self._names_self_type(expr)) or (
            isinstance(expr, cst.Attribute)
            and expr.attr.value == "__class__"
            and isinstance(expr.value, cst.Name)
            and expr.value.value == "self"
        ):  # `type(self)._shared`, `self.__class__._shared`: the class self is an instance of
            return self.self_class() or self.enclosing_class(expr)
        if isinstance(expr, cst.Name):
            if expr.value == "cls":
                return self.enclosing_class(expr)
            found = self.module_classes().get(expr.value)
            if found is not None and all(isinstance(a.node, cst.ClassDef) for a in self.reaching(expr)):
                return found
        return None

    def _names_self_type(self, call: cst.Call) -> bool:
        return (
            isinstance(call.func, cst.Name)
            and call.func.value == "type"
            and len(call.args) == 1
            and isinstance(call.args[0].value, cst.Name)
            and call.args[0].value.value == "self"
            and "type" not in self.module_classes()
        )

    def _unwrapped_targets(self, call: cst.Call, depth: int) -> List[tuple]:
        """`f.__wrapped__(x)`, `type(self).m.__wrapped__(self, x)` ([callables] unwrapped_attributes): the def
        under its decorators (what `functools.wraps`, `lru_cache` and `cache` keep there), every argument
        explicit (the attribute of a bound method is the plain function). The def is the one the same
        call without the attribute reaches, or whose decorators made the wrapper that call reaches."""
        inner = call.func.value
        if isinstance(inner, cst.Name):
            name = inner.value
        elif isinstance(inner, cst.Attribute):
            name = inner.attr.value
        else:
            return []
        cache = self.__dict__.setdefault("_unwrapped_calls", {})
        synthetic = cache.get(id(call))
        if synthetic is None:
            synthetic = cache[id(call)] = cst.Call(func=inner, args=call.args)
            self.parents.setdefault(synthetic, self.parents.get(call))
        out: List[tuple] = []
        for target, _, _ in self.return_targets(synthetic, depth + 1):
            if not (isinstance(target, cst.FunctionDef) and target.name.value == name):
                target = next(
                    (
                        f
                        for f in self.nodes.decorated_defs
                        if f.name.value == name and any(w is target for w in self.decoration_wrappers(f))
                    ),
                    None,
                )
            if target is not None and not any(t is target for t, _, _ in out):
                out.append((target, False, None))
        return out

    def return_targets(self, call: cst.Call, depth: int = 0) -> List[tuple]:
        """(def or lambda, skip_self, env) a call reaches whose return value is its own:
        `f(...)` of a local function or named lambda, `self.m(...)` (and the overrides of m in
        subclasses: self may be one), `super().m(...)`, `Cls.m(...)` (static and class
        methods), `obj.m(...)` on an instance of a class of this module, `make(a)(b)` (the
        closure make returns), `fn(...)` of a parameter that holds a callable under the calls
        being followed. A decorated def is what its decorators made of it (decorated()). env:
        the bindings the target runs under (a closure's: its factory's parameters bound by the
        call that made it), None for none."""
        func = call.func
        if isinstance(func, cst.Lambda):  # `(lambda t: t.half())(pool)`: invoked where it is made
            return [(func, False, None)]
        if isinstance(func, cst.Name):
            if func.value not in self.nodes.local_callables:
                return self.held_callables(func)
            return [form for t in self._callable_targets(func) for form in self.decorated(t, False)]
        if isinstance(func, cst.Lambda):  # a lambda called where it is written (a fold's step applied)
            return [(func, False, None)]
        if isinstance(func, cst.Call):  # make(a)(b): the closure make returns
            return [
                (form[1], form[3], form[2])
                for form, _ in self._callable_forms(func, depth)
                if isinstance(form, tuple) and form[0] == "closure"
            ]
        if not isinstance(func, cst.Attribute):
            return []
        if func.attr.value in self.tables.unwrapped_attributes:
            return self._unwrapped_targets(call, depth)
        explicit = self.property_getter_call(call)
        if explicit is not None:  # `Base.latent.fget(obj)`: Base's getter with self the first argument
            return [(explicit[0], False, None)]
        method, receiver = func.attr.value, func.value
        if isinstance(receiver, cst.Call) and isinstance(receiver.func, cst.Name) and receiver.func.value == "super":
            cls = self.super_start(call)
            if cls is None:
                return []
            return [form for target in self._super_targets(cls, method) for form in self.decorated(target, True)]
        owner = self.class_named(receiver)
        through_class = owner is not None  # `Base.m(self, x)`: an instance method's self is passed
        if owner is None and self._class_valued(receiver, depth + 1):
            # `base = type(self).__bases__[0]; base.read(self, k)`: that class's own def, self passed
            targets = [self._first_def(c, method) for c in self.computed_classes(receiver, depth + 1)]
            return [form for t in targets if t is not None for form in self.decorated(t, self._self_bound(t))]
        if owner is None:
            owner = self.reassigned_class(receiver) or self.instance_class(receiver, depth + 1)
        if owner is None:
            return []
        if isinstance(receiver, cst.Name) and receiver.value == "self":
            context = self.self_class()  # self is known to be this subclass of the method's class
            if context is not None and context is not owner and owner in self.class_mro(context):
                owner = context
        order = self.c3_mro(owner)
        target = next((m for m in (self.class_function(c, method) for c in order) if m is not None), None)
        out = self.decorated(target, not through_class or self._self_bound(target)) if target is not None else []
        if isinstance(target, cst.FunctionDef) and target.decorators and self._dispatch_generic(target):
            # `functools.singledispatchmethod`: a call runs one of the overloads the class registers
            # (`@_dense.register def _(self, x: torch.Tensor)`), whatever their names
            family = {id(c) for c in self.class_family(owner)}
            for overload in self.dispatch_overloads().get(method, ()):
                if id(self.method_class(overload)) in family:
                    out.extend(self.decorated(overload, not through_class or self._self_bound(overload)))
        guarded = isinstance(receiver, cst.Name) and receiver.value != "self" and self._type_guards(receiver)
        exact = None if through_class else self.exact_classes(receiver, depth + 1)
        for other in self.class_family(owner):  # an override in a subclass (an abstract method's body)
            if guarded and not self.admitted(receiver, other):
                continue  # `else:` of `if isinstance(src, WholeSource)`: not that subclass's override
            if exact is not None and other not in exact:
                continue  # `RowPool(...)` built where it is used: no other subclass's override runs
            if other is not owner and owner in self.class_mro(other):
                override = self.class_function(other, method)
                if override is not None and override is not target:
                    out.extend(self.decorated(override, not through_class or self._self_bound(override)))
        return out

    def exact_classes(self, receiver: cst.BaseExpression, depth: int = 0) -> Optional[List[cst.ClassDef]]:
        """The classes the object receiver holds is exactly an instance of, when every construction that
        made it names a class of the module (`h = RowsHandle(...)`, `self.rows = RowPool(...)`) whose MRO
        defines no `__new__` (which may return a subclass); a `h.__class__ = C` before the use: C. None
        when unknown: `self`, a parameter, `cls(...)` or `type(self)(...)` may be any subclass."""
        if isinstance(receiver, cst.Name) and receiver.value == "self":
            return None
        switched = self.reassigned_class(receiver)
        if switched is not None:
            return [switched]
        frames = self.construction_frames(receiver, depth)
        if not frames:
            return None
        classes = self.module_classes()
        out: List[cst.ClassDef] = []
        for call, _ in frames:
            name = _dotted(call.func)
            cls = classes.get(name) if name else None
            if cls is None or any("__new__" in self.class_methods(c) for c in self.c3_mro(cls)):
                return None
            if cls not in out:
                out.append(cls)
        return None if self._class_switched_in_loop(receiver) else out

    def _class_reassignments(self, receiver: cst.BaseExpression) -> List[cst.Assign]:
        """`receiver.__class__ = C` statements of the function receiver is read in (same spelling)."""
        spelled = _dotted(receiver)
        func = self.enclosing_function(receiver) if spelled else None
        if func is None:
            return []
        found = self.__dict__.setdefault("_class_stores", {})
        stores = found.get(id(func))
        if stores is None:
            stores = found[id(func)] = [
                assign
                for attr in self.nodes.attributes
                if attr.attr.value == "__class__" and isinstance(self.parents.get(attr), cst.AssignTarget)
                for assign in [self.parents.get(self.parents.get(attr))]
                if isinstance(assign, cst.Assign) and self.enclosing_function(assign) is func
            ]
        return [
            node
            for node in stores
            if any(_dotted(t.target.value) == spelled for t in node.targets if isinstance(t.target, cst.Attribute))
        ]

    def _class_switched_in_loop(self, receiver: cst.BaseExpression) -> bool:
        """Is receiver's class switched inside a loop (a read before the switch may follow it)?"""
        func = self.enclosing_function(receiver)
        return any(self._in_loop(node, func) for node in self._class_reassignments(receiver))

    def reassigned_class(self, receiver: cst.BaseExpression) -> Optional[cst.ClassDef]:
        """C of the last `receiver.__class__ = C` that comes before receiver's read in its function."""
        stores = self._class_reassignments(receiver)
        where = self.positions.get(receiver) if stores else None
        if where is None:  # no switch, or a node the index made
            return None
        at = (where.start.line, where.start.column)
        before = [node for node in stores if (self.positions[node].end.line, self.positions[node].end.column) <= at]
        if not before:
            return None
        return self.class_named(before[-1].value)

    def class_function(self, cls: cst.ClassDef, name: str):
        """The def, or the lambda stored as a method (installed_methods), that cls itself defines as name."""
        found = self.class_methods(cls).get(name)
        return found if found is not None else self.class_lambdas(cls).get(name)

    def function_returns(self, func) -> List[cst.BaseExpression]:
        """What a def returns (its `return` values) or a lambda (its body)."""
        return [func.body] if isinstance(func, cst.Lambda) else self._return_values(func)

    def _self_bound(self, func) -> bool:
        """Does a call through the class (`Cls.m(x)`) leave out self: a class or static method (class_bound);
        a lambda stored as a method takes self first, as a def does."""
        return False if isinstance(func, cst.Lambda) else self.class_bound(func)

    def property_getter_call(self, call: cst.Call):
        """(getter, class) when call runs a property's getter explicitly on its first argument:
        `Base.latent.fget(obj)`, `Base.latent.__get__(obj, Base)` ([callables] property_getter_calls);
        else None."""
        func = call.func
        if not (
            isinstance(func, cst.Attribute)
            and func.attr.value in self.tables.property_getter_calls
            and isinstance(func.value, cst.Attribute)
            and call.args
            and not call.args[0].star
            and call.args[0].keyword is None
        ):
            return None
        owner = self.class_named(func.value.value)
        getter = self.property_getter(owner, func.value.attr.value) if owner is not None else None
        return (getter, owner) if getter is not None else None

    def class_bound(self, func) -> bool:
        """Is func callable through its class without an instance (rules/accessors.toml [callables]
        class_bound_decorators: a classmethod, a staticmethod), or not a def (a class-body value)?"""
        if not isinstance(func, cst.FunctionDef):
            return True
        if func.name.value in self.tables.implicit_classmethods:  # `__class_getitem__(cls, k)`
            return True
        return any(self._named_in(d.decorator, self.tables.class_bound_decorators) for d in func.decorators)
