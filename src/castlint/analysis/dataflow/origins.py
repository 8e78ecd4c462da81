"""Where a value comes from (`origin`): a whole pool, a container of pools, an active prefix or a
gather of one, or something else; followed through calls, methods, operators, constructors and einsum."""

from __future__ import annotations

import re
from typing import Dict, List, Optional, Tuple

import libcst as cst
from libcst.metadata import QualifiedNameSource

from castlint.analysis.dataflow.shared import MAX_DEPTH, SCALAR, TENSOR, _is_none
from castlint.analysis.origin import Origin
from castlint.analysis.tree import dotted
from castlint.tables import fold_in_reduce_order

# A sequence of tensors an element constructor copies each of (constructor_parts)
_ELEMENT_DISPLAYS = (cst.List, cst.Tuple, cst.ListComp, cst.GeneratorExp)
# A constructor's data written out: Python values, never a tensor's copy (constructor_parts)
_WRITTEN_DATA = (
    cst.List,
    cst.Tuple,
    cst.Set,
    cst.ListComp,
    cst.SetComp,
    cst.GeneratorExp,
    cst.Integer,
    cst.Float,
    cst.SimpleString,
    cst.ConcatenatedString,
    cst.FormattedString,
)


_EINSUM_LETTERS = re.compile(r"\.\.\.|[A-Za-z]")
_EINSUM_NAMES = re.compile(r"\.\.\.|[A-Za-z_][A-Za-z0-9_]*")


def _einsum_dims(side: str) -> Optional[List[str]]:
    """The dimensions one side of an einsum equation names: letters (`thd`), or names separated by
    spaces as einops writes them (`t h d`, `blocks heads dim`), `...` as one; None for several
    operands (`,`) or anything else (a parenthesized group)."""
    side = side.strip()
    if not side or "," in side:
        return None
    spaced = " " in side
    pattern = _EINSUM_NAMES if spaced else _EINSUM_LETTERS
    dims = pattern.findall(side)
    rest = pattern.sub("", side).replace(" ", "")
    return dims if dims and not rest else None


_SEQUENCE_DISPLAYS = (cst.Tuple, cst.List, cst.ListComp, cst.GeneratorExp)


