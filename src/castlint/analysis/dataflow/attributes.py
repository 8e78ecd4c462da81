"""`self.x`: its assignments anywhere in the class (`self_attr_values`), and a cache attribute's
own allocation (`holds_pools`, `allocation_kind`, `allocated_dtype`)."""

from __future__ import annotations

from typing import Dict, List, Optional, Tuple

import libcst as cst

from castlint.analysis.origin import Origin
from castlint.analysis.tree import dotted, iter_nodes, name_parts


def _name_shape(expr: cst.BaseExpression) -> Optional[Tuple[str, str]]:
    """(literal head, literal tail) of an attribute name spelled as an f-string (`f"kv_{i}"`: ("kv_", "")),
    or a literal string (head and tail the whole); None when nothing of it is written out."""
    if isinstance(expr, cst.SimpleString) and isinstance(expr.evaluated_value, str):
        return expr.evaluated_value, expr.evaluated_value
    if not isinstance(expr, cst.FormattedString):
        return None
    parts = expr.parts
    head = parts[0].value if parts and isinstance(parts[0], cst.FormattedStringText) else ""
    tail = parts[-1].value if len(parts) > 1 and isinstance(parts[-1], cst.FormattedStringText) else ""
    return head, tail


def _shapes_meet(a: Optional[Tuple[str, str]], b: Optional[Tuple[str, str]]) -> bool:
    """May two attribute-name shapes spell the same name (heads and tails agree where both are written)?"""
    if a is None or b is None:
        return True
    heads = a[0].startswith(b[0]) or b[0].startswith(a[0])
    tails = a[1].endswith(b[1]) or b[1].endswith(a[1])
    return heads and tails


