"""Values through objects, classes and call indirection, for ModuleAnalysis.

A pool reaches a cast through more than names and `self.x`:
- an object of a class in the module (`self.kv_io = KVIO(pool)`, `reader.layer(i)`):
  its attributes are what the class's methods assign to `self.<attr>` (with the
  arguments of the construction bound to `__init__`'s parameters), or, for a
  dataclass or NamedTuple, the construction's arguments for that field;
- a method found through the class hierarchy of the module (`self.m()` defined
  in a base, `super().m()`), and attributes assigned anywhere in a class's family;
- a callable held under another name: a bound method (`self._get = pool.get_key_buffer`),
  `functools.partial(f, ...)`, `getattr(obj, "name")` with a constant name.

Everything is decided from where a value comes from (the same Origin lattice as
dataflow.py), never from how it is spelled.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

import libcst as cst

from castlint.analysis.tree import iter_nodes


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


_ANNOTATION_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*")  # the names a string annotation spells


def _made_class(name: str, bases: List[str]) -> cst.ClassDef:
    """`class name(bases): pass`, standing for a class made by a call (type(...), types.new_class)."""
    return cst.parse_statement(f"class {name}({', '.join(bases)}):\n    pass\n")


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


def _dotted(node) -> Optional[str]:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        inner = _dotted(node.value)
        return f"{inner}.{node.attr.value}" if inner else None
    if isinstance(node, cst.Call):
        return _dotted(node.func)
    return None


SELF_CLASS = ("self-class",)  # a binding: the name of the class self is an instance of


class ObjectFlow:
    """Mixed into ModuleAnalysis: needs nodes, reaching, binding, enclosing_class, origin,
    self_attr_values, _returned, class_methods."""

    # -- the module's classes ----------------------------------------------------
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
        {id(class): {name: lambda}}, {id(class): {name: getter}}). A class decorator of the module
        (`@with_accessors`, `@with_accessors(...)`) that assigns a def to an attribute of its first parameter
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
        found = self._installed = ({}, {}, {}, {})
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
        return found

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

    # -- which class an expression is an instance of -------------------------------
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
                param = node if isinstance(node, cst.Param) else self.parents.get(node)
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
            return None
        if isinstance(expr, cst.Await):  # `await make_runner()`: what the coroutine returns
            return self.instance_class(expr.expression, depth + 1)
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
            for value in self.instance_attr_values(owner, expr.attr.value):
                param = self._plain_param(value) if mine else None
                if param is not None:  # `self.resource = resource`: what self's class is built with
                    found = self.annotated_class(param) or self.param_class(param, owner, depth)
                    if found is not None:
                        return found
                    continue
                found = self.instance_class(value, depth + 1)
                if found is not None:
                    return found
        if isinstance(expr, cst.Subscript):  # `recs[0]` of a list of records
            for element in self._subscript_elements(expr, depth) or ():
                found = self.instance_class(element, depth + 1)
                if found is not None:
                    return found
        return None

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
            if cls is None:
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
            param = node if isinstance(node, cst.Param) else self.parents.get(node)
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
        for a in self.nodes.attributes:
            if not isinstance(a.value, cst.Name) or a.value.value in ("self", "cls"):
                continue
            target = self.parents.get(a)
            statement = self.parents.get(target)
            if isinstance(target, cst.AssignTarget) and isinstance(statement, cst.Assign):
                stores.append((a.value, a.attr.value, statement.value))
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
        for obj, attr, value in stores:
            found.setdefault(("any", attr), []).append((obj, value))
            cls = self._param_method_class(obj)
            if cls is not None:
                found.setdefault(("param", id(cls), obj.value, attr), []).append(value)
        return found

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
        elif isinstance(func, cst.Attribute):
            owner = self.instance_class(func.value, depth + 1)
            if owner is not None and self.find_method(owner, func.attr.value) is None:
                values.extend(self.instance_attr_values(owner, func.attr.value))
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
        param = node if isinstance(node, cst.Param) else self.parents.get(node)
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
        if method:
            from castlint.analysis.pool_classes import _never_learnt

            if name in _never_learnt(self.tables) or name.startswith("__"):
                return None
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
        return found

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
        explicit = self.property_getter_call(call)
        if explicit is not None:  # `Base.latent.fget(obj)`: Base's getter with self the first argument
            return [(explicit[0], False, None)]
        method, receiver = func.attr.value, func.value
        if isinstance(receiver, cst.Call) and isinstance(receiver.func, cst.Name) and receiver.func.value == "super":
            cls = self.enclosing_class(call)
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

    # -- decorators: a decorated def is what its decorators return -------------------
    def decorated(self, func, skip: bool) -> List[tuple]:
        """(target, skip_self, env) that a call of func (called with skip) runs: func itself,
        or the callable its decorators made of it, innermost first: a wrapper that a decorator
        of this module returns (`def deco(fn): def inner(*a, **k): ... fn(*a, **k)`, and a
        factory's `@deco(dtype)`), with env binding the decorator's parameters (fn holds what
        it decorates: held_callables), or a class's `__call__` (`__init__` bound to the
        decoration). A decorator castlint cannot see passes the call through (unseen_decorators)."""
        if not isinstance(func, cst.FunctionDef) or not func.decorators:
            return [(func, skip, None)]
        cache = self.__dict__.setdefault("_decorated", {})
        forms = cache.get(id(func))
        if forms is None:
            cache[id(func)] = [(func, None, None)]  # while deciding: itself (a decorator applied to itself)
            forms = [(func, None, None)]
            layers = []
            for decorator in reversed(func.decorators):
                forms = self._decoration(decorator.decorator, func, forms) or forms
                layers.append(forms)
            cache[id(func)] = forms
            self.__dict__.setdefault("_decoration_layers", {})[id(func)] = layers
        return [(t, skip if s is None else s, env) for t, s, env in forms]

    def decoration_wrappers(self, func) -> List[cst.CSTNode]:
        """The wrappers every decorator of func makes, innermost first (with stacked decorators a call
        runs the outermost, whose `fn(*args, **kwargs)` runs the next): decorated() records each layer."""
        self.decorated(func, False)
        layers = self.__dict__.get("_decoration_layers", {}).get(id(func), ())
        return [t for forms in layers for t, _, _ in forms if t is not func]

    def _decoration(self, expr: cst.BaseExpression, func: cst.FunctionDef, forms: List[tuple]):
        """What applying decorator expr to forms (what the name holds so far) gives, or None
        when this module does not define what expr calls."""
        head = expr
        if isinstance(expr, cst.Call):  # `@Deco(dtype)`: the object's __call__ decorates
            made = self.instance_class(expr)
            if made is not None and self.find_method(made, "__call__") is not None:
                head = self._attribute(expr, "__call__")
        placeholder = cst.Name(func.name.value)  # stands for the function being decorated
        synthetic = cst.Call(func=head, args=[cst.Arg(placeholder)])
        self.parents.setdefault(synthetic, self.parents.get(expr))
        self.parents.setdefault(placeholder, synthetic)
        self.__dict__.setdefault("_held_args", {})[id(placeholder)] = self._frozen(
            [(t, False if s is None else s, env) for t, s, env in forms]
        )
        cls = self.class_named(expr) if isinstance(expr, cst.Name) else None
        if cls is not None:  # a class: calling the decorated name runs __call__
            call = self.find_method(cls, "__call__")
            init = self.find_method(cls, "__init__")
            if call is None:
                return None
            return [(call, True, self._bound_params(synthetic, init, True, 0) if init is not None else None)]
        # a function's (or a factory's) closure: called as the decorated def is (a method's: with self)
        out = [
            (form[1], form[3] or None, form[2])
            for form, _ in self._callable_forms(synthetic, 0)
            if isinstance(form, tuple) and form[0] == "closure"
        ]
        return out or None

    def decorator_params(self) -> Dict[int, List[cst.FunctionDef]]:
        """id(parameter) -> the defs the module decorates with the def that parameter belongs to: the
        first parameter of a decorator (`def deco(fn)`), of the closure a decorator factory returns
        (`register(fmt)`'s `deco(fn)`, a class method's), of a decorator object's `__call__`. What such
        a parameter is stored in (`cls.converters[fmt] = fn`, `_HOOKS.append(fn)`) holds those defs, so
        a call of an entry runs them (a registry filled by decorators)."""
        found = self.__dict__.get("_decorator_params")
        if found is not None:
            return found
        found = self._decorator_params = {}
        for func in self.nodes.decorated_defs:
            for decorator in func.decorators:
                expr = decorator.decorator
                if self._named_in(expr, self.tables.pass_through_decorators) or self._named_in(
                    expr, self.tables.dispatch_generics
                ):
                    continue
                placeholder = cst.Name(func.name.value)
                synthetic = cst.Call(func=expr, args=[cst.Arg(placeholder)])
                self.parents.setdefault(synthetic, self.parents.get(expr))
                self.parents.setdefault(placeholder, synthetic)
                targets = list(self.return_targets(synthetic))
                if isinstance(expr, cst.Call):  # `@Deco(dtype)`: the object's __call__
                    made = self.instance_class(expr)
                    call = self.find_method(made, "__call__") if made is not None else None
                    if call is not None:
                        targets.append((call, True, None))
                for target, skip, _ in targets:
                    if not isinstance(target, cst.FunctionDef):
                        continue
                    params = target.params
                    every = [*params.posonly_params, *params.params]
                    if skip and every and every[0].name.value in ("self", "cls"):
                        every = every[1:]
                    if every:
                        held = found.setdefault(id(every[0]), [])
                        if not any(f is func for f in held):
                            held.append(func)
        return found

    def unseen_decorators(self, func) -> List[str]:
        """The decorators of func that castlint neither follows (decorated()) nor knows to pass
        the call through (rules/accessors.toml [callables] pass_through_decorators): what a call
        of func gives back rests on code the file does not show."""
        if not isinstance(func, cst.FunctionDef) or not func.decorators:
            return []
        known = self.tables.pass_through_decorators | self.tables.property_decorators
        out = []
        for decorator in func.decorators:
            expr = decorator.decorator
            head = expr.func if isinstance(expr, cst.Call) else expr
            if self._decoration(expr, func, [(func, None, None)]) is not None:
                continue
            scope = self.scopes.get(head)
            names = {q.name for q in scope.get_qualified_names_for(head)} if scope is not None else set()
            names = {n[len("builtins.") :] if n.startswith("builtins.") else n for n in names} or {_dotted(head) or ""}
            if not names & known:
                out.append(_dotted(head) or self.code(head))
        return out

    def unseen_on_the_way(self, expr: cst.BaseExpression, depth: int = 0) -> List[str]:
        """unseen_decorators of the defs whose return value expr is, through names bound by a
        plain assignment, attributes, subscripts and method calls on it (a fix that hands on
        the value itself cannot rest on what such a decorator returns)."""
        if depth > 4:
            return []
        if isinstance(expr, cst.Name):
            out = []
            for assignment in self.reaching(expr):
                if isinstance(assignment.node, cst.Name):
                    kind, value, path = self.binding(assignment.node)
                    if kind == "assign":
                        out.extend(self.unseen_on_the_way(value, depth + 1))
            return out
        if isinstance(expr, cst.Call):
            out = [d for target, _, _ in self.return_targets(expr) for d in self.unseen_decorators(target)]
            if isinstance(expr.func, cst.Attribute):
                out.extend(self.unseen_on_the_way(expr.func.value, depth + 1))
            return out
        if isinstance(expr, (cst.Attribute, cst.Subscript)):
            return self.unseen_on_the_way(expr.value, depth + 1)
        return []

    @staticmethod
    def _frozen(forms) -> tuple:
        """Callable forms (target, skip, env) as a binding holds them (hashable)."""
        return tuple((t, s, frozenset(env.items()) if env else None) for t, s, env in forms)

    def held_value(self, expr: cst.BaseExpression) -> tuple:
        """The callables an argument hands on (frozen forms): the function a decoration wraps,
        a def of the module named, or a parameter that holds one under the calls followed."""
        if not isinstance(expr, cst.Name):
            return ()
        found = self.__dict__.get("_held_args", {}).get(id(expr))
        if found is not None:
            return found
        if expr.value in self.nodes.local_callables:
            return self._frozen([f for t in self._callable_targets(expr) for f in self.decorated(t, False)])
        return self._frozen(self.held_callables(expr)) if self._bindings else ()

    def held_callables(self, name: cst.Name) -> List[tuple]:
        """(target, skip_self, env) a parameter holds under the calls being followed (a
        decorator's `fn`: the function it decorates); [] when it holds none."""
        if not self._bindings or name.value not in self._held_params:
            return []
        for assignment in self.reaching(name):
            node = assignment.node
            param = node if isinstance(node, cst.Param) else self.parents.get(node)
            if not isinstance(param, cst.Param):
                continue
            for bindings in reversed(self._bindings):
                held = bindings.get(("held", id(param)))
                if held is not None:
                    return [(t, s, dict(env) if env else None) for t, s, env in held]
        return []

    def constructions(self, expr: cst.BaseExpression, depth: int = 0) -> List[cst.Call]:
        """The `C(...)` calls (C a class of this module) that made the object expr holds;
        [] when unknown (then every construction counts)."""
        return [call for call, _ in self.construction_frames(expr, depth)]

    def construction_frames(self, expr: cst.BaseExpression, depth: int = 0) -> List[tuple]:
        """(construction, env) for each construction of constructions(): env binds the
        parameters of the helpers that returned it (`self.make(k)` returning `Holder(t)`: t is
        k there), {} when it is made where it is used."""
        if depth > 6:
            return []
        if isinstance(expr, cst.Call):
            held = self.held_constructions(expr)
            if held:  # `self._reader(i)` of a partial of a class: that construction, in full (each class held)
                return [(made, {}) for made in held]
            if self.constructed_class(expr) is not None or self.replaced_record(expr) is not None:
                return [(expr, {})]  # a copy with fields replaced: _attr_under reads the rest on the original
            out: List[tuple] = []
            for target, skip, _ in self.return_targets(expr, depth + 1):  # a helper that returns a construction
                values = self._return_values(target) if isinstance(target, cst.FunctionDef) else []
                env = None
                for value in values:
                    found = self.construction_frames(value, depth + 1)
                    if not found:
                        return []
                    if env is None:
                        env = self._bound_params(expr, target, skip, depth + 1)
                    out.extend((call, {**env, **inner}) for call, inner in found)
            return out
        values: List[cst.BaseExpression] = []
        if isinstance(expr, cst.Name) and expr.value != "self":
            for assignment in self.reaching(expr):
                node = assignment.node
                if isinstance(node, cst.Name):
                    kind, value, path = self.binding(node)
                    if kind == "assign" and not path:
                        values.append(value)
                    elif kind == "for":
                        elements = self._iterated_elements(value, path, depth + 1)
                        if not elements:
                            return []
                        values.extend(elements)
                    else:
                        return []
                else:
                    return []
        elif isinstance(expr, cst.Attribute):
            owner = self.instance_class(expr.value)
            if owner is not None:
                values = self.field_values(expr.value, owner, expr.attr.value, depth)
        elif isinstance(expr, cst.Subscript):
            values = self._subscript_elements(expr, depth) or []
        out: List[tuple] = []
        for value in values:
            found = self.construction_frames(value, depth + 1)
            if not found:
                return []
            out.extend(found)
        if isinstance(expr, cst.Name) and out and self._type_guards(expr):
            # `if isinstance(eng, Dense):` around the use: only the constructions of classes it admits
            out = [(call, env) for call, env in out if self.admitted(expr, self.constructed_class(call))]
        return out

    # -- isinstance narrowing ---------------------------------------------------
    def _type_guards(self, name: cst.Name) -> List[tuple]:
        """([tested classes], positive) for each `isinstance(name, C)` test ([callables] instance_tests;
        `not isinstance(...)` flips it) of an if or conditional expression whose body (positive) or else
        branch (negative) holds this use of name, inside its function; tests naming a class the module
        does not define say nothing."""
        cache = self.__dict__.setdefault("_type_guard_cache", {})
        found = cache.get(id(name))
        if found is not None:
            return found
        found = cache[id(name)] = []
        if name.value not in self._tested_names():
            return found
        child = name
        for anc in self.ancestors(name):
            if isinstance(anc, (cst.FunctionDef, cst.Lambda, cst.ClassDef, cst.Module)):
                break
            branch = None
            if isinstance(anc, (cst.If, cst.IfExp)):
                if child is anc.body:
                    branch = True
                elif child is anc.orelse:
                    branch = False
            if branch is not None:
                guard = self._type_test(anc.test, name.value)
                if guard is not None:
                    found.append((guard[0], guard[1] == branch))
            if isinstance(anc, (cst.IndentedBlock, cst.Module)):
                found.extend(self._exited_guards(anc, child, name.value))
            child = anc
        return found

    def _exited_guards(self, block, statement, name: str) -> List[tuple]:
        """([classes], positive) that hold after each `if isinstance(name, C): ... return` before statement
        in block (an if without else whose body ends in return, raise, continue or break): past it, name
        is not a C (or, under `not`, is one)."""
        out = []
        for stmt in block.body:
            if stmt is statement:
                break
            if not isinstance(stmt, cst.If) or stmt.orelse is not None or not self._exits(stmt.body):
                continue
            guard = self._type_test(stmt.test, name)
            if guard is not None:
                out.append((guard[0], not guard[1]))
        return out

    @staticmethod
    def _exits(body) -> bool:
        """Does a block end by leaving its function or loop (return, raise, continue, break)?"""
        last = body.body[-1] if isinstance(body, cst.IndentedBlock) and body.body else None
        small = last.body[-1] if isinstance(last, cst.SimpleStatementLine) and last.body else None
        return isinstance(small, (cst.Return, cst.Raise, cst.Continue, cst.Break))

    def _tested_names(self) -> frozenset:
        """The names some type test of the module tests (`isinstance(eng, Dense)`: eng)."""
        found = self.__dict__.get("_tested_names_memo")
        if found is None:
            tests = {n.rsplit(".", 1)[-1] for n in self.tables.instance_tests}
            found = self._tested_names_memo = frozenset(
                call.args[0].value.value
                for call in (self.nodes.calls if tests & self.nodes.names else ())
                if isinstance(call.func, (cst.Name, cst.Attribute))
                and (call.func.value if isinstance(call.func, cst.Name) else call.func.attr.value) in tests
                and len(call.args) == 2
                and isinstance(call.args[0].value, cst.Name)
            )
        return found

    def _type_test(self, test: cst.BaseExpression, name: str) -> Optional[tuple]:
        """([classes], True) for `isinstance(name, C)` / `isinstance(name, (C, D))`, False under `not`."""
        positive = True
        while isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            test, positive = test.expression, not positive
        if not (
            isinstance(test, cst.Call)
            and len(test.args) == 2
            and not any(a.star or a.keyword is not None for a in test.args)
            and isinstance(test.args[0].value, cst.Name)
            and test.args[0].value.value == name
            and self.qualified(test) in self.tables.instance_tests
        ):
            return None
        spec = test.args[1].value
        parts = [e.value for e in spec.elements] if isinstance(spec, (cst.Tuple, cst.List)) else [spec]
        classes = [self.class_named(p) if isinstance(p, cst.Name) else None for p in parts]
        if not classes or any(c is None for c in classes):
            return None
        if any(
            self._is_protocol(c) or any("__subclasshook__" in self.class_methods(m) for m in self.class_mro(c))
            for c in classes
        ):
            return None  # structural: any class with the methods may pass (a runtime_checkable Protocol)
        return classes, positive

    def admitted(self, name: cst.Name, cls: Optional[cst.ClassDef]) -> bool:
        """May an object of cls be what name holds where it is used, under its isinstance guards?"""
        if cls is None:
            return True
        for tested, positive in self._type_guards(name):
            if any(self.is_instance_of(cls, t) for t in tested) != positive:
                return False
        return True

    def is_instance_of(self, cls: cst.ClassDef, tested: cst.ClassDef) -> bool:
        """Is an instance of cls an instance of tested: a subclass, or a class registered as a virtual
        subclass of tested or of one of its subclasses ([callables] virtual_registers: `Dense.register(C)`)?"""
        mro = self.class_mro(cls)
        if tested in mro:
            return True
        registered = self.virtual_subclasses()
        for sub in self.class_family(tested):
            if tested in self.class_mro(sub):
                if any(r in mro for r in registered.get(id(sub), ())):
                    return True
        return False

    def virtual_subclasses(self) -> Dict[int, List[cst.ClassDef]]:
        """id(class) -> the classes registered as its virtual subclasses: `Base.register(C)` and
        `@Base.register` over class C, where no class of Base's family defines `register` itself."""
        found = self.__dict__.get("_virtual_subclasses")
        if found is not None:
            return found
        found = self._virtual_subclasses = {}
        words = self.tables.virtual_registers
        if not words:
            return found

        def add(base_expr, registered: Optional[cst.ClassDef]):
            base = self.class_named(base_expr) if isinstance(base_expr, cst.Name) else None
            if base is None or registered is None:
                return
            if any(name in self.class_methods(member) for member in self.class_family(base) for name in words):
                return  # a `register` of its own, not abc's
            found.setdefault(id(base), []).append(registered)

        for call in self.nodes.calls:
            func = call.func
            if (
                isinstance(func, cst.Attribute)
                and func.attr.value in words
                and len(call.args) == 1
                and isinstance(call.args[0].value, cst.Name)
            ):
                add(func.value, self.class_named(call.args[0].value))
        for cls in self.nodes.classes:
            for decorator in cls.decorators:
                expr = decorator.decorator
                if isinstance(expr, cst.Attribute) and expr.attr.value in words:
                    add(expr.value, cls)
        return found

    def field_values(self, holder: cst.BaseExpression, owner: cst.ClassDef, attr: str, depth: int = 0) -> list:
        """What `holder.attr` may be, holder an instance of owner: for a record's field, the arguments
        of the constructions (and copies with fields replaced) that made holder, when they are known
        (`Bundle(KV(k, v)).kv` is that KV(k, v), not every Bundle's kv); else instance_attr_values."""
        if not self.is_record(owner) or attr not in self.record_fields(owner):
            return self.instance_attr_values(owner, attr)
        frames = self.construction_frames(holder, depth + 1)
        out: List[cst.BaseExpression] = []
        for call, _ in frames:
            replaced = self.replaced_record(call)
            if replaced is not None:
                original, changes = replaced
                out.append(changes[attr] if attr in changes else self._attribute(original, attr))
                continue
            cls = self.constructed_class(call)
            if cls is None or not self.is_record(cls) or attr not in self.record_fields(cls):
                return self.instance_attr_values(owner, attr)
            out.extend(self._record_arguments(cls, attr, [call]))
        return out if frames else self.instance_attr_values(owner, attr)

    def constructor_calls(self, cls: cst.ClassDef) -> List[cst.Call]:
        """Every `C(...)` of the module for cls or a subclass that inherits its __init__."""
        index = self.__dict__.setdefault("_constructor_index", {})
        if not index and self.nodes.calls:
            for call in self.nodes.calls:
                made = self.constructed_class(call)
                if made is not None:
                    index.setdefault(made.name.value, []).append(self.held_construction(call) or call)
        out = []
        for member in self.class_family(cls):
            if member is cls or self.find_method(member, "__init__") is self.find_method(cls, "__init__"):
                out.extend(index.get(member.name.value, ()))
        return out

    def instance_attr_values(self, cls: cst.ClassDef, attr: str, reader=None) -> List[cst.BaseExpression]:
        """What an instance of cls may hold in `attr`: `self.attr = v` anywhere in its
        family, or a record's constructor arguments for that field. reader: the method of cls the
        read is in; a subclass whose instances never run it (it overrides it, no super() call
        reaches it) assigns nothing that read sees."""
        values: List[cst.BaseExpression] = []
        family = self.class_family(cls)
        shadowed = self._shadowed_bases(cls, attr)
        carried = [c for other in family for order in [self.c3_mro(other)] if cls in order for c in order]
        for member in family:
            if reader is not None and not self._seen_by(member, cls, reader, family):
                continue
            if member in carried:  # a sibling subclass's stores and class body are on no instance of cls
                values.extend(self.self_attr_values(member, attr))
            if member in carried and member not in shadowed:
                values.extend(self.descriptor_read(v) for v in self.class_body_values(member, attr))
        if self.is_record(cls):
            values.extend(self._record_arguments(cls, attr))
        values.extend(self.external_values(cls, attr))
        return values

    def _shadowed_bases(self, cls: cst.ClassDef, attr: str) -> List[cst.ClassDef]:
        """The bases of cls whose class-body attr no instance of cls (or of a subclass: its MRO keeps cls's
        order) reads: a class before them in cls's MRO assigns attr in its body (`reader_cls = SlotReader`
        in a subclass hides the base's `reader_cls = WholeReader`)."""
        order = self.c3_mro(cls)
        first = next((i for i, c in enumerate(order) if self.class_body_values(c, attr)), None)
        return order[first + 1 :] if first is not None else []

    def external_values(self, cls: cst.ClassDef, attr: str) -> List[cst.BaseExpression]:
        """`md = Meta(...); md.cache_ref = kv_cache`: what stores on an instance of cls's family made elsewhere
        (not through self) put in attr."""
        family = self.class_family(cls)
        return [v for obj, v in self._external_stores().get(("any", attr), ()) if self.instance_class(obj) in family]

    def _seen_by(self, member: cst.ClassDef, cls: cst.ClassDef, reader: cst.FunctionDef, family) -> bool:
        """Is some instance that carries member's assignments (its class has member in its MRO) one
        that runs cls's method reader?"""
        return any(
            member in order and cls in order and self.runs_own_method(order, cls, reader.name.value)
            for order in (self.c3_mro(other) for other in family)
        )

    def runs_own_method(self, order: List[cst.ClassDef], cls: cst.ClassDef, name: str) -> bool:
        """Does an instance whose MRO is order run cls's method name: no class before cls defines
        it, or each that does hands on with `super().name(...)`; also when the module calls
        `Cls.name(...)` through the class, which may pass any instance."""
        if self._called_through_class(cls, name):
            return True
        for owner in order:
            if owner is cls:
                return True
            found = self.class_function(owner, name)
            if found is not None and not self._calls_super(found, name):
                return False
        return False

    def _called_through_class(self, cls: cst.ClassDef, name: str) -> bool:
        return (cls.name.value, name) in self._method_call_index()[0]

    def _calls_super(self, func, name: str) -> bool:
        """Does func call `super().name(...)` (or `super(C, self).name(...)`)?"""
        return (id(func), name) in self._method_call_index()[1]

    def _method_call_index(self) -> tuple:
        """({(receiver spelling, method)} of the module's `X.m(...)` calls, {(id(def), m)} of its
        `super().m(...)` calls by the def they are in), built once."""
        found = self.__dict__.get("_spelled_method_calls")
        if found is None:
            spelled, supers = set(), set()
            for call in self.nodes.calls:
                func = call.func
                if not isinstance(func, cst.Attribute):
                    continue
                receiver = func.value
                if (
                    isinstance(receiver, cst.Call)
                    and isinstance(receiver.func, cst.Name)
                    and receiver.func.value == "super"
                ):
                    supers.add((id(self.enclosing_function(call)), func.attr.value))
                else:
                    spelled.add((_dotted(receiver), func.attr.value))
            found = self._spelled_method_calls = (spelled, supers)
        return found

    def descriptor_read(self, value: cst.BaseExpression) -> cst.BaseExpression:
        """A class attribute read through an instance: `k = PoolPlane()` in the class body, where
        PoolPlane (a class of the module) defines `__get__`, reads as `PoolPlane().__get__(None,
        None)`, what its `__get__` returns; any other value as itself."""
        if not isinstance(value, cst.Call):
            return value
        made = self.constructed_class(value)
        if made is None or self.find_method(made, "__get__") is None:
            return value
        reads = self.__dict__.setdefault("_descriptor_reads", {})
        read = reads.get(id(value))
        if read is None:
            none = [cst.Arg(cst.Name("None")), cst.Arg(cst.Name("None"))]
            read = reads[id(value)] = cst.Call(func=cst.Attribute(value=value, attr=cst.Name("__get__")), args=none)
            self.parents.setdefault(read.func, read)
            self.parents.setdefault(read, self.parents.get(value))
        return read

    def _in_subclass_hook(self, node: cst.CSTNode) -> bool:
        func = self.enclosing_function(node)
        return func is not None and func.name.value == "__init_subclass__"

    def class_level_values(self, cls: cst.ClassDef, attr: str) -> List[cst.BaseExpression]:
        """What the class attribute `attr` of cls is, by Python's rules: an `__init_subclass__` of a
        base in cls's MRO that stores a parameter as it (`cls._plane = plane`) runs after cls's body,
        with cls's class keyword (`class K(Base, plane="k_buffer")`) or the parameter's default; else
        the first class body in the MRO that assigns it. [] when neither shows it."""
        order = self.c3_mro(cls)
        hook = next((m for m in (self.class_methods(c).get("__init_subclass__") for c in order[1:]) if m), None)
        if hook is not None and hook.params.params:
            first = hook.params.params[0].name.value
            for node in iter_nodes(hook.body, cst.Assign):
                for target in node.targets:
                    t = target.target
                    if not (
                        isinstance(t, cst.Attribute)
                        and t.attr.value == attr
                        and isinstance(t.value, cst.Name)
                        and t.value.value == first
                        and isinstance(node.value, cst.Name)
                    ):
                        continue
                    param = next(
                        (p for p in hook.params.kwonly_params + hook.params.params if p.name.value == node.value.value),
                        None,
                    )
                    if param is None:
                        return []
                    given = next(
                        (
                            k.value
                            for k in cls.keywords
                            if k.keyword is not None and k.keyword.value == param.name.value
                        ),
                        None,
                    )
                    value = given if given is not None else param.default
                    return [value] if value is not None else []
        for c in order:
            values = self.class_body_values(c, attr)
            if values:
                return list(values)
        return []

    def class_attribute_values(self, cls: cst.ClassDef, attr: str) -> List[cst.BaseExpression]:
        """What `Cls.attr` reads on the class itself: the class body's value of the first class of its
        MRO that assigns attr there (a subclass's `hooks = Base.hooks + [...]` never changes Base's)."""
        for member in self.c3_mro(cls):
            found = self.class_body_values(member, attr)
            if found:
                return found
        return []

    def class_body_values(self, cls: cst.ClassDef, attr: str) -> List[cst.BaseExpression]:
        """`attr = v` in the class body (a class attribute every instance reads), records'
        annotated fields excepted."""
        index = self.__dict__.setdefault("_class_body_index", {})
        found = index.get(id(cls))
        if found is None:
            found = index[id(cls)] = {}
            for stmt in cls.body.body if isinstance(cls.body, cst.IndentedBlock) else ():
                if not isinstance(stmt, cst.SimpleStatementLine):
                    continue
                for small in stmt.body:
                    if isinstance(small, cst.Assign) and not self._field_declaration(small):
                        for target in small.targets:
                            if isinstance(target.target, cst.Name):
                                found.setdefault(target.target.value, []).append(small.value)
                    elif (
                        isinstance(small, cst.AnnAssign)
                        and small.value is not None
                        and isinstance(small.target, cst.Name)
                        and not self.is_record(cls)
                    ):
                        found.setdefault(small.target.value, []).append(small.value)
        return found.get(attr, [])

    def _record_arguments(self, cls: cst.ClassDef, attr: str, calls=None) -> List[cst.BaseExpression]:
        fields = self.record_fields(cls)
        if attr not in fields:
            return []
        index, out = fields.index(attr), []
        defaults = self.record_defaults(cls)
        for call in calls if calls is not None else self.constructor_calls(cls):
            args = call.args
            if isinstance(call.func, cst.Attribute) and call.func.attr.value in self.tables.record_make_methods:
                if len(args) != 1 or args[0].keyword is not None or args[0].star:
                    continue
                args = [cst.Arg(args[0].value, star="*")]  # `Rec._make(pair)`: Rec(*pair)
            positional = [a for a in args if a.keyword is None and a.star != "**"]
            keyword = [a for a in args if a.keyword is not None and a.keyword.value == attr]
            if not keyword and any(a.star == "**" for a in args):
                # `Rec(**{"k": x})`, `Rec(**other._asdict())`, `Rec(**vars(other))`: the entry of that name
                unpacked = [
                    found
                    for a in args
                    if a.star == "**"
                    for found in [self._double_starred_values(a.value).get(attr)]
                    if found is not None
                ]
                if unpacked:
                    out.append(unpacked[0])
                    continue
            starred = next((i for i, a in enumerate(positional) if a.star == "*"), None)
            if keyword:
                out.append(keyword[0].value)
            elif starred is None and index < len(positional):
                out.append(positional[index].value)
            elif starred is not None and index < starred:
                out.append(positional[index].value)
            elif starred is not None and index >= len(fields) - (len(positional) - starred - 1):
                # `KV(*pool.get_kv_buffer(i), loc)`: the fields after the unpacked ones, from the end
                out.append(positional[len(positional) - (len(fields) - index)].value)
            elif starred is not None and attr in defaults and index >= len(fields) - len(defaults):
                # `KV(*pool.get_kv_buffer(i))` with `loc: Tensor = None`: an unpacked value of unknown
                # length fills the fields without a default; the defaulted ones keep their default
                out.append(defaults[attr])
            elif starred is not None:
                # `Pair(*pool.get_kv_buffer(i))`: field i is element i - starred of what is unpacked
                element = cst.Subscript(
                    positional[starred].value, [cst.SubscriptElement(cst.Index(cst.Integer(str(index - starred))))]
                )
                self.parents.setdefault(element, call)
                out.append(element)
            elif attr in defaults and not any(a.star == "**" for a in args):
                # `PlanTypes()` of `kv: torch.dtype = torch.bfloat16`: a field the construction leaves out
                # holds its default (`field(default=x)`: x; a factory's value is not shown)
                default = self._default_value(defaults[attr])
                if default is not None:
                    out.append(default)
        return out

    def _default_value(self, declared: cst.BaseExpression) -> Optional[cst.BaseExpression]:
        """The value a field declared with this default holds when a construction leaves it out:
        the declaration's value, or a field call's `default=` (rules/accessors.toml [records]
        field_calls); None for a factory."""
        if isinstance(declared, cst.Call) and self._named_in(declared, self.tables.record_field_calls):
            for a in declared.args:
                if a.keyword is not None and a.keyword.value == "default":
                    return a.value
            return None
        return declared

    # -- elements of containers and records ---------------------------------------
    def element_values(self, expr: cst.BaseExpression, index: Optional[int], depth: int = 0):
        """The expressions `expr[index]` (index None: any element) may be, where expr is,
        through names, attributes of any object, helper returns and subscripts, a tuple or
        list display, a comprehension, a list grown with append/insert/extend, or a record
        (dataclass, NamedTuple) construction; None when some value is none of those."""
        if depth > 6:
            return None
        repeated = _repeated_display(expr)
        if repeated is not None:  # `(dt,) * 2`, `2 * [kv]`: element j is the display's element j % len
            n = len(repeated.elements)
            return self.element_values(repeated, None if index is None else index % n, depth + 1)
        if isinstance(expr, (cst.Tuple, cst.List)):
            elements = list(expr.elements)
            if any(isinstance(e, cst.StarredElement) for e in elements):
                # `[*ks, *vs]`: positions are unknown past a spread, any element of any part
                out: List[cst.BaseExpression] = []
                for e in elements:
                    if isinstance(e, cst.StarredElement):
                        found = self.element_values(e.value, None, depth + 1)
                        if found is None:
                            return None
                        out.extend(found)
                    else:
                        out.append(e.value)
                return out
            if index is not None and -len(elements) <= index < len(elements):
                return [elements[index].value]
            return [e.value for e in elements]
        if isinstance(expr, (cst.ListComp, cst.GeneratorExp)):
            return [expr.elt]
        if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Add) and index is None:
            # `Base.hooks + [_upcast]`: a concatenation holds the elements of both
            left = self.element_values(expr.left, None, depth + 1)
            right = self.element_values(expr.right, None, depth + 1) if left is not None else None
            return None if right is None else left + right
        if isinstance(expr, cst.Dict):  # a dict indexed by a computed key: any value (of a `**` part too)
            out = []
            for e in expr.elements:
                if isinstance(e, cst.DictElement):
                    out.append(e.value)
                    continue
                found = self.element_values(e.value, None, depth + 1)
                if found is None:
                    return None
                out.extend(found)
            return out
        if isinstance(expr, cst.DictComp):
            return [expr.value]
        if (
            isinstance(expr, cst.Call)
            and isinstance(expr.func, cst.Name)
            and expr.func.value == "zip"
            and len(expr.args) == 1
            and expr.args[0].star == "*"
            and "zip" not in self.module_classes()
        ):
            # zip(*rows) transposes: its element j holds element j of every row
            row = self._element_of(expr.args[0].value, None)
            return [row] if index is None else [self._held_list(self._element_of(row, index))]
        if (
            isinstance(expr, cst.Call)
            and isinstance(expr.func, cst.Name)
            and expr.args
            and not any(a.star or a.keyword is not None for a in expr.args)
        ):
            name = expr.func.value
            if name in ("list", "tuple") and len(expr.args) == 1 and name not in self.module_classes():
                return self.element_values(expr.args[0].value, index, depth + 1)
        if (
            isinstance(expr, cst.Call)
            and self.qualified_in(expr, self.tables.iter_copies)
            and expr.args
            and not expr.args[0].star
        ):
            return [expr.args[0].value]  # `a, b = itertools.tee(xs)`: each an iterator over xs's elements
        if isinstance(expr, cst.Call) and self.qualified_in(expr, self.tables.broadcast_functions):
            # `torch.broadcast_tensors(a, b)`: a tuple of its arguments, each expanded
            parts = [cst.StarredElement(a.value) if a.star else cst.Element(a.value) for a in expr.args]
            return self.element_values(cst.Tuple(parts), index, depth + 1)
        shaped = self.shaped_elements(expr) if isinstance(expr, cst.Call) else None
        if shaped is not None:  # enumerate(xs): (a counter, xs[j]); zip(a, b), product(a, b): (a[j], b[j])
            return shaped
        if self.qualified_in(expr, self.tables.tree_flatten) and expr.args and not expr.args[0].star:
            # `leaves, spec = tree_flatten(tree)`: a list of tree's leaves (read as its elements), a spec
            leaves = self._held_list(self._element_of(expr.args[0].value, None))
            return [leaves] if index in (None, 0) else []
        source = self.fields_source(expr)
        if source is not None:  # `vars(rec)`, `rec.__dict__`, `rec._asdict()`: any field of rec
            fields = self.any_field_attributes(source)
            return fields or None
        pairs = self.pair_items(expr)
        if pairs is not None:  # `dict(enumerate(xs))`, `dict(zip(names, bufs))`: the second of each pair
            out = []
            for pair in pairs:
                found = self.path_values(pair, (1,), depth + 1)
                if found is None:
                    return None
                out.extend(found)
            return out
        keywords = self.dict_keywords(expr)
        if keywords is not None:  # `dict(k=a, v=b)` indexed by a computed key: any value
            return list(keywords.values())
        merged = self.merged_mappings(expr)
        if merged is not None:  # `ChainMap(draft, base)`, `a | b`: any value of any of them
            out = []
            for part in merged:
                found = self.element_values(part, None, depth + 1)
                if found is None:
                    return None
                out.extend(found)
            if isinstance(expr, cst.Call):
                out.extend(a.value for a in expr.args if a.keyword is not None)
            return out
        if isinstance(expr, cst.Call) and expr.args and not expr.args[0].star and expr.args[0].keyword is None:
            t, name = self.tables, self.qualified(expr)
            if name in t.keep_elements and name not in self.module_classes():  # `collections.deque(xs)`
                return self.element_values(expr.args[0].value, index, depth + 1)
        sources = self.iteration_sources(expr)
        if sources is not None:  # `islice(xs, a, b)`, `filter(p, xs)`, `chain(a, b)`, `chain.from_iterable(ps)`
            iterables, levels = sources
            found: List[cst.BaseExpression] = []
            for iterable in iterables:
                elements = self.element_values(iterable, None, depth + 1)
                if elements is None:
                    return None
                if levels == 2:
                    nested: List[cst.BaseExpression] = []
                    for element in elements:
                        inner = self.element_values(element, None, depth + 1)
                        if inner is None:
                            return None
                        nested.extend(inner)
                    elements = nested
                found.extend(elements)
            return found
        iterated = self.protocol_elements(expr, index, depth)
        if iterated is not None:  # `k, v = LayerPair(pool, i)` of a class whose `__iter__` hands back (k, v)
            return iterated
        values = self._container_sources(expr, depth)
        if values is None:
            return None
        out: List[cst.BaseExpression] = []
        for value in values:
            if isinstance(value, cst.Name) and value.value == "None":
                continue  # `self.stage_bufs = None` before it is filled: indexing None reads nothing
            fields = self.record_field_values(value, index, depth)
            if fields is not None:  # a record by position (a construction, a copy with fields replaced)
                out.extend(fields)
                continue
            found = self.element_values(value, index, depth + 1)
            if found is None:
                if not self.holds_pools(value):
                    return None
                # a container whose structure is not shown (an accessor's pair): the lattice's element
                found = [self._element_of(value, index)]
            out.extend(found)
        return out

    def _protocol_iter(self, expr: cst.BaseExpression, depth: int):
        """(the `__iter__` def, `expr.__iter__()` as a node) for an object of a module class that defines the
        iteration protocol (rules/accessors.toml [iteration] protocol_iter), not a record; else None."""
        protocol = self.tables.iter_protocol
        if depth > 6 or not any(m in self.nodes.local_callables for m in protocol):
            return None
        if not isinstance(expr, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)):
            return None
        owner = self.instance_class(expr, depth + 1)
        if owner is None or self.is_record(owner):
            return None
        for name in sorted(protocol):
            method = self.find_method(owner, name)
            if isinstance(method, cst.FunctionDef):
                cache = self.__dict__.setdefault("_protocol_nodes", {})
                synthetic = cache.get((id(expr), name))
                if synthetic is None:
                    synthetic = cache[(id(expr), name)] = cst.Call(func=self._attribute(expr, name))
                    self.parents.setdefault(synthetic, self.parents.get(expr))
                return method, synthetic
        return None

    def protocol_elements(self, expr: cst.BaseExpression, index: Optional[int], depth: int = 0):
        """Element index (None: any) of what iterating such an object gives: of what its `__iter__` returns
        (`return iter((self.k, self.v))`), or what a generator `__iter__` yields (by position when its yields
        follow one another in its body); None when expr is no such object or nothing is shown."""
        found = self._protocol_iter(expr, depth)
        if found is None:
            return None
        method, synthetic = found
        yields, delegated = self._yield_values(method)
        if yields or delegated:
            ordered = self.protocol_sequence(expr, depth)
            if ordered is not None and index is not None and -len(ordered) <= index < len(ordered):
                return [ordered[index]]
            return [*yields, *(self._element_of(d, None) for d in delegated)]
        return self.element_values(synthetic, index, depth + 1)

    def protocol_sequence(self, expr: cst.BaseExpression, depth: int = 0) -> Optional[List[cst.BaseExpression]]:
        """Every element of what iterating such an object gives, in order (`*slot` spread into a call):
        the yields of a generator `__iter__` that follow one another in its body, or the display its
        `__iter__` returns (through `iter(...)`, `tuple(...)`, a name or attribute assigned one); else None."""
        found = self._protocol_iter(expr, depth)
        if found is None:
            return None
        method, synthetic = found
        yields, delegated = self._yield_values(method)
        if yields or delegated:
            if delegated or any(self._in_loop(y, method) for y in yields):
                return None
            return sorted(yields, key=lambda y: self.position(y).start.line)
        returns = self._return_values(method)
        if len(returns) != 1:
            return None
        value = returns[0]
        for _ in range(4):
            while (
                isinstance(value, cst.Call)
                and len(value.args) == 1
                and not value.args[0].star
                and value.args[0].keyword is None
                and self.qualified(value) in self.tables.keep_elements
            ):
                value = value.args[0].value
            if isinstance(value, (cst.Tuple, cst.List)):
                if any(isinstance(e, cst.StarredElement) for e in value.elements):
                    return None
                return [e.value for e in value.elements]
            sources = (
                self._container_sources(value, depth + 1) if isinstance(value, (cst.Name, cst.Attribute)) else None
            )
            if not sources or len(sources) != 1:
                return None
            value = sources[0]
        return None

    def missing_value(self, sub: cst.Subscript) -> Optional[cst.Call]:
        """`obj.__missing__(k)` as a node of this module's parent map for `obj[k]`, obj an instance of a
        module class that subclasses a dict ([containers] dict_constructors, user_containers) and defines
        the method a missing key runs ([containers] missing_protocol); else None."""
        protocol = self.tables.missing_protocol
        if (
            not any(m in self.nodes.local_callables for m in protocol)
            or len(sub.slice) != 1
            or not isinstance(sub.slice[0].slice, cst.Index)
        ):
            return None
        owner = self.instance_class(sub.value)
        if owner is None or not self._dict_subclass(owner):
            return None
        for name in sorted(protocol):
            if isinstance(self.find_method(owner, name), cst.FunctionDef):
                cache = self.__dict__.setdefault("_missing_nodes", {})
                if id(sub) not in cache:
                    synthetic = cst.Call(
                        func=self._attribute(sub.value, name), args=[cst.Arg(sub.slice[0].slice.value)]
                    )
                    self.parents.setdefault(synthetic, self.parents.get(sub))
                    cache[id(sub)] = synthetic
                return cache[id(sub)]
        return None

    def dynamic_attribute(self, expr: cst.Attribute, owner: cst.ClassDef) -> Optional[cst.Call]:
        """`obj.__getattr__("name")` as a node of this module's parent map for `obj.name`, when owner (obj's
        class) neither assigns nor defines name but defines the method a missing attribute runs
        ([callables] attribute_protocol); else None."""
        protocol = self.tables.attribute_protocol
        if not any(m in self.nodes.local_callables for m in protocol) or expr.attr.value.startswith("__"):
            return None
        name = expr.attr.value
        if self.instance_attr_values(owner, name) or any(
            self.class_function(c, name) is not None or name in self.called_properties(c) for c in self.class_mro(owner)
        ):
            return None
        if self.class_named(expr.value) is owner:  # `Layers.L0` of the class itself: its metaclass answers
            return self.class_level_call(expr, expr.value, owner, (), protocol, cst.SimpleString(repr(name)))
        for method in sorted(protocol):
            if isinstance(self.find_method(owner, method), cst.FunctionDef):
                cache = self.__dict__.setdefault("_dynamic_nodes", {})
                if id(expr) not in cache:
                    synthetic = cst.Call(
                        func=self._attribute(expr.value, method), args=[cst.Arg(cst.SimpleString(repr(name)))]
                    )
                    self.parents.setdefault(synthetic, self.parents.get(expr))
                    cache[id(expr)] = synthetic
                return cache[id(expr)]
        return None

    def metaclass_of(self, cls: cst.ClassDef) -> Optional[cst.ClassDef]:
        """The module class that makes cls (`class Layers(metaclass=_LayerNS)`, or one of its bases' keyword:
        [callables] metaclass_keywords); None for none (type) or a library metaclass."""
        for member in self.c3_mro(cls):
            for keyword in member.keywords:
                if keyword.keyword is not None and keyword.keyword.value in self.tables.metaclass_keywords:
                    return self.class_named(keyword.value)
        return None

    def class_level_call(
        self,
        read: cst.CSTNode,
        receiver: cst.BaseExpression,
        owner: cst.ClassDef,
        hooks,
        methods,
        argument: cst.BaseExpression,
        instance: bool = False,
    ) -> Optional[cst.Call]:
        """The call Python runs for a protocol read on the class owner itself (receiver names it): a class
        hook owner's MRO defines (`CacheHub[i]`: `CacheHub.__class_getitem__(i)`, an implicit classmethod),
        else its metaclass's method (`Layers[i]`: `Meta.__getitem__(Layers, i)`; `Layers.L0` missing:
        `Meta.__getattr__(Layers, "L0")`), as a node of this module's parent map; None when neither has one.
        instance: receiver is an instance of owner, whose own hooks (`proxy.__getattr__(name)`) answer."""
        found = next(((owner, m) for m in sorted(hooks) if self.find_method(owner, m) is not None), None)
        meta = self.metaclass_of(owner) if found is None and not instance else None
        if meta is not None:
            found = next(((meta, m) for m in sorted(methods) if self.find_method(meta, m) is not None), None)
        if found is None:
            return None
        cache = self.__dict__.setdefault("_class_level_nodes", {})
        key = (id(read), found[1])
        if key not in cache:
            cls, method = found
            args = [cst.Arg(argument)] if cls is owner else [cst.Arg(receiver), cst.Arg(argument)]
            head = receiver if cls is owner else cst.Name(cls.name.value)
            synthetic = cst.Call(func=self._attribute(head, method), args=args)
            self.parents.setdefault(synthetic, self.parents.get(read))
            cache[key] = synthetic
        return cache[key]

    def computed_protocol_read(self, call: cst.Call) -> Optional[cst.Call]:
        """`getattr(obj, name)` ([callables] attribute_getters) with a name no constant folds: the call of the
        method a missing attribute runs (attribute_protocol) with that name, obj's class's
        (`proxy.__getattr__(name)`) or, obj a class itself, its metaclass's; None when there is none."""
        protocol = self.tables.attribute_protocol
        if not any(m in self.nodes.local_callables for m in protocol):
            return None
        receiver, name = call.args[0].value, call.args[1].value
        cls = self.class_named(receiver)
        if cls is not None:
            return self.class_level_call(call, receiver, cls, (), protocol, name)
        owner = self.instance_class(receiver)
        if owner is None:
            return None
        return self.class_level_call(call, receiver, owner, protocol, (), name, instance=True)

    def _dict_subclass(self, cls: cst.ClassDef) -> bool:
        """Does cls (or a module class it inherits) subclass a dict of the tables?"""
        t = self.tables
        for member in self.class_mro(cls):
            for base in member.bases:
                if self._named_in(base.value, t.dict_constructors) or self._named_in(base.value, t.user_containers):
                    return True
        return False

    def _in_loop(self, node: cst.CSTNode, func: cst.FunctionDef) -> bool:
        for anc in self.ancestors(node):
            if anc is func:
                return False
            if isinstance(anc, (cst.For, cst.While, cst.CompFor)):
                return True
        return False

    def iteration_sources(self, call: cst.BaseExpression):
        """(iterables, levels) when iterating call yields elements of what it is given (rules/accessors.toml
        [iteration] and [containers] keep_elements, by qualified name: `islice(xs, a, b)`, `filter(p, xs)`,
        `chain(a, b)`: the elements of those, levels 1; `chain.from_iterable(pairs)`: the elements of
        their elements, levels 2); None otherwise."""
        if not isinstance(call, cst.Call) or not isinstance(call.func, (cst.Name, cst.Attribute)):
            return None
        words = self.__dict__.get("_iteration_words")
        if words is None:
            t = self.tables
            words = self._iteration_words = (
                set(t.iter_passthrough) | set(t.keep_elements),
                set(t.iter_chain),
                set(t.iter_filtering),
                set(t.iter_flatten),
            )
            self._iteration_shorts = {n.rsplit(".", 1)[-1] for group in words for n in group}
        name = call.func.value if isinstance(call.func, cst.Name) else call.func.attr.value
        if name not in self._iteration_shorts or name in self.module_classes():
            return None
        args = [a.value for a in call.args if a.keyword is None and not a.star]
        if not args or len(args) != len([a for a in call.args if a.keyword is None]):
            return None
        qualified = self.qualified(call)
        keep, chain, filtering, flatten = words
        if qualified in flatten:
            return [args[0]], 2
        if qualified in chain:
            return args, 1
        if qualified in filtering:
            return [args[-1]], 1
        if qualified in keep:
            return [args[0]], 1
        return None

    def iteration_kind(self, call: cst.BaseExpression) -> Optional[str]:
        """What iterating call yields, by its qualified name (under any import alias) in
        rules/accessors.toml [iteration]: "numbered" (a counter and an element of its first argument:
        enumerate), "pairs" (one element of each positional argument: zip, itertools.product),
        "repeats" (its first argument itself: itertools.repeat), "counters" (ints: range), "leaves"
        (the leaves of its first argument: a pytree's tree_leaves); None for any other expression."""
        if not isinstance(call, cst.Call) or not isinstance(call.func, (cst.Name, cst.Attribute)):
            return None
        kinds = self.__dict__.get("_iteration_kinds")
        if kinds is None:
            t = self.tables
            kinds = self._iteration_kinds = {}
            for kind, names in (
                ("numbered", t.iter_numbered),
                ("pairs", t.iter_pairs),
                ("repeats", t.iter_repeats),
                ("counters", t.counters),
                ("leaves", t.tree_leaves),
            ):
                for name in names:
                    kinds[name] = kind
            self._iteration_kind_shorts = {n.rsplit(".", 1)[-1] for n in kinds}
        func = call.func
        short = func.value if isinstance(func, cst.Name) else func.attr.value
        if short not in self._iteration_kind_shorts or short in self.nodes.local_callables:
            return None
        if short in self.module_classes() or not self.iterated_args(call):
            return None
        return kinds.get(self.qualified(call) or "")

    @staticmethod
    def iterated_args(call: cst.Call) -> List[cst.BaseExpression]:
        """The positional arguments of an iteration call, before any `*` one (`start=`, `strict=`,
        `repeat=` and other keywords are options)."""
        out = []
        for arg in call.args:
            if arg.star:
                break
            if arg.keyword is None:
                out.append(arg.value)
        return out

    def shaped_elements(self, call: cst.Call) -> Optional[List[cst.BaseExpression]]:
        """One element of what iterating call yields, by its iteration_kind, as nodes of this
        module's parent map: `(0, xs[0])` for enumerate(xs) (the counter a constant int), the tuple
        `(a[0], b[0])` for zip(a, b) and itertools.product(a, b), x for itertools.repeat(x, n), an
        int for range(n), an element for tree_leaves(tree); None for any other call."""
        kind = self.iteration_kind(call)
        if kind is None:
            return None
        args = self.iterated_args(call)
        if kind == "repeats":
            return [args[0]]
        if kind == "counters":
            return [self._counter_node(call)]
        if kind == "leaves":
            return [self._element_of(args[0], None)]
        cache = self.__dict__.setdefault("_shaped_nodes", {})
        if id(call) not in cache:
            if kind == "numbered":
                parts = [self._counter_node(call), self._element_of(args[0], None)]
            else:
                parts = [self._element_of(a, None) for a in args]
            node = cst.Tuple([cst.Element(p) for p in parts])
            self.parents.setdefault(node, self.parents.get(call))
            cache[id(call)] = node
        return [cache[id(call)]]

    def _counter_node(self, call: cst.Call) -> cst.Integer:
        """An int a counter of call gives (enumerate's position, range's element), as a node."""
        cache = self.__dict__.setdefault("_counter_nodes", {})
        if id(call) not in cache:
            node = cst.Integer("0")
            self.parents.setdefault(node, self.parents.get(call))
            cache[id(call)] = node
        return cache[id(call)]

    def path_values(self, value: cst.BaseExpression, path, depth: int = 0, lattice: bool = True):
        """What position `path` (tuple-unpacking indices, outermost first) of value may be, by
        structure (element_values at each step; with lattice, a container of pools whose structure
        is not shown gives its element as the lattice reads it); None when some step is unknown."""
        values = [value]
        for index in path:
            if index is None:
                return None
            out: List[cst.BaseExpression] = []
            for v in values:
                found = self.element_values(v, index, depth + 1)
                if found is None:
                    if not lattice or not self.holds_pools(v):
                        return None
                    found = [self._element_of(v, index)]
                out.extend(found)
            values = out
        return values

    def _element_of(self, value: cst.BaseExpression, index: Optional[int]) -> cst.Subscript:
        """`value[index]` (index None: any element, read as the first) as a node of this module's parent map."""
        cache = self.__dict__.setdefault("_element_nodes", {})
        key = (id(value), index)
        if key not in cache:
            node = cst.Subscript(value, [cst.SubscriptElement(cst.Index(cst.Integer(str(index or 0))))])
            self.parents.setdefault(node, self.parents.get(value))
            cache[key] = node
            if index is None:  # an element iteration yields: a key of a mapping, as a for target's
                self.__dict__.setdefault("iteration_elements", {})[id(node)] = value
        return cache[key]

    def _container_sources(self, expr: cst.BaseExpression, depth: int):
        """What a name, attribute, subscript or helper call holds (its assigned values), for
        element_values; None when unknown."""
        if isinstance(expr, cst.Name):
            values = []
            for assignment in self.reaching(expr):
                node = assignment.node
                param = node if isinstance(node, cst.Param) else self.parents.get(node)
                if isinstance(param, cst.Param):
                    # a parameter: what the call being followed passes, else every visible call
                    # (`def _prepare(self, pair): buf, blocks = pair` of `self._prepare(self._fetch(m, i))`)
                    passed = self.complete_arguments(param)
                    if not passed:
                        return None
                    values.extend(passed)
                    continue
                if not isinstance(node, cst.Name):
                    return None
                kind, value, path = self.binding(node)
                if kind == "for":  # `for pair in self.kv_pairs`: any element of what it iterates
                    iterated = self._iterated_elements(value, path, depth)
                    if iterated is None:
                        return None
                    values.extend(iterated)
                    continue
                if kind != "assign" or path:
                    return None
                values.append(value)
            if values:
                values.extend(self.filled_values(expr))
            return values or None
        if isinstance(expr, cst.Attribute):
            held = self.held_attribute(expr)
            if held:  # `_tls.caches` of `_tls = threading.local()`: what the module stores there
                return held
            named = self.class_named(expr.value)
            if named is not None:  # `Base.hooks` of the class itself: its body's, or the nearest base's
                return self.class_attribute_values(named, expr.attr.value) or None
            owner = self.instance_class(expr.value, depth + 1) or self.duck_class(
                expr.value, expr.attr.value, method=False
            )  # `_tls.engine.local_gpu_cache`: the one class that assigns `self.local_gpu_cache`
            if owner is None:
                return None
            getter = self.property_getter(owner, expr.attr.value)
            values = (
                self.function_returns(getter)
                if getter is not None
                else self.field_values(expr.value, owner, expr.attr.value, depth)
            )  # a property: what its getter returns
            return values or None
        if isinstance(expr, cst.Subscript) and len(expr.slice) == 1 and isinstance(expr.slice[0].slice, cst.Index):
            key = expr.slice[0].slice.value
            if isinstance(key, cst.SimpleString):
                keyed = self.keyed_values(expr)  # `self.caches["k"]`: what that key holds, not any value
                if keyed:
                    return keyed
            return self.element_values(expr.value, int(key.value) if isinstance(key, cst.Integer) else None, depth + 1)
        if isinstance(expr, cst.Call):
            held = self.held_construction(expr)
            if held is not None:
                return [held]
            if (
                self.constructed_class(expr) is not None
                or self.replaced_record(expr) is not None
                or (
                    self._may_name(expr, self.tables.record_as_tuple_functions)
                    and self.qualified(expr) in self.tables.record_as_tuple_functions
                )
            ):
                return [expr]
            taken = self._taken_elements(expr, depth)
            if taken is not None:
                return taken
            targets = self.return_targets(expr, depth + 1)
            if not targets:
                applied = self.applied_values(expr, depth + 1)  # attrgetter("a", "b")(x): (x.a, x.b)
                if applied:
                    return applied
                held = [
                    form for form, _ in self.callable_values(expr.func, depth + 1) if isinstance(form, cst.Lambda)
                ]  # a lambda held in an attribute or a dispatch dict: `self._modes["upcast"]()`
                return [form.body for form in held] or None
            values = []
            for target, _, _ in targets:
                returned = [target.body] if isinstance(target, cst.Lambda) else self._return_values(target)
                if not returned:
                    return None
                values.extend(returned)
            return values
        return None

    def _iterated_elements(self, iterable: cst.BaseExpression, path, depth: int):
        """What a for or comprehension target at path may be, iterating over iterable: an element
        of it (`for p in pairs`), the element half of `enumerate(xs)`, of `d.items()` or of
        `d.values()`; None when unknown."""
        if isinstance(iterable, cst.Call) and isinstance(iterable.func, cst.Attribute) and not iterable.args:
            method = iterable.func.attr.value
            if method == "values" and not path:
                return self.element_values(iterable.func.value, None, depth + 1)
            if method == "items" and path == (1,):
                return self.element_values(iterable.func.value, None, depth + 1)
        if isinstance(iterable, cst.Call) and isinstance(iterable.func, cst.Attribute) and path:
            if iterable.func.attr.value in self.tables.item_methods and not iterable.args:
                if path[0] != 1:
                    return None  # a key
                values = self.element_values(iterable.func.value, None, depth + 1)
                return self._at_path(values, path[1:], depth)
        if isinstance(iterable, cst.Call) and iterable.args and not iterable.args[0].star and path:
            qualified = self.qualified(iterable)
            if qualified in self.tables.iter_groups and path == (1,):
                return [iterable.args[0].value]  # `groupby(xs)`'s group: some elements of xs, read as xs
            if qualified in self.tables.iter_windows and len(path) == 1:
                return self.element_values(iterable.args[0].value, None, depth + 1)  # `pairwise(xs)`
        if not path:
            return self.element_values(iterable, None, depth + 1)
        # a target unpacked by position: that position of any element, by structure (`for _, (k, v)
        # in enumerate(gpu_cache)`, `for i, half in product(ids, (0, 1))`, `for _, t in sorted(pairs)`)
        return self._at_path(self.element_values(iterable, None, depth + 1), path, depth)

    def _at_path(self, values, path, depth: int):
        """path_values of each of values (None stays None)."""
        if values is None:
            return None
        out: List[cst.BaseExpression] = []
        for value in values:
            found = self.path_values(value, path, depth + 1)
            if found is None:
                return None
            out.extend(found)
        return out

    def _taken_elements(self, call: cst.Call, depth: int):
        """What a container method or function that returns one of its elements may give
        (rules/accessors.toml [containers] take_methods, take_functions: `ring.popleft()`,
        `d.get(k)`, `next(iter(xs))`), or keeps all of (keep_methods: `d.values()`); None otherwise."""
        t, func = self.tables, call.func
        method = func.attr.value if isinstance(func, cst.Attribute) else None
        if method in t.item_methods and all(a.keyword for a in call.args):
            # `d.items()`: (key, value) pairs; `d.popitem()`: one of them (by structure)
            values = self.element_values(func.value, None, depth + 1)
            if not values:
                return values and [func.value]
            pairs = [self._item_pair(func.value, v) for v in values]
            return [self._held_pairs(call, pairs)] if method in t.item_views else pairs
        keeps = method in t.keep_methods
        if keeps and all(a.keyword for a in call.args):  # (`od.popitem(last=False)`: no element picked)
            return self.element_values(func.value, None, depth + 1) and [func.value]
        if isinstance(func, cst.Attribute) and func.attr.value in t.take_methods:
            key = call.args[0].value if call.args and not call.args[0].star else None
            found = self.element_values(func.value, int(key.value) if isinstance(key, cst.Integer) else None, depth + 1)
            if found is not None and func.attr.value in t.default_last and len(call.args) > 1:
                found = [*found, call.args[-1].value]  # setdefault(k, v), get(k, v): v when k was missing
            return found
        if call.args and not call.args[0].star and self.qualified(call) in t.take_functions:
            inner = call.args[0].value
            if isinstance(inner, cst.Call) and inner.args and self.qualified(inner) in t.keep_elements:
                inner = inner.args[0].value  # next(iter(xs)): an element of xs
            return self.element_values(inner, None, depth + 1)
        return None

    # -- introspected callables --------------------------------------------------------
    def introspected_values(self, expr: cst.Attribute, depth: int = 0) -> Optional[List[cst.BaseExpression]]:
        """What an introspection attribute of a callable holds ([callables] partial_*_attributes,
        bound_self_attributes, closure_attributes, cell_value_attributes): `p.args` of `p = partial(f, kv)`
        the tuple `(kv,)`, `p.keywords` a dict display of its keywords, `p.func` f; `obj.m.__self__` obj;
        `fn.__closure__` a tuple of the free variables of the def fn is (sorted by name: a cell per
        variable), whose `cell_contents` is the variable itself. None for any other attribute."""
        t, attr = self.tables, expr.attr.value
        if attr in t.cell_value_attributes:
            return [expr.value]  # a cell stands for its variable
        if attr in t.bound_self_attributes:
            method = expr.value  # `obj.m.__self__`, `bound.__self__` of `bound = obj.m`
            values = [method] if isinstance(method, cst.Attribute) else (self._container_sources(method, depth) or [])
            return [v.value for v in values if isinstance(v, cst.Attribute)] or None
        if attr in t.closure_attributes:
            cells = [self._closure_cells(f) for f in self.function_values(expr.value, depth)]
            return [c for c in cells if c is not None] or None
        if attr in t.partial_func_attributes | t.partial_args_attributes | t.partial_keywords_attributes:
            held = [expr.value] if isinstance(expr.value, cst.Call) else self._container_sources(expr.value, depth)
            partials = [v for v in held or () if isinstance(v, cst.Call) and self._named_in(v, t.partial_callables)]
            return [self._partial_part(p, attr) for p in partials] or None
        return None

    def _partial_part(self, call: cst.Call, attr: str) -> cst.BaseExpression:
        """`.func`, `.args` or `.keywords` of `partial(f, *args, **keywords)` as a node of this module."""
        t = self.tables
        positional = [a for a in call.args if a.keyword is None and not a.star]
        if attr in t.partial_func_attributes and positional:
            return positional[0].value
        cache = self.__dict__.setdefault("_partial_parts", {})
        key = (id(call), attr)
        if key not in cache:
            if attr in t.partial_args_attributes:
                node = cst.Tuple([cst.Element(a.value) for a in positional[1:]])
            else:
                keywords = [a for a in call.args if a.keyword is not None]
                node = cst.Dict([cst.DictElement(cst.SimpleString(repr(a.keyword.value)), a.value) for a in keywords])
            self.parents.setdefault(node, call)
            cache[key] = node
        return cache[key]

    def function_values(self, expr: cst.BaseExpression, depth: int = 0) -> List[cst.CSTNode]:
        """The defs and lambdas expr may evaluate to: a def's name, a name assigned one, what a
        factory returns (`make_reader(k, v)` returning its nested `read`)."""
        if depth > 4:
            return []
        if isinstance(expr, cst.Lambda):
            return [expr]
        if isinstance(expr, cst.Call):
            out: List[cst.CSTNode] = []
            for target, _, _ in self.return_targets(expr, depth + 1):
                returns = [target.body] if isinstance(target, cst.Lambda) else self._return_values(target)
                for value in returns:
                    out.extend(self.function_values(value, depth + 1))
            return out
        if isinstance(expr, cst.Name):
            out = []
            for assignment in self.reaching(expr):
                node = assignment.node
                if isinstance(node, cst.FunctionDef):
                    out.append(node)
                elif isinstance(node, cst.Name):
                    kind, value, path = self.binding(node)
                    if kind == "assign" and not path and value is not None:
                        out.extend(self.function_values(value, depth + 1))
            return out
        return []

    def _closure_cells(self, fn: cst.CSTNode) -> Optional[cst.Tuple]:
        """A tuple of fn's free variables, one use of each, sorted by name (its `__closure__`); None when it
        has none."""
        cache = self.__dict__.setdefault("_closure_cell_tuples", {})
        if id(fn) in cache:
            return cache[id(fn)]
        outer = self.enclosing_function(fn)
        first: Dict[str, cst.Name] = {}
        for name in iter_nodes(fn.body, (cst.Name,)):
            if outer is None or name.value in first:
                continue
            nodes = [a.node for a in self.reaching(name)]
            inside = [n for n in nodes if self._under(n, fn)]
            if nodes and not inside and all(self._under(n, outer) for n in nodes):
                first[name.value] = name
        node = cst.Tuple([cst.Element(first[n]) for n in sorted(first)]) if first else None
        if node is not None:
            self.parents.setdefault(node, fn)
        cache[id(fn)] = node
        return node

    def _under(self, node: cst.CSTNode, ancestor: cst.CSTNode) -> bool:
        while node is not None:
            if node is ancestor:
                return True
            node = self.parents.get(node)
        return False

    # -- callables held under other names -------------------------------------------
    def callable_values(self, func: cst.BaseExpression, depth: int = 0) -> List[cst.BaseExpression]:
        """The expressions a called name or attribute may hold (bound methods, partials,
        getattr results), followed through assignments; [] when it is not such an alias."""
        if depth > 4:
            return []
        values: List[cst.BaseExpression] = []
        if isinstance(func, cst.Name):
            held = self.held_callables(func)  # a parameter holding a callable (a decorator's fn)
            if held:
                return [(("closure", t, env, skip), ()) for t, skip, env in held]
            for assignment in self.reaching(func):
                node = assignment.node
                param = node if isinstance(node, cst.Param) else self.parents.get(node)
                if isinstance(param, cst.Param):
                    values.extend(self.passed_arguments(param))  # `def helper(getter, i): getter(i)`
                    values.extend(self._constructed_arguments(func))  # `Observer(lambda: self.kv_caches)`
                    if depth > 0:  # a decorator's `fn` stored and called from there (a call of fn itself:
                        # decorated() follows it, per decoration)
                        values.extend(self.decorator_params().get(id(param), ()))
                elif isinstance(node, cst.Name):
                    kind, value, path = self.binding(node)
                    if kind == "assign" and not path:
                        values.append(value)
                    elif kind == "for" and not path:  # `for hook in self._hooks: hook(kv)`: an entry
                        values.extend(self.element_values(value, None, depth + 1) or ())
                elif isinstance(node, cst.FunctionDef) and depth > 0:  # a def handed on by its name
                    return [(("closure", node, None, self.method_class(node) is not None), ())]
        elif isinstance(func, cst.Attribute):
            # (`cls.reader_cls(d)` in a classmethod: the class attribute of the class, or of a subclass's body)
            owner = self.instance_class(func.value, depth + 1) or self.class_named(func.value)
            getter = self.property_getter(owner, func.attr.value) if owner is not None else None
            if getter is not None:  # `self.to_compute(kv, d)` of a property: a callable its getter returns
                values.extend(self.function_returns(getter))
            elif owner is not None and self.find_method(owner, func.attr.value) is None:
                values.extend(self.instance_attr_values(owner, func.attr.value))
        elif isinstance(func, cst.Call):
            values.append(func)
        elif isinstance(func, cst.Subscript):  # a dispatch table: self.read["k"](i), readers[0](i)
            values.extend(self.keyed_values(func))
            if not values and len(func.slice) == 1 and isinstance(func.slice[0].slice, cst.Index):
                key = func.slice[0].slice.value
                values.extend(
                    self.element_values(func.value, int(key.value) if isinstance(key, cst.Integer) else None) or ()
                )
        elif isinstance(func, cst.IfExp):  # (a if c else b)(...): either
            values.extend((func.body, func.orelse))
        elif isinstance(func, cst.Lambda):  # `(lambda t: ...)(x)`, a lambda a runner is handed, a fold's step
            values.append(func)
        out = []
        for value in values:
            out.extend(self._callable_forms(value, depth))
        if not out and isinstance(func, (cst.Name, cst.Attribute)) and self._some_class_callable():
            # an object of a known class (an annotated parameter or attribute) called: its class's
            # `__call__`, inherited or its own
            owner = self.instance_class(func, depth + 1)
            runs = self.called_method(owner) if owner is not None else None
            if runs is not None:
                out.append((self._attribute(func, runs), ()))
        return out

    def _called_objects(self, value: cst.Call, depth: int) -> List[tuple]:
        """An object value makes, called: its class's `__call__` (forward). When it may be made by several
        classes (`self.reader_cls(d)` with `reader_cls` reassigned in a subclass's body, or a factory method
        returning that), each construction's own."""
        made = [call for call, _ in self.construction_frames(value, depth + 1)] if depth < 4 else []
        classes = [self.constructed_class(call) for call in made]
        if len({id(c) for c in classes}) > 1 and all(classes):
            return [
                (self._attribute(call, runs), ())
                for call, cls in zip(made, classes)
                for runs in [self.called_method(cls)]
                if runs is not None
            ]
        owner = self.instance_class(value, depth + 1)
        runs = self.called_method(owner) if owner is not None else None
        return [(self._attribute(value, runs), ())] if runs is not None else []  # an object called: its __call__

    def called_method(self, cls: cst.ClassDef) -> Optional[str]:
        """The method calling an instance of cls runs: its `__call__`, inherited or its own, or the
        method a library base hands the call to ([callables] call_delegates: an `nn.Module`'s `forward`)."""
        if self.find_method(cls, "__call__") is not None:
            return "__call__"
        delegates = self._call_delegates()
        for member in self.class_mro(cls) if delegates else ():
            for base in member.bases:
                method = delegates.get(self.qualified(base.value) or "") or delegates.get(_dotted(base.value) or "")
                if method is not None and self.find_method(cls, method) is not None:
                    return method
        return None

    def _call_delegates(self) -> Dict[str, str]:
        return dict(spelled.rsplit(".", 1) for spelled in self.tables.call_delegates if "." in spelled)

    def _some_class_callable(self) -> bool:
        """Does some class of the module define (or have installed) `__call__`? Else no object of a
        module class is callable, and callable_values need not ask what class a called value is."""
        found = self.__dict__.get("_some_class_callable_memo")
        if found is None:
            self.installed_methods()
            found = self._some_class_callable_memo = any(
                "__call__" in self.class_methods(cls) for cls in self.nodes.classes
            ) or any(self.called_method(cls) is not None for cls in self.nodes.classes)
        return found

    def complete_arguments(self, param: cst.Param) -> List[cst.BaseExpression]:
        """passed_arguments when they are all a parameter can hold: under the call being followed,
        or a parameter of a def of the module (not `*args`/`**kwargs`, no default) that only the
        visible calls reach by name or as a method (no calling convention hands it a value, no
        call runs it as a value or through map); [] otherwise."""
        for bindings in reversed(self._bindings):
            if id(param) in bindings:
                argument = bindings.get(("arg", id(param)))
                return [argument] if argument is not None else []
        if param.star or param.default is not None:
            return []
        owner = self._param_owner(param)
        if not isinstance(owner, cst.FunctionDef) or owner.decorators:
            return []
        if self._convention_origin(owner, param) != 0 or self.value_callers().get(id(owner)):
            return []
        if self._mapped_calls().get(id(owner)):
            return []
        return self.passed_arguments(param)

    def unpacked_values(self, value: cst.BaseExpression, path, depth: int = 0) -> Optional[List[cst.BaseExpression]]:
        """What a name bound by unpacking value at path is, by structure (`mgr, idx = self._where(m)`:
        the second element of the tuple `_where` returns); None when some step is unknown."""
        return self.path_values(value, path, depth, lattice=False)

    def passed_arguments(self, param: cst.Param) -> List[cst.BaseExpression]:
        """What the visible calls pass for a parameter: under a call being followed, what that
        call passes; else what every call of its function the module makes passes (a bound
        accessor handed to a helper, `_decode_with(self.engine.layer_kv, i)`)."""
        for bindings in reversed(self._bindings):
            if id(param) in bindings:
                argument = bindings.get(("arg", id(param)))
                return [argument] if argument is not None else []
        cache = self.derived.setdefault("passed_arguments", {})
        found = cache.get(id(param))
        if found is None:
            cache[id(param)] = []  # cycles
            owner = self._param_owner(param)
            found = []
            if isinstance(owner, (cst.FunctionDef, cst.Lambda)) and param is not None:
                for call, skip, env in self._callers_of(owner):
                    if env:
                        continue  # reached under another call's bindings: not this plain call's
                    argument = self._argument_for(call, owner, param, skip_self=skip)
                    if argument is not None:
                        found.append(argument)
            cache[id(param)] = found
        return found

    def _callable_forms(self, value: cst.BaseExpression, depth: int) -> List[tuple]:
        """(callee expression, arguments bound in front of the call's own) for what value holds."""
        if isinstance(value, cst.Lambda):
            return [(value, ())]
        if isinstance(value, cst.FunctionDef):  # a def a decorator's parameter holds (decorator_params)
            return [(("closure", value, None, self.method_class(value) is not None), ())]
        if isinstance(value, cst.Attribute):
            return [(value, ())]
        if isinstance(value, cst.Name) and depth < 4 and self._plain_param(value) is not None:
            # `self.provider = provider` of a constructor's parameter: what the constructions pass for it
            return self.callable_values(value, depth + 1)
        if isinstance(value, cst.Call):
            t = self.tables
            known = (
                t.partial_callables,
                t.partial_methods,
                t.method_callers,
                t.attr_getters,
                t.item_getters,
                t.fold_functions,
                t.call_functions,
                t.subscript_functions,
            )
            name = _dotted(value.func)
            if not any(name in k for k in known) and isinstance(value.func, (cst.Name, cst.Attribute)):
                qualified = self.call_name(value)  # under an import alias: `from functools import partial as bind`
                if any(qualified in k for k in known):
                    name = qualified
            wrapped = self._wrapped_function(value)
            if wrapped is not None:  # `torch.compile(f, dynamic=True)`: a stand-in for f
                return self._callable_forms(wrapped, depth + 1) if depth < 4 else []
            referent = self.wrapped_value(value, depth + 1) if not value.args else None
            if referent is not None:  # `self._ref()` of `self._ref = weakref.WeakMethod(pool.get_key_buffer)`
                return self._callable_forms(referent, depth + 1) if depth < 4 else []
            if name in t.method_callers and value.args:
                method = self.constant_string(value.args[0].value)
                if isinstance(method, str) and method.isidentifier():
                    return [(("method", method), tuple(value.args[1:]))]  # x.method(bound...) of the call's x
            if name in t.attr_getters and value.args and not any(a.star or a.keyword for a in value.args):
                paths = tuple(self.constant_string(a.value) for a in value.args)
                if all(p and all(part.isidentifier() for part in p.split(".")) for p in paths):
                    return [(("attrs", paths), ())]  # attrgetter("a.b", "c")(x): x.a.b, or (x.a.b, x.c)
            if name in t.item_getters and value.args and not any(a.star or a.keyword for a in value.args):
                return [(("items", tuple(a.value for a in value.args)), ())]  # itemgetter(k)(x): x[k]
            if name in t.item_getters and len(value.args) == 1 and value.args[0].star == "*":
                return [(("spread", (value.args[0].value,)), ())]  # itemgetter(*ks)(x): x[k] for each k of ks
            if (name in t.partial_callables or name in t.partial_methods) and value.args:
                bound = tuple(value.args[1:])
                held = value.args[0].value
                method = name in t.partial_methods  # partialmethod(f, ...): self.m(x) calls f(self, ...)
                defs = (
                    [d for d in self._callable_targets(held) if isinstance(d, cst.FunctionDef)]
                    if isinstance(held, cst.Name) and held.value in self.nodes.local_callables
                    else []
                )
                if defs:  # partial(a def of the module, ...): the def, with the bound arguments first
                    return [(("closure", d, None, method), bound) for d in defs]
                inner = self._callable_forms(held, depth) or [(held, ())]
                return [(form, (*first, *bound)) for form, first in inner]
            if name in t.fold_functions or name in t.call_functions or name in t.subscript_functions:
                # `reduce(getattr, ("pool", "get_value_buffer"), runner)`: the callable it folds to
                folded = [f for a in self.applied_values(value, depth + 1) for f in self._callable_forms(a, depth + 1)]
                if folded:
                    return folded
            fetched = self._fetched_attribute(value, depth)
            if fetched is not None:  # `attrgetter("to")(pool)`: pool.to, a bound method
                return [(fetched, ())]
            if name == "getattr" and len(value.args) >= 2:
                constants = self.constant_strings(value.args[1].value)
                if constants and all(c.isidentifier() for c in constants):
                    return [(self._attribute(value.args[0].value, c), ()) for c in constants]
            if (
                isinstance(value.func, cst.Attribute)
                and value.func.attr.value in t.take_methods
                and value.args
                and not any(a.star or a.keyword for a in value.args)
            ):
                # `table.get(k, default)(i)`: what table[k] holds, or the default when k is missing
                out = self.callable_values(self._taken_node(value), depth + 1)
                if value.func.attr.value in t.default_last and len(value.args) > 1:
                    out.extend(self._callable_forms(value.args[-1].value, depth + 1))
                if out:
                    return out
            out = self._called_objects(value, depth)
            for target, skip, env in self.return_targets(value, depth + 1):  # a factory: the closure it returns
                if not isinstance(target, cst.FunctionDef):
                    continue
                closure_env = None
                for returned in self._return_values(target):
                    for found in self.class_dict_functions(returned):  # `return vars(cls)["read"]`
                        out.append((("closure", found, None, False), ()))
                    inner = (
                        [returned]
                        if isinstance(returned, cst.Lambda)
                        else (self._callable_targets(returned) if isinstance(returned, cst.Name) else [])
                    )
                    inner = [node for node in inner if node is not target and target in self.ancestors(node)]
                    if inner and closure_env is None:
                        closure_env = {**(env or {}), **self._bound_params(value, target, skip, depth + 1)}
                    out.extend((("closure", node, closure_env, False), ()) for node in inner)
            if out:
                return out
        if isinstance(value, cst.Subscript) and self.class_dict_functions(value):  # `vars(Base)["read"]`
            return [(("closure", found, None, False), ()) for found in self.class_dict_functions(value)]
        if isinstance(value, cst.Name) and self.class_named(value) is not None:
            return [(value, ())]  # `engine_cls = PagedEngine`: calling it constructs the class
        if isinstance(value, (cst.Name, cst.Subscript, cst.IfExp)):
            # `self.cast = _CASTS[mode]`: what the table's entries hold; `f if c else g`: either
            return self.callable_values(value, depth + 1)
        return []

    def class_dict_functions(self, sub: cst.BaseExpression) -> List[cst.FunctionDef]:
        """The defs `vars(C)["m"]` / `C.__dict__["m"]` reads ([callables] class_dict_functions,
        class_dict_attributes): m as C itself defines it, for each class C may be."""
        if not (isinstance(sub, cst.Subscript) and len(sub.slice) == 1 and isinstance(sub.slice[0].slice, cst.Index)):
            return []
        name = self.constant_string(sub.slice[0].slice.value)
        holder, t = sub.value, self.tables
        if isinstance(holder, cst.Call) and len(holder.args) == 1 and self._named_in(holder, t.class_dict_functions):
            owner = holder.args[0].value
        elif isinstance(holder, cst.Attribute) and holder.attr.value in t.class_dict_attributes:
            owner = holder.value
        else:
            return []
        if not isinstance(name, str):
            return []
        found = [self.class_methods(c).get(name) for c in self.classes_named_by(owner)]
        return [f for f in found if isinstance(f, cst.FunctionDef)]

    def classes_named_by(self, expr: cst.BaseExpression) -> List[cst.ClassDef]:
        """The classes an expression that names a class may be: `Base` itself, or a loop variable over
        `type(self).__mro__` / `inspect.getmro(C)` ([callables] mro_attributes, mro_functions): each class
        of that order (for self's class: of each class of its family that has it in its MRO)."""
        out: List[cst.ClassDef] = []
        for assignment in self.reaching(expr) if isinstance(expr, cst.Name) else ():
            kind, iterated, path = (
                self.binding(assignment.node) if isinstance(assignment.node, cst.Name) else (None,) * 3
            )
            if kind != "for" or path:
                out = []
                break
            out.extend(c for c in self._mro_of(iterated) if c not in out)
        if out:
            return out
        named = self.class_named(expr)
        return [named] if named is not None else self.computed_classes(expr)

    def computed_classes(self, expr: cst.BaseExpression, depth: int = 0) -> List[cst.ClassDef]:
        """The module classes a class-valued expression other than a class's name may be ([callables]
        bases_attributes, base_attributes, mro_attributes, mro_functions; [conversions] class_of_*):
        `C.__bases__[i]` (C's i-th base as written), `C.__base__`, `C.__mro__[i]` / `inspect.getmro(C)[i]`,
        `type(obj)` / `obj.__class__` (obj's class or a subclass), a name assigned one; [] when unknown."""
        if depth > 6:
            return []
        t = self.tables
        if isinstance(expr, cst.Name):
            if self.class_named(expr) is not None:
                return [self.class_named(expr)]
            out: List[cst.ClassDef] = []
            for assignment in self.reaching(expr):
                kind, value, path = (
                    self.binding(assignment.node) if isinstance(assignment.node, cst.Name) else (None,) * 3
                )
                found = self.computed_classes(value, depth + 1) if kind == "assign" and not path else []
                if not found:
                    return []
                out.extend(c for c in found if c not in out)
            return out
        of = self._class_of_operand(expr)
        if of is not None:
            return self._runtime_classes(of)
        held = self._held_classes(expr, depth)
        if held:
            return held
        if isinstance(expr, cst.Attribute) and expr.attr.value in t.base_attributes:
            return [b for c in self.computed_classes(expr.value, depth + 1) for b in self._written_bases(c)[:1] if b]
        if (
            not isinstance(expr, cst.Subscript)
            or len(expr.slice) != 1
            or not isinstance(expr.slice[0].slice, cst.Index)
        ):
            return []
        key = expr.slice[0].slice.value
        at = int(key.value, 0) if isinstance(key, cst.Integer) else None
        holder = expr.value
        if isinstance(holder, cst.Attribute) and holder.attr.value in t.bases_attributes:
            rows = [(self._written_bases(c), True) for c in self.computed_classes(holder.value, depth + 1)]
        elif (isinstance(holder, cst.Attribute) and holder.attr.value in t.mro_attributes) or (
            isinstance(holder, cst.Call) and len(holder.args) == 1 and self._named_in(holder, t.mro_functions)
        ):
            inner = holder.value if isinstance(holder, cst.Attribute) else holder.args[0].value
            rows = [self._written_order(c) for c in self.computed_classes(inner, depth + 1)]
        else:
            return []
        out = []
        for row, exact in rows:  # a position of an order with a library class in it: any of the order
            picked = row if at is None or not exact else row[at : at + 1] if -len(row) <= at < len(row) else []
            out.extend(c for c in picked if c is not None and c not in out)
        return out

    def _class_valued(self, expr: cst.BaseExpression, depth: int = 0) -> bool:
        """Is expr (or what a name holds) spelled as a class reached through another (computed_classes)?"""
        if isinstance(expr, cst.Name):
            reaching = self.reaching(expr) if depth < 4 else []
            return bool(reaching) and all(
                isinstance(a.node, cst.Name) and kind == "assign" and not path and self._class_valued(value, depth + 1)
                for a in reaching
                for kind, value, path in [self.binding(a.node) if isinstance(a.node, cst.Name) else (None,) * 3]
            )
        t = self.tables
        if self._held_classes(expr, depth):
            return True
        if isinstance(expr, cst.Subscript):
            expr = expr.value
        return (
            self._class_of_operand(expr) is not None
            or (
                isinstance(expr, cst.Attribute)
                and expr.attr.value in t.bases_attributes | t.base_attributes | t.mro_attributes
            )
            or (isinstance(expr, cst.Call) and self._named_in(expr, t.mro_functions))
        )

    def _held_classes(self, expr: cst.BaseExpression, depth: int = 0) -> List[cst.ClassDef]:
        """`self.metadata_cls` when every value the family gives the attribute names a class of the module
        (`metadata_cls = DecodeMeta` in the base, `= FallbackDecodeMeta` in a subclass): those classes."""
        if not isinstance(expr, cst.Attribute):
            return []
        owner = self.instance_class(expr.value, depth + 1)
        values = self.instance_attr_values(owner, expr.attr.value) if owner is not None else []
        classes = [self.class_named(v) for v in values]
        return list(dict.fromkeys(classes)) if classes and all(classes) else []

    def _first_def(self, cls: cst.ClassDef, name: str):
        """The def (or installed lambda) of name first in cls's MRO."""
        return next((m for m in (self.class_function(c, name) for c in self.c3_mro(cls)) if m is not None), None)

    def _class_of_operand(self, expr: cst.BaseExpression) -> Optional[cst.BaseExpression]:
        """obj of `type(obj)` / `obj.__class__` ([conversions] class_of_functions, class_of_attributes)."""
        t = self.tables
        if isinstance(expr, cst.Attribute) and expr.attr.value in t.class_of_attributes:
            return expr.value
        if (
            isinstance(expr, cst.Call)
            and len(expr.args) == 1
            and not expr.args[0].star
            and isinstance(expr.func, cst.Name)
            and expr.func.value in t.class_of_functions
            and expr.func.value not in self.module_classes()
        ):
            return expr.args[0].value
        return None

    def _runtime_classes(self, obj: cst.BaseExpression) -> List[cst.ClassDef]:
        """The classes obj may be an instance of: its known class and that class's subclasses in the module
        (self: of the method's class, or of the class the followed calls bind self to), or its exact classes."""
        exact = self.exact_classes(obj)
        if exact is not None:
            return exact
        if isinstance(obj, cst.Name) and obj.value == "self":
            known = self.self_class() or self.enclosing_class(obj)
        else:
            known = self.instance_class(obj)
        if known is None:
            return []
        return [c for c in self.class_family(known) if known in self.class_mro(c)]

    def _written_bases(self, cls: cst.ClassDef) -> List[Optional[cst.ClassDef]]:
        """cls's bases by position as written: the module's class for each, None for a library one."""
        classes = self.module_classes()
        names = [_dotted(base.value) for base in cls.bases]
        return [classes.get(n.rsplit(".", 1)[-1]) if n else None for n in names]

    def _written_order(self, cls: cst.ClassDef) -> Tuple[List[cst.ClassDef], bool]:
        """cls's MRO over the module's classes, and whether its positions are Python's (no library base)."""
        order = self.c3_mro(cls)
        return order, not any(None in self._written_bases(c) for c in order)

    def _mro_of(self, expr: cst.BaseExpression) -> List[cst.ClassDef]:
        t = self.tables
        if isinstance(expr, cst.Attribute) and expr.attr.value in t.mro_attributes:
            of = expr.value
        elif isinstance(expr, cst.Call) and len(expr.args) == 1 and self._named_in(expr, t.mro_functions):
            of = expr.args[0].value
        else:
            return []
        cls = self.class_named(of)
        if cls is not None:
            return self.c3_mro(cls)
        own = (
            isinstance(of, cst.Call) and isinstance(of.func, cst.Name) and of.func.value == "type" and len(of.args) == 1
        ) or (isinstance(of, cst.Attribute) and of.attr.value == "__class__")
        inner = (of.args[0].value if isinstance(of, cst.Call) else of.value) if own else None
        base = self.instance_class(inner) if inner is not None else None
        if base is None:
            return []
        out: List[cst.ClassDef] = []
        for other in self.class_family(base):
            if base in self.class_mro(other):
                out.extend(c for c in self.c3_mro(other) if c not in out)
        return out

    def _wrapped_function(self, call: cst.Call) -> Optional[cst.BaseExpression]:
        """The function a wrapper call stands in for (rules/accessors.toml [callables]
        function_wrappers): f of `torch.compile(f, dynamic=True)` and of
        `torch.compile(mode="max-autotune")(f)`; else None."""
        words = self.tables.function_wrappers
        if not words:
            return None
        positional = [a for a in call.args if a.keyword is None]
        if not positional or positional[0].star:
            return None
        func = call.func
        if isinstance(func, (cst.Name, cst.Attribute)) and self._named_in(func, words):
            return positional[0].value
        if (
            isinstance(func, cst.Call)
            and len(call.args) == 1
            and isinstance(func.func, (cst.Name, cst.Attribute))
            and not any(a.keyword is None for a in func.args)
            and self._named_in(func.func, words)
        ):
            return positional[0].value  # the decorator a wrapper called without a function makes
        return None

    def _taken_node(self, call: cst.Call) -> cst.Subscript:
        """`d[k]` for `d.get(k, ...)`, as a node of this module's parent map."""
        cache = self.__dict__.setdefault("_taken_nodes", {})
        node = cache.get(id(call))
        if node is None:
            node = cst.Subscript(call.func.value, [cst.SubscriptElement(cst.Index(call.args[0].value))])
            self.parents.setdefault(node, self.parents.get(call))
            cache[id(call)] = node
        return node

    def getter_value(self, call: cst.Call, form: tuple) -> Optional[cst.BaseExpression]:
        """What calling an attrgetter or itemgetter form on call's first argument gives, as a
        node of this module's parent map: `x.a.b`, `x[k]`, or a tuple of them for several."""
        if not call.args or call.args[0].star or call.args[0].keyword is not None:
            return None
        cache = self.__dict__.setdefault("_getter_nodes", {})
        key = (id(call), form)
        if key in cache:
            return cache[key]
        x = call.args[0].value
        if form[0] == "spread":  # several keys, how many unknown: a sequence of x[k], k any element of ks
            element = self._element_of(form[1][0], None)
            picked = cst.Subscript(x, [cst.SubscriptElement(cst.Index(element))])
            value = cst.ListComp(picked, cst.CompFor(target=cst.Name("_"), iter=form[1][0]))
            for node in (picked, value):
                self.parents.setdefault(node, self.parents.get(x))
            cache[key] = value
            return value
        parts: List[cst.BaseExpression] = []
        for item in form[1]:
            if form[0] == "attrs":
                node = x
                for attr in item.split("."):
                    node = self._attribute(node, attr)
            else:
                node = cst.Subscript(x, [cst.SubscriptElement(cst.Index(item))])
                self.parents.setdefault(node, self.parents.get(x))
            parts.append(node)
        value = parts[0] if len(parts) == 1 else cst.Tuple([cst.Element(p) for p in parts])
        self.parents.setdefault(value, self.parents.get(x))
        cache[key] = value
        return value

    def applied_values(self, call: cst.Call, depth: int = 0) -> List[cst.BaseExpression]:
        """What a call of a held getter gives (`attrgetter("k_buffer", "v_buffer")(pool)`,
        `itemgetter(0)(pair)`, `methodcaller("get_key_buffer", i)(pool)`, `operator.call(f, x)`),
        as expressions of this module's parent map; [] for any other call."""
        out: List[cst.BaseExpression] = []
        func = call.func
        short = (
            func.value if isinstance(func, cst.Name) else func.attr.value if isinstance(func, cst.Attribute) else None
        )
        shorts = self.__dict__.get("_applied_shorts")
        if shorts is None:
            t = self.tables
            shorts = self._applied_shorts = {
                n.rsplit(".", 1)[-1] for n in (*t.call_functions, *t.fold_functions, *t.subscript_functions)
            }
        if short not in shorts and not (isinstance(func, cst.Name) and short in self.import_aliases()):
            pass
        elif (
            len(call.args) == 2
            and not any(a.star or a.keyword for a in call.args)
            and self.qualified(call) in self.tables.subscript_functions
        ):  # operator.getitem(x, k): x[k]
            nodes = self.__dict__.setdefault("_subscript_nodes", {})
            if id(call) not in nodes:
                node = cst.Subscript(call.args[0].value, [cst.SubscriptElement(cst.Index(call.args[1].value))])
                self.parents.setdefault(node, self.parents.get(call))
                nodes[id(call)] = node
            return [nodes[id(call)]]
        elif call.args and not call.args[0].star and self.qualified(call) in self.tables.call_functions:
            synthetic = self.__dict__.setdefault("_call_nodes", {}).get(id(call))
            if synthetic is None:
                synthetic = cst.Call(func=call.args[0].value, args=call.args[1:])
                self.parents.setdefault(synthetic, self.parents.get(call))
                self._call_nodes[id(call)] = synthetic
            return [synthetic]
        elif (
            len(call.args) in (2, 3)
            and not any(a.star or a.keyword for a in call.args)
            and self.qualified(call) in self.tables.fold_functions
        ):  # reduce(f, (a, b), x): f(f(x, a), b), for a sequence the file shows
            seq = call.args[1].value
            shown = [seq] if isinstance(seq, (cst.Tuple, cst.List)) else (self._container_sources(seq, 0) or [])
            key = (id(call), tuple(id(s) for s in shown))  # a `*path` parameter: each call's own path
            folded = self.__dict__.setdefault("_fold_nodes", {}).get(key)
            if folded is None:
                if (
                    len(call.args) == 3
                    and len(shown) == 1
                    and isinstance(shown[0], (cst.Tuple, cst.List))
                    and all(
                        isinstance(e, cst.Element) and not isinstance(e, cst.StarredElement) for e in shown[0].elements
                    )
                ):
                    value = call.args[2].value
                    for element in shown[0].elements:
                        value = cst.Call(func=call.args[0].value, args=[cst.Arg(value), cst.Arg(element.value)])
                        self.parents.setdefault(value, self.parents.get(call))
                    folded = [value]
                else:
                    # a sequence the file does not show: the initial value (none folded), what f gives
                    # from it and an element, and what f gives from that and another (an accumulator
                    # grown by each: `reduce(lambda acc, i: {**acc, i: mgr.get_buffers(i)}, ids, {})`)
                    element = self._element_of(seq, None)
                    first = call.args[2].value if len(call.args) == 3 else element
                    once = cst.Call(func=call.args[0].value, args=[cst.Arg(first), cst.Arg(element)])
                    twice = cst.Call(func=call.args[0].value, args=[cst.Arg(once), cst.Arg(element)])
                    for node in (once, twice):
                        self.parents.setdefault(node, self.parents.get(call))
                    folded = [first, once, twice]
                self._fold_nodes[key] = folded
            return list(folded)
        if not isinstance(func, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)):
            return out
        for form, bound in self.callable_values(func, depth):
            if not isinstance(form, tuple):
                continue
            if form[0] in ("attrs", "items", "spread"):
                value = self.getter_value(call, form)
                if value is not None:
                    out.append(value)
            elif form[0] == "method" and call.args and not call.args[0].star and call.args[0].keyword is None:
                cache = self.__dict__.setdefault("_method_nodes", {})
                key = (id(call), form, tuple(id(b) for b in bound))
                if key not in cache:
                    method = cst.Attribute(call.args[0].value, cst.Name(form[1]))
                    synthetic = cst.Call(func=method, args=self.merged_args(bound, call.args[1:]))
                    self.parents.setdefault(method, synthetic)
                    self.parents.setdefault(synthetic, self.parents.get(call))
                    cache[key] = synthetic
                out.append(cache[key])
        return out

    def sent_values(self) -> Dict[int, List[cst.BaseExpression]]:
        """id(generator def) -> what `.send(v)` calls hand it (rules/accessors.toml [callables]
        generator_senders): the value of its `yield` expressions. The generator objects are those the
        file makes and keeps: a call of a generator def of the module (`self._up = _upcaster(d)`, a
        method returning one), held in a name or an attribute of any object of a module class."""
        found = self.__dict__.get("_sent_values")
        if found is not None:
            return found
        found = self._sent_values = {}
        senders = self.tables.generator_senders
        for call in self.nodes.calls:
            func = call.func
            if not (isinstance(func, cst.Attribute) and func.attr.value in senders):
                continue
            positional = [a for a in call.args if a.keyword is None and not a.star]
            if len(positional) != 1 or len(call.args) != 1:
                continue
            for generator in self._generator_defs(func.value):
                found.setdefault(id(generator), []).append(positional[0].value)
        return found

    def _generator_defs(self, expr: cst.BaseExpression, depth: int = 0) -> List[cst.FunctionDef]:
        """The generator defs of the module whose objects expr may hold (through names, attributes and
        the calls that make them)."""
        if depth > 4:
            return []
        values: List[cst.BaseExpression] = []
        if isinstance(expr, cst.Name):
            for assignment in self.reaching(expr):
                if isinstance(assignment.node, cst.Name):
                    kind, value, path = self.binding(assignment.node)
                    if kind == "assign" and not path:
                        values.append(value)
        elif isinstance(expr, cst.Attribute):
            if isinstance(expr.value, cst.Name) and expr.value.value == "self":
                cls = self.enclosing_class(expr)
                if cls is not None:
                    for member in self.class_family(cls):
                        values.extend(self.self_attr_values(member, expr.attr.value))
            else:
                owner = self.instance_class(expr.value)
                if owner is not None:
                    values.extend(self.instance_attr_values(owner, expr.attr.value))
        elif isinstance(expr, cst.Call):
            values.append(expr)
        out: List[cst.FunctionDef] = []
        for value in values:
            if isinstance(value, cst.Call):
                for target, _, _ in self.return_targets(value):
                    if isinstance(target, cst.FunctionDef) and self._is_generator(target):
                        out.append(target)
                    elif isinstance(target, cst.FunctionDef):
                        for returned in self._return_values(target):  # a method returning one it makes
                            out.extend(self._generator_defs(returned, depth + 1))
            elif isinstance(value, (cst.Name, cst.Attribute)):
                out.extend(self._generator_defs(value, depth + 1))
        return out

    def _is_generator(self, func: cst.FunctionDef) -> bool:
        """Does func's own body (not a nested def's) hold a `yield` (a bare `x = yield` too)?"""
        cache = self.__dict__.setdefault("_generator_memo", {})
        found = cache.get(id(func))
        if found is None:
            found = False
            for node in iter_nodes(func.body, cst.Yield):
                owner = next((a for a in self.ancestors(node) if isinstance(a, (cst.FunctionDef, cst.Lambda))), None)
                if owner is func:
                    found = True
                    break
            cache[id(func)] = found
        return found

    def run_calls(self, call: cst.Call) -> List[cst.Call]:
        """The calls of a callable that call makes because it is handed one (rules/accessors.toml
        [callables] runners, runners_after_one, runners_packed, call_functions, fold_functions):
        `executor.submit(f, kv)` makes `f(kv)`, `loop.run_in_executor(None, f, kv)` too,
        `threading.Thread(target=f, args=(kv,))` and `pool.apply_async(f, (kv,))` make `f(kv)`,
        `functools.reduce(f, xs, x)` makes `f(x, <any element of xs>)`; as nodes of this module's parent
        map. [] for any other call (and for a callable or arguments the file does not show)."""
        cache = self.__dict__.setdefault("_run_call_nodes", {})
        found = cache.get(id(call))
        if found is None:
            found = cache[id(call)] = self._run_calls(call)
        return found

    def _runner_shorts(self) -> frozenset:
        found = self.__dict__.get("_runner_short_names")
        if found is None:
            t = self.tables
            found = self._runner_short_names = frozenset(
                n.rsplit(".", 1)[-1]
                for n in (
                    *t.runners,
                    *t.runners_after_one,
                    *t.runners_packed,
                    *t.call_functions,
                    *t.fold_functions,
                    *t.iter_apply_methods,
                    *t.made_runner_methods,
                )
            )
        return found

    def _runner_kind(self, call: cst.Call, short: str) -> Optional[str]:
        """ "spread", "after_one", "packed", "fold" for a runner call; None otherwise. A dotted row names a
        function by its qualified name, a plain one a method of any receiver."""
        t = self.tables
        qualified = None
        if short in t.iter_apply_methods and isinstance(call.func, cst.Attribute):
            return "apply"
        if short in t.made_runner_methods and isinstance(call.func, cst.Attribute):
            if self.made_by(call.func.value, t.runner_makers):  # `copy_context().run(f, kv)`
                return "spread"
        for kind, rows in (
            ("spread", t.runners | t.call_functions),
            ("after_one", t.runners_after_one),
            ("packed", t.runners_packed),
            ("fold", t.fold_functions),
        ):
            if short in rows and isinstance(call.func, cst.Attribute) and "." not in short:
                return kind
            if any(row.rsplit(".", 1)[-1] == short for row in rows):
                qualified = qualified or self.qualified(call) or ""
                if qualified in rows:
                    return kind
        return None

    def _run_calls(self, call: cst.Call) -> List[cst.Call]:
        func = call.func
        short = (
            func.value if isinstance(func, cst.Name) else func.attr.value if isinstance(func, cst.Attribute) else None
        )
        if short is None or short not in self._runner_shorts():
            return []
        kind = self._runner_kind(call, short)
        if kind is None or any(a.star for a in call.args):
            return []
        t = self.tables
        positional = [a.value for a in call.args if a.keyword is None]
        keywords = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
        args: List[cst.Arg] = []
        if kind in ("spread", "after_one"):
            first = 0 if kind == "spread" else 1
            if len(positional) <= first:
                return []
            callee = positional[first]
            args = [cst.Arg(v) for v in positional[first + 1 :]]
            args += [cst.Arg(v, keyword=cst.Name(k)) for k, v in keywords.items()]  # f's keywords
        elif kind == "packed":
            callee = next((keywords[k] for k in sorted(t.runner_callable_keywords) if k in keywords), None)
            rest = positional
            if callee is None:
                if not positional:
                    return []
                callee, rest = positional[0], positional[1:]
            packed = next((keywords[k] for k in sorted(t.runner_args_keywords) if k in keywords), None)
            if packed is None and rest:
                packed = rest[0]
            if packed is not None:
                shown = self._shown_sequence(packed)
                if shown is None:
                    return []
                args = [cst.Arg(v) for v in shown]
            extra = next((keywords[k] for k in sorted(t.runner_kwargs_keywords) if k in keywords), None)
            if extra is not None:
                named = self.dict_keywords(extra) if isinstance(extra, cst.Call) else None
                if isinstance(extra, cst.Dict):
                    named = {
                        e.key.evaluated_value: e.value
                        for e in extra.elements
                        if isinstance(e, cst.DictElement)
                        and isinstance(e.key, cst.SimpleString)
                        and isinstance(e.key.evaluated_value, str)
                    }
                for k, v in (named or {}).items():
                    if k.isidentifier():
                        args.append(cst.Arg(v, keyword=cst.Name(k)))
        elif kind == "apply":  # `executor.map(f, xs)`: f(e) for the elements e of xs
            if len(positional) < 2 or keywords:
                return []
            callee = positional[0]
            args = [cst.Arg(self._any_element(seq, call)) for seq in positional[1:]]
        else:  # a fold: `reduce(f, xs, x)` calls f(x, e) for the elements e of xs (and f's own results)
            if len(positional) != 3 or keywords:
                return []
            callee, seq, start = positional
            if isinstance(callee, cst.Name) and callee.value == "getattr":
                return []  # `reduce(getattr, ("pool", "k_buffer"), fb)`: applied_values folds it
            args = [cst.Arg(start), cst.Arg(self._any_element(seq, call))]
        applied = cst.Call(func=callee, args=args)
        self.parents.setdefault(applied, self.parents.get(call))
        return [applied]

    def _any_element(self, seq: cst.BaseExpression, call: cst.Call) -> cst.BaseExpression:
        """An element of seq, as a node of this module's parent map: either of the elements the file shows,
        else `seq[0]` (read as any element of a container of whole pools)."""
        elements = self.element_values(seq, None) or []
        if elements:
            return self.either(list(elements), call)
        return self._element_of(seq, None)

    def _shown_sequence(self, value: cst.BaseExpression) -> Optional[List[cst.BaseExpression]]:
        """The elements of a tuple or list display (through a name bound once to one); None otherwise."""
        if isinstance(value, cst.Name):
            reaching = self.reaching(value)
            if len(reaching) == 1 and isinstance(reaching[0].node, cst.Name):
                kind, bound, path = self.binding(reaching[0].node)
                if kind == "assign" and not path:
                    value = bound
        if isinstance(value, (cst.Tuple, cst.List)) and all(
            isinstance(e, cst.Element) and not isinstance(e, cst.StarredElement) for e in value.elements
        ):
            return [e.value for e in value.elements]
        return None

    def constant_string(self, expr: cst.BaseExpression, depth: int = 0) -> Optional[str]:
        """The string a constant holds: a literal, or a name whose every assignment is one
        (`_KEY = "get_key_buffer"` at module level)."""
        if isinstance(expr, cst.SimpleString):
            value = expr.evaluated_value
            return value if isinstance(value, str) else None
        if isinstance(expr, (cst.Attribute, cst.Subscript)) and depth <= 3:
            picked = self._picked_field(expr)
            if picked is not None:  # `getattr(rec, Planes._fields[0])`: the record's first field
                return picked
        if isinstance(expr, cst.Attribute) and depth <= 3:
            return self._constant_attribute(expr, depth)
        if isinstance(expr, cst.ConcatenatedString) and depth <= 3:  # "get_" "key_buffer"
            left, right = self.constant_string(expr.left, depth + 1), self.constant_string(expr.right, depth + 1)
            return None if left is None or right is None else left + right
        if (
            isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Add) and depth <= 3
        ):  # "get_" + self.PLANE + "_buffer"
            left, right = self.constant_string(expr.left, depth + 1), self.constant_string(expr.right, depth + 1)
            return None if left is None or right is None else left + right
        if isinstance(expr, cst.FormattedString) and depth <= 3:  # f"get_{_KIND}_buffer" of constants
            parts = []
            for part in expr.parts:
                if isinstance(part, cst.FormattedStringText):
                    parts.append(part.value)
                elif part.conversion is None and part.format_spec is None:
                    text = self.constant_string(part.expression, depth + 1)
                    if text is None:
                        return None
                    parts.append(text)
                else:
                    return None
            return "".join(parts)
        if isinstance(expr, cst.Subscript) and depth <= 3:  # `_SLOTS[1]` of `_SLOTS = ("main", "draft")`
            return self._constant_element(expr, depth)
        if not isinstance(expr, cst.Name) or depth > 3:
            return None
        found = set()
        for assignment in self.reaching(expr):
            node = assignment.node
            if not isinstance(node, cst.Name):
                return None
            kind, value, path = self.binding(node)
            text = self.constant_string(value, depth + 1) if kind == "assign" and not path else None
            if text is None:
                return None
            found.add(text)
        return found.pop() if len(found) == 1 else None

    def constant_strings(self, expr: cst.BaseExpression, depth: int = 0) -> Optional[List[str]]:
        """Every string a constant-foldable expression may hold: constant_string's, where a name
        may also be a for target over a display of such strings (`for half in ("k", "v"):
        f"{half}_pools"`) or assigned several; None when some value is not constant."""
        if depth > 3:
            return None
        if isinstance(expr, cst.Name):
            found: List[str] = []
            reaching = self.reaching(expr)
            if not reaching:
                return None
            for assignment in reaching:
                node = assignment.node
                param = node if isinstance(node, cst.Param) else self.parents.get(node)
                if isinstance(param, cst.Param):
                    # a parameter: what the call being followed (or every visible call) passes
                    # (`def __getattr__(self, name): return getattr(self._pool, name)`)
                    arguments = self.complete_arguments(param)
                    more = [] if arguments else None
                    for argument in arguments:
                        each = self.constant_strings(argument, depth + 1)
                        if each is None:
                            return None
                        more.extend(each)
                    if more is None:
                        return None
                    found.extend(m for m in more if m not in found)
                    continue
                if not isinstance(node, cst.Name):
                    return None
                kind, value, path = self.binding(node)
                if kind == "assign" and not path:
                    more = self.constant_strings(value, depth + 1)
                elif kind == "for" and not path and isinstance(value, (cst.Tuple, cst.List, cst.Set)):
                    more = []
                    for element in value.elements:
                        each = (
                            self.constant_strings(element.value, depth + 1)
                            if isinstance(element, cst.Element) and not isinstance(element, cst.StarredElement)
                            else None
                        )
                        if each is None:
                            return None
                        more.extend(each)
                else:
                    return None
                if more is None:
                    return None
                found.extend(m for m in more if m not in found)
            return found or None
        parts: Optional[list] = None
        if isinstance(expr, cst.ConcatenatedString):
            parts = [expr.left, expr.right]
        elif isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Add):
            parts = [expr.left, expr.right]
        elif isinstance(expr, cst.FormattedString):
            parts = []
            for part in expr.parts:
                if isinstance(part, cst.FormattedStringText):
                    parts.append(part.value.replace("{{", "{").replace("}}", "}"))
                elif part.conversion is None and part.format_spec is None:
                    parts.append(part.expression)
                else:
                    return None
        if parts is None:
            text = self.constant_string(expr, depth)
            if text is None:
                return self._chosen_strings(expr, depth)
            return [text]
        combined = [""]
        for part in parts:
            if isinstance(part, str):
                values = [part]  # an f-string's literal text
            else:
                values = self.constant_strings(part, depth + 1)
            if values is None or len(combined) * len(values) > 16:
                return None
            combined = [c + v for c in combined for v in values]
        return combined

    def _chosen_strings(self, expr: cst.BaseExpression, depth: int) -> Optional[List[str]]:
        """The strings a choice among constants may hold: both arms of `a if c else b`, every value of a
        dict display looked up (`{"bfloat16": "bfloat16", "float16": "half"}[name]`), every constant an
        instance attribute is assigned in its class's family (`self.cast_name`); None when one is not."""
        if isinstance(expr, cst.IfExp):
            choices = [expr.body, expr.orelse]
        elif isinstance(expr, cst.Subscript) and isinstance(expr.value, cst.Dict):
            choices = [e.value for e in expr.value.elements]
            if not all(isinstance(e, cst.DictElement) for e in expr.value.elements):
                return None
        elif isinstance(expr, cst.Attribute):
            owner = self.class_named(expr.value) or self.instance_class(expr.value)
            choices = list(self.instance_attr_values(owner, expr.attr.value)) if owner is not None else []
        else:
            return None
        found: List[str] = []
        for choice in choices:
            each = self.constant_strings(choice, depth + 1)
            if each is None:
                return None
            found.extend(e for e in each if e not in found)
        return found or None

    def is_enum(self, cls: cst.ClassDef) -> bool:
        """A class of enumeration members (rules/accessors.toml [callables] enum_bases)."""
        return any(self._named_in(b.value, self.tables.enum_bases) for b in cls.bases if b.keyword is None)

    def enum_members(self, expr: cst.BaseExpression, depth: int = 0) -> Optional[List[cst.BaseExpression]]:
        """The values (class-body assignments) of the enumeration members expr may be: `E.M`, a name
        or `self.x` every assignment of which is one, a parameter annotated with an enum or defaulting
        to a member (any member of its class: callers may pass another); None when unknown."""
        if depth > 4:
            return None
        if isinstance(expr, cst.Attribute):
            cls = self.class_named(expr.value)
            if cls is not None:
                if not self.is_enum(cls):
                    return None
                values = self.class_body_values(cls, expr.attr.value)
                return values or None
            if isinstance(expr.value, cst.Name) and expr.value.value == "self":
                cls = self.enclosing_class(expr)
                values = self.instance_attr_values(cls, expr.attr.value) if cls is not None else []
                return self._members_of_all(values, depth)
            return None
        if not isinstance(expr, cst.Name):
            return None
        values = []
        for assignment in self.reaching(expr):
            node = assignment.node
            param = node if isinstance(node, cst.Param) else self.parents.get(node)
            if isinstance(param, cst.Param):
                cls = self.annotated_class(param)
                if cls is None and param.default is not None:
                    member = param.default
                    cls = self.class_named(member.value) if isinstance(member, cst.Attribute) else None
                if cls is None or not self.is_enum(cls):
                    return None
                values.extend(
                    v for n in self._member_names(cls) for v in self.class_body_values(cls, n)
                )  # any member of the class
                continue
            if not isinstance(node, cst.Name):
                return None
            kind, value, path = self.binding(node)
            if kind != "assign" or path:
                return None
            values.append(value)
        return self._members_of_all(values, depth)

    def _members_of_all(self, values, depth: int) -> Optional[List[cst.BaseExpression]]:
        out: List[cst.BaseExpression] = []
        for value in values:
            found = self.enum_members(value, depth + 1) if isinstance(value, (cst.Name, cst.Attribute)) else None
            if not found:
                return None
            out.extend(found)
        return out or None

    def _member_names(self, cls: cst.ClassDef) -> List[str]:
        self.class_body_values(cls, "")  # (indexes the class body)
        return [n for n in self._class_body_index[id(cls)] if not n.startswith("_")]

    def enum_value(self, expr: cst.BaseExpression) -> Optional[List[cst.BaseExpression]]:
        """`<member>.value`: what the members it may be are assigned; None when expr is no such read."""
        if not isinstance(expr, cst.Attribute) or expr.attr.value not in self.tables.enum_value_attributes:
            return None
        return self.enum_members(expr.value)

    def _constant_element(self, expr: cst.Subscript, depth: int) -> Optional[str]:
        """The string a constant position of a tuple or list display holds, the display shown
        directly or as a name every assignment of which is that display."""
        if len(expr.slice) != 1 or not isinstance(expr.slice[0].slice, cst.Index):
            return None
        key = expr.slice[0].slice.value
        if isinstance(key, cst.UnaryOperation) and isinstance(key.operator, cst.Minus):
            key, negative = key.expression, True
        else:
            negative = False
        if not isinstance(key, cst.Integer):
            return None
        displays = [expr.value]
        if isinstance(expr.value, cst.Name):
            displays = []
            for assignment in self.reaching(expr.value):
                node = assignment.node
                if not isinstance(node, cst.Name):
                    return None
                kind, value, path = self.binding(node)
                if kind != "assign" or path:
                    return None
                displays.append(value)
        found = set()
        for display in displays:
            if not isinstance(display, (cst.Tuple, cst.List)) or not all(
                isinstance(e, cst.Element) for e in display.elements
            ):
                return None
            index = int(key.value, 0)
            if negative:
                index = len(display.elements) - index
            if not 0 <= index < len(display.elements):
                return None
            found.add(self.constant_string(display.elements[index].value, depth + 1))
        return found.pop() if len(found) == 1 else None

    def _constant_attribute(self, expr: cst.Attribute, depth: int) -> Optional[str]:
        """`self.KEY`, `type(self).KEY`, `Cls.KEY`: the string every assignment of that class
        attribute (class body, or `self.KEY = "..."`, in the class's family) holds; for a class
        self is known to be (or Cls) whose methods never assign KEY, the value its MRO gives
        (class_level_values: a class keyword an `__init_subclass__` stores); `E.M.value` of an enum
        member: the string the member is assigned."""
        members = self.enum_value(expr)
        if members:
            found = {self.constant_string(v, depth + 1) for v in members}
            return found.pop() if len(found) == 1 and None not in found else None
        owner_expr = expr.value
        if (
            isinstance(owner_expr, cst.Call)
            and isinstance(owner_expr.func, cst.Name)
            and owner_expr.func.value == "type"
            and len(owner_expr.args) == 1
        ):
            owner_expr = owner_expr.args[0].value  # type(self).KEY: the class of self
        owner = self.class_named(owner_expr) or self.instance_class(owner_expr)
        if owner is None:
            return None
        exact = self.class_named(owner_expr)
        if isinstance(owner_expr, cst.Name) and owner_expr.value in ("self", "cls"):
            exact = self.self_class() or exact
        if exact is not None and not any(
            not self._in_subclass_hook(v)
            for member in self.class_family(exact)
            for v in self.self_attr_values(member, expr.attr.value)
        ):  # (what `__init_subclass__` stores is class-level: class_level_values reads it)
            values = self.class_level_values(exact, expr.attr.value)
            found = {self.constant_string(v, depth + 1) for v in values}
            if values and None not in found and len(found) == 1:
                return found.pop()
        values = self.instance_attr_values(owner, expr.attr.value)
        found = {self.constant_string(v, depth + 1) for v in values}
        if not values or None in found or len(found) != 1:
            return None
        return found.pop()

    def _fetched_attribute(self, value: cst.Call, depth: int) -> Optional[cst.Attribute]:
        """`x.a.b` for `attrgetter("a.b")(x)` (an attribute getter of one path, called on x, as the
        callee `attrgetter("half")(buf)()` is `buf.half()`); None for any other call."""
        if not isinstance(value.func, cst.Call) or len(value.args) != 1 or value.args[0].star or value.args[0].keyword:
            return None
        if _dotted(value.func.func) not in self.tables.attr_getters and (
            self.call_name(value.func) not in self.tables.attr_getters
        ):
            return None
        forms = self._callable_forms(value.func, depth + 1)
        paths = [form[1] for form, _ in forms if isinstance(form, tuple) and form[0] == "attrs"]
        if len(paths) != 1 or len(paths[0]) != 1:
            return None
        node = value.args[0].value
        for part in paths[0][0].split("."):
            node = self._attribute(node, part)
        return node

    def _attribute(self, owner: cst.BaseExpression, name: str) -> cst.Attribute:
        """`owner.name` as a node of this module's parent map (for getattr(owner, "name"))."""
        cache = self.__dict__.setdefault("_getattr_nodes", {})
        key = (id(owner), name)
        if key not in cache:
            node = cst.Attribute(value=owner, attr=cst.Name(name))
            self.parents.setdefault(node, self.parents.get(owner))
            cache[key] = node
        return cache[key]

    # -- containers ---------------------------------------------------------------
    def grown_attributes(self, cls: cst.ClassDef):
        """(attr, value) for `self.attr.append(v)` / `.insert(i, v)` / `.extend(vs)` in cls:
        the list then holds v (as `[v]`) or vs."""
        out = []
        for call in self.nodes.calls:
            func = call.func
            grown = self._grown_by_function(call)
            if grown is not None:  # `heapq.heappush(self.heap, item)`
                holder, value = grown
                if (
                    isinstance(holder, cst.Attribute)
                    and isinstance(holder.value, cst.Name)
                    and holder.value.value in ("self", "cls")  # (`cls.hooks.append(fn)` in a classmethod)
                    and self.enclosing_class(call) is cls
                ):
                    out.append((holder.attr.value, self._held_list(value)))
                continue
            if not (isinstance(func, cst.Attribute) and self._grow_kind(func.attr.value) and call.args):
                continue
            # `self.groups[gid].append(t)`, `self.groups.setdefault(gid, []).append(t)`: a container of
            # containers
            holder, levels = self.store_root(func.value)
            if not (
                isinstance(holder, cst.Attribute)
                and isinstance(holder.value, cst.Name)
                and holder.value.value in ("self", "cls")
                and self.enclosing_class(call) is cls
            ):
                continue
            kind = self._grow_kind(func.attr.value)
            value = call.args[-1].value if kind == "last" else call.args[0].value
            if kind != "many":
                value = self._held_list(value)
            out.append((holder.attr.value, self._nested_list(value, levels)))
        for holder, value in self.nodes.self_item_assignments:  # self.d[k] = v: d holds v
            if self.enclosing_class(holder) is cls:
                out.append((holder.attr.value, self._held_list(value)))
        for target, value in self.nodes.nested_item_assignments:  # self.d.setdefault(g, {})[k] = v
            holder, levels = self.store_root(target.value)
            if (
                levels
                and isinstance(holder, cst.Attribute)
                and isinstance(holder.value, cst.Name)
                and holder.value.value in ("self", "cls")
                and self.enclosing_class(target) is cls
            ):
                out.append((holder.attr.value, self._nested_list(value, levels + 1)))
        return out

    def store_root(self, holder: cst.BaseExpression) -> Tuple[cst.BaseExpression, int]:
        """(the container a store into holder lands in, how many containers deep): `d[g]` and
        `d.setdefault(g, {})` / `d.get(g)` (rules/accessors.toml [containers] take_methods, an
        element of d) are one level into d, `d[a][b]` two; any other holder is itself, level 0."""
        levels = 0
        take = self.tables.take_methods
        while True:
            if (
                isinstance(holder, cst.Subscript)
                and len(holder.slice) == 1
                and isinstance(holder.slice[0].slice, cst.Index)
            ):
                holder, levels = holder.value, levels + 1
            elif (
                isinstance(holder, cst.Call)
                and isinstance(holder.func, cst.Attribute)
                and holder.func.attr.value in take
                and holder.args
                and not holder.args[0].star
            ):
                holder, levels = holder.func.value, levels + 1
            else:
                return holder, levels

    def _item_pair(self, mapping: cst.BaseExpression, value: cst.BaseExpression) -> cst.Tuple:
        """`(key, value)`, an item of mapping, as a node of this module's parent map (the key a name
        nothing binds: no pool)."""
        cache = self.__dict__.setdefault("_item_pairs", {})
        key = (id(mapping), id(value))
        if key not in cache:
            node = cst.Tuple([cst.Element(cst.Name("_key")), cst.Element(value)])
            self.parents.setdefault(node, self.parents.get(value))
            cache[key] = node
        return cache[key]

    def _held_pairs(self, call: cst.Call, pairs: List[cst.BaseExpression]) -> cst.List:
        """A list display of pairs: what an item view (`d.items()`) holds."""
        cache = self.__dict__.setdefault("_held_pair_lists", {})
        if id(call) not in cache:
            node = cst.List([cst.Element(p) for p in pairs])
            self.parents.setdefault(node, self.parents.get(call))
            cache[id(call)] = node
        return cache[id(call)]

    def _nested_list(self, value: cst.BaseExpression, levels: int) -> cst.BaseExpression:
        """value held `levels` containers deep: `[[value]]` for 2."""
        for _ in range(levels):
            value = self._held_list(value)
        return value

    def _grown_by_function(self, call: cst.Call):
        """(holder, value) for a function that stores its last argument into its first ([containers]
        grow_functions: `heapq.heappush(h, item)`); None for any other call."""
        t = self.tables
        if not t.grow_functions or len(call.args) < 2:
            return None
        tails = self.__dict__.get("_grow_tails")
        if tails is None:
            tails = self._grow_tails = {n.rsplit(".", 1)[-1] for n in t.grow_functions}
        if (
            any(a.star or a.keyword is not None for a in call.args[:2])
            or (_dotted(call.func) or "").rsplit(".", 1)[-1] not in tails
            or self.qualified(call.func) not in t.grow_functions
        ):
            return None
        return call.args[0].value, call.args[-1].value

    def set_attributes(self, cls: cst.ClassDef):
        """(name, value) for `self.register_buffer("name", value)` and `setattr(self, "name", value)`
        in cls's methods (rules/accessors.toml [callables] attribute_setters): `self.name = value`."""
        setters = self.tables.attribute_setters
        if not setters:
            return []
        index = self.__dict__.get("_set_attributes")
        if index is None:
            index = self._set_attributes = {}
            for call in self.nodes.calls:
                args = self.self_setter_args(call)
                if args is None:
                    continue
                if len(args) < 2 or any(a.star or a.keyword is not None for a in args[:2]):
                    continue
                name = self.constant_string(args[0].value)
                owner = self.enclosing_class(call)
                if name is not None and name.isidentifier() and owner is not None:
                    index.setdefault(id(owner), []).append((name, args[1].value))
        return index.get(id(cls), [])

    def self_setter_args(self, call: cst.Call) -> Optional[Sequence[cst.Arg]]:
        """(name, value, ...) arguments of a call that sets an attribute of self: `self.register_buffer(n, v)`,
        `self.__setattr__(n, v)`, `super().__setattr__(n, v)` ([callables] attribute_setters, methods) and
        `setattr(self, n, v)`, `object.__setattr__(self, n, v)` ([callables] object_setters); None otherwise."""
        func, args = call.func, call.args
        if isinstance(func, cst.Attribute) and func.attr.value in self.tables.attribute_setters:
            receiver = func.value
            if (isinstance(receiver, cst.Name) and receiver.value == "self") or (
                isinstance(receiver, cst.Call)
                and isinstance(receiver.func, cst.Name)
                and receiver.func.value == "super"
            ):
                return args
        if isinstance(func, (cst.Name, cst.Attribute)) and self._object_setter(func):
            if args and isinstance(args[0].value, cst.Name) and args[0].value.value == "self" and not args[0].star:
                return args[1:]
        return None

    def _grow_kind(self, method: str) -> Optional[str]:
        """How a container method stores into its receiver (rules/accessors.toml [containers]
        grow_*): "one" its first argument, "last" its last, "many" the elements of its first."""
        t = self.tables
        if method in t.grow_one:
            return "one"
        if method in t.grow_last:
            return "last"
        return "many" if method in t.grow_many else None

    def filled_values(self, name: cst.Name) -> List[cst.BaseExpression]:
        """What the function that reads a local container stores into it: `d[k] = v`,
        `xs.append(v)` / `.insert(i, v)` (each as `[v]`), `xs.extend(vs)`."""
        index = self.__dict__.get("_filled_index")
        if index is None:
            index = self.__dict__["_filled_index"] = {}
            sliced = self.__dict__["_slice_filled"] = set()
            for target, value in self.nodes.name_item_assignments:
                key = (id(self._filled_scope(target.value)), target.value.value)
                held = self._held_list(value)
                index.setdefault(key, []).append(held)
                if any(isinstance(e.slice, cst.Slice) for e in target.slice):
                    sliced.add(id(held))  # `buf[:] = v`: a copy into a tensor too (slice_filled)
            for target, value in self.nodes.nested_item_assignments:  # `d.setdefault(g, {})[k] = v`
                holder, levels = self.store_root(target.value)
                if levels and isinstance(holder, cst.Name):
                    key = (id(self._filled_scope(holder)), holder.value)
                    index.setdefault(key, []).append(self._nested_list(value, levels + 1))
            for call in self.nodes.calls:
                func = call.func
                grown = self._grown_by_function(call)
                if grown is not None and isinstance(grown[0], cst.Name):  # `heapq.heappush(h, item)`
                    key = (id(self._filled_scope(grown[0])), grown[0].value)
                    index.setdefault(key, []).append(self._held_list(grown[1]))
                    continue
                # `groups[gid].append(t)`, `groups.setdefault(gid, []).append(t)`: a container of containers
                holder, levels = self.store_root(func.value) if isinstance(func, cst.Attribute) else (None, 0)
                if (
                    isinstance(func, cst.Attribute)
                    and self._grow_kind(func.attr.value)
                    and call.args
                    and isinstance(holder, cst.Name)
                ):
                    kind = self._grow_kind(func.attr.value)
                    value = call.args[-1].value if kind == "last" else call.args[0].value
                    key = (id(self._filled_scope(holder)), holder.value)
                    if kind == "many" and not isinstance(value, (cst.List, cst.Tuple, cst.Name)):
                        # `xs.extend(entry)` of a container whose structure is not shown (an entry
                        # list's `gpu_cache[i]`, an accessor's pair): xs holds its elements
                        value = self._held_list(self._element_of(value, None))
                    stored = value if kind == "many" else self._held_list(value)
                    index.setdefault(key, []).append(self._nested_list(stored, levels))
        return index.get((id(self._filled_scope(name)), name.value), [])

    def slice_filled(self, value: cst.BaseExpression) -> bool:
        """Is value one filled_values gives for a slice store (`buf[:] = v`)? Into a tensor that is a
        copy, which keeps the destination's dtype: not what the destination is."""
        return id(value) in self.__dict__.get("_slice_filled", ())

    def _filled_scope(self, name: cst.Name):
        """The function a container's name is local to; None for a module-level container that functions
        fill (`_READERS[fmt] = fn` in a registering decorator: every function's stores count)."""
        function = self.enclosing_function(name)
        if function is None:
            return None
        reaching = self.reaching(name)
        if reaching and all(isinstance(a.node, cst.Name) and self.enclosing_function(a.node) is None for a in reaching):
            return None
        return function

    def _held_list(self, value: cst.BaseExpression) -> cst.List:
        cache = self.__dict__.setdefault("_held_lists", {})
        if id(value) not in cache:
            node = cst.List([cst.Element(value)])
            self.parents.setdefault(node, self.parents.get(value))
            cache[id(value)] = node
        return cache[id(value)]

    def _holder_identity(self, expr: cst.BaseExpression) -> Optional[tuple]:
        """Which container expr names, for stores read back elsewhere: `self.x` / `cls.x` (the class
        and x), `obj.x` of an instance of a module class, a local name (its function and name)."""
        if isinstance(expr, cst.Name):
            return ("name", id(self.enclosing_function(expr)), expr.value)
        if isinstance(expr, cst.Attribute):
            if isinstance(expr.value, cst.Name) and expr.value.value in ("self", "cls"):
                owner = self.enclosing_class(expr)
            else:
                owner = self.instance_class(expr.value)
            if owner is not None:
                return ("attr", id(owner), expr.attr.value)
        return None

    def _key_path(self, location: cst.BaseExpression) -> Tuple[cst.BaseExpression, tuple]:
        """(the container under location, the keys from it outward): `d["g"][i]` is (d, ("g", None)),
        `d.setdefault("g", {})["k"]` (d, ("g", "k")); a key that is no string constant is None."""
        keys: list = []
        holder = location
        take = self.tables.take_methods
        while True:
            if isinstance(holder, cst.Subscript) and all(isinstance(e.slice, cst.Index) for e in holder.slice):
                parts = [e.slice.value for e in holder.slice]  # `d[i, "k"]`: the tuple key (i, "k")
                keys.append(self.constant_key(parts[0]) if len(parts) == 1 else self._tuple_key(parts))
                holder = holder.value
            elif (
                isinstance(holder, cst.Call)
                and isinstance(holder.func, cst.Attribute)
                and holder.func.attr.value in take
                and holder.args
                and not holder.args[0].star
            ):
                keys.append(self.constant_key(holder.args[0].value))
                holder = holder.func.value
            else:
                return holder, tuple(reversed(keys))

    def constant_key(self, key: cst.BaseExpression, depth: int = 0):
        """A mapping key as far as it is constant: a string; a tuple of strings and None (`(i, "k")`: any
        first part, "k"), through a name assigned one tuple once; the literal shape of an f-string (KeyShape);
        None when nothing of it is constant."""
        if isinstance(key, cst.SimpleString):
            text = key.evaluated_value
            return text if isinstance(text, str) else None
        if isinstance(key, cst.Tuple):
            if any(isinstance(e, cst.StarredElement) for e in key.elements):
                return None
            return self._tuple_key([e.value for e in key.elements])
        if isinstance(key, cst.FormattedString):
            return KeyShape.of(key)  # `f"model.layers.{i}.attn.k"`: told apart by its literal parts
        if isinstance(key, cst.Name) and depth < 3:
            bound = [self.binding(a.node) for a in self.reaching(key) if isinstance(a.node, cst.Name)]
            if len(bound) == 1 and bound[0][0] == "assign" and not bound[0][2] and isinstance(bound[0][1], cst.Tuple):
                return self.constant_key(bound[0][1], depth + 1)
        return None

    def _tuple_key(self, parts) -> Optional[tuple]:
        key = tuple(p.evaluated_value if isinstance(p, cst.SimpleString) else None for p in parts)
        return key if any(isinstance(k, str) for k in key) else None

    def ranked_stores(self, holder: cst.BaseExpression) -> Tuple[int, List[cst.BaseExpression]]:
        """(rank, values) of a container the module fills only by item stores of several index parts each,
        as many every time (`self.table[i, 0] = kc`: 2, a numpy object array's or a tuple-keyed dict's);
        (0, []) for any other holder."""
        identity = self._holder_identity(holder)
        if identity is None:
            return 0, []
        cache = self.__dict__.setdefault("_ranked_stores", {})
        if identity not in cache:
            ranks, values = set(), []
            for target, value in self.nodes.item_stores:
                if self._holder_identity(target.value) == identity:
                    simple = all(isinstance(e.slice, cst.Index) for e in target.slice)
                    ranks.add(len(target.slice) if simple else 0)
                    values.append(value)
            rank = ranks.pop() if len(ranks) == 1 else 0
            cache[identity] = (rank, values) if rank > 1 else (0, [])
        return cache[identity]

    def keyed_stores(self) -> Dict[tuple, List[tuple]]:
        """holder identity -> (key path, value) for what the module stores into a container by key
        (`d["k"] = v`, `d["g"][i] = v`, `d.setdefault("g", {})[k] = v`, `d["k"].append(v)` (as `[v]`),
        `d.setdefault("k", v)`, `d.update(other)` (any key)), each key a string constant or None."""
        index = self.__dict__.get("_keyed_store_index")
        if index is not None:
            return index
        index = self._keyed_store_index = {}

        def record(location: cst.BaseExpression, value: cst.BaseExpression, tail: tuple = ()) -> None:
            holder, path = self._key_path(location)
            path = path + tail
            if not path:
                return
            identity = self._holder_identity(holder)
            if identity is not None:
                index.setdefault(identity, []).append((path, value))

        for target, value in self.nodes.item_stores:
            record(target, value)
        take, many = self.tables.take_methods, self.tables.grow_many
        for call in self.nodes.calls:
            func = call.func
            if not (isinstance(func, cst.Attribute) and call.args) or call.args[0].star:
                continue
            method = func.attr.value
            kind = self._grow_kind(method)
            if kind == "last" and method in take and len(call.args) > 1:  # d.setdefault("k", v): d["k"] = v
                record(self._taken_node(call), call.args[-1].value)
            elif kind == "many" and method in many and not isinstance(func.value, (cst.Subscript, cst.Call)):
                record(func.value, self._element_of(call.args[0].value, None), (None,))  # d.update(other)
            elif kind is not None:
                value = call.args[-1].value if kind == "last" else call.args[0].value
                record(func.value, value if kind == "many" else self._held_list(value), (None,))
        return index

    def _stored_at(self, holder: cst.BaseExpression, path: tuple) -> Optional[List[cst.BaseExpression]]:
        """What the module's keyed stores put at path under the container holder names (its class
        family's, for an attribute), as values read there; [] when nothing is stored there; None
        when a store sits above the path in a way the keys cannot be followed into."""
        index = self.keyed_stores()
        identity = self._holder_identity(holder) if index else None
        if identity is None:
            return []
        if identity[0] == "attr":
            owner = next((c for c in self.nodes.classes if id(c) == identity[1]), None)
            families = [("attr", id(c), identity[2]) for c in (self.class_family(owner) if owner is not None else [])]
        else:
            families = [identity]
        out: List[cst.BaseExpression] = []
        for family in families:
            for stored, value in index.get(family, ()):
                common = min(len(stored), len(path))
                if any(_keys_differ(a, b) for a, b in zip(stored[:common], path[:common])):
                    continue  # another key
                if len(stored) >= len(path):  # held deeper than the read: in containers
                    out.append(self._nested_list(value, len(stored) - len(path)))
                    continue
                found = [value]  # stored above the read: follow the rest of its keys into displays
                for key in path[len(stored) :]:
                    if key is None:
                        return None
                    nxt = []
                    for v in found:
                        if not isinstance(v, cst.Dict):
                            return None
                        nxt.extend(
                            e.value
                            for e in v.elements
                            if isinstance(e, cst.DictElement)
                            and isinstance(e.key, cst.SimpleString)
                            and e.key.evaluated_value == key
                        )
                    found = nxt
                out.extend(found)
        return out

    def _fresh_container(self, holder: cst.BaseExpression) -> bool:
        """Is every value holder is assigned a dict display without `**` parts, or a dict constructor
        given no mapping (`{}`, `defaultdict(dict)`, `dict()`): nothing but its keyed stores fills it?"""
        if isinstance(holder, cst.Name):
            values = []
            for assignment in self.reaching(holder):
                node = assignment.node
                if not isinstance(node, cst.Name):
                    return False
                kind, value, path = self.binding(node)
                if kind != "assign" or path:
                    return False
                values.append(value)
        elif isinstance(holder, cst.Attribute):
            owner = self.instance_class(holder.value)
            if owner is None:
                return False
            values = list(self.instance_attr_values(owner, holder.attr.value))
            lists = {id(n) for n in self.__dict__.get("_held_lists", {}).values()}  # (made by the line above)
            values = [v for v in values if id(v) not in lists]
        else:
            return False
        t = self.tables
        for value in values:
            if isinstance(value, cst.Dict):
                if any(isinstance(e, cst.StarredDictElement) for e in value.elements):
                    return False
            elif isinstance(value, cst.Call) and self.qualified(value) in t.dict_constructors:
                given = [a for a in value.args if a.keyword is None]
                if self.qualified(value) in t.factory_dicts:
                    given = given[1:]
                if given or any(a.star for a in value.args):
                    return False
            else:
                return False
        return bool(values)

    def keyed_values(self, sub: cst.Subscript) -> List[cst.BaseExpression]:
        """`d["k"]` with a constant key: the values stored under it, where d is a dict
        display (through names and attributes) or the `**kwargs` of a function whose call
        sites are visible, and what the module stores under that key (keyed_stores); [] when
        unknown."""
        if not all(isinstance(e.slice, cst.Index) for e in sub.slice):
            return []
        parts = [e.slice.value for e in sub.slice]
        named = self._named_key(parts[0]) if len(parts) == 1 else None
        if named is not None:  # `table[Mode.DECODE]`: the display's entry under that member
            return [
                e.value
                for holder in self._held_values(sub.value)
                if isinstance(holder, cst.Dict)
                for e in holder.elements
                if isinstance(e, cst.DictElement) and self._named_key(e.key) == named
            ]
        wanted = self.constant_key(parts[0]) if len(parts) == 1 else self._tuple_key(parts)
        if wanted is None:
            return []
        out: List[cst.BaseExpression] = []
        held = self._held_values(sub.value) if isinstance(wanted, str) else []
        if wanted is not None:  # (while keyed_stores is being built: what it has found so far)
            root, path = self._key_path(sub)
            if path and (held or self._fresh_container(root)):
                # what is stored under that key path (`self.d["k"].append(v)`, `self.d[i]["k"] = v`); with
                # no display, only for a container nothing else fills
                stored = self._stored_at(root, path)
                if stored is None:
                    return []
                out.extend(stored)
                if not held:
                    return out
        for holder in held:
            if isinstance(holder, tuple):  # a dict of an object's fields (`rec._asdict()`): rec.<key>
                if wanted.isidentifier():
                    out.append(self._attribute(holder[0], wanted))
            elif isinstance(holder, cst.Dict):
                out.extend(
                    e.value
                    for e in holder.elements
                    if isinstance(e, cst.DictElement)
                    and isinstance(e.key, cst.SimpleString)
                    and e.key.evaluated_value == wanted
                )
            elif isinstance(holder, cst.DictComp):  # a computed key: any key holds the value
                out.append(holder.value)
            elif isinstance(holder, cst.Call):  # dict(k=a, v=b)
                found = (self.dict_keywords(holder) or {}).get(wanted)
                if found is not None:
                    out.append(found)
            elif isinstance(holder, cst.Param):
                out.extend(self._keyword_arguments(holder, wanted))
        return out

    def _named_key(self, key: cst.BaseExpression) -> Optional[str]:
        """`Cls.MEMBER` as a dict key naming a member of a class of the module (an enum's: the same
        spelling is the same key); None for any other key."""
        if isinstance(key, cst.Attribute) and isinstance(key.value, cst.Name):
            if key.value.value in self.module_classes():
                return f"{key.value.value}.{key.attr.value}"
        return None

    def _held_values(self, expr: cst.BaseExpression, depth: int = 0) -> list:
        """The dict displays, comprehensions, `**kwargs` parameters and (as a 1-tuple) objects whose
        fields by name (fields_source) expr may be; a helper's returned dict (`self._dtype_dict()`)."""
        if isinstance(expr, (cst.Dict, cst.DictComp)):
            return [expr]
        if isinstance(expr, cst.Subscript):
            return self._element_dicts(expr)
        if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.BitOr) and depth < 3:
            # `base | extra`: the merged dict, the right operand's keys first (they win)
            return self._held_values(expr.right, depth + 1) + self._held_values(expr.left, depth + 1)
        source = self.fields_source(expr)
        if source is not None:
            return [(source,)]
        if self.dict_keywords(expr) is not None:
            return [expr]
        if isinstance(expr, cst.Call) and depth < 3:  # `self._dtype_dict()["kv"]`: the dict a helper returns
            return [h for v in (self._container_sources(expr, 0) or ()) for h in self._held_values(v, depth + 1)]
        if isinstance(expr, cst.Attribute):
            owner = self.instance_class(expr.value)
            return (
                [
                    v
                    for v in self.instance_attr_values(owner, expr.attr.value)
                    if isinstance(v, (cst.Dict, cst.DictComp)) or self.dict_keywords(v) is not None
                ]
                if owner is not None
                else []
            )
        if not isinstance(expr, cst.Name):
            return []
        out = []
        for assignment in self.reaching(expr):
            node = assignment.node
            param = node if isinstance(node, cst.Param) else self.parents.get(node)
            if isinstance(param, cst.Param):
                owner = self._param_owner(param)
                if isinstance(owner, cst.FunctionDef) and owner.params.star_kwarg is param:
                    out.append(param)
                elif depth < 3:  # a dict passed in: what the call being followed (or every call) passes
                    out.extend(h for v in self.complete_arguments(param) for h in self._held_values(v, depth + 1))
                continue
            if isinstance(node, cst.Name):
                kind, value, path = self.binding(node)
                if kind == "assign" and not path and isinstance(value, (cst.Dict, cst.DictComp)):
                    out.append(value)
                elif kind == "assign" and not path and self.fields_source(value) is not None:
                    out.append((self.fields_source(value),))
                elif kind == "assign" and not path and self.dict_keywords(value) is not None:
                    out.append(value)
                elif kind == "assign" and not path and isinstance(value, cst.Call) and depth < 3:
                    out.extend(self._held_values(value, depth + 1))  # `dts = self._dtype_dict()`
                elif kind == "assign" and not path and isinstance(value, cst.Subscript):
                    out.extend(self._element_dicts(value))  # `entry = self.layers[i]` of dict displays
                elif kind == "for" and not path and value is not None:
                    elements = self.element_values(value, None)  # `for entry in self.layers`
                    if elements and all(isinstance(e, (cst.Dict, cst.DictComp)) for e in elements):
                        out.extend(elements)
        return out

    def _element_dicts(self, sub: cst.Subscript) -> list:
        """`rows[i]` where every element rows may hold is a dict display (a list of per-layer
        dicts): those displays, so that a constant key selects that key's values only; [] when
        some element is no dict display."""
        if len(sub.slice) != 1 or not isinstance(sub.slice[0].slice, cst.Index):
            return []
        key = sub.slice[0].slice.value
        if isinstance(key, cst.SimpleString):
            return []  # a key of a dict: keyed_values follows it
        elements = self.element_values(sub.value, int(key.value) if isinstance(key, cst.Integer) else None)
        if not elements or not all(isinstance(e, (cst.Dict, cst.DictComp)) for e in elements):
            return []
        return list(elements)

    def _keyword_arguments(self, param: cst.Param, keyword: str, depth: int = 0) -> List[cst.BaseExpression]:
        """What the visible calls of param's function pass as `keyword=` into its **kwargs:
        by keyword, inside a `**{...}` or `**d` of a dict display, or through the caller's own
        `**kwargs` (forwarded any number of levels); and what the function stores into it
        itself (`kwargs.setdefault("k", v)`, `kwargs["k"] = v`, `kwargs.update(k=v)`)."""
        func = self._param_owner(param)
        stored = self._stored_keywords(func, param.name.value).get(keyword, [])
        calls = None
        for frame_target, frame_call in reversed(getattr(self, "_frames", ())):
            if frame_target is func:  # under one call (castlint.analysis.dataflow.call_conversions)
                calls = [frame_call]
                break
        if not isinstance(func, cst.FunctionDef) or depth > 4:
            return stored
        if calls is None:
            cls = self.method_class(func)
            calls = list(self._calls_by_name().get(id(func), ())) + self._object_calls(func) + self.super_calls(func)
            if cls is not None:
                self._index_class(cls)
                calls += self._method_calls.get((id(cls), func.name.value), [])
        out = list(stored)
        named = {p.name.value for p in (*func.params.posonly_params, *func.params.params, *func.params.kwonly_params)}
        if keyword in named:
            return out
        for call in calls:
            for arg in call.args:
                if arg.keyword is not None:
                    if arg.keyword.value == keyword:
                        out.append(arg.value)
                elif arg.star == "**":
                    held = self._double_starred_values(arg.value).get(keyword)
                    if held is not None:
                        out.append(held)
                        continue
                    for holder in self._held_values(arg.value):
                        if isinstance(holder, cst.Param) and holder is not param:
                            out.extend(self._keyword_arguments(holder, keyword, depth + 1))
        return out

    def stored_keywords(self, name: cst.Name) -> Dict[str, List[cst.BaseExpression]]:
        """key -> values stored into the dict a local name holds, in its function."""
        func = next((a for a in self.ancestors(name) if isinstance(a, cst.FunctionDef)), None)
        return self._stored_keywords(func, name.value)

    def _stored_keywords(self, func, name: str) -> Dict[str, List[cst.BaseExpression]]:
        """key -> values of `d.setdefault("k", v)`, `d["k"] = v`, `d.update(k=v)` on name d in func."""
        if not isinstance(func, cst.FunctionDef):
            return {}
        cache = self.__dict__.setdefault("_stored_keywords_cache", {})
        found = cache.get((id(func), name))
        if found is None:
            found = {}
            grow_last = self.tables.grow_last
            for node in iter_nodes(func, cst.Call):
                f = node.func
                if not (isinstance(f, cst.Attribute) and isinstance(f.value, cst.Name) and f.value.value == name):
                    continue
                if f.attr.value in grow_last and len(node.args) == 2:
                    key = self.constant_string(node.args[0].value)
                    if key is not None:
                        found.setdefault(key, []).append(node.args[1].value)
                elif f.attr.value == "update":
                    for a in node.args:
                        if a.keyword is not None:
                            found.setdefault(a.keyword.value, []).append(a.value)
            for node in iter_nodes(func.body, cst.Assign):  # kw["k"] = v
                for target in node.targets:
                    sub = target.target
                    if (
                        isinstance(sub, cst.Subscript)
                        and isinstance(sub.value, cst.Name)
                        and sub.value.value == name
                        and len(sub.slice) == 1
                        and isinstance(sub.slice[0].slice, cst.Index)
                    ):
                        key = self.constant_string(sub.slice[0].slice.value)
                        if key is not None:
                            found.setdefault(key, []).append(node.value)
            cache[(id(func), name)] = found
        return found