class Origins:
    def origin(self, expr: cst.BaseExpression, depth: int = 0) -> Origin:
        key = id(expr)
        if key in self._origin_cache:
            return self._origin_cache[key]
        if key in self._in_progress or depth > MAX_DEPTH:
            return Origin.OTHER
        self._in_progress.add(key)
        try:
            result = self._origin(expr, depth + 1)
        finally:
            self._in_progress.discard(key)
        if result != Origin.OTHER and self.tables.state_classes and self._in_state_branch(expr):
            result = Origin.OTHER  # read under `if isinstance(spec, MambaSpec):`: a model's state, not KV
        self._origin_cache[key] = result
        return result

    def _in_state_branch(self, expr: cst.BaseExpression) -> bool:
        """Is expr read in a branch that an isinstance test against a class of non-attention state
        guards (rules/accessors.toml [guards] state_classes): the body of `if isinstance(x, MambaSpec):`
        (also one test of an `and`), the `else` (or `elif`) of `if not isinstance(...)`?"""
        node, parent = expr, self.parents.get(expr)
        while parent is not None and not isinstance(parent, (cst.FunctionDef, cst.ClassDef, cst.Module)):
            if isinstance(parent, cst.If):
                if node is parent.body and self._state_test(parent.test, True):
                    return True
                if node is parent.orelse and self._state_test(parent.test, False):
                    return True
            elif isinstance(parent, cst.IfExp):
                if node is parent.body and self._state_test(parent.test, True):
                    return True
                if node is parent.orelse and self._state_test(parent.test, False):
                    return True
            node, parent = parent, self.parents.get(parent)
        return False

    def _state_test(self, test: cst.BaseExpression, holds: bool) -> bool:
        """Does the test, when it holds (holds) or fails (not holds), say a state class's instance?"""
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            return self._state_test(test.expression, not holds)
        if isinstance(test, cst.BooleanOperation):
            joined = isinstance(test.operator, cst.And) if holds else isinstance(test.operator, cst.Or)
            if joined:  # `a and b` holds: both do; `a or b` fails: both fail
                return self._state_test(test.left, holds) or self._state_test(test.right, holds)
            return False
        if not holds or not isinstance(test, cst.Call) or len(test.args) != 2:
            return False
        if (self.call_name(test) or "").removeprefix("builtins.") != "isinstance":
            return False
        classes = test.args[1].value
        spelled = [e.value for e in classes.elements] if isinstance(classes, (cst.Tuple, cst.List)) else [classes]
        names = [dotted(c) for c in spelled]
        return all(n and n.rsplit(".", 1)[-1] in self.tables.state_classes for n in names)

    def _origin(self, expr: cst.BaseExpression, depth: int) -> Origin:
        if isinstance(expr, cst.Call):
            return self._call_origin(expr, depth)
        if isinstance(expr, cst.Attribute):
            unpacked = self.derived.get("unpacked_stores")
            if unpacked and id(expr) in unpacked:  # a store target standing for its element (_external_stores)
                return self.target_origin(expr, depth)
            if expr.attr.value in self.tables.cache_attributes:
                return self._cache_attr_origin(expr, depth)
            if expr.attr.value in self.tables.view_attributes or expr.attr.value in self.tables.whole_copy_attributes:
                viewed = self.origin(expr.value, depth)  # `pool.mT`, `pool.data`: the same slots
                if viewed >= Origin.PREFIX or viewed == Origin.GATHERED:
                    return viewed
            if expr.attr.value in self.tables.record_as_dict_attributes:  # `rec.__dict__`: its fields
                fields = self._fields_origin(expr.value, depth)
                if fields == Origin.POOL_TUPLE:
                    return fields
            introspected = self.introspected_values(expr)
            if introspected is not None:  # `p.args` of a partial, `fn.__closure__`, `cell.cell_contents`
                return max(self.origin(v, depth) for v in introspected)
            if isinstance(expr.value, cst.Name) and expr.value.value == "self":
                return self._self_attr_origin(expr, depth)
            held = self.held_attribute(expr)
            if held is not None:  # `_tls.engine` of `_tls = threading.local()`: what the module stores there
                return max((self.origin(v, depth) for v in held), default=Origin.OTHER)
            return self._instance_attr_origin(expr, depth)
        if isinstance(expr, cst.Subscript):
            part = self.nodes.unpacked_parts.get(id(expr))
            if part is not None:  # `self.a, self.b = value`: unpacked by position, as a name would be
                return self._unpacked(part[0], (part[1],), depth)
            return self._subscript_origin(expr, depth)
        if isinstance(expr, cst.Name):
            return self._name_origin(expr, depth)
        if isinstance(expr, cst.IfExp):
            taken = self._none_test(expr.test)  # `base if loc is None else base[loc]`, loc bound by the call
            if taken is not None:
                return self.origin(expr.body if taken else expr.orelse, depth)
            return max(self.origin(expr.body, depth), self.origin(expr.orelse, depth))
        if isinstance(expr, cst.BooleanOperation):
            return max(self.origin(expr.left, depth), self.origin(expr.right, depth))
        if isinstance(expr, cst.NamedExpr):
            return self.origin(expr.value, depth)
        if isinstance(expr, cst.Await):  # `await self.src.fetch(n)`: what the coroutine returns
            return self.origin(expr.expression, depth)
        if isinstance(expr, cst.Yield):  # `buf = yield out`: what `.send(v)` hands the generator
            return max((self.origin(v, depth) for v in self.sent_to(expr)), default=Origin.OTHER)
        if isinstance(expr, cst.BinaryOperation):
            return self._elementwise_origin(expr, depth)
        if isinstance(expr, cst.UnaryOperation) and not isinstance(expr.operator, cst.Not):
            # `-pool`, `~packed`, `+pool`: every slot, elementwise
            found = self.origin(expr.expression, depth)
            return found if found >= Origin.PREFIX or found == Origin.GATHERED else Origin.OTHER
        if isinstance(expr, (cst.Tuple, cst.List)):
            inner = [self.origin(e.value, depth) for e in expr.elements if isinstance(e, cst.Element)]
            # `[*self.k_caches, *self.v_caches]`: the elements of a container of whole caches
            spread = [self.origin(e.value, depth) for e in expr.elements if isinstance(e, cst.StarredElement)]
            return (
                Origin.POOL_TUPLE
                if any(o >= Origin.POOL_TUPLE for o in inner) or Origin.POOL_TUPLE in spread
                else Origin.OTHER
            )
        if isinstance(expr, cst.Dict):
            inner = [self.origin(e.value, depth) for e in expr.elements if isinstance(e, cst.DictElement)]
            spread = [self.origin(e.value, depth) for e in expr.elements if isinstance(e, cst.StarredDictElement)]
            return (
                Origin.POOL_TUPLE
                if any(o >= Origin.POOL_TUPLE for o in inner) or Origin.POOL_TUPLE in spread
                else Origin.OTHER
            )
        if isinstance(expr, (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)):
            element = expr.value if isinstance(expr, cst.DictComp) else expr.elt
            if self.origin(element, depth) >= Origin.POOL_TUPLE:
                return Origin.POOL_TUPLE
            # a class's per-layer arenas, wherever they are stored (`self.arenas = {"k": [torch.zeros(
            # (size + 1, h, d)) for _ in range(layer_num)], ...}`): one whole pool per element
            return Origin.POOL_TUPLE if self._per_layer_arenas(expr, element) else Origin.OTHER
        return Origin.OTHER

    def _dict_constructor_origin(self, expr: cst.Call, depth: int) -> Optional[Origin]:
        """A dict built from pairs or from other mappings: POOL_TUPLE when its values are whole pools,
        OTHER for pairs that are not; None when expr builds no dict that way (or its mappings hold none)."""
        pairs = self.pair_items(expr)
        if pairs is not None:
            # `dict(zip(names, self.k_bufs))`, `dict(enumerate(pool.k_buffer, start=s))`: its values are
            # the second of each pair
            values = max((self._unpacked(p, (1,), depth) for p in pairs), default=Origin.OTHER)
            return Origin.POOL_TUPLE if values >= Origin.POOL_TUPLE else Origin.OTHER
        merged = self.merged_mappings(expr)
        if merged is not None and any(self.origin(m, depth) == Origin.POOL_TUPLE for m in merged):
            return Origin.POOL_TUPLE  # `ChainMap(draft, base)`, `MappingProxyType(d)` of dicts of caches
        return None

    def _call_origin(self, expr: cst.Call, depth: int) -> Origin:
        t = self.tables
        func = expr.func
        if isinstance(func, cst.Name) and func.value == "super" and not expr.args:
            # `super()` in a method of a container subclass ([containers] user_containers: `class Caches(list)`):
            # the instance as its base sees it, holding what the instances hold (`super().__getitem__(i)`)
            cls = self.enclosing_class(expr)
            return self._user_container_origin(cls, depth) if cls is not None else Origin.OTHER
        inner = self.wrapped_value(expr)
        if inner is not None:  # `weakref.proxy(pool)`, `self._ref()` of `weakref.ref(pool)`: the value itself
            return self.origin(inner, depth)
        held = self.held_values(expr)
        if held is not None:  # `_KV.get()` of `_KV = ContextVar(...)`: the worst value any `_KV.set(v)` stores
            return max((self.origin(v, depth) for v in held), default=Origin.OTHER)
        operated = self.operator_node(expr)
        if operated is not None:  # `operator.add(acc, [buf])`: acc + [buf]; `sum(lists, [])`: [] + lists[0]
            return max(self.origin(v, depth) for v in operated)
        if self._arena_allocation(expr):
            return Origin.POOL
        stacked = self._layer_stacked_allocation(expr)
        if stacked:
            # layers first: a container of layers; a pool's blocks first and its layers inside
            # (`torch.empty((num_blocks, num_layers, 2, ...))`): every slot of every layer
            return Origin.POOL_TUPLE if stacked == "layers" else Origin.POOL
        pulled = self.called_until(expr)
        if pulled is not None:  # `iter(f, sentinel)`: an iterator over what `f()` returns
            return Origin.POOL_TUPLE if self.origin(pulled, depth + 1) >= Origin.POOL else Origin.OTHER
        if (
            (
                (isinstance(func, cst.Name) and func.value in t.iter_passthrough)
                or self.qualified(expr) in t.keep_elements
            )
            and expr.args
            and not expr.args[0].star
            and expr.args[0].keyword is None
        ):
            # `list(map(pool.get_key_buffer, layers))`, `collections.deque(pool.k_buffer)`: the same
            # elements, in another container
            inner = self.origin(expr.args[0].value, depth)
            if inner < Origin.POOL_TUPLE:  # `iter(walker)`, `list(walker)`: what its class's __iter__ yields
                inner = self._protocol_iteration(expr.args[0].value, depth)
            if inner == Origin.POOL_TUPLE:
                return inner
        sources = self.iteration_sources(expr)
        if sources is not None and any(self.origin(a, depth) == Origin.POOL_TUPLE for a in sources[0]):
            return Origin.POOL_TUPLE  # `chain(ks, vs)`, `islice(caches, a, b)`, `filter(p, caches)`: their elements
        shape = self.iteration_kind(expr)
        if shape is not None:  # `enumerate(caches)`, `itertools.product(ids, halves)`, `repeat(cache, 2)`
            return self._shaped_origin(expr, shape, depth)
        source = self.fields_source(expr)
        if source is not None:  # `vars(rec)`, `rec._asdict()`: a dict of rec's fields
            fields = self._fields_origin(source, depth)
            if fields == Origin.POOL_TUPLE:
                return fields
        if self.qualified_in(expr, t.tree_flatten):  # (the leaves, a spec): the leaves, read as the tree
            tree = self._first_positional(expr.args)
            whole = tree is not None and self.origin(tree, depth) >= Origin.POOL_TUPLE
            return Origin.POOL_TUPLE if whole else Origin.OTHER
        if self.qualified(expr) in t.take_functions and expr.args and not expr.args[0].star:
            # `next(iter(d.values()))`: one element of what it iterates
            taken = self._element(self.origin(expr.args[0].value, depth))
            if taken < Origin.POOL:  # `next(cursor)`: what its class's `__iter__` / `__next__` hands out
                taken = self._element(self._protocol_iteration(expr.args[0].value, depth))
            if taken >= Origin.POOL_TUPLE:
                return taken
        stored = self.hook_stored_values(expr)
        if stored is not None:  # `super().__getattribute__(name)` in a __getattribute__: any stored attribute
            return max((self.origin(v, depth + 1) for v in stored), default=Origin.OTHER)
        read = self._attribute_getter_origin(expr, depth)
        if read is not None:
            return read
        if isinstance(func, cst.Attribute) and self.qualified(expr) in t.dict_constructors:
            # `types.MappingProxyType(d)`, `collections.ChainMap(a, b)`: a module's dict constructor, not a
            # method of the module object: read as the mapping(s) it is given
            built = self._dict_constructor_origin(expr, depth)
            if built is not None:
                return built
        receiver, method, args = self.method_parts(expr)
        if method is not None and method in self._function_short_names():
            found = self._function_origin(expr, depth)  # `torch.chunk(pool, 2)`, not `pool.chunk(2)`
            if found is not None:
                return found
        if method is not None:
            if (
                receiver is func.value
                and method in t.accessors
                and self._accessor_receiver_ok(expr)
                and not self._small_state_method(receiver, method)
            ):
                # the method that runs for the receiver's class decides where the file shows it:
                # an override (or another class's method of the name) that gathers or windows
                # the step's rows returns no whole pool (`_StepReader.fetch`: index_select)
                ran = self._object_method_origin(expr, method, receiver, depth)
                if (
                    ran is not None
                    and Origin.OTHER < ran < Origin.POOL_TUPLE
                    and self._sibling_returns_pool(expr, method)
                ):
                    return ran
                return Origin.POOL_TUPLE if t.accessors[method].returns == "tuple" else Origin.POOL
            spelled = self._spelled_subscript(expr, method, receiver, args)
            if spelled is not None:  # `buf.__getitem__(slice(None))`: `buf[:]`
                return self.origin(spelled, depth)
            if receiver is not None:
                through = self._through_method(expr, method, receiver, args, depth)
                if through is not None:
                    return through
                if (method in t.element_methods or method in t.take_methods) and args and not args[0].star:
                    # `d.get(k)`, `d.pop(k)` read what `d[k]` does; `d.setdefault(k, v)` may also give v
                    element = cst.Subscript(receiver, [cst.SubscriptElement(cst.Index(args[0].value))])
                    self.parents.setdefault(element, self.parents.get(expr))
                    found = self.origin(element, depth + 1)
                    if method in t.default_last and len(args) > 1:
                        found = max(found, self.origin(args[-1].value, depth))
                    if found >= Origin.POOL_TUPLE:
                        return found
                elif method in t.take_methods and not args:  # `ring.popleft()`: any element
                    found = self._element(self.origin(receiver, depth))
                    if found >= Origin.POOL_TUPLE:
                        return found
                if method in t.member_methods and all(a.keyword for a in args):
                    members = self._member_origin(receiver, depth)  # `pool.buffers()`, `plist.parameters()`
                    if members == Origin.POOL_TUPLE:
                        return members
                if (method in t.keep_methods or method in t.item_methods) and all(a.keyword for a in args):
                    # (a keyword picks no element: `od.popitem(last=False)`)
                    # `d.values()`, `xs.copy()`: the same elements; `d.popitem()`: a (key, value) item, read as d
                    kept = self.origin(receiver, depth)
                    if kept == Origin.POOL_TUPLE:
                        return kept
                    mixed = self.mixin_view_element(receiver, method) if not args else None
                    if mixed is not None and self.origin(mixed, depth + 1) >= Origin.POOL:
                        return Origin.POOL_TUPLE  # `m.values()` of a Mapping subclass: its __getitem__'s
            returned = self._object_method_origin(expr, method, receiver, depth)
            if returned is not None:
                return returned
            return self._alias_call_origin(expr, depth)
        found = self._function_origin(expr, depth)
        if found is not None:
            return found
        built = self._dict_constructor_origin(expr, depth)
        if built is not None:
            return built
        keywords = self.dict_keywords(expr)
        if keywords is not None:  # `dict(k=pool.k_buffer[i], ...)`: a dict of whole caches
            inner = [self.origin(v, depth) for v in keywords.values()]
            return Origin.POOL_TUPLE if any(o >= Origin.POOL_TUPLE for o in inner) else Origin.OTHER
        fn = self.applied_function(expr)
        if fn is not None and self.applier(expr) != "fold" and len(expr.args) >= fn + 2:
            # map(f, xs): f applied to an element of xs (`map(itemgetter(0), pairs)`); tree_map(f, tree),
            # tree_map_only(T, f, tree): to each leaf of tree
            element = self._element_of(expr.args[fn + 1].value, None)
            applied = self.__dict__.setdefault("_applied_nodes", {}).get(id(expr))
            if applied is None:
                applied = cst.Call(func=expr.args[fn].value, args=[cst.Arg(value=element)])
                self.parents.setdefault(applied, self.parents.get(expr))
                self._applied_nodes[id(expr)] = applied
            each = self.origin(applied, depth + 1)
            return Origin.POOL_TUPLE if each >= Origin.POOL_TUPLE else Origin.OTHER
        if isinstance(func, cst.Name):
            returned = self._return_origin(expr, depth)
            if returned is not None:
                return returned
        return self._alias_call_origin(expr, depth)

    def operator_node(self, call: cst.BaseExpression) -> Optional[List[cst.BaseExpression]]:
        """What a call of a function that is a binary operator computes, as expressions of this module's
        parent map (rules/accessors.toml [callables]): `operator.add(a, b)` is `a + b`, `operator.or_(a,
        b)` `a | b` (add_functions, or_functions); `sum(xs, start)` with a display to start from (a list
        or tuple concatenation, not numbers) is start and `start + xs[j]` (sum_functions); None otherwise."""
        t = self.tables
        if not isinstance(call, cst.Call) or any(a.star for a in call.args):
            return None
        cache = self.__dict__.setdefault("_operator_nodes", {})
        if id(call) in cache:
            return cache[id(call)]
        found = None
        positional = [a.value for a in call.args if a.keyword is None]
        if len(positional) == 2 and len(call.args) == 2:
            for names, op in ((t.add_functions, cst.Add()), (t.or_functions, cst.BitOr())):
                if self.qualified_in(call, names):
                    found = [cst.BinaryOperation(left=positional[0], operator=op, right=positional[1])]
                    break
        if found is None and positional and self.qualified_in(call, t.sum_functions):
            start = (
                positional[1]
                if len(positional) > 1
                else next((a.value for a in call.args if a.keyword is not None and a.keyword.value == "start"), None)
            )
            if isinstance(start, (cst.List, cst.Tuple)):
                element = self._element_of(positional[0], None)
                found = [start, cst.BinaryOperation(left=start, operator=cst.Add(), right=element)]
        if found is not None:
            for node in found:
                self.parents.setdefault(node, self.parents.get(call))
        cache[id(call)] = found
        return found

    def _shaped_origin(self, call: cst.Call, shape: str, depth: int) -> Origin:
        """A container of whole pools when iterating call (of iteration_kind shape) yields one at some
        position: an element of a container of them (enumerate, zip, product, tree_leaves) or the
        repeated value itself (itertools.repeat of a pool)."""
        args = self.iterated_args(call)
        if shape == "counters" or not args:
            return Origin.OTHER
        if shape == "repeats":
            return Origin.POOL_TUPLE if self.origin(args[0], depth) >= Origin.POOL_TUPLE else Origin.OTHER
        if shape == "leaves":  # a tree that is a pool, or holds pools: its leaves are pools
            return Origin.POOL_TUPLE if self.origin(args[0], depth) >= Origin.POOL_TUPLE else Origin.OTHER
        iterables = args[:1] if shape == "numbered" else args
        for iterable in iterables:
            if self.origin(iterable, depth) == Origin.POOL_TUPLE or (
                self._protocol_iteration(iterable, depth) == Origin.POOL_TUPLE
            ):
                return Origin.POOL_TUPLE
        return Origin.OTHER

    def _fields_origin(self, obj: cst.BaseExpression, depth: int) -> Origin:
        """A dict of obj's fields (`vars(rec)`, `rec.__dict__`, `rec._asdict()`): a container of whole
        pools when one of the fields of obj's class is one."""
        fields = self.any_field_attributes(obj)
        found = max((self.origin(a, depth) for a in fields), default=Origin.OTHER)
        return Origin.POOL_TUPLE if found >= Origin.POOL_TUPLE else Origin.OTHER

    def applier(self, call: cst.BaseExpression) -> Optional[str]:
        """How a call runs the function it is given (rules/accessors.toml, by qualified name): "map"
        (`map(f, xs)`: f on each element of xs; [iteration] apply), "tree" (`tree_map(f, tree)`: f on
        each leaf; [iteration] tree_apply), "typed" (`tree_map_only(T, f, tree)`; tree_apply_typed),
        "fold" (`functools.reduce(f, xs, init)`: f on the accumulated value and each element;
        [callables] fold_functions); None for any other."""
        if not isinstance(call, cst.Call) or not isinstance(call.func, (cst.Name, cst.Attribute)) or not call.args:
            return None
        shorts = self.__dict__.get("_applier_shorts")
        if shorts is None:
            t = self.tables
            shorts = self._applier_shorts = {
                n.rsplit(".", 1)[-1] for n in (*t.iter_apply, *t.tree_apply, *t.tree_apply_typed, *t.fold_functions)
            }
        func = call.func
        short = func.value if isinstance(func, cst.Name) else func.attr.value
        if short not in shorts or short in self.nodes.local_callables or any(a.star for a in call.args[:2]):
            return None
        name = self.qualified(call) or ""
        t = self.tables
        if name in t.iter_apply or (isinstance(func, cst.Name) and func.value in t.iter_apply):
            return "map"
        if name in t.tree_apply:
            return "tree"
        if name in t.tree_apply_typed:
            return "typed"
        if name in t.fold_functions:
            return "fold"
        return None

    def fold_form(self, call: cst.Call) -> Optional[cst.Call]:
        """A fold call with reduce's arguments by position (the step function, the sequence, the initial
        value; tables.fold_in_reduce_order): `accumulate(xs, f, initial=x)` reads as `reduce(f, xs, x)`, as
        a node of this module's parent map; call itself for a fold that takes them so; None when an
        argument is starred or left unplaced."""
        cache = self.__dict__.setdefault("_fold_forms", {})
        if id(call) in cache:
            return cache[id(call)]
        found = None
        name = self.qualified(call) or ""
        if not any(a.star for a in call.args):
            positional = [a.value for a in call.args if a.keyword is None]
            keywords = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
            ordered = fold_in_reduce_order(self.tables, name, positional, keywords)
            if ordered is not None and name not in self.tables.fold_arguments:
                found = call
            elif ordered is not None:
                found = cst.Call(func=call.func, args=[cst.Arg(v) for v in ordered])
                self.parents.setdefault(found, self.parents.get(call))
        cache[id(call)] = found
        return found

    def applied_function(self, call: cst.BaseExpression) -> Optional[int]:
        """The position of the function argument an applier call runs (its iterables follow it; of a
        fold, in its fold_form)."""
        kind = self.applier(call)
        if kind is None:
            return None
        if kind == "fold":
            return 0 if self.fold_form(call) is not None else None
        fn = 1 if kind == "typed" else 0
        return fn if len(call.args) > fn and call.args[fn].keyword is None else None

    def qualified_in(self, call: cst.BaseExpression, names) -> bool:
        """Is call a call of one of names (qualified, under any import alias)?"""
        if not names or not isinstance(call, cst.Call) or not isinstance(call.func, (cst.Name, cst.Attribute)):
            return False
        func = call.func
        short = func.value if isinstance(func, cst.Name) else func.attr.value
        shorts = self.__dict__.setdefault("_short_sets", {})
        known = shorts.get(id(names))
        if known is None:
            known = shorts[id(names)] = frozenset(n.rsplit(".", 1)[-1] for n in names)
        if short not in known:
            return False
        return self.qualified(call) in names

    def _object_method_origin(self, call: cst.Call, method: str, receiver, depth: int) -> Optional[Origin]:
        """`super().m(...)` and `obj.m(...)` with obj an instance of a class of this module."""
        if receiver is None or receiver is not call.func.value:
            return None
        if not (isinstance(receiver, cst.Name) and receiver.value == "self") and not (
            isinstance(receiver, cst.Call) and isinstance(receiver.func, cst.Name) and receiver.func.value == "super"
        ):
            frames = self.construction_frames(receiver)
            if any(self.replaced_record(c) is not None for c, _ in frames):
                frames = []  # a record's copy with fields replaced: no __init__ ran for it
            if frames and len(frames) <= 8:
                # `LatentView(k).nope()`: the method reads the attributes of *that* construction
                found = [
                    self._under_construction(c, lambda: self._return_origin(call, depth), depth, env)
                    for c, env in frames
                ]
                if any(f is not None for f in found):
                    return max(f for f in found if f is not None)
                return None
            duck = self.duck_class(receiver, method, method=True)
            if duck is not None:  # `mgr.get_buffers(i)`, mgr of no known class: the one class defining it
                return self._returned(call, self.class_methods(duck)[method], True, depth)
        return self._return_origin(call, depth)

    def _under_construction(self, call: cst.Call, compute, depth: int, env: Optional[Dict[int, Origin]] = None):
        """compute() with __init__'s parameters bound to what this construction passes (its
        arguments read under env: the parameters of the helper that made it, bound by its call)."""
        cls = self.instance_class(call)
        init = self.find_method(cls, "__init__") if cls is not None else None
        bindings: Dict[int, Origin] = {}
        saved, saved_returns = self._origin_cache, self._returns_cache
        self._origin_cache, self._returns_cache = {}, {}  # both hold results under other bindings
        if init is not None:
            self._bindings.append(env or {})
            try:
                for param in (*init.params.posonly_params, *init.params.params, *init.params.kwonly_params):
                    argument = self._argument_for(call, init, param, skip_self=True)
                    bindings[id(param)] = self._passed_origin(call, argument, param, depth)
            finally:
                self._bindings.pop()
            self._origin_cache = {}
        self._bindings.append(bindings)
        try:
            return compute()
        finally:
            self._bindings.pop()
            self._origin_cache, self._returns_cache = saved, saved_returns

    def _spelled_subscript(self, call: cst.Call, method, receiver, args) -> Optional[cst.Subscript]:
        """`x.__getitem__(k)` ([views] subscript_methods) as the subscript `x[k]`, a node of this module's
        parent map; None for any other call, or for x of a module class that defines the method."""
        if method not in self.tables.subscript_methods or receiver is None or len(args) != 1:
            return None
        if args[0].keyword is not None or args[0].star:
            return None
        owner = self.instance_class(receiver)
        if owner is not None and self.find_method(owner, method) is not None:
            return None
        if isinstance(receiver, cst.Call) and isinstance(receiver.func, cst.Name) and receiver.func.value == "super":
            cls = self.enclosing_class(call)  # `super().__getitem__(i)`: a module base's own, else the builtin's
            if cls is None or any(method in self.class_methods(base) for base in self.class_mro(cls)[1:]):
                return None
        cache = self.__dict__.setdefault("_spelled_subscripts", {})
        if id(call) not in cache:
            index = args[0].value
            parts = [index]  # `x.__getitem__((slice(None), 0))` is `x[:, 0]`
            if isinstance(index, cst.Tuple) and index.elements:
                if not any(isinstance(e, cst.StarredElement) for e in index.elements):
                    parts = [e.value for e in index.elements]
            node = cst.Subscript(receiver, [cst.SubscriptElement(cst.Index(p)) for p in parts])
            self.parents.setdefault(node, self.parents.get(call))
            cache[id(call)] = node
        return cache[id(call)]

    def _sibling_returns_pool(self, call: cst.Call, method: str) -> bool:
        """Does a method of this name that the call does not run (another class's, the base's
        an override replaces) return a whole pool? Then the name was learnt from it, and the
        method that runs for the receiver's class decides."""
        ran = {id(target) for target, _, _ in self.return_targets(call)}
        if not ran:
            return False
        for cls in self.nodes.classes:
            other = self.class_methods(cls).get(method)
            if other is None or id(other) in ran:
                continue
            if any(self.origin(v) >= Origin.POOL_TUPLE for v in self._return_values(other)):
                return True
        return False

    def _alias_call_origin(self, call: cst.Call, depth: int) -> Origin:
        """A call through a held callable: a bound method stored under another name, a
        functools.partial, getattr with a constant name."""
        best = Origin.OTHER
        for value in self.applied_values(call):
            best = max(best, self.origin(value, depth))
        for form, bound in self.callable_values(call.func):
            if isinstance(form, tuple) and form[0] == "closure":  # make_reader(pool)(i): the inner def
                _, inner, env, skip = form
                synthetic = cst.Call(func=call.func, args=self.merged_args(bound, call.args))
                self.parents.setdefault(synthetic, self.parents.get(call))
                best = max(best, self._returned(synthetic, inner, skip, depth, env=env))
                continue
            if isinstance(form, tuple):  # methodcaller("m", ...)(x): x.m(...); attrgetter, itemgetter
                continue
            synthetic = cst.Call(func=form, args=self.merged_args(bound, call.args))
            self.parents.setdefault(synthetic, self.parents.get(call))
            if isinstance(form, cst.Lambda):  # a lambda held under a name or attribute
                best = max(best, self._returned(synthetic, form, False, depth))
            else:
                best = max(best, self.origin(synthetic, depth))
        return best

    def _function_short_names(self) -> set:
        names = getattr(self, "_short_names", None)
        if names is None:
            t = self.tables
            names = {
                f.rsplit(".", 1)[-1]
                for f in (
                    *t.gather_functions,
                    *t.tuple_view_functions,
                    *t.narrow_functions,
                    *t.view_functions,
                    *t.sized_view_functions,
                    *t.concat_functions,
                    *t.pack_functions,
                    *t.elementwise_functions,
                    *t.choose_functions,
                    *t.window_functions,
                    *t.einsum_functions,
                    *t.select_functions,
                )
            }
            self._short_names = names
        return names

    def _elementwise_origin(self, expr: cst.BinaryOperation, depth: int) -> Origin:
        """`pool & 0x0F`, `pool >> 4`, `pool * 2`: an elementwise operation of a buffer with a
        number keeps every slot of the buffer (nibble unpacking, a constant rescale); anything
        else made by arithmetic is a new value."""
        if isinstance(expr.operator, cst.BitOr) and any(
            self.origin(side, depth) == Origin.POOL_TUPLE for side in (expr.left, expr.right)
        ):
            return Origin.POOL_TUPLE  # `draft | base` of dicts of caches: a merged mapping
        if isinstance(expr.operator, cst.Add):
            # `target + draft` of tuples or lists of caches: the concatenation holds both's elements;
            # `acc + [pool.get_key_buffer(i)]`: a list (or tuple) display of caches added to anything
            # else is a concatenation too (no tensor is added to a list of tensors)
            sides = [self.origin(side, depth) for side in (expr.left, expr.right)]
            if Origin.POOL_TUPLE in sides and all(
                o in (Origin.POOL_TUPLE, Origin.OTHER)
                and (o == Origin.POOL_TUPLE or isinstance(side, _SEQUENCE_DISPLAYS))
                for o, side in zip(sides, (expr.left, expr.right))
            ):
                return Origin.POOL_TUPLE
            if all(o in (Origin.POOL_TUPLE, Origin.OTHER) for o in sides) and any(
                o == Origin.POOL_TUPLE
                and (
                    isinstance(side, (cst.List, cst.Tuple))
                    or self.qualified_in(side, self.tables.sequence_constructors)  # `acc + list(pair)`
                )
                for o, side in zip(sides, (expr.left, expr.right))
            ):
                return Origin.POOL_TUPLE
        for whole, other in ((expr.left, expr.right), (expr.right, expr.left)):
            while isinstance(other, cst.UnaryOperation):
                other = other.expression
            if isinstance(other, (cst.Integer, cst.Float)) or (
                isinstance(other, (cst.Name, cst.Attribute)) and self.index_kind(other, depth) == SCALAR
            ):
                found = self.origin(whole, depth)
                if found >= Origin.PREFIX or found == Origin.GATHERED:
                    return found
        return Origin.OTHER

    def _attribute_getter_origin(self, expr: cst.Call, depth: int) -> Optional[int]:
        """`getattr(pool, "k_buffer")`, `object.__getattribute__(holder, "_caches")` ([callables]
        attribute_getters): the attribute the constant name reads; None when it is no such read."""
        if not self.attribute_getter(expr.func) or len(expr.args) < 2 or any(a.star for a in expr.args[:2]):
            return None
        names = self.constant_strings(expr.args[1].value)
        if names and all(n.isidentifier() for n in names):  # getattr(pool, "k_buffer"): pool.k_buffer
            # several: `f"{half}_pools"` for half in ("k", "v"): the worst attribute named
            return max(self.origin(self._attribute(expr.args[0].value, n), depth) for n in names)
        owner = self.instance_class(expr.args[0].value) if names is None else None
        computed = self._computed_name_values(owner, expr.args[1].value) if owner is not None else []
        if computed:  # `getattr(self, f"kv_{layer_id}")` of `register_buffer(f"kv_{i}", t)`
            return max(self.origin(v, depth) for v in computed)
        dynamic = self.computed_protocol_read(expr) if names is None else None
        if dynamic is not None:  # `getattr(Layers, f"L{i}")`: what the metaclass's __getattr__ returns
            return self.origin(dynamic, depth)
        if names is None and self.names_a_field(expr.args[1].value):
            # `getattr(rec, f.name)` for f in `dataclasses.fields(rec)`: any field of rec's class (those
            # whose name passes the tests of f.name that hold here, field_walk_kept)
            kept = self.field_walk_kept(expr, expr)
            if kept is None:
                kept = self.any_field_attributes(expr.args[0].value)
            return max(
                (self.origin(a, depth) for a in kept),
                default=Origin.OTHER,
            )
        return None

    def _function_origin(self, expr: cst.Call, depth: int) -> Optional[Origin]:
        """Functions of the tables that take the pool as first argument (`torch.gather`,
        `torch.split`, `paged_view`): None when the call is none of them."""
        t = self.tables
        qualified = self.call_name(expr)
        if not qualified or not expr.args:
            return None
        qualified = qualified.removeprefix("builtins.")  # `abs(pool)`: the builtin, as the tables name it
        short = qualified.rsplit(".", 1)[-1]
        if qualified in t.gather_table_functions:
            table = self._gathered_table(expr)
            found = self.origin(table, depth) if table is not None else Origin.OTHER
            return Origin.GATHERED if found >= Origin.PREFIX or found == Origin.GATHERED else Origin.OTHER
        if qualified in t.concat_functions:
            return self._joined_origin(expr, depth)
        if qualified in t.pack_functions:  # (the join, what undoes it): unpacked, the first is the join
            joined = self._joined_origin(expr, depth)
            return Origin.POOL_TUPLE if joined == Origin.POOL else joined
        if qualified in t.choose_functions:
            return self._chosen_origin(expr, depth)
        if qualified in t.select_functions:
            first_arg = self._first_positional(expr.args)
            rest = [a for a in expr.args if a.value is not first_arg]
            selected = self._selected(expr, first_arg, rest) if first_arg is not None else None
            return self.origin(selected, depth) if selected is not None else Origin.OTHER
        if qualified in t.einsum_functions:
            order = self.einsum_order(expr)
            if order is None:
                return Origin.OTHER  # a contraction or a reduction: a new value
            found = self.origin(order[0], depth)
            return found if found >= Origin.PREFIX or found == Origin.GATHERED else Origin.OTHER
        view = (
            short in t.view_functions
            or qualified in t.view_functions
            or qualified in t.sized_view_functions
            or short in t.whole_functions
            or qualified in t.whole_functions
            or qualified in t.elementwise_functions
        )
        tuple_view = qualified in t.tuple_view_functions or short in t.tuple_view_functions
        if not (
            view
            or qualified in t.gather_functions
            or tuple_view
            or qualified in t.narrow_functions
            or qualified in t.window_functions
        ):
            return None
        first_arg = self._first_positional(expr.args)
        first = self.origin(first_arg, depth) if first_arg is not None else Origin.OTHER
        if first >= Origin.PREFIX:
            if qualified in t.dim_index_functions:
                # `torch.index_select(buf, 0, torch.arange(len(buf)))`, `torch.index_select(buf, -1, perm)`:
                # the subscript it is, decided by the layout
                selected = self._selected(expr, first_arg, [a for a in expr.args if a.value is not first_arg])
                if selected is not None:
                    return self.origin(selected, depth)
            if qualified in t.gather_functions:
                return Origin.GATHERED
            if tuple_view:
                rest = [a for a in expr.args if a.value is not first_arg]
                if qualified in t.split_functions and self._step_sized_pieces(rest):
                    return Origin.PREFIX if first == Origin.POOL else first
                if qualified in t.dim_split_functions and self._block_pieces(first_arg, rest):
                    return Origin.PREFIX if first == Origin.POOL else first
                return Origin.POOL_TUPLE if first >= Origin.POOL_TUPLE else first
            if qualified in t.narrow_functions:
                return self._narrow_origin(first, [a for a in expr.args if a.value is not first_arg], first_arg)
            if qualified in t.window_functions:
                return self._window_origin(first, [a for a in expr.args if a.value is not first_arg])
            if qualified in t.sized_view_functions and not self._own_size(
                first_arg, [a for a in expr.args if a.value is not first_arg]
            ):
                return Origin.PREFIX if first >= Origin.PREFIX else first  # `torch.as_strided(x, (4, ...), ...)`
            return first
        if first == Origin.GATHERED:
            return Origin.GATHERED
        return None if view and isinstance(expr.func, cst.Name) else Origin.OTHER

    def _chosen_origin(self, call: cst.Call, depth: int) -> Origin:
        """`torch.where(cond, x, y)` ([views] choose_functions): each element from x or y, as whole as
        the most whole of them (a gather when only gathers are chosen from); `where(cond)` alone gives
        indices."""
        positional = [a.value for a in call.args if a.keyword is None and not a.star]
        keywords = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
        chosen = positional[1:3] + [keywords[k] for k in ("input", "other") if k in keywords]
        found = [self.origin(v, depth) for v in chosen]
        best = max(found, default=Origin.OTHER)
        if best >= Origin.PREFIX or best == Origin.GATHERED:
            return best
        return Origin.OTHER

    def einsum_order(self, call: cst.Call) -> Optional[Tuple[cst.BaseExpression, List[int]]]:
        """(the operand, for each output dimension the input dimension it is) of an einsum
        ([views] einsum_functions) over one operand whose output is a permutation of its input's
        dimensions (`torch.einsum("thd->htd", kb)`, `einops.einsum(kb, "t h d -> h t d")`); None for
        a contraction, a reduction, a repeated or implicit output, or an equation not written out."""
        positional = [a for a in call.args if a.keyword is None]
        if any(a.star for a in positional) or any(a.keyword is not None for a in call.args):
            return None
        equations = [a.value for a in positional if isinstance(a.value, cst.SimpleString)]
        operands = [a.value for a in positional if not isinstance(a.value, cst.SimpleString)]
        if len(equations) != 1:
            return None
        if len(operands) == 1 and isinstance(operands[0], (cst.List, cst.Tuple)):
            elements = operands[0].elements
            if any(isinstance(e, cst.StarredElement) for e in elements):
                return None
            operands = [e.value for e in elements]
        if len(operands) != 1:
            return None
        equation = equations[0].evaluated_value
        if not isinstance(equation, str) or equation.count("->") != 1:
            return None
        sides = [_einsum_dims(side) for side in equation.split("->")]
        if sides[0] is None or sides[1] is None:
            return None
        source, output = sides
        if len(set(source)) != len(source) or sorted(source) != sorted(output):
            return None
        return operands[0], [source.index(d) for d in output]

    def _window_origin(self, receiver: Origin, args) -> Origin:
        """unfold(dimension, size, step) ([views] window_methods): along a later dimension every
        token stays; along the first, windows that skip no slot (a step of 1, or the size itself)
        keep every token, a longer step a strided subset (as `[::2]`)."""
        positional = [a.value for a in args if a.keyword is None and not a.star]
        keywords = {a.keyword.value: a.value for a in args if a.keyword is not None}
        names = ("dimension", "size", "step")
        values = [positional[i] if i < len(positional) else keywords.get(n) for i, n in enumerate(names)]
        dim, size, step = values
        if receiver == Origin.GATHERED:
            return receiver
        if isinstance(dim, cst.Integer) and dim.evaluated_value != 0:
            return receiver  # windows along the heads or the width: every token
        if isinstance(dim, cst.UnaryOperation) and isinstance(dim.expression, cst.Integer):
            return receiver  # a negative literal: a trailing dimension of a cache
        if not (isinstance(dim, cst.Integer) and step is not None and size is not None):
            return Origin.PREFIX if receiver == Origin.POOL else receiver
        if (isinstance(step, cst.Integer) and step.evaluated_value == 1) or self.code(step) == self.code(size):
            return receiver
        return Origin.PREFIX if receiver == Origin.POOL else receiver

    def _joined_origin(self, call: cst.Call, depth: int) -> Origin:
        """`torch.cat([a, b])`: whole when a joined tensor is whole (a list of pools is a tuple
        of them, its elements whole); a gather when only gathers are joined."""
        first = self._first_positional(call.args)
        if first is not None and self._every_row(first, depth):
            return Origin.POOL  # `torch.stack(list(k_cache))`: every row of the pool, joined again
        if not isinstance(first, (cst.List, cst.Tuple)):
            inner = self.origin(first, depth) if first is not None else Origin.OTHER
            return Origin.POOL if inner >= Origin.POOL_TUPLE else Origin.OTHER
        parts = [self.origin(e.value, depth) for e in first.elements if isinstance(e, cst.Element)]
        if any(p >= Origin.POOL for p in parts):
            return Origin.POOL
        # `torch.cat([*k.chunk(2, dim=2)], dim=2)`: the pieces of a whole split, spread, joined again
        if any(
            isinstance(e, cst.StarredElement) and self.origin(e.value, depth) >= Origin.POOL_TUPLE
            for e in first.elements
        ):
            return Origin.POOL
        return Origin.GATHERED if parts and all(p == Origin.GATHERED for p in parts) else Origin.OTHER

    def _every_row(self, expr: cst.BaseExpression, depth: int, seen: int = 0) -> bool:
        """Is expr a sequence of every row of one whole pool: `list(pool)` / `tuple(pool)` ([iteration]
        passthrough), `[p for p in pool]`, `[*pool]`, a name assigned one once, a slice of one keeping every
        element (`rows[:]`)? A subset (`rows[:1]`, `rows[i]`) is not."""
        if seen > 4:
            return False
        if isinstance(expr, cst.Name):
            values = [self._assigned_once(a.node) for a in self.reaching(expr)]
            return len(values) == 1 and values[0] is not None and self._every_row(values[0], depth, seen + 1)
        if isinstance(expr, cst.Call):
            name = (self.call_name(expr) or "").removeprefix("builtins.")
            if name not in self.tables.iter_passthrough or len(expr.args) != 1 or expr.args[0].star:
                return False
            return self.origin(expr.args[0].value, depth) == Origin.POOL
        if isinstance(expr, (cst.ListComp, cst.GeneratorExp)):
            loop = expr.for_in
            return (
                loop.inner_for_in is None
                and not loop.ifs
                and isinstance(loop.target, cst.Name)
                and isinstance(expr.elt, cst.Name)
                and expr.elt.value == loop.target.value
                and self.origin(loop.iter, depth) == Origin.POOL
            )
        if isinstance(expr, (cst.List, cst.Tuple)) and len(expr.elements) == 1:
            only = expr.elements[0]
            return isinstance(only, cst.StarredElement) and self.origin(only.value, depth) == Origin.POOL
        if isinstance(expr, cst.Subscript) and len(expr.slice) == 1 and isinstance(expr.slice[0].slice, cst.Slice):
            part = expr.slice[0].slice
            whole = all(b is None or _is_none(b) for b in (part.lower, part.upper, part.step))
            return whole and self._every_row(expr.value, depth, seen + 1)
        return False

    def _through_method(self, call, method, receiver, args, depth) -> Optional[Origin]:
        """The origin of `receiver.method(args)` when it follows the receiver's."""
        t = self.tables
        r = self.origin(receiver, depth)
        if r >= Origin.PREFIX:
            if method in t.dim_index_methods:
                selected = self._selected(call, receiver, args)
                if selected is not None:  # `buf.index_select(0, torch.arange(buf.size(0)))`: `buf[: buf.size(0)]`
                    return self.origin(selected, depth)
            if method in t.gather_methods:
                return Origin.GATHERED
            if method in t.tuple_view_methods:
                if method in t.split_methods and self._step_sized_pieces(args):
                    return Origin.PREFIX if r == Origin.POOL else r
                if method in t.dim_split_methods and self._block_pieces(receiver, args):
                    return Origin.PREFIX if r == Origin.POOL else r
                return Origin.POOL_TUPLE if r >= Origin.POOL_TUPLE else r
            if method in t.narrow_methods:
                return self._narrow_origin(r, args, receiver)
            if method in t.window_methods:
                return self._window_origin(r, args)
            if method in t.elementwise_methods:
                return r  # `buf.masked_fill(m, 0)`, `buf.clamp(lo, hi)`: every slot, values changed
            if method in t.select_methods:  # (`torch.Tensor.select(x, d, i)`, `aten.select.int(x, d, i)` too)
                selected = self._selected(call, receiver, args)
                if selected is not None:
                    return self.origin(selected, depth)
            if method in t.sized_view_methods and not self._own_size(receiver, args):
                return Origin.PREFIX if r >= Origin.PREFIX else r  # `as_strided((4, ...), ...)`: some slots
            if (
                method in t.view_methods
                or method in t.reinterpret_methods
                or method in t.copy_methods
                or method in t.whole_copy_methods
            ):
                return r
            if method in t.whole_methods:
                return r  # `buf.clone()`, `buf.requires_grad_(False)`: every element
            if self.cast_target(call) is not None:
                if self._host_bound(args):
                    return Origin.OTHER  # `layer.to("cpu", dt)`: converted once, on its way off the device
                return r  # a converted copy is as big as what it converts
            spelling = t.casts.get(method)
            if spelling is not None and spelling.form == "to":
                return r  # `pool.to("cuda")`, `pool.to(dev, non_blocking=True)`: every slot, moved
        if r == Origin.GATHERED and (
            method in t.view_methods
            or method in t.tuple_view_methods
            or method in t.narrow_methods
            or method in t.elementwise_methods
            or method in t.window_methods
            or self.cast_target(call) is not None
        ):
            return Origin.GATHERED
        return None

    def _host_bound(self, args) -> bool:
        """Does a conversion also move its input to host memory (a device argument of rules/accessors.toml
        [conversions] host_devices: `.to("cpu", dt)`, `.to(dt, device="cpu")`)? The copy it makes is the
        one conversion reported; what the host does with the copy later reads no pool."""
        hosts = self.tables.host_devices
        for a in args:
            if a.star or (a.keyword is not None and a.keyword.value != "device"):
                continue
            if (self.constant_string(a.value) or "").split(":")[0] in hosts:
                return True
        return False

    def _own_size(self, receiver: cst.BaseExpression, args) -> bool:
        """Is the size argument of a sized view (`as_strided(size, stride)`) the receiver's own
        size: `x.size()`, `x.shape`, `tuple(x.shape)` of the same x?"""
        size = next((a.value for a in args if a.keyword is not None and a.keyword.value == "size"), None)
        if size is None:
            size = next((a.value for a in args if a.keyword is None and not a.star), None)
        if size is None:
            return False
        if isinstance(size, cst.Call) and isinstance(size.func, cst.Name) and size.func.value in ("tuple", "list"):
            if len(size.args) != 1:
                return False
            size = size.args[0].value
        own = self.code(receiver)
        spelled = self.code(size)
        return spelled in (f"{own}.size()", f"{own}.shape")

    def _selected(self, call: cst.Call, receiver: cst.BaseExpression, rest) -> Optional[cst.Subscript]:
        """`x.select(d, i)` (or `torch.select(x, d, i)`: rest, the arguments after x; `dim=`, `index=`) as
        the subscript `x[:, ..., i]` (d slices before i), `x[..., i, :]` for a negative d (-2); None
        unless d is an int literal."""
        args = [a for a in rest if not a.star]
        if len(args) != 2 or len(args) != len(rest):
            return None
        positional = [a.value for a in args if a.keyword is None]
        keywords = {a.keyword.value: a.value for a in args if a.keyword is not None}
        dim = self.dim_argument(call, args)
        index = [v for v in positional if v is not dim][0] if len(positional) > 1 else keywords.get("index")
        position = self._dim_literal(dim)
        if position is None or index is None:
            return None
        cache = self.__dict__.setdefault("_selected_nodes", {})
        if id(call) not in cache:
            cache[id(call)] = self._dim_subscript(call, receiver, position, cst.Index(index))
        return cache[id(call)]

    def _dim_subscript(self, node, receiver, position: int, index: cst.BaseSlice) -> cst.Subscript:
        """receiver[:, ..., index] with index at dimension position (counted from the end when negative)."""
        full = cst.SubscriptElement(cst.Slice(None, None))
        if position >= 0:
            elements = [full] * position + [cst.SubscriptElement(index)]
        else:
            trailing = [full] * (-position - 1)
            elements = [cst.SubscriptElement(cst.Index(cst.Ellipsis())), cst.SubscriptElement(index), *trailing]
        subscript = cst.Subscript(receiver, elements)
        self.parents.setdefault(subscript, self.parents.get(node))
        return subscript

    def dim_argument(self, call: cst.Call, args) -> Optional[cst.BaseExpression]:
        """The dimension argument of a dim-taking op (rules/accessors.toml [dim_arguments], by the op's last
        name, `select` of `torch.ops.aten.select.int`; args: those after the tensor), by its keyword or
        position; None when left out (dimension 0).
        Every select and dim-split op of [views] has a row (tests/test_tables.py)."""
        name = self.namespace_op(call.func) or (call.func.attr.value if isinstance(call.func, cst.Attribute) else "")
        spec = self.tables.dim_arguments.get(name)
        if spec is None:
            return None
        if isinstance(spec, int):
            return cst.Integer(str(spec))  # `vsplit`, `hsplit`, `dsplit`: the dimension is the op's own
        keyword, position = spec
        positional = [a.value for a in args if a.keyword is None and not a.star]
        keywords = {a.keyword.value: a.value for a in args if a.keyword is not None}
        if position < len(positional):
            return positional[position]
        # `dim=` or an alias torch also takes (`axis=`: [views] dim_keyword_aliases)
        spelled = [keywords[k] for k in (keyword, *sorted(self.tables.dim_keyword_aliases)) if k in keywords]
        return spelled[0] if spelled else None

    @staticmethod
    def _dim_literal(dim) -> Optional[int]:
        """The int a dimension argument spells (`1`, `-1`); None for anything else."""
        if isinstance(dim, cst.Integer):
            return dim.evaluated_value
        if (
            isinstance(dim, cst.UnaryOperation)
            and isinstance(dim.operator, cst.Minus)
            and isinstance(dim.expression, cst.Integer)
        ):
            return -dim.expression.evaluated_value
        return None

    def _accessor_receiver_ok(self, call: cst.Call) -> bool:
        accessor = self.tables.accessors[call.func.attr.value]
        if not accessor.receivers:
            return True
        if self._super_in_override(call):
            return True  # `super().get_buffers(layer_idx, kv_layout)` in the subclass's own get_buffers
        if (
            accessor.arity
            and len([a for a in call.args if a.keyword is None]) == accessor.arity
            and not any(a.star for a in call.args)
            and call.args[0].keyword is None
            and (
                self.index_kind(call.args[0].value) == SCALAR
                or (self._inherited_in_accessor(call) and self.index_kind(call.args[0].value) != TENSOR)
            )
        ):
            # `mgr.get_buffers(i)`, `mgr.get_buffers(i, kv_layout="HND")`: the accessor's own signature
            # (its positional arguments), whatever holds it
            return True
        return any(text.rsplit(".", 1)[-1] in accessor.receivers for text in self._spellings(call.func.value))

    def _inherited_in_accessor(self, call: cst.Call) -> bool:
        """Is `self.<accessor>(i, ...)` called in an accessor of self's class (a learnt one: a
        subclass of the engine's manager converting what the inherited accessor returns)? Its layer
        index is then the accessor's own parameter, as castlint.analysis.pool_classes reads it."""
        receiver = call.func.value
        if not (isinstance(receiver, cst.Name) and receiver.value == "self"):
            return False
        func = self.enclosing_function(call)
        return func is not None and func.name.value in self.tables.accessors and self.method_class(func) is not None

    def _super_in_override(self, call: cst.Call) -> bool:
        """Is `super().<accessor>(i, ...)` called in the subclass's override of that same accessor, its
        layer index not an index tensor (a manager subclass converting what the engine's accessor returns)?"""
        receiver = call.func.value
        if not (
            isinstance(receiver, cst.Call) and isinstance(receiver.func, cst.Name) and receiver.func.value == "super"
        ):
            return False
        func = self.enclosing_function(call)
        if func is None or func.name.value != call.func.attr.value or self.method_class(func) is None:
            return False
        positional = [a for a in call.args if a.keyword is None and not a.star]
        return bool(positional) and self.index_kind(positional[0].value) != TENSOR

    def _small_state_method(self, receiver: cst.BaseExpression, method: str) -> bool:
        """Is `receiver.method(...)`, a known accessor name, a method of a class of this module that
        returns only attributes it allocates batch-sized or of a literal shape (per-request state
        named like a pool: `DraftState.get_key_buffer` over `torch.zeros((max_bs, h))`)? Then the
        name proves nothing: what the method returns decides."""
        if isinstance(receiver, cst.Name) and receiver.value == "self":
            return False
        cls = self.instance_class(receiver)
        func = self.find_method(cls, method) if cls is not None else None
        if func is None:
            return False
        cache = self.derived.setdefault("small_state_methods", {})
        if id(func) not in cache:
            cache[id(func)] = self._returns_small_state(cls, func)
        return cache[id(func)]

    def _returns_small_state(self, cls: cst.ClassDef, func: cst.FunctionDef) -> bool:
        t = self.tables
        attrs: List[str] = []
        pending = list(self._return_values(func))
        while pending:
            value = pending.pop()
            if isinstance(value, cst.Tuple):
                pending.extend(e.value for e in value.elements)
            elif isinstance(value, cst.Subscript):
                pending.append(value.value)
            elif (
                isinstance(value, cst.Call)
                and isinstance(value.func, cst.Attribute)
                and (value.func.attr.value in t.view_methods or self.cast_target(value) is not None)
            ):
                pending.append(value.func.value)
            elif isinstance(value, cst.Attribute) and isinstance(value.value, cst.Name) and value.value.value == "self":
                attrs.append(value.attr.value)
            else:
                return False  # another value: the accessor's name stands
        if not attrs:
            return False
        for attr in attrs:
            values = [v for owner in self.class_mro(cls) for v in self.self_attr_values(owner, attr)]
            if not values or not all(self._small_allocation(v) for v in values):
                return False
        return True

    def _small_allocation(self, value: cst.BaseExpression) -> bool:
        """A batch-sized allocation, or one of literal dimensions only (a list of them per layer)."""
        if isinstance(value, (cst.ListComp, cst.GeneratorExp)):
            return self._small_allocation(value.elt)
        kind = self.allocation_kind(value)
        if kind == "batch":
            return True
        if kind != "unknown" or not isinstance(value, cst.Call):
            return False
        size = self._first_positional(value.args)
        if isinstance(size, (cst.Tuple, cst.List)):
            dims = [e.value for e in size.elements]
        else:
            dims = [a.value for a in value.args if a.keyword is None and not a.star]
        return bool(dims) and all(isinstance(d, cst.Integer) for d in dims)

    def _lookup_keys(self, expr: cst.BaseExpression) -> List[str]:
        """The keys of a registry lookup (`[callables] keyed_lookups`) by a constant, lower case:
        an enum member's name (the key the registry is filled under, whatever its value) and
        the string the argument holds; [] for any other value."""
        if not (isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute)):
            return []
        if expr.func.attr.value not in self.tables.keyed_lookups or len(expr.args) != 1 or expr.args[0].star:
            return []
        argument = expr.args[0].value
        keys = [argument.attr.value.lower()] if isinstance(argument, cst.Attribute) else []
        constant = self.constant_string(argument)
        return keys + ([constant.lower()] if constant is not None else [])

    def _spellings(self, expr: cst.BaseExpression, depth: int = 0) -> List[str]:
        """How the receiver is spelled where its value comes from: itself, and for a name or a
        parameter what it is assigned or passed (`manager` bound to `metadata.kv_cache_manager`)."""
        text = dotted(expr) or ""
        out = [text]
        # `rm.get_resource_manager(ResourceManagerType.KV_CACHE_MANAGER)`
        out.extend(self._lookup_keys(expr))
        if isinstance(expr, cst.Attribute) and depth <= 3:  # `self.manager` set from `kv_cache_manager`
            owner = self.instance_class(expr.value)
            for value in self.instance_attr_values(owner, expr.attr.value) if owner is not None else ():
                out.extend(self._spellings(value, depth + 1))
            return out
        if isinstance(expr, cst.Call) and depth <= 3:  # `attrgetter("engine.kv_cache_manager")(executor)`
            for value in self.applied_values(expr):
                out.extend(self._spellings(value, depth + 1))
            return out
        if not isinstance(expr, cst.Name) or depth > 3:
            return out
        for assignment in self.reaching(expr):
            node = assignment.node
            param = self.param_of(node)
            if isinstance(param, cst.Param):
                owner = self._param_owner(param)
                calls = list(self._calls_by_name().get(id(owner), ())) + self._object_calls(owner)
                cls = self.method_class(owner) if isinstance(owner, cst.FunctionDef) else None
                skip = cls is not None
                if cls is not None:  # `self._bind(metadata.kv_cache_manager, ...)` in the class
                    self._index_class(cls)
                    calls += self._method_calls.get((id(cls), owner.name.value), [])
                for site in calls:
                    argument = self._argument_for(site, owner, param, skip_self=skip)
                    if argument is not None:
                        out.extend(self._spellings(argument, depth + 1))
            elif isinstance(node, cst.Name):
                kind, value, path = self.binding(node)
                if kind == "assign" and not path:
                    out.extend(self._spellings(value, depth + 1))
                elif kind == "assign":  # `mgr, idx = self._where(meta)`: the element by position
                    for element in self.unpacked_values(value, path) or ():
                        out.extend(self._spellings(element, depth + 1))
        return out

    def method_parts(self, call: cst.Call):
        """(receiver, method, args) of `x.m(args)`, and of the unbound `torch.Tensor.m(x, args)`;
        (None, None, args) for a call that is no method call."""
        func = call.func
        constructed = self.constructor_parts(call)
        if constructed is not None:
            return constructed
        if not isinstance(func, cst.Attribute):
            return None, None, call.args
        op = self.namespace_op(func)  # `torch.ops.aten.permute.default(buf, dims)`: buf.permute(dims)
        if op is not None or self._is_unbound_receiver(func.value):
            method = op if op is not None else func.attr.value
            args = self.spread_args(call.args)  # `torch.Tensor.to(*call)` of `call = (buf, dt)`
            positional = [a for a in args if a.keyword is None and not a.star]
            if not positional or any(a.star == "*" for a in args[: args.index(positional[0])]):
                return None, method, call.args
            first = positional[0]
            return first.value, method, tuple(a for a in args if a is not first)
        return func.value, func.attr.value, call.args

    def namespace_op(self, func: cst.BaseExpression) -> Optional[str]:
        """The op of `torch.ops.aten.<op>(...)` or of its overload `torch.ops.aten.<op>.<overload>(...)`
        (rules/accessors.toml [conversions] op_namespaces, as spelled or under the module's imports:
        `from torch.ops import aten`); None for any other callee. Its ops take the tensor first: the
        call is the unbound method `<op>` of its first argument."""
        namespaces = self.tables.op_namespaces
        if not namespaces or not isinstance(func, cst.Attribute):
            return None
        cache = self.__dict__.setdefault("_namespace_ops", {})
        if id(func) in cache:
            return cache[id(func)]
        found = None
        text = dotted(func)
        if text is not None and any(ns.rsplit(".", 1)[-1] in text for ns in namespaces):
            spellings = [text]
            scope = self.scopes.get(func)
            if scope is not None:
                spellings += [q.name for q in scope.get_qualified_names_for(func)]
            root, _, rest = text.partition(".")
            held = self._namespace_aliases().get(root)
            if held is not None and rest:  # `aten = torch.ops.aten` at module level: `aten.permute.default`
                spellings.append(f"{held}.{rest}")
            for spelled in spellings:
                for ns in namespaces:
                    if spelled.startswith(ns + "."):
                        parts = spelled[len(ns) + 1 :].split(".")
                        if len(parts) <= 2 and parts[0].isidentifier():
                            found = parts[0]
        cache[id(func)] = found
        return found

    def constructor_parts(self, call: cst.Call):
        """`torch.as_tensor(x, dtype=d, device=dev)` ([conversions] constructors) read as the cast
        `x.to(dtype=d, device=dev)`: (x, "to", the other arguments); None for any other call. An
        element constructor's list (`torch.nested.nested_tensor([k, v], dtype=d)`: [conversions]
        element_constructors) is read as the receiver, its elements converted each."""
        func = call.func
        short = None
        if isinstance(func, cst.Attribute):
            short = func.attr.value
        elif isinstance(func, cst.Name):
            short = func.value
        converted = self._dtype_argument_parts(call, short)
        if converted is not None:
            return converted
        elements = self.tables.conversion_element_constructors
        constructors = set(self.tables.conversion_constructors) | set(elements)
        if isinstance(func, cst.Attribute) and short in self.tables.conversion_constructor_methods:
            pass  # `t.new_tensor(pool, dtype=d)`: a method of any tensor, the data first
        elif short is None or not constructors or not any(q.rsplit(".", 1)[-1] == short for q in constructors):
            return None
        elif (self.call_name(call) or "") not in constructors:
            return None
        if not call.args or call.args[0].keyword is not None or call.args[0].star:
            return None
        first = call.args[0]
        if isinstance(first.value, _WRITTEN_DATA) and not (
            isinstance(first.value, _ELEMENT_DISPLAYS) and (self.call_name(call) or "") in elements
        ):
            return None  # `torch.tensor([0, n], dtype=d)`: a new tensor of Python values, no copy of a pool
        rest = tuple(a for a in call.args if a is not first)
        if short in self.tables.conversion_constructor_methods and isinstance(func, cst.Attribute):
            if not any(a.keyword is not None and a.keyword.value in self._to_dtype_keywords() for a in rest):
                rest = (self._receiver_arg(func),) + rest  # `q.new_tensor(buf)`: buf in q's dtype, `buf.to(q)`
        return first.value, "to", rest

    def _dtype_argument_parts(self, call: cst.Call, short: Optional[str]):
        """`torch.sum(x, dim=0, dtype=d)`, `x.mean(dim=0, dtype=d)`, `F.softmax(x, -1, dtype=d)` (rules/casts.toml
        [dtype_arguments]: operations that convert their input to `dtype` first) read as the cast `x.to(dtype=d)`:
        (x, "to", (the dtype argument,)); None for any other call, and for one given no dtype (it converts nothing).
        A function by its qualified name takes the input first; a method of the table not called on an import
        (`np.sum`, `torch.sum`: functions) on its receiver."""
        t = self.tables
        if short is None or (short not in t.dtype_argument_methods and not t.dtype_argument_functions):
            return None
        keywords = t.dtype_argument_keywords
        dtype = next((a for a in call.args if a.keyword is not None and a.keyword.value in keywords), None)
        if dtype is None:
            return None
        if any(q.rsplit(".", 1)[-1] == short for q in t.dtype_argument_functions):
            name = self.call_name(call) or ""
            if name in t.dtype_argument_functions:
                first = call.args[0] if call.args else None
                if first is None or first.keyword is not None or first.star:
                    return None
                return first.value, "to", (dtype,)
        func = call.func
        if short not in t.dtype_argument_methods or not isinstance(func, cst.Attribute):
            return None
        if self._imported_callee(func):
            return None  # `np.sum(x, dtype=d)`, `torch.mean(...)` not in the table: a module's function
        return func.value, "to", (dtype,)

    def _imported_callee(self, func: cst.Attribute) -> bool:
        """Is `a.b.m` an attribute of an imported name (a module's function, not a tensor's method)?"""
        if not isinstance(func.value, (cst.Name, cst.Attribute)):
            return False  # `torch.abs(pool).sum(dtype=d)`: a method of what a call returned
        scope = self.scopes.get(func)
        if scope is None:
            return False
        return any(q.source == QualifiedNameSource.IMPORT for q in scope.get_qualified_names_for(func))

    def _to_dtype_keywords(self) -> frozenset:
        spec = self.tables.casts.get("to")
        return frozenset(getattr(spec, "dtype_keywords", ()) or ())

    def _receiver_arg(self, func: cst.Attribute) -> cst.Arg:
        """The receiver of `t.new_tensor(...)` as an argument node (`.to(t)`: t's dtype), once per callee."""
        cache = self.__dict__.setdefault("_receiver_args", {})
        if id(func) not in cache:
            cache[id(func)] = cst.Arg(func.value)
        return cache[id(func)]

    def _namespace_aliases(self) -> Dict[str, str]:
        """Module-level names bound once to an op namespace or a part of its path (`aten =
        torch.ops.aten`, `ops = torch.ops`): name -> the dotted path."""
        found = self.__dict__.get("_ns_aliases")
        if found is None:
            namespaces = self.tables.op_namespaces
            bound: Dict[str, List[str]] = {}
            for statement in self.module.body:
                if not isinstance(statement, cst.SimpleStatementLine):
                    continue
                for small in statement.body:
                    if isinstance(small, cst.Assign):
                        for target in small.targets:
                            if isinstance(target.target, cst.Name):
                                bound.setdefault(target.target.value, []).append(dotted(small.value) or "")
            found = {
                name: values[0]
                for name, values in bound.items()
                if len(values) == 1
                and any(ns == values[0] or ns.startswith(values[0] + ".") for ns in namespaces)
                and "." in values[0]
            }
            self._ns_aliases = found
        return found

    def _is_unbound_receiver(self, expr: cst.BaseExpression) -> bool:
        """`torch.Tensor` (or `Tensor` imported from torch) in `torch.Tensor.to(pool, d)`; an op
        namespace or one of its ops in `torch.ops.aten.<op>(x, ...)` / `torch.ops.aten.<op>.<overload>(x,
        ...)` (the callee's op is then namespace_op's); the class of a value (`type(buf)`, `buf.__class__`:
        its method called with an instance first is that instance's)."""
        if self._class_of_value(expr):
            return True
        text = dotted(expr)
        if text is None:
            return False
        parent = self.parents.get(expr)
        if isinstance(parent, cst.Attribute) and parent.value is expr and self.namespace_op(parent) is not None:
            return True
        receivers = self.tables.unbound_receivers
        if text in receivers:
            return True
        if text.rsplit(".", 1)[-1] not in {r.rsplit(".", 1)[-1] for r in receivers}:
            return False
        scope = self.scopes.get(expr)
        names = scope.get_qualified_names_for(expr) if scope is not None else set()
        return any(q.name in receivers for q in names)

    def _class_of_value(self, expr: cst.BaseExpression) -> bool:
        """`type(x)` (the builtin, one argument) or `x.__class__` ([conversions] class_of_functions,
        class_of_attributes) as the receiver of a method called with x itself first (`type(x).m(x, ...)`
        is `x.m(...)`; `type(self).make(n)` of a static or class method is not)."""
        t = self.tables
        if isinstance(expr, cst.Attribute) and expr.attr.value in t.class_of_attributes:
            instance = expr.value
        elif (
            isinstance(expr, cst.Call)
            and isinstance(expr.func, cst.Name)
            and expr.func.value in t.class_of_functions
            and expr.func.value not in self.nodes.local_callables
            and expr.func.value not in self.module_classes()
            and len(expr.args) == 1
            and expr.args[0].keyword is None
            and not expr.args[0].star
        ):
            instance = expr.args[0].value
        else:
            return False
        method = self.parents.get(expr)
        call = self.parents.get(method) if isinstance(method, cst.Attribute) else None
        if not isinstance(call, cst.Call) or call.func is not method:
            call = self._called_getattr(method)
        first = self._first_positional(call.args) if isinstance(call, cst.Call) else None
        return first is not None and self.code(first) == self.code(instance)

    def _called_getattr(self, getter) -> Optional[cst.Call]:
        """The call of `getattr(cls, "name")(...)` around the Arg that holds cls, else None."""
        getter = self.parents.get(getter) if isinstance(getter, cst.Arg) else None
        call = self.parents.get(getter) if isinstance(getter, cst.Call) else None
        return call if isinstance(call, cst.Call) and call.func is getter else None

    @staticmethod
    def _first_positional(args) -> Optional[cst.BaseExpression]:
        for arg in args:
            if arg.keyword is None and not arg.star:
                return arg.value
            if arg.keyword is not None and arg.keyword.value in ("input", "self", "tensor"):
                return arg.value
        return None

    def _narrow_origin(self, receiver: Origin, args, holder: Optional[cst.BaseExpression] = None) -> Origin:
        """narrow(dim, start, length): an active prefix along dim 0, else every token; `narrow(0, 0, 1)`
        of a cache with its planes first is the plane `[0:1]` (every block's K)."""
        positional = [a.value for a in args if a.keyword is None and not a.star]
        keywords = {a.keyword.value: a.value for a in args if a.keyword is not None}
        dim = positional[0] if positional else keywords.get("dim")
        start = positional[1] if len(positional) > 1 else keywords.get("start")
        length = positional[2] if len(positional) > 2 else keywords.get("length")
        along_tokens = isinstance(dim, cst.Integer) and dim.value == "0"
        if not along_tokens or receiver == Origin.GATHERED:
            return receiver
        literal = isinstance(start, cst.Integer) and isinstance(length, cst.Integer)
        if literal and holder is not None and receiver == Origin.POOL:
            # literal bounds: read as the slice `[start:start + length]` of the holder (a plane, some blocks)
            upper = cst.Integer(str(start.evaluated_value + length.evaluated_value))
            element = cst.SubscriptElement(cst.Slice(lower=start, upper=upper))
            return self._token_subscript(receiver, [element], holder)
        if length is not None and not self._step_bound(length) and self._mentions_extent(length):
            return receiver  # (a length read from the step is a window, as a slice bound is: `[:n]`)
        return Origin.PREFIX if receiver == Origin.POOL else receiver

    def _step_sized_pieces(self, args) -> bool:
        """split(size, dim): pieces along the tokens (dim 0, or left out) whose size comes from the step
        (`buf.split(forward_batch.extend_num_tokens)`): each piece is a window of the step's size."""
        positional = [a.value for a in args if a.keyword is None and not a.star]
        keywords = {a.keyword.value: a.value for a in args if a.keyword is not None}
        size = positional[0] if positional else keywords.get("split_size") or keywords.get("split_size_or_sections")
        dim = positional[1] if len(positional) > 1 else keywords.get("dim")
        along_tokens = dim is None or (isinstance(dim, cst.Integer) and dim.value == "0")
        return along_tokens and size is not None and self._step_bound(size)

    def _split_piece(self, call: cst.BaseExpression, index: cst.BaseExpression) -> Optional[Origin]:
        """The piece a constant index picks of a split into sizes written out along dimension 0 (a list
        of sizes, or one literal size; rules/accessors.toml split_methods, split_functions), read as the
        slice of the pool it is: `buf.split([64, n - 64])[0]` is `buf[:64]`, `[1]` (the last) `buf[64:]`;
        None for anything else."""
        if not isinstance(call, cst.Call) or not isinstance(index, cst.Integer):
            return None
        t = self.tables
        func = call.func
        if (self.call_name(call) or "") in t.split_functions and call.args and not call.args[0].star:
            holder, args = call.args[0].value, list(call.args[1:])
        elif isinstance(func, cst.Attribute) and func.attr.value in t.split_methods:
            holder, args = func.value, list(call.args)
        else:
            return None
        if any(a.star for a in args) or self.origin(holder) != Origin.POOL:
            return None
        positional = [a.value for a in args if a.keyword is None]
        keywords = {a.keyword.value: a.value for a in args if a.keyword is not None}
        sizes = positional[0] if positional else keywords.get("split_size_or_sections", keywords.get("split_size"))
        dim = positional[1] if len(positional) > 1 else keywords.get("dim")
        if dim is not None and not (isinstance(dim, cst.Integer) and dim.evaluated_value == 0):
            return None
        bounds = self._piece_bounds(sizes, index.evaluated_value)
        if bounds is None:
            return None
        element = cst.SubscriptElement(cst.Slice(lower=bounds[0], upper=bounds[1]))
        return self._token_subscript(Origin.POOL, [element], holder)

    def _dim_piece(self, call: cst.BaseExpression, index: cst.BaseExpression) -> Optional[Origin]:
        """The piece a constant index picks of a split along a literal dimension ([views] dim_split_methods,
        dim_split_functions; dim 0 when left out), read as the selection `holder[:, ..., k]` along that
        dimension, which the holder's layout decides: a piece along its slot dimension keeps some slots
        (`buf.split(n, dim=0)[0]`), along another every slot (`kv_cache.chunk(2)[0]`: a plane); None for a
        split into one piece (`chunk(x, 1)`), pieces sized by the pool's own extent (a share of the pool),
        a dimension that is no literal, anything else."""
        if not isinstance(call, cst.Call) or not (isinstance(index, cst.Integer) or self.index_kind(index) == SCALAR):
            return None  # (a scalar index of the pieces: `parts[r]` for r in range(n), one piece of them)
        t = self.tables
        qualified = self.call_name(call) or ""
        split_functions = t.dim_split_functions | {f"torch.{m}" for m in t.unbind_methods}
        if qualified in split_functions and call.args and not call.args[0].star:
            holder, args = call.args[0].value, list(call.args[1:])
        elif isinstance(call.func, cst.Attribute) and call.func.attr.value in t.dim_split_methods | t.unbind_methods:
            holder, args = call.func.value, list(call.args)
        else:
            return None
        if any(a.star for a in args) or self.origin(holder) != Origin.POOL:
            return None
        name = qualified.rsplit(".", 1)[-1] if qualified in split_functions else call.func.attr.value
        positional = [a.value for a in args if a.keyword is None]
        count = positional[0] if positional and name not in t.unbind_methods else None
        if name in t.chunk_methods and isinstance(count, cst.Integer) and count.evaluated_value == 1:
            return None
        dim = self.dim_argument(call, args)
        position = 0 if dim is None else self._dim_literal(dim)
        if position is None or (position == 0 and count is not None and self._mentions_extent(count)):
            return None  # `torch.split(buf, buf.size(0))[0]`, `buf.split(buf.shape[0] // 2)[1]`: pool-sized
        return self.origin(self._dim_subscript(call, holder, position, cst.Index(index)))

    @staticmethod
    def _piece_bounds(sizes, k: int) -> Optional[tuple]:
        """(lower, upper) of piece k of a split into sizes (upper None for the last piece of a list,
        which runs to the end); None when the sizes are not written out."""
        if isinstance(sizes, cst.Integer):
            size = sizes.evaluated_value
            return cst.Integer(str(k * size)), cst.Integer(str((k + 1) * size))
        if not isinstance(sizes, (cst.List, cst.Tuple)) or k >= len(sizes.elements):
            return None
        if any(not isinstance(e, cst.Element) for e in sizes.elements):
            return None
        before = [e.value for e in sizes.elements[:k]]
        if any(not isinstance(v, cst.Integer) for v in before):
            return None  # an offset that is no literal: where the piece starts is unknown
        lower = cst.Integer(str(sum(v.evaluated_value for v in before))) if before else None
        if k == len(sizes.elements) - 1:
            return lower, None
        size = sizes.elements[k].value
        if not isinstance(size, cst.Integer):
            return None
        return lower, cst.Integer(str((0 if lower is None else lower.evaluated_value) + size.evaluated_value))

    def _block_pieces(self, holder: cst.BaseExpression, args) -> bool:
        """split/chunk/tensor_split(sizes, dim) along dimension 0 (or left out) of a cache an engine hands
        over with its blocks first (rules/conventions.toml `planes = false`): each piece some blocks."""
        positional = [a.value for a in args if a.keyword is None and not a.star]
        keywords = {a.keyword.value: a.value for a in args if a.keyword is not None}
        dim = positional[1] if len(positional) > 1 else keywords.get("dim")
        along_blocks = dim is None or (isinstance(dim, cst.Integer) and dim.evaluated_value == 0)
        return along_blocks and self.from_convention(holder, layout="blocks")
