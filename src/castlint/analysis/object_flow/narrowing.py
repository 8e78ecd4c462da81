"""isinstance narrowing: the classes a value may be after its tests (`admitted`, `is_instance_of`),
and the values of instance and class-level attributes."""

from __future__ import annotations

from typing import Dict, List, Optional

import libcst as cst

from castlint.analysis.object_flow.shared import _dotted
from castlint.analysis.tree import block_exits, iter_nodes


class IsinstanceNarrowing:
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
            if not isinstance(stmt, cst.If) or stmt.orelse is not None or not block_exits(stmt.body):
                continue
            guard = self._type_test(stmt.test, name)
            if guard is not None:
                out.append((guard[0], not guard[1]))
        return out

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
        guards = self._record_kind_guards(holder, owner) if frames else []
        out: List[cst.BaseExpression] = []
        for call, _ in frames:
            if guards and self._kind_excluded(call, holder, guards):
                continue  # `if rec.kind == "attn":` where this construction spelled another literal kind
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

    def _record_kind_guards(self, holder: cst.BaseExpression, owner: cst.ClassDef) -> List[tuple]:
        """(test, branch, field) of the if / conditional-expression tests of a field of the record a name holds
        (`entry.kind == "attn"`, `entry.kind in ("a", "b")`, `not entry.kind.startswith("ssm")`) that hold where
        that name is read, inside its function."""
        if not isinstance(holder, cst.Name):
            return []
        fields = set(self.record_fields(owner))
        found: List[tuple] = []
        child: cst.CSTNode = holder
        for anc in self.ancestors(holder):
            if isinstance(anc, (cst.FunctionDef, cst.Lambda, cst.ClassDef, cst.Module)):
                break
            if isinstance(anc, (cst.If, cst.IfExp)) and child in (anc.body, anc.orelse):
                read = {
                    a.attr.value
                    for a in iter_nodes(anc.test, cst.Attribute)
                    if isinstance(a.value, cst.Name) and a.value.value == holder.value and a.attr.value in fields
                }
                found += [(anc.test, child is anc.body, f) for f in sorted(read)]
            child = anc
        return found

    def _kind_excluded(self, call: cst.Call, holder: cst.Name, guards: List[tuple]) -> bool:
        """Does a record construction fail a guard: the field the guard tests is a string constant in it
        (`LayerBuf("state", ...)`) for which the test gives the other branch? Unknown fields keep it."""
        cls = self.constructed_class(call)
        if cls is None or not self.is_record(cls):
            return False
        for test, branch, field in guards:
            if field not in self.record_fields(cls):
                continue
            given = self._record_arguments(cls, field, [call])
            text = _constant_text(given[0]) if len(given) == 1 else None
            if not isinstance(text, str):
                continue
            passes = self._key_test(test, f"{holder.value}.{field}", text)
            if passes is not None and passes != branch:
                return True
        return False

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


