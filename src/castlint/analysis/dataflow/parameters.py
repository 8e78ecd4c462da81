"""What a parameter is given: the arguments of its call sites (`self.m(...)`, `f(...)`, `map(f, xs)`,
`super()` calls, `*args`) and engines' calling conventions."""

from __future__ import annotations

from typing import Dict, List, Sequence, Tuple

import libcst as cst

from castlint.analysis.origin import Origin
from castlint.analysis.tree import dotted, iter_nodes


class Parameters:
    def _param_origin(self, param: cst.Param, depth: int) -> Origin:
        for bindings in reversed(self._bindings):
            if id(param) in bindings:
                return bindings[id(param)]
        owner = self._param_owner(param)
        if owner is None:
            return Origin.OTHER
        best = Origin.OTHER
        if isinstance(owner, cst.FunctionDef):
            best = self._convention_origin(owner, param)
            if best == Origin.POOL:
                return best
            cls = self.method_class(owner)
            if cls is not None:
                best = max(best, self._method_param_origin(owner, cls, param, depth))
                if self._user_container_self(owner, param):  # `self[i]` of a UserList subclass: what it holds
                    best = max(best, self._user_container_origin(cls, depth))
        name = param.name.value
        calls = [(call, False) for call in self._calls_by_name().get(id(owner), ())]
        calls += [(call, True) for call in self._object_calls(owner) + self.super_calls(owner)]
        calls += [(call, False) for call in self._explicit_self_calls(owner)]  # `Base.m(self, kv)`
        calls += [(call, False) for call in self.unwrapped_calls(owner)]  # `type(self).m.__wrapped__(self, kv)`
        calls += [(call, True) for call in self.store_calls(owner)]  # `obj.k = kv` runs k's setter, __setattr__
        calls += [(call, skip) for call, skip, _ in self.value_callers().get(id(owner), ())]  # a hook, a visitor
        omitted = not calls and not self._mapped_calls().get(id(owner)) and not self._star_mapped_calls().get(id(owner))
        for call, skip in calls:
            argument = self._argument_for(call, owner, param, skip_self=skip)
            omitted = omitted or argument is None
            if argument is not None:
                best = max(best, self.origin(argument, depth))
        if omitted and param.default is not None:  # `lambda b=mgr.get_buffers(i): ...` called as `fns[i]()`
            best = max(best, self.origin(param.default, depth + 1))
        if isinstance(owner, cst.FunctionDef) and param is owner.params.star_arg:
            best = max(best, self._star_param_origin(owner, depth))
        if best == Origin.OTHER and name in self.tables.cache_parameter_names and not self._has_callers(owner):
            best = Origin.POOL_TUPLE  # `def bind(cls, gpu_cache)` the engine calls: its caches, by the name
        position = self._positional_params(owner, skip_self=False)
        if name in position:
            index = position.index(name)
            for call, first in self._mapped_calls().get(id(owner), ()):
                fold = self.fold_form(call) if self.applier(call) == "fold" else None
                shown = fold if fold is not None else call  # `accumulate(xs, f, initial=x)`: reduce's order
                iterables = [a.value for a in shown.args[first:] if a.keyword is None and not a.star]
                if fold is not None:
                    # reduce(f, xs, init): f(accumulated, element); the accumulated value is init, then
                    # what f returned (the fold's own value)
                    if index == 0:
                        best = max(best, self.origin(call, depth))
                        if len(iterables) > 1:
                            best = max(best, self.origin(iterables[1], depth))
                    elif index == 1 and iterables:
                        best = max(best, self._iterated(iterables[0], (), depth))
                    continue
                if index < len(iterables):
                    best = max(best, self._iterated(iterables[index], (), depth))
            for call, shift in self._star_mapped_calls().get(id(owner), ()):
                # starmap(f, rows): f(*row), so a parameter is one position of a row (`d.items()`: key, value)
                if index >= shift:
                    best = max(best, self._iterated(call.args[1].value, (index - shift,), depth))
        return best

    def store_calls(self, func) -> List[cst.Call]:
        """The stores `obj.attr = v` that run func (rules/accessors.toml [callables]): a property setter
        (`@attr.setter`, `@Base.attr.setter`) that obj's class's MRO resolves attr to, as the call
        `obj.attr(v)`; a `__setattr__` (attribute_store_hooks) of obj's class, as `obj.__setattr__("attr", v)`.
        Nodes of this module's parent map, made once a store; [] for any other def."""
        t = self.tables
        if not isinstance(func, cst.FunctionDef) or not (t.property_setter_decorators or t.attribute_store_hooks):
            return []
        hook = func.name.value in t.attribute_store_hooks
        cls = self.method_class(func)
        if cls is not None and func.name.value in t.descriptor_store_hooks:
            return self._descriptor_store_calls(func, cls)
        if not hook and not self._setter_property(func):
            return []
        if cls is None:
            return []
        memo = self.__dict__.setdefault("_store_calls_memo", {})
        if id(func) in memo:
            return memo[id(func)]
        memo[id(func)] = []  # (while deciding: a store whose receiver's class asks again)
        made = self.__dict__.setdefault("_store_call_nodes", {})
        out = []
        for target, value in self.nodes.attribute_stores:
            attr = target.attr.value
            if not hook and attr != func.name.value:
                continue
            # the classes its constructions make (`self.ws = Plain() if c else Bf16()`), else its one class
            owners = self.exact_classes(target.value) or [self.instance_class(target.value)]
            if not any(
                owner is not None
                and cls in self.class_mro(owner)
                and (self.find_method(owner, func.name.value) if hook else self.setter_for(owner, attr)) is func
                for owner in owners
            ):
                continue
            key = (id(target), hook)
            if key not in made:
                args = [cst.Arg(cst.SimpleString(repr(attr))), cst.Arg(value)] if hook else [cst.Arg(value)]
                called = cst.Name(func.name.value if hook else attr)
                node = cst.Call(func=cst.Attribute(target.value, called), args=args)
                self.parents.setdefault(node, self.parents.get(target))
                made[key] = node
            out.append(made[key])
        memo[id(func)] = out
        return out

    def _descriptor_store_calls(self, func: cst.FunctionDef, cls: cst.ClassDef) -> List[cst.Call]:
        """`obj.attr = v` where attr is a class-body instance of cls in obj's class's MRO: `obj.__set__(obj, v)`
        (skip_self: obj and v fill `__set__(self, obj, value)`'s obj and value)."""
        memo = self.__dict__.setdefault("_descriptor_store_memo", {})
        if id(func) in memo:
            return memo[id(func)]
        memo[id(func)] = out = []
        owners = self.descriptor_owners(cls)
        if not owners:
            return out
        for target, value in self.nodes.attribute_stores:
            attr = target.attr.value
            classes = self.exact_classes(target.value) or [self.instance_class(target.value)]
            if not any(
                c is not None
                and any(
                    any(
                        isinstance(v, cst.Call) and self.constructed_class(v) is cls
                        for v in self.class_body_values(m, attr)
                    )
                    for m in self.c3_mro(c)
                )
                for c in classes
            ):
                continue
            node = cst.Call(
                func=cst.Attribute(target.value, cst.Name(func.name.value)),
                args=[cst.Arg(target.value), cst.Arg(value)],
            )
            self.parents.setdefault(node, self.parents.get(target))
            out.append(node)
        return out

    def _setter_property(self, func: cst.FunctionDef) -> bool:
        """Is func decorated as a property's setter (`@x.setter`, `@Base.x.setter`: property_setter_decorators)?"""
        return any(
            isinstance(d.decorator, cst.Attribute) and d.decorator.attr.value in self.tables.property_setter_decorators
            for d in func.decorators
        )

    def setter_for(self, cls: cst.ClassDef, attr: str):
        """The setter def a store of attr on an instance of cls runs: the first class of its MRO that defines
        attr decides (its last setter-decorated def of that name; None where it defines attr otherwise)."""
        for member in self.c3_mro(cls):
            defs = [s for s in member.body.body if isinstance(s, cst.FunctionDef) and s.name.value == attr]
            if defs:
                setters = [d for d in defs if self._setter_property(d)]
                return setters[-1] if setters else None
        return None

    def _has_callers(self, owner) -> bool:
        """Does a visible call (by name, `self.m(...)`, on an object, `super()`) reach owner?"""
        if (
            self._calls_by_name().get(id(owner))
            or self._object_calls(owner)
            or self.super_calls(owner)
            or self._explicit_self_calls(owner)
            or self.unwrapped_calls(owner)
        ):
            return True
        cls = self.method_class(owner) if isinstance(owner, cst.FunctionDef) else None
        if cls is None:
            return False
        for member in self.class_family(cls):
            self._index_class(member)
            if self._method_calls.get((id(member), owner.name.value)):
                return True
        return False

    def _object_calls(self, func) -> List[cst.Call]:
        """Calls that reach method func from outside its class: `C(...)` for __init__, and
        `obj.m(...)` on an instance of its class (self.m(...) is _method_param_origin's)."""
        if not isinstance(func, cst.FunctionDef):
            return []
        cls = self.method_class(func)
        if cls is None:
            return []
        if func.name.value == "__init__":
            return self.constructor_calls(cls)
        out = []
        # `Cls.m(...)` (and `Sub.m(...)`, `cls.m(...)`) of a class or static method: the call binds
        # no instance, the class (or nothing) fills the first parameter, as self is filled
        through_class = self.class_bound(func)
        generic = self._generic_names(func)  # an overload of a singledispatchmethod: the generic's calls
        for call in [c for n in [func.name.value, *generic] for c in self._calls_by_attribute().get(n, ())]:
            if generic and self._dispatched_elsewhere(call, func, True):
                continue
            f = call.func
            if not (isinstance(f.value, cst.Name) and f.value.value == "self"):
                # an object of unknown class: the one class of the module defining the method
                # (`attn.bind_cache(k, v)` for attn of `model.attns`), as _callers_of reads it
                owner = self.instance_class(f.value) or self.duck_class(f.value, f.attr.value, method=True)
                if owner is None and through_class:  # `Registry.publish(i, buf)`: cls is bound
                    owner = self.class_named(f.value)
                if owner is None and through_class and self._class_valued(f.value):
                    # `self.layout.dense(kv)` of `layout = Bf16Layout` (a class held in an attribute, or a
                    # computed one): the class or static method the first of those classes resolving m runs
                    owner = next(
                        (c for c in self.computed_classes(f.value) if self.find_method(c, f.attr.value) is func),
                        None,
                    )
                found = self.find_method(owner, f.attr.value) if owner is not None else None
                if owner is not None and (
                    found is func
                    or (f.attr.value in generic and found is not None and self.method_class(found) is cls)
                    or self._constructed_override(f.value, owner, cls)
                ):
                    out.append(call)
        return out

    def _calls_by_attribute(self) -> dict:
        """The module's calls `x.m(...)` by the name m, in source order: once a module."""
        index = self.__dict__.get("_calls_by_attr_name")
        if index is None:
            index = self.__dict__["_calls_by_attr_name"] = {}
            for call in self.nodes.calls:
                if isinstance(call.func, cst.Attribute):
                    index.setdefault(call.func.attr.value, []).append(call)
        return index

    def _constructed_override(self, receiver: cst.BaseExpression, owner: cst.ClassDef, cls: cst.ClassDef) -> bool:
        """Does `receiver.m(...)` run cls's override of m: receiver is known as an instance of owner (a
        base of cls), and cls is one of the classes its constructions make (`self.read = Widen() if c
        else Plain()`)?"""
        if cls is owner or owner not in self.class_mro(cls):
            return False
        exact = self.exact_classes(receiver)
        return exact is not None and cls in exact

    def unwrapped_calls(self, func) -> List[cst.Call]:
        """`f.__wrapped__(...)` ([callables] unwrapped_attributes) calls that run def func itself."""
        if not isinstance(func, cst.FunctionDef) or not func.decorators:
            return []
        index = self._calls_by_attribute()
        return [
            call
            for attr in self.tables.unwrapped_attributes
            for call in index.get(attr, ())
            if any(t is func for t, _, _ in self.return_targets(call))
        ]

    def _explicit_self_calls(self, func) -> List[cst.Call]:
        """`Base.m(self, ...)` (`type(self).m(obj, ...)`) of an instance method m: called through a
        class, so the instance is the first argument (return_targets binds it so)."""
        if not isinstance(func, cst.FunctionDef) or self.class_bound(func):
            return []
        cls = self.method_class(func)
        if cls is None:
            return []
        out = []
        for call in self._calls_by_attribute().get(func.name.value, ()):
            if not call.args:
                continue  # the instance is the first argument
            f = call.func
            owner = self.class_named(f.value)
            if owner is not None and (
                self.find_method(owner, f.attr.value) is func or self._constructed_override(f.value, owner, cls)
            ):
                out.append(call)
        return out

    def _constructed_override(self, receiver: cst.BaseExpression, owner: cst.ClassDef, cls: cst.ClassDef) -> bool:
        """Does `receiver.m(...)` run cls's override of m: receiver is known as an instance of owner (a
        base of cls), and cls is one of the classes its constructions make (`self.read = Widen() if c
        else Plain()`)?"""
        if cls is owner or owner not in self.class_mro(cls):
            return False
        exact = self.exact_classes(receiver)
        return exact is not None and cls in exact

    def super_calls(self, func) -> List[cst.Call]:
        """The `super().m(...)` calls of subclasses that reach method func (`super().__init__(**kw)`)."""
        index = self.__dict__.get("_super_call_index")
        if index is None:
            index = {}
            for call in self.nodes.calls:
                f = call.func
                if (
                    isinstance(f, cst.Attribute)
                    and isinstance(f.value, cst.Call)
                    and isinstance(f.value.func, cst.Name)
                    and f.value.func.value == "super"
                ):
                    cls = self.super_start(call)
                    for target in self._super_targets(cls, f.attr.value, False) if cls is not None else ():
                        index.setdefault(id(target), []).append(call)
            self._super_call_index = index
        return list(index.get(id(func), ()))

    def _star_param_origin(self, func: cst.FunctionDef, depth: int) -> Origin:
        """`*args`: a tuple of what the calls pass beyond the named positions (and unpack)."""
        cls = self.method_class(func)
        skip = cls is not None
        calls = list(self._calls_by_name().get(id(func), ())) + self._object_calls(func) + self.super_calls(func)
        if cls is not None:
            self._index_class(cls)
            calls += self._method_calls.get((id(cls), func.name.value), [])
        named = len(self._positional_params(func, skip))
        best = Origin.OTHER
        for call in calls:
            positional = [a for a in call.args if a.keyword is None]
            for i, arg in enumerate(positional):
                origin = self.origin(arg.value, depth)
                if arg.star == "*":
                    best = max(best, origin)
                elif i >= named and origin >= Origin.PREFIX:
                    best = max(best, Origin.POOL_TUPLE)
        return best

    def _param_owner(self, param: cst.Param):
        for anc in self.ancestors(param):
            if isinstance(anc, (cst.FunctionDef, cst.Lambda)):
                return anc
        return None

    def _convention_origin(self, func: cst.FunctionDef, param: cst.Param) -> Origin:
        """Engines' calling conventions (rules/conventions.toml): this parameter of this
        method receives a whole per-layer cache from a caller outside the file."""
        rows = self.tables.cache_parameters
        if not rows:
            return Origin.OTHER
        name, method = param.name.value, func.name.value
        params = None
        best = Origin.OTHER
        for row in rows:
            if name not in row.params or method not in row.methods or row.beside:
                continue
            if params is None:
                p = func.params
                params = {x.name.value for x in (*p.posonly_params, *p.params, *p.kwonly_params)}
            if all(required in params for required in row.requires):
                best = max(best, Origin.POOL_TUPLE if row.returns == "tuple" else Origin.POOL)
        return best

    def _kwargs_convention_origin(self, sub: cst.Subscript) -> Origin:
        """`kwargs["past_key_values"]` (and `kwargs.get(...)`, `kwargs.pop(...)`, read as that subscript) of
        a function's `**kwargs`: the engine's calling convention (rules/conventions.toml) for that keyword,
        as if the function named it (`def forward(self, **kwargs)` of a CUDA-graph runner the engine calls as
        the model). The convention's other parameters may ride in the same `**kwargs`."""
        if len(sub.slice) != 1 or not isinstance(sub.slice[0].slice, cst.Index):
            return Origin.OTHER
        rows = self.kwargs_convention_rows(sub.value, sub.slice[0].slice.value)
        return max((Origin.POOL_TUPLE if row.returns == "tuple" else Origin.POOL for row in rows), default=Origin.OTHER)

    def kwargs_convention_rows(self, holder: cst.BaseExpression, key: cst.BaseExpression) -> list:
        """The rules/conventions.toml rows that make `holder[key]` a whole cache: holder a function's
        `**kwargs`, key a constant keyword the function does not name, a parameter of a row for the function."""
        rows = self.tables.cache_parameters
        if not rows or not isinstance(holder, cst.Name):
            return []
        word = self.constant_string(key)
        if word is None or not any(word in row.params for row in rows):
            return []
        out = []
        for assignment in self.reaching(holder):
            node = assignment.node
            param = self.param_of(node)
            if not isinstance(param, cst.Param):
                continue
            func = self._param_owner(param)
            if not isinstance(func, cst.FunctionDef) or func.params.star_kwarg is not param:
                continue
            p = func.params
            named = {x.name.value for x in (*p.posonly_params, *p.params, *p.kwonly_params)}
            if word in named:
                continue  # a keyword the signature names never reaches **kwargs
            read = None
            for row in rows:
                if word not in row.params or func.name.value not in row.methods:
                    continue
                if row.beside and not self._kwargs_read_beside(func, row.beside, word):
                    continue
                if any(r not in named for r in row.requires):
                    # the convention's other parameters read from the same **kwargs (`kwargs["attn_metadata"]`)
                    read = self._kwargs_keys_read(func, param.name.value) if read is None else read
                    if not all(r in named or r in read for r in row.requires):
                        continue
                out.append(row)
        return out

    def _kwargs_read_beside(self, func: cst.FunctionDef, methods: tuple, word: str) -> bool:
        """Does func's class (or a base) define one of methods (a conventions.toml row's `beside`) that reads
        keyword word from its own `**kwargs` too (`capture(self, **kwargs)` beside `forward(self, **kwargs)`
        of a CUDA-graph runner, each reading `kwargs["past_key_values"]`)?"""
        cls = self.method_class(func)
        if cls is None:
            return False
        for name in methods:
            other = self.find_method(cls, name)
            if not isinstance(other, cst.FunctionDef) or other is func:
                continue
            star = other.params.star_kwarg
            if isinstance(star, cst.Param) and word in self._kwargs_keys_read(other, star.name.value):
                return True
        return False

    def _kwargs_keys_read(self, func: cst.FunctionDef, name: str) -> frozenset:
        """The constant keys func reads from its `**name` (`name["k"]`, `name.get("k")`, `name.pop("k")`)."""
        memo = self.__dict__.setdefault("_kwargs_keys_memo", {})
        found = memo.get(id(func))
        if found is None:
            keys = set()
            take = self.tables.take_methods
            for node in [*iter_nodes(func, cst.Subscript), *iter_nodes(func, cst.Call)]:
                if isinstance(node, cst.Subscript):
                    if isinstance(node.value, cst.Name) and node.value.value == name and len(node.slice) == 1:
                        inner = node.slice[0].slice
                        key = self.constant_string(inner.value) if isinstance(inner, cst.Index) else None
                        keys.add(key)
                elif (
                    isinstance(node.func, cst.Attribute)
                    and isinstance(node.func.value, cst.Name)
                    and node.func.value.value == name
                    and node.func.attr.value in take
                    and node.args
                ):
                    keys.add(self.constant_string(node.args[0].value))
            found = memo[id(func)] = frozenset(k for k in keys if k is not None)
        return found

    def cache_parameter(self, func: cst.FunctionDef, name: str):
        """The rules/conventions.toml row that makes parameter `name` of func a whole cache."""
        for row in self.tables.cache_parameters:
            if name in row.params and func.name.value in row.methods and not row.beside:
                p = func.params
                params = {x.name.value for x in (*p.posonly_params, *p.params, *p.kwonly_params)}
                if all(required in params for required in row.requires):
                    return row
        return None

    def _method_param_origin(self, func: cst.FunctionDef, cls: cst.ClassDef, param: cst.Param, depth) -> Origin:
        """The arguments every `self.method(...)` call in the class passes."""
        self._index_class(cls)
        best = Origin.OTHER
        names = [func.name.value] + self._generic_names(func)  # an overload of a singledispatchmethod too
        for call in [c for name in names for c in self._method_calls.get((id(cls), name), [])]:
            argument = self._argument_for(call, func, param, skip_self=True)
            if argument is not None:
                best = max(best, self.origin(argument, depth))
        for base in self.class_mro(cls)[1:]:
            # a base's template method calls `self.m(...)` on an instance of cls: its arguments, read
            # with self a cls (the base's `self.fetch(meta)` is cls's own fetch where it overrides it)
            self._index_class(base)
            for call in self._method_calls.get((id(base), func.name.value), []):
                argument = self._argument_for(call, func, param, skip_self=True)
                if argument is not None:
                    best = max(best, self.as_instance_of(cls, lambda a=argument: self.origin(a, depth)))
        for sub, member in self._mixin_callers(cls, func):
            # a mixin's method that a subclass's MRO runs for `self.m(...)` in another base of it
            # (`class Impl(UpcastReader, GatherReader, Base)`: Base.forward's `self._read_kv(kv_cache)`)
            for call in self._method_calls.get((id(member), func.name.value), []):
                argument = self._argument_for(call, func, param, skip_self=True)
                if argument is not None:
                    best = max(best, self.as_instance_of(sub, lambda a=argument: self.origin(a, depth)))
        return best

    def _mixin_callers(self, cls: cst.ClassDef, func: cst.FunctionDef) -> List[Tuple[cst.ClassDef, cst.ClassDef]]:
        """(subclass of cls whose C3 MRO resolves func's name to func, a class of that MRO outside cls's own
        MRO): the classes whose `self.<name>(...)` calls run func on instances of that subclass."""
        out = []
        own = self.class_mro(cls)
        for sub in self.class_family(cls):
            if sub is cls or cls not in self.class_mro(sub):
                continue
            order = self.c3_mro(sub)
            runs = next((m for m in order if func.name.value in self.class_methods(m)), None)
            if runs is not cls or self.class_methods(cls).get(func.name.value) is not func:
                continue
            for member in order:
                if member not in own:
                    self._index_class(member)
                    out.append((sub, member))
        return out

    @staticmethod
    def _positional_params(owner, skip_self: bool) -> List[str]:
        params = owner.params
        names = [p.name.value for p in (*params.posonly_params, *params.params)]
        if skip_self and names and names[0] in ("self", "cls"):
            names = names[1:]
        return names

    def spread_args(self, args) -> Sequence[cst.Arg]:
        """args with `*x` and `**x` spread where the file shows what x holds (a tuple or list
        display, through names, attributes and helper returns; a dict display or the keywords
        the visible calls pass into a `**kwargs`): the values are the module's own nodes. args
        itself when nothing is starred or nothing is known."""
        if not any(a.star for a in args):
            return args
        cache = self.__dict__.setdefault("_spread_cache", {})
        key = tuple(id(a) for a in args)
        if key in cache and not self._frames:
            return cache[key]
        out: List[cst.Arg] = []
        changed = False
        for arg in args:
            if arg.star == "*" and self._star_frame(arg.value) is None:
                values = self._starred_values(arg.value)
                if values:
                    out.extend(cst.Arg(value=v) for v in values)
                    changed = True
                    continue
            elif arg.star == "**":
                held = self._double_starred_values(arg.value)
                if held and not self._open_kwargs(arg.value):
                    out.extend(cst.Arg(value=v, keyword=cst.Name(k)) for k, v in held.items())
                    changed = True
                    continue
            out.append(arg)
        result = tuple(out) if changed else args
        if not self._frames:
            cache[key] = result
        return result

    def _spread_element(self, call: cst.Call, spread: cst.BaseExpression, offset: int):
        """`f(*x)` where nothing shows x's elements (spread_args, _star_param_arguments found none): the
        parameter at offset past the spread's start is `x[offset]` (a node of this module's parent map), when
        x is a name, attribute or subscript whose origin is a tuple of whole caches (an entry, the layers);
        None otherwise."""
        if not isinstance(spread, (cst.Name, cst.Attribute, cst.Subscript)):
            return None
        cache = self.__dict__.setdefault("_spread_elements", {})
        key = (id(call), id(spread), offset)
        if key not in cache:
            node = cst.Subscript(spread, [cst.SubscriptElement(cst.Index(cst.Integer(str(offset))))])
            self.parents.setdefault(node, self.parents.get(spread))
            cache[key] = node if self.origin(spread, 1) == Origin.POOL_TUPLE else None
        return cache[key]

    def _open_kwargs(self, expr: cst.BaseExpression) -> bool:
        """Is expr a `**kwargs` parameter (its keys are what the callers pass: not every key
        is known, so it is not spread for good; _argument_for reads it key by key)?"""
        return any(isinstance(h, cst.Param) for h in self._held_values(expr))

    def _argument_for(self, call: cst.Call, owner, param: cst.Param, skip_self: bool):
        """The expression call passes for param (positional or keyword), or None."""
        name = param.name.value
        positional = self._positional_params(owner, skip_self)
        index, unpacked = 0, False
        for arg in self.spread_args(call.args):
            if arg.keyword is not None:
                if arg.keyword.value == name:
                    return arg.value
                continue
            if arg.star == "**" and isinstance(arg.value, cst.Dict):  # f(**{"name": value})
                for element in arg.value.elements:
                    if (
                        isinstance(element, cst.DictElement)
                        and isinstance(element.key, cst.SimpleString)
                        and element.key.evaluated_value == name
                    ):
                        return element.value
                continue
            if arg.star == "**" and isinstance(arg.value, (cst.Name, cst.Attribute, cst.Call, cst.BinaryOperation)):
                # f(**kw) of kw = {"name": value}, f(**dict(name=value)), f(**(base | extra))
                held = self._double_starred_values(arg.value).get(name)
                if held is not None:
                    return held
                # f(**kwargs) of a `**kwargs` parameter: what its own callers pass as name=
                values = [
                    v
                    for holder in self._held_values(arg.value)
                    if isinstance(holder, cst.Param)
                    for v in self._keyword_arguments(holder, name)
                ]
                if values:
                    return self.either(values, call)
                continue
            if arg.star == "*" and not unpacked and name in positional and positional.index(name) >= index:
                # f(*args) of a `*args` parameter: what its own callers pass at that position
                values = self._star_param_arguments(arg.value, positional.index(name) - index)
                if values:
                    return self.either(values, call)
                spread = self._spread_element(call, arg.value, positional.index(name) - index)
                if spread is not None:  # `View(*past_key_value)`: k_cache is past_key_value[0]
                    return spread
            if arg.star:
                unpacked = unpacked or arg.star == "*"  # positions after *args are unknown
                continue
            if not unpacked and index < len(positional) and positional[index] == name:
                return arg.value
            index += 1
        return None

    def _star_param_arguments(self, expr: cst.BaseExpression, offset: int, depth: int = 0) -> List[cst.BaseExpression]:
        """The arguments the visible calls of a function pass at position `offset` of its `*args`
        parameter (expr names it); [] when expr is no such parameter or no call shows one."""
        if not isinstance(expr, cst.Name) or depth > 3:
            return []
        out: List[cst.BaseExpression] = []
        for assignment in self.reaching(expr):
            param = self.param_of(assignment.node)
            if not isinstance(param, cst.Param):
                return []
            func = self._param_owner(param)
            if not isinstance(func, cst.FunctionDef) or func.params.star_arg is not param:
                return []
            cls = self.method_class(func)
            calls = [(c, False) for c in self._calls_by_name().get(id(func), ())]
            calls += [(c, True) for c in self._object_calls(func) + self.super_calls(func)]
            if cls is not None:
                self._index_class(cls)
                calls += [(c, True) for c in self._method_calls.get((id(cls), func.name.value), [])]
            for call, skip in calls:
                named = len(self._positional_params(func, skip))
                position = 0
                for arg in call.args:
                    if arg.keyword is not None or arg.star == "**":
                        continue
                    if arg.star == "*":  # forwarded again: that function's callers
                        if position <= named + offset:
                            out.extend(self._star_param_arguments(arg.value, named + offset - position, depth + 1))
                        break
                    if position == named + offset:
                        out.append(arg.value)
                        break
                    position += 1
        return out

    def either(self, values: List[cst.BaseExpression], at: cst.CSTNode) -> cst.BaseExpression:
        """One expression whose origin is the worst of values' (`a if _ else b`, a node of this
        module's parent map); the value itself when there is one."""
        if len(values) == 1:
            return values[0]
        cache = self.__dict__.setdefault("_either_nodes", {})
        key = tuple(id(v) for v in values)
        if key not in cache:
            node = values[-1]
            for value in reversed(values[:-1]):
                node = cst.IfExp(test=cst.Name("_"), body=value, orelse=node)
                self.parents.setdefault(node, self.parents.get(at))
            cache[key] = node
        return cache[key]

    def _calls_by_name(self) -> Dict[int, List[cst.Call]]:
        """id(function or lambda) -> the calls `f(...)` that reach it through a name."""
        if self._callers is not None:
            return self._callers
        callers: Dict[int, List[cst.Call]] = {}
        named = self.nodes.local_callables
        for call in self.nodes.calls:
            func = call.func
            if not isinstance(func, cst.Name) or func.value not in named:
                continue
            for target in self._callable_targets(func):
                callers.setdefault(id(target), []).append(call)
        self._callers = callers
        return callers

    def _mapped_calls(self) -> Dict[int, List[Tuple[cst.Call, int]]]:
        """id(function or lambda) -> the calls applying it (and where the iterables start, one earlier
        for a bound method, whose self is no element): `map(f, xs, ...)`, `map(self.stats.widen, xs)`,
        `tree_map(f, tree)`, `functools.reduce(f, xs, init)` (applier)."""
        if self._mapped is not None:
            return self._mapped
        mapped: Dict[int, List[Tuple[cst.Call, int]]] = {}
        self._mapped = mapped  # (a read while it is built sees what is found so far)
        for call in self.nodes.calls:
            fn = self.applied_function(call)
            if fn is None:
                continue
            first = (self.fold_form(call) if self.applier(call) == "fold" else call).args[fn].value
            if isinstance(first, cst.Attribute):
                for target in self._bound_method_targets(first):
                    mapped.setdefault(id(target), []).append((call, fn))
                continue
            targets = (
                [first]
                if isinstance(first, cst.Lambda)
                else (self._callable_targets(first) if isinstance(first, cst.Name) else [])
            )
            for target in targets:
                mapped.setdefault(id(target), []).append((call, fn + 1))
        return mapped

    def _star_mapped_calls(self) -> Dict[int, List[Tuple[cst.Call, int]]]:
        """id(function or lambda) -> the calls running it on each row of an iterable, the row's items its
        arguments ([iteration] star_apply: `starmap(self._encode, self._pending.items())`), with the
        position of the parameter a row's first item binds (1 for a bound method, whose self is no item)."""
        found = self.__dict__.get("_star_mapped")
        if found is not None:
            return found
        found = self._star_mapped = {}  # (a read while it is built sees what is found so far)
        for call in self.nodes.calls:
            if len(call.args) < 2 or any(a.keyword is not None or a.star for a in call.args[:2]):
                continue
            if not self.qualified_in(call, self.tables.iter_star_apply):
                continue
            first = call.args[0].value
            if isinstance(first, cst.Attribute):
                targets, shift = self._bound_method_targets(first), 1
            elif isinstance(first, cst.Lambda):
                targets, shift = [first], 0
            else:
                targets, shift = (self._callable_targets(first) if isinstance(first, cst.Name) else []), 0
            for target in targets:
                found.setdefault(id(target), []).append((call, shift))
        return found

    def _star_mapped_rows(self, name: cst.Name) -> List[Tuple[cst.BaseExpression, int]]:
        """(iterable, position in its rows) for the parameter a name reads, when star_apply calls are all
        that reach it (no call by name or as a method, no convention, no default, no other applier); else []."""
        param = self._plain_param(name)
        owner = self._param_owner(param) if param is not None and not param.star else None
        if owner is None or param.default is not None:
            return []
        star_calls = self._star_mapped_calls().get(id(owner))
        if not star_calls or self._mapped_calls().get(id(owner)) or self.value_callers().get(id(owner)):
            return []
        if isinstance(owner, cst.FunctionDef) and (
            owner.decorators or self._convention_origin(owner, param) != 0 or self._callers_of(owner)
        ):
            return []
        positions = self._positional_params(owner, skip_self=False)
        index = positions.index(param.name.value) if param.name.value in positions else None
        if index is None:
            return []
        return [(call.args[1].value, index - shift) for call, shift in star_calls if index >= shift]

    def _bound_method_targets(self, method: cst.Attribute) -> List[cst.FunctionDef]:
        """The plain methods of this module's classes a bound method value runs (`self.widen`,
        `self.stats.widen` of an instance the module makes), as a call of it would."""
        synthetic = cst.Call(func=method)
        self.parents.setdefault(synthetic, self.parents.get(method))
        return [
            t
            for t, skip, env in self.return_targets(synthetic)
            if skip and env is None and isinstance(t, cst.FunctionDef) and not t.decorators
        ]

    def dispatch_overloads(self) -> Dict[str, List[cst.FunctionDef]]:
        """name of a generic function -> the defs registered for it (`@name.register`,
        `@name.register(T)`: rules/accessors.toml [callables] dispatch_registers)."""
        found = self.__dict__.get("_dispatch_overloads")
        if found is None:
            found = self._dispatch_overloads = {}
            for func in self.nodes.decorated_defs:
                for decorator in func.decorators:
                    expr = decorator.decorator
                    expr = expr.func if isinstance(expr, cst.Call) else expr
                    if (
                        isinstance(expr, cst.Attribute)
                        and expr.attr.value in self.tables.dispatch_registers
                        and isinstance(expr.value, cst.Name)
                    ):
                        found.setdefault(expr.value.value, []).append(func)
        return found

    def _dispatched_elsewhere(self, call: cst.Call, overload: cst.FunctionDef, skip_self: bool) -> bool:
        """Does a generic function's call pass, for the dispatched parameter of an overload annotated with a
        tensor type ([casts] tensor_annotations), a tuple, list, set or dict display (or comprehension)? Then
        singledispatch runs another overload for it (`self.reader.dense((k, v), rows)`), not this one."""
        params = [*overload.params.posonly_params, *overload.params.params][1 if skip_self else 0 :]
        annotation = params[0].annotation.annotation if params and params[0].annotation else None
        for decorator in overload.decorators:  # `@widen.register(torch.Tensor)`: the type it names
            expr = decorator.decorator
            if isinstance(expr, cst.Call) and expr.args and isinstance(expr.func, cst.Attribute):
                if expr.func.attr.value in self.tables.dispatch_registers:
                    annotation = expr.args[0].value
        if annotation is None or (dotted(annotation) or "") not in self.tables.tensor_annotations:
            return False
        positional = [a for a in call.args if a.keyword is None]
        if not positional or positional[0].star:
            return False
        displays = (cst.Tuple, cst.List, cst.Set, cst.Dict, cst.ListComp, cst.SetComp, cst.DictComp)
        return isinstance(positional[0].value, displays)

    def _generic_names(self, func: cst.FunctionDef) -> List[str]:
        """The generic functions func is a registered overload of (dispatch_overloads)."""
        if not func.decorators:
            return []
        return [name for name, defs in self.dispatch_overloads().items() if any(d is func for d in defs)]

    def _dispatch_generic(self, func: cst.FunctionDef) -> bool:
        """Is func a generic function dispatched on its first argument (functools.singledispatch)?"""
        return any(self._named_in(d.decorator, self.tables.dispatch_generics) for d in func.decorators)

    def _callable_targets(self, name: cst.Name) -> list:
        """The defs (and lambdas assigned to a name) a Name refers to; for a generic function
        (functools.singledispatch), its registered overloads too: a call may run any of them."""
        out = []
        for assignment in self.reaching(name):
            node = assignment.node
            if isinstance(node, cst.FunctionDef):
                out.append(node)
                if node.decorators and self._dispatch_generic(node):
                    out.extend(self.dispatch_overloads().get(node.name.value, ()))
            elif isinstance(node, cst.Name):
                kind, value, path = self.binding(node)
                if kind == "assign" and not path and isinstance(value, cst.Lambda):
                    out.append(value)
        return out
