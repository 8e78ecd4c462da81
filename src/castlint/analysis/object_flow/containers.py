"""Containers filled by stores (`keyed_values`, `filled_values`): appends, item and attribute stores,
`setattr`, and the key shapes that tell stores apart."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

import libcst as cst

from castlint.analysis.object_flow.shared import _dotted
from castlint.analysis.tree import iter_nodes


class Containers:
    def grown_attributes(self, cls: cst.ClassDef):
        """(attr, value) for `self.attr.append(v)` / `.insert(i, v)` / `.extend(vs)` in cls:
        the list then holds v (as `[v]`) or vs."""
        out = []
        for call in self.nodes.calls:
            func = call.func
            grown = self._grown_by_function(call)
            if grown is not None:  # `heapq.heappush(self.heap, item)`
                holder, value = grown
                if (
                    isinstance(holder, cst.Attribute)
                    and isinstance(holder.value, cst.Name)
                    and holder.value.value in ("self", "cls")  # (`cls.hooks.append(fn)` in a classmethod)
                    and self.enclosing_class(call) is cls
                ):
                    out.append((holder.attr.value, self._held_list(value)))
                continue
            if not (isinstance(func, cst.Attribute) and self._grow_kind(func.attr.value) and call.args):
                continue
            # `self.groups[gid].append(t)`, `self.groups.setdefault(gid, []).append(t)`: a container of
            # containers
            holder, levels = self.store_root(func.value)
            if not (
                isinstance(holder, cst.Attribute)
                and isinstance(holder.value, cst.Name)
                and holder.value.value in ("self", "cls")
                and self.enclosing_class(call) is cls
            ):
                continue
            kind = self._grow_kind(func.attr.value)
            value = call.args[-1].value if kind == "last" else call.args[0].value
            if kind != "many":
                value = self._held_list(value)
            else:
                value = self.grown_elements(func.attr.value, value)
            out.append((holder.attr.value, self._nested_list(value, levels)))
        for holder, value in self.nodes.self_item_assignments:  # self.d[k] = v: d holds v
            if self.enclosing_class(holder) is cls:
                out.append((holder.attr.value, self._held_list(value)))
        for target, value in self.nodes.nested_item_assignments:  # self.d.setdefault(g, {})[k] = v
            holder, levels = self.store_root(target.value)
            if (
                levels
                and isinstance(holder, cst.Attribute)
                and isinstance(holder.value, cst.Name)
                and holder.value.value in ("self", "cls")
                and self.enclosing_class(target) is cls
            ):
                out.append((holder.attr.value, self._nested_list(value, levels + 1)))
        return out

    def store_root(self, holder: cst.BaseExpression) -> Tuple[cst.BaseExpression, int]:
        """(the container a store into holder lands in, how many containers deep): `d[g]` and
        `d.setdefault(g, {})` / `d.get(g)` (rules/accessors.toml [containers] take_methods, an
        element of d) are one level into d, `d[a][b]` two; any other holder is itself, level 0."""
        levels = 0
        take = self.tables.take_methods
        while True:
            if (
                isinstance(holder, cst.Subscript)
                and len(holder.slice) == 1
                and isinstance(holder.slice[0].slice, cst.Index)
            ):
                holder, levels = holder.value, levels + 1
            elif (
                isinstance(holder, cst.Call)
                and isinstance(holder.func, cst.Attribute)
                and holder.func.attr.value in take
                and holder.args
                and not holder.args[0].star
            ):
                holder, levels = holder.func.value, levels + 1
            else:
                return holder, levels

    def _item_pair(self, mapping: cst.BaseExpression, value: cst.BaseExpression) -> cst.Tuple:
        """`(key, value)`, an item of mapping, as a node of this module's parent map (the key a name
        nothing binds: no pool)."""
        cache = self.__dict__.setdefault("_item_pairs", {})
        key = (id(mapping), id(value))
        if key not in cache:
            node = cst.Tuple([cst.Element(cst.Name("_key")), cst.Element(value)])
            self.parents.setdefault(node, self.parents.get(value))
            cache[key] = node
        return cache[key]

    def _held_pairs(self, call: cst.Call, pairs: List[cst.BaseExpression]) -> cst.List:
        """A list display of pairs: what an item view (`d.items()`) holds."""
        cache = self.__dict__.setdefault("_held_pair_lists", {})
        if id(call) not in cache:
            node = cst.List([cst.Element(p) for p in pairs])
            self.parents.setdefault(node, self.parents.get(call))
            cache[id(call)] = node
        return cache[id(call)]

    def _nested_list(self, value: cst.BaseExpression, levels: int) -> cst.BaseExpression:
        """value held `levels` containers deep: `[[value]]` for 2."""
        for _ in range(levels):
            value = self._held_list(value)
        return value

    def _grown_by_function(self, call: cst.Call):
        """(holder, value) for a function that stores its last argument into its first ([containers]
        grow_functions: `heapq.heappush(h, item)`); None for any other call."""
        t = self.tables
        if not t.grow_functions or len(call.args) < 2:
            return None
        tails = self.__dict__.get("_grow_tails")
        if tails is None:
            tails = self._grow_tails = {n.rsplit(".", 1)[-1] for n in t.grow_functions}
        if (
            any(a.star or a.keyword is not None for a in call.args[:2])
            or (_dotted(call.func) or "").rsplit(".", 1)[-1] not in tails
            or self.qualified(call.func) not in t.grow_functions
        ):
            return None
        return call.args[0].value, call.args[-1].value

    def set_attributes(self, cls: cst.ClassDef):
        """(name, value) for `self.register_buffer("name", value)` and `setattr(self, "name", value)`
        in cls's methods (rules/accessors.toml [callables] attribute_setters): `self.name = value`."""
        setters = self.tables.attribute_setters
        if not setters:
            return []
        index = self.__dict__.get("_set_attributes")
        if index is None:
            index = self._set_attributes = {}
            for call in self.nodes.calls:
                args = self.self_setter_args(call)
                if args is None:
                    owner = self.enclosing_class(call)
                    for name, value in self._namespace_updates(call) if owner is not None else ():
                        index.setdefault(id(owner), []).append((name, value))
                    continue
                if len(args) < 2 or any(a.star or a.keyword is not None for a in args[:2]):
                    continue
                owner = self.enclosing_class(call)
                if owner is None:
                    continue
                # `for name in ("q_data_type", "kv_data_type"): setattr(self, name, v)`: each name the
                # loop (or the callers, a default) gives; a pair from a literal mapping's items
                for name, value in self._named_set_values(args[0].value, args[1].value):
                    if name.isidentifier():
                        index.setdefault(id(owner), []).append((name, value))
        return index.get(id(cls), [])

    def _named_set_values(self, name: cst.BaseExpression, value: cst.BaseExpression) -> List[tuple]:
        """(attribute name, value) pairs a setter call with these name and value arguments stores: each
        constant the name may hold, with value; for `for k, v in {"a": x, "b": y}.items(): setattr(self,
        k, v)` (or over a literal sequence of pairs), each key with its own value."""
        names = self.constant_strings(name)
        if names is not None:
            return [(n, value) for n in names]
        pairs = self._literal_item_pairs(name, value)
        return pairs or []

    def _literal_item_pairs(self, name: cst.BaseExpression, value: cst.BaseExpression) -> List[tuple]:
        """`for k, v in {...}.items()` / `for k, v in (("a", x), ("b", y))` of names k and v bound by the
        same for target: (key, value expression) per entry; [] when it is no such loop."""
        if not isinstance(name, cst.Name) or not isinstance(value, cst.Name):
            return []
        loop = self.parents.get(name)
        while loop is not None and not isinstance(loop, (cst.For, cst.FunctionDef)):
            loop = self.parents.get(loop)
        if not isinstance(loop, cst.For) or not isinstance(loop.target, (cst.Tuple, cst.List)):
            return []
        targets = [e.value for e in loop.target.elements]
        if len(targets) != 2 or not all(isinstance(t, cst.Name) for t in targets):
            return []
        if (targets[0].value, targets[1].value) != (name.value, value.value):
            return []
        source = loop.iter
        entries = []
        if (
            isinstance(source, cst.Call)
            and isinstance(source.func, cst.Attribute)
            and source.func.attr.value in self.tables.item_views
            and not source.args
        ):
            mapping = self.dict_literal_entries(source.func.value)
            if mapping is None:
                return []
            entries = mapping
        elif isinstance(source, (cst.Tuple, cst.List)):
            for element in source.elements:
                pair = element.value
                if not isinstance(pair, cst.Tuple) or len(pair.elements) != 2:
                    return []
                entries.append((pair.elements[0].value, pair.elements[1].value))
        else:
            return []
        out = []
        for key, held in entries:
            text = self.constant_string(key)
            if text is None:
                return []
            out.append((text, held))
        return out

    def dict_literal_entries(self, expr: cst.BaseExpression) -> Optional[List[tuple]]:
        """(key, value) of a dict display `{"a": x}` or `dict(a=x)`; None for anything else."""
        if isinstance(expr, cst.Dict):
            entries = []
            for element in expr.elements:
                if not isinstance(element, cst.DictElement):
                    return None
                entries.append((element.key, element.value))
            return entries
        constructor = (self.call_name(expr) or "").removeprefix("builtins.") if isinstance(expr, cst.Call) else None
        if constructor in self.tables.item_dicts:
            if any(a.keyword is None for a in expr.args):
                return None
            return [(cst.SimpleString(repr(a.keyword.value)), a.value) for a in expr.args]
        return None

    def _namespace_updates(self, call: cst.Call) -> List[tuple]:
        """(name, value) for an update of self's own namespace: `self.__dict__.update({"q": d})`,
        `vars(self).update(q=d, kv=d)` ([callables] class_dict_functions / class_dict_attributes,
        [containers] grow_pairs) sets self.q and self.kv; [] for any other call."""
        func = call.func
        if not isinstance(func, cst.Attribute) or func.attr.value not in self.tables.grow_pairs:
            return []
        space = func.value
        if isinstance(space, cst.Attribute) and space.attr.value in self.tables.class_dict_attributes:
            holder = space.value
        elif (
            isinstance(space, cst.Call)
            and len(space.args) == 1
            and (self.call_name(space) or "") in self.tables.class_dict_functions
        ):
            holder = space.args[0].value
        else:
            return []
        if not (isinstance(holder, cst.Name) and holder.value == "self"):
            return []
        entries: List[tuple] = []
        for arg in call.args:
            if arg.keyword is not None:
                entries.append((cst.SimpleString(repr(arg.keyword.value)), arg.value))
            elif not arg.star:
                entries.extend(self.dict_literal_entries(arg.value) or [])
        out = []
        for key, value in entries:
            text = self.constant_string(key)
            if text is not None and text.isidentifier():
                out.append((text, value))
        return out

    def self_setter_args(self, call: cst.Call) -> Optional[Sequence[cst.Arg]]:
        """(name, value, ...) arguments of a call that sets an attribute of self: `self.register_buffer(n, v)`,
        `self.__setattr__(n, v)`, `super().__setattr__(n, v)` ([callables] attribute_setters, methods) and
        `setattr(self, n, v)`, `object.__setattr__(self, n, v)` ([callables] object_setters); None otherwise."""
        func, args = call.func, call.args
        if isinstance(func, cst.Attribute) and func.attr.value in self.tables.attribute_setters:
            receiver = func.value
            if (isinstance(receiver, cst.Name) and receiver.value == "self") or (
                isinstance(receiver, cst.Call)
                and isinstance(receiver.func, cst.Name)
                and receiver.func.value == "super"
            ):
                return args
        if isinstance(func, (cst.Name, cst.Attribute)) and self._object_setter(func):
            if args and isinstance(args[0].value, cst.Name) and args[0].value.value == "self" and not args[0].star:
                return args[1:]
        return None

    def _grow_kind(self, method: str) -> Optional[str]:
        """How a container method stores into its receiver (rules/accessors.toml [containers]
        grow_*): "one" its first argument, "last" its last, "many" the elements of its first."""
        t = self.tables
        if method in t.grow_one:
            return "one"
        if method in t.grow_last:
            return "last"
        return "many" if method in t.grow_many else None

    def filled_values(self, name: cst.Name) -> List[cst.BaseExpression]:
        """What the function that reads a local container stores into it: `d[k] = v`,
        `xs.append(v)` / `.insert(i, v)` (each as `[v]`), `xs.extend(vs)`."""
        index = self.__dict__.get("_filled_index")
        if index is None:
            index = self.__dict__["_filled_index"] = {}
            sliced = self.__dict__["_slice_filled"] = set()
            for target, value in self.nodes.name_item_assignments:
                key = (id(self._filled_scope(target.value)), target.value.value)
                held = self._held_list(value)
                index.setdefault(key, []).append(held)
                if any(isinstance(e.slice, cst.Slice) for e in target.slice):
                    sliced.add(id(held))  # `buf[:] = v`: a copy into a tensor too (slice_filled)
            for target, value in self.nodes.nested_item_assignments:  # `d.setdefault(g, {})[k] = v`
                holder, levels = self.store_root(target.value)
                if levels and isinstance(holder, cst.Name):
                    key = (id(self._filled_scope(holder)), holder.value)
                    index.setdefault(key, []).append(self._nested_list(value, levels + 1))
            for call in self.nodes.calls:
                func = call.func
                grown = self._grown_by_function(call)
                if grown is not None and isinstance(grown[0], cst.Name):  # `heapq.heappush(h, item)`
                    key = (id(self._filled_scope(grown[0])), grown[0].value)
                    index.setdefault(key, []).append(self._held_list(grown[1]))
                    continue
                # `groups[gid].append(t)`, `groups.setdefault(gid, []).append(t)`: a container of containers
                holder, levels = self.store_root(func.value) if isinstance(func, cst.Attribute) else (None, 0)
                if (
                    isinstance(func, cst.Attribute)
                    and self._grow_kind(func.attr.value)
                    and call.args
                    and isinstance(holder, cst.Name)
                ):
                    kind = self._grow_kind(func.attr.value)
                    value = call.args[-1].value if kind == "last" else call.args[0].value
                    if kind == "many":
                        value = self.grown_elements(func.attr.value, value)
                    key = (id(self._filled_scope(holder)), holder.value)
                    if kind == "many" and not isinstance(value, (cst.List, cst.Tuple, cst.Name)):
                        # `xs.extend(entry)` of a container whose structure is not shown (an entry
                        # list's `gpu_cache[i]`, an accessor's pair): xs holds its elements
                        value = self._held_list(self._element_of(value, None))
                    stored = value if kind == "many" else self._held_list(value)
                    index.setdefault(key, []).append(self._nested_list(stored, levels))
        return index.get((id(self._filled_scope(name)), name.value), [])

    def slice_filled(self, value: cst.BaseExpression) -> bool:
        """Is value one filled_values gives for a slice store (`buf[:] = v`)? Into a tensor that is a
        copy, which keeps the destination's dtype: not what the destination is."""
        return id(value) in self.__dict__.get("_slice_filled", ())

    def _filled_scope(self, name: cst.Name):
        """The function a container's name is local to; None for a module-level container that functions
        fill (`_READERS[fmt] = fn` in a registering decorator: every function's stores count)."""
        function = self.enclosing_function(name)
        if function is None:
            return None
        reaching = self.reaching(name)
        if reaching and all(isinstance(a.node, cst.Name) and self.enclosing_function(a.node) is None for a in reaching):
            return None
        return function

    def grown_elements(self, method: str, value: cst.BaseExpression) -> cst.BaseExpression:
        """What `x.<method>(value)` of grow_many stores, as a container of it: value itself, except for a
        mapping's pair grower ([containers] grow_pairs: `d.update((k, v) for k in ks)`, `d.update([(k1, v1),
        (k2, v2)])`) given a display or comprehension of 2-tuples, whose values alone are stored."""
        if method not in self.tables.grow_pairs:
            return value
        cache = self.__dict__.setdefault("_pair_values", {})
        if id(value) in cache:
            return cache[id(value)]
        found = value
        if isinstance(value, (cst.GeneratorExp, cst.ListComp, cst.SetComp)):
            if _pair(value.elt):
                found = self._held_list(value.elt.elements[1].value)
        elif isinstance(value, (cst.List, cst.Tuple, cst.Set)) and value.elements:
            if all(isinstance(e, cst.Element) and _pair(e.value) for e in value.elements):
                found = cst.List([cst.Element(e.value.elements[1].value) for e in value.elements])
                self.parents.setdefault(found, self.parents.get(value))
        cache[id(value)] = found
        return found

    def _held_list(self, value: cst.BaseExpression) -> cst.List:
        cache = self.__dict__.setdefault("_held_lists", {})
        if id(value) not in cache:
            node = cst.List([cst.Element(value)])
            self.parents.setdefault(node, self.parents.get(value))
            cache[id(value)] = node
        return cache[id(value)]

    def _holder_identity(self, expr: cst.BaseExpression) -> Optional[tuple]:
        """Which container expr names, for stores read back elsewhere: `self.x` / `cls.x` (the class
        and x), `obj.x` of an instance of a module class, a local name (its function and name)."""
        if isinstance(expr, cst.Name):
            return ("name", id(self.enclosing_function(expr)), expr.value)
        if isinstance(expr, cst.Attribute):
            if isinstance(expr.value, cst.Name) and expr.value.value in ("self", "cls"):
                owner = self.enclosing_class(expr)
            else:
                owner = self.instance_class(expr.value)
            if owner is not None:
                return ("attr", id(owner), expr.attr.value)
        return None

    def _key_path(self, location: cst.BaseExpression) -> Tuple[cst.BaseExpression, tuple]:
        """(the container under location, the keys from it outward): `d["g"][i]` is (d, ("g", None)),
        `d.setdefault("g", {})["k"]` (d, ("g", "k")); a key that is no string constant is None."""
        keys: list = []
        holder = location
        take = self.tables.take_methods
        while True:
            if isinstance(holder, cst.Subscript) and all(isinstance(e.slice, cst.Index) for e in holder.slice):
                parts = [e.slice.value for e in holder.slice]  # `d[i, "k"]`: the tuple key (i, "k")
                keys.append(self.constant_key(parts[0]) if len(parts) == 1 else self._tuple_key(parts))
                holder = holder.value
            elif (
                isinstance(holder, cst.Call)
                and isinstance(holder.func, cst.Attribute)
                and holder.func.attr.value in take
                and holder.args
                and not holder.args[0].star
            ):
                keys.append(self.constant_key(holder.args[0].value))
                holder = holder.func.value
            else:
                return holder, tuple(reversed(keys))

    def constant_key(self, key: cst.BaseExpression, depth: int = 0):
        """A mapping key as far as it is constant: a string; a tuple of strings and None (`(i, "k")`: any
        first part, "k"), through a name assigned one tuple once; the literal shape of an f-string (KeyShape);
        None when nothing of it is constant."""
        if isinstance(key, cst.SimpleString):
            text = key.evaluated_value
            return text if isinstance(text, str) else None
        if isinstance(key, cst.Tuple):
            if any(isinstance(e, cst.StarredElement) for e in key.elements):
                return None
            return self._tuple_key([e.value for e in key.elements])
        if isinstance(key, cst.FormattedString):
            return KeyShape.of(key)  # `f"model.layers.{i}.attn.k"`: told apart by its literal parts
        if isinstance(key, cst.Name) and depth < 3:
            bound = [self.binding(a.node) for a in self.reaching(key) if isinstance(a.node, cst.Name)]
            if len(bound) == 1 and bound[0][0] == "assign" and not bound[0][2] and isinstance(bound[0][1], cst.Tuple):
                return self.constant_key(bound[0][1], depth + 1)
        return None

    def _tuple_key(self, parts) -> Optional[tuple]:
        key = tuple(p.evaluated_value if isinstance(p, cst.SimpleString) else None for p in parts)
        return key if any(isinstance(k, str) for k in key) else None

    def ranked_stores(self, holder: cst.BaseExpression) -> Tuple[int, List[cst.BaseExpression]]:
        """(rank, values) of a container the module fills only by item stores of several index parts each,
        as many every time (`self.table[i, 0] = kc`: 2, a numpy object array's or a tuple-keyed dict's);
        (0, []) for any other holder."""
        identity = self._holder_identity(holder)
        if identity is None:
            return 0, []
        cache = self.__dict__.setdefault("_ranked_stores", {})
        if identity not in cache:
            ranks, values = set(), []
            for target, value in self.nodes.item_stores:
                if self._holder_identity(target.value) == identity:
                    simple = all(isinstance(e.slice, cst.Index) for e in target.slice)
                    ranks.add(len(target.slice) if simple else 0)
                    values.append(value)
            rank = ranks.pop() if len(ranks) == 1 else 0
            cache[identity] = (rank, values) if rank > 1 else (0, [])
        return cache[identity]

    def keyed_stores(self) -> Dict[tuple, List[tuple]]:
        """holder identity -> (key path, value) for what the module stores into a container by key
        (`d["k"] = v`, `d["g"][i] = v`, `d.setdefault("g", {})[k] = v`, `d["k"].append(v)` (as `[v]`),
        `d.setdefault("k", v)`, `d.update(other)` (any key)), each key a string constant or None."""
        index = self.__dict__.get("_keyed_store_index")
        if index is not None:
            return index
        index = self._keyed_store_index = {}

        def record(location: cst.BaseExpression, value: cst.BaseExpression, tail: tuple = ()) -> None:
            holder, path = self._key_path(location)
            path = path + tail
            if not path:
                return
            identity = self._holder_identity(holder)
            if identity is not None:
                index.setdefault(identity, []).append((path, value))

        for target, value in self.nodes.item_stores:
            record(target, value)
        take, many = self.tables.take_methods, self.tables.grow_many
        for call in self.nodes.calls:
            func = call.func
            if not (isinstance(func, cst.Attribute) and call.args) or call.args[0].star:
                continue
            method = func.attr.value
            kind = self._grow_kind(method)
            if kind == "last" and method in take and len(call.args) > 1:  # d.setdefault("k", v): d["k"] = v
                record(self._taken_node(call), call.args[-1].value)
            elif kind == "many" and method in many and not isinstance(func.value, (cst.Subscript, cst.Call)):
                record(func.value, self._element_of(call.args[0].value, None), (None,))  # d.update(other)
            elif kind is not None:
                # `d[k].append(v)`: d[k] holds v at some position (`d[k][?]` is v, not `[v]`)
                value = call.args[-1].value if kind == "last" else call.args[0].value
                record(func.value, self._element_of(value, None) if kind == "many" else value, (None,))
        return index

    def _stored_at(self, holder: cst.BaseExpression, path: tuple) -> Optional[List[cst.BaseExpression]]:
        """What the module's keyed stores put at path under the container holder names (its class
        family's, for an attribute), as values read there; [] when nothing is stored there; None
        when a store sits above the path in a way the keys cannot be followed into."""
        index = self.keyed_stores()
        identity = self._holder_identity(holder) if index else None
        if identity is None:
            return []
        if identity[0] == "attr":
            owner = next((c for c in self.nodes.classes if id(c) == identity[1]), None)
            families = [("attr", id(c), identity[2]) for c in (self.class_family(owner) if owner is not None else [])]
        else:
            families = [identity]
        out: List[cst.BaseExpression] = []
        for family in families:
            for stored, value in index.get(family, ()):
                common = min(len(stored), len(path))
                if any(_keys_differ(a, b) for a, b in zip(stored[:common], path[:common])):
                    continue  # another key
                if len(stored) >= len(path):  # held deeper than the read: in containers
                    out.append(self._nested_list(value, len(stored) - len(path)))
                    continue
                found = [value]  # stored above the read: follow the rest of its keys into displays
                for key in path[len(stored) :]:
                    if key is None:
                        return None
                    nxt = []
                    for v in found:
                        if not isinstance(v, cst.Dict):
                            return None
                        nxt.extend(
                            e.value
                            for e in v.elements
                            if isinstance(e, cst.DictElement)
                            and isinstance(e.key, cst.SimpleString)
                            and e.key.evaluated_value == key
                        )
                    found = nxt
                out.extend(found)
        return out

    def _fresh_container(self, holder: cst.BaseExpression) -> bool:
        """Is every value holder is assigned a dict display without `**` parts, or a dict constructor
        given no mapping (`{}`, `defaultdict(dict)`, `dict()`): nothing but its keyed stores fills it?"""
        if isinstance(holder, cst.Name):
            values = []
            for assignment in self.reaching(holder):
                node = assignment.node
                if not isinstance(node, cst.Name):
                    return False
                kind, value, path = self.binding(node)
                if kind != "assign" or path:
                    return False
                values.append(value)
        elif isinstance(holder, cst.Attribute):
            owner = self.instance_class(holder.value)
            if owner is None:
                return False
            values = list(self.instance_attr_values(owner, holder.attr.value))
            lists = {id(n) for n in self.__dict__.get("_held_lists", {}).values()}  # (made by the line above)
            values = [v for v in values if id(v) not in lists]
        else:
            return False
        t = self.tables
        for value in values:
            if isinstance(value, cst.Dict):
                if any(isinstance(e, cst.StarredDictElement) for e in value.elements):
                    return False
            elif isinstance(value, cst.Call) and self.qualified(value) in t.dict_constructors:
                given = [a for a in value.args if a.keyword is None]
                if self.qualified(value) in t.factory_dicts:
                    given = given[1:]
                if given or any(a.star for a in value.args):
                    return False
            else:
                return False
        return bool(values)

    def keyed_values(self, sub: cst.Subscript) -> List[cst.BaseExpression]:
        """`d["k"]` with a constant key: the values stored under it, where d is a dict
        display (through names and attributes) or the `**kwargs` of a function whose call
        sites are visible, and what the module stores under that key (keyed_stores); [] when
        unknown."""
        if not all(isinstance(e.slice, cst.Index) for e in sub.slice):
            return []
        parts = [e.slice.value for e in sub.slice]
        named = self._named_key(parts[0]) if len(parts) == 1 else None
        if named is not None:  # `table[Mode.DECODE]`: the display's entry under that member
            return [
                e.value
                for holder in self._held_values(sub.value)
                if isinstance(holder, cst.Dict)
                for e in holder.elements
                if isinstance(e, cst.DictElement) and self._named_key(e.key) == named
            ]
        wanted = self.constant_key(parts[0]) if len(parts) == 1 else self._tuple_key(parts)
        if wanted is None:
            return []
        out: List[cst.BaseExpression] = []
        held = self._held_values(sub.value) if isinstance(wanted, str) else []
        if wanted is not None:  # (while keyed_stores is being built: what it has found so far)
            root, path = self._key_path(sub)
            if path and (held or self._fresh_container(root)):
                # what is stored under that key path (`self.d["k"].append(v)`, `self.d[i]["k"] = v`); with
                # no display, only for a container nothing else fills
                stored = self._stored_at(root, path)
                if stored is None:
                    return []
                out.extend(stored)
                if not held:
                    return out
        for holder in held:
            if isinstance(holder, tuple):  # a dict of an object's fields (`rec._asdict()`): rec.<key>
                if wanted.isidentifier():
                    out.append(self._attribute(holder[0], wanted))
            elif isinstance(holder, cst.Dict):
                out.extend(
                    e.value
                    for e in holder.elements
                    if isinstance(e, cst.DictElement)
                    and isinstance(e.key, cst.SimpleString)
                    and e.key.evaluated_value == wanted
                )
            elif isinstance(holder, cst.DictComp):  # a computed key: any key holds the value
                out.append(holder.value)
            elif isinstance(holder, cst.Call):  # dict(k=a, v=b)
                found = (self.dict_keywords(holder) or {}).get(wanted)
                if found is not None:
                    out.append(found)
            elif isinstance(holder, cst.Param):
                out.extend(self._keyword_arguments(holder, wanted))
        return out

    def _named_key(self, key: cst.BaseExpression) -> Optional[str]:
        """`Cls.MEMBER` as a dict key naming a member of a class of the module (an enum's: the same
        spelling is the same key); None for any other key."""
        if isinstance(key, cst.Attribute) and isinstance(key.value, cst.Name):
            if key.value.value in self.module_classes():
                return f"{key.value.value}.{key.attr.value}"
        return None

    def _held_values(self, expr: cst.BaseExpression, depth: int = 0) -> list:
        """The dict displays, comprehensions, `**kwargs` parameters and (as a 1-tuple) objects whose
        fields by name (fields_source) expr may be; a helper's returned dict (`self._dtype_dict()`)."""
        if isinstance(expr, (cst.Dict, cst.DictComp)):
            return [expr]
        if isinstance(expr, cst.Subscript):
            return self._element_dicts(expr)
        if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.BitOr) and depth < 3:
            # `base | extra`: the merged dict, the right operand's keys first (they win)
            return self._held_values(expr.right, depth + 1) + self._held_values(expr.left, depth + 1)
        source = self.fields_source(expr)
        if source is not None:
            return [(source,)]
        if self.dict_keywords(expr) is not None:
            return [expr]
        if isinstance(expr, cst.Call) and depth < 3:  # `self._dtype_dict()["kv"]`: the dict a helper returns
            return [h for v in (self._container_sources(expr, 0) or ()) for h in self._held_values(v, depth + 1)]
        if isinstance(expr, cst.Attribute):
            owner = self.instance_class(expr.value)
            return (
                [
                    v
                    for v in self.instance_attr_values(owner, expr.attr.value)
                    if isinstance(v, (cst.Dict, cst.DictComp)) or self.dict_keywords(v) is not None
                ]
                if owner is not None
                else []
            )
        if not isinstance(expr, cst.Name):
            return []
        out = []
        for assignment in self.reaching(expr):
            node = assignment.node
            param = self.param_of(node)
            if isinstance(param, cst.Param):
                owner = self._param_owner(param)
                if isinstance(owner, cst.FunctionDef) and owner.params.star_kwarg is param:
                    out.append(param)
                elif depth < 3:  # a dict passed in: what the call being followed (or every call) passes
                    out.extend(h for v in self.complete_arguments(param) for h in self._held_values(v, depth + 1))
                continue
            if isinstance(node, cst.Name):
                kind, value, path = self.binding(node)
                if kind == "assign" and not path and isinstance(value, (cst.Dict, cst.DictComp)):
                    out.append(value)
                elif kind == "assign" and not path and self.fields_source(value) is not None:
                    out.append((self.fields_source(value),))
                elif kind == "assign" and not path and self.dict_keywords(value) is not None:
                    out.append(value)
                elif kind == "assign" and not path and isinstance(value, cst.Call) and depth < 3:
                    out.extend(self._held_values(value, depth + 1))  # `dts = self._dtype_dict()`
                elif kind == "assign" and not path and isinstance(value, cst.Subscript):
                    out.extend(self._element_dicts(value))  # `entry = self.layers[i]` of dict displays
                elif kind == "for" and value is not None:
                    value, path = self._numbered_iterable(value, tuple(path))  # `for i, e in enumerate(rows)`
                    elements = self.element_values(value, None) if not path else None  # `for entry in self.layers`
                    if elements and all(self._keyed_element(e) for e in elements):
                        out.extend(elements)
        return out

    def _numbered_iterable(self, iterable: cst.BaseExpression, path: tuple) -> Tuple[cst.BaseExpression, tuple]:
        """The container a for target at path takes its elements from, through counters and passthroughs
        (rules/accessors.toml [iteration] numbered, passthrough: `enumerate(rows)` at (1,), `sorted(rows)`),
        and the path left in its element."""
        t = self.tables
        while isinstance(iterable, cst.Call) and iterable.args and not iterable.args[0].star:
            qualified = self.qualified(iterable)
            if qualified in t.iter_passthrough:
                iterable = iterable.args[0].value
            elif qualified in t.iter_numbered and path[:1] == (1,):
                iterable, path = iterable.args[0].value, path[1:]
            else:
                break
        return iterable, path

    def _element_dicts(self, sub: cst.Subscript) -> list:
        """`rows[i]` where every element rows may hold is a dict display (a list of per-layer
        dicts): those displays, so that a constant key selects that key's values only; [] when
        some element is no dict display."""
        if len(sub.slice) != 1 or not isinstance(sub.slice[0].slice, cst.Index):
            return []
        key = sub.slice[0].slice.value
        if isinstance(key, cst.SimpleString):
            return []  # a key of a dict: keyed_values follows it
        elements = self.element_values(sub.value, int(key.value) if isinstance(key, cst.Integer) else None)
        if not elements or not all(self._keyed_element(e) for e in elements):
            return []
        return list(elements)

    def _keyed_element(self, element: cst.BaseExpression) -> bool:
        """Is element a dict whose keys are spelled where it is made: a dict display or comprehension,
        or a dict made from keywords (`dict(k=a, ...)`, a TypedDict's `Entry(k=a, k_scale=s)`,
        [containers] dict_constructors / dict_classes)? A constant key then selects its own values."""
        return isinstance(element, (cst.Dict, cst.DictComp)) or self.dict_keywords(element) is not None

    def _keyword_arguments(self, param: cst.Param, keyword: str, depth: int = 0) -> List[cst.BaseExpression]:
        """What the visible calls of param's function pass as `keyword=` into its **kwargs:
        by keyword, inside a `**{...}` or `**d` of a dict display, or through the caller's own
        `**kwargs` (forwarded any number of levels); and what the function stores into it
        itself (`kwargs.setdefault("k", v)`, `kwargs["k"] = v`, `kwargs.update(k=v)`)."""
        func = self._param_owner(param)
        stored = self._stored_keywords(func, param.name.value).get(keyword, [])
        calls = None
        for frame_target, frame_call in reversed(getattr(self, "_frames", ())):
            if frame_target is func:  # under one call (castlint.analysis.dataflow.call_conversions)
                calls = [frame_call]
                break
        if not isinstance(func, cst.FunctionDef) or depth > 4:
            return stored
        if calls is None:
            cls = self.method_class(func)
            calls = list(self._calls_by_name().get(id(func), ())) + self._object_calls(func) + self.super_calls(func)
            if cls is not None:
                self._index_class(cls)
                calls += self._method_calls.get((id(cls), func.name.value), [])
        out = list(stored)
        named = {p.name.value for p in (*func.params.posonly_params, *func.params.params, *func.params.kwonly_params)}
        if keyword in named:
            return out
        for call in calls:
            for arg in call.args:
                if arg.keyword is not None:
                    if arg.keyword.value == keyword:
                        out.append(arg.value)
                elif arg.star == "**":
                    held = self._double_starred_values(arg.value).get(keyword)
                    if held is not None:
                        out.append(held)
                        continue
                    for holder in self._held_values(arg.value):
                        if isinstance(holder, cst.Param) and holder is not param:
                            out.extend(self._keyword_arguments(holder, keyword, depth + 1))
        return out

    def stored_keywords(self, name: cst.Name) -> Dict[str, List[cst.BaseExpression]]:
        """key -> values stored into the dict a local name holds, in its function."""
        func = next((a for a in self.ancestors(name) if isinstance(a, cst.FunctionDef)), None)
        return self._stored_keywords(func, name.value)

    def _stored_keywords(self, func, name: str) -> Dict[str, List[cst.BaseExpression]]:
        """key -> values of `d.setdefault("k", v)`, `d["k"] = v`, `d.update(k=v)` on name d in func."""
        if not isinstance(func, cst.FunctionDef):
            return {}
        cache = self.__dict__.setdefault("_stored_keywords_cache", {})
        found = cache.get((id(func), name))
        if found is None:
            found = {}
            grow_last = self.tables.grow_last
            for node in iter_nodes(func, cst.Call):
                f = node.func
                if not (isinstance(f, cst.Attribute) and isinstance(f.value, cst.Name) and f.value.value == name):
                    continue
                if f.attr.value in grow_last and len(node.args) == 2:
                    key = self.constant_string(node.args[0].value)
                    if key is not None:
                        found.setdefault(key, []).append(node.args[1].value)
                elif f.attr.value == "update":
                    for a in node.args:
                        if a.keyword is not None:
                            found.setdefault(a.keyword.value, []).append(a.value)
            for node in iter_nodes(func.body, cst.Assign):  # kw["k"] = v
                for target in node.targets:
                    sub = target.target
                    if (
                        isinstance(sub, cst.Subscript)
                        and isinstance(sub.value, cst.Name)
                        and sub.value.value == name
                        and len(sub.slice) == 1
                        and isinstance(sub.slice[0].slice, cst.Index)
                    ):
                        key = self.constant_string(sub.slice[0].slice.value)
                        if key is not None:
                            found.setdefault(key, []).append(node.value)
            cache[(id(func), name)] = found
        return found