class KeyTestNarrowing:
    """`for name, t in d.items(): if name.endswith("scale"): ... t ...`: where d is a dict display of
    constant string keys, or a record's fields by name (`rec._asdict()`, `vars(rec)`: [records] as_dict_*),
    t read under a test of name is only the entries whose key passes it."""

    def key_excluded(self, read: cst.Name, iterable: cst.BaseExpression, path) -> frozenset:
        """ids of the display values the item value at path (1,) of `for key, value in d.items()` cannot
        be where read uses it: the entries of d's dict displays whose constant key fails a test of key
        that guards read (an if or conditional expression inside the loop, a comprehension's `if`, an
        earlier `if not test: continue`). Tests: [containers] key_tests str methods with constant
        arguments, `==` / `!=` / `in` / `not in` against constants, `not`, `and`, `or`."""
        loop = self.parents.get(iterable)
        if path != (1,) or not self._item_view_call(iterable) or not isinstance(loop, (cst.For, cst.CompFor)):
            return frozenset()
        target = loop.target
        if not (isinstance(target, (cst.Tuple, cst.List)) and len(target.elements) == 2):
            return frozenset()
        key = target.elements[0].value
        guards = self._key_guards(read, loop, key.value) if isinstance(key, cst.Name) else []
        if not guards:
            return frozenset()
        excluded = set()
        source = self.fields_source(iterable.func.value)
        if source is not None:  # `rec._asdict().items()`, `vars(rec).items()`: each field under its own name
            for field in self.any_field_attributes(source):
                passes = [self._key_test(test, key.value, field.attr.value) for test, _ in guards]
                if any(p is not None and p != branch for p, (_, branch) in zip(passes, guards)):
                    excluded.add(id(field))
            return frozenset(excluded)
        for display in self._held_values(iterable.func.value):
            for entry in display.elements if isinstance(display, cst.Dict) else ():
                text = _constant_text(entry.key) if isinstance(entry, cst.DictElement) else None
                if text is None or not isinstance(text, str):
                    continue
                passes = [self._key_test(test, key.value, text) for test, _ in guards]
                if any(p is not None and p != branch for p, (_, branch) in zip(passes, guards)):
                    excluded.add(id(entry.value))
        return frozenset(excluded)

    def field_walk_kept(self, read: cst.BaseExpression, value: cst.BaseExpression) -> Optional[List[cst.Attribute]]:
        """`t = getattr(rec, f.name)` for f in `dataclasses.fields(rec)` (or n in `Rec._fields`, in
        `vars(rec)`: names_a_field), read under a test of that field name (`if f.name == "kv_scale":`,
        `if not n.endswith("scale"): continue`): the fields of rec's class (any_field_attributes) whose
        name passes the tests that hold at read; None when value is no such walk or no test narrows it."""
        if not (isinstance(value, cst.Call) and len(value.args) >= 2 and not any(a.star for a in value.args[:2])):
            return None
        if not self.attribute_getter(value.func) or not self.names_a_field(value.args[1].value):
            return None
        key_expr = value.args[1].value
        key = _dotted(key_expr)
        root = key_expr
        while isinstance(root, cst.Attribute):
            root = root.value
        if key is None or not isinstance(root, cst.Name):
            return None
        loops = []
        for assignment in self.reaching(root):
            node = assignment.node
            kind, iterable, _ = self.binding(node) if isinstance(node, cst.Name) else (None, None, ())
            loop = self.parents.get(iterable) if kind == "for" else None
            if not isinstance(loop, (cst.For, cst.CompFor)):
                return None
            loops.append(loop)
        if len(loops) != 1:
            return None
        guards = self._key_guards(read, loops[0], key)
        if not guards:
            return None
        kept = []
        fields = self.any_field_attributes(value.args[0].value)
        for field in fields:
            passes = [self._key_test(test, key, field.attr.value) for test, _ in guards]
            if not any(p is not None and p != branch for p, (_, branch) in zip(passes, guards)):
                kept.append(field)
        if not fields:  # a record of unknown class: the names an equality test admits, read off it
            names = self._closed_names(guards, key)
            if names is not None:
                return [self._attribute(value.args[0].value, n) for n in names]
        return kept

    def record_walk_named(
        self, read: cst.Name, iterable: cst.BaseExpression, path
    ) -> Optional[List[cst.BaseExpression]]:
        """The value of `for name, value in vars(rec).items()` (any [records] as_dict_* view of rec's fields by
        name: `rec.__dict__`, `dataclasses.asdict(rec)`, `rec._asdict()`) read under tests of name that admit
        only names compared with constants (`if name == "kv_cache":`, `name in ("k", "v")`): `rec.<name>` for
        each, whatever rec's class (a parameter's record); None when it is no such walk or the tests admit
        other names too."""
        loop = self.parents.get(iterable)
        if path != (1,) or not self._item_view_call(iterable) or not isinstance(loop, (cst.For, cst.CompFor)):
            return None
        source = self.fields_source(iterable.func.value)
        target = loop.target
        if source is None or not (isinstance(target, (cst.Tuple, cst.List)) and len(target.elements) == 2):
            return None
        key = target.elements[0].value
        if not isinstance(key, cst.Name):
            return None
        names = self._closed_names(self._key_guards(read, loop, key.value), key.value)
        return None if names is None else [self._attribute(source, n) for n in names]

    def _closed_names(self, guards: List[tuple], key: str) -> Optional[List[str]]:
        """The names key may hold where guards hold, when one of them admits no name but constants it is
        compared with (`==`, `in` a display, `!=` / `not in` on the exiting branch; `not`, `and`, `or` of
        these): those constants that pass every guard; None when some other name could pass."""
        pure = [(test, branch) for test, branch in guards if _equality_test(test, key)]
        unseen = "\0"  # a name no constant is: what any name the tests do not mention gives
        if not any(self._key_test(test, key, unseen) not in (None, branch) for test, branch in pure):
            return None
        names: List[str] = []
        for test, _ in pure:
            for comparison in iter_nodes(test, cst.ComparisonTarget):
                text = _constant_text(comparison.comparator)
                for name in (text,) if isinstance(text, str) else text or ():
                    if name.isidentifier() and name not in names:
                        names.append(name)
        return [
            n for n in names if not any(self._key_test(test, key, n) not in (None, branch) for test, branch in guards)
        ]

    def _item_view_call(self, iterable: cst.BaseExpression) -> bool:
        return (
            isinstance(iterable, cst.Call)
            and isinstance(iterable.func, cst.Attribute)
            and iterable.func.attr.value in self.tables.item_views
            and not iterable.args
        )

    def _key_guards(self, read: cst.Name, loop, key: str) -> List[tuple]:
        """(test, branch) of the tests of key that hold where read is, inside loop."""
        found: List[tuple] = []
        if isinstance(loop, cst.CompFor):  # `{n: t.to(d) for n, t in x.items() if n != "scale"}`
            found += [(c.test, True) for c in loop.ifs]
        child = read
        for anc in self.ancestors(read):
            if anc is loop or isinstance(anc, (cst.FunctionDef, cst.Lambda, cst.ClassDef, cst.Module)):
                break
            if isinstance(anc, (cst.If, cst.IfExp)) and child in (anc.body, anc.orelse):
                found.append((anc.test, child is anc.body))
            if isinstance(anc, cst.IndentedBlock) and self.parents.get(anc) is loop:
                before = anc.body[: anc.body.index(child)] if child in anc.body else ()
                found += [  # `if not name.endswith("scale"): continue` before the read
                    (stmt.test, False)
                    for stmt in before
                    if isinstance(stmt, cst.If) and stmt.orelse is None and block_exits(stmt.body)
                ]
            child = anc
        return [(test, branch) for test, branch in found if _names_key(test, key)]

    def _key_test(self, test: cst.BaseExpression, key: str, text: str) -> Optional[bool]:
        """What test gives when the name key holds text; None when it cannot be told."""
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            inner = self._key_test(test.expression, key, text)
            return None if inner is None else not inner
        if isinstance(test, cst.BooleanOperation):
            left, right = self._key_test(test.left, key, text), self._key_test(test.right, key, text)
            if isinstance(test.operator, cst.And):
                return False if False in (left, right) else (None if None in (left, right) else True)
            return True if True in (left, right) else (None if None in (left, right) else False)
        if isinstance(test, cst.Call) and isinstance(test.func, cst.Attribute):
            receiver, method = test.func.value, test.func.attr.value
            if not (_dotted(receiver) == key and method in self.tables.key_tests):
                return None
            if any(a.star or a.keyword is not None for a in test.args):
                return None
            args = [_constant_text(a.value) for a in test.args]
            if any(a is None for a in args):
                return None
            try:
                result = getattr(text, method)(*args)
            except (AttributeError, TypeError, ValueError):
                return None
            return result if isinstance(result, bool) else None
        if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
            return _compared(test.left, test.comparisons[0], key, text)
        return None


