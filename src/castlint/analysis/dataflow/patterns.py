"""What a name bound by a `case` pattern holds, and what an assignment target is given
(`assigned_value`): unpacked, iterated and constructed values."""

from __future__ import annotations

from typing import List, Optional, Tuple

import libcst as cst
from libcst.metadata import Assignment

from castlint.analysis.dataflow.shared import MAX_DEPTH, _is_none
from castlint.analysis.origin import Origin
from castlint.analysis.tree import dotted, iter_nodes


def _display_element(value: cst.BaseExpression, key) -> Optional[cst.BaseExpression]:
    """The element a constant position or key selects of a tuple, list or dict display; None when
    the display does not show it."""
    if isinstance(value, (cst.Tuple, cst.List)) and isinstance(key, cst.Integer):
        elements = list(value.elements)
        index = int(key.value)
        if all(isinstance(e, cst.Element) for e in elements) and index < len(elements):
            return elements[index].value
    if isinstance(value, cst.Dict) and isinstance(key, cst.SimpleString):
        for e in value.elements:
            shown = isinstance(e, cst.DictElement) and isinstance(e.key, cst.SimpleString)
            if shown and e.key.evaluated_value == key.evaluated_value:
                return e.value
    return None


class PatternMatching:
    def _case_binding(self, name: cst.Name) -> Optional[cst.Name]:
        """The Name a `case` pattern binds for a use of name in that case's body (libcst's scopes
        do not record pattern bindings); None otherwise."""
        for node in self.ancestors(name):
            if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
                return None
            if isinstance(node, cst.MatchCase):
                for inner in iter_nodes(node.pattern, (cst.MatchAs, cst.MatchStar, cst.MatchMapping)):
                    bound = (
                        inner.name
                        if isinstance(inner, (cst.MatchAs, cst.MatchStar))
                        else inner.rest
                        if isinstance(inner, cst.MatchMapping)
                        else None
                    )
                    if isinstance(bound, cst.Name) and bound.value == name.value and bound is not name:
                        return bound
        return None

    def _matched_value(self, bound: cst.Name) -> Optional[cst.BaseExpression]:
        """What a pattern binds, as an expression of the match's subject: a class pattern's keyword
        (`case C(buf=b)`: subject.buf) or position (subject[i], a record's field), a mapping pattern's
        key (`case {"buf": t}`: subject["buf"]), a sequence pattern's position (`case (k, v)`:
        subject[0]); a star or a mapping's rest: the subject (the rest of its elements)."""
        cache = self.__dict__.setdefault("_matched_values", {})
        if id(bound) in cache:
            return cache[id(bound)]
        steps: list = []
        node = self.parents.get(bound)
        while node is not None and not isinstance(node, cst.MatchCase):
            parent = self.parents.get(node)
            if isinstance(parent, cst.MatchKeywordElement) and parent.pattern is node:
                steps.append(("attr", parent.key))
            elif isinstance(parent, cst.MatchMappingElement) and parent.pattern is node:
                steps.append(("key", parent.key))
            elif isinstance(parent, cst.MatchSequenceElement) and parent.value is node:
                holder = self.parents.get(parent)
                elements = list(getattr(holder, "patterns", None) or getattr(holder, "elements", ()))
                index = next(i for i, e in enumerate(elements) if e is parent)
                starred = any(isinstance(e, cst.MatchStar) for e in elements[:index])
                steps.append(("key", None if starred else cst.Integer(str(index))))
            node = parent
        if node is None:
            cache[id(bound)] = None
            return None
        match = self.parents.get(node)
        value = match.subject
        for kind, key in reversed(steps):
            if kind == "attr":
                value = cst.Attribute(value, cst.Name(key.value))
                self.parents.setdefault(value, node)
                continue
            shown = _display_element(value, key)
            if shown is not None:  # `match (kv_cache, slots): case (c, s)`: s is slots itself
                value = shown
                continue
            value = cst.Subscript(value, [cst.SubscriptElement(cst.Index(key or cst.Integer("0")))])
            self.parents.setdefault(value, node)
        cache[id(bound)] = value
        return value

    def assigned_value(self, target: cst.CSTNode) -> Tuple[Optional[cst.BaseExpression], Optional[int]]:
        """For a Name being assigned, the expression assigned (and tuple index)."""
        kind, value, path = self.binding(target)
        if kind != "assign":
            return None, None
        return value, (path[0] if path else None)

    def _assignment_origin(self, assignment: Assignment, depth: int) -> Origin:
        node = assignment.node
        if isinstance(node, cst.Param) or isinstance(self.parents.get(node), cst.Param):
            param = self.param_of(node)
            return self._param_origin(param, depth)
        if not isinstance(node, cst.Name):
            return Origin.OTHER
        return self.target_origin(node, depth)

    def target_origin(self, node: cst.CSTNode, depth: int) -> Origin:
        """What an assignment target holds: a name, or an attribute of another object stored by unpacking
        (`box.k, box.v = kv.unbind(0)`): its element of the value."""
        kind, value, path = self.binding(node)
        if kind == "assign" and path and isinstance(self.parents.get(node), cst.StarredElement):
            # `first, *rest = caches`: rest is a list of the further elements, a container too
            start = self._starred_start(node)
            if len(path) == 1 and start is not None and self._entry_scales(start, value, depth):
                return Origin.OTHER  # `k, v, *quant = past_key_value`: the positions past the caches, scales
            container = self._unpacked(value, path[:-1], depth)
            if container != Origin.POOL_TUPLE and len(path) == 1:
                # `first, *rest = self.groups[i]` of a [k, v] list: rest holds the further whole caches
                elements = self.element_values(value, None)
                if elements and max(self.origin(e, depth) for e in elements) >= Origin.POOL_TUPLE:
                    return Origin.POOL_TUPLE
            return container if container == Origin.POOL_TUPLE else self._element(container)
        if kind == "assign":
            return self._unpacked(value, path, depth)
        if kind == "for":
            return self._iterated(value, path, depth)
        return Origin.OTHER

    def _starred_start(self, node: cst.Name) -> Optional[int]:
        """The first position of the unpacked value a starred target (`*rest` of `k, v, *rest = entry`)
        holds: its index in its own target tuple (no star can precede it)."""
        starred = self.parents.get(node)
        container = self.parents.get(starred)
        if not isinstance(starred, cst.StarredElement) or not isinstance(container, (cst.Tuple, cst.List)):
            return None
        return next((i for i, e in enumerate(container.elements) if e is starred), None)

    @staticmethod
    def _element(origin: Origin) -> Origin:
        """What unpacking or iterating a value of this origin gives."""
        return Origin.POOL if origin >= Origin.POOL_TUPLE else origin

    def _unpacked(self, value: cst.BaseExpression, path, depth: int) -> Origin:
        if not path:
            return self.origin(value, depth)
        if self._entry_scales(path[0], value, depth):  # `k, v, kz, vz = past_key_value`: kz, vz are scales
            return Origin.OTHER
        if isinstance(value, (cst.Tuple, cst.List)):
            elements = list(value.elements)
            index = path[0]
            if index is not None and index < len(elements) and isinstance(elements[index], cst.Element):
                return self._unpacked(elements[index].value, path[1:], depth)
            return max((self._unpacked(e.value, path[1:], depth) for e in elements), default=Origin.OTHER)
        piece = self._split_piece(value, cst.Integer(str(path[0]))) if path[0] is not None else None
        if piece is not None:  # `head, rest = buf.split([64, n - 64])`: `buf[:64]`, `buf[64:]`
            return piece if len(path) == 1 else self._element(piece)
        structural = Origin.OTHER
        if isinstance(value, cst.Name) and path[0] is not None:
            # a parameter that holds a tuple: what its calls pass, by position (`buf, blocks = pair` of
            # `self._prepare(self._fetch(mgr, idx))`: the elements _fetch returns)
            arguments = self._complete_name_arguments(value)
            if arguments:
                return max(self._unpacked(a, path, depth) for a in arguments)
            rows = self._star_mapped_rows(value)
            if rows:  # `kv, slots = entry` of `starmap(self._mirror, staged.items())`: the rows' items, by position
                return max(self._iterated(iterable, (position, *path), depth) for iterable, position in rows)
        ordered = self._ordered_values(value, path[0], 0) if path[0] is not None else None
        if ordered is not None:  # `k, v, scale = planes(i).values()` of a dict display: its values by position
            return max(self._unpacked(v, path[1:], depth) for v in ordered)
        if path[0] is not None:  # `k, v = pairs[i]`, `kk, vv, _ = record`: by position
            elements = self.element_values(value, path[0])
            if elements:
                structural = max(self._unpacked(v, path[1:], depth) for v in elements)
                if structural >= Origin.POOL_TUPLE:  # a pool, or a container of them: nesting kept
                    return structural
        if isinstance(value, cst.Call):  # `k, v, loc = self._buffers(batch)`: what it returns, by position
            returned = self._return_origin(value, depth, tuple(path))
            if returned is not None:
                return max(returned, structural)
        origin = self.origin(value, depth)
        for _ in path:
            origin = self._element(origin)
        return max(origin, structural)

    def _constructed_arguments(self, name: cst.Name) -> List[cst.BaseExpression]:
        """What every construction of a class passes for the __init__ parameter a name reads, when the
        module constructs it only by calls that pass it; [] otherwise."""
        param = self._plain_param(name)
        owner = self._param_owner(param) if param is not None and not param.star else None
        if not isinstance(owner, cst.FunctionDef) or owner.name.value != "__init__" or owner.decorators:
            return []
        calls = self._object_calls(owner)
        found = [self._argument_for(call, owner, param, skip_self=True) for call in calls]
        return found if found and all(f is not None for f in found) else []

    def _complete_name_arguments(self, name: cst.Name) -> List[cst.BaseExpression]:
        """complete_arguments of the parameter a name reads, when that is all that reaches it; else []."""
        param = self._plain_param(name)
        return self.complete_arguments(param) if param is not None else []

    def _protocol_iteration(self, iterable: cst.BaseExpression, depth: int) -> Origin:
        """Iterating an object of a class of the module that defines the iteration protocol
        (rules/accessors.toml [iteration] protocol: `__iter__`, then `__next__` when __iter__ hands
        back no container; a class with neither is iterated by index, `__getitem__(0)`, ...): POOL_TUPLE
        when what it yields is a whole pool (a generator `__iter__` yielding `mgr.get_buffers(i)`), else
        OTHER."""
        t = self.tables
        protocol = [(m, True) for m in sorted(t.iter_protocol)] + [(m, False) for m in sorted(t.next_protocol)]
        protocol += [(m, None) for m in sorted(t.index_protocol)]
        if not any(m in self.nodes.local_callables for m, _ in protocol) or depth > MAX_DEPTH:
            return Origin.OTHER
        if not isinstance(iterable, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)):
            return Origin.OTHER
        owner = self.instance_class(iterable)
        if owner is None:
            return Origin.OTHER
        for method, whole_container in protocol:  # __iter__ first (a container, or a generator), then __next__
            if self.find_method(owner, method) is None:
                continue
            if whole_container is None:  # the sequence protocol: `__getitem__(0)`, `(1)`, ... as elements
                if any(self.find_method(owner, m) is not None for m, w in protocol if w is not None):
                    return Origin.OTHER
                synthetic = cst.Call(func=self._attribute(iterable, method), args=[cst.Arg(cst.Integer("0"))])
                self.parents.setdefault(synthetic, self.parents.get(iterable))
                return Origin.POOL_TUPLE if self.origin(synthetic, depth) >= Origin.POOL else Origin.OTHER
            synthetic = cst.Call(func=self._attribute(iterable, method))
            self.parents.setdefault(synthetic, self.parents.get(iterable))
            found = self.origin(synthetic, depth)
            if found >= (Origin.POOL_TUPLE if whole_container else Origin.POOL):
                return Origin.POOL_TUPLE  # its elements (each __next__()) are whole pools
        return Origin.OTHER

    def called_until(self, call: cst.Call) -> Optional[cst.Call]:
        """`iter(f, sentinel)` ([iteration] call_until, two positional arguments): the call `f()` whose
        results iterating it yields, as a node of the same place; else None."""
        func = call.func
        if not (isinstance(func, cst.Name) and func.value in self.tables.iter_call_until) or len(call.args) != 2:
            return None
        if any(a.keyword is not None or a.star for a in call.args):
            return None
        memo = self.derived.setdefault("called_until", {})
        found = memo.get(id(call))
        if found is None:
            found = memo[id(call)] = cst.Call(func=call.args[0].value)
            self.parents.setdefault(found, self.parents.get(call))
        return found

    def _iterated(self, iterable: cst.BaseExpression, path, depth: int) -> Origin:
        """The origin of a for/comprehension target (at path) iterating over iterable."""
        if isinstance(iterable, cst.Call):
            pulled = self.called_until(iterable)
            if pulled is not None:  # `iter(q.next_layer, None)`: each element is a `q.next_layer()`
                return self._unpacked(pulled, path, depth)
            name = (dotted(iterable.func) or "").rsplit(".", 1)[-1]
            args = [a.value for a in iterable.args if a.keyword is None and not a.star]
            shape = self.iteration_kind(iterable)
            if shape == "numbered":  # `enumerate(xs)`: (a counter, an element of xs)
                if not path or path[0] != 1:
                    return Origin.OTHER
                return self._iterated(args[0], path[1:], depth)
            if shape == "pairs":  # `zip(a, b)`, `itertools.product(a, b)`: one element of each
                if not path or path[0] is None or path[0] >= len(args):
                    return self._shaped_origin(iterable, shape, depth) if not path else Origin.OTHER
                return self._iterated(args[path[0]], path[1:], depth)
            if shape == "repeats":  # `itertools.repeat(x, n)`: x itself, each time
                return self._unpacked(args[0], path, depth)
            if shape == "counters":
                return Origin.OTHER
            if name in self.tables.iter_passthrough and args:
                return self._iterated(args[0], path, depth)
            qualified = self.qualified(iterable) if args else None
            if qualified in self.tables.iter_windows:  # `pairwise(xs)`: (xs[j], xs[j + 1])
                if not path:
                    return Origin.POOL_TUPLE if self._iterated(args[0], (), depth) >= Origin.POOL else Origin.OTHER
                return self._iterated(args[0], path[1:], depth)
            if qualified in self.tables.iter_groups:  # `groupby(xs)`: (key, an iterator over elements of xs)
                if not path or path[0] != 1:
                    return Origin.OTHER
                held = self.origin(args[0], depth)
                for _ in path[1:]:
                    held = self._element(held)
                return held
            sources = self.iteration_sources(iterable)
            if sources is not None:  # `islice(xs, a, b)`, `filter(p, xs)`, `chain.from_iterable(pairs)`
                iterables, levels = sources
                inner = (None,) * (levels - 1) + tuple(path)
                return max(self._iterated(a, inner, depth) for a in iterables)
            if isinstance(iterable.func, cst.Attribute) and not iterable.args:
                receiver = iterable.func.value
                mixed = self.mixin_view_element(receiver, name)
                if mixed is not None and name in self.tables.keep_methods:  # a Mapping subclass's values()
                    return self._unpacked(mixed, path, depth)
                if mixed is not None and name in self.tables.item_methods:  # ... its items(): (key, m[key])
                    return self._unpacked(mixed, path[1:], depth) if path and path[0] == 1 else Origin.OTHER
                if name in self.tables.keep_methods:  # `d.values()`: the same elements
                    return self._iterated(receiver, path, depth)
                if name in self.tables.item_methods:  # `d.items()`: (a key, a value)
                    if path and path[0] == 1:
                        return self._iterated(receiver, path[1:], depth)
                    return Origin.OTHER
        if isinstance(iterable, (cst.Tuple, cst.List)):
            return max(
                (self._unpacked(e.value, path, depth) for e in iterable.elements if isinstance(e, cst.Element)),
                default=Origin.OTHER,
            )
        if path and isinstance(iterable, cst.Name):
            # a parameter: the parts of the elements its calls pass (`for start, _ in stages` of
            # `StagedPools([(0, k[:h]), (h, k[h:])])`: the starts, not the buffers)
            arguments = self._complete_name_arguments(iterable) or self._constructed_arguments(iterable)
            if arguments and all(isinstance(a, (cst.Tuple, cst.List)) for a in arguments):
                return max(self._iterated(a, path, depth) for a in arguments)
        positioned = self._positioned_elements(iterable, path, depth)
        if positioned is not None:
            return positioned
        origin = self._element(max(self.origin(iterable, depth), self._protocol_iteration(iterable, depth)))
        for _ in path:
            origin = self._element(origin)
        if origin < Origin.POOL and (
            isinstance(iterable, cst.Name) or (path and isinstance(iterable, (cst.Attribute, cst.Subscript)))
        ):
            # a local container the function fills (`acc = []; acc.extend(entry)`): its elements; a held list
            # of records unpacked by position (`for lid, k, v in self.slots` of `LayerSlot(i, kbuf, vbuf)`)
            elements = self.element_values(iterable, None)
            if elements:
                origin = max(origin, max(self._unpacked(e, path, depth) for e in elements))
        if origin < Origin.POOL and self._list_slice(iterable):
            # `for b in self.stage_bufs[r][:1]`: a slice of a Python list the file builds keeps its elements
            elements = self.element_values(iterable.value, None)
            if elements:
                origin = max(origin, max(self._unpacked(e, path, depth) for e in elements))
        return origin

    def _positioned_elements(self, iterable: cst.BaseExpression, path, depth: int) -> Optional[Origin]:
        """A target unpacked by position from the elements of a container the module builds, where every
        element's structure is shown down to that position (`for i, (k, s) in enumerate(engine.kv_pairs)` of
        `list(zip((c[0] for c in caches), (c[2] for c in caches)))`: s is `c[2]`, an entry's scales, not
        the element the lattice reads): the origin of what sits there; None when some step is not shown."""
        if not path or None in path or not isinstance(iterable, (cst.Name, cst.Attribute, cst.Subscript)):
            return None
        elements = self.element_values(iterable, None)
        if not elements:
            return None
        found: list = []
        for element in elements:
            values = self.path_values(element, path, lattice=False)
            if not values:
                return None
            found.extend(values)
        return max(self.origin(v, depth) for v in found)

    def _list_slice(self, expr: cst.BaseExpression) -> bool:
        """Is expr a slice (`xs[:1]`, `xs[a:b]`) of a list or tuple the file builds (displays and
        comprehensions only, through names, attributes and subscripts; a None it is set to aside)?"""
        sliced = isinstance(expr, cst.Subscript) and len(expr.slice) == 1 and isinstance(expr.slice[0].slice, cst.Slice)
        return sliced and self._built_list(expr.value, 0)

    def _built_list(self, expr: cst.BaseExpression, depth: int) -> bool:
        if depth > 4 or not isinstance(expr, (cst.Name, cst.Attribute, cst.Subscript)):
            return False
        values = [v for v in self._container_sources(expr, depth) or () if not _is_none(v)]
        return bool(values) and all(self._dict_kind(v) is False or self._built_list(v, depth + 1) for v in values)
