"""The queries the rules ask of a module's analysis: which casts convert a whole pool (made
here or by a callee that converts what a call passes), where they are gathered, guarded or
inside an accessor, and which methods every decode step runs. A mixin of ModuleAnalysis: the
flow it reads (origin, cast_target, return_targets, ...) is dataflow's and object_flow's."""

from __future__ import annotations

import builtins
from typing import Dict, List, Optional, Tuple

import libcst as cst

from castlint.analysis import hot_path
from castlint.analysis.origin import Origin
from castlint.analysis.same_dtype import copy_keeps_dtype, same_dtype_cast
from castlint.analysis.tree import dotted, iter_nodes
from castlint.tables import Tables

_BUILTIN_NAMES = frozenset(dir(builtins))
_DTYPE = "dtype"  # dataflow.DTYPE: what value_kind says of a dtype


def is_hot_entry(name: str, tables: Tables) -> bool:
    """A method every decode step runs (castlint.analysis.hot_path)."""
    return hot_path.is_hot_entry(name, tables.hot_path_entry_points, tables.accessors)


class ConversionQueries:
    # -- conversions made by a call: the callee converts what this call passes ----------
    def _casts_in(self, target) -> List[cst.Call]:
        """The cast-method calls inside a def or lambda (nested lambdas and comprehensions
        included, nested defs not)."""
        index = self.__dict__.get("_casts_in_index")
        if index is None:  # one pass: each cast, under its lambdas and its innermost def
            index = self._casts_in_index = {}
            casts = self.tables.casts
            for call in self.nodes.calls:
                func = call.func
                if not (isinstance(func, cst.Attribute) and func.attr.value in casts):
                    continue
                for anc in self.ancestors(call):
                    if isinstance(anc, (cst.FunctionDef, cst.Lambda)):
                        index.setdefault(id(anc), []).append(call)
                        if isinstance(anc, cst.FunctionDef):
                            break
        return index.get(id(target), [])

    def _converts_under(
        self, call: cst.Call, target, skip_self: bool, depth: int, env: Optional[Dict[int, Origin]] = None
    ) -> List[Tuple[cst.Call, str]]:
        """The casts inside target that convert a whole pool when this call reaches it
        (its parameters bound to the call's arguments; `**kw` to its keywords)."""
        if depth > 4 or id(target) in self._returns_in_progress:
            return []
        bindings = self._call_bindings(call, target, skip_self, depth, env)
        saved, saved_kinds = self._origin_cache, self._kind_cache
        self._origin_cache, self._kind_cache = {}, {}
        self._bindings.append(bindings)
        self._frames.append((target, call))
        self._returns_in_progress.add(id(target))
        try:
            out = []
            for cast in self._casts_in(target):
                wanted = self.cast_target(cast)
                receiver = self.cast_receiver(cast)
                if (
                    wanted is not None
                    and receiver is not None
                    and self.origin(receiver, depth) >= Origin.POOL_TUPLE
                    and not same_dtype_cast(self, cast)
                ):
                    out.append((cast, wanted))
            for inner in self._held_calls(target):  # a wrapper calls what it holds: `fn(*args, **kwargs)`
                for form, _, skip, env in self._call_forms(inner):
                    if isinstance(form, (cst.FunctionDef, cst.Lambda)):
                        out.extend(self._converts_under(inner, form, skip, depth + 1, env))
            for inner in self.forwarding_calls(target):  # `self._inner(**kwargs)`: the call's arguments go on
                for form, skip, env in self.return_targets(inner):
                    if isinstance(form, cst.FunctionDef):
                        out.extend(self._converts_under(inner, form, skip, depth + 1, env))
            return out
        finally:
            self._returns_in_progress.discard(id(target))
            self._frames.pop()
            self._bindings.pop()
            self._origin_cache, self._kind_cache = saved, saved_kinds

    def forwarding_calls(self, target) -> List[cst.Call]:
        """The calls in a def (not in its nested defs) that hand its own `*args` / `**kwargs` on
        (`return self._inner(query, **kwargs)`): what its callers pass goes on to that callee."""
        if not isinstance(target, cst.FunctionDef):
            return []
        stars = {p.name.value for p in (target.params.star_arg, target.params.star_kwarg) if isinstance(p, cst.Param)}
        if not stars:
            return []
        cache = self.__dict__.setdefault("_forwarding_index", {})
        found = cache.get(id(target))
        if found is None:
            found = [
                call
                for call in self.nodes.calls
                if any(a.star and isinstance(a.value, cst.Name) and a.value.value in stars for a in call.args)
                and self.enclosing_function(call) is target
            ]
            cache[id(target)] = found
        return found

    def _held_calls(self, target) -> List[cst.Call]:
        """The calls in a def or lambda (not in its nested defs) of a callable a parameter may
        hold: `fn(...)` of a name no def of the module has, `self.fn(...)` of an attribute the
        module assigns (a class decorator's `self.fn = fn`)."""
        index = self.__dict__.get("_held_calls_index")
        if index is None:
            index = self._held_calls_index = {}
            held = self._held_attribute_names()
            for call in self.nodes.calls:
                func = call.func
                if isinstance(func, cst.Name):
                    if func.value in self.nodes.local_callables:
                        continue
                elif not (
                    isinstance(func, cst.Attribute)
                    and isinstance(func.value, cst.Name)
                    and func.value.value == "self"
                    and func.attr.value in held
                    and func.attr.value not in self.nodes.local_callables
                ):
                    continue
                owner = next((a for a in self.ancestors(call) if isinstance(a, (cst.FunctionDef, cst.Lambda))), None)
                if owner is not None:
                    index.setdefault(id(owner), []).append(call)
        calls = index.get(id(target), [])
        return [c for c in calls if not isinstance(c.func, cst.Name) or c.func.value in self._held_params]

    def _call_forms(self, call: cst.Call) -> list:
        """(callee, bound arguments, skip_self, env) for what a call reaches: a def, method or
        lambda of the module (return_targets), or a held callable (a lambda, a closure, a
        partial of anything, getattr of a method, an unbound tensor method)."""
        if self.called_property(call.func):
            out = []  # the getter runs on the read; the call runs what it returns
        else:
            out = [(target, (), skip, env) for target, skip, env in self.return_targets(call)]
            if isinstance(call.func, cst.Attribute) and self.find_method_for(call) is not None:
                return out
        for form, bound in self.callable_values(call.func):
            if isinstance(form, tuple) and form[0] == "closure":
                _, inner, env, skip = form
                out.append((inner, tuple(bound), skip, env))
            elif isinstance(form, cst.Attribute) and form.attr.value == "__call__" and self._function_values(form):
                out.extend((t, tuple(bound), s, e) for t, s, e in self._function_values(form))  # an object's __call__
            elif isinstance(form, (cst.Lambda, cst.Attribute, cst.Name)) or (
                isinstance(form, tuple) and form[0] == "method"
            ):
                out.append((form, tuple(bound), False, None))
        return out

    def called_property(self, func: cst.BaseExpression) -> bool:
        """Is func (`self.to_compute` of `self.to_compute(kv, d)`) a property of the receiver's class?
        Calling it calls what its getter returns (a lambda, a def, a closure)."""
        if not isinstance(func, cst.Attribute) or func.attr.value not in self._property_names():
            return False
        owner = self.instance_class(func.value)
        return owner is not None and self.property_getter(owner, func.attr.value) is not None

    def _property_names(self) -> set:
        found = self.__dict__.get("_property_name_set")
        if found is None:
            found = self._property_name_set = set()
            for cls in self.module_classes().values():
                found.update(name for name, m in self.class_methods(cls).items() if self.is_property(m))
                found.update(self.called_properties(cls))
        return found

    def find_method_for(self, call: cst.Call):
        """The method `obj.m(...)` runs when obj's class is known, else None."""
        targets = self.return_targets(call)
        return targets[0][0] if targets else None

    def call_conversions(self) -> List[Tuple[cst.Call, str, str]]:
        """(call, target dtype, what converts) for calls that convert a whole pool in their
        callee: a lambda, partial or getattr of a cast (`partial(torch.Tensor.to, dtype=d)(pool)`,
        `getattr(pool, "to")(d)`, `self.caster(pool)`), `map(torch.Tensor.float, caches)`, or a
        helper of the module some of whose callers pass other values (the conversion is then
        this call's, not the helper's)."""
        if self._call_conversions is not None:
            return self._call_conversions
        out: List[Tuple[cst.Call, str, str]] = []
        # casts reported at their own line (a cast of the pool, an unbound `torch.Tensor.to(pool)`,
        # a copy into a buffer of another dtype) are not reported again at the calls that reach them
        reported = {id(c) for c, _ in self.pool_casts()} | {id(c) for c, _, _ in self.pool_conversions()}
        # a learnt runner's `fn(*args)`: the callables handed to it report at their own lines
        reported |= self.learnt_inner_calls()
        for call in self.nodes.calls:
            if self.cast_target(call) is not None or id(call) in reported:
                continue
            found = self._call_converts(call, reported)
            if (
                found is not None
                and not self.guarded_fallback(call)
                and not self._callers_convert(call, reported)
                and not self.runs_once(call)  # (a helper's conversion at setup: `__init__` calls it once)
            ):
                out.append((call, *found))
        self._call_conversions = out
        return out

    def _held_attribute_names(self) -> set:
        """Names of the attributes the module assigns (`self.x = ...`, `obj.x = ...`, record
        fields): where a callable may be stored."""
        found = self.__dict__.get("_held_names")
        if found is None:
            found = {target.attr.value for target, _ in self.nodes.self_assignments}
            for cls in self.module_classes().values():
                if self.is_record(cls):
                    found.update(self.record_fields(cls))
                for small in cls.body.body:  # class-body callables: `widen = partialmethod(_widen, ...)`
                    if isinstance(small, cst.SimpleStatementLine):
                        for stmt in small.body:
                            if isinstance(stmt, cst.Assign):
                                found.update(t.target.value for t in stmt.targets if isinstance(t.target, cst.Name))
            self._held_names = found
        return found

    def _star_applied(self, call: cst.Call) -> List[cst.Call]:
        """`f(*row)` for each row of a star_apply call's iterable that the file shows as a tuple or
        list display (rules/accessors.toml [iteration] star_apply)."""
        cache = self.__dict__.setdefault("_star_applied_calls", {})
        if id(call) not in cache:
            out = []
            for row in self.element_values(call.args[1].value, None) or ():
                if isinstance(row, (cst.Tuple, cst.List)) and all(isinstance(e, cst.Element) for e in row.elements):
                    applied = cst.Call(func=call.args[0].value, args=[cst.Arg(e.value) for e in row.elements])
                    self.parents.setdefault(applied, self.parents.get(row))
                    out.append(applied)
            cache[id(call)] = out
        return cache[id(call)]

    def _mapped_element(self, seq: cst.BaseExpression) -> cst.BaseExpression:
        """What `map(f, ..., seq)` hands f from seq: the value `itertools.repeat(v)` repeats, else `seq[0]`."""
        if isinstance(seq, cst.Call) and seq.args and not seq.args[0].star and seq.args[0].keyword is None:
            if self._named_in(seq, self.tables.iter_repeats):
                return seq.args[0].value
        return cst.Subscript(seq, [cst.SubscriptElement(cst.Index(cst.Integer("0")))])

    def _call_converts(self, call: cst.Call, reported: set) -> Optional[Tuple[str, str]]:
        func = call.func
        fn = self.applied_function(call)
        if fn is not None and self.applier(call) != "fold" and len(call.args) >= fn + 2:
            # map(torch.Tensor.float, caches), tree_map(torch.Tensor.half, caches): the callee applied to
            # each element (each leaf)
            elements = [self._mapped_element(a.value) for a in call.args[fn + 1 :] if a.keyword is None]
            applied = cst.Call(func=call.args[fn].value, args=[cst.Arg(e) for e in elements])
            for element in elements:
                self.parents.setdefault(element, applied)
            self.parents.setdefault(applied, self.parents.get(call))
            wanted = self.cast_target(applied)  # map(torch.Tensor.float, caches)
            receiver = self.cast_receiver(applied) if wanted is not None else None
            if receiver is not None and self.origin(receiver) >= Origin.POOL_TUPLE:
                return wanted, self.code(call.args[fn].value)
            return self._call_converts(applied, reported)
        short = func.value if isinstance(func, cst.Name) else func.attr.value if isinstance(func, cst.Attribute) else ""
        if (
            len(call.args) >= 2
            and any(short == n.rsplit(".", 1)[-1] for n in self.tables.iter_star_apply)
            and self.qualified(call) in self.tables.iter_star_apply
        ):
            # starmap(torch.Tensor.to, ((t, dtype) for t in caches)): the callee called with each row's items
            for applied in self._star_applied(call):
                wanted = self.cast_target(applied)
                receiver = self.cast_receiver(applied) if wanted is not None else None
                if receiver is not None and self.origin(receiver) >= Origin.POOL:
                    return wanted, self.code(call.args[0].value)
                found = self._call_converts(applied, reported)
                if found is not None:
                    return found
            return None
        if short in self._runner_shorts():
            # operator.call(f, pool, ...), executor.submit(torch.Tensor.float, pool), Thread(target=f, args=(pool,)):
            # f(pool, ...), made by the runner; a learnt runner's (`timer.run("k", torch.Tensor.to, kv, d)`)
            # only when f is a cast itself: a def it is handed is bound through value_callers and reports at
            # its own line
            learnt = (isinstance(func, cst.Name) and short in self.learnt_runners()) or (
                isinstance(func, cst.Attribute) and self._learnt_method(call) is not None
            )
            for applied in self.run_calls(call):
                wanted = self.cast_target(applied)
                receiver = self.cast_receiver(applied) if wanted is not None else None
                if receiver is not None and self.origin(receiver) >= Origin.POOL_TUPLE:
                    return wanted, self.code(applied.func)
                if learnt:
                    continue
                found = self._call_converts(applied, reported)
                if found is not None:
                    return found
        receiver, method, _ = self.method_parts(call)
        if method is not None and receiver is not None and receiver is func.value and method in self.tables.casts:
            return None  # a cast itself (pool_casts decides it)
        name = func.value if isinstance(func, cst.Name) else method
        if name in self.tables.conversion_helpers:
            return None  # a conversion helper: CL004's, with its own cost model
        if (
            isinstance(func, cst.Attribute)
            and func.attr.value not in self.nodes.local_callables
            and func.attr.value not in self._held_attribute_names()
        ):
            return None  # neither a method of the module nor a callable stored in an attribute
        if any(a.star for a in call.args):
            forwarder = self.enclosing_function(call)
            if (
                isinstance(forwarder, cst.FunctionDef)
                and any(c is call for c in self.forwarding_calls(forwarder))
                and self._callers_of(forwarder)
            ):
                return None  # it hands on what its own callers pass: theirs is the conversion
        stages = self.composed_stages(func) if len(call.args) == 1 and not call.args[0].star else None
        if stages:  # `self.widen(pool)` of `self.widen = _compose(torch.Tensor.contiguous, partial(...))`
            return self._stages_convert(call, stages, reported)
        forms = self._call_forms(call)
        if isinstance(func, cst.Subscript) and not self.keyed_values(func) and len(forms) > 1:
            # a dispatch table indexed by a computed key (`_CASTS[self.mode](pool)`): a cast when
            # every entry converts what the call passes
            results = [self._form_converts(call, [form], reported) for form in forms]
            return results[0] if all(results) else None
        return self._form_converts(call, forms, reported)

    def _stages_convert(self, call: cst.Call, stages, reported: set) -> Optional[Tuple[str, str]]:
        """Does a composed callable convert a whole pool: each stage applied to what the one before
        gives (`g(f(x))`), the first stage that converts (a cast, or a callable that converts)."""
        value = call.args[0].value
        cache = self.__dict__.setdefault("_stage_nodes", {})
        for index, stage in enumerate(stages):
            key = (id(call), index)
            applied = cache.get(key)
            if applied is None:
                applied = cache[key] = cst.Call(func=stage, args=[cst.Arg(value)])
                self.parents.setdefault(applied, self.parents.get(call))
            wanted = self.cast_target(applied)
            receiver = self.cast_receiver(applied) if wanted is not None else None
            if receiver is not None:
                if self.origin(receiver) >= Origin.POOL_TUPLE and not same_dtype_cast(self, applied):
                    return wanted, self.code(stage)
            else:
                found = self._call_converts(applied, reported)
                if found is not None:
                    return found
            value = applied
        return None

    def _form_converts(self, call: cst.Call, forms, reported: set) -> Optional[Tuple[str, str]]:
        for target, bound, skip, env in forms:
            if isinstance(target, tuple):  # methodcaller("to", d)(x): x.to(d)
                if (
                    target[1] not in self.tables.casts
                    or not call.args
                    or call.args[0].star
                    or call.args[0].keyword is not None
                ):
                    continue
                method = cst.Attribute(call.args[0].value, cst.Name(target[1]))
                form = cst.Call(func=method, args=self.merged_args(bound, call.args[1:]))
                self.parents.setdefault(method, form)
                self.parents.setdefault(form, self.parents.get(call))
                wanted = self.cast_target(form)
                if wanted is not None and self.origin(call.args[0].value) >= Origin.POOL_TUPLE:
                    return wanted, f"operator.methodcaller({target[1]!r})"
                continue
            if isinstance(target, (cst.Attribute, cst.Name)):
                if (target.attr.value if isinstance(target, cst.Attribute) else target.value) not in self.tables.casts:
                    continue
            elif not self._casts_in(target) and not self._held_calls(target) and not self.forwarding_calls(target):
                continue
            elif (
                env is None
                and not (isinstance(target, cst.FunctionDef) and target.params.star_kwarg)
                and all(
                    self.origin(a.value) < Origin.PREFIX and not self.hands_accessor(a.value)
                    for a in (*bound, *call.args)
                )
            ):
                continue  # nothing whole goes in: what the callee converts whole, it converts for every caller
            synthetic = cst.Call(func=call.func, args=self.merged_args(bound, call.args)) if bound else call
            if synthetic is not call:
                self.parents.setdefault(synthetic, self.parents.get(call))
            if isinstance(target, (cst.Attribute, cst.Name)):  # an unbound cast, getattr(x, "to")
                form = cst.Call(func=target, args=self.merged_args(bound, call.args))
                self.parents.setdefault(form, self.parents.get(call))
                wanted = self.cast_target(form)
                receiver = self.cast_receiver(form)
                if (
                    wanted is not None
                    and receiver is not None
                    and self.origin(receiver) >= Origin.POOL_TUPLE
                    and not same_dtype_cast(self, form)
                ):
                    return wanted, self.code(target)
                continue
            for cast, wanted in self._converts_under(synthetic, target, skip, 0, env):
                if id(cast) not in reported:
                    owner = self.enclosing_function(cast)  # the decorated def a wrapper calls, or target
                    named = (
                        owner
                        if owner is not None and owner is not target and target not in self.ancestors(cast)
                        else target
                    )
                    name = getattr(getattr(named, "name", None), "value", None) or "a lambda"
                    return wanted, f"{name} (line {self.position(cast).start.line})"
        return None

    def hands_accessor(self, expr: cst.BaseExpression) -> bool:
        """Is expr a pool accessor handed on uncalled (`self.pool.get_key_buffer`, a local bound
        to one): the callee that calls it reads a whole pool."""
        if not isinstance(expr, (cst.Attribute, cst.Name)):
            return False
        for form, _ in self.callable_values(expr) if isinstance(expr, cst.Name) else [(expr, ())]:
            if isinstance(form, cst.Attribute) and form.attr.value in self.tables.accessors:
                probe = cst.Call(func=form)
                self.parents.setdefault(probe, self.parents.get(expr))
                if self._accessor_receiver_ok(probe):
                    return True
        return False

    def held_callee(self, call: cst.Call) -> Optional[Tuple[str, List[cst.BaseExpression]]]:
        """(function name, positional arguments) of a call through a held callable that names
        a function: `self.deq = partial(dequantize_kv_tensor, dtype=d)`, `getattr(module, "f")`,
        `f2 = f`; the bound arguments come first. None when the callee is no such alias."""
        for form, bound in self.callable_values(call.func):
            if isinstance(form, (cst.Name, cst.Attribute)):
                name = form.value if isinstance(form, cst.Name) else form.attr.value
                positional, _ = self.expanded_args(self.merged_args(bound, call.args))
                return name, positional
        return None

    def cast_receiver(self, call: cst.Call) -> Optional[cst.BaseExpression]:
        receiver, method, _ = self.method_parts(call)
        return receiver if method is not None else None

    def chained_into_cast(self, call: cst.Call) -> bool:
        """Is this cast converted again right away (`pool.to(f32).to(bf16)`), or after an elementwise
        op that keeps every slot (`(pool.int() & 0xF).to(d)`, `pool.float().clamp(a, b).half()`)? The
        chain is reported once, at its last cast."""
        node = call
        while node is not None:
            parent = self.parents.get(node)
            if isinstance(parent, cst.Attribute) and parent.value is node:
                outer = self.parents.get(parent)
                if isinstance(outer, cst.Call) and outer.func is parent and self.cast_target(outer) is not None:
                    return True
            if isinstance(parent, cst.Arg):
                outer = self.parents.get(parent)
                if isinstance(outer, cst.Call) and self.cast_target(outer) is not None:
                    return self.cast_receiver(outer) is node
            node = self._slots_kept_by(node)
        return False

    def _slots_kept_by(self, node: cst.CSTNode) -> Optional[cst.CSTNode]:
        """The expression right around node that keeps every slot of it, elementwise: arithmetic
        with a number (`node & 0xF`, `node * 2`) or an elementwise method ([views] elementwise_methods:
        `node.clamp(a, b)`); None for anything else."""
        parent = self.parents.get(node)
        if isinstance(parent, cst.BinaryOperation):
            other = parent.right if parent.left is node else parent.left
            while isinstance(other, cst.UnaryOperation):
                other = other.expression
            return parent if isinstance(other, (cst.Integer, cst.Float)) else None
        if (
            isinstance(parent, cst.Attribute)
            and parent.value is node
            and parent.attr.value in self.tables.elementwise_methods
        ):
            outer = self.parents.get(parent)
            return outer if isinstance(outer, cst.Call) and outer.func is parent else None
        return None

    def _kept_source(self, node: Optional[cst.BaseExpression]) -> Optional[cst.BaseExpression]:
        """What node keeps every slot of, through _slots_kept_by's ops (`(x & 0xF)` -> x)."""
        while node is not None:
            if isinstance(node, cst.BinaryOperation):
                left, right = node.left, node.right
                for whole, other in ((left, right), (right, left)):
                    while isinstance(other, cst.UnaryOperation):
                        other = other.expression
                    if isinstance(other, (cst.Integer, cst.Float)):
                        node = whole
                        break
                else:
                    return node
                continue
            if (
                isinstance(node, cst.Call)
                and isinstance(node.func, cst.Attribute)
                and node.func.attr.value in self.tables.elementwise_methods
            ):
                node = node.func.value
                continue
            return node
        return node

    def cast_chain(self, call: cst.Call) -> List[Tuple[cst.Call, str]]:
        """The casts of a chain ending at call, innermost first: [(call, target), ...]; elementwise
        ops between them (chained_into_cast) are read through."""
        chain = []
        node = call
        while isinstance(node, cst.Call):
            target = self.cast_target(node)
            if target is None:
                break
            chain.append((node, target))
            node = self._kept_source(self.cast_receiver(node))
        return list(reversed(chain))

    def pool_casts(self) -> List[Tuple[cst.Call, str]]:
        """(call, target dtype) for every dtype cast `pool.<cast>(...)` of a whole pool outside
        the fix's fallback; a chain of casts counts once, at its last cast. A cast in a helper
        that converts a pool only for some of its callers is theirs (call_conversions)."""
        if self._pool_casts is None:
            self._pool_casts = [
                (call, target)
                for call in self.nodes.calls
                if isinstance(call.func, cst.Attribute)
                and not self._is_unbound_receiver(call.func.value)
                and (target := self.cast_target(call)) is not None
                and self.constructor_parts(call) is None  # `t.new_tensor(pool, dtype=d)`: pool_conversions
                and (self.origin(call.func.value) >= Origin.POOL_TUPLE or self._whole_in_every_wrapping(call))
                and not self.chained_into_cast(call)
                and not self.guarded_fallback(call)
                and not self._for_some_callers(call)
                and not same_dtype_cast(self, call)
                and not self.runs_once(call)
                and not self.scales_whole(call)
            ]
        return self._pool_casts

    def scales_whole(self, node: cst.CSTNode, depth: int = 0) -> bool:
        """Is this converted value only ever the scale of another whole buffer: the right operand
        of `*` or `/` whose left operand is a whole pool (`data * sc.repeat_interleave(16, -1)`,
        after views and names bound once)? A dequantization's scale tensor, not KV slots: the
        conversion of the data is the one that counts."""
        if depth > 4:
            return False
        t = self.tables
        while True:
            parent = self.parents.get(node)
            if isinstance(parent, cst.Attribute) and parent.value is node and parent.attr.value in t.view_methods:
                call = self.parents.get(parent)
                if not (isinstance(call, cst.Call) and call.func is parent):
                    return False
                node = call
                continue
            if isinstance(parent, cst.Subscript) and parent.value is node:
                node = parent
                continue
            if isinstance(parent, cst.BinaryOperation) and parent.right is node:
                return (
                    isinstance(parent.operator, (cst.Multiply, cst.Divide))
                    and self.origin(parent.left) >= Origin.PREFIX
                )
            if (
                isinstance(parent, cst.Assign)
                and len(parent.targets) == 1
                and isinstance(parent.targets[0].target, cst.Name)
                and parent.value is node
            ):
                target = parent.targets[0].target
                scope = self.scopes.get(target)
                if scope is None or len(list(scope.assignments[target.value])) != 1:
                    return False
                uses = [access.node for access in scope.accesses[target.value]]
                return bool(uses) and all(isinstance(u, cst.Name) and self.scales_whole(u, depth + 1) for u in uses)
            return False

    def runs_once(self, node: cst.CSTNode) -> bool:
        """Is node run once per object: directly in a method that runs when the object is made
        (`[hot_path] run_once`: `__init__`, and the setup hooks), not in a def or lambda defined
        there, or in a method that only such methods call (`self._warm_up()` from `__init__`)?"""
        for ancestor in self.ancestors(node):
            if isinstance(ancestor, cst.Lambda):
                return False
            if isinstance(ancestor, cst.FunctionDef):
                cls = self.method_class(ancestor)
                if cls is None:
                    return self._once_function(ancestor, 0)
                return self._once_method(cls, ancestor, 0)
        return False

    def _once_function(self, func: cst.FunctionDef, depth: int) -> bool:
        """Is func a module-level function (undecorated) whose every visible call runs once: each one
        in a run-once method, or in another such function (`warm = [warm_copy(c) for c in caches]` in
        `__init__`, the sibling module's caller appended by the callers link: `ops.warm_copy(...)`)? Every
        reading of its name must be such a call (a function stored, handed on or exported may run per
        step where it lands)."""
        if depth > 3 or func.decorators or not isinstance(self.parents.get(func), cst.Module):
            return False
        name = func.name.value
        if is_hot_entry(name, self.tables) or name in self.tables.step_input_methods:
            return False
        if self._is_generator(func):
            return False
        calls = self._callers_of(func)
        if not calls:
            return False
        called = {id(call.func) for call, _, _ in calls}
        scope = self.scopes.get(func)
        if scope is None:
            return False
        for access in scope.accesses[name]:
            if id(access.node) not in called:
                return False  # (read as a value, or called where the callers do not see it)
        for call, _, _ in calls:
            caller = self.enclosing_function(call)
            if caller is None or caller is func:
                return False
            if not self._runs_once_at(call, depth + 1):
                return False
        return True

    def _runs_once_at(self, node: cst.CSTNode, depth: int) -> bool:
        for ancestor in self.ancestors(node):
            if isinstance(ancestor, cst.Lambda):
                return False
            if isinstance(ancestor, cst.FunctionDef):
                cls = self.method_class(ancestor)
                if cls is None:
                    return self._once_function(ancestor, depth)
                return self._once_method(cls, ancestor, depth)
        return False

    def _once_method(self, cls: cst.ClassDef, method: cst.FunctionDef, depth: int) -> bool:
        """Is method a run-once method, or one whose every call in the class family (at least
        one, each `self.<name>(...)` directly in a method) is in a run-once method? Not an entry
        point nor an accessor (an engine calls those from outside)."""
        name = method.name.value
        if name in self.tables.run_once_methods:
            # `LayerSnapshot(k_cache)` in a step method: its `__post_init__` runs on every step
            return not (name in self.tables.per_construction_methods and self._made_per_step(cls))
        if depth > 3 or is_hot_entry(name, self.tables) or name.lstrip("_") in self.tables.accessors:
            return False
        if name in self.tables.step_input_methods:
            return False
        if self._is_generator(method):
            return False  # a generator's body runs when it is resumed (`next`, `.send`), not when it is called
        family = {id(c) for c in self.class_family(cls)}
        callers = []
        for call in self.nodes.self_calls:
            if call.func.attr.value != name:
                continue
            caller = self.enclosing_function(call)
            owner = self.method_class(caller) if caller is not None else None
            if owner is None or id(owner) not in family or caller is method:
                return False  # a call from a nested def, a lambda, another class or itself
            callers.append((owner, caller))
        for caller in self._held_object_callers(cls, family, name):
            if caller is None:
                return False  # `agent.warm()` outside a method of a module class
            callers.append(caller)
        for store in self.store_calls(method):  # `self.stage.planes = buf` in __init__ runs planes's setter once
            caller = self.enclosing_function(store)
            owner = self.method_class(caller) if caller is not None else None
            if owner is None:
                return False
            callers.append((owner, caller))
        return bool(callers) and all(self._once_method(owner, caller, depth + 1) for owner, caller in callers)

    def _held_object_callers(self, cls: cst.ClassDef, family: set, name: str) -> list:
        """(owner, caller) of the calls `x.<name>(...)` on another object that is an instance of cls's family
        (`self.agent.warm()` in an engine's `build_model`, `self.agent = PipelineAgent(...)`): an engine calls
        a helper object's method from its own setup hooks. None for such a call outside a module class's
        method. Calls whose receiver's class is not known are not callers (as before)."""
        out = []
        for call in self._calls_by_attribute().get(name, ()):
            receiver = call.func.value
            if isinstance(receiver, cst.Name) and receiver.value == "self":
                continue  # (self_calls)
            if isinstance(receiver, cst.Call) and isinstance(receiver.func, cst.Name):
                if receiver.func.value == "super":
                    continue
            owner_cls = self.instance_class(receiver)
            if owner_cls is None or id(owner_cls) not in family:
                continue
            caller = self.enclosing_function(call)
            owner = self.method_class(caller) if caller is not None else None
            out.append((owner, caller) if owner is not None else None)
        return out

    def _made_per_step(self, cls: cst.ClassDef) -> bool:
        """Is cls (or a subclass, which runs its constructor) constructed in a step method: an entry point,
        a hot method of its class, a `[hot_path] step_inputs` method? Indexed once per module, only when a
        run-once method's conversion is asked about."""
        made = self.derived.get("made_per_step")
        if made is None:
            made = self.derived["made_per_step"] = set()
            names = self.module_classes()
            for call in self.nodes.calls:
                func = call.func
                short = func.attr.value if isinstance(func, cst.Attribute) else getattr(func, "value", None)
                if short not in names:
                    continue  # (cheap: only a call spelled with a class's name of the module)
                caller = self.enclosing_function(call)
                if caller is None or not self._step_method(caller):
                    continue
                built = self.constructed_class(call)
                if built is not None:
                    made.update(id(c) for c in self.class_mro(built))
        return id(cls) in made

    def _step_method(self, func: cst.FunctionDef) -> bool:
        name = func.name.value
        if name in self.tables.step_input_methods or is_hot_entry(name, self.tables):
            return True
        owner = self.method_class(func)
        return owner is not None and name in self.hot_functions(owner)

    def _for_some_callers(self, cast: cst.Call) -> bool:
        """Is this cast whole only through its function's parameters, and do some visible
        callers pass what it does not convert whole (a batch tensor, a device)? Then each
        caller that passes a pool converts it (call_conversions), not the helper."""
        owner = next((a for a in self.ancestors(cast) if isinstance(a, (cst.FunctionDef, cst.Lambda))), None)
        if owner is None:
            return False
        params = owner.params
        if not (params.params or params.posonly_params or params.kwonly_params or params.star_arg or params.star_kwarg):
            return False
        callers = self._callers_of(owner)
        if not callers:
            return False
        skip = isinstance(owner, cst.FunctionDef) and self.method_class(owner) is not None
        alone = cst.Call(func=cst.Name("_"))  # no caller: the parameters hold only what conventions give
        self.parents.setdefault(alone, self.parents.get(cast))
        self._callerless.add(id(alone))
        if any(c is cast for c, _ in self._converts_under(alone, owner, skip, 0)):
            return False
        converts = []
        for call, call_skip, env in self._through_forwarders(callers, owner):
            # a decorated owner: the wrapper its caller runs
            runs = next((w for w, _, e in self.decorated(call[1], call_skip) if e is env and w is not call[1]), call[1])
            converts.append(any(c is cast for c, _ in self._converts_under(call[0], runs, call_skip, 0, env)))
        if any(converts) and not all(converts) and self._whole_alone(alone, owner, skip, cast):
            # `def get_layer(self, i, dtype=None): buf = self._pools[i]; ...; return buf.to(dtype)`: what is
            # converted is whole whatever the callers pass, only whether it is converted is theirs (a caller
            # that asks for no dtype takes the early return): the conversion is the function's own
            return False
        return not all(converts)

    def _call_bindings(self, call: cst.Call, target, skip_self: bool, depth: int, env=None) -> dict:
        """What target's parameters hold when call reaches it (env first, then the call's arguments and
        self), each at least what an engine's calling convention gives it."""
        bindings = dict(env or {})
        bindings.update(self._bound_params(call, target, skip_self, depth))
        bindings.update(self.self_frame(call, skip_self, target))
        if isinstance(target, cst.FunctionDef):
            for param in (*target.params.posonly_params, *target.params.params, *target.params.kwonly_params):
                bindings[id(param)] = max(bindings[id(param)], self._convention_origin(target, param))
        return bindings

    def _whole_alone(self, alone: cst.Call, owner, skip_self: bool, cast: cst.Call) -> bool:
        """Is cast's receiver a whole pool with owner's parameters holding only what conventions give
        (no caller's argument: a buffer of the function's own object, an accessor's result)?"""
        receiver = self.cast_receiver(cast)
        if receiver is None:
            return False
        bindings = self._call_bindings(alone, owner, skip_self, 0)
        saved, saved_kinds = self._origin_cache, self._kind_cache
        self._origin_cache, self._kind_cache = {}, {}
        self._bindings.append(bindings)
        self._frames.append((owner, alone))
        try:
            return self.origin(receiver, 0) >= Origin.POOL_TUPLE
        finally:
            self._frames.pop()
            self._bindings.pop()
            self._origin_cache, self._kind_cache = saved, saved_kinds

    def wrapper_names(self) -> Dict[int, set]:
        """id(wrapper) -> the names of the defs it wraps: the def a decoration of the module returns in
        place of the decorated one (decorated(): a decorator's or a factory's closure, a decorator
        object's `__call__`'s inner def); a call of a decorated def runs its wrapper."""
        found = self.__dict__.get("_wrapper_names")
        if found is None:
            found = self._wrapper_names = {}
            for func in self.nodes.decorated_defs:
                for wrapper in self.decoration_wrappers(func):  # every layer of stacked decorators
                    if isinstance(wrapper, cst.FunctionDef):
                        found.setdefault(id(wrapper), set()).add(func.name.value)
        return found

    def _wrapped_callers(self, wrapper: cst.FunctionDef) -> List[tuple]:
        """((call, the outermost wrapper it runs), skip_self, env) for the visible calls of the defs an
        inner layer of stacked decorators wraps (`@count_calls @upcast(d) def f`: `self.f(...)` runs
        count_calls's wrapper, which hands the call on to upcast's)."""
        out = []
        for func in self.nodes.decorated_defs:
            if not any(w is wrapper for w in self.decoration_wrappers(func)):
                continue
            for call, skip, env in self._callers_of(func):
                runs = next((w for w, _, e in self.decorated(func, skip) if e is env and w is not func), None)
                if runs is None:
                    return []
                out.append(((call, runs), skip, env))
        return out

    def _whole_in_every_wrapping(self, cast: cst.Call) -> bool:
        """Is cast in a decorator's wrapper (wrapper_names) and does it convert a whole pool under every
        visible call of the defs that wrapper wraps (`fn(*args, **kwargs).to(self.dtype)` of a decorator
        object whose every decorated getter returns a whole pool)? Then it is the wrapper's own
        conversion, reported at its line, as a helper's whose every caller passes the pool."""
        owner = self.enclosing_function(cast)
        if not isinstance(owner, cst.FunctionDef) or id(owner) not in self.wrapper_names():
            return False
        callers = self._callers_of(owner)
        reached = self._through_forwarders(callers, owner) if callers else self._wrapped_callers(owner)
        if not reached:
            return False
        for (call, target), skip, env in reached:
            if not any(c is cast for c, _ in self._converts_under(call, target, skip, 0, env)):
                return False
        return True

    def _through_forwarders(self, callers, target, depth: int = 0) -> List[tuple]:
        """((call, the def it reaches), skip_self, env) for callers of target, where a call that
        hands on its own function's `*args` / `**kwargs` stands for that function's callers
        (evaluated from there: _converts_under follows the hand-on)."""
        out = []
        for call, skip, env in callers:
            forwarder = self.enclosing_function(call)
            if (
                depth < 3
                and isinstance(forwarder, cst.FunctionDef)
                and forwarder is not target
                and any(c is call for c in self.forwarding_calls(forwarder))
                and self._callers_of(forwarder)
            ):
                # (`encode(kv, d, *extra)` of an `encode` parameter: a caller that hands another def of the
                # module for it does not run target at all)
                running = [
                    c for c in self._callers_of(forwarder) if not self._hands_other_def(c, forwarder, call, target)
                ]
                out.extend(self._through_forwarders(running, forwarder, depth + 1))
                continue
            out.append(((call, target), skip, env))
        return out

    def _hands_other_def(self, caller: tuple, forwarder: cst.FunctionDef, call: cst.Call, target) -> bool:
        """Does caller (call, skip_self, env) of forwarder pass, for the parameter that call (in forwarder)
        calls, a def of the module other than target (`self._submit(name, kv, new_slots, rows)` where
        target is whole_layer)?"""
        if not (isinstance(call.func, cst.Name) and isinstance(target, cst.FunctionDef)):
            return False
        p = forwarder.params
        param = next(
            (x for x in (*p.posonly_params, *p.params, *p.kwonly_params) if x.name.value == call.func.value), None
        )
        if param is None:
            return False
        handed = self._argument_for(caller[0], forwarder, param, skip_self=caller[1])
        return (
            isinstance(handed, cst.Name)
            and handed.value != target.name.value
            and handed.value in self.nodes.local_callables
        )

    def _callers_convert(self, call: cst.Call, reported: set, depth: int = 0) -> bool:
        """Does call convert a pool only through its function's parameters, and do that function's
        callers convert it themselves (`[to_compute(t, d) for t in x]` in an overload whose caller
        `to_compute([buf[:, 0], buf[:, 1]], d)` is reported)? Then the conversion is theirs."""
        owner = next((a for a in self.ancestors(call) if isinstance(a, (cst.FunctionDef, cst.Lambda))), None)
        if owner is None or depth > 2:
            return False
        p = owner.params
        params = [
            *p.posonly_params,
            *p.params,
            *p.kwonly_params,
            *(x for x in (p.star_arg, p.star_kwarg) if isinstance(x, cst.Param)),
        ]
        if not params:
            return False
        callers = [c for c, _, _ in self._callers_of(owner) if c is not call and owner not in self.ancestors(c)]
        if not callers:
            return False
        saved = self._origin_cache, self._kind_cache
        self._origin_cache, self._kind_cache = {}, {}
        self._bindings.append({id(x): Origin.OTHER for x in params})
        try:
            alone = self._call_converts(call, reported)
        finally:
            self._bindings.pop()
            self._origin_cache, self._kind_cache = saved
        if alone is not None:
            return False
        return any(
            self._call_converts(c, reported) is not None and not self._callers_convert(c, reported, depth + 1)
            for c in callers
        )

    def _callers_of(self, target) -> List[tuple]:
        """(call, skip_self, env) for the visible calls that reach a def or lambda, found
        among the calls spelled with its name (a lambda: the name it is stored under)."""
        names = set()
        if isinstance(target, cst.FunctionDef):
            names.add(target.name.value)
            names.update(self.wrapper_names().get(id(target), ()))  # a decorator's wrapper: the calls of what it wraps
            if target.decorators:  # an overload of a generic function: the generic's calls run it
                names.update(n for n, defs in self.dispatch_overloads().items() if any(d is target for d in defs))
        else:
            assign = self.parents.get(target)
            if isinstance(assign, cst.Assign):
                for t in assign.targets:
                    if isinstance(t.target, (cst.Name, cst.Attribute)):
                        names.add(t.target.value if isinstance(t.target, cst.Name) else t.target.attr.value)
        out = []
        for call in self.nodes.calls:
            func = call.func
            name = (
                func.value
                if isinstance(func, cst.Name)
                else func.attr.value
                if isinstance(func, cst.Attribute)
                else None
            )
            if name in self.tables.unwrapped_attributes and isinstance(func.value, (cst.Name, cst.Attribute)):
                inner = func.value  # `type(self).m.__wrapped__(self, x)`: a call of m's def
                name = inner.value if isinstance(inner, cst.Name) else inner.attr.value
            if name not in names:
                continue
            forms = self._call_forms(call)
            for form, bound, skip, env in forms:
                if not bound and (
                    form is target
                    or any(  # through target's decorators: their wrapper
                        w is form and e is env for w, _, e in self.decorated(target, skip) if w is not target
                    )
                ):
                    out.append((call, skip, env))
            if (
                not forms
                and isinstance(func, cst.Attribute)
                and isinstance(target, cst.FunctionDef)
                and self.duck_class(func.value, name, method=True) is not None
                and self.class_methods(self.duck_class(func.value, name, method=True)).get(name) is target
            ):
                out.append((call, True, None))  # `self.pool.visit_layer(i, fn)`: the one class defining it
        for entry in self.value_callers().get(id(target), ()):
            if not any(c is entry[0] for c, _, _ in out):
                out.append(entry)
        if isinstance(target, cst.FunctionDef) and target.decorators and self._generic_names(target):
            out = [entry for entry in out if not self._dispatched_elsewhere(entry[0], target, entry[1])]
        return out

    def value_callers(self) -> Dict[int, List[tuple]]:
        """id(def or lambda) -> [(call, skip_self, env)] for the calls that run it as a value: a
        call through a parameter or a loop variable that holds it (ObjectFlow.callable_values): a
        hook appended to a list and called for each entry (`for hook in self._hooks: hook(kv)`),
        a visitor handed to a method that calls it (`pool.visit(i, self._densify)`), a def a
        decorator's wrapper calls (`fn(self, ..., **kw)`). Built once, on plain bindings."""
        index = self.__dict__.get("_value_call_index")
        if index is not None:
            return index
        index = self._value_call_index = {}  # (a read while it is built sees what is found so far)
        holders = self.nodes.value_holder_names
        saved = self._bindings, self._frames, self._origin_cache, self._kind_cache
        self._bindings, self._frames = [], []
        self._origin_cache, self._kind_cache = {}, {}
        try:
            local = self.nodes.local_callables
            self._runner_calls_index(index)
            for call in self.nodes.calls:
                func = call.func
                deferred = self.deferred_calls(call)
                if deferred:  # `for fn, args in self._pending: fn(*args)`: each queued callable, its arguments
                    for applied in deferred:
                        self._add_value_call(index, applied, applied.func)
                    continue
                if isinstance(func, cst.Lambda):  # `(lambda t: t.half())(pool)`: invoked where it is made
                    entries = index.setdefault(id(func), [])
                    if not any(c is call for c, _, _ in entries):
                        entries.append((call, False, None))
                    continue
                if isinstance(func, (cst.Subscript, cst.IfExp)):  # `self.converters[fmt](pool)`, `(f if c else g)(kv)`
                    self._add_value_call(index, call, func)
                    continue
                if self.called_property(func):  # `self.to_compute(kv, d)`: a callable the getter returns
                    for form, bound in self.callable_values(func):
                        for target, skip, env in () if bound else self._function_values(form):
                            entries = index.setdefault(id(target), [])
                            if not any(c is call for c, _, _ in entries):
                                entries.append((call, skip, env))
                    continue
                if isinstance(func, cst.Call) and self._named_in(func, self.tables.attribute_getters):
                    self._add_getattr_call(index, call)  # `getattr(self, f"_forward_{phase}")(q, buf)`
                    continue
                if not isinstance(func, cst.Name):
                    continue
                # a name bound to a def of the module, as it is or through a wrapper that stands in
                # for it (`_up = torch.compile(_up_impl)`: [callables] function_wrappers)
                alias = func.value not in holders and func.value not in local and func.value not in _BUILTIN_NAMES
                if func.value in local and func.value not in holders and self._rebound_def_name(func):
                    alias = True  # `widen = self._make_widener(d)` beside a nested `def widen`: what it is assigned
                if func.value not in holders and not alias:
                    continue
                if self._decorator_param_call(func):
                    continue  # `fn(...)` of a decorator's own parameter: decorated() follows it, per decoration
                if id(call) in self.learnt_inner_calls():
                    continue  # a learnt runner's `fn(*args)`: its calls hand their arguments (run_calls)
                for form, bound in self.callable_values(func):
                    if bound:  # `job = partial(self._encode, name, kv); job()`: the bound arguments first
                        self._add_partial_call(index, call, form, bound)
                        continue
                    if alias and not self._held_def(form):
                        continue
                    for target, skip, env in self._function_values(form):
                        entries = index.setdefault(id(target), [])
                        if not any(c is call for c, _, _ in entries):
                            entries.append((call, skip, env))
            self._object_calls_index(index)
            for func in self.nodes.decorated_defs:  # a decorator's wrapper calls the def it holds
                for wrapper, _, env in self.decorated(func, self.method_class(func) is not None):
                    if wrapper is func or not env:
                        continue
                    for inner in self._held_calls(wrapper):
                        if all(a.star for a in inner.args):
                            continue  # `fn(*args, **kwargs)` hands the call on: decorated() follows it
                        if self._holds(inner.func, func, env):
                            entries = index.setdefault(id(func), [])
                            if not any(c is inner for c, _, _ in entries):
                                entries.append((inner, False, env))  # `fn(self, q, ..., **kw)`: self passed
        finally:
            self._bindings, self._frames, self._origin_cache, self._kind_cache = saved
        return index

    def _rebound_def_name(self, func: cst.Name) -> bool:
        """Is a called name that a def of the module also spells bound, where it is called, by an assignment
        (`widen = self._make_widener(d)` in a method, beside the factory's nested `def widen`)? Then the
        call runs what the assignment holds, not the def of that name."""
        return any(isinstance(a.node, cst.Name) for a in self.reaching(func))

    def _method_names(self) -> set:
        """Names of the methods the module's classes define (indexed once)."""
        found = self.__dict__.get("_method_names_memo")
        if found is None:
            found = self._method_names_memo = {
                name for cls in self.module_classes().values() for name in self.class_methods(cls)
            }
        return found

    def _decorator_param_call(self, func: cst.Name) -> bool:
        """Is func a parameter of a decorator (ObjectFlow.decorator_params)?"""
        params = self.decorator_params()
        if not params:
            return False
        for assignment in self.reaching(func):
            node = assignment.node
            param = self.param_of(node)
            if isinstance(param, cst.Param) and id(param) in params:
                return True
        return False

    def _add_value_call(self, index: Dict[int, List[tuple]], call: cst.Call, func: cst.BaseExpression) -> None:
        """Index call under every def or lambda func may hold as a value (no partial's bound arguments), or
        names (a def of the module, a method `self.m`: ObjectFlow.return_targets)."""
        found = [(t, s, e) for t, s, e in self.return_targets(call) if isinstance(t, (cst.FunctionDef, cst.Lambda))]
        for form, bound in self.callable_values(func):
            if bound:  # `self._jobs[k]()` of a table of partials, `fn()` of a queued partial
                self._add_partial_call(index, call, form, bound)
            else:
                found.extend(self._function_values(form))
        for target, skip, env in found:
            entries = index.setdefault(id(target), [])
            if not any(c is call for c, _, _ in entries):
                entries.append((call, skip, env))

    def _add_partial_call(self, index: Dict[int, List[tuple]], call: cst.Call, form, bound) -> None:
        """Index, under the def or lambda a partial holds (`partial(self._encode, name, kv)`, a partialmethod),
        the call calling the partial makes: its bound arguments first, then the call's (a node of this
        module's parent map): the def's parameters receive what was bound."""
        targets = self._function_values(form)
        if not targets:
            return
        cache = self.__dict__.setdefault("_partial_call_nodes", {})
        key = (id(call), id(form) if not isinstance(form, tuple) else id(form[1]), tuple(id(a) for a in bound))
        applied = cache.get(key)
        if applied is None:
            callee = form if isinstance(form, (cst.Attribute, cst.Name, cst.Lambda)) else call.func
            applied = cache[key] = cst.Call(func=callee, args=self.merged_args(bound, call.args))
            self.parents.setdefault(applied, self.parents.get(call))
        for target, skip, env in targets:
            entries = index.setdefault(id(target), [])
            if not any(c is applied for c, _, _ in entries):
                entries.append((applied, skip, env))

    def _runner_calls_index(self, index: Dict[int, List[tuple]]) -> None:
        """The calls a runner makes of the callable it is handed (ObjectFlow.run_calls:
        `executor.submit(self._widen, kv)`, `Thread(target=f, args=(kv,))`, the function a fold
        applies): they run that def or lambda with the arguments the runner hands on. A fold's
        function first, so that a callable it calls (`f(acc)` of `reduce(lambda acc, f: f(acc),
        stages, buf)`) is found through its parameters."""
        shorts = self._runner_shorts()
        for call in self.nodes.calls:
            func = call.func
            short = (
                func.value
                if isinstance(func, cst.Name)
                else func.attr.value
                if isinstance(func, cst.Attribute)
                else None
            )
            if short not in shorts:
                continue
            for applied in self.run_calls(call):
                self._add_value_call(index, applied, applied.func)

    def _object_calls_index(self, index: Dict[int, List[tuple]]) -> None:
        """Calls of an object of a module class with `__call__` (`self.upcast(kv_cache)` of
        `self.upcast = Upcaster(dtype)`, `Upcaster(dtype)(kv_cache)`): they run its `__call__`
        with self bound. Only calls of a stored attribute, a local name or a construction. A
        stored attribute that holds a def of the module, as it is or through a wrapper that stands
        in for it (`self.up = torch.compile(_up_impl)`: [callables] function_wrappers), runs that
        def with the call's arguments."""
        callable_classes = {name for name, cls in self.module_classes().items() if self.called_method(cls)}
        runs = {"__call__", *(spelled.rsplit(".", 1)[-1] for spelled in self.tables.call_delegates)}
        held = self._held_attribute_names()
        for call in self.nodes.calls:
            func = call.func
            if isinstance(func, cst.Attribute):
                if func.attr.value not in held:
                    continue
                if func.attr.value in self.nodes.local_callables and func.attr.value in self._method_names():
                    continue  # `self.m(...)` of a method: the method calls follow it
            elif not callable_classes:
                continue
            elif isinstance(func, cst.Call):
                if not (isinstance(func.func, cst.Name) and func.func.value in callable_classes):
                    continue
            elif (
                not isinstance(func, cst.Name)
                or func.value in self.nodes.local_callables
                or func.value in _BUILTIN_NAMES
            ):
                continue
            for form, bound in self.callable_values(func):
                if bound:
                    if isinstance(func, cst.Attribute) and isinstance(form, tuple) and form[0] == "closure":
                        # `self._refresh(kv)` of a class body's `_refresh = partialmethod(Base._refresh_as, d)`
                        self._add_partial_call(index, call, form, bound)
                    continue
                if isinstance(form, cst.Attribute) and form.attr.value in runs:  # __call__, or forward
                    found = self._function_values(form)
                elif isinstance(func, cst.Attribute) and self._held_def(form) and not self._cast_lambda(form):
                    # `self.up = torch.compile(_up_impl)`; a lambda that only casts (`self.up = lambda t:
                    # t.float()`) is a held cast: it converts at the call (call_conversions)
                    found = self._function_values(form)
                else:
                    continue
                for target, skip, env in found:
                    entries = index.setdefault(id(target), [])
                    if not any(c is call for c, _, _ in entries):
                        entries.append((call, skip, env))

    def _add_getattr_call(self, index: dict, call: cst.Call) -> None:
        """The methods a call of a getattr result runs, as calls of bound methods (callable_values)."""
        for form, bound in self.callable_values(call.func):
            for target, skip, env in () if bound else self._function_values(form):
                entries = index.setdefault(id(target), [])
                if not any(c is call for c, _, _ in entries):
                    entries.append((call, skip, env))

    def _held_def(self, form) -> bool:
        """Is a callable form a def of the module held as it is (no factory's bindings), or a bound
        method `self.m` / `obj.m` of a class of the module?"""
        if isinstance(form, cst.Attribute):
            return form.attr.value != "__call__" and bool(self._function_values(form))
        if isinstance(form, cst.Lambda):  # `read = self._readers[key]` of a dict display of lambdas
            return True
        return isinstance(form, tuple) and form[0] == "closure"  # a factory's closure too: its bindings kept

    def _cast_lambda(self, form) -> bool:
        """`lambda t: t.float()`, `lambda t: t.to(d)`: a lambda whose body is a cast of one of its parameters."""
        if not isinstance(form, cst.Lambda):
            return False
        receiver, method, _ = self.method_parts(form.body) if isinstance(form.body, cst.Call) else (None, None, None)
        params = {p.name.value for p in form.params.params}
        return method in self.tables.casts and isinstance(receiver, cst.Name) and receiver.value in params

    def _holds(self, name: cst.BaseExpression, func, env) -> bool:
        """Does the parameter name is hold func under env (a decoration's bindings)?"""
        if not isinstance(name, cst.Name):
            return False
        for assignment in self.reaching(name):
            param = self.param_of(assignment.node)
            if isinstance(param, cst.Param) and any(t is func for t, _, _ in env.get(("held", id(param)), ())):
                return True
        return False

    def _function_values(self, form) -> List[tuple]:
        """(def or lambda, skip_self, env) a callable form holds as a value: a lambda, a closure or
        def, a bound method `self.m` / `obj.m` of a class of the module."""
        if isinstance(form, cst.Lambda):
            return [(form, False, None)]
        if isinstance(form, tuple) and form[0] == "closure":
            return [(form[1], form[3], form[2])]
        if isinstance(form, cst.Attribute):
            owner = self.instance_class(form.value)
            method = self.find_method(owner, form.attr.value) if owner is not None else None
            if isinstance(method, cst.FunctionDef):
                return [(method, True, None)] + [(m, True, None) for m in self._overrides_bound(form, owner)]
        return []

    def _overrides_bound(self, method: cst.Attribute, owner: cst.ClassDef) -> List[cst.FunctionDef]:
        """The subclass overrides a bound method `self.m` (or `obj.m`) may run: on self, every subclass's own m
        (a base's template runs on any of them); on another object, those of the classes its constructions
        make (_constructed_override)."""
        name, out = method.attr.value, []
        on_self = self._is_self_receiver(method.value)
        for cls in self.class_family(owner):
            own = self.class_methods(cls).get(name)
            if not isinstance(own, cst.FunctionDef) or cls is owner or owner not in self.class_mro(cls):
                continue
            if on_self or self._constructed_override(method.value, owner, cls):
                out.append(own)
        return out

    def _is_self_receiver(self, expr: cst.BaseExpression) -> bool:
        """Is expr the first parameter of the instance method it is read in?"""
        if not isinstance(expr, cst.Name):
            return False
        func = self.enclosing_function(expr)
        if not isinstance(func, cst.FunctionDef) or self.method_class(func) is None or self.class_bound(func):
            return False
        params = func.params.params
        return bool(params) and params[0].name.value == expr.value

    def pool_conversions(self) -> List[Tuple[cst.Call, str, str]]:
        """(call, target dtype, form) for whole-pool conversions not written as a cast of
        the pool: 'unbound' for `torch.Tensor.to(pool, d)`, 'copy' for `buf.copy_(pool)`
        into a buffer allocated with a dtype of its own (`torch.empty_like(pool, dtype=d)`)."""
        if self._conversions is None:
            out = []
            t = self.tables
            for call in self.nodes.calls:
                func = call.func
                constructed = self.constructor_parts(call) is not None
                if not isinstance(func, cst.Attribute) and not constructed:
                    continue
                if not constructed and func.attr.value in t.copy_methods:
                    found = self._copy_conversion(call)  # `buf.copy_(pool)`, `torch.Tensor.copy_(buf, pool)`
                    if found is not None:
                        out.append(found)
                    continue
                if constructed or self._is_unbound_receiver(func.value):
                    target = self.cast_target(call)
                    receiver = self.cast_receiver(call)
                    if (
                        target is not None
                        and receiver is not None
                        and self.origin(receiver) >= Origin.POOL_TUPLE
                        and not self.chained_into_cast(call)
                        and not self.guarded_fallback(call)
                        and not same_dtype_cast(self, call)
                        and not self.runs_once(call)
                    ):
                        out.append((call, target, "unbound"))
            out.extend(self._slice_store_conversions())
            self._conversions = out
        return self._conversions

    def _copy_conversion(self, call: cst.Call) -> Optional[Tuple[cst.Call, str, str]]:
        """`buf.copy_(pool)` (or the unbound `torch.Tensor.copy_(buf, pool)`) into a buffer
        allocated with a dtype of its own: every slot of the pool converted."""
        receiver, _, args = self.method_parts(call)
        if receiver is None:
            return None
        source = self._first_positional(args)
        if source is None:
            source = next((a.value for a in args if a.keyword is not None and a.keyword.value == "src"), None)
        if source is None or self.origin(source) < Origin.POOL_TUPLE or self.guarded_fallback(call):
            return None
        if self._already_cast(source):
            return None  # `buf.copy_(pool.to(d))`: the conversion is the cast's, reported there
        return self._into_other_dtype(call, receiver, source)

    def _already_cast(self, source: cst.BaseExpression, depth: int = 0) -> bool:
        """Is every value source may be a dtype cast (the call itself, each assignment of a name
        that reaches it, or each element a loop target takes from a container the file builds: `d` of
        `for s, d in zip(static, dense)`, dense = `[c.to(dt) for c in caches]`)? Then a copy of it
        converts nothing the cast did not."""
        if isinstance(source, cst.Call):
            return self.cast_target(source) is not None
        if depth > 4:
            return False
        if isinstance(source, cst.Subscript):  # `d_group[0]`: an element of a container the file builds
            if len(source.slice) != 1 or not isinstance(source.slice[0].slice, cst.Index):
                return False
            key = source.slice[0].slice.value
            elements = self.element_values(source.value, key.evaluated_value if isinstance(key, cst.Integer) else None)
            return bool(elements) and all(v is not source and self._already_cast(v, depth + 1) for v in elements)
        if not isinstance(source, cst.Name):
            return False
        values = []
        for assignment in self.reaching(source):
            if not isinstance(assignment.node, cst.Name):
                return False
            value, index = self.assigned_value(assignment.node)
            if value is None or index is not None:
                values = None
                break
            values.append(value)
        if values is None:  # a loop target, an unpacked name: the values it may hold, by structure
            values = self._container_sources(source, 0)
        return bool(values) and all(v is not source and self._already_cast(v, depth + 1) for v in values)

    def _into_other_dtype(self, node, buffer, source) -> Optional[tuple]:
        dtype = self.buffer_dtype_expr(buffer)
        if dtype is None or self._pool_own_dtype(dtype) or self.runs_once(node):
            return None
        if copy_keeps_dtype(self, source, dtype):
            return None
        return (node, self.code(dtype), "copy")

    def buffer_dtype_expr(self, buffer: cst.BaseExpression, depth: int = 0) -> Optional[cst.BaseExpression]:
        """The dtype a copy destination holds: what it is allocated with (allocated_dtype_expr), else,
        through names, for targets, `self.` attributes and container elements (`self.staging[name]`
        of a dict built by a comprehension, `dst` of `for lid, dst in self.graph_kv.items()`), the
        dtype every value it may be is converted to (`t.to(torch.float16)`, `buf.half()`); None when
        some value's dtype is not shown, or they differ."""
        found = self.allocated_dtype_expr(buffer)
        if found is not None or depth > 3:
            return None if found is not None and self._on_host(found) else found
        values = self._buffer_values(buffer)
        dtypes = []
        for value in values or ():
            if isinstance(value, cst.Call):
                dtype = self.allocated_dtype_expr(value) or self._converted_dtype_expr(value)
                if dtype is None:  # `self.mirrors.get(name)`: an element the container holds
                    dtype = self._taken_dtype_expr(value, depth)
            else:
                dtype = self.buffer_dtype_expr(value, depth + 1)
            if dtype is None or self._on_host(dtype):
                return None
            dtypes.append(dtype)
        if dtypes and all(self.code(d) == self.code(dtypes[0]) for d in dtypes):
            return dtypes[0]
        return None

    def _taken_dtype_expr(self, call: cst.Call, depth: int) -> Optional[cst.BaseExpression]:
        """The dtype every element a container method takes may hold (`d.get(k)`, `ring.popleft()`), as
        buffer_dtype_expr reads it; None when not such a call or some element's dtype is not shown."""
        taken = self._taken_elements(call, depth + 1)
        dtypes = [self.buffer_dtype_expr(value, depth + 1) for value in taken or ()]
        if dtypes and all(d is not None and self.code(d) == self.code(dtypes[0]) for d in dtypes):
            return dtypes[0]
        return None

    def _on_host(self, dtype: cst.BaseExpression) -> bool:
        """Is the call that gives dtype (`torch.empty_like(t, dtype=d, device="cpu")`) one that
        allocates in host memory (rules/accessors.toml [conversions] host_devices, host_flags)?
        A host mirror is an offload, read as kept in the pool's dtype."""
        arg = self.parents.get(dtype)
        call = self.parents.get(arg) if isinstance(arg, cst.Arg) else None
        if not isinstance(call, cst.Call):
            return False
        t = self.tables
        for a in call.args:
            if a.keyword is None:
                continue
            if a.keyword.value == "device" and (self.constant_string(a.value) or "").split(":")[0] in t.host_devices:
                return True
            if a.keyword.value in t.host_flags and isinstance(a.value, cst.Name) and a.value.value == "True":
                return True
        return False

    def _buffer_values(self, buffer: cst.BaseExpression) -> Optional[list]:
        if isinstance(buffer, cst.Subscript):
            if len(buffer.slice) != 1 or not isinstance(buffer.slice[0].slice, cst.Index):
                return None
            key = buffer.slice[0].slice.value
            return self.element_values(buffer.value, key.evaluated_value if isinstance(key, cst.Integer) else None)
        if isinstance(buffer, cst.Attribute) and isinstance(buffer.value, cst.Name) and buffer.value.value == "self":
            cls = self.enclosing_class(buffer)
            return list(self.self_attr_values(cls, buffer.attr.value)) if cls is not None else None
        if isinstance(buffer, cst.Name):
            found = self._container_sources(buffer, 0) or self._passed_buffers(buffer)
            return [v for v in found if not self.slice_filled(v)] if found else found
        return None

    def _passed_buffers(self, name: cst.Name) -> Optional[list]:
        """What the calls of a helper pass for its parameter name, runs of it as a value included
        (`stack.callback(_mirror, mirror, kv)`, `executor.submit(f, buf, kv)`): the buffers a copy
        destination may be; None when name is not only a parameter or no call shows one."""
        values = []
        for assignment in self.reaching(name):
            param = self.param_of(assignment.node)
            if not isinstance(param, cst.Param) or param.star or param.default is not None:
                return None
            passed = self.passed_arguments(param)
            if not passed:
                return None
            values.extend(passed)
        return values or None

    def _converted_dtype_expr(self, call: cst.Call) -> Optional[cst.BaseExpression]:
        """The dtype expression of a dtype cast (`x.to(torch.float16)`, `x.to(dtype=d)`, `x.half()`):
        a new tensor of that dtype. None for a cast to another tensor's dtype."""
        if self.cast_target(call) is None:
            return None
        _, method, args = self.method_parts(call)
        spelling = self.tables.casts.get(method)
        if spelling is None:
            return None
        positional, keywords = self.expanded_args(args)
        if spelling.form == "no-args":
            cache = self.__dict__.setdefault("_spelled_dtypes", {})
            if spelling.target not in cache:
                cache[spelling.target] = cst.parse_expression(spelling.target)
            return cache[spelling.target]
        if spelling.form == "one-arg":
            return positional[0] if positional and self.value_kind(positional[0]) == _DTYPE else None
        if spelling.form != "to":
            return None
        keyword, is_tensor = spelling.keyword_target(keywords)
        if keyword is not None and not is_tensor:
            return keyword
        return next((v for v in positional if self.value_kind(v) == _DTYPE), None)

    def _slice_store_conversions(self) -> List[tuple]:
        """`buf[:] = pool`, `buf[..., :d] = pool`: a store of a whole pool into a slice of a
        buffer allocated with a dtype of its own converts every slot, as `buf.copy_(pool)` does
        (the finding is on the assignment). A subscript by keys alone (`d[name] = pool`) is a
        container store, not a copy."""
        out = []
        for assign in self.nodes.slice_stores:
            if self.origin(assign.value) < Origin.POOL_TUPLE or self.guarded_fallback(assign):
                continue
            for target in assign.targets:
                found = self._into_other_dtype(assign, target.target.value, assign.value)
                if found is not None:
                    out.append(found)
                    break
        return out

    def _pool_own_dtype(self, dtype: cst.BaseExpression) -> bool:
        """`dtype=src.dtype` with src a whole pool: a buffer in the pool's own dtype, so a
        copy into it converts nothing (a host mirror, a snapshot)."""
        return (
            isinstance(dtype, cst.Attribute)
            and dtype.attr.value == "dtype"
            and self.origin(dtype.value) >= Origin.POOL_TUPLE
        )

    def guarded_fallback(self, node: cst.CSTNode) -> bool:
        """True under `if not <guard>:` or in the else of `if <guard>:`."""
        guards = self.tables.guard_names
        child = node
        for anc in self.ancestors(node):
            if isinstance(anc, cst.If):
                names = {n.value for n in iter_nodes(anc.test, cst.Name)} | {
                    a.attr.value for a in iter_nodes(anc.test, cst.Attribute)
                }
                if names & guards:
                    negated = isinstance(anc.test, cst.UnaryOperation) and isinstance(anc.test.operator, cst.Not)
                    in_else = anc.orelse is not None and child is anc.orelse
                    if negated != in_else:
                        return True
            if isinstance(anc, cst.FunctionDef):
                return False
            child = anc
        return False

    def enclosing_accessor(self, node: cst.CSTNode) -> Optional[str]:
        """`Class.get_key_buffer` when node is inside a pool accessor (or the `_get_key_buffer`
        it delegates to): every backend that reads the pool runs it."""
        func = self.enclosing_function(node)
        while func is not None:
            accessor = self.tables.accessors.get(func.name.value.lstrip("_"))
            if (accessor is not None and not self._reader_override(func, accessor)) or self._item_accessor(func):
                cls = self.method_class(func)
                return f"{cls.name.value}.{func.name.value}" if cls is not None else func.name.value
            func = self.enclosing_function(func)
        return self._own_buffer_view(node)

    def _own_buffer_view(self, node: cst.CSTNode) -> Optional[str]:
        """`Class.dense_kv_buffers` when node is a conversion that a method of a pool class (one defining a pool
        accessor, rules/accessors.toml [[accessor]] or learnt) taking nothing but self (a property too) returns,
        of every layer of the class's own buffer (`[buf.view(self.dtype).to(self.model_dtype) for buf in
        self.kv_buffer]`, `tuple(b.half() for b in self.kv_buffer)`): whatever its name, it is the pool's accessor
        of every layer, converting them for every caller (CL004). A buffer the class stores from elsewhere
        (`self.kv_caches = kv_caches`) is another object's: no accessor of its own."""
        if not isinstance(node, cst.Call) or not isinstance(node.func, cst.Attribute):
            return None
        func = self.enclosing_function(node)
        cls = self.method_class(func) if func is not None else None
        if cls is None or func.params.star_arg is not cst.MaybeSentinel.DEFAULT:
            return None
        if len(func.params.params) == 2:
            return self._own_layer_accessor(node, func, cls)
        if len(func.params.params) != 1:
            return None
        if not self._returned_as_is(node, func):
            return None
        attr = self._own_buffer_read(node.func.value)
        if attr is None:
            return None
        order = self.class_mro(cls)
        if any(isinstance(v, (cst.Name, cst.Attribute)) for owner in order for v in self.self_attr_values(owner, attr)):
            return None
        accessors = self.tables.accessors
        for owner in order:
            for name in self.class_methods(owner):
                accessor = accessors.get(name.lstrip("_"))
                if accessor is not None and not accessor.holder:
                    return f"{cls.name.value}.{func.name.value}"
        return None

    def _own_layer_accessor(self, node: cst.Call, func: cst.FunctionDef, cls: cst.ClassDef) -> Optional[str]:
        """`Class.layer` when node, a whole-layer conversion that method `layer(self, idx)` returns, converts
        `self.<buf>[idx]` (through views) to a dtype of the instance (`self.compute_dtype`), and the class also
        hands out the layer of that buffer unconverted (`return self.<buf>[i]` in another method taking an
        index): the class is the pool of those layers, and the converting method its accessor (CL004). A caller's
        dtype, no raw accessor beside it (a per-step reader object, `__call__`), rows or a scale: not one."""
        index = self._layer_param(func)
        if index is None or not self._returned_as_is(node, func):
            return None
        dtype = self._converted_dtype_expr(node)
        if not (isinstance(dtype, cst.Attribute) and isinstance(dtype.value, cst.Name) and dtype.value.value == "self"):
            return None
        attr = self._own_layer_read(node.func.value, index)
        if attr is None:
            return None
        for owner in self.class_mro(cls):
            for name, other in self.class_methods(owner).items():
                other_index = self._layer_param(other) if other is not func else None
                if other_index is None or name.startswith("__"):
                    continue
                for ret in iter_nodes(other.body, cst.Return):
                    if ret.value is not None and self.enclosing_function(ret) is other:
                        if self._own_layer_read(ret.value, other_index, raw=True) == attr:
                            return f"{cls.name.value}.{func.name.value}"
        return None

    @staticmethod
    def _layer_param(func: cst.FunctionDef) -> Optional[str]:
        """idx of a method `m(self, idx)` (no default, no star), else None."""
        params = func.params
        if len(params.params) != 2 or params.star_arg is not cst.MaybeSentinel.DEFAULT or params.kwonly_params:
            return None
        if func.name.value.startswith("__") or params.params[1].default is not None:
            return None
        return params.params[1].name.value

    def _own_layer_read(self, expr: cst.BaseExpression, index: str, raw: bool = False) -> Optional[str]:
        """x when expr is `self.<x>[index]` (index a parameter name), through views (only views when raw)."""
        views = self.tables.view_methods
        while isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute):
            if raw and expr.func.attr.value not in views:
                return None
            expr = expr.func.value
        if not isinstance(expr, cst.Subscript) or len(expr.slice) != 1:
            return None
        element = expr.slice[0].slice
        if not (
            isinstance(element, cst.Index) and isinstance(element.value, cst.Name) and element.value.value == index
        ):
            return None
        owner = expr.value
        if isinstance(owner, cst.Attribute) and isinstance(owner.value, cst.Name) and owner.value.value == "self":
            return owner.attr.value
        return None

    def _returned_as_is(self, node: cst.CSTNode, func: cst.FunctionDef) -> bool:
        """Is node what func returns, or an element of a display, comprehension or sequence constructor it
        returns (`return [b.half() for b in bufs]`, `return tuple(...)`)?"""
        while True:
            parent = self.parents.get(node)
            if isinstance(parent, cst.Return):
                return self.enclosing_function(parent) is func
            if isinstance(parent, (cst.ListComp, cst.SetComp, cst.GeneratorExp)) and parent.elt is node:
                node = parent
            elif isinstance(parent, cst.DictComp) and parent.value is node:
                node = parent
            elif isinstance(parent, (cst.Element, cst.Tuple, cst.List, cst.Set)):
                node = parent
            elif isinstance(parent, cst.Arg) and isinstance(self.parents.get(parent), cst.Call):
                call = self.parents.get(parent)
                if not self.qualified_in(call, self.tables.sequence_constructors):
                    return False
                node = call
            else:
                return False

    def _own_buffer_read(self, expr: cst.BaseExpression, depth: int = 0) -> Optional[str]:
        """x when expr (a conversion's receiver) is a view of a layer (or every layer) of `self.<x>`, x a cache
        attribute, through views, reinterprets, indexes and the targets of loops and comprehensions over it."""
        while depth < 8:
            depth += 1
            if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute):
                expr = expr.func.value  # `buf.view(self.dtype)`: buf's elements
            elif isinstance(expr, cst.Subscript):
                expr = expr.value
            elif isinstance(expr, cst.Attribute):
                own = isinstance(expr.value, cst.Name) and expr.value.value == "self"
                return expr.attr.value if own and expr.attr.value in self.tables.cache_attributes else None
            elif isinstance(expr, cst.Name):
                reaching = list(self.reaching(expr))
                if len(reaching) != 1 or not isinstance(reaching[0].node, cst.Name):
                    return None
                kind, value, _ = self.binding(reaching[0].node)
                if kind not in ("for", "assign") or value is None:
                    return None
                expr = value
            else:
                return None
        return None

    def _reader_override(self, func: cst.FunctionDef, accessor) -> bool:
        """Is func an override of a learnt reader (a method that reads no buffer of its own class, only another
        object's accessor: Accessor.reader) that takes what the base's reader hands it (`super().read(layer)`)?
        It converts for the backend that uses it, not for every reader of the pool: no pool accessor (CL001)."""
        if accessor.holder:
            return True  # its class owns no buffer: a holder of another object's pool converts for its caller
        if not accessor.reader:
            return False
        return any(
            isinstance(call.func, cst.Attribute)
            and call.func.attr.value == func.name.value
            and isinstance(call.func.value, cst.Call)
            and isinstance(call.func.value.func, cst.Name)
            and call.func.value.func.value == "super"
            for call in iter_nodes(func, cst.Call)
        )

    def _item_accessor(self, func: cst.FunctionDef) -> bool:
        """Is func a class's item protocol (rules/accessors.toml [views] subscript_methods: `mgr[layer_idx]`
        runs `__getitem__`)? Converting the whole pool there, it is the accessor every `obj[i]` reads through."""
        if func.name.value not in self.tables.subscript_methods or self.method_class(func) is None:
            return False
        if self._item_holder(func):
            return False
        # `item = super().__getitem__(i)` of a container subclass (`class Caches(list)` over handed caches): it
        # converts what its base hands it for the backend that built it, as a reader's override does (CL001)
        return not any(
            isinstance(call.func, cst.Attribute)
            and call.func.attr.value == func.name.value
            and isinstance(call.func.value, cst.Call)
            and isinstance(call.func.value.func, cst.Name)
            and call.func.value.func.value == "super"
            for call in iter_nodes(func, cst.Call)
        )

    def _item_holder(self, func: cst.FunctionDef) -> bool:
        """Is func (a `__getitem__`) a holder's, as a learnt reader is (Round 24, ownership): it reads the pool only
        through an accessor of an object it holds (`self.mgr.get_buffers(i)`, never `self.get_buffers(i)` or
        super()), and its class allocates no buffer? Then its conversion is its caller's (CL001), not an
        accessor every reader of the pool pays (CL004)."""
        accessors = self.tables.accessors
        held = False
        for call in iter_nodes(func, cst.Call):
            if not isinstance(call.func, cst.Attribute) or call.func.attr.value not in accessors:
                continue
            receiver = call.func.value
            if not (isinstance(receiver, cst.Attribute) and _is_self_name(receiver.value)):
                return False  # `self.get_buffers(i)`, `super().get_buffers(i)`, a local: not only a held object
            held = True
        if not held:
            return False
        cls = self.method_class(func)
        for assign in iter_nodes(cls, cst.Assign):
            if (
                any(isinstance(t.target, cst.Attribute) and _is_self_name(t.target.value) for t in assign.targets)
                and self.allocation_kind(assign.value) is not None
            ):
                return False  # the class allocates a buffer of its own: a pool class's item accessor
        return True

    # -- hot paths -----------------------------------------------------------
    def hot_functions(self, cls: cst.ClassDef) -> set:
        """Names of hot-path methods of cls (castlint.analysis.hot_path.hot_methods)."""
        if id(cls) in self._hot_cache:
            return self._hot_cache[id(cls)]
        if self._pruned is not None and self._pruned.hot_hints:
            # Methods dropped from a pruned class still call others: use the call
            # graph the pruner computed on the whole class.
            key = (cls.name.value, self.position(cls).start.line)
            if key in self._pruned.hot_hints:
                self._hot_cache[id(cls)] = set(self._pruned.hot_hints[key])
                return self._hot_cache[id(cls)]
        edges = []
        for call in self.nodes.self_calls:
            func = self.enclosing_function(call)
            if func is not None and self.method_class(func) is cls:
                edges.append((func.name.value, call.func.attr.value))
        hot = set(
            hot_path.hot_methods(
                self.class_methods(cls), edges, self.tables.hot_path_entry_points, self.tables.accessors
            )
        )
        self._hot_cache[id(cls)] = hot
        return hot

    def in_hot_path(self, node: cst.CSTNode) -> bool:
        func = self.enclosing_function(node)
        while func is not None:
            cls = self.method_class(func)
            if cls is not None:
                return func.name.value in self.hot_functions(cls)
            if is_hot_entry(func.name.value, self.tables):
                return True
            func = self.enclosing_function(func)
        return False

    def function_name(self, node: cst.CSTNode) -> Optional[str]:
        func = self.enclosing_function(node)
        if func is None:
            return None
        cls = self.method_class(func)
        return f"{cls.name.value}.{func.name.value}" if cls is not None else func.name.value

    def call_name(self, call: cst.Call) -> Optional[str]:
        # What QualifiedNameProvider gives for this node, without resolving it for
        # every node of the module (that walk cost more than the rest of a check).
        scope = self.scopes.get(call.func)
        names = scope.get_qualified_names_for(call.func) if scope is not None else set()
        for qn in sorted(names, key=lambda q: q.name):
            return qn.name
        return dotted(call.func)


def _plain_closure(form) -> bool:
    """Is a callable form a def of the module held as it is (no factory's bindings)?"""
    return isinstance(form, tuple) and form[0] == "closure" and not form[2]


def _is_self_name(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Name) and node.value == "self"