def _constant_text(expr: cst.BaseExpression):
    """A string constant, or a tuple of them (a tuple, list or set display); None otherwise."""
    if isinstance(expr, (cst.SimpleString, cst.ConcatenatedString)):
        value = expr.evaluated_value
        return value if isinstance(value, str) else None
    if isinstance(expr, (cst.Tuple, cst.List, cst.Set)):
        parts = [_constant_text(e.value) if isinstance(e, cst.Element) else None for e in expr.elements]
        return None if any(not isinstance(p, str) for p in parts) else tuple(parts)
    return None


def _equality_test(test: cst.BaseExpression, key: str) -> bool:
    """Is test made only of comparisons of key with string constants by `==` / `!=` / `in` / `not in` a
    display (`not`, `and`, `or` of them): a test every name it does not mention answers alike?"""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        return _equality_test(test.expression, key)
    if isinstance(test, cst.BooleanOperation):
        return _equality_test(test.left, key) and _equality_test(test.right, key)
    if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1):
        return False
    target = test.comparisons[0]
    if not (isinstance(test.left, (cst.Name, cst.Attribute)) and _dotted(test.left) == key):
        return False
    other = _constant_text(target.comparator)
    if isinstance(target.operator, (cst.Equal, cst.NotEqual)):
        return isinstance(other, str)
    return isinstance(target.operator, (cst.In, cst.NotIn)) and isinstance(other, tuple)


def _names_key(test: cst.BaseExpression, key: str) -> bool:
    """Does test read the name key?"""
    if "." in key:  # a field object's name (`f.name == "kv_scale"`)
        return any(_dotted(n) == key for n in iter_nodes(test, cst.Attribute))
    return any(isinstance(n, cst.Name) and n.value == key for n in iter_nodes(test, cst.Name))


def _compared(left: cst.BaseExpression, target: cst.ComparisonTarget, key: str, text: str) -> Optional[bool]:
    """`key == "c"`, `key != "c"`, `key in ("a", "b")`, `"c" in key` (and `not in`) with key holding text."""
    right, op = target.comparator, target.operator
    is_key = lambda e: isinstance(e, (cst.Name, cst.Attribute)) and _dotted(e) == key  # noqa: E731
    if is_key(left) and not is_key(right):
        other, key_first = _constant_text(right), True
    elif is_key(right) and not is_key(left):
        other, key_first = _constant_text(left), False
    else:
        return None
    if other is None:
        return None
    if isinstance(op, (cst.Equal, cst.NotEqual)):
        equal = isinstance(other, str) and other == text
        return equal if isinstance(op, cst.Equal) else not equal
    if isinstance(op, (cst.In, cst.NotIn)):
        inside = (text in other) if key_first else (isinstance(other, str) and other in text)
        return inside if isinstance(op, cst.In) else not inside
    return None
