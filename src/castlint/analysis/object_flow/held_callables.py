"""Callables held under other names (`callable_values`): bound methods, partials, `getattr` with a
constant name, enums, and the calls that run a callable they are handed."""

from __future__ import annotations

import re
from typing import Dict, List, Optional, Tuple

import libcst as cst

from castlint.analysis.object_flow.shared import _dotted
from castlint.analysis.tree import iter_nodes


class HeldCallables:
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
                param = self.param_of(node)
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
                    elif kind == "assign":  # `read_k, read_v = self._readers`: that position of the container
                        values.extend(self.unpacked_values(value, path, depth + 1) or ())
                    elif kind == "for":  # `for fn, c in zip(self._preps, caches)`: that position of an entry
                        # (not an instance of a class of the module, `for i, layer in enumerate(self.layers)`:
                        # what its call returns would be read without positions, `layer(h, kv)[0]` as a pool)
                        values.extend(
                            e
                            for e in self._iterated_elements(value, path, depth + 1) or ()
                            if self.instance_class(e, depth + 1) is None
                        )
                elif isinstance(node, cst.FunctionDef) and depth > 0:  # a def handed on by its name
                    return [(("closure", node, None, self.method_class(node) is not None), ())]
        elif isinstance(func, cst.Attribute):
            # (`cls.reader_cls(d)` in a classmethod: the class attribute of the class, or of a subclass's body)
            owner = self.instance_class(func.value, depth + 1) or self.class_named(func.value)
            if owner is None:
                # an object of unknown class (a parameter): the one module class that stores `self.<attr>`
                # in any of its methods (`self.layer_buffers = mgr.get_buffers` in a metadata's prepare)
                owner = self.duck_class(func.value, func.attr.value, method=False)
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
            elif owner is None and self._held_unknown(func, values):
                out.extend(self._duck_called(func))
        return out

    def _keeping_module(self, value: cst.Call, depth: int = 0) -> bool:
        """Is value the construction of a module that, called, hands back every element of its input in its
        dtype ([callables] keeping_modules), or a chain of them ([callables] module_chains)?"""
        t = self.tables
        if not (t.keeping_modules or t.module_chains) or not isinstance(value.func, (cst.Name, cst.Attribute)):
            return False
        short = value.func.attr.value if isinstance(value.func, cst.Attribute) else value.func.value
        shorts = self.__dict__.get("_keeping_shorts")
        if shorts is None:
            shorts = self._keeping_shorts = {n.rsplit(".", 1)[-1] for n in (*t.keeping_modules, *t.module_chains)}
        if short not in shorts:
            return False
        qualified = self.call_name(value)
        if qualified in t.keeping_modules:
            return True
        return (
            qualified in t.module_chains
            and depth < 4
            and bool(value.args)
            and all(
                not a.star
                and a.keyword is None
                and isinstance(a.value, cst.Call)
                and self._keeping_module(a.value, depth + 1)
                for a in value.args
            )
        )

    def _held_unknown(self, func: cst.BaseExpression, values: List[cst.BaseExpression]) -> bool:
        """Is func a value the module cannot tell: a parameter nobody in it fills, or `self.x` holding only
        names (stored from such a parameter)? Not a module's function (`torch.tensor`), nor a value a call made."""
        if isinstance(func, cst.Attribute):
            held = isinstance(func.value, cst.Name) and func.value.value == "self"
            return held and bool(values) and all(isinstance(v, (cst.Name, cst.Attribute)) for v in values)
        reaching = self.reaching(func) if isinstance(func, cst.Name) else []
        return bool(reaching) and all(
            isinstance(a.node, cst.Param) or isinstance(self.parents.get(a.node), cst.Param) for a in reaching
        )

    def _duck_called(self, func: cst.BaseExpression) -> List[tuple]:
        """An object of unknown class called (`self.provider(i)`, provider a parameter): the `__call__` of the
        one class of the module defining it ([callables] duck_protocol), when the call's positional
        arguments fit it; else []."""
        call = self.parents.get(func)
        if not isinstance(call, cst.Call) or call.func is not func or any(a.star for a in call.args):
            return []
        for method in sorted(self.tables.duck_protocol):
            owner = self.duck_class(func, method, method=True)
            found = self.find_method(owner, method) if owner is not None else None
            if found is None:
                continue
            params = [*found.params.posonly_params, *found.params.params][1:]
            given = sum(1 for a in call.args if a.keyword is None)
            if found.params.star_arg is cst.MaybeSentinel.DEFAULT and given > len(params):
                continue
            if given < sum(1 for p in params if p.default is None):
                continue
            return [(self._attribute(func, method), ())]
        return []

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
        if self._mapped_calls().get(id(owner)) or self._star_mapped_calls().get(id(owner)):
            return []
        return self.passed_arguments(param)

    def defaulted_arguments(self, param: cst.Param) -> List[cst.BaseExpression]:
        """What a parameter with a default may hold (`def _cast(buf, d, method="to")`): under the call
        being followed, what it passes or else the default; otherwise what each visible call of its
        def passes, the default where a call leaves it out (the conditions of complete_arguments:
        a plain def of the module that only visible calls reach); [] when it is no such parameter."""
        if param.star or param.default is None:
            return []
        for bindings in reversed(self._bindings):
            if id(param) in bindings:
                argument = bindings.get(("arg", id(param)))
                return [argument if argument is not None else param.default]
        owner = self._param_owner(param)
        if not isinstance(owner, cst.FunctionDef) or owner.decorators:
            return []
        if self._convention_origin(owner, param) != 0 or self.value_callers().get(id(owner)):
            return []
        if self._mapped_calls().get(id(owner)) or self._star_mapped_calls().get(id(owner)):
            return []
        found: List[cst.BaseExpression] = []
        for call, skip, env in self._callers_of(owner):
            if env:
                continue
            if any(a.star for a in call.args):
                return []  # `f(*args)`: what it leaves out is unknown
            argument = self._argument_for(call, owner, param, skip_self=skip)
            found.append(argument if argument is not None else param.default)
        return found or [param.default]

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

    def _class_qualified_defs(self, held: cst.BaseExpression) -> List[cst.FunctionDef]:
        """`Base._refresh_as` (a method read through a class of the module, its MRO's def): the plain
        function, which takes the instance as its first argument (`partialmethod(Base.m, d)` binds it
        as a method does)."""
        if not isinstance(held, cst.Attribute):
            return []
        owner = self.class_named(held.value)
        found = self.find_method(owner, held.attr.value) if owner is not None else None
        return [found] if isinstance(found, cst.FunctionDef) and not self.class_bound(found) else []

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
            if self._keeping_module(value, depth):  # `nn.Flatten(0, 1)`: called, every element of its input
                return [(("keeps",), ())]
            wrapped = self._wrapped_function(value)
            if wrapped is not None:  # `torch.compile(f, dynamic=True)`: a stand-in for f
                return self._callable_forms(wrapped, depth + 1) if depth < 4 else []
            referent = self.wrapped_value(value, depth + 1) if not value.args else None
            if referent is not None:  # `self._ref()` of `self._ref = weakref.WeakMethod(pool.get_key_buffer)`
                return self._callable_forms(referent, depth + 1) if depth < 4 else []
            if name in t.method_callers and value.args:
                methods = self.constant_strings(value.args[0].value) or ()
                if methods and all(m.isidentifier() for m in methods):
                    # x.method(bound...) of the call's x; each name a loop or the callers may give
                    return [(("method", m), tuple(value.args[1:])) for m in methods]
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
                    else self._class_qualified_defs(held)
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
                if constants is None:  # `getattr(self, f"_forward_{phase}")`: each method its name may be
                    constants = self._templated_methods(value.args[0].value, value.args[1].value)
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
                    if not inner and depth < 3:  # `return torch.Tensor.half`, `return methodcaller("to", d)`
                        out.extend(self._returned_callable(returned, target, depth))
            if out:
                return out
        if isinstance(value, cst.Subscript) and self.class_dict_functions(value):  # `vars(Base)["read"]`
            return [(("closure", found, None, False), ()) for found in self.class_dict_functions(value)]
        if isinstance(value, cst.Name) and self.class_named(value) is not None:
            return [(value, ())]  # `engine_cls = PagedEngine`: calling it constructs the class
        if isinstance(value, (cst.Name, cst.Subscript, cst.IfExp)):
            # `self.cast = _CASTS[mode]`: what the table's entries hold; `f if c else g`: either
            return self.callable_values(value, depth + 1)
        if isinstance(value, cst.BooleanOperation) and depth < 4:
            # `reader or self._passthrough`: either (a callable is true); `enabled and hook`: the right one
            sides = (value.left, value.right) if isinstance(value.operator, cst.Or) else (value.right,)
            return [form for side in sides for form in self._callable_forms(side, depth + 1)]
        return []

    def _returned_callable(self, returned: cst.BaseExpression, target: cst.FunctionDef, depth: int) -> List[tuple]:
        """The callable a factory or method hands back as a value, when it means the same in the caller:
        a dotted name rooted outside the def (an unbound tensor method `torch.Tensor.half`, a module
        function, a module-level name holding one, an entry of a module table `_CASTS[mode]`), either side
        of `a if c else b` / `a or b`, or a call from such names and constants (`getattr(torch.Tensor,
        "half")`; [callables] method_callers, partial_callables, attr_getters by their first argument:
        `methodcaller("to", dtype)`). `return self.x` (the callee's own self) and `None` are not."""
        if depth > 5:
            return []
        if isinstance(returned, cst.IfExp):
            sides = (returned.body, returned.orelse)
            return [f for side in sides for f in self._returned_callable(side, target, depth + 1)]
        if isinstance(returned, cst.BooleanOperation):
            sides = (returned.left, returned.right) if isinstance(returned.operator, cst.Or) else (returned.right,)
            return [f for side in sides for f in self._returned_callable(side, target, depth + 1)]
        if isinstance(returned, cst.Attribute):
            return [(returned, ())] if self._rooted_outside(returned, target) else []
        if isinstance(returned, cst.Name):
            if returned.value in ("None", "True", "False") or not self._rooted_outside(returned, target):
                return []
            return self.callable_values(returned, depth + 1)  # `_UP = torch.Tensor.float; ... return _UP`
        if isinstance(returned, cst.Subscript):
            return self.callable_values(returned, depth + 1) if self._rooted_outside(returned.value, target) else []
        if not isinstance(returned, cst.Call) or not isinstance(returned.func, (cst.Name, cst.Attribute)):
            return []
        if not self._rooted_outside(returned.func, target):
            return []
        t = self.tables
        name = _dotted(returned.func)
        makers = (t.method_callers, t.partial_callables, t.attr_getters)
        made = any(name in k for k in makers) or any(self.call_name(returned) in k for k in makers)
        checked = returned.args[:1] if made else returned.args
        if not all(self._rooted_outside(a.value, target) for a in checked):
            return []
        return self._callable_forms(returned, depth + 1)

    def _rooted_outside(self, expr: cst.BaseExpression, target: cst.FunctionDef) -> bool:
        """Is expr a constant, or a dotted name whose root is no parameter or local of target?"""
        while isinstance(expr, cst.Attribute):
            expr = expr.value
        if isinstance(expr, (cst.SimpleString, cst.Integer)):
            return True
        if not isinstance(expr, cst.Name):
            return False
        params = target.params
        names = {p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)}
        return expr.value not in names and not any(
            a.node is not None and target in self.ancestors(a.node) for a in self.reaching(expr)
        )

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
        elif self.qualified(call) in self.tables.fold_functions and self.fold_form(call) is not None:
            # reduce(f, (a, b), x): f(f(x, a), b), for a sequence the file shows
            steps = self.qualified(call) in self.tables.step_fold_functions
            reduced, call = call, self.fold_form(call)  # `accumulate(xs, f, initial=x)`: reduce(f, xs, x)
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
                    folded = [value]
                    for element in shown[0].elements:
                        value = cst.Call(func=call.args[0].value, args=[cst.Arg(value), cst.Arg(element.value)])
                        self.parents.setdefault(value, self.parents.get(call))
                        folded.append(value)
                    folded = folded if steps else folded[-1:]
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
                if steps:  # `accumulate(...)`: an iterable of every step, the initial value first
                    folded = [cst.List([cst.Element(v) for v in folded])]
                    self.parents.setdefault(folded[0], self.parents.get(reduced))
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
            elif form[0] == "keeps" and len(call.args) == 1 and not call.args[0].star and call.args[0].keyword is None:
                out.append(call.args[0].value)  # `self.merge(k_cache)` of `nn.Flatten(0, 1)`: k_cache's elements
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

    def sent_to(self, expr: cst.Yield) -> List[cst.BaseExpression]:
        """What `.send(v)` calls hand the generator whose `yield` expr is: the value expr takes."""
        generator = self.enclosing_function(expr)
        return list(self.sent_values().get(id(generator), ())) if generator is not None else []

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
                    *self.learnt_runners(),
                    *self.learnt_method_runners(),
                )
            )
        return found

    def learnt_runners(self) -> Dict[str, Tuple[cst.FunctionDef, cst.Call]]:
        """Module functions that call one of their parameters with their other parameters (`def
        _profiled(name, fn, *args, **kwargs): ... return fn(*args, **kwargs)`, `def run(fn, a, b): return
        fn(a, b)`): name -> (def, that inner call). A call of one runs the callable it is handed."""
        found = self.__dict__.get("_learnt_runner_defs")
        if found is None:
            found = self._learnt_runner_defs = {}
            for stmt in self.module.body:
                if isinstance(stmt, cst.FunctionDef) and not stmt.decorators:
                    inner = self._forwarding_call(stmt)
                    if inner is not None:
                        found[stmt.name.value] = (stmt, inner)
            if found:  # only called by name: one handed on as a value (`reduce(_apply, fns, x)`) runs elsewhere
                for name in iter_nodes(self.module, cst.Name):
                    if name.value in found and name is not found[name.value][0].name:
                        holder = self.parents.get(name)
                        if not (isinstance(holder, cst.Call) and holder.func is name):
                            del found[name.value]
        return found

    def composed_stages(self, func: cst.BaseExpression) -> Optional[List[cst.BaseExpression]]:
        """The callables a composed callable applies, in the order it applies them, when func holds one:
        a fold of a composing function over callables the file shows (`reduce(lambda f, g: lambda x:
        g(f(x)), (a, b))`), as it is or returned by a factory over its `*fns` (`def _compose(*fns): return
        reduce(..., fns)`; `self.widen = _compose(a, b)`). None otherwise."""
        values: List[cst.BaseExpression] = []
        if isinstance(func, cst.Call):
            values.append(func)
        elif isinstance(func, cst.Attribute):
            owner = self.instance_class(func.value)
            if owner is not None and self.find_method(owner, func.attr.value) is None:
                values.extend(self.instance_attr_values(owner, func.attr.value))
        elif isinstance(func, cst.Name):
            for assignment in self.reaching(func):
                if isinstance(assignment.node, cst.Name):
                    kind, value, path = self.binding(assignment.node)
                    if kind == "assign" and not path:
                        values.append(value)
        for value in values:
            stages = self._composition(value) if isinstance(value, cst.Call) else None
            if stages:
                return stages
        return None

    def _composition(self, value: cst.Call, depth: int = 0) -> Optional[List[cst.BaseExpression]]:
        t = self.tables
        if self._named_in(value.func, t.fold_functions):
            if self._named_in(value.func, t.step_fold_functions):
                return None  # `accumulate(fns, compose)`: every partial composition, not one callable
            if len(value.args) != 2 or any(a.star or a.keyword for a in value.args):
                return None  # (an initial value: a fold of data, not a composition)
            order = self._composer_order(value.args[0].value)
            seq = value.args[1].value
            if order is None or not isinstance(seq, (cst.Tuple, cst.List)):
                return None
            if not all(isinstance(e, cst.Element) and not isinstance(e, cst.StarredElement) for e in seq.elements):
                return None
            stages = [e.value for e in seq.elements]
            return stages if order == "forward" else stages[::-1]
        if depth > 0 or any(a.star or a.keyword for a in value.args):
            return None
        for target, _, _ in self.return_targets(value):
            star = target.params.star_arg if isinstance(target, cst.FunctionDef) else None
            if not isinstance(star, cst.Param):
                continue
            for returned in self._return_values(target):
                if (
                    isinstance(returned, cst.Call)
                    and self._named_in(returned.func, t.fold_functions)
                    and len(returned.args) == 2
                    and isinstance(returned.args[1].value, cst.Name)
                    and returned.args[1].value.value == star.name.value
                ):  # `def _compose(*fns): return reduce(compose2, fns)`: the call's own arguments
                    shown = cst.Call(
                        func=returned.func,
                        args=[returned.args[0], cst.Arg(cst.Tuple([cst.Element(a.value) for a in value.args]))],
                    )
                    return self._composition(shown, depth + 1)
        return None

    def _composer_order(self, node: cst.BaseExpression) -> Optional[str]:
        """ "forward" for a function of two callables that returns their composition applying the first
        first (`lambda f, g: lambda x: g(f(x))`, a def returning such a lambda), "backward" for the other
        order (`f(g(x))`); None for any other."""
        if isinstance(node, cst.Name):
            defs = [d for d in self._callable_targets(node) if isinstance(d, cst.FunctionDef)]
            if len(defs) != 1:
                return None
            returned = self._return_values(defs[0])
            params = defs[0].params
            if len(returned) != 1:
                return None
            body = returned[0]
        elif isinstance(node, cst.Lambda):
            params, body = node.params, node.body
        else:
            return None
        names = [p.name.value for p in params.params]
        if len(names) != 2 or params.star_arg not in (None, cst.MaybeSentinel.DEFAULT) or params.kwonly_params:
            return None
        if not (isinstance(body, cst.Lambda) and len(body.params.params) == 1):
            return None
        x = body.params.params[0].name.value
        outer = body.body
        if not (
            isinstance(outer, cst.Call)
            and isinstance(outer.func, cst.Name)
            and len(outer.args) == 1
            and isinstance(outer.args[0].value, cst.Call)
        ):
            return None
        inner = outer.args[0].value
        if not (
            isinstance(inner.func, cst.Name)
            and len(inner.args) == 1
            and isinstance(inner.args[0].value, cst.Name)
            and inner.args[0].value.value == x
        ):
            return None
        pair = (inner.func.value, outer.func.value)
        return "forward" if pair == tuple(names) else "backward" if pair == tuple(names[::-1]) else None

    def learnt_method_runners(self) -> Dict[str, List[Tuple[cst.FunctionDef, cst.Call]]]:
        """Methods of the module's classes that call one of their parameters with their other parameters
        (`class StepTimer: def run(self, name, fn, /, *args, **kwargs): ... out = fn(*args, **kwargs)`):
        name -> [(def, that inner call)]. A call `obj.run(...)` on an instance of the class runs the
        callable it is handed (learnt_runners, for methods)."""
        found = self.__dict__.get("_learnt_method_runner_defs")
        if found is None:
            found = self._learnt_method_runner_defs = {}
            for cls in self.module.body:
                if not isinstance(cls, cst.ClassDef):
                    continue
                for name, method in self.class_methods(cls).items():
                    if method.decorators or not (method.params.posonly_params or method.params.params):
                        continue  # (a static or class method binds no instance first)
                    inner = self._forwarding_call(method)
                    if inner is not None:
                        found.setdefault(name, []).append((method, inner))
        return found

    def learnt_inner_calls(self) -> set:
        """id() of the learnt runners' own `fn(*args)` calls (functions and methods)."""
        found = self.__dict__.get("_learnt_inner_ids")
        if found is None:
            found = self._learnt_inner_ids = {id(inner) for _, inner in self.learnt_runners().values()} | {
                id(inner) for runners in self.learnt_method_runners().values() for _, inner in runners
            }
        return found

    def _learnt_method(self, call: cst.Call) -> Optional[Tuple[cst.FunctionDef, cst.Call]]:
        """The learnt method runner `obj.run(...)` calls: obj's class (told or, unknown, the one class
        defining the name) defines it; None otherwise."""
        func = call.func
        if not isinstance(func, cst.Attribute):
            return None
        runners = self.learnt_method_runners().get(func.attr.value)
        if not runners:
            return None
        owner = self.instance_class(func.value) or self.duck_class(func.value, func.attr.value, method=True)
        method = self.find_method(owner, func.attr.value) if owner is not None else None
        return next(((d, inner) for d, inner in runners if d is method), None)

    def _forwarding_call(self, func: cst.FunctionDef) -> Optional[cst.Call]:
        """The call in func of one of its parameters whose arguments are only its other parameters (or
        its *args / **kwargs spread), with at least one of them handed on; None when there is none."""
        params = func.params
        names = {p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)}
        star = params.star_arg.name.value if isinstance(params.star_arg, cst.Param) else None
        stars = params.star_kwarg.name.value if params.star_kwarg is not None else None
        for call in iter_nodes(func.body, cst.Call):
            if not (isinstance(call.func, cst.Name) and call.func.value in names) or not call.args:
                continue
            if all(
                isinstance(a.value, cst.Name)
                and a.value.value != call.func.value
                and (
                    (a.star == "" and a.value.value in names)
                    or (a.star == "*" and a.value.value == star)
                    or (a.star == "**" and a.value.value == stars)
                )
                for a in call.args
            ):
                return call
        return None

    def _learnt_run_call(self, call: cst.Call, short: str) -> List[cst.Call]:
        """`_profiled("x", f, kv, dtype=d)` of a learnt runner: f(kv, dtype=d), its inner call with the
        call's arguments bound in place of the runner's parameters."""
        method = self._learnt_method(call) if isinstance(call.func, cst.Attribute) else None
        func, inner = method if method is not None else self.learnt_runners()[short]
        if any(a.star for a in call.args):
            return []
        params = func.params
        ordered = [p.name.value for p in (*params.posonly_params, *params.params)]
        if method is not None:
            ordered = ordered[1:]  # the instance, bound by the call's receiver
        bound: Dict[str, cst.BaseExpression] = {}
        extra_positional: List[cst.BaseExpression] = []
        extra_keywords: List[cst.Arg] = []
        positional = [a.value for a in call.args if a.keyword is None]
        for index, value in enumerate(positional):
            if index < len(ordered):
                bound[ordered[index]] = value
            else:
                extra_positional.append(value)
        for a in call.args:
            if a.keyword is not None:
                named = a.keyword.value
                if named in ordered or any(p.name.value == named for p in params.kwonly_params):
                    bound[named] = a.value
                else:
                    extra_keywords.append(cst.Arg(a.value, keyword=cst.Name(named)))
        callee = bound.get(inner.func.value)
        if callee is None:
            return []
        args: List[cst.Arg] = []
        for a in inner.args:
            if a.star == "*":
                args += [cst.Arg(v) for v in extra_positional]
            elif a.star == "**":
                args += extra_keywords
            elif a.value.value in bound:
                args.append(cst.Arg(bound[a.value.value], keyword=a.keyword))
            elif a.keyword is None:
                return []  # a positional left to its default: the places after it are unknown
        applied = cst.Call(func=callee, args=args)
        self.parents.setdefault(applied, self.parents.get(call))
        return [applied]

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
        if isinstance(func, cst.Name) and short in self.learnt_runners():
            return self._learnt_run_call(call, short)
        if isinstance(func, cst.Attribute) and self._learnt_method(call) is not None:
            return self._learnt_run_call(call, short)  # `self.timer.run("k", torch.Tensor.to, kv, d)`
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
            fold = self.fold_form(call)  # `accumulate(xs, f, initial=x)`: in reduce's order
            if fold is None or len(fold.args) != 3:
                return []
            callee, seq, start = (a.value for a in fold.args)
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

    def deferred_calls(self, call: cst.Call) -> List[cst.Call]:
        """The calls a deferred-call queue makes: a call of a loop target unpacked from the elements of a
        container, with arguments unpacked from the same elements (`for fn, args in self._pending:
        fn(*args)`, `for fn, kw in jobs: fn(**kw)`, `for hook, x in pairs: hook(x)`): per element the file
        shows (a tuple display appended, a list display), the call that element makes, its callable and
        arguments taken at their positions (`*args` spread from a tuple display, `**kw` from a dict one), as
        nodes of this module's parent map. [] when the callee is no such target or some element's
        structure is not shown (the loop's lattice reading stands)."""
        cache = self.__dict__.setdefault("_deferred_call_nodes", {})
        found = cache.get(id(call))
        if found is None:
            found = cache[id(call)] = self._deferred_calls(call)
        return found

    def _loop_position(self, expr: cst.BaseExpression) -> Optional[Tuple[cst.BaseExpression, tuple, Optional[slice]]]:
        """(iterable, path, rest) when expr is a name whose one binding is a for (or comprehension) target
        unpacked by known positions (rest None), or a starred target last in its tuple (`for fn, *args in
        q`: path to the tuple, rest the slice of its elements it takes); None otherwise."""
        if not isinstance(expr, cst.Name):
            return None
        reaching = self.reaching(expr)
        if len(reaching) != 1 or not isinstance(reaching[0].node, cst.Name):
            return None
        node = reaching[0].node
        kind, iterable, path = self.binding(node)
        if kind != "for" or not path:
            return None
        if None not in path:
            return iterable, path, None
        starred = self.parents.get(node)
        container = self.parents.get(starred)
        if (
            None in path[:-1]
            or not isinstance(starred, cst.StarredElement)
            or not isinstance(container, (cst.Tuple, cst.List))
            or container.elements[-1] is not starred  # `for a, *b, c in q`: positions past the spread are unknown
        ):
            return None
        return iterable, path[:-1], slice(len(container.elements) - 1, None)

    def _deferred_calls(self, call: cst.Call) -> List[cst.Call]:
        held = self._loop_position(call.func)
        if held is None or held[2] is not None:
            return []
        iterable, fpath, _ = held
        elements = self.element_values(iterable, None)
        if not elements:
            return []
        out: List[cst.Call] = []
        for element in elements:
            callees = self.path_values(element, fpath, lattice=False)
            if not callees:
                return []
            args: List[cst.Arg] = []
            for arg in call.args:
                position = self._loop_position(arg.value)
                if position is None or position[0] is not iterable:
                    args.append(arg)
                    continue
                values = self.path_values(element, position[1], lattice=False)
                if not values:
                    return []
                if position[2] is not None:  # `for fn, *args in q: fn(*args)`: the rest of the element
                    shown = self._shown_sequence(values[0]) if len(values) == 1 and arg.star == "*" else None
                    if shown is None:
                        return []
                    args.extend(cst.Arg(v) for v in shown[position[2]])
                elif arg.star == "*":
                    shown = self._shown_sequence(values[0]) if len(values) == 1 else None
                    if shown is None:
                        return []
                    args.extend(cst.Arg(v) for v in shown)
                elif arg.star == "**":
                    named = self._double_starred_values(values[0]) if len(values) == 1 else {}
                    if not named:
                        return []
                    args.extend(cst.Arg(v, keyword=cst.Name(k)) for k, v in named.items() if k.isidentifier())
                else:
                    args.append(cst.Arg(self.either(list(values), call), keyword=arg.keyword))
            for callee in callees:
                applied = cst.Call(func=callee, args=args)
                self.parents.setdefault(applied, self.parents.get(call))
                out.append(applied)
        return out

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
            param = self.param_of(node)
            if isinstance(param, cst.Param):
                # a parameter (`def _cast(buf, d, method="to")`): what every visible call passes, the
                # default where it leaves it out
                arguments = self.complete_arguments(param) or self.defaulted_arguments(param)
                texts = {self.constant_string(a, depth + 1) for a in arguments}
                if not arguments or None in texts:
                    return None
                found.update(texts)
                continue
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
                param = self.param_of(node)
                if isinstance(param, cst.Param):
                    # a parameter: what the call being followed (or every visible call) passes
                    # (`def __getattr__(self, name): return getattr(self._pool, name)`)
                    arguments = self.complete_arguments(param) or self.defaulted_arguments(param)
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

    def _templated_methods(self, owner: cst.BaseExpression, name: cst.BaseExpression) -> Optional[List[str]]:
        """The methods of owner's class family (owner an instance or a class of the module) whose names fit a
        name built from constant parts and unknown values (`f"_forward_{phase}"`, `"_read_" + kind`); None
        when the name has no constant part or owner no known class."""
        pattern = self._name_pattern(name)
        cls = self.instance_class(owner) or self.class_named(owner) if pattern is not None else None
        if cls is None:
            return None
        matcher = re.compile(pattern)
        found = {m for member in self.class_family(cls) for m in self.class_methods(member) if matcher.fullmatch(m)}
        return sorted(found) or None

    def _name_pattern(self, expr: cst.BaseExpression) -> Optional[str]:
        """A regular expression for the strings a name built from literal text and unknown parts may be (an
        f-string, `+` of strings); None when no literal part constrains it."""
        if isinstance(expr, cst.FormattedString):
            sides = [
                p.value.replace("{{", "{").replace("}}", "}") if isinstance(p, cst.FormattedStringText) else None
                for p in expr.parts
            ]
        elif isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Add):
            sides = [self.constant_string(expr.left), self.constant_string(expr.right)]
        else:
            return None
        if not any(isinstance(side, str) and side for side in sides):
            return None
        return "".join(re.escape(side) if isinstance(side, str) else ".+" for side in sides)

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
            param = self.param_of(node)
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
