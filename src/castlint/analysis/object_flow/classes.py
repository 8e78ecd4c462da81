"""The module's classes: methods, bases and MRO, properties, records (dataclasses, NamedTuples)
and their fields, and classes made by calls."""

from __future__ import annotations

from typing import Dict, List, Optional

import libcst as cst

from castlint.analysis.object_flow.shared import SELF_CLASS, _dotted
from castlint.analysis.tree import own_nodes


def _field_names(node) -> List[str]:
    """The field names of namedtuple("N", node): ["a", "b"], ("a", "b"), "a b", "a, b",
    or [("a", T), ...]."""
    if isinstance(node, cst.SimpleString):
        text = node.evaluated_value
        names = text.replace(",", " ").split() if isinstance(text, str) else []
    elif isinstance(node, (cst.List, cst.Tuple)):
        names = []
        for element in node.elements:
            value = element.value
            if isinstance(value, (cst.Tuple, cst.List)) and value.elements:
                value = value.elements[0].value
            if not isinstance(value, cst.SimpleString) or not isinstance(value.evaluated_value, str):
                return []
            names.append(value.evaluated_value)
    else:
        return []
    return names if all(n.isidentifier() for n in names) else []


def _record_class(name: str, fields: List[str]) -> cst.ClassDef:
    """A NamedTuple class with these fields, standing for a namedtuple(...) made one."""
    body = "".join(f"    {f}: object\n" for f in fields) or "    pass\n"
    return cst.parse_statement(f"class {name}(NamedTuple):\n{body}")


def _made_class(name: str, bases: List[str]) -> cst.ClassDef:
    """`class name(bases): pass`, standing for a class made by a call (type(...), types.new_class)."""
    return cst.parse_statement(f"class {name}({', '.join(bases)}):\n    pass\n")