@dataclass(frozen=True)
class KeyShape:
    """A string key spelled as an f-string: its literal parts, None for each formatted field
    (`f"layers.{i}.k"`: ("layers.", None, ".k")). It may name any string those parts spell."""

    parts: tuple

    @staticmethod
    def of(key: cst.FormattedString) -> Optional["KeyShape"]:
        parts = tuple(p.value if isinstance(p, cst.FormattedStringText) else None for p in key.parts)
        return KeyShape(parts) if any(parts) else None

    @property
    def ends(self) -> Tuple[str, str]:
        """(literal head, literal tail): the text before the first field and after the last."""
        head = self.parts[0] if self.parts and self.parts[0] is not None else ""
        tail = self.parts[-1] if len(self.parts) > 1 and self.parts[-1] is not None else ""
        return head, tail

    def may_spell(self, text: str) -> bool:
        pattern = "".join(".*" if p is None else re.escape(p) for p in self.parts)
        return re.fullmatch(pattern, text, re.DOTALL) is not None

    def disjoint(self, other: "KeyShape") -> bool:
        """No string both may spell: their heads, or their tails, disagree."""
        (h1, t1), (h2, t2) = self.ends, other.ends
        return not (h1.startswith(h2) or h2.startswith(h1)) or not (t1.endswith(t2) or t2.endswith(t1))


def _keys_differ(a, b) -> bool:
    """Do two mapping keys (constant_key's) name different entries? A None part may be anything."""
    if a is None or b is None:
        return False
    if isinstance(a, KeyShape) or isinstance(b, KeyShape):
        if isinstance(a, KeyShape) and isinstance(b, KeyShape):
            return a.disjoint(b)
        shape, other = (a, b) if isinstance(a, KeyShape) else (b, a)
        return not (isinstance(other, str) and shape.may_spell(other))
    if isinstance(a, tuple) != isinstance(b, tuple):
        return True
    if not isinstance(a, tuple):
        return a != b
    return len(a) != len(b) or any(x is not None and y is not None and x != y for x, y in zip(a, b))


def _repeated_display(expr: cst.BaseExpression) -> Optional[cst.BaseExpression]:
    """The tuple or list display (no spread, not empty) that `display * n` or `n * display` repeats."""
    if not isinstance(expr, cst.BinaryOperation) or not isinstance(expr.operator, cst.Multiply):
        return None
    for side in (expr.left, expr.right):
        if (
            isinstance(side, (cst.Tuple, cst.List))
            and side.elements
            and not any(isinstance(e, cst.StarredElement) for e in side.elements)
        ):
            return side
    return None
