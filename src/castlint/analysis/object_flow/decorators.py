"""Decorators: a decorated def is what its decorators return (`decorated`); the callables and
constructions a value is held under (`held_value`, `constructions`)."""

from __future__ import annotations

from typing import Dict, List

import libcst as cst

from castlint.analysis.object_flow.shared import _dotted


class Decorators:
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
            param = self.param_of(node)
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
        if isinstance(expr, cst.IfExp):  # `Widen() if c else Plain()`: either construction
            values = [expr.body, expr.orelse]
        elif isinstance(expr, cst.Name) and expr.value != "self":
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