class ModuleClasses:
    def module_classes(self) -> Dict[str, cst.ClassDef]:
        found = getattr(self, "_module_classes", None)
        if found is None:
            found = {}
            for node in self.nodes.classes:
                found.setdefault(node.name.value, node)
            for node in self.nodes.classes:  # `Outer.Inner(...)`: a class nested in another
                for inner in node.body.body:
                    if isinstance(inner, cst.ClassDef):
                        found.setdefault(f"{node.name.value}.{inner.name.value}", inner)
            for name, fields in self._factory_records():
                found.setdefault(name, _record_class(name, fields))
            for spelled, fields in self._namespace_records().items():
                found.setdefault(spelled, _record_class(spelled.replace(".", "_"), fields))
            for name, (bases, _) in self.made_classes().items():
                found.setdefault(name, _made_class(name, bases))
            self._module_classes = found
        return found

    def installed_methods(self) -> tuple:
        """Functions stored on a class outside a def of it: ({id(def or lambda): class}, {id(class): {name: def}},
        {id(class): {name: lambda}}, {id(class): {name: getter}}, {id(class): {name: [defs]}}: the defs a method
        binds to its instance under one name, `self.n = types.MethodType(f if c else g, self)`). A class
        decorator of the module (`@with_accessors`, `@with_accessors(...)`) that assigns a def to an attribute of
        its first parameter
        (`cls.plane = plane`, `setattr(cls, "plane", plane)`) installs it in each class it decorates; a
        module-level `Cls.m = f` or `setattr(Cls, "m", f)` installs f in Cls, a def or a lambda
        (`setattr(Pool, "get_planes", lambda self, i: ...)`), and so does a class body's `m = lambda self, i:
        ...`: called through an instance, self is bound to it. A property made by a call (`k = property(lambda
        self: ...)`, `property(fget=_read)`, `Cls.k = property(...)`; rules/casts.toml property_decorators,
        [callables] property_getter_keywords) has that getter, run with self the instance read. Once per
        module, from the module's top-level statements, the class bodies and those decorators' bodies."""
        found = self.__dict__.get("_installed")
        if found is not None:
            return found
        found = self._installed = ({}, {}, {}, {}, {})
        body = self.module.body
        top_defs = {s.name.value: s for s in body if isinstance(s, cst.FunctionDef)}
        classes = {s.name.value: s for s in body if isinstance(s, cst.ClassDef)}
        if not self.nodes.classes:
            return found

        def getter_of(value: cst.BaseExpression, defs: Dict[str, cst.FunctionDef]):
            """The getter a property call holds (its first argument or fget=), a lambda or a def; else None."""
            if not (
                isinstance(value, cst.Call)
                and isinstance(value.func, (cst.Name, cst.Attribute))
                and self.tables.is_property_decorator(_dotted(value.func))
            ):
                return None
            held = next((a.value for a in value.args if a.keyword is None and not a.star), None)
            keywords = self.tables.property_getter_keywords
            held = next((a.value for a in value.args if a.keyword is not None and a.keyword.value in keywords), held)
            if isinstance(held, cst.Name):
                held = defs.get(held.value)
            return held if isinstance(held, (cst.Lambda, cst.FunctionDef)) and held.params.params else None

        def install(cls: cst.ClassDef, name: str, value: cst.BaseExpression, defs: Dict[str, cst.FunctionDef]):
            getter = getter_of(value, defs)
            if getter is not None:
                if self.method_class_of_body(getter) is None:
                    found[0].setdefault(id(getter), cls)  # a module-level def: self is an instance of cls
                found[3].setdefault(id(cls), {})[name] = getter
                return
            if isinstance(value, cst.Lambda):
                if value.params.params:
                    found[0].setdefault(id(value), cls)
                    found[2].setdefault(id(cls), {})[name] = value
                return
            func = defs.get(value.value) if isinstance(value, cst.Name) else None
            if func is not None and func.params.params:
                found[0].setdefault(id(func), cls)
                found[1].setdefault(id(cls), {})[name] = func

        def stores(statements, owners):
            """(owner, attr, value) for `owner.attr = value` and `setattr(owner, "attr", value)`."""
            for stmt in statements:
                if not isinstance(stmt, cst.SimpleStatementLine):
                    continue
                for small in stmt.body:
                    if isinstance(small, cst.Assign) and len(small.targets) == 1:
                        target = small.targets[0].target
                        if (
                            isinstance(target, cst.Attribute)
                            and isinstance(target.value, cst.Name)
                            and target.value.value in owners
                        ):
                            yield target.value.value, target.attr.value, small.value
                    elif isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
                        call = small.value
                        args = call.args
                        if (
                            isinstance(call.func, (cst.Name, cst.Attribute))
                            and self._object_setter(call.func)
                            and len(args) == 3
                            and not any(a.star or a.keyword is not None for a in args)
                            and isinstance(args[0].value, cst.Name)
                            and args[0].value.value in owners
                            and isinstance(args[1].value, cst.SimpleString)
                            and isinstance(args[1].value.evaluated_value, str)
                        ):
                            yield args[0].value.value, args[1].value.evaluated_value, args[2].value

        for cls in self.nodes.classes:  # the class body's own lambdas and property calls
            inner = cls.body.body if isinstance(cls.body, cst.IndentedBlock) else ()
            defs = {**top_defs, **{s.name.value: s for s in inner if isinstance(s, cst.FunctionDef)}}
            for stmt in inner:
                for small in stmt.body if isinstance(stmt, cst.SimpleStatementLine) else ():
                    if (
                        isinstance(small, cst.Assign)
                        and len(small.targets) == 1
                        and isinstance(small.targets[0].target, cst.Name)
                        and (isinstance(small.value, cst.Lambda) or getter_of(small.value, defs) is not None)
                    ):
                        install(cls, small.targets[0].target.value, small.value, defs)
        storing = self._storing_functions()
        for cls in self.nodes.classes:  # `self.n = types.MethodType(f, self)` in a method: f installed as n
            inner = cls.body.body if isinstance(cls.body, cst.IndentedBlock) else ()
            for method in inner:
                if isinstance(method, cst.FunctionDef) and method.params.params and id(method) in storing:
                    for name, func in self._bound_to_self(method, top_defs):
                        found[0].setdefault(id(func), cls)
                        found[1].setdefault(id(cls), {}).setdefault(name, func)
                        found[4].setdefault(id(cls), {}).setdefault(name, []).append(func)
        for cls in classes.values():
            for decorator in cls.decorators:
                expr = decorator.decorator
                if isinstance(expr, cst.Call):
                    expr = expr.func
                deco = top_defs.get(expr.value) if isinstance(expr, cst.Name) else None
                if deco is None or not deco.params.params or not isinstance(deco.body, cst.IndentedBlock):
                    continue
                param = deco.params.params[0].name.value
                inner = deco.body.body
                if isinstance(decorator.decorator, cst.Call):  # a factory: the decorator is the def it returns
                    made = [s for s in inner if isinstance(s, cst.FunctionDef)]
                    if len(made) != 1 or not made[0].params.params or not isinstance(made[0].body, cst.IndentedBlock):
                        continue
                    param, inner = made[0].params.params[0].name.value, made[0].body.body
                defs = {**top_defs, **{s.name.value: s for s in inner if isinstance(s, cst.FunctionDef)}}
                for _, name, value in stores(inner, {param}):
                    install(cls, name, value, defs)
        for cls_name, name, value in stores(body, classes):
            install(classes[cls_name], name, value, top_defs)
        made = self.module_classes()
        for cls_name, (_, members) in self.made_classes().items():  # `type("N", bases, {"m": lambda ...})`
            for name, value in members:
                install(made[cls_name], name, value, top_defs)
        return found

    def _storing_functions(self) -> set:
        """ids of the defs whose bodies (or a class nested in them) store a call's value on an attribute
        (`self.n = f(...)`) or call something with three positional arguments, the first a name
        (`setattr(self, "n", f)`): the only defs _bound_to_self can find a store in."""
        out = set()
        for target, value in self.nodes.attribute_stores:
            if type(value) is cst.Call:
                out.add(id(self.enclosing_function(target)))
        for call in self.nodes.calls:
            args = call.args
            if len(args) == 3 and type(args[0].value) is cst.Name:
                out.add(id(self.enclosing_function(call)))
        return out

    def _bound_to_self(self, method: cst.FunctionDef, defs: Dict[str, cst.FunctionDef]):
        """(attribute, def) for each module def method binds to its own instance and stores on it:
        `self.n = types.MethodType(f, self)`, `partial(f, self)` ([callables] partial),
        `f.__get__(self)` ([callables] function_binders), `setattr(self, "n", <such>)`; f a def of the
        module, a local name assigned defs (`fn = _widen if quantized else _keep`): each of them, or a
        module class's method read unbound (`partial(Base.m, self)`: found in Base's MRO)."""
        me = method.params.params[0].name.value
        locals_: Dict[str, List[cst.BaseExpression]] = {}
        stores: List[tuple] = []

        for node in own_nodes(method):
            if type(node) is cst.Assign and len(node.targets) == 1:
                target = node.targets[0].target
                if isinstance(target, cst.Name):
                    locals_.setdefault(target.value, []).append(node.value)
                elif (
                    isinstance(target, cst.Attribute)
                    and isinstance(target.value, cst.Name)
                    and target.value.value == me
                ):
                    stores.append((target.attr.value, node.value))
            elif type(node) is cst.Call:
                args = node.args
                if (
                    len(args) == 3
                    and not any(a.star or a.keyword is not None for a in args)
                    and isinstance(args[0].value, cst.Name)
                    and args[0].value.value == me
                    and isinstance(args[1].value, cst.SimpleString)
                    and isinstance(args[1].value.evaluated_value, str)
                    and isinstance(node.func, (cst.Name, cst.Attribute))
                    and self._object_setter(node.func)
                ):
                    stores.append((args[1].value.evaluated_value, args[2].value))
        if not stores:
            return []
        t = self.tables

        def bound(value: cst.BaseExpression) -> Optional[cst.BaseExpression]:
            """The function value binds to self, else None."""
            if not isinstance(value, cst.Call):
                return None
            positional = [a.value for a in value.args if a.keyword is None and not a.star]
            if isinstance(value.func, cst.Attribute) and value.func.attr.value in t.function_binders:
                if positional and isinstance(positional[0], cst.Name) and positional[0].value == me:
                    return value.func.value
                return None
            if (
                isinstance(value.func, (cst.Name, cst.Attribute))
                and self._named_in(value.func, t.partial_callables)
                and len(positional) >= 2
                and isinstance(positional[1], cst.Name)
                and positional[1].value == me
            ):
                return positional[0]
            return None

        def defs_of(expr: cst.BaseExpression, depth: int = 0) -> List[cst.FunctionDef]:
            if isinstance(expr, cst.IfExp):
                return defs_of(expr.body, depth) + defs_of(expr.orelse, depth)
            if isinstance(expr, cst.Attribute):  # `Base.m`: unbound, the def of Base's MRO
                return [f for f in self._class_qualified_defs(expr) if f.params.params]
            if not isinstance(expr, cst.Name):
                return []
            if expr.value in locals_ and depth < 3:
                return [d for v in locals_[expr.value] for d in defs_of(v, depth + 1)]
            func = defs.get(expr.value)
            return [func] if func is not None and func.params.params else []

        found = []
        for name, value in stores:
            held = bound(value)
            if held is not None:
                found.extend((name, func) for func in defs_of(held))
        return found

    def method_class_of_body(self, func) -> Optional[cst.ClassDef]:
        """The class whose body holds func (a def or lambda) directly, else None."""
        for anc in self.ancestors(func):
            if isinstance(anc, cst.ClassDef):
                return anc
            if isinstance(anc, (cst.FunctionDef, cst.Lambda)):
                return None
        return None

    def class_lambdas(self, cls: cst.ClassDef) -> Dict[str, cst.Lambda]:
        """The lambdas stored on cls as methods (installed_methods)."""
        return self.installed_methods()[2].get(id(cls), {})

    def called_properties(self, cls: cst.ClassDef) -> Dict[str, object]:
        """name -> getter (a def or lambda) of the properties cls makes by a call (installed_methods)."""
        return self.installed_methods()[3].get(id(cls), {})

    def _object_setter(self, func: cst.BaseExpression) -> bool:
        """Is func a function that sets an attribute of the object it is given first (`setattr`,
        `object.__setattr__`: rules/accessors.toml [callables] object_setters)?"""
        setters = self.tables.object_setters
        name = _dotted(func)
        if not name or name.rsplit(".", 1)[-1] not in {n.rsplit(".", 1)[-1] for n in setters}:
            return False
        return self.qualified(func) in setters or name in setters

    def attribute_getter(self, func: cst.BaseExpression) -> bool:
        """Is func a function that reads the attribute its second argument names of its first (`getattr`,
        `object.__getattribute__`: rules/accessors.toml [callables] attribute_getters)?"""
        getters = self.tables.attribute_getters
        name = _dotted(func)
        if not name or name.rsplit(".", 1)[-1] not in {n.rsplit(".", 1)[-1] for n in getters}:
            return False
        return self.qualified(func) in getters or name in getters

    def _namespace_records(self) -> Dict[str, List[str]]:
        """`SimpleNamespace(kv=..., q=...)` (rules/accessors.toml [callables] namespace_constructors):
        a record, as spelled, whose fields are the keywords its calls in the module pass."""
        t = self.tables
        out: Dict[str, List[str]] = {}
        if not t.namespace_constructors:
            return out
        short = {n.rsplit(".", 1)[-1] for n in t.namespace_constructors}
        for call in self.nodes.calls:
            spelled = _dotted(call.func)
            if not spelled or spelled.rsplit(".", 1)[-1] not in short:
                continue
            if self.qualified(call.func) not in t.namespace_constructors and spelled not in t.namespace_constructors:
                continue
            fields = out.setdefault(spelled, [])
            for arg in call.args:
                if arg.keyword is not None and arg.keyword.value not in fields:
                    fields.append(arg.keyword.value)
        return out

    def _factory_records(self) -> List[tuple]:
        """(name, fields) of each module-level `Name = namedtuple("Name", fields)` (rules/
        accessors.toml [callables] record_factories): fields a list or tuple of names or of
        (name, type) pairs, or one string of names."""
        out = []
        for statement in self.module.body:
            if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
                continue
            assign = statement.body[0]
            if not (
                isinstance(assign, cst.Assign)
                and len(assign.targets) == 1
                and isinstance(assign.targets[0].target, cst.Name)
                and isinstance(assign.value, cst.Call)
                and _dotted(assign.value.func) in self.tables.record_factories
                and len(assign.value.args) >= 2
            ):
                continue
            fields = _field_names(assign.value.args[1].value)
            if fields:
                out.append((assign.targets[0].target.value, fields))
        return out

    def made_classes(self) -> Dict[str, tuple]:
        """name -> (spelled bases, [(method name, value)]) of each module-level `Name = type("N", (A, B),
        {"m": lambda self, i: ...})` or `types.new_class("N", (A,), exec_body=fill)` ([callables]
        class_makers; the namespace at a place of class_namespaces: a dict display, or a def of the
        module whose `ns["m"] = value` stores fill it). Once per module."""
        found = self.__dict__.get("_made_classes")
        if found is not None:
            return found
        found = self._made_classes = {}
        t = self.tables
        if not t.class_makers:
            return found
        assigned = set()
        top_defs = {s.name.value: s for s in self.module.body if isinstance(s, cst.FunctionDef)}
        for statement in self.module.body:
            small = statement.body[0] if isinstance(statement, cst.SimpleStatementLine) else None
            if not (
                isinstance(small, cst.Assign)
                and len(small.targets) == 1
                and isinstance(small.targets[0].target, cst.Name)
                and isinstance(small.value, cst.Call)
                and self._named_in(small.value.func, t.class_makers)
            ):
                continue
            args = small.value.args
            positional = [a.value for a in args if a.keyword is None and not a.star]
            bases = positional[1] if len(positional) >= 2 else None
            if len(positional) < 2 or not isinstance(bases, cst.Tuple):
                continue  # `type(x)`: the class of an object, no class made
            spelled = [_dotted(e.value) for e in bases.elements]
            if not all(spelled):
                continue
            members = []
            for place, value in self._namespace_places(args):
                if isinstance(value, cst.Dict):
                    members += [
                        (e.key.evaluated_value, e.value)
                        for e in value.elements
                        if isinstance(e, cst.DictElement)
                        and isinstance(e.key, cst.SimpleString)
                        and isinstance(e.key.evaluated_value, str)
                    ]
                elif isinstance(value, cst.Name) and value.value in top_defs:
                    members += self._namespace_stores(top_defs[value.value])
            found[small.targets[0].target.value] = (spelled, members)
            assigned.add(id(small.value))
        for call in self.nodes.calls:  # made anywhere else: in a def, called at once, returned
            if id(call) in assigned or not self._named_in(call.func, t.class_makers):
                continue
            positional = [a.value for a in call.args if a.keyword is None and not a.star]
            if len(positional) < 2:
                continue  # `type(x)`: the class of an object, no class made
            members = [
                (e.key.evaluated_value, e.value)
                for place, value in self._namespace_places(call.args)
                if isinstance(value, cst.Dict)
                for e in value.elements
                if isinstance(e, cst.DictElement)
                and isinstance(e.key, cst.SimpleString)
                and isinstance(e.key.evaluated_value, str)
            ]
            line = self.position(call).start.line
            for k, spelled in enumerate(self._made_bases(positional[1])):
                found[f"_made_at_{line}_{k}"] = (spelled, members)
        return found

    def _made_bases(self, expr: cst.BaseExpression, depth: int = 0) -> List[List[str]]:
        """The spelled bases of each alternative a class maker's bases argument may be: a tuple display, a
        choice between such (`(A,) if c else (M, A)`), a name bound to those (every binding that reaches it)."""
        if depth > 4:
            return []
        if isinstance(expr, cst.Tuple):
            spelled = [_dotted(e.value) for e in expr.elements if not isinstance(e, cst.StarredElement)]
            return [spelled] if spelled and len(spelled) == len(expr.elements) and all(spelled) else []
        if isinstance(expr, cst.IfExp):
            return self._made_bases(expr.body, depth + 1) + self._made_bases(expr.orelse, depth + 1)
        if isinstance(expr, cst.Name):
            out: List[List[str]] = []
            for assignment in self.reaching(expr):
                node = assignment.node
                if not isinstance(node, cst.Name):
                    continue
                kind, value, path = self.binding(node)
                if kind == "assign" and not path and value is not None:
                    out += self._made_bases(value, depth + 1)
            return out
        return []

    def _namespace_places(self, args) -> List[tuple]:
        """(place, value) of a class maker's arguments at the places of [callables] class_namespaces."""
        places = self.tables.class_namespaces
        out, position = [], 0
        for arg in args:
            if arg.star:
                return out
            if arg.keyword is None:
                if str(position) in places:
                    out.append((str(position), arg.value))
                position += 1
            elif arg.keyword.value in places:
                out.append((arg.keyword.value, arg.value))
        return out

    def _namespace_stores(self, fill: cst.FunctionDef) -> List[tuple]:
        """(name, value) of a namespace filler's `ns["name"] = value` statements (ns its first parameter)."""
        if not fill.params.params or not isinstance(fill.body, cst.IndentedBlock):
            return []
        ns = fill.params.params[0].name.value
        out = []
        for stmt in fill.body.body:
            for small in stmt.body if isinstance(stmt, cst.SimpleStatementLine) else ():
                if not (isinstance(small, cst.Assign) and len(small.targets) == 1):
                    continue
                target = small.targets[0].target
                key = target.slice[0].slice if isinstance(target, cst.Subscript) and len(target.slice) == 1 else None
                if (
                    isinstance(target, cst.Subscript)
                    and isinstance(target.value, cst.Name)
                    and target.value.value == ns
                    and isinstance(key, cst.Index)
                    and isinstance(key.value, cst.SimpleString)
                    and isinstance(key.value.evaluated_value, str)
                ):
                    out.append((key.value.evaluated_value, small.value))
        return out

    def class_bases(self, cls: cst.ClassDef) -> List[cst.ClassDef]:
        classes = self.module_classes()
        out = []
        for base in cls.bases:
            name = _dotted(base.value)
            target = classes.get(name.rsplit(".", 1)[-1]) if name else None
            if target is not None and target is not cls:
                out.append(target)
        return out

    def class_mro(self, cls: cst.ClassDef) -> List[cst.ClassDef]:
        out, stack = [], [cls]
        while stack:
            node = stack.pop(0)
            if node in out:
                continue
            out.append(node)
            stack.extend(self.class_bases(node))
        return out

    def c3_mro(self, cls: cst.ClassDef) -> List[cst.ClassDef]:
        """Python's method resolution order of cls over the module's classes (C3; the
        breadth-first class_mro where the bases admit no linearisation). Cached per class."""
        cache = self.__dict__.setdefault("_c3_cache", {})
        found = cache.get(id(cls))
        if found is None:
            cache[id(cls)] = self.class_mro(cls)  # a cycle of bases reads the plain order
            found = cache[id(cls)] = self._c3(cls) or self.class_mro(cls)
        return found

    def _c3(self, cls: cst.ClassDef) -> Optional[List[cst.ClassDef]]:
        bases = self.class_bases(cls)
        seqs = [list(self.c3_mro(b)) for b in bases] + [list(bases)]
        out = [cls]
        while True:
            seqs = [q for q in seqs if q]
            if not seqs:
                return out
            for q in seqs:
                head = q[0]
                if not any(head in other[1:] for other in seqs):
                    break
            else:
                return None
            out.append(head)
            for q in seqs:
                if q[0] is head:
                    del q[0]

    def self_class(self) -> Optional[cst.ClassDef]:
        """The class `self` is known to be an instance of (or of a subclass of) under the calls
        being followed: that of the method whose `self.m(...)` or `super().m(...)` started them."""
        for bindings in reversed(self._bindings):
            name = bindings.get(SELF_CLASS)
            if name is not None:
                return self.module_classes().get(name)
        return None

    def self_frame(self, call: cst.Call, skip_self: bool, target=None) -> Dict:
        """The binding a followed `self.m(...)` / `super().m(...)` carries into m: the class of
        self (the caller's own context, else the caller's class), so a `super()` chain through
        mixins runs in the MRO of the instance's class, not of the mixin. `obj.m(...)` reaching a
        method m that obj's class inherits: obj's class (what `self._attr` and `self.m2()` read
        there is that subclass's)."""
        func = call.func
        if not skip_self or not isinstance(func, cst.Attribute):
            return {}
        receiver = func.value
        mine = (isinstance(receiver, cst.Name) and receiver.value == "self") or (
            isinstance(receiver, cst.Call) and isinstance(receiver.func, cst.Name) and receiver.func.value == "super"
        )
        if not mine:
            if not isinstance(target, cst.FunctionDef) or self.class_named(receiver) is not None:
                return {}
            owner = self.instance_class(receiver)
            defined = self.method_class(target)
            if owner is None or defined is None or defined is owner or defined not in self.class_mro(owner):
                return {}
            return {SELF_CLASS: owner.name.value} if self.module_classes().get(owner.name.value) is owner else {}
        cls = self.self_class()
        if cls is None:
            cls = self.enclosing_class(call)
        return {SELF_CLASS: cls.name.value} if cls is not None else {}

    def super_start(self, call: cst.Call) -> Optional[cst.ClassDef]:
        """The class after which `super().m(...)` (call: the method call) looks m up: the class the call
        is written in, or the class a two-argument `super(C, self)` names (C's MRO entries after C, so
        an override in C itself, or in a class between, is skipped)."""
        receiver = call.func.value if isinstance(call.func, cst.Attribute) else None
        if isinstance(receiver, cst.Call) and len(receiver.args) == 2 and isinstance(receiver.args[0].value, cst.Name):
            named = self.module_classes().get(receiver.args[0].value.value)
            if named is not None:
                return named
        return self.enclosing_class(call)

    def _super_targets(self, cls: cst.ClassDef, method: str, use_context: bool = True) -> list:
        """The defs `super().method` in a method of cls may reach: the next definition after cls
        in the MRO of self's class, for self's class and each of its subclasses in the module
        (a mixin's super() depends on the class it is mixed into)."""
        context = self.self_class() if use_context else None
        if context is None or cls not in self.class_mro(context):
            context = cls
        out = []
        for other in self.class_family(context):
            if other is not context and context not in self.class_mro(other):
                continue
            order = self.c3_mro(other)
            if cls not in order:
                continue
            for owner in order[order.index(cls) + 1 :]:
                found = self.class_methods(owner).get(method)
                if found is not None:
                    if found not in out:
                        out.append(found)
                    break
        return out

    def class_family(self, cls: cst.ClassDef) -> List[cst.ClassDef]:
        """cls, its bases and its subclasses in the module (the classes whose methods may
        assign the attributes an instance of cls carries). Cached per class."""
        cache = self.__dict__.setdefault("_family_cache", {})
        found = cache.get(id(cls))
        if found is None:
            found = cache[id(cls)] = self._class_family(cls)
        return list(found)

    def _class_family(self, cls: cst.ClassDef) -> List[cst.ClassDef]:
        family = list(self.class_mro(cls))
        changed = True
        while changed:
            changed = False
            for other in self.module_classes().values():
                if other not in family and any(base in family for base in self.class_bases(other)):
                    family.append(other)
                    changed = True
        return family

    def find_method(self, cls: cst.ClassDef, name: str, skip_first: bool = False):
        for owner in self.class_mro(cls)[1 if skip_first else 0 :]:
            method = self.class_methods(owner).get(name)
            if method is not None:
                return method
        return None

    def property_getter(self, cls: cst.ClassDef, name: str):
        """The getter of `name` when it is a @property (or functools.cached_property) in cls's MRO, or a
        property made by a call (`name = property(lambda self: ...)`: the lambda or def it holds)."""
        for owner in self.class_mro(cls):
            method = self.class_methods(owner).get(name)
            if method is not None:
                return method if self.is_property(method) else None
            made = self.called_properties(owner).get(name)
            if made is not None:
                return made
        return None

    def is_property(self, method) -> bool:
        """Is method's getter run by reading it (a decorator of rules/casts.toml property_decorators, or
        the getter of a property made by a call)?"""
        if not isinstance(method, cst.FunctionDef):
            return isinstance(method, cst.Lambda) and self._called_getter(method)
        return any(self.tables.is_property_decorator(_dotted(decorator.decorator)) for decorator in method.decorators)

    def _called_getter(self, func) -> bool:
        ids = self.__dict__.get("_called_getter_ids")
        if ids is None:
            ids = self._called_getter_ids = {
                id(getter) for made in self.installed_methods()[3].values() for getter in made.values()
            }
        return id(func) in ids

    def qualified(self, expr: cst.BaseExpression) -> Optional[str]:
        """The dotted name expr stands for under this module's imports (`define` of `from attrs
        import define` is "attrs.define", a builtin its own name); a call's: its callee's."""
        if isinstance(expr, cst.Call):
            expr = expr.func
        scope = self.scopes.get(expr)
        names = scope.get_qualified_names_for(expr) if scope is not None else set()
        for qn in sorted(names, key=lambda q: q.name):
            if qn.name.startswith("builtins."):
                return qn.name[len("builtins.") :]
            return self._dict_class_as_dict(qn.name)
        return self._dict_class_as_dict(_dotted(expr))

    def _dict_class_as_dict(self, name: Optional[str]) -> Optional[str]:
        """`dict` for a module class whose instances are plain dicts (rules/accessors.toml [containers]
        dict_classes: `class StepInputs(TypedDict)`, so `StepInputs(k=v)` reads as `dict(k=v)`); else name."""
        return "dict" if name and name in self._dict_class_names() else name

    def _dict_class_names(self) -> frozenset:
        found = self.__dict__.get("_dict_class_names_memo")
        if found is None:
            self._dict_class_names_memo = frozenset()  # (while deciding: the bases' names ask again)
            found = self._dict_class_names_memo = frozenset(
                node.name.value
                for node in (self.nodes.classes if self.tables.dict_classes else ())
                if any(self._named_in(b.value, self.tables.dict_classes) for b in node.bases)
            )
        return found

    def _named_in(self, expr: cst.BaseExpression, words) -> bool:
        """Is expr (a callee, a decorator, a base) one of words, as spelled or under its imports?"""
        return (_dotted(expr.func if isinstance(expr, cst.Call) else expr) or "") in words or (
            self.qualified(expr) or ""
        ) in words

    def is_record(self, cls: cst.ClassDef) -> bool:
        """A dataclass, an attrs class or a NamedTuple (rules/accessors.toml [records]): its
        constructor's arguments are its fields."""
        t = self.tables
        if any(self._named_in(b.value, t.record_bases) for b in cls.bases):
            return True
        return any(self._named_in(d.decorator, t.record_decorators) for d in cls.decorators)

    def record_fields(self, cls: cst.ClassDef) -> List[str]:
        """Annotated class-body names, and names assigned a field call (`kv = attr.ib()`), after
        the fields of the record classes it inherits (a dataclass subclass's constructor takes its
        bases' fields first, in reverse MRO order; a redeclared field keeps its place)."""
        fields: List[str] = []
        for base in reversed(self.c3_mro(cls)[1:]):
            if self.is_record(base):
                fields.extend(f for f in self._own_record_fields(base) if f not in fields)
        fields.extend(f for f in self._own_record_fields(cls) if f not in fields)
        return fields

    def _own_record_fields(self, cls: cst.ClassDef) -> List[str]:
        fields = []
        for stmt in cls.body.body if isinstance(cls.body, cst.IndentedBlock) else ():
            if isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    if isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name):
                        if not self._no_init_field(small.value):
                            fields.append(small.target.value)
                    elif self._field_declaration(small) and not self._no_init_field(small.value):
                        fields.append(small.targets[0].target.value)
        return fields

    def _no_init_field(self, value: Optional[cst.BaseExpression]) -> bool:
        """`field(init=False)`: no constructor argument; a method (`__post_init__`) assigns it."""
        return (
            isinstance(value, cst.Call)
            and self._named_in(value, self.tables.record_field_calls)
            and any(
                a.keyword is not None
                and a.keyword.value in self.tables.record_no_init_keywords
                and isinstance(a.value, cst.Name)
                and a.value.value == "False"
                for a in value.args
            )
        )

    def record_defaults(self, cls: cst.ClassDef) -> Dict[str, cst.BaseExpression]:
        """The fields declared with a default (`loc: Tensor = None`, `x = attr.ib(default=...)`,
        `xs: list = field(default_factory=list)`): field -> the declaration's value."""
        out: Dict[str, cst.BaseExpression] = {}
        for base in reversed(self.c3_mro(cls)[1:]):
            if self.is_record(base):
                out.update(self._own_record_defaults(base))
        out.update(self._own_record_defaults(cls))
        return out

    def _own_record_defaults(self, cls: cst.ClassDef) -> Dict[str, cst.BaseExpression]:
        out: Dict[str, cst.BaseExpression] = {}
        for stmt in cls.body.body if isinstance(cls.body, cst.IndentedBlock) else ():
            if isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    if isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name):
                        if small.value is not None and not self._required_field(small.value):
                            out[small.target.value] = small.value
                    elif self._field_declaration(small) and not self._required_field(small.value):
                        out[small.targets[0].target.value] = small.value
        return out

    def _required_field(self, value: cst.BaseExpression) -> bool:
        """A field call without a default (`attr.ib()`, `field(init=False)` counts as one too)."""
        return (
            isinstance(value, cst.Call)
            and self._named_in(value, self.tables.record_field_calls)
            and not any(
                a.keyword is not None and a.keyword.value in self.tables.record_default_keywords for a in value.args
            )
        )

    def _field_declaration(self, small) -> bool:
        """`kv = attr.ib(...)` in a record's body (rules/accessors.toml [records] field_calls)."""
        return (
            isinstance(small, cst.Assign)
            and len(small.targets) == 1
            and isinstance(small.targets[0].target, cst.Name)
            and isinstance(small.value, cst.Call)
            and self._named_in(small.value, self.tables.record_field_calls)
        )

    def import_aliases(self) -> frozenset:
        """The names this module binds by `import ... as` (`from operator import getitem as pick`): a call
        of one may be any function under another name (qualified() decides)."""
        found = self.__dict__.get("_import_aliases")
        if found is None:
            names = set()
            for node in self.parents:
                if isinstance(node, cst.ImportAlias) and node.asname is not None:
                    target = node.asname.name
                    if isinstance(target, cst.Name):
                        names.add(target.value)
            found = self._import_aliases = frozenset(names)
        return found

    def _may_name(self, call: cst.Call, names) -> bool:
        """Can the call's callee be one of names (qualified)? A cheap test before qualified(), which
        asks the scopes: a method call `x.m(...)` by its last name part (a bare name may be an import
        alias: qualified() decides)."""
        func = call.func
        if isinstance(func, cst.Name):
            return True
        if not isinstance(func, cst.Attribute):
            return False
        last = func.attr.value
        cache = self.__dict__.setdefault("_last_parts", {})
        key = id(names)
        if key not in cache:
            cache[key] = (names, {n.rsplit(".", 1)[-1] for n in names})
        return last in cache[key][1]

    def replaced_record(self, expr: cst.BaseExpression) -> Optional[tuple]:
        """(original, {field: value}) for a copy of a record with some fields replaced by keyword
        (rules/accessors.toml [records] replace_methods, replace_functions: `rec._replace(k=x)`,
        `dataclasses.replace(rec, k=x)`, `attr.evolve(rec, k=x)`): its other fields are the
        original's. None for any other expression, or when `**changes` hides which fields change."""
        if not isinstance(expr, cst.Call):
            return None
        t, func, args = self.tables, expr.func, list(expr.args)
        if isinstance(func, cst.Attribute) and func.attr.value in t.record_replace_methods:
            original = func.value
        elif (
            args
            and not args[0].star
            and args[0].keyword is None
            and self._may_name(expr, t.record_replace_functions)
            and self.qualified(expr) in t.record_replace_functions
        ):
            original, args = args[0].value, args[1:]
        else:
            return None
        if any(a.star or a.keyword is None for a in args):
            return None
        return original, {a.keyword.value: a.value for a in args}

    def fields_source(self, expr: cst.BaseExpression) -> Optional[cst.BaseExpression]:
        """The object expr is a dict of the fields of, by name (rules/accessors.toml [records]
        as_dict_*: `rec._asdict()`, `dataclasses.asdict(rec)`, `vars(rec)`, `rec.__dict__`)."""
        t = self.tables
        if isinstance(expr, cst.Attribute) and expr.attr.value in t.record_as_dict_attributes:
            return expr.value
        if not isinstance(expr, cst.Call):
            return None
        func = expr.func
        if isinstance(func, cst.Attribute) and func.attr.value in t.record_as_dict_methods and not expr.args:
            return func.value
        if (
            expr.args
            and not expr.args[0].star
            and expr.args[0].keyword is None
            and all(a.keyword is not None for a in expr.args[1:])  # `attrs.asdict(rec, recurse=False)`
            and self._may_name(expr, t.record_as_dict_functions)
            and self.qualified(expr) in t.record_as_dict_functions
        ):
            return expr.args[0].value
        return None

    def dict_keywords(self, expr: cst.BaseExpression) -> Optional[Dict[str, cst.BaseExpression]]:
        """{key: value} of a dict made from keywords alone (`dict(k=a, v=b)`, rules/accessors.toml
        [containers] dict_constructors); None for any other expression."""
        if (
            not isinstance(expr, cst.Call)
            or not expr.args
            or any(a.keyword is None or a.star for a in expr.args)
            or not self._may_name(expr, self.tables.dict_constructors)
            or self.qualified(expr) not in self.tables.dict_constructors
        ):
            return None
        return {a.keyword.value: a.value for a in expr.args}

    def names_a_field(self, expr: cst.BaseExpression) -> bool:
        """Is expr a field name the file reads off a record as it iterates them (rules/accessors.toml
        [records] field_*: `f.name` for f in `dataclasses.fields(rec)`, `n` for n in `Rec._fields`, in
        `vars(rec)` or its keys, `k` of `for k, v in rec.__dict__.items()`), or picks by position
        (`Rec._fields[j]`, `dataclasses.fields(rec)[j].name`)?"""
        t = self.tables
        if isinstance(expr, cst.Attribute) and expr.attr.value in t.record_field_name_attributes:
            if isinstance(expr.value, cst.Subscript) and self._field_objects(expr.value.value) is not None:
                return True
            return self._iterates(expr.value, lambda it: self.qualified(it) in t.record_field_functions)
        if isinstance(expr, cst.Subscript) and self.field_names_of(expr.value) is not None:
            return True
        return self._iterates(expr, self._field_names_source)

    def field_names_of(self, expr: cst.BaseExpression) -> Optional[List[str]]:
        """The field names, in order, that expr lists (rules/accessors.toml [records]
        field_names_attributes) for a class of the module: `Rec._fields`, `rec._fields`,
        `Rec.__slots__` (the class body's display of strings), `Rec.__annotations__`; None otherwise."""
        if not isinstance(expr, cst.Attribute) or expr.attr.value not in self.tables.record_field_names_attributes:
            return None
        cls = self.class_named(expr.value) or self.instance_class(expr.value)
        if cls is None:
            return None
        shown = self.class_body_values(cls, expr.attr.value)
        if shown:  # `__slots__ = ("k_cache", "v_cache")`
            if len(shown) != 1 or not isinstance(shown[0], (cst.Tuple, cst.List)):
                return None
            names = [self.constant_string(e.value) for e in shown[0].elements if isinstance(e, cst.Element)]
            return names if names and None not in names else None
        fields = self.record_fields(cls) if self.is_record(cls) else []
        return fields or None

    def _field_objects(self, expr: cst.BaseExpression) -> Optional[List[str]]:
        """The field names of the record whose field objects expr lists (`dataclasses.fields(rec)`,
        rules/accessors.toml [records] field_functions), in order; None otherwise."""
        t = self.tables
        if not (isinstance(expr, cst.Call) and expr.args and not expr.args[0].star):
            return None
        if not self._may_name(expr, t.record_field_functions) or self.qualified(expr) not in t.record_field_functions:
            return None
        subject = expr.args[0].value
        cls = self.class_named(subject) or self.instance_class(subject)
        if cls is None or not self.is_record(cls):
            return None
        return self.record_fields(cls) or None

    def _picked_field(self, expr: cst.BaseExpression) -> Optional[str]:
        """The field name a constant position picks: `Rec._fields[0]`, `dataclasses.fields(rec)[1].name`."""
        t = self.tables
        if isinstance(expr, cst.Attribute) and expr.attr.value in t.record_field_name_attributes:
            if not isinstance(expr.value, cst.Subscript):
                return None
            names, sub = self._field_objects(expr.value.value), expr.value
        elif isinstance(expr, cst.Subscript):
            names, sub = self.field_names_of(expr.value), expr
        else:
            return None
        if not names or len(sub.slice) != 1 or not isinstance(sub.slice[0].slice, cst.Index):
            return None
        key = sub.slice[0].slice.value
        negative = isinstance(key, cst.UnaryOperation) and isinstance(key.operator, cst.Minus)
        if negative:
            key = key.expression
        if not isinstance(key, cst.Integer):
            return None
        index = int(key.value, 0)
        index = len(names) - index if negative else index
        return names[index] if 0 <= index < len(names) else None

    def _field_names_source(self, iterable: cst.BaseExpression) -> bool:
        t = self.tables
        if isinstance(iterable, cst.Attribute):
            return iterable.attr.value in t.record_field_names_attributes or (
                iterable.attr.value in t.record_as_dict_attributes
            )
        return isinstance(iterable, cst.Call) and self.qualified(iterable) in t.record_as_dict_functions

    def _iterates(self, name: cst.BaseExpression, source) -> bool:
        """Is every binding of name reaching here a for target over what source accepts (or over its
        `.keys()`; the key of its `.items()`)?"""
        if not isinstance(name, cst.Name):
            return False
        found = False
        for assignment in self.reaching(name):
            node = assignment.node
            if not isinstance(node, cst.Name):
                return False
            kind, iterable, path = self.binding(node)
            if kind != "for":
                return False
            if isinstance(iterable, cst.Call) and isinstance(iterable.func, cst.Attribute) and not iterable.args:
                method = iterable.func.attr.value
                if (method == "keys" and not path) or (method == "items" and path == (0,)):
                    iterable, path = iterable.func.value, ()
            if path or not source(iterable):
                return False
            found = True
        return found

    def any_field_attributes(self, obj: cst.BaseExpression) -> List[cst.Attribute]:
        """`obj.<field>` for every field of obj's class (a record's declared fields, else the attributes
        its methods assign), as nodes of this module's parent map; [] when the class is unknown."""
        cls = self.instance_class(obj)
        if cls is None:
            return []
        names = self.record_fields(cls) if self.is_record(cls) else []
        if not names:
            names = sorted(
                {
                    t.attr.value
                    for owner in self.class_mro(cls)
                    for t, _ in self.nodes.self_assignments
                    if self.enclosing_class(t) is owner
                }
            )
        return [self._attribute(obj, n) for n in names]

    def merged_mappings(self, expr: cst.BaseExpression) -> Optional[List[cst.BaseExpression]]:
        """The mappings a merged mapping reads its values from: `ChainMap(draft, base)`, `dict(base)`,
        `dict(base, **extra)` (a dict constructor of rules/accessors.toml [containers] given mappings, not
        zip) and `a | b`; None for any other expression. Its subscript reads a value of one of them."""
        if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.BitOr):
            return [expr.left, expr.right]
        if (
            not isinstance(expr, cst.Call)
            or not expr.args
            or not any(a.keyword is None and not a.star for a in expr.args)
            or any(a.star == "*" for a in expr.args)
            or not self._may_name(expr, self.tables.dict_constructors)
            or self.qualified(expr) not in self.tables.dict_constructors
        ):
            return None
        parts = [a.value for a in expr.args if a.keyword is None]
        if self.qualified(expr) in self.tables.factory_dicts:
            parts = parts[1:]  # `defaultdict(list, base)`: the first makes a missing key's value
        if any(self._yields_pairs(v) for v in parts if v is not None):
            return None  # dict(zip(names, bufs)), dict(enumerate(bufs)): read as pairs (pair_items)
        return parts

    def _yields_pairs(self, expr: cst.BaseExpression) -> bool:
        """Is expr an iterable of (key, value) pairs, not a mapping: an iteration call that yields
        tuples (rules/accessors.toml [iteration] numbered, pairs: `enumerate(bufs)`, `zip(names,
        bufs)`), or a comprehension or generator of 2-tuple displays (`((n, t) for n, t in ...)`)?"""
        if isinstance(expr, (cst.ListComp, cst.GeneratorExp, cst.SetComp)):
            elt = expr.elt
            return isinstance(elt, cst.Tuple) and len(elt.elements) == 2
        return self.iteration_kind(expr) in ("numbered", "pairs")

    def pair_items(self, expr: cst.BaseExpression) -> Optional[List[cst.BaseExpression]]:
        """The (key, value) pairs a dict built from an iterable of pairs holds, one element of the
        iterable each (`dict(enumerate(pool.k_buffer, start=s))`: `(0, pool.k_buffer[0])`;
        `OrderedDict(zip(names, bufs))`; `dict((n, t) for ...)`), by rules/accessors.toml [containers]
        dict_constructors; None for any other expression."""
        if (
            not isinstance(expr, cst.Call)
            or not expr.args
            or expr.args[0].star
            or expr.args[0].keyword is not None
            or not self._may_name(expr, self.tables.dict_constructors)
        ):
            return None
        positional = [a.value for a in expr.args if a.keyword is None and not a.star]
        name = self.qualified(expr)
        if name not in self.tables.dict_constructors:
            return None
        if name in self.tables.factory_dicts:
            positional = positional[1:]
        if len(positional) != 1 or not self._yields_pairs(positional[0]):
            return None
        source = positional[0]
        if isinstance(source, (cst.ListComp, cst.GeneratorExp, cst.SetComp)):
            return [source.elt]
        return self.shaped_elements(source)

    def record_field_values(self, value: cst.BaseExpression, index: Optional[int], depth: int):
        """The expressions field `index` (None: any field) of the record value may be, by position:
        a construction `Rec(...)`, a copy with fields replaced (replaced_record), or
        `dataclasses.astuple(rec)`; None when value is none of those."""
        if not isinstance(value, cst.Call):
            return None
        cls = self.constructed_class(value)
        if cls is not None and self.is_record(cls):
            fields = self.record_fields(cls)
            wanted = fields if index is None else fields[index : index + 1]
            out = []
            for name in wanted:
                out.extend(self._record_arguments(cls, name, [value]))
            return out
        replaced = self.replaced_record(value)
        if replaced is None and value.args and not value.args[0].star and value.args[0].keyword is None:
            if self._may_name(value, self.tables.record_as_tuple_functions) and (
                self.qualified(value) in self.tables.record_as_tuple_functions
            ):
                return self.element_values(value.args[0].value, index, depth + 1)
        if replaced is None:
            return None
        original, changes = replaced
        cls = self.instance_class(original, depth + 1)
        if cls is None or not self.is_record(cls):
            return None
        fields = self.record_fields(cls)
        wanted = fields if index is None else fields[index : index + 1]
        return [changes[name] if name in changes else self._attribute(original, name) for name in wanted]
