"""Elements of containers and records (`element_values`): indexing, iteration and the protocol
methods (`__getitem__`, `__iter__`, `__missing__`, metaclasses) that read them."""

from __future__ import annotations

from typing import List, Optional

import libcst as cst


class Elements:
    def mixin_view_element(self, receiver: cst.BaseExpression, method: str) -> Optional[cst.BaseExpression]:
        """For `m.values()` / `m.items()` (keep_methods, item_methods) of an object whose class of the
        module derives a Mapping ABC (rules/accessors.toml [containers] mapping_mixins) and does not
        define `method` itself: `m[key]`, what the mixin hands out for each key (its `__getitem__`);
        None otherwise."""
        t = self.tables
        if not t.mapping_mixins or "__getitem__" not in self.nodes.local_callables:
            return None
        cache = self.__dict__.setdefault("_mixin_view_elements", {})
        key = (id(receiver), method)
        if key in cache:
            return cache[key]
        cache[key] = None
        owner = self.instance_class(receiver)
        if owner is None or self.find_method(owner, method) is not None:
            return None
        mro = self.c3_mro(owner)
        if not any(self._named_in(b.value, t.mapping_mixins) for c in mro for b in c.bases):
            return None
        if self.find_method(owner, "__getitem__") is None:
            return None
        element = cst.Subscript(receiver, [cst.SubscriptElement(cst.Index(cst.Name("key")))])
        self.parents.setdefault(element, self.parents.get(receiver))
        cache[key] = element
        return element

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
        ordered = self._ordered_values(expr, index, depth) if index is not None else None
        if ordered is not None:  # `k, v, scale = planes(i).values()`: the display's values by position
            return ordered
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
        generated = self._generated_elements(expr, index, depth) if isinstance(expr, cst.Call) else None
        if generated is not None:  # `q_dt, kv_dt = _pair(dt)` of a generator: what it yields, in order
            return generated
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

    def _ordered_values(self, expr: cst.BaseExpression, index: int, depth: int):
        """Element index of a view of a dict's values in insertion order (rules/accessors.toml [containers]
        ordered_value_views: `d.values()`), where every value d may hold (a display, through names and
        helper returns) is a dict display of plain entries long enough: the index-th value of each;
        None otherwise (the caller reads any value)."""
        if not (
            isinstance(expr, cst.Call)
            and isinstance(expr.func, cst.Attribute)
            and expr.func.attr.value in self.tables.ordered_value_views
            and not expr.args
        ):
            return None
        receiver = expr.func.value
        held = [receiver] if isinstance(receiver, cst.Dict) else self._container_sources(receiver, depth + 1)
        if not held:
            return None
        out: List[cst.BaseExpression] = []
        for value in held:
            if not isinstance(value, cst.Dict) or not all(isinstance(e, cst.DictElement) for e in value.elements):
                return None  # a `**` part, a store into it, a value of unknown structure
            if not -len(value.elements) <= index < len(value.elements):
                return None
            out.append(value.elements[index].value)
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

    def _generated_elements(self, call: cst.Call, index: Optional[int], depth: int):
        """Element index (None: any) of what a call of a generator function of the module yields: its
        `yield v` and `yield from xs` (xs's elements) in body order, by position when none is in a loop
        (`yield q; yield kv`, `yield from (dt, dt)`); every one otherwise. None when call reaches no
        generator, or what one delegates to is not shown (or is being resolved: a call met again while its
        own targets are sought, through an instance's class, answers nothing)."""
        active = self.__dict__.setdefault("_generating", set())
        if id(call) in active:
            return None
        active.add(id(call))
        try:
            return self._generated_sequence(call, index, depth)
        finally:
            active.discard(id(call))

    def _generated_sequence(self, call: cst.Call, index: Optional[int], depth: int):
        targets = [t for t, _, _ in self.return_targets(call) if isinstance(t, cst.FunctionDef)]
        if not targets:
            return None
        out: List[cst.BaseExpression] = []
        for target in targets:
            yields, delegated = self._yield_values(target)
            if not yields and not delegated:
                return None
            looped = any(self._in_loop(v, target) for v in [*yields, *delegated])
            sequence: List[cst.BaseExpression] = []
            for value in sorted([*yields, *delegated], key=lambda v: self.position(v).start.line):
                if any(value is d for d in delegated):
                    found = self.element_values(value, None, depth + 1)
                    if found is None:
                        return None
                    sequence.extend(found)
                    # (positions past a delegation are known only for a display: its elements, in order)
                    looped = looped or not isinstance(value, (cst.Tuple, cst.List))
                else:
                    sequence.append(value)
            if not looped and index is not None and -len(sequence) <= index < len(sequence):
                out.append(sequence[index])
            else:
                out.extend(sequence)
        return out

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
                set(t.sum_functions),
            )
            self._iteration_shorts = {n.rsplit(".", 1)[-1] for group in words for n in group}
        name = call.func.value if isinstance(call.func, cst.Name) else call.func.attr.value
        if name not in self._iteration_shorts or name in self.module_classes():
            return None
        flattened = self._flattened(call, words[1], words[4])
        if flattened is not None:
            return [flattened], 2
        args = [a.value for a in call.args if a.keyword is None and not a.star]
        if not args or len(args) != len([a for a in call.args if a.keyword is None]):
            return None
        qualified = self.qualified(call)
        keep, chain, filtering, flatten, _ = words
        if qualified in flatten:
            return [args[0]], 2
        if qualified in chain:
            return args, 1
        if qualified in filtering:
            return [args[-1]], 1
        if qualified in keep:
            return [args[0]], 1
        return None

    def _flattened(self, call: cst.Call, chain: set, sums: set) -> Optional[cst.BaseExpression]:
        """The list of lists call flattens: `itertools.chain(*lists)` ([iteration] chain, given one starred
        argument) or `sum(lists, [])` ([callables] sum_functions, started from an empty display); None
        otherwise."""
        args = call.args
        if len(args) == 1 and args[0].star == "*":
            return args[0].value if self.qualified(call) in chain else None
        if any(a.star for a in args) or not args or args[0].keyword is not None:
            return None
        start = args[1].value if len(args) == 2 and args[1].keyword in (None,) else None
        if len(args) == 2 and args[1].keyword is not None and args[1].keyword.value == "start":
            start = args[1].value
        if isinstance(start, (cst.List, cst.Tuple)) and not start.elements and self.qualified(call) in sums:
            return args[0].value
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
                param = self.param_of(node)
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
            return self.element_values(expr.value, self.index_position(key), depth + 1)
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
        if (
            isinstance(iterable, cst.Call)
            and len(iterable.args) > path[0]
            and not any(a.star or a.keyword is not None for a in iterable.args)
            and self.qualified_in(iterable, self.tables.iter_pairs)
        ):  # `for ref, dst in zip(self.refs, bufs)`: an element of that argument, whatever the others hold
            return self._at_path(self.element_values(iterable.args[path[0]].value, None, depth + 1), path[1:], depth)
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
            found = self.element_values(func.value, self.index_position(key) if key is not None else None, depth + 1)
            if found is not None and func.attr.value in t.default_last and len(call.args) > 1:
                found = [*found, call.args[-1].value]  # setdefault(k, v), get(k, v): v when k was missing
            return found
        if call.args and not call.args[0].star and self.qualified(call) in t.take_functions:
            inner = call.args[0].value
            if isinstance(inner, cst.Call) and inner.args and self.qualified(inner) in t.keep_elements:
                inner = inner.args[0].value  # next(iter(xs)): an element of xs
            return self.element_values(inner, None, depth + 1)
        return None


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