class SelfAttributes:
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
        for call in self.nodes.self_class_calls:
            # `type(self)._m(kv)`, `cls._m(kv)` of a class or static method: as `self._m(kv)` (an override
            # in a subclass runs where self is one); an instance method called so takes self first
            # (`type(self).m(self, kv)`: _explicit_self_calls)
            if self.enclosing_class(call) is cls and self._class_bound_in(cls, call.func.attr.value):
                self._method_calls.setdefault((id(cls), call.func.attr.value), []).append(call)
        for name, func in self.installed_methods()[1].get(id(cls), {}).items():
            # `cls.dense = _whole` (a class decorator, `Cls.dense = _whole`): `self.dense(...)` calls _whole
            if isinstance(func, cst.FunctionDef) and func.name.value != name:
                calls = self._method_calls.get((id(cls), name), [])
                self._method_calls.setdefault((id(cls), func.name.value), []).extend(calls)
        for name, funcs in self.installed_methods()[4].get(id(cls), {}).items():
            # `self.n = types.MethodType(f if c else g, self)`: `self.n(...)` calls f or g
            calls = self._method_calls.get((id(cls), name), [])
            for func in funcs[1:]:
                if func.name.value != name:
                    self._method_calls.setdefault((id(cls), func.name.value), []).extend(calls)
        for target, value in self.grown_attributes(cls):
            self._self_attr_index.setdefault((id(cls), target), []).append(value)
        for name, value in self.set_attributes(cls):
            self._self_attr_index.setdefault((id(cls), name), []).append(value)

    def _class_bound_in(self, cls: cst.ClassDef, name: str) -> bool:
        """Is name a class or static method in cls's family (the def cls's MRO finds, else an override)?"""
        found = self.find_method(cls, name)
        if found is not None:
            return self.class_bound(found)
        return any(
            self.class_bound(m) for other in self.class_family(cls) for m in [self.class_methods(other).get(name)] if m
        )

    def _member_origin(self, receiver: cst.BaseExpression, depth: int) -> Origin:
        """What `receiver.buffers()` iterates ([containers] member_methods): a container's elements
        (`nn.ParameterList`), else every tensor receiver's class stores on self, under any name: a
        container of whole pools when one of them is a whole pool."""
        if self.origin(receiver, depth) == Origin.POOL_TUPLE:
            return Origin.POOL_TUPLE
        owner = self.instance_class(receiver)
        if owner is None:
            return Origin.OTHER
        for member in self.class_family(owner):
            self._index_class(member)
            values = [v for (key, _), vs in self._self_attr_index.items() if key == id(member) for v in vs]
            values.extend(self._computed_set_values(member))
            if any(self.origin(v, depth) >= Origin.POOL for v in values):
                return Origin.POOL_TUPLE
        return Origin.OTHER

    def _computed_set_values(self, cls: cst.ClassDef) -> List[cst.BaseExpression]:
        """The values cls's methods set on self under a computed name (`setattr(self, f"kv_{i}", v)`)."""
        index = self.__dict__.get("_computed_sets")
        if index is None:
            index = self._computed_sets = {}
            for call in self.nodes.calls:
                args = self.self_setter_args(call)
                if args is None:
                    continue
                if len(args) >= 2 and not any(a.star or a.keyword for a in args[:2]):
                    if self.constant_string(args[0].value) is None:
                        owner = self.enclosing_class(call)
                        if owner is not None:
                            index.setdefault(id(owner), []).append((args[0].value, args[1].value))
        return [value for _, value in index.get(id(cls), [])]

    def _computed_name_values(self, owner: cst.ClassDef, name: cst.BaseExpression) -> List[cst.BaseExpression]:
        """What an instance of owner may hold under a computed name (`getattr(self, f"kv_{layer_id}")`):
        the values its family sets under a computed name that may spell the same (`register_buffer(
        f"kv_{i}", t)`: the same literal head and tail)."""
        self._computed_set_values(owner)
        wanted = _name_shape(name)
        out = []
        for member in self.class_family(owner):
            for stored, value in self._computed_sets.get(id(member), []):
                if _shapes_meet(wanted, _name_shape(stored)):
                    out.append(value)
        return out

    def hook_stored_values(self, call: cst.Call) -> Optional[List[cst.BaseExpression]]:
        """Inside an attribute read hook of a class of the module (rules/accessors.toml [callables]
        attribute_read_hooks: `def __getattribute__(self, name)`), a read of the instance's own storage
        under the hook's name parameter (`super().__getattribute__(name)`, an attribute getter
        `object.__getattribute__(self, name)`): what any attribute the class's MRO stores on self may
        hold (the hook runs for every such read); None when call is no such read."""
        hooks = self.tables.attribute_read_hooks
        getters = self.tables.descriptor_read_hooks
        if not any(h in self.nodes.local_callables for h in (*hooks, *getters)):
            return None
        hook = self.enclosing_function(call)
        if hook is not None and hook.name.value in getters:
            return self._descriptor_stored_values(call, hook)
        if hook is None or hook.name.value not in hooks:
            return None
        cls = self.method_class(hook)
        params = [p.name.value for p in (*hook.params.posonly_params, *hook.params.params)]
        args = [a.value for a in call.args if a.keyword is None and not a.star]
        if cls is None or len(params) < 2 or len(args) != len(call.args):
            return None
        func = call.func
        if (
            isinstance(func, cst.Attribute)
            and func.attr.value in hooks
            and isinstance(func.value, cst.Call)
            and dotted(func.value.func) == "super"
            and len(args) == 1
        ):
            name = args[0]  # super().__getattribute__(name)
        elif self.attribute_getter(func) and len(args) == 2 and dotted(args[0]) == params[0]:
            name = args[1]  # object.__getattribute__(self, name)
        else:
            return None
        if dotted(name) != params[1]:
            return None
        values: List[cst.BaseExpression] = []
        for attr in self._stored_attr_names(cls):
            values.extend(self.instance_attr_values(cls, attr, hook))
        return values

    def hook_guarded_origin(self, use: cst.Name, value: cst.BaseExpression, depth: int) -> Optional[Origin]:
        """A name bound to a hook read (hook_stored_values: `value = super().__getattribute__(name)`) and
        read under tests of the hook's name parameter against constant strings (`if name == "k_scale":`,
        `if name in type(self)._WIDE:` of a class-body set display): only those attributes' values;
        None when value is no hook read or no such test guards the use."""
        if not isinstance(value, cst.Call) or self.hook_stored_values(value) is None:
            return None
        hook = self.enclosing_function(value)
        params = [p.name.value for p in (*hook.params.posonly_params, *hook.params.params)]
        cls = self.method_class(hook)
        allowed = None
        child: cst.CSTNode = use
        for node in self.ancestors(use):
            if node is hook:
                break
            if isinstance(node, cst.If) and node.body is child:
                names = self._hook_name_test(node.test, params[1], cls)
                if names is not None:
                    allowed = names if allowed is None else allowed & names
            child = node
        if allowed is None:
            return None
        return max(
            (self.origin(v, depth + 1) for attr in sorted(allowed) for v in self.instance_attr_values(cls, attr, hook)),
            default=Origin.OTHER,
        )

    def _hook_name_test(self, test: cst.BaseExpression, param: str, cls: cst.ClassDef) -> Optional[set]:
        """The strings `param == "x"` / `param in <constant strings>` lets through; None for another test."""
        if not (isinstance(test, cst.Comparison) and dotted(test.left) == param and len(test.comparisons) == 1):
            return None
        target = test.comparisons[0]
        if isinstance(target.operator, cst.Equal):
            found = self.constant_strings(target.comparator)
            return set(found) if found else None
        if isinstance(target.operator, cst.In):
            return self._string_set(target.comparator, cls, 0)
        return None

    def _string_set(self, expr: cst.BaseExpression, cls: cst.ClassDef, depth: int) -> Optional[set]:
        """The constant strings a tuple/list/set display holds, through a [containers] keep_elements call
        (`frozenset({...})`) and a class-body attribute of cls's MRO read on self or the class."""
        if depth > 3:
            return None
        if isinstance(expr, (cst.Tuple, cst.List, cst.Set)):
            out: set = set()
            for e in expr.elements:
                found = self.constant_strings(e.value) if isinstance(e, cst.Element) else None
                if not found:
                    return None
                out.update(found)
            return out
        if isinstance(expr, cst.Call) and len(expr.args) == 1 and self.qualified(expr) in self.tables.keep_elements:
            return self._string_set(expr.args[0].value, cls, depth + 1)
        if isinstance(expr, cst.Attribute):
            for member in self.c3_mro(cls):
                values = self.class_body_values(member, expr.attr.value)
                if values:
                    sets = [self._string_set(v, cls, depth + 1) for v in values]
                    return set().union(*sets) if all(x is not None for x in sets) else None
        return None

    def _descriptor_stored_values(self, call: cst.Call, hook: cst.FunctionDef) -> Optional[List[cst.BaseExpression]]:
        """In a descriptor's `__get__(self, obj, objtype)`: `getattr(obj, <not a constant>)` (`self.name`, set by
        `__set_name__`) may be any attribute the classes holding the descriptor in their body store on self."""
        cls = self.method_class(hook)
        params = [p.name.value for p in (*hook.params.posonly_params, *hook.params.params)]
        args = [a.value for a in call.args if a.keyword is None and not a.star]
        if cls is None or len(params) < 2 or len(args) != 2 or not self.attribute_getter(call.func):
            return None
        if dotted(args[0]) != params[1] or self.constant_strings(args[1]):
            return None
        values: List[cst.BaseExpression] = []
        for owner in self.descriptor_owners(cls):
            for attr in self._stored_attr_names(owner):
                values.extend(self.instance_attr_values(owner, attr))
        return values

    def descriptor_owners(self, cls: cst.ClassDef) -> List[cst.ClassDef]:
        """The classes of the module whose body holds an instance of cls (`k_cache = Widen()`), once per class."""
        cache = self.__dict__.setdefault("_descriptor_owners", {})
        found = cache.get(id(cls))
        if found is None:
            found = cache[id(cls)] = []
            for owner in self.nodes.classes:
                body = owner.body.body if isinstance(owner.body, cst.IndentedBlock) else ()
                for stmt in body:
                    small = stmt.body if isinstance(stmt, cst.SimpleStatementLine) else ()
                    if any(
                        isinstance(s, cst.Assign)
                        and isinstance(s.value, cst.Call)
                        and self.constructed_class(s.value) is cls
                        for s in small
                    ):
                        found.append(owner)
                        break
        return found

    def _stored_attr_names(self, cls: cst.ClassDef) -> List[str]:
        """The attribute names cls's MRO stores on self (`self.x = ...`, set_attributes), once per class."""
        cache = self.__dict__.setdefault("_stored_attr_names_memo", {})
        found = cache.get(id(cls))
        if found is None:
            owners = set()
            for member in self.c3_mro(cls):
                self._index_class(member)
                owners.add(id(member))
            found = cache[id(cls)] = sorted({a for o, a in self._self_attr_index if o in owners})
        return found

    def self_attr_values(self, cls: cst.ClassDef, attr: str) -> List[cst.BaseExpression]:
        self._index_class(cls)
        return self._self_attr_index.get((id(cls), attr), [])

    def _property_origin(self, expr: cst.Attribute, cls: Optional[cst.ClassDef], depth: int) -> Optional[Origin]:
        """`obj.name` where name is a @property of obj's class: what its getters return, found as
        `obj.name()` would be (return_targets: the class hierarchy, the overrides in subclasses
        that implement an abstract property, `super().name`)."""
        getter = self.property_getter(cls, expr.attr.value) if cls is not None else None
        if getter is None:
            return None
        synthetic = cst.Call(func=expr)
        self.parents.setdefault(synthetic, self.parents.get(expr))
        best = Origin.OTHER
        for target, skip, _ in self.return_targets(synthetic, depth) or [(getter, True, False)]:
            if (isinstance(target, cst.FunctionDef) and self.is_property(target)) or target is getter:
                best = max(best, self._returned(synthetic, target, skip, depth))
        return best

    def _self_attr_origin(self, expr: cst.Attribute, depth: int) -> Origin:
        cls = self.enclosing_class(expr)
        if cls is None:
            return Origin.OTHER
        prop = self._property_origin(expr, cls, depth)
        if prop is not None:
            return prop
        best = Origin.OTHER
        values = self.instance_attr_values(cls, expr.attr.value, self._reading_method(expr, cls))
        for value in values:
            best = max(best, self.origin(value, depth))
        if not values and expr.attr.value in self.tables.user_container_data:
            best = self._user_container_origin(cls, depth)
        if best >= Origin.POOL_TUPLE:
            local = self._local_store(expr)
            if local is not None:  # `self.cache = kv_cache[:, blocks]` just above: what it stored
                return self.origin(local, depth)
        return best

    def _reading_method(self, expr: cst.CSTNode, cls: cst.ClassDef) -> Optional[cst.FunctionDef]:
        """The def of cls's body that expr is read in (through nested defs and lambdas), if any."""
        for anc in self.ancestors(expr):
            if isinstance(anc, cst.FunctionDef) and self.method_class(anc) is cls:
                return anc
        return None

    def _user_container_self(self, func, param: cst.Param) -> bool:
        """Is param the instance a method of a container subclass ([containers] user_containers) is
        called on (its first)?"""
        cls = self.method_class(func) if isinstance(func, cst.FunctionDef) else None
        first = next(iter((*func.params.posonly_params, *func.params.params)), None) if cls is not None else None
        if first is not param:
            return False
        t = self.tables
        return any(self.qualified(b.value) in t.user_containers for member in self.class_mro(cls) for b in member.bases)

    def _user_container_origin(self, cls: cst.ClassDef, depth: int) -> Origin:
        """`self.data` in a subclass of a container class ([containers] user_containers: UserDict): what
        the instances hold, the constructions' first arguments and what is stored into the attribute an
        instance is assigned to (`self.table = CacheTable()`, `self.table.update(kv_caches)`)."""
        t = self.tables
        if not any(
            self.qualified(base.value) in t.user_containers for member in self.class_mro(cls) for base in member.bases
        ):
            return Origin.OTHER
        best = Origin.OTHER
        for call in self.constructor_calls(cls):
            if call.args and not call.args[0].star and call.args[0].keyword is None:
                best = max(best, self.origin(call.args[0].value, depth))
            parent = self.parents.get(call)
            target = parent.targets[0].target if isinstance(parent, cst.Assign) and len(parent.targets) == 1 else None
            holder = self.enclosing_class(parent) if parent is not None else None
            if (
                isinstance(target, cst.Attribute)
                and isinstance(target.value, cst.Name)
                and target.value.value == "self"
                and holder is not None
            ):
                for value in self.instance_attr_values(holder, target.attr.value):
                    if value is not call:
                        best = max(best, self.origin(value, depth))
                # the attribute as its class reads it (a cache attribute filled by `.extend(...)`)
                best = max(best, self.origin(target, depth + 1))
        return best

    def _local_store(self, expr: cst.Attribute) -> Optional[cst.BaseExpression]:
        """The value of `self.x = value`, a statement before this read of self.x in its function that
        every path to the read passes (an enclosing block's earlier statement, no loop between), when no
        statement in between may store self.x again (another store, a call of a method of self or
        super()); None otherwise."""
        attr = expr.attr.value
        func = self.enclosing_function(expr)
        if func is None:
            return None
        index = self.derived.get("self_stores")
        if index is None:
            index = self.derived["self_stores"] = set()
            for target, _ in self.nodes.self_assignments:
                owner = self.enclosing_function(target)
                if owner is not None:
                    index.add((id(owner), target.attr.value))
        if (id(func), attr) not in index:
            return None
        node: cst.CSTNode = expr
        while True:
            parent = self.parents.get(node)
            if parent is None or parent is func:
                return None
            if isinstance(parent, (cst.For, cst.While, cst.Lambda, cst.FunctionDef, cst.ClassDef)) or isinstance(
                parent, (cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)
            ):
                return None
            if isinstance(parent, cst.IndentedBlock):
                body = list(parent.body)
                at = next((i for i, s in enumerate(body) if s is node), None)
                if at is None:
                    return None
                for earlier in reversed(body[:at]):
                    found = self._stores_self_attr(earlier, attr)
                    if found is not False:
                        return found
            node = parent

    def _stores_self_attr(self, statement: cst.CSTNode, attr: str):
        """value when statement is `self.<attr> = value`; None when it may store self.<attr> otherwise
        (a nested or unpacking store, a call of a method of self or super()); False when it cannot."""
        if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1:
            small = statement.body[0]
            if isinstance(small, cst.Assign) and len(small.targets) == 1:
                t = small.targets[0].target
                if (
                    isinstance(t, cst.Attribute)
                    and t.attr.value == attr
                    and isinstance(t.value, cst.Name)
                    and t.value.value == "self"
                ):
                    return small.value
        for node in iter_nodes(statement, (cst.Attribute, cst.Call)):
            if isinstance(node, cst.Attribute):
                if node.attr.value == attr and isinstance(node.value, cst.Name) and node.value.value == "self":
                    parent = self.parents.get(node)
                    if isinstance(parent, (cst.AssignTarget, cst.Element, cst.AugAssign, cst.AnnAssign)):
                        return None
            else:
                f = node.func
                if isinstance(f, cst.Attribute) and (
                    (isinstance(f.value, cst.Name) and f.value.value == "self")
                    or (
                        isinstance(f.value, cst.Call)
                        and isinstance(f.value.func, cst.Name)
                        and f.value.func.value == "super"
                    )
                ):
                    return None
                if isinstance(f, cst.Name) and f.value in ("setattr", "exec"):
                    return None
        return False

    def _instance_attr_origin(self, expr: cst.Attribute, depth: int) -> Origin:
        """`obj.attr` where obj is an instance of a class of this module: where the
        constructions that made obj are known, under their arguments; `super().name`: a property
        of the base classes."""
        value = expr.value
        if isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and value.func.value == "super":
            return self._property_origin(expr, self.enclosing_class(expr), depth) or Origin.OTHER
        owner = (
            self.instance_class(expr.value)
            or self.class_named(expr.value)  # `Arena.lanes`: an attribute of the class, shared by instances
            or self.duck_class(expr.value, expr.attr.value, method=False)
        )
        if owner is None:
            return Origin.OTHER
        frames = self.construction_frames(expr.value)
        guards = self._record_kind_guards(expr.value, owner) if frames and self.is_record(owner) else []
        if guards:  # `if rec.kind == "attn":`: only the constructions spelling a kind that passes
            frames = [(c, env) for c, env in frames if not self._kind_excluded(c, expr.value, guards)] or frames
        if frames and len(frames) <= 8 and self.property_getter(owner, expr.attr.value) is not None:
            # `PagedReader(q, 1).raw`: the property reads the attributes of *that* construction
            found = [
                self._under_construction(c, lambda: self._property_origin(expr, owner, depth), depth, env)
                for c, env in frames
            ]
            return max((f for f in found if f is not None), default=Origin.OTHER)
        prop = self._property_origin(expr, owner, depth)
        if prop is not None:
            return prop
        dynamic = self.dynamic_attribute(expr, owner)
        if dynamic is not None:  # `proxy.planes` of a class defining only `__getattr__`: what it returns
            return self.origin(dynamic, depth)
        if not frames:
            return max(
                (self.origin(v, depth) for v in self.instance_attr_values(owner, expr.attr.value)), default=Origin.OTHER
            )
        best = Origin.OTHER
        for call, env in frames:
            best = max(best, self._attr_under(call, expr.attr.value, depth, env))
        return best

    def _attr_under(self, call: cst.Call, attr: str, depth: int, env: Optional[Dict[int, Origin]] = None) -> Origin:
        """What attr holds on the object `call` constructs: a record's argument for that
        field, or the family's `self.attr = ...` with __init__'s parameters bound to call's
        (env: the parameters of the helper that returned the construction). A copy with fields
        replaced (`rec._replace(k=x)`, `attr.evolve(rec, k=x)`): the keyword's value for a replaced
        field, the original's field for the others."""
        replaced = self.replaced_record(call)
        if replaced is not None:
            original, changes = replaced
            value = changes[attr] if attr in changes else self._attribute(original, attr)
            if not env:
                return self.origin(value, depth)
            saved, saved_returns = self._origin_cache, self._returns_cache
            self._origin_cache, self._returns_cache = {}, {}
            self._bindings.append(env)
            try:
                return self.origin(value, depth)
            finally:
                self._bindings.pop()
                self._origin_cache, self._returns_cache = saved, saved_returns
        cls = self.instance_class(call)
        if self.is_record(cls) and attr in self.record_fields(cls):
            # a field a method reassigns (`self.k = self.k.view(...)` in `__post_init__`) holds that too, and one
            # a store on the record after it is built (`meta = super().build(fb); meta.layers = pool.kv_buffer`)
            later = [v for member in self.class_family(cls) for v in self.self_attr_values(member, attr)]
            stored = max((self.origin(v, depth) for v in self.external_values(cls, attr)), default=Origin.OTHER)
            if not env:
                return max(
                    [stored, *(self.origin(v, depth) for v in (*self._record_arguments(cls, attr, [call]), *later))]
                )
            saved, saved_returns = self._origin_cache, self._returns_cache
            self._origin_cache, self._returns_cache = {}, {}
            self._bindings.append(env)
            try:
                return max([stored, *(self.origin(v, depth) for v in self._record_arguments(cls, attr, [call]))])
            finally:
                self._bindings.pop()
                self._origin_cache, self._returns_cache = saved, saved_returns
        return self._under_construction(
            call,
            lambda: max((self.origin(v, depth) for v in self.instance_attr_values(cls, attr)), default=Origin.OTHER),
            depth,
            env,
        )

    def _cache_attr_origin(self, expr: cst.Attribute, depth: int) -> Origin:
        """A cache attribute: a container of whole caches by its name, unless the class
        allocates it itself, where the allocation's first dimension decides."""
        values: List[cst.BaseExpression] = []
        if isinstance(expr.value, cst.Name) and expr.value.value == "self":
            cls = self.enclosing_class(expr)
            if cls is not None:
                values = [
                    v
                    for v in self.self_attr_values(cls, expr.attr.value)
                    if not (isinstance(v, cst.Name) and v.value == "None")
                ]
        else:
            # `self.draft.kv_buffer`: its class's allocation; a receiver of unknown class: the one class
            # that assigns the attribute (`engine.scales_zeros` of the int8 engine's scales)
            owner = self.instance_class(expr.value)
            if owner is None and not self._read_off_another_object(expr.value):
                owner = self.duck_class(expr.value, expr.attr.value, method=False)
            if owner is not None:
                values = [
                    v
                    for v in self.instance_attr_values(owner, expr.attr.value)
                    if not (isinstance(v, cst.Name) and v.value == "None")
                ]
                if not all(self.allocation_kind(v) == "batch" for v in values):
                    values = []  # only a batch-sized allocation overrides the name
        if not values:
            return Origin.POOL_TUPLE
        best, by_name = Origin.OTHER, False
        for value in values:
            kind = self.allocation_kind(value)
            if kind == "batch":
                continue
            if kind == "pool":
                best = max(best, Origin.POOL)
            elif kind == "layers":
                best = max(best, Origin.POOL_TUPLE)
            elif kind == "unknown":
                by_name = True
            else:
                origin = self.origin(value, depth)
                if origin >= Origin.POOL_TUPLE:
                    best = max(best, origin)
                elif not self._bound_parameter(value):
                    by_name = True  # (a parameter bound by the construction followed says what it holds)
        return max(best, Origin.POOL_TUPLE) if by_name else best

    def _read_off_another_object(self, receiver: cst.BaseExpression) -> bool:
        """Is receiver `self.x` whose every assignment reads it off another object (`self.pool =
        runner.token_to_kv_pool`)? Its class is that object's, not the module's class that happens to
        assign the attribute."""
        if not (isinstance(receiver, cst.Attribute) and isinstance(receiver.value, cst.Name)):
            return False
        if receiver.value.value != "self":
            return False
        cls = self.enclosing_class(receiver)
        values = self.self_attr_values(cls, receiver.attr.value) if cls is not None else []
        return bool(values) and all(isinstance(v, cst.Attribute) for v in values)

    def _bound_parameter(self, expr: cst.BaseExpression) -> bool:
        """Is expr a parameter the calls being followed bind (`SplitView(k, ...)`: its
        `self.kv_buffer = kv_buffer` holds k, whatever the attribute is named)?"""
        if not self._bindings or not isinstance(expr, cst.Name):
            return False
        for assignment in self.reaching(expr):
            node = assignment.node
            param = self.param_of(node)
            if not isinstance(param, cst.Param):
                return False
            if not any(id(param) in bindings for bindings in self._bindings):
                return False
        return True

    def holds_pools(self, expr: cst.BaseExpression) -> bool:
        """Is expr a container of whole pools (Origin.POOL_TUPLE)?"""
        return self.origin(expr) == Origin.POOL_TUPLE

    def _arena_allocation(self, call: cst.Call) -> bool:
        """One layer's pool: an allocation of a pool's size, in a method of a class, made once per
        layer: the element of a comprehension of per-layer arenas, a part of a (k, v) element or
        an argument of a record built per element (`[(torch.empty((num_blocks, ...)), ...) for _ in
        ...]`, `[LayerKV(i, torch.empty((num_blocks, ...)), ...) for i in ...]`), stored into a
        container in a loop, or bound to a name in a loop over the layers (`for _ in
        range(num_layers): k = torch.empty((num_blocks, ...))`)."""
        if (dotted(call.func) or "").rsplit(".", 1)[-1] not in self.tables.allocation_functions:
            return False
        element, parent = self._unwrapped(call)
        if self._instance_arena(call, element, parent):
            return True
        if isinstance(parent, cst.Element):  # a part of a (k, v) pair
            element = self.parents.get(parent)
            parent = self.parents.get(element)
        record = (
            isinstance(parent, cst.Arg)
            and isinstance(self.parents.get(parent), cst.Call)
            and self.constructed_class(self.parents.get(parent)) is not None
        )
        if record:  # an argument of a construction: the record holds it
            element = self.parents.get(parent)
            parent = self.parents.get(element)
        if isinstance(parent, (cst.Assign, cst.Arg)) and self._stored_in_loop(element, parent):
            return self.allocation_kind(call) == "pool" and self._per_layer_arenas(parent, call)
        if (
            isinstance(parent, cst.Arg)
            and element is call
            and isinstance(self.parents.get(parent), cst.Call)
            and self._in_layer_loop(self.parents.get(parent))
            and self.return_targets(self.parents.get(parent))
        ):
            # handed to a def of the module once per layer (`Registry.publish(i, torch.empty((blocks, ...)))`
            # in `for i in range(num_layers)`): one layer's pool, wherever the def puts it
            return self.allocation_kind(call) == "pool" and self._per_layer_arenas(parent, call)
        if (
            isinstance(parent, cst.Assign)
            and element is call
            and len(parent.targets) == 1
            and isinstance(parent.targets[0].target, cst.Name)
        ):
            return self._in_layer_loop(parent) and self._per_layer_arenas(parent, call)
        if not isinstance(parent, (cst.ListComp, cst.GeneratorExp, cst.SetComp, cst.DictComp)):
            return False
        own = parent.value if isinstance(parent, cst.DictComp) else parent.elt
        return own is element and self._per_layer_arenas(parent, call if record else own)

    def _unwrapped(self, value: cst.BaseExpression):
        """(value, its parent) above the identity wrappers that hold it ([callables] identity_wrappers:
        `nn.Parameter(torch.zeros(...))`, `nn.Buffer(...)` are the allocation itself)."""
        parent = self.parents.get(value)
        while isinstance(parent, cst.Arg):
            wrapper = self.parents.get(parent)
            if not isinstance(wrapper, cst.Call) or self.wrapped_value(wrapper) is not value:
                break
            value, parent = wrapper, self.parents.get(wrapper)
        return value, parent

    def _pool_sized(self, call: cst.Call) -> bool:
        """An allocation of a pool's size, or one sized by a shape passed in whole (`torch.empty(shape)`,
        `torch.zeros(cache_shape)`: [allocation] extent_attributes in the name, no batch word) where it
        is made once per layer."""
        kind = self.allocation_kind(call)
        if kind == "pool":
            return True
        if kind != "unknown":
            return False
        size = next((a.value for a in call.args if a.keyword is not None and a.keyword.value == "size"), None)
        size = size or self._first_positional(call.args)
        if not isinstance(size, (cst.Name, cst.Attribute)):
            return False
        t = self.tables
        if (
            isinstance(size, cst.Attribute)
            and size.attr.value in t.extent_attributes
            and isinstance(size.value, cst.Name)
        ):
            bound = self.reaching(size.value)
            if bound and all(isinstance(a.node, cst.Name) for a in bound):
                # `torch.empty_strided(size=weight.shape, ...)` of a tensor the function assigns: that
                # tensor's size, a pool's only when it is one
                return self.origin(size.value) >= Origin.POOL_TUPLE
        parts = name_parts(size.value if isinstance(size, cst.Name) else size.attr.value)
        return bool(parts & t.extent_attributes) and not parts & (t.batch_words | t.window_words)

    def _instance_arena(self, call: cst.Call, element: cst.BaseExpression, parent) -> bool:
        """An allocation a module class stores on self once per layer: in a method that builds the
        object (`[hot_path] run_once`: `self.k = torch.empty((blocks, ...))`,
        `self.register_buffer("k", ...)`) of a class constructed once per layer (`nn.ModuleList(
        CacheSlot(...) for _ in range(n))`, `{n: LayerCache(s) for n in names}`), or set under a
        computed name in a loop over the layers (`setattr(self, f"kv_{i}", nn.Buffer(...))`)."""
        stored = None
        if isinstance(parent, cst.Assign):
            target = parent.targets[0].target if len(parent.targets) == 1 else None
            if (
                isinstance(target, cst.Attribute)
                and isinstance(target.value, cst.Name)
                and target.value.value == "self"
                and parent.value is element
            ):
                stored = parent
        elif isinstance(parent, cst.Arg) and not parent.star and parent.keyword is None:
            setter = self.parents.get(parent)
            if (
                isinstance(setter, cst.Call)
                and self._self_setter(setter)
                and self.self_setter_args(setter).index(parent) >= 1
            ):
                stored = setter
        if stored is None or (isinstance(element, cst.Call) and self.qualified(element) in self.tables.weight_wrappers):
            return False  # `self.weight = nn.Parameter(torch.zeros(hidden_size))`: a weight
        func = self.enclosing_function(stored)
        cls = self.method_class(func) if func is not None else None
        if cls is None or not self._pool_sized(call):
            return False
        if isinstance(stored, cst.Call) and self._in_layer_loop(stored):
            return True
        if func.name.value not in self.tables.run_once_methods:
            return False
        return any(self._per_layer_element(c) for c in self.constructor_calls(cls))

    def _self_setter(self, call: cst.Call) -> bool:
        """`self.register_buffer(name, v)`, `setattr(self, name, v)` ([callables] attribute_setters,
        object_setters)."""
        return self.self_setter_args(call) is not None

    def _per_layer_element(self, made: cst.Call) -> bool:
        """A construction made once per element: the element of a comprehension (or the value of a dict
        comprehension), or stored into a container in a loop."""
        parent = self.parents.get(made)
        if isinstance(parent, (cst.ListComp, cst.GeneratorExp, cst.SetComp, cst.DictComp)):
            if (parent.value if isinstance(parent, cst.DictComp) else parent.elt) is not made:
                return False
            if self._over_layers(parent.for_in.iter):
                return True
            holder = self.parents.get(parent)
            while isinstance(holder, (cst.Arg, cst.List, cst.Element, cst.StarredElement)):
                holder = self.parents.get(holder)  # `nn.ModuleList([Slot(...) for ...])`, `nn.Sequential(*[...])`
            return isinstance(holder, cst.Call) and self.qualified(holder) in self.tables.module_containers
        return (
            isinstance(parent, (cst.Assign, cst.Arg))
            and self._stored_in_loop(made, parent)
            and self._in_layer_loop(parent)
        )

    def _over_layers(self, iterable: cst.BaseExpression) -> bool:
        """Does a loop's iterable name the layers ([allocation] layer_words: `range(num_layers)`)?"""
        return any(name_parts(text) & self.tables.layer_words for text in self._identifiers(iterable))

    def _in_layer_loop(self, statement: cst.CSTNode) -> bool:
        """Is statement in the body of a for loop over the layers, within its function: its iterable
        names them ([allocation] layer_words): `range(num_layers)`, `group.layer_names`, `self.layers`?"""
        for node in self.ancestors(statement):
            if isinstance(node, cst.For):
                if any(name_parts(text) & self.tables.layer_words for text in self._identifiers(node.iter)):
                    return True
            if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
                return False
        return False

    def _stored_in_loop(self, value: cst.BaseExpression, holder) -> bool:
        """`d[k] = value` or `xs.append(value)` in a for loop: one element per iteration."""
        if isinstance(holder, cst.Assign):
            stored = (
                holder.value is value
                and len(holder.targets) == 1
                and isinstance(holder.targets[0].target, cst.Subscript)
            )
        else:
            call = self.parents.get(holder)
            stored = (
                isinstance(call, cst.Call)
                and isinstance(call.func, cst.Attribute)
                and call.func.attr.value in ("append", "insert")
                and call.args[-1] is holder
            )
        if not stored:
            return False
        for node in self.ancestors(holder):
            if isinstance(node, cst.For):
                return True
            if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
                return False
        return False

    def _layer_stacked_allocation(self, call: cst.Call) -> Optional[str]:
        """Every layer's pool in one tensor, allocated in a method of a class: "layers" when the
        first dimension is a layer count and the second a pool's (`torch.empty((num_layers,
        num_blocks, ...))`), "inside" for the other way round (`(num_blocks, num_layers, 2, ...)`,
        TensorRT-LLM's layout); None for any other allocation."""
        if (dotted(call.func) or "").rsplit(".", 1)[-1] not in self.tables.allocation_functions:
            return None
        size = next(
            (a.value for a in call.args if a.keyword is not None and a.keyword.value == "size"),
            self._first_positional(call.args),
        )
        dims = (
            [e.value for e in size.elements if isinstance(e, cst.Element)]
            if isinstance(size, (cst.Tuple, cst.List))
            else [a.value for a in call.args if a.keyword is None]
        )
        if len(dims) < 2:
            return None
        words = []
        for dim in dims[:2]:  # the words written there (the pruner and the text gate read the same)
            parts = set()
            for text in self._identifiers(dim):
                parts |= name_parts(text)
            words.append(parts)
        t = self.tables
        if (words[0] | words[1]) & t.batch_words:
            return None
        if words[0] & t.layer_words and words[1] & t.pool_words:
            kind = "layers"
        elif words[0] & t.pool_words and words[1] & t.layer_words and not words[0] & t.layer_words:
            kind = "inside"
        else:
            return None
        func = self.enclosing_function(call)
        return kind if func is not None and self.method_class(func) is not None else None

    def _per_layer_arenas(self, comp, element: cst.BaseExpression) -> bool:
        """A comprehension in a method of a class that allocates one token-sized tensor per
        element (`[torch.zeros((size + 1, h, d)) for _ in range(layer_num)]`): a pool's
        per-layer arenas (the allocation's first dimension decides, as for cache attributes)."""
        parts = (
            [e.value for e in element.elements if isinstance(e, cst.Element)]
            if isinstance(element, (cst.Tuple, cst.List))
            else [element]
        )  # a (k, v) pair per layer
        if not parts:
            return False  # `{r: [] for r in ratios}`: empty lists, filled later
        for part in parts:
            while isinstance(part, cst.Call) and part.args and self.wrapped_value(part) is part.args[0].value:
                part = part.args[0].value  # `nn.Parameter(torch.zeros(shape))`: the allocation
            if (
                not isinstance(part, cst.Call)
                or (dotted(part.func) or "").rsplit(".", 1)[-1] not in self.tables.allocation_functions
                or not self._pool_sized(part)
            ):
                return False
        func = self.enclosing_function(comp)
        return func is not None and self.method_class(func) is not None

    def allocation_kind(self, value: cst.BaseExpression) -> Optional[str]:
        """For a buffer allocation (`torch.zeros((max_bs, 576))`, a per-layer list of them):
        'batch', 'pool', 'layers' (one per layer) or 'unknown' by its first dimension;
        None when value is no allocation."""
        if isinstance(value, (cst.ListComp, cst.GeneratorExp)):
            kind = self.allocation_kind(value.elt)
            return None if kind is None else ("batch" if kind == "batch" else "layers")
        if isinstance(value, (cst.List, cst.Tuple)):
            kinds = [self.allocation_kind(e.value) for e in value.elements if isinstance(e, cst.Element)]
            kinds = [k for k in kinds if k is not None]
            if not kinds:
                return None
            return "batch" if all(k == "batch" for k in kinds) else "layers"
        if not isinstance(value, cst.Call):
            return None
        name = (dotted(value.func) or "").rsplit(".", 1)[-1]
        if name not in self.tables.allocation_functions:
            return None
        first = self._first_positional(value.args)
        if name.endswith("_like"):
            return "pool" if first is not None and self.origin(first) >= Origin.POOL_TUPLE else "batch"
        size = next((a.value for a in value.args if a.keyword is not None and a.keyword.value == "size"), first)
        if self._one_axis(value, size):
            return "batch"  # `torch.ones(shape[2])`: one number per head (or block), scales, not KV
        size = self._bound_shape(size)  # `shape = (blocks, bs, heads, 2)`; `torch.ones(shape)`
        dims = (
            [e.value for e in size.elements if isinstance(e, cst.Element)]
            if isinstance(size, (cst.Tuple, cst.List))
            else [a.value for a in value.args if a.keyword is None and not a.star]
        )
        if isinstance(size, (cst.Tuple, cst.List)) and not dims:
            return "batch"  # `torch.ones(())`: a 0-dim tensor, a scale, no slots
        if dims and all(isinstance(d, cst.Integer) for d in dims):
            return "batch"  # a fixed shape (`(16, 4)`): per-request state, no pool sized at run time
        if (
            len(dims) >= 2
            and isinstance(dims[-1], cst.Integer)
            and dims[-1].evaluated_value in self.tables.scalar_last_dims
        ):
            return "batch"  # `(size + 1, 1)`, `(blocks, block_size, heads, 2)`: scales or zeros, not KV
        if isinstance(size, (cst.Tuple, cst.List)):
            elements = [e.value for e in size.elements if isinstance(e, cst.Element)]
            # leading fixed axes (vLLM's K/V axis: `(2, num_blocks, ...)`): the first sized one decides
            named = [d for d in elements if not isinstance(d, cst.Integer)]
            size = named[0] if named else None
        if size is None:
            return "unknown"
        parts = set()
        for text in self._identifiers(size, resolve=True):
            parts |= name_parts(text)
        t = self.tables
        if parts & t.batch_words:
            return "batch"
        if parts & t.layer_words:
            return "layers"
        if parts & t.pool_words:
            return "pool"
        return "unknown"

    def _one_axis(self, call: cst.Call, size: Optional[cst.BaseExpression]) -> bool:
        """A one-dimensional allocation sized by one axis picked from a shape by a constant position:
        `torch.ones(shape[2])` of a shape display bound to a name (`shape = (blocks, bs, heads, d)`),
        `torch.zeros(k.shape[0])` ([accessors] extent_attributes), `torch.empty(k.size(1))`
        ([accessors] extent_methods with a position). One number per block, token or head: a
        scale or zero, never a pool (which spans every axis of its shape)."""
        positional = [a for a in call.args if a.keyword is None]
        if any(a.star for a in call.args) or len(positional) > 1 or not isinstance(size, (cst.Subscript, cst.Call)):
            return False
        if isinstance(size, cst.Call):  # `k.size(1)`
            func = size.func
            return (
                isinstance(func, cst.Attribute)
                and func.attr.value in self.tables.extent_methods
                and len(size.args) == 1
                and self._int_constant(size.args[0].value) is not None
            )
        if len(size.slice) != 1 or not isinstance(size.slice[0].slice, cst.Index):
            return False
        index = size.slice[0].slice.value
        if isinstance(index, cst.UnaryOperation) and isinstance(index.operator, cst.Minus):
            index = index.expression
        if not isinstance(index, cst.Integer):
            return False
        holder = size.value
        if isinstance(holder, cst.Attribute) and holder.attr.value in self.tables.extent_attributes:
            return True
        shape = self._bound_shape(holder) if isinstance(holder, cst.Name) else None
        if not isinstance(shape, (cst.Tuple, cst.List)):
            return False
        elements = [e.value for e in shape.elements if isinstance(e, cst.Element)]
        return len(elements) >= 2 and not any(isinstance(e, (cst.Tuple, cst.List)) for e in elements)

    def _bound_shape(self, size: Optional[cst.BaseExpression]) -> Optional[cst.BaseExpression]:
        """The tuple or list display a local name holds when it is bound to one only (a shape
        written once and passed to an allocation by name); else size itself."""
        if not isinstance(size, cst.Name):
            return size
        values = []
        for assignment in self.reaching(size):
            if not isinstance(assignment.node, cst.Name):
                return size
            kind, value, path = self.binding(assignment.node)
            if kind != "assign" or path or not isinstance(value, (cst.Tuple, cst.List)):
                return size
            values.append(value)
        return values[0] if len(values) == 1 else size

    def allocated_dtype(self, expr: cst.BaseExpression, depth: int = 0) -> Optional[str]:
        """The dtype a buffer was allocated with (`torch.empty_like(x, dtype=d)`), through
        names and `self.` attributes; None when not allocated here with a dtype."""
        found = self.allocated_dtype_expr(expr, depth)
        return self.code(found) if found is not None else None

    def allocated_dtype_expr(self, expr: cst.BaseExpression, depth: int = 0) -> Optional[cst.BaseExpression]:
        """The `dtype=` expression of allocated_dtype."""
        if depth > 4:
            return None
        if isinstance(expr, cst.Call):
            name = (dotted(expr.func) or "").rsplit(".", 1)[-1]
            if name in self.tables.allocation_functions:
                for arg in expr.args:
                    if arg.keyword is not None and arg.keyword.value == "dtype":
                        return arg.value
            return None
        values: List[cst.BaseExpression] = []
        if isinstance(expr, cst.Name):
            for assignment in self.reaching(expr):
                if isinstance(assignment.node, cst.Name):
                    kind, value, path = self.binding(assignment.node)
                    if kind == "assign" and not path:
                        values.append(value)
        elif isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name) and expr.value.value == "self":
            cls = self.enclosing_class(expr)
            values = self.self_attr_values(cls, expr.attr.value) if cls is not None else []
        elif isinstance(expr, cst.Attribute):  # `self.mgr.stage`: what the other object's class allocates
            owner = self.instance_class(expr.value)
            values = self.instance_attr_values(owner, expr.attr.value) if owner is not None else []
        elif isinstance(expr, cst.Subscript):
            return self.allocated_dtype_expr(expr.value, depth + 1)
        for value in values:
            found = self.allocated_dtype_expr(value, depth + 1)
            if found is not None:
                return found
        return None

    def _identifiers(self, expr: cst.BaseExpression, resolve: bool = False) -> List[str]:
        """Names and attribute names in expr; with resolve, also those of the values
        its local names are assigned (one level: `m = self.size + page`)."""
        out, read = [], set()
        for node in iter_nodes(expr, (cst.Name, cst.Attribute)):
            if id(node) in read:
                continue
            if isinstance(node, cst.Attribute):
                fields = self._record_field_bound(node) if resolve else []
                if fields:  # a record's field: the names of what it was built with, not of the record
                    read.update(id(n) for n in iter_nodes(node.value, (cst.Name, cst.Attribute)))
                    for value in fields:
                        out.extend(self._identifiers(value))
                out.append(node.attr.value)
                continue
            out.append(node.value)
            if resolve:
                for assignment in self.reaching(node):
                    if isinstance(assignment.node, cst.Name):
                        kind, value, path = self.binding(assignment.node)
                        if kind == "assign" and not path:
                            out.extend(self._identifiers(value))
        return out