@dataclass(frozen=True)
class KeyShape:
    """A string key spelled as an f-string: its literal parts, None for each formatted field
    (`f"layers.{i}.k"`: ("layers.", None, ".k")). It may name any string those parts spell."""

    parts: tuple

    @staticmethod
    def of(key: cst.FormattedString) -> Optional["KeyShape"]:
        parts = tuple(p.value if isinstance(p, cst.FormattedStringText) else None for p in key.parts)
        return KeyShape(parts) if any(parts) else None

    @property
    def ends(self) -> Tuple[str, str]:
        """(literal head, literal tail): the text before the first field and after the last."""
        head = self.parts[0] if self.parts and self.parts[0] is not None else ""
        tail = self.parts[-1] if len(self.parts) > 1 and self.parts[-1] is not None else ""
        return head, tail

    def may_spell(self, text: str) -> bool:
        pattern = "".join(".*" if p is None else re.escape(p) for p in self.parts)
        return re.fullmatch(pattern, text, re.DOTALL) is not None

    def disjoint(self, other: "KeyShape") -> bool:
        """No string both may spell: their heads, or their tails, disagree."""
        (h1, t1), (h2, t2) = self.ends, other.ends
        return not (h1.startswith(h2) or h2.startswith(h1)) or not (t1.endswith(t2) or t2.endswith(t1))


def _keys_differ(a, b) -> bool:
    """Do two mapping keys (constant_key's) name different entries? A None part may be anything."""
    if a is None or b is None:
        return False
    if isinstance(a, KeyShape) or isinstance(b, KeyShape):
        if isinstance(a, KeyShape) and isinstance(b, KeyShape):
            return a.disjoint(b)
        shape, other = (a, b) if isinstance(a, KeyShape) else (b, a)
        return not (isinstance(other, str) and shape.may_spell(other))
    if isinstance(a, tuple) != isinstance(b, tuple):
        return True
    if not isinstance(a, tuple):
        return a != b
    return len(a) != len(b) or any(x is not None and y is not None and x != y for x, y in zip(a, b))


def _pair(node: cst.BaseExpression) -> bool:
    """A 2-tuple display of plain elements: `(key, value)`."""
    return (
        isinstance(node, cst.Tuple)
        and len(node.elements) == 2
        and all(isinstance(e, cst.Element) for e in node.elements)
    )
