"""What a helper defined in the file returns when called with given arguments (`_return_origin`),
its arguments bound to its parameters."""

from __future__ import annotations

from typing import Dict, List, Optional, Tuple

import libcst as cst

from castlint.analysis.dataflow.shared import MAX_DEPTH
from castlint.analysis.object_flow import SELF_CLASS
from castlint.analysis.origin import Origin
from castlint.analysis.tree import children


class ReturnValues:
    def _return_origin(self, call: cst.Call, depth: int, path: tuple = ()) -> Optional[Origin]:
        """The origin of what a helper returns when called with these arguments: a method
        through `self.m(...)`, a module-level or nested function or a lambda through its
        name. None when the callee is not defined in this file."""
        targets = self.return_targets(call, depth)
        if not targets:
            return None
        best = Origin.OTHER
        for target, skip_self, env in targets:
            best = max(best, self._returned(call, target, skip_self, depth, path, env=env))
            if best == Origin.POOL:
                break
        return best

    def _further_arguments(self, call: cst.Call, first: int) -> cst.Tuple:
        """The tuple a def's `*args` holds under call: its positional arguments from the first-th on."""
        cache = self.__dict__.setdefault("_further_tuples", {})
        if (id(call), first) not in cache:
            positional = [a.value for a in call.args if a.keyword is None and not a.star][first:]
            node = cst.Tuple([cst.Element(v) for v in positional])
            self.parents.setdefault(node, self.parents.get(call))
            cache[(id(call), first)] = node
        return cache[(id(call), first)]

    def _bound_params(self, call: cst.Call, target, skip_self: bool, depth: int) -> Dict[int, Origin]:
        """_bind_arguments; a `self.m(...)` call that reaches an override of a subclass (a template
        method's step) runs on an instance of that subclass: its arguments are read so
        (`self.compute(q, self.fetch(meta))`: the subclass's own `fetch`, if it overrides it)."""
        sub = self._dispatched_class(call, target, skip_self)
        if sub is not None:
            return self.as_instance_of(sub, lambda: self._bind_arguments(call, target, skip_self, depth))
        return self._bind_arguments(call, target, skip_self, depth)

    def _none_params(self, call: cst.Call, target, skip_self: bool) -> Dict[tuple, bool]:
        """("none", id(param)) -> whether the call leaves param None: left out with a None default, or
        passed `None` (True); passed anything else (False). Only for parameters with a None default."""
        out: Dict[tuple, bool] = {}
        if not isinstance(target, cst.FunctionDef) or any(a.star for a in call.args):
            return out
        for param in (*target.params.params, *target.params.kwonly_params):
            if not (isinstance(param.default, cst.Name) and param.default.value == "None"):
                continue
            argument = self._argument_for(call, target, param, skip_self)
            out[("none", id(param))] = argument is None or (isinstance(argument, cst.Name) and argument.value == "None")
        return out

    def _none_test(self, test: cst.BaseExpression) -> Optional[bool]:
        """The value of `p is None` / `p is not None` / `not ...` for a parameter p whose None-ness the
        call being followed decides (_none_params) and that its function does not rebind; else None."""
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            inner = self._none_test(test.expression)
            return None if inner is None else not inner
        if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1 and isinstance(test.left, cst.Name)):
            return None
        compared = test.comparisons[0]
        if not (
            isinstance(compared.operator, (cst.Is, cst.IsNot))
            and isinstance(compared.comparator, cst.Name)
            and compared.comparator.value == "None"
        ):
            return None
        reaching = self.reaching(test.left)
        params = {id(a.node) for a in reaching if isinstance(a.node, cst.Param)} | {
            id(self.parents.get(a.node)) for a in reaching if isinstance(self.parents.get(a.node), cst.Param)
        }
        if len(params) != 1 or len(reaching) != 1 or not self._bindings:
            return None
        is_none = self._bindings[-1].get(("none", params.pop()))
        if is_none is None:
            return None
        return is_none if isinstance(compared.operator, cst.Is) else not is_none

    def _reachable_under(self, node: cst.CSTNode, func) -> bool:
        """Is node in no branch of an `if p is None:` (in func) that the call being followed rules out?"""
        child = node
        for anc in self.ancestors(node):
            if anc is func:
                return True
            if isinstance(anc, cst.If) and child is not anc.test:
                taken = self._none_test(anc.test)
                if taken is not None and (child is anc.body) != taken:
                    return False
            child = anc
        return True

    def _dispatched_class(self, call: cst.Call, target, skip_self: bool) -> Optional[cst.ClassDef]:
        """The subclass whose override a `self.m(...)` call reaches, when it is not the class self is
        known to be (the call's own class, or the context of the calls being followed)."""
        func = call.func
        if not (
            skip_self
            and isinstance(target, cst.FunctionDef)
            and isinstance(func, cst.Attribute)
            and isinstance(func.value, cst.Name)
            and func.value.value == "self"
        ):
            return None
        cls = self.method_class(target)
        here = self.self_class() or self.enclosing_class(call)
        if cls is None or here is None or cls is here or here not in self.class_mro(cls):
            return None
        return cls

    def as_instance_of(self, cls: cst.ClassDef, compute):
        """compute() with self known to be an instance of cls (its overrides run for `self.m(...)`)."""
        saved = self._origin_cache, self._returns_cache, self._kind_cache
        self._origin_cache, self._returns_cache, self._kind_cache = {}, {}, {}
        self._bindings.append({SELF_CLASS: cls.name.value})
        try:
            return compute()
        finally:
            self._bindings.pop()
            self._origin_cache, self._returns_cache, self._kind_cache = saved

    def _bind_arguments(self, call: cst.Call, target, skip_self: bool, depth: int) -> Dict[int, Origin]:
        """id(parameter) -> the origin of what call passes for it (OTHER when it passes nothing);
        ("held", id(parameter)) -> the callables it hands on (ObjectFlow.held_value); for `*args`
        and `**kwargs`, ("*", id) / ("**", id) -> what each further argument is, so that a
        wrapper's `fn(*args, **kwargs)` hands them on one by one (_forwarded)."""
        if any(a.star for a in call.args):
            forwarded = self._forwarded(call, depth)
            if forwarded is not None:
                positional, keywords = forwarded
                return self._bind_forwarded(
                    (self._receiver_slot(call, target, skip_self, depth) + positional, keywords), target, skip_self
                )
        params = target.params
        bindings: Dict = {}
        named = set()
        for param in (*params.posonly_params, *params.params, *params.kwonly_params):
            argument = self._argument_for(call, target, param, skip_self)
            if argument is None and skip_self and self._user_container_self(target, param):
                continue  # `self[i]` of a UserList subclass: what its instances hold (_param_origin)
            bindings[id(param)] = self._passed_origin(call, argument, param, depth)
            if argument is not None:
                bindings[("arg", id(param))] = argument  # what a call of the parameter calls (ObjectFlow)
            held = self.held_value(argument) if argument is not None else ()
            if held:
                bindings[("held", id(param))] = held
                self._held_params.add(param.name.value)
            named.add(param.name.value)
        if isinstance(params.star_arg, cst.Param):  # *args: a tuple of the further positional arguments
            first = len(self._positional_params(target, skip_self))
            best = Origin.OTHER
            each = self._receiver_slot(call, target, skip_self, depth)
            for i, arg in enumerate(a for a in call.args if a.keyword is None and a.star != "**"):
                origin = self.origin(arg.value, depth)
                if arg.star == "*":
                    best = max(best, origin)
                elif i >= first:
                    each.append((origin, self.held_value(arg.value)))
                    if origin >= Origin.PREFIX:
                        best = max(best, Origin.POOL_TUPLE)
            bindings[id(params.star_arg)] = best
            if not any(a.star for a in call.args):
                bindings[("*", id(params.star_arg))] = tuple(each)
                # what `args` is under this call: the tuple of its further positional arguments
                # (`reduce(getitem, path, self.table)` of `self._at("meta", "lens")` folds those keys)
                bindings[("arg", id(params.star_arg))] = self._further_arguments(call, first)
        if params.star_kwarg is not None:  # **kwargs: a dict of the further keywords
            extra = [
                (a.keyword.value, self.origin(a.value, depth), self.held_value(a.value))
                for a in call.args
                if a.keyword is not None and a.keyword.value not in named
            ]
            bindings[id(params.star_kwarg)] = (
                Origin.POOL_TUPLE if any(o >= Origin.PREFIX for _, o, _ in extra) else Origin.OTHER
            )
            if not any(a.star == "**" for a in call.args):
                bindings[("**", id(params.star_kwarg))] = tuple(sorted(extra, key=lambda e: e[0]))
        return bindings

    def _passed_origin(self, call: cst.Call, argument, param: cst.Param, depth: int) -> Origin:
        """The origin of what a call passes for param; left out, its default's (the value made with the def:
        `lambda b=mgr.get_buffers(i): b.to(dt)` called as `fns[i]()` converts that layer); not under a
        callerless call (_callerless: what the parameters hold with no call but the conventions')."""
        if argument is None:
            given = param.default is not None and id(call) not in self._callerless
            return self.origin(param.default, depth) if given else Origin.OTHER
        return self.origin(argument, depth)

    def _receiver_slot(self, call: cst.Call, target, skip_self: bool, depth: int) -> list:
        """[(origin, held)] of the receiver a method call hands a def with no named positional
        parameter (a method decorator's `wrapper(*args, **kwargs)`: self is args[0]); []."""
        if not skip_self or not isinstance(call.func, cst.Attribute) or self._positional_params(target, False):
            return []
        return [(self.origin(call.func.value, depth), ())]

    def _forwarded(self, call: cst.Call, depth: int):
        """(positional, keywords) of a call that unpacks what it was given (`fn(*args, **kwargs)`
        in a wrapper whose call is being followed, `f(*(a, b))`): (origin, held) per positional
        argument, name -> (origin, held) per keyword; None when an unpacked value is unknown."""
        positional, keywords = [], {}
        for arg in call.args:
            if arg.keyword is not None:
                keywords[arg.keyword.value] = (self.origin(arg.value, depth), self.held_value(arg.value))
            elif not arg.star:
                positional.append((self.origin(arg.value, depth), self.held_value(arg.value)))
            elif (
                arg.star == "*"
                and isinstance(arg.value, (cst.Tuple, cst.List))
                and not any(isinstance(e, cst.StarredElement) for e in arg.value.elements)
            ):
                positional.extend((self.origin(e.value, depth), self.held_value(e.value)) for e in arg.value.elements)
            else:
                held = self._held_star(arg.value, "*" if arg.star == "*" else "**")
                if held is None:
                    return None
                if arg.star == "*":
                    positional.extend(held)
                else:
                    keywords.update((name, (origin, callables)) for name, origin, callables in held)
        return positional, keywords

    def _held_star(self, expr: cst.BaseExpression, kind: str):
        """What a followed call passed into the `*args` (kind "*") or `**kwargs` ("**") parameter
        that expr names, from the bindings; None when expr is no such parameter."""
        if not isinstance(expr, cst.Name) or not self._bindings:
            return None
        for assignment in self.reaching(expr):
            node = assignment.node
            param = self.param_of(node)
            if isinstance(param, cst.Param):
                for bindings in reversed(self._bindings):
                    if (kind, id(param)) in bindings:
                        return bindings[(kind, id(param))]
        return None

    def _bind_forwarded(self, forwarded, target, skip_self: bool) -> Dict:
        """_bound_params for the arguments _forwarded gives."""
        positional, keywords = forwarded
        params = target.params
        names = self._positional_params(target, skip_self)
        by_name = {p.name.value: p for p in (*params.posonly_params, *params.params, *params.kwonly_params)}
        given = dict(zip(names, positional))
        given.update((k, v) for k, v in keywords.items() if k in by_name)
        bindings: Dict = {}
        for name, param in by_name.items():
            origin, held = given.get(name, (Origin.OTHER, ()))
            bindings[id(param)] = origin
            if held:
                bindings[("held", id(param))] = held
                self._held_params.add(name)
        if isinstance(params.star_arg, cst.Param):
            extra = tuple(positional[len(names) :])
            bindings[id(params.star_arg)] = (
                Origin.POOL_TUPLE if any(o >= Origin.PREFIX for o, _ in extra) else Origin.OTHER
            )
            bindings[("*", id(params.star_arg))] = extra
        if params.star_kwarg is not None:
            extra_kw = tuple(sorted((k, o, h) for k, (o, h) in keywords.items() if k not in by_name))
            bindings[id(params.star_kwarg)] = (
                Origin.POOL_TUPLE if any(o >= Origin.PREFIX for _, o, _ in extra_kw) else Origin.OTHER
            )
            bindings[("**", id(params.star_kwarg))] = extra_kw
        return bindings

    @staticmethod
    def merged_args(bound, args) -> list:
        """The arguments of a call through a partial: the bound ones first, keywords last."""
        every = [*bound, *args]
        return [a for a in every if a.keyword is None and a.star != "**"] + [
            a for a in every if a.keyword is not None or a.star == "**"
        ]

    def _returned(
        self,
        call: cst.Call,
        target,
        skip_self: bool,
        depth: int,
        path: tuple = (),
        env: Optional[Dict[int, Origin]] = None,
    ) -> Origin:
        """What target returns when call reaches it; env: the parameters of the function a
        closure was made in, bound by the call that made it."""
        bindings = dict(env or {})
        bindings.update(self._bound_params(call, target, skip_self, depth))
        bindings.update(self.self_frame(call, skip_self, target))
        bindings.update(self._none_params(call, target, skip_self))
        key = (id(target), frozenset(bindings.items()), path)
        if key in self._returns_cache:
            return self._returns_cache[key]
        if id(target) in self._returns_in_progress or depth > MAX_DEPTH:
            return Origin.OTHER
        values = [target.body] if isinstance(target, cst.Lambda) else self._return_values(target)
        yields, delegated = ([], []) if isinstance(target, cst.Lambda) else self._yield_values(target)
        saved = self._origin_cache
        self._origin_cache = {}
        self._bindings.append(bindings)
        values = [v for v in values if self._reachable_under(v, target)]
        self._returns_in_progress.add(id(target))
        try:
            best = max((self._unpacked(v, path, depth) for v in values), default=Origin.OTHER)
            if yields or delegated:  # a generator: what it yields, as the elements of what it returns
                each = max((self.origin(v, depth) for v in yields), default=Origin.OTHER)
                best = max(
                    best,
                    Origin.POOL_TUPLE if each >= Origin.POOL_TUPLE else min(each, Origin.GATHERED),
                    max((self.origin(v, depth) for v in delegated), default=Origin.OTHER),
                )
        finally:
            self._returns_in_progress.discard(id(target))
            self._bindings.pop()
            self._origin_cache = saved
        self._returns_cache[key] = best
        return best

    @staticmethod
    def _yield_values(func: cst.FunctionDef) -> Tuple[List[cst.BaseExpression], List[cst.BaseExpression]]:
        """(what `yield v` yields, what `yield from it` delegates to) in func itself."""
        yields, delegated = [], []
        stack = [func.body]
        while stack:
            node = stack.pop()
            if isinstance(node, cst.Yield) and node.value is not None:
                (delegated if isinstance(node.value, cst.From) else yields).append(
                    node.value.item if isinstance(node.value, cst.From) else node.value
                )
            if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
                continue
            stack.extend(children(node))
        return yields, delegated

    def _return_values(self, func: cst.FunctionDef) -> List[cst.BaseExpression]:
        """What `return v` returns in func itself (once per function: every call resolution asks)."""
        cache = self.derived.setdefault("return_values", {})
        found = cache.get(id(func))
        if found is None:
            found = cache[id(func)] = self._own_returns(func)
        return found

    @staticmethod
    def _own_returns(func: cst.FunctionDef) -> List[cst.BaseExpression]:
        out = []
        stack = [func.body]
        while stack:
            node = stack.pop()
            if isinstance(node, cst.Return):
                if node.value is not None:
                    out.append(node.value)
                continue
            if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
                continue
            stack.extend(children(node))
        return out
