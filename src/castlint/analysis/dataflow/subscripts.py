"""What `x[...]` of a value is: whole, a prefix, a gather, one layer's planes; slice bounds and
extents, dict-like reads, and whether a gather's consumer takes it whole."""

from __future__ import annotations

import operator
from typing import List, Optional

import libcst as cst

from castlint.analysis.dataflow.shared import SCALAR, TENSOR, _is_none
from castlint.analysis.origin import Origin
from castlint.analysis.tree import dotted, name_parts

_QUOTIENT_OPERATORS = (cst.FloorDivide, cst.Divide, cst.RightShift)
# int arithmetic a constant slice bound is folded through (`2**63 - 1`, `1 << 62`)
_FOLDED_OPERATORS = {
    cst.Add: operator.add,
    cst.Subtract: operator.sub,
    cst.Multiply: operator.mul,
    cst.Power: operator.pow,
    cst.LeftShift: operator.lshift,
}


def _walk(nodes):
    """Every node under nodes, depth first (a function body, read once for a layout fact)."""
    stack = list(nodes) if isinstance(nodes, (list, tuple)) else [nodes]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(node.children)


def _is_name(node, name: str) -> bool:
    return isinstance(node, cst.Name) and node.value == name


def _last_names(qualified) -> set:
    return {q.rsplit(".", 1)[-1] for q in qualified}


class Subscripts:
    def _subscript_origin(self, sub: cst.Subscript, depth: int) -> Origin:
        picked = self._introspected_entries(sub)
        if picked is not None:  # `fn.__closure__[1]`, `p.args[0]`, `p.keywords["cache"]`: that entry
            return max((self.origin(v, depth) for v in picked), default=Origin.OTHER)
        return self._held_subscript_origin(sub, depth)

    def _introspected_entries(self, sub: cst.Subscript) -> Optional[List[cst.BaseExpression]]:
        """The entries a constant index picks from what a callable's introspection attribute holds (a
        closure's cells, a partial's args or keywords), as written or through a name assigned it once."""
        if len(sub.slice) != 1 or not isinstance(sub.slice[0].slice, cst.Index):
            return None
        holder, key = sub.value, sub.slice[0].slice.value
        if isinstance(holder, cst.Name):
            values = [self._assigned_once(a.node) for a in self.reaching(holder)]
            holder = values[0] if len(values) == 1 else None
        held = self.introspected_values(holder) if isinstance(holder, cst.Attribute) else None
        if not held or not isinstance(key, (cst.Integer, cst.SimpleString)):
            return None
        out: List[cst.BaseExpression] = []
        for value in held:
            if isinstance(value, cst.Tuple) and isinstance(key, cst.Integer):
                index = key.evaluated_value
                out.extend([value.elements[index].value] if index < len(value.elements) else [])
            elif isinstance(value, cst.Dict) and isinstance(key, cst.SimpleString):
                out.extend(e.value for e in value.elements if self.code(e.key) == repr(key.evaluated_value))
            else:
                return None
        return out

    def _held_subscript_origin(self, sub: cst.Subscript, depth: int) -> Origin:
        cls = self.class_named(sub.value) if len(sub.slice) == 1 and isinstance(sub.slice[0].slice, cst.Index) else None
        if cls is not None:
            # `CacheHub[i]` of the class itself: its __class_getitem__, or its metaclass's __getitem__
            t = self.tables
            call = self.class_level_call(
                sub, sub.value, cls, t.class_item_protocol, t.subscript_methods, sub.slice[0].slice.value
            )
            if call is not None:
                return self.origin(call, depth)
        if (
            "__getitem__" in self.nodes.local_callables
            and len(sub.slice) == 1
            and isinstance(sub.slice[0].slice, cst.Index)
        ):
            owner = self.instance_class(sub.value)
            if owner is not None and self.find_method(owner, "__getitem__") is not None:
                # obj[k] of an object whose class defines __getitem__: what it returns for k
                synthetic = cst.Call(
                    func=self._attribute(sub.value, "__getitem__"), args=[cst.Arg(sub.slice[0].slice.value)]
                )
                self.parents.setdefault(synthetic, self.parents.get(sub))
                return self.origin(synthetic, depth)
        missing = self.missing_value(sub)
        if missing is not None:  # `self.bufs[i]` of a dict subclass: what its `__missing__(i)` returns (and stores)
            return max([self.origin(missing, depth), *(self.origin(v, depth) for v in self.keyed_values(sub))])
        keyed = self.keyed_values(sub)
        conventional = self._kwargs_convention_origin(sub)
        if keyed or conventional > Origin.OTHER:
            return max([conventional, *(self.origin(v, depth) for v in keyed)])
        ranked = self._ranked_origin(sub, depth)
        if ranked is not None:
            return ranked
        found = self._lattice_subscript(sub, depth)
        if found < Origin.POOL and len(sub.slice) == 1 and isinstance(sub.slice[0].slice, cst.Index):
            # an element of a container or record the file builds (`pairs[i][1]`, `record[0]`)
            key = sub.slice[0].slice.value
            if isinstance(key, cst.Integer) or self.index_kind(key, depth) != TENSOR or self.dict_like(sub.value):
                elements = self.element_values(sub.value, self.index_position(key))
                if elements:
                    found = max(found, max(self.origin(v, depth) for v in elements))
        return found

    def _ranked_origin(self, sub: cst.Subscript, depth: int) -> Optional[Origin]:
        """A subscript of a container of caches filled by stores of k index parts (ranked_stores): with k
        parts, one stored value (`self.table[l, 0]`); with fewer, a row of them (`self.table[l]`, whose `[1]`
        is then one value); None for any other subscript."""
        if not all(isinstance(e.slice, cst.Index) for e in sub.slice):
            return None
        rank, values = self.ranked_stores(sub.value)
        if not rank or len(sub.slice) > rank or self.origin(sub.value, depth) != Origin.POOL_TUPLE:
            return None
        found = max(self.origin(v, depth) for v in values)
        if found < Origin.POOL_TUPLE:
            return None
        return found if len(sub.slice) == rank else Origin.POOL_TUPLE

    def dict_like(self, expr: cst.BaseExpression) -> bool:
        """Is expr a dict (its subscript a key lookup)? Some value it is assigned is a dict display
        or comprehension, a dict constructor, or it is annotated as one (rules/accessors.toml
        [containers] dict_constructors, dict_annotations), and none is a list or tuple."""
        values: list = []
        if isinstance(expr, cst.Name):
            for assignment in self.reaching(expr):
                node = assignment.node
                param = self.param_of(node)
                if isinstance(param, cst.Param):
                    values.append(param.annotation)
                elif isinstance(node, cst.Name):
                    kind, value, path = self.binding(node)
                    values.append(value if kind == "assign" and not path else None)
        elif isinstance(expr, cst.Attribute):
            owner = self._attr_owner(expr)
            values = list(self.instance_attr_values(owner, expr.attr.value)) if owner is not None else []
        elif isinstance(expr, cst.Subscript):  # `table["main"]` of `{"main": {}}`: what that key holds
            values = self.keyed_values(expr)
        held = {id(n) for n in self.__dict__.get("_held_lists", {}).values()}  # `self.d[k] = v` stores
        kinds = [self._dict_kind(v) for v in values if id(v) not in held]
        return True in kinds and False not in kinds

    def engine_list(self, expr: cst.BaseExpression) -> bool:
        """Is expr a list the engine fills with per-layer caches (rules/accessors.toml [cache_attributes]
        python_lists: `runner.kv_caches`, `engine.gpu_cache`), on an object no class of the module
        assigns it on, as written or through a name assigned it? A list takes no tensor of indices, so
        any one index picks one entry."""
        names = self.tables.cache_list_attributes
        if isinstance(expr, cst.Name) and names:
            values = [self._assigned_once(a.node) for a in self.reaching(expr)]
            return bool(values) and all(
                isinstance(v, cst.Attribute) and v.attr.value in names and self.engine_list(v) for v in values
            )
        if not isinstance(expr, cst.Attribute) or expr.attr.value not in names:
            return False
        owner = self._attr_owner(expr)
        return owner is None or not list(self.instance_attr_values(owner, expr.attr.value))

    def _attr_owner(self, expr: cst.Attribute) -> Optional[cst.ClassDef]:
        """The module class whose instance holds expr's attribute: the receiver's class, else the one
        class assigning that attribute (`pool.layer_id_mapping` of an engine-handed pool)."""
        return self.instance_class(expr.value) or self.duck_class(expr.value, expr.attr.value, method=False)

    def _dict_kind(self, value) -> Optional[bool]:
        """True: a dict; False: a list, tuple or set; None: unknown."""
        t = self.tables
        if isinstance(value, cst.Annotation):
            head = value.annotation
            head = head.value if isinstance(head, cst.Subscript) else head
            return True if (dotted(head) or "") in t.dict_annotations else None
        if isinstance(value, (cst.Dict, cst.DictComp)):
            return True
        if isinstance(value, (cst.List, cst.Tuple, cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.Set)):
            return False
        if isinstance(value, cst.Call):
            name = self.qualified(value)
            if name in t.dict_constructors:
                return True
            if name in t.keep_elements:
                return False
            fold = self.fold_form(value) if self.applier(value) == "fold" else None
            if fold is not None and len(fold.args) == 3 and self.qualified(value) not in t.step_fold_functions:
                # `reduce(lambda acc, i: {**acc, i: ...}, ids, {})`: the accumulator keeps its kind
                return self._dict_kind(fold.args[2].value)
        if value is not None:
            declared = self.parents.get(value)
            if isinstance(declared, cst.AnnAssign) and declared.value is value:
                return self._dict_kind(declared.annotation)
        return None

    def _lattice_subscript(self, sub: cst.Subscript, depth: int) -> Origin:
        base = self.origin(sub.value, depth)
        if base <= Origin.GATHERED:
            return base
        elements = self.slice_elements(sub)
        if not elements:
            return base  # `buf[()]`: no index, the tensor itself
        if base == Origin.POOL_TUPLE:
            # a container of whole caches (a per-layer list, a K/V pair, split views):
            # an index selects one whole cache, unless it is a tensor of indices
            first = elements[0].slice
            start = first.lower if isinstance(first, cst.Slice) else first.value
            if isinstance(start, cst.Integer) and self._entry_scales(start.evaluated_value, sub.value, depth):
                return Origin.OTHER  # `past_key_value[2]`, `past_key_value[2:]`: the layer's scales/zeros
            if isinstance(first, cst.Slice):
                if len(elements) > 1 and not self._bounded_slice(first):
                    # every layer of a stacked tensor, then each layer's own subscript (`[:, slots]` gathers)
                    each = self._token_subscript(Origin.POOL, elements[1:])
                    return Origin.POOL_TUPLE if each == Origin.POOL else each
                return Origin.POOL_TUPLE
            value = first.value
            if isinstance(value, cst.Ellipsis) or (isinstance(value, cst.Name) and value.value == "None"):
                return Origin.POOL_TUPLE
            piece = self._split_piece(sub.value, value)
            if piece is not None:  # `buf.split([64, n - 64])[0]`: `buf[:64]`
                return self._token_subscript(piece, elements[1:]) if len(elements) > 1 else piece
            piece = self._dim_piece(self._split_made(sub.value), value)
            if piece is not None:  # `buf.split(n, dim=0)[0]`: some slots; `kv_cache.chunk(2)[0]`: a plane
                return self._token_subscript(piece, elements[1:]) if len(elements) > 1 else piece
            if (
                self.index_kind(value, depth) == TENSOR
                and not self.dict_like(sub.value)
                and not self.engine_list(sub.value)
            ):
                return Origin.GATHERED  # (a dict's key, a list's index selects one value, whatever it is)
            if len(elements) == 1 and self._nested_display(sub.value, depth):
                return Origin.POOL_TUPLE  # `[(k, v) for ... if ...][0]`: one (k, v) entry
            return self._token_subscript(Origin.POOL, elements[1:]) if len(elements) > 1 else Origin.POOL
        return self._token_subscript(base, elements, sub.value)

    def slice_elements(self, sub: cst.Subscript) -> list:
        """The subscript's elements, an index by an explicit slice object (rules/accessors.toml
        [views] slice_constructors: `buf[slice(None)]`, `buf[slice(0, n)]`) read as the slice it
        spells; a bound or step written `None` as left out (`buf[0:None]` is `buf[0:]`); the empty
        tuple as no index at all (`buf[()]`: the tensor itself); the others as written."""
        cache = self.__dict__.setdefault("_elements", {})
        found = cache.get(id(sub))
        if found is None:
            found = cache[id(sub)] = self._slice_elements(sub)
        return found

    def _slice_elements(self, sub: cst.Subscript) -> list:
        elements = list(sub.slice)
        if (
            len(elements) == 1
            and isinstance(elements[0].slice, cst.Index)
            and isinstance(elements[0].slice.value, cst.Tuple)
            and not elements[0].slice.value.elements
        ):
            return []  # `buf[()]` (a tuple of indices keyed otherwise is left as written: `d[(layer, "k")]`)
        makers = self.tables.slice_constructors
        out = []
        for element in elements:
            inner = element.slice
            if isinstance(inner, cst.Slice) and any(_is_none(b) for b in (inner.lower, inner.upper, inner.step) if b):
                element = cst.SubscriptElement(
                    cst.Slice(
                        lower=None if inner.lower is None or _is_none(inner.lower) else inner.lower,
                        upper=None if inner.upper is None or _is_none(inner.upper) else inner.upper,
                        step=None if inner.step is None or _is_none(inner.step) else inner.step,
                    )
                )
                out.append(element)
                continue
            swept = self._swept_slice(inner) if isinstance(inner, cst.Slice) else None
            if swept is not None:  # `buf[s : s + CHUNK]` for s in range(0, buf.shape[0], CHUNK): every row
                out.append(cst.SubscriptElement(swept))
                continue
            value = inner.value if isinstance(inner, cst.Index) else None
            if makers and isinstance(value, (cst.Name, cst.Attribute, cst.Subscript)):
                value = self._held_slice(value) or value  # `buf[rec.span]` of `rec = Rec(i, slice(None))`
            if makers and isinstance(value, cst.Call) and self._slice_call(value):
                cache = self.__dict__.setdefault("_slice_nodes", {})
                if id(element) not in cache:
                    cache[id(element)] = cst.SubscriptElement(self._spelled_slice(value))
                element = cache[id(element)]
            elif value is not None:
                spelled = self._range_slice(value)
                if spelled is not None:  # `buf[torch.arange(buf.shape[0])]`: the rows `buf[: buf.shape[0]]` reads
                    element = cst.SubscriptElement(spelled)
            out.append(element)
        return out

    def _held_slice(self, holder: cst.BaseExpression, depth: int = 0) -> Optional[cst.Call]:
        """The slice object ([views] slice_constructors) a name, a record's field or an element holds, when
        every value it may hold is one: the one keeping every row if any does (`slice(None)`), else the first."""
        values = self._container_sources(holder, depth) if depth < 4 else None
        if not values:
            return None
        found = []
        for value in values:
            if isinstance(value, (cst.Name, cst.Attribute, cst.Subscript)):
                value = self._held_slice(value, depth + 1)
            if not (isinstance(value, cst.Call) and self._slice_call(value)):
                return None
            found.append(value)
        whole = [v for v in found if not self._bounded_slice(self._spelled_slice(v))]
        return (whole or found)[0]

    def _slice_call(self, value: cst.Call) -> bool:
        return (
            (self.call_name(value) or "").removeprefix("builtins.") in self.tables.slice_constructors
            and 1 <= len(value.args) <= 3
            and all(a.keyword is None and not a.star for a in value.args)
        )

    def _spelled_slice(self, value: cst.Call) -> cst.Slice:
        """`slice(a, b, s)` as the slice `a:b:s` it spells (a None part left out)."""
        cache = self.__dict__.setdefault("_spelled_slices", {})
        if id(value) not in cache:
            parts = [None if _is_none(a.value) else a.value for a in value.args]
            lower, upper, step = (None, parts[0], None) if len(parts) == 1 else (parts + [None])[:3]
            cache[id(value)] = cst.Slice(lower=lower, upper=upper, step=step)
        return cache[id(value)]

    def _swept_slice(self, s: cst.Slice) -> Optional[cst.Slice]:
        """`x[i : i + w]` (or `x[i : min(i + w, n)]`, [index_values] least_functions) with i the counter of a loop
        over `range(a, b, w)` ([index_values] stride_ranges), the same w: over the loop, the rows `x[a:b]`,
        whose bounds then decide as a slice's (`range(0, buf.shape[0], w)` every row, `range(0, n, w)` of the
        step's n a window); None for any other slice."""
        if s.step is not None or not isinstance(s.lower, cst.Name) or s.upper is None:
            return None
        width = self._counter_width(s.upper, s.lower.value)
        sweep = self._counter_sweep(s.lower) if width is not None else None
        if sweep is None or self.code(sweep[2]) != self.code(width):
            return None
        cache = self.__dict__.setdefault("_swept_slices", {})
        if id(s) not in cache:
            start = sweep[0]
            start = None if isinstance(start, cst.Integer) and start.evaluated_value == 0 else start
            cache[id(s)] = cst.Slice(lower=start, upper=sweep[1])
        return cache[id(s)]

    def _counter_width(self, upper: cst.BaseExpression, counter: str) -> Optional[cst.BaseExpression]:
        """w of an upper bound `i + w` / `w + i` (or `min(i + w, n)`) of the counter named i."""
        if isinstance(upper, cst.Call) and (self.call_name(upper) or "").removeprefix("builtins.") in (
            self.tables.least_functions
        ):
            widths = [self._counter_width(a.value, counter) for a in upper.args if not a.star and a.keyword is None]
            found = [w for w in widths if w is not None]
            return found[0] if len(found) == 1 else None
        if not (isinstance(upper, cst.BinaryOperation) and isinstance(upper.operator, cst.Add)):
            return None
        for mine, other in ((upper.left, upper.right), (upper.right, upper.left)):
            if isinstance(mine, cst.Name) and mine.value == counter:
                return other
        return None

    def _counter_sweep(self, counter: cst.Name) -> Optional[tuple]:
        """(start, stop, step) of the one loop that binds counter, over a stride range written with all three."""
        assignments = list(self.reaching(counter))
        if len(assignments) != 1 or not isinstance(assignments[0].node, cst.Name):
            return None
        kind, value, path = self.binding(assignments[0].node)
        if kind != "for" or path or not isinstance(value, cst.Call):
            return None
        if (self.call_name(value) or "").removeprefix("builtins.") not in self.tables.stride_ranges:
            return None
        if len(value.args) != 3 or any(a.star or a.keyword is not None for a in value.args):
            return None
        return tuple(a.value for a in value.args)

    def _range_slice(self, index: cst.BaseExpression) -> Optional[cst.Slice]:
        """An index tensor of consecutive rows ([index_values] range_functions: `torch.arange(a, b, s)`, through a
        name assigned it once) as the slice `a:b:s` it spells; None for any other index."""
        if isinstance(index, cst.Name):
            values = []
            for assignment in self.reaching(index):
                node = assignment.node
                kind, value, path = self.binding(node) if isinstance(node, cst.Name) else (None, None, None)
                values.append(value if kind == "assign" and not path else None)
            index = values[0] if len(values) == 1 else None
        if not isinstance(index, cst.Call) or not self.qualified_in(index, self.tables.range_functions):
            return None
        if any(a.star for a in index.args):
            return None
        positional = [a.value for a in index.args if a.keyword is None]
        keywords = {a.keyword.value: a.value for a in index.args if a.keyword is not None}
        if not positional and "end" not in keywords:
            return None
        parts = positional[:3]
        start, end, step = (None, parts[0], None) if len(parts) == 1 else (parts + [None, None, None])[:3]
        start, end, step = keywords.get("start", start), keywords.get("end", end), keywords.get("step", step)
        cache = self.__dict__.setdefault("_range_slices", {})
        if id(index) not in cache:
            cache[id(index)] = cst.Slice(lower=start, upper=end, step=step)
        return cache[id(index)]

    def _moved_token(self, holder, depth: int = 0) -> Optional[int]:
        """Where a dimension-moving view (rules/accessors.toml [views] dim_swaps, dim_moves,
        dim_orders) puts its input's first (token) dimension, when its arguments are literal
        non-negative ints; None for any other value. A name bound once, or an instance attribute
        every store of which is such a view with the same answer (`self.by_layer =
        kv.transpose(0, 1)` in register_kv_caches), keeps the view's bookkeeping."""
        if isinstance(holder, (cst.Name, cst.Attribute)) and depth < 3:
            return self._moved_token_held(holder, depth) if self._moves_dims() else None
        if not isinstance(holder, cst.Call):
            return None
        t = self.tables
        known = t.dim_swaps | t.dim_moves | t.dim_orders
        qualified = self.call_name(holder) or ""
        if qualified in t.einsum_functions:  # `torch.einsum("thd->htd", buf)`: where its first letter went
            order = self.einsum_order(holder)
            return order[1].index(0) if order is not None else None
        if qualified in known and "." in qualified:  # `torch.movedim(buf, 1, 0)`
            first = self._first_positional(holder.args)
            if first is None:
                return None
            name, args = qualified, [a for a in holder.args if a.value is not first]
        elif isinstance(holder.func, cst.Attribute) and holder.func.attr.value in known:
            receiver, name, args = self.method_parts(holder)  # `buf.movedim(1, 0)`, `torch.Tensor.movedim(buf, 1, 0)`
            if receiver is None:
                return None
        else:
            return None
        if any(a.keyword is not None or a.star for a in args):
            return None
        dims = []
        for a in args:
            if not isinstance(a.value, cst.Integer):
                return None
            dims.append(int(a.value.value, 0))
        if name in t.dim_orders:
            return dims.index(0) if 0 in dims else None
        if len(dims) != 2:
            return None
        if name in t.dim_swaps:
            return dims[1] if dims[0] == 0 else dims[0] if dims[1] == 0 else 0
        return dims[1] if dims[0] == 0 else (1 if dims[1] == 0 else 0)  # movedim(src, dst)

    def _moves_dims(self) -> bool:
        """Does the module call a dimension-moving view at all (by last name; indexed once per module)?"""
        found = self.__dict__.get("_moves_dims_found")
        if found is None:
            t = self.tables
            names = {n.rsplit(".", 1)[-1] for n in (*t.dim_swaps, *t.dim_moves, *t.dim_orders)}
            found = any(
                (c.func.attr.value if isinstance(c.func, cst.Attribute) else getattr(c.func, "value", None)) in names
                for c in self.nodes.calls
            )
            self.__dict__["_moves_dims_found"] = found
        return found

    def _moved_token_held(self, holder, depth: int) -> Optional[int]:
        """_moved_token of what a name bound once or an instance attribute holds (every store alike)."""
        if isinstance(holder, cst.Name):
            values = [self._assigned_once(a.node) for a in self.reaching(holder)]
            if len(values) != 1 or values[0] is None:
                return None
        else:
            if not (isinstance(holder.value, cst.Name) and holder.value.value == "self"):
                return None
            owner = self._attr_owner(holder)
            if owner is None:
                return None
            values = [v for v in self.instance_attr_values(owner, holder.attr.value) if not _is_none(v)]
            if not values or not all(isinstance(v, cst.Call) for v in values):
                return None
        found = {self._moved_token(v, depth + 1) for v in values}
        return found.pop() if len(found) == 1 else None

    def _moved_subscript(self, base: Origin, elements, token: int, unknown_keeps: bool = False) -> Origin:
        """A subscript of a view whose token dimension sits at position token: constants and
        slices before it keep every token (a plane, a head range); from it on, as a cache's."""
        for position, element in enumerate(elements):
            if position == token:
                return self._token_subscript(base, elements[position:])
            inner = element.slice
            if isinstance(inner, cst.Slice):
                continue
            value = inner.value
            if isinstance(value, cst.Ellipsis):
                return base
            if isinstance(value, cst.Name) and value.value == "None":
                token += 1
                continue
            if not self.constant_indices(value):
                kind = self.index_kind(value)
                if kind == TENSOR or (kind != SCALAR and not unknown_keeps):
                    return Origin.GATHERED  # an index table (or, planes maybe first, any index) before the tokens
        return base

    def _nested_display(self, expr: cst.BaseExpression, depth: int) -> bool:
        """Is expr a list comprehension (or a generator: the element a fold or a take reads), or a
        list or tuple display, each of whose elements is itself several whole caches (a (k, v) entry
        of a per-layer list)? Then an index selects an entry, not one cache."""
        if isinstance(expr, (cst.ListComp, cst.GeneratorExp)):
            elements = [expr.elt]
        elif isinstance(expr, (cst.List, cst.Tuple)):
            elements = [e.value for e in expr.elements]
            if not elements or any(isinstance(e, cst.StarredElement) for e in expr.elements):
                return False
        else:
            return False
        return all(self.origin(e, depth) == Origin.POOL_TUPLE for e in elements)

    def _token_subscript(self, base: Origin, elements, holder=None) -> Origin:
        """A subscript of one whole cache: only the first (token) dimension decides."""
        token = self._moved_token(holder) if holder is not None else None
        if token:
            # an index of unknown kind before the moved tokens keeps them all (`by_layer[layer_idx]` of a
            # blocks-first cache transposed), except where dimension 0 may be the K/V planes (vLLM's
            # [2, num_blocks, ...] transposed: `t[i]` is one block)
            planes = self.from_convention(holder) or self.planes_first(holder)
            return self._moved_subscript(base, elements, token, unknown_keeps=not planes)
        slot_dims = self.slot_dims(holder)
        if slot_dims is not None and 0 not in slot_dims:
            return self._layout_subscript(base, elements, slot_dims)
        for position, element in enumerate(elements):
            inner = element.slice
            if isinstance(inner, cst.Index):
                value = inner.value
                if isinstance(value, cst.Name) and value.value == "None":
                    continue  # a new axis: the token dimension comes next
                if isinstance(value, cst.Ellipsis):
                    return base  # what follows indexes trailing dimensions
                constants = self.constant_indices(value) if holder is not None else None
                if constants and all(self._past_entry_planes(c, holder) for c in constants):
                    return Origin.OTHER  # `entry[2]` of an lmdeploy (k, v, k_scales_zeros, v_scales_zeros) entry
                if constants and holder is not None and (self.from_convention(holder) or self.planes_first(holder)):
                    # a constant selects a plane of a cache an engine hands over (vLLM's
                    # [2, num_blocks, ...]: kv_cache[0] is every K slot), not one slot; the
                    # blocks come next (`kv_cache[1, block_table]` gathers them)
                    return self._token_subscript(base, elements[position + 1 :])
                return Origin.GATHERED  # an index of the token dimension: some slots
            if position == 0 and isinstance(inner.lower, cst.Integer) and holder is not None:
                if self._past_entry_planes(inner.lower, holder):
                    return Origin.OTHER  # `entry[2:]`: its scales/zeros
            # a slice of the token dimension: the whole pool, or an active prefix
            if (
                holder is not None
                and self._planes_slice(inner)
                and (self.from_convention(holder) or self.planes_first(holder))
            ):
                # `kv_cache[:1]`, `kv_cache[1:2]` of a (2, num_blocks, ...) cache: one plane (K or V)
                # of every block, as `kv_cache[0]` is (`entry[:2]`: K and V); the blocks come next
                return self._token_subscript(base, elements[position + 1 :])
            if self._bounded_slice(inner):
                return Origin.PREFIX
            if (
                position == 0
                and holder is not None
                and len(elements) > 1
                and (
                    self.planes_first(holder)
                    or (
                        isinstance(elements[1].slice, cst.Slice)
                        and (self.from_convention(holder) or self.planes_first(holder, layout="opaque"))
                    )
                )
            ):
                # `cache[:, :n_used]` of a (2, num_blocks, ...) allocation, or of a cache an engine hands
                # over or allocated with a shape object (the slots may be dimension 1), sliced next
                # (`kv_cache[:, 0]` is a plane of its [num_blocks, 2, ...] layout): every plane, and the
                # blocks (the dimension after the planes) decide
                return self._token_subscript(base, elements[1:])
            if (
                position == 0
                and slot_dims is None
                and holder is not None
                and self._blocks_first_column(inner, elements[1:], holder)
            ):
                return base  # `kv_cache_tensor[:, layer_idx]` of a blocks-first pool: every block of one layer
            return self._later_dimensions(base, elements[position + 1 :], slot_dims, position + 1)
        return base

    def _layout_subscript(self, base: Origin, elements, slot_dims: frozenset) -> Origin:
        """A subscript of a cache whose slot dimensions are known and come after its planes (vLLM's
        [2, num_blocks, block_size, ...] read as planes first): a constant or a slice of a plane keeps
        every slot; along a slot dimension an index keeps some, a slice as a slice of the tokens does."""
        for position, element in enumerate(elements):
            inner = element.slice
            if isinstance(inner, cst.Index) and isinstance(inner.value, cst.Ellipsis):
                return base
            if isinstance(inner, cst.Index) and isinstance(inner.value, cst.Name) and inner.value.value == "None":
                return self._later_dimensions(base, elements[position:])  # a new axis: the layout is lost
            if position not in slot_dims:
                continue
            if isinstance(inner, cst.Index):
                return Origin.GATHERED
            if self._bounded_slice(inner):
                return Origin.PREFIX
        return base

    def _blocks_first_column(self, first: cst.Slice, rest, holder: cst.BaseExpression) -> bool:
        """Is `holder[:, i, ...]` every block of a cache an engine hands over with its blocks first
        (rules/conventions.toml `planes = false`), the later indices no evident index tensor (a layer,
        a plane: not `[:, token_ids]`)?"""
        if first.lower is not None or first.upper is not None or first.step is not None:
            return False
        if any(isinstance(e.slice, cst.Index) and self.index_kind(e.slice.value) == TENSOR for e in rest):
            return False
        return self.from_convention(holder, layout="blocks")

    def _past_entry_planes(self, index: cst.Integer, holder: cst.BaseExpression) -> bool:
        """Does a constant index an entry an engine hands over past its leading caches (rules/accessors.toml
        [cache_attributes] entry_cache_planes): the entry's scales/zeros?"""
        planes = self.tables.entry_cache_planes
        return bool(planes) and index.evaluated_value >= planes and self.from_convention(holder)

    def _entry_param(self, expr: cst.BaseExpression, depth: int = 0) -> bool:
        """Is expr a parameter that a calling convention fills with one layer's entry (`entry = true`:
        lmdeploy's past_key_value, (k_cache, v_cache, k_scales_zeros, v_scales_zeros)), or a helper's
        parameter that every visible call fills with one (`unpack_layer(past_key_value)`)?"""
        if not isinstance(expr, cst.Name):
            return False
        if depth < 3:
            passed = self._complete_name_arguments(expr)
            if passed and all(self._entry_param(a, depth + 1) for a in passed):
                return True
        params = [self.param_of(a.node) for a in self.reaching(expr)]
        if not params or not all(isinstance(p, cst.Param) for p in params):
            return False
        for param in params:
            owner = self._param_owner(param)
            row = self.cache_parameter(owner, param.name.value) if isinstance(owner, cst.FunctionDef) else None
            if row is None or not row.entry:
                return False
        return True

    def _entry_scales(self, position: Optional[int], holder: cst.BaseExpression, depth: int) -> bool:
        """Is position of holder (a constant index, an unpacked position) past the caches of an entry an
        engine hands over: a convention's entry parameter, or an element of a list of entries?"""
        planes = self.tables.entry_cache_planes
        if not planes or position is None or position < planes:
            return False
        if self._entry_param(holder):
            return True
        return self.origin(holder, depth) == Origin.POOL and self.from_convention(holder)

    def _later_dimensions(self, base: Origin, elements, slot_dims=None, start: int = 0) -> Origin:
        """After every token: a slice or a scalar of a later dimension keeps them all
        (`buf[:, :, :512]`, `buf[:, 0]`); indices there gather (`flat[:, slots]`, the blocks of
        a [2, num_blocks, ...] cache) unless the holder's layout says that dimension holds no slots
        (slot_dims, from start: `v_buf[:, :, perm]` of a [slots, heads, dim] buffer keeps every slot)."""
        for position, element in enumerate(elements, start):
            inner = element.slice
            if isinstance(inner, cst.Slice):
                continue
            value = inner.value
            if isinstance(value, cst.Ellipsis):
                return base
            if isinstance(value, cst.Name) and value.value == "None":
                slot_dims = None  # a new axis moves the dimensions after it
                continue
            if slot_dims is not None:  # the layout decides: one block (`[:, 0]` of [2, blocks, ...]) or a head
                if position in slot_dims:
                    return Origin.GATHERED
                continue
            if not self.constant_indices(value) and self.index_kind(value) != SCALAR:
                return Origin.GATHERED
        return base

    def slot_dims(self, holder, depth: int = 0) -> Optional[frozenset]:
        """The dimensions of holder that index slots, when its layout is known: a call of an accessor
        of rules/accessors.toml with `slot_dims` (through names bound once to one); None otherwise."""
        if depth > 4 or holder is None:
            return None
        if isinstance(holder, cst.Name):
            params = [a.node for a in self.reaching(holder) if isinstance(a.node, cst.Param)]
            if params:
                return self._convention_slot_dims(params[0]) if len(params) == 1 else None
            values = [self._assigned_once(a.node) for a in self.reaching(holder)]
            found = [self.slot_dims(v, depth + 1) for v in values if v is not None]
            return found[0] if len(values) == 1 and found else None
        if not isinstance(holder, cst.Call) or not isinstance(holder.func, cst.Attribute):
            return None
        accessor = self.tables.accessors.get(holder.func.attr.value)
        if accessor is None or not accessor.slot_dims or accessor.returns != "tensor":
            return None
        return frozenset(accessor.slot_dims) if self._accessor_receiver_ok(holder) else None

    def _convention_slot_dims(self, param: cst.Param) -> Optional[frozenset]:
        """The slot dimensions of a cache parameter of rules/conventions.toml (its `slot_dims`): a row whose
        planes may come first gives them only where its function reads dimension 0 as the planes."""
        owner = self._param_owner(param)
        if not isinstance(owner, cst.FunctionDef):
            return None
        row = self.cache_parameter(owner, param.name.value)
        if row is None or not row.slot_dims or row.returns != "tensor":
            return None
        if row.planes and not self._reads_planes_first(owner, param.name.value):
            return None
        return frozenset(row.slot_dims)

    def _reads_planes_first(self, owner: cst.FunctionDef, name: str) -> bool:
        """Does owner read its parameter name's dimension 0 as the K/V planes: a constant first index
        (`kv_cache[0]`, `kv_cache[1, ids]`), `select(0, c)`, an unbind or a split into two along dim 0
        (`kv_cache.unbind(0)`, `kv_cache.chunk(2)`), `k, v = kv_cache`?"""
        cache = self.__dict__.setdefault("_planes_first_reads", {})
        key = (id(owner), name)
        if key not in cache:
            cache[key] = any(self._planes_read(node, name) for node in _walk(owner.body))
        return cache[key]

    def _planes_read(self, node: cst.CSTNode, name: str) -> bool:
        t = self.tables
        if isinstance(node, cst.Subscript):
            first = node.slice[0].slice if node.slice else None
            return _is_name(node.value, name) and isinstance(first, cst.Index) and isinstance(first.value, cst.Integer)
        if isinstance(node, cst.Assign):
            target = node.targets[0].target if len(node.targets) == 1 else None
            return (
                _is_name(node.value, name) and isinstance(target, (cst.Tuple, cst.List)) and len(target.elements) == 2
            )
        if not isinstance(node, cst.Call):
            return False
        qualified = self.call_name(node) or ""
        if node.args and (qualified in t.select_functions or qualified in t.tuple_view_functions):
            receiver, method, args = node.args[0].value, qualified.rsplit(".", 1)[-1], list(node.args[1:])
        else:
            receiver, method, args = self.method_parts(node)
        if not _is_name(receiver, name) or any(a.star for a in args):
            return False
        positional = [a.value for a in args if a.keyword is None]
        dim = self.dim_argument(node, args)
        along_planes = dim is None or self._dim_literal(dim) == 0
        if method in t.select_methods or method in _last_names(t.select_functions):
            return dim is not None and along_planes
        if method in t.dim_split_methods or method in _last_names(t.dim_split_functions):
            count = positional[0] if positional else None
            two = isinstance(count, cst.Integer) and count.evaluated_value == 2 and method in t.chunk_methods
            return two and along_planes
        return method in t.unbind_methods and along_planes

    def planes_first(self, expr: cst.BaseExpression, depth: int = 0, layout: str = "planes") -> bool:
        """Is expr one element of a per-layer container the class allocates with a literal count
        of planes first (`self.kv = [torch.zeros((2, size + 1, h, d)) for _ in ...]`; `self.kv[i]`,
        through names bound once)? Then a constant index picks a plane (K or V) of every token. layout
        "opaque": allocations with a shape object the file does not spell (`torch.zeros(spec.shape)`)."""
        if depth > 4:
            return False
        if isinstance(expr, cst.Name):
            values, stored = [], []
            for assignment in self.reaching(expr):
                kind, value, path = (
                    self.binding(assignment.node) if isinstance(assignment.node, cst.Name) else (None,) * 3
                )
                if kind == "for":  # `for name, cache in self.caches.items()`: the values stored there
                    elements = self._iterated_elements(value, path, depth)
                    if not elements or any(e is None for e in elements):
                        return False
                    stored.extend(elements)
                    continue
                if kind != "assign" or path:
                    return False
                values.append(value)
            return bool(values or stored) and (
                all(self.planes_first(v, depth + 1, layout) for v in values)
                and all(self._planes_value(v, depth + 1, layout) for v in stored)
            )
        if not (isinstance(expr, cst.Subscript) and len(expr.slice) == 1):
            return False
        if not isinstance(expr.value, cst.Attribute) or not self._self_held(expr.value):
            # an element the file stores (`self.groups[g].append(t)` of `t = torch.zeros((2, num_blocks,
            # ...))`): every value it may be is such an allocation
            key = expr.slice[0].slice
            constant = isinstance(key, cst.Index) and isinstance(key.value, cst.Integer)
            index = key.value.evaluated_value if constant else None
            values = self.element_values(expr.value, index)
            return bool(values) and all(self._planes_value(v, depth + 1, layout) for v in values)
        holder = expr.value
        if not (isinstance(holder.value, cst.Name) and holder.value.value == "self"):
            return False
        cls = self.enclosing_class(holder)
        values = self.self_attr_values(cls, holder.attr.value) if cls is not None else []
        return bool(values) and all(self._planes_allocation(v, False, layout) for v in values)

    def _self_held(self, holder: cst.Attribute) -> bool:
        """`self.x` whose class assigns it a comprehension (planes_first's first form)."""
        if not (isinstance(holder.value, cst.Name) and holder.value.value == "self"):
            return False
        cls = self.enclosing_class(holder)
        values = self.self_attr_values(cls, holder.attr.value) if cls is not None else []
        return any(isinstance(v, (cst.ListComp, cst.GeneratorExp, cst.DictComp)) for v in values)

    def _planes_value(self, value: cst.BaseExpression, depth: int, layout: str = "planes") -> bool:
        """Is value (through names bound once) an allocation with a literal count of planes first?"""
        if isinstance(value, cst.Name) and depth <= 4:
            found = []
            for a in self.reaching(value):
                kind, v, path = self.binding(a.node) if isinstance(a.node, cst.Name) else (None,) * 3
                if kind != "assign" or path:
                    return False
                found.append(v)
            return bool(found) and all(self._planes_value(v, depth + 1, layout) for v in found)
        return isinstance(value, cst.Call) and self._planes_allocation(value, True, layout)

    def _planes_allocation(self, value: cst.BaseExpression, direct: bool = False, layout: str = "planes") -> bool:
        if direct:
            pass
        elif isinstance(value, (cst.ListComp, cst.GeneratorExp)):
            value = value.elt
        elif isinstance(value, cst.DictComp):
            value = value.value
        else:
            return False
        if not isinstance(value, cst.Call) or self.allocation_kind(value) is None:
            return False
        if layout == "opaque":
            return self._opaque_shape(value)
        size = self._first_positional(value.args)
        if isinstance(size, cst.Name):
            found = [
                v
                for a in self.reaching(size)
                if isinstance(a.node, cst.Name)
                for k, v, p in [self.binding(a.node)]
                if k == "assign" and not p
            ]
            size = found[0] if len(found) == 1 else None
        if not isinstance(size, (cst.Tuple, cst.List)) or len(size.elements) < 3:
            return False
        first, second = size.elements[0].value, size.elements[1].value
        return (
            isinstance(first, cst.Integer)
            and 1 < int(first.value, 0) <= 4
            and not isinstance(second, cst.Integer)
            and not (self._identifiers_parts(second) & self.tables.batch_words)
        )

    def _opaque_shape(self, call: cst.Call) -> bool:
        """Is an allocation's shape one object the file does not spell (`torch.zeros(spec.shape)`,
        `torch.empty(backend.get_kv_cache_shape(...))`)? Then which dimension holds the slots is unknown."""
        if (dotted(call.func) or "").endswith("_like"):
            return False
        sizes = [a.value for a in call.args if (a.keyword is None and not a.star) or self._is_size_keyword(a)]
        return len(sizes) == 1 and not isinstance(self._bound_shape(sizes[0]), (cst.Tuple, cst.List, cst.Integer))

    @staticmethod
    def _is_size_keyword(arg: cst.Arg) -> bool:
        return arg.keyword is not None and arg.keyword.value == "size"

    def _identifiers_parts(self, expr: cst.BaseExpression) -> set:
        parts = set()
        for text in self._identifiers(expr, resolve=True):
            parts |= name_parts(text)
        return parts

    def from_convention(self, expr: cst.BaseExpression, depth: int = 0, layout: str = "planes") -> bool:
        """Does this value come from a cache parameter of an engine's calling convention
        (rules/conventions.toml), through names, parameters fed by visible calls, attributes
        of any object, views and helper returns? layout "planes": a row whose cache may hold its
        planes first (the default); "blocks": a row with `planes = false` (its blocks first)."""
        key = ("convention", layout, id(expr))
        if key in self._kind_cache:
            return self._kind_cache[key] == "yes"
        self._kind_cache[key] = "no"
        found = depth <= 6 and self._from_convention(expr, depth + 1, layout)
        self._kind_cache[key] = "yes" if found else "no"
        return found

    def _from_convention(self, expr: cst.BaseExpression, depth: int, layout: str) -> bool:
        if isinstance(expr, cst.Yield):  # `kv = yield out`: what `.send(v)` hands the generator
            return any(self.from_convention(v, depth, layout) for v in self.sent_to(expr))
        if isinstance(expr, cst.Name):
            for assignment in self.reaching(expr):
                node = assignment.node
                param = self.param_of(node)
                if isinstance(param, cst.Param):
                    owner = self._param_owner(param)
                    if isinstance(owner, cst.FunctionDef) and self._convention_origin(owner, param) != Origin.OTHER:
                        row = self.cache_parameter(owner, param.name.value)
                        if (row is None or row.planes) == (layout == "planes"):
                            return True
                        continue  # lmdeploy's k_cache has its blocks first: `k_cache[0]` is one block
                    name = param.name.value
                    if (
                        layout == "planes"
                        and name in self.tables.cache_parameter_names
                        and name in self.tables.cache_entry_lists
                        and self._param_origin(param, depth) == Origin.POOL_TUPLE
                    ):
                        return True  # `def bind(cls, gpu_cache)`: the engine's entries, by the name
                    calls = list(self._calls_by_name().get(id(owner), ())) + self._object_calls(owner)
                    calls += [c for c, _, _ in self.value_callers().get(id(owner), ())]
                    calls += self.super_calls(owner)  # an override's `super().planes(kv_cache, q)`
                    position = self._positional_params(owner, skip_self=False)
                    if param.name.value in position:  # `map(lambda t: t[0], caches.values())`: an element
                        index = position.index(param.name.value)
                        for call, first in self._mapped_calls().get(id(owner), ()):
                            iterables = [a.value for a in call.args[first:] if a.keyword is None and not a.star]
                            if index < len(iterables) and self.from_convention(iterables[index], depth, layout):
                                return True
                    cls = self.method_class(owner) if isinstance(owner, cst.FunctionDef) else None
                    if cls is not None:  # self.m(...) in the class and in its subclasses (an inherited helper),
                        # and in its bases: a base's template method runs the override (`self.key_cache(kv_cache)`)
                        for member in self.class_family(cls):
                            if member is cls or cls in self.class_mro(member) or member in self.class_mro(cls):
                                self._index_class(member)
                                calls += self._method_calls.get((id(member), owner.name.value), [])
                    for call in calls:
                        argument = self._argument_for(call, owner, param, skip_self=cls is not None)
                        if argument is not None and self.from_convention(argument, depth, layout):
                            return True
                elif isinstance(node, cst.Name):
                    kind, value, path = self.binding(node)
                    if kind == "assign" and not path and self.from_convention(value, depth, layout):
                        return True
                    if kind == "for" and not path and self.from_convention(value, depth, layout):
                        return True  # an entry of what the engine hands over
                    if (
                        kind == "assign"
                        and path == (1,)
                        and isinstance(value, cst.Call)
                        and self._items_call(value, any_args=True)
                        and self.from_convention(value.func.value, depth, layout)
                    ):
                        return True  # `name, cache = caches.popitem(last=False)`: a value of the engine's dict
                    if kind == "for" and len(path or ()) == 1 and self.iteration_kind(value) == "pairs":
                        # `for (sk, sv), entry in zip(self.shadow, past_key_values)`: an entry of that argument
                        args = self.iterated_args(value)
                        if path[0] is not None and path[0] < len(args):
                            if self.from_convention(args[path[0]], depth, layout):
                                return True
                    if kind == "for" and path and path[0] == 1 and len(path) == 1 and isinstance(value, cst.Call):
                        # `for i, kv in enumerate(engine.gpu_cache)`: kv is an entry
                        if (dotted(value.func) or "") == "enumerate" and value.args:
                            if self.from_convention(value.args[0].value, depth, layout):
                                return True
                        # `for name, cache in kv_caches.items()`: cache is a value of the engine's dict
                        if self._items_call(value) and self.from_convention(value.func.value, depth, layout):
                            return True
            return False
        if isinstance(expr, cst.Attribute):
            if expr.attr.value in self.tables.cache_entry_lists:
                return layout == "planes"
            if (
                expr.attr.value in self.tables.view_attributes or expr.attr.value in self.tables.whole_copy_attributes
            ) and self.from_convention(expr.value, depth, layout):
                return True  # `kv_cache.mT`: the same layout, transposed
            owner = self.instance_class(expr.value) or self.class_named(expr.value)
            values = self.instance_attr_values(owner, expr.attr.value) if owner is not None else []
            return any(self.from_convention(v, depth, layout) for v in values)
        if isinstance(expr, cst.Subscript):
            if len(expr.slice) == 1 and isinstance(expr.slice[0].slice, cst.Index):
                rows = self.kwargs_convention_rows(expr.value, expr.slice[0].slice.value)
                if any(row.planes == (layout == "planes") for row in rows):
                    return True  # `kwargs["past_key_values"]`: the convention's parameter
            return self.from_convention(expr.value, depth, layout)
        if isinstance(expr, cst.NamedExpr):  # `(kv := self.caches.get(i))[0]`: what it binds
            return self.from_convention(expr.value, depth, layout)
        if isinstance(expr, (cst.ListComp, cst.GeneratorExp, cst.SetComp)):  # `[kv for j, kv in enumerate(gpu_cache)]`
            return self.from_convention(expr.elt, depth, layout)
        if isinstance(expr, cst.DictComp):  # `{i: kv for i, kv in enumerate(gpu_cache)}`: its values are entries
            return self.from_convention(expr.value, depth, layout)
        if isinstance(expr, cst.Call):
            if (
                isinstance(expr.func, cst.Name)
                and expr.func.value in self.tables.iter_passthrough
                and len(expr.args) == 1
                and not expr.args[0].star
            ):
                return self.from_convention(expr.args[0].value, depth, layout)  # `list(gpu_cache)`: the same entries
            if self._element_keeping_call(expr) and self.from_convention(expr.args[0].value, depth, layout):
                # `OrderedDict(kv_caches)`, `deque(caches)`: the same entries; `next(iter(d.values()))`: one of them
                return True
            receiver, method, _ = self.method_parts(expr)
            t = self.tables
            if (
                isinstance(expr.func, cst.Attribute)
                and expr.func.attr.value in (*t.keep_methods, *t.item_methods, *t.take_methods)
                and self.from_convention(expr.func.value, depth, layout)
            ):
                return True  # `kv_caches.values()`, `.get(name)`: the entries the engine handed over
            if (
                isinstance(expr.func, cst.Attribute)
                and expr.func.attr.value in t.take_methods
                and expr.args
                and not expr.args[0].star
                and any(
                    row.planes == (layout == "planes")
                    for row in self.kwargs_convention_rows(expr.func.value, expr.args[0].value)
                )
            ):
                return True  # `kwargs.get("past_key_values")`: the convention's parameter
            if receiver is not None and (
                method in self.tables.view_methods
                or method in self.tables.whole_copy_methods
                or self.cast_target(expr) is not None
            ):
                return self.from_convention(receiver, depth, layout)  # a view or a (converted) copy: the same layout
            targets = [target for target, _, _ in self.return_targets(expr)]
            if not targets and receiver is not None and method is not None:
                targets = self._duck_method(receiver, method)
            for target in targets:
                values = [target.body] if isinstance(target, cst.Lambda) else self._return_values(target)
                if any(self.from_convention(v, depth, layout) for v in values):
                    return True
        return False

    def _duck_method(self, receiver: cst.BaseExpression, method: str) -> list:
        """The def `receiver.method(...)` runs when the receiver's class is known only as the one class of
        the module defining that method (duck_class: a lender object handed to a draft agent,
        `self.lender.layer(i)` of `TargetCacheLender.layer`, returning `self._engine.gpu_cache[i]`)."""
        cls = self.duck_class(receiver, method, method=True)
        target = self.class_function(cls, method) if cls is not None else None
        return [target] if isinstance(target, cst.FunctionDef) else []

    def _items_call(self, call: cst.Call, any_args: bool = False) -> bool:
        """`d.items()` ([containers] item_methods, no arguments): (key, value) pairs of d; any_args: with
        arguments too (`d.popitem(last=False)`)."""
        func = call.func
        return (
            isinstance(func, cst.Attribute)
            and func.attr.value in self.tables.item_methods
            and (any_args or not call.args)
        )

    def _element_keeping_call(self, call: cst.Call) -> bool:
        """A call of a container constructor that keeps its one positional argument's elements or values
        ([containers] keep_elements, dict_constructors: `OrderedDict(kv_caches)`) or of a function that takes
        one of them (take_functions: `next(iter(d.values()))`), by qualified name."""
        t = self.tables
        args = [a for a in call.args if a.keyword is None]
        if not args or args[0] is not call.args[0] or args[0].star:
            return False
        names = t.keep_elements | t.dict_constructors | t.take_functions
        return self.qualified_in(call, names)

    def _bounded_slice(self, s: cst.Slice) -> bool:
        """`[:n]`, `[a:b]`: bounded by a batch-sized value, not by the pool's extent; `[::2]`:
        a strided subset. A bound that comes from the step (what a per-step method is handed:
        `attn_metadata.max_num_blocks`, `used = meta.num_blocks_used`) is a window whatever it
        is named; one that reads a whole pool's extent (`buf.shape[0]`, `len(buf)`) or the
        object's own attributes (`self.size`) is decided by the extent words."""
        if self._strided(s) or self._empty_slice(s):
            return True
        upper = s.upper
        if upper is None:
            return self._bounded_tail(s.lower) or self._handed_start(s.lower)
        if self._past_extent(upper):
            return False  # `[: sys.maxsize]`: every slot
        if isinstance(upper, cst.UnaryOperation) and isinstance(upper.operator, cst.Minus):
            return False  # `[:-1]`: all but a few
        fields = self._record_bound_values(upper)
        if fields:  # `kbuf[w.start : w.end]`: bounded only when every record's field is
            return all(self._step_bound(v) or not self._mentions_extent(v) for v in fields)
        if self._step_bound(upper):
            return True
        if isinstance(upper, cst.Attribute) and self._int_constant(upper) is not None:
            return True  # `[: self.window_blocks]` of a class body's constant: the first few slots
        return not self._mentions_extent(upper)

    def _record_bound_values(self, bound: cst.BaseExpression, depth: int = 0) -> list:
        """What a bound read from a record's field (`w.end` of `for w in works`) may be: the arguments every
        construction that made the record passes for that field (`ChunkWork(i, 0, kbuf.shape[0], True)`),
        through copies (`c._replace(layer_id=i)`: c's own field); [] for any other bound."""
        if not isinstance(bound, cst.Attribute) or (isinstance(bound.value, cst.Name) and bound.value.value == "self"):
            return []
        owner = self.instance_class(bound.value)
        if depth > 3 or owner is None or not self.is_record(owner) or bound.attr.value not in self.record_fields(owner):
            return []
        out = []
        for value in self.field_values(bound.value, owner, bound.attr.value):
            if value is not bound:
                out.extend(self._record_bound_values(value, depth + 1) or [value])
        return out

    def _empty_slice(self, s: cst.Slice) -> bool:
        """A slice of no slot at all: a stop of 0 (`[:0]`, `[:-0]`) from a start of 0, or a start at
        (or past) the pool's end with no stop (`[buf.shape[0]:]`, `[sys.maxsize:]`)."""
        if s.step is not None and not (isinstance(s.step, cst.Integer) and s.step.evaluated_value > 0):
            return False  # a negative step runs from the end
        if s.upper is not None:
            lower = 0 if s.lower is None else self._int_constant(s.lower)
            return lower == 0 and self._int_constant(s.upper) == 0
        return s.lower is not None and (self._past_extent(s.lower) or self._exact_extent(s.lower))

    def constant_indices(self, expr: cst.BaseExpression, depth: int = 0) -> Optional[List[cst.Integer]]:
        """The int literals an index may be when it is only constants: the literal itself; a name bound
        once to one (a module constant `KEY = 0`); a class attribute bound once in a class body (`KV.KEY`
        of an IntEnum, `Cls.K` of any class, `self.K` the instances never store); a loop target over an
        enumeration class (`for kind in KV`: any member). None when any value is not a literal."""
        if depth > 4:
            return None
        if isinstance(expr, cst.Integer):
            return [expr]
        values: List[cst.BaseExpression] = []
        if isinstance(expr, cst.Attribute):
            owner = expr.value
            cls = self.class_named(owner)
            if cls is None and isinstance(owner, cst.Name) and owner.value == "self":
                cls = self.enclosing_class(expr)
                if cls is not None and self.instance_attr_values(cls, expr.attr.value):
                    return None  # an instance field: what the instance stores
            if cls is None:
                return None
            values = list(self.class_body_values(cls, expr.attr.value))
            if len(values) != 1 and not (values and self.is_enum(cls)):
                return None
        elif isinstance(expr, cst.Name):
            assignments = list(self.reaching(expr))
            if len(assignments) != 1 or not isinstance(assignments[0].node, cst.Name):
                return None
            kind, value, path = self.binding(assignments[0].node)
            if kind == "assign" and not path and value is not None:
                values = [value]
            elif kind == "assign" and len(path) == 1 and path[0] is not None:
                position = self._range_position(value, path[0])  # `_IDX, _BUF = range(2)`
                return None if position is None else [cst.Integer(str(position))]
            elif kind == "for" and not path and value is not None:
                cls = self.class_named(value) if isinstance(value, (cst.Name, cst.Attribute)) else None
                if cls is None or not self.is_enum(cls):
                    return None
                values = [v for n in self._member_names(cls) for v in self.class_body_values(cls, n)]
            else:
                return None
        else:
            return None
        out: List[cst.Integer] = []
        for value in values:
            found = self.constant_indices(value, depth + 1)
            if not found:
                return None
            out.extend(found)
        return out or None

    def index_position(self, key: cst.BaseExpression) -> Optional[int]:
        """The one int a record's index is: a literal, or a name or class attribute constant_indices folds
        to one literal (`rec[_BUF]` after `_IDX, _BUF = range(2)`); None otherwise."""
        if isinstance(key, cst.Integer):
            return int(key.value)
        if not isinstance(key, (cst.Name, cst.Attribute)):
            return None
        found = self.constant_indices(key)
        return found[0].evaluated_value if found and len(found) == 1 else None

    def _range_position(self, value: Optional[cst.BaseExpression], position: int) -> Optional[int]:
        """The int at position of `range(n)` / `range(start, stop)` with int-literal bounds (a module's
        `_IDX, _BUF, _LEN = range(3)`; [index_values] stride_ranges), unpacked once; None for any other value."""
        if not (
            isinstance(value, cst.Call)
            and (self.call_name(value) or "").removeprefix("builtins.") in self.tables.stride_ranges
        ):
            return None
        bounds = [self._int_constant(a.value) for a in value.args if not a.keyword and not a.star]
        if len(bounds) != len(value.args) or not 1 <= len(bounds) <= 2 or None in bounds:
            return None
        start, stop = (0, bounds[0]) if len(bounds) == 1 else bounds
        return start + position if start + position < stop else None

    def _int_constant(self, expr: cst.BaseExpression, depth: int = 0) -> Optional[int]:
        """The int a bound folds to: literals, `-0`, `2**63 - 1`, `1 << 62`, a name assigned one once."""
        if depth > 4:
            return None
        if isinstance(expr, cst.Integer):
            return expr.evaluated_value
        if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, (cst.Minus, cst.Plus)):
            inner = self._int_constant(expr.expression, depth + 1)
            return None if inner is None else (-inner if isinstance(expr.operator, cst.Minus) else inner)
        if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, tuple(_FOLDED_OPERATORS)):
            left, right = self._int_constant(expr.left, depth + 1), self._int_constant(expr.right, depth + 1)
            if left is None or right is None or (isinstance(expr.operator, (cst.Power, cst.LeftShift)) and right > 128):
                return None
            return _FOLDED_OPERATORS[type(expr.operator)](left, right) if right >= 0 else None
        if isinstance(expr, cst.Name):
            values = [self._assigned_once(a.node) for a in self.reaching(expr)]
            if len(values) == 1 and values[0] is not None:
                return self._int_constant(values[0], depth + 1)
        if isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name) and expr.value.value == "self":
            return self._class_constant(expr, depth)
        return None

    def _class_constant(self, expr: cst.Attribute, depth: int) -> Optional[int]:
        """`self.window_blocks` whose every value an instance may hold (a class body's `window_blocks = 4`
        in self's class or its bases, any `self.window_blocks = ...` of its family) folds to the one int."""
        cls = self.enclosing_class(expr)
        if cls is None or (self._pruned is not None and expr.attr.value in self._pruned.dropped_attr_stores):
            return None  # (a dropped def assigns it: a value the pruned tree does not show)
        context = self.self_class()
        if context is not None and cls in self.class_mro(context):
            cls = context
        values = self.instance_attr_values(cls, expr.attr.value)
        folded = {self._int_constant(v, depth + 1) for v in values}
        return folded.pop() if len(folded) == 1 and None not in folded else None

    def _split_made(self, holder: cst.BaseExpression, depth: int = 0) -> cst.BaseExpression:
        """The split call a name holds when it is assigned one once (`parts = torch.vsplit(buf, b)`;
        `parts[r]`): the piece is read against the split's dimension as `buf.vsplit(b)[r]` is; holder
        itself otherwise."""
        if not isinstance(holder, cst.Name) or depth > 3:
            return holder
        values = [self._assigned_once(a.node) for a in self.reaching(holder)]
        if len(values) != 1 or values[0] is None:
            return holder
        return values[0] if isinstance(values[0], cst.Call) else self._split_made(values[0], depth + 1)

    def _assigned_once(self, node) -> Optional[cst.BaseExpression]:
        kind, value, path = self.binding(node) if isinstance(node, cst.Name) else (None, None, None)
        return value if kind == "assign" and not path else None

    def _past_extent(self, bound: cst.BaseExpression, depth: int = 0) -> bool:
        """Is a bound past any pool's extent ([index_values] unbounded_constants: `sys.maxsize`; an int
        literal of at least unbounded_at_least), as written or through a name assigned it once?"""
        t = self.tables
        if isinstance(bound, cst.Name) and depth < 4:
            values = [self._assigned_once(a.node) for a in self.reaching(bound)]
            if len(values) == 1 and values[0] is not None:
                return self._past_extent(values[0], depth + 1)
        if isinstance(bound, (cst.Name, cst.Attribute)) and (self.qualified(bound) or "") in t.unbounded_constants:
            return True
        value = self._int_constant(bound)
        return value is not None and value >= t.unbounded_at_least

    def _exact_extent(self, bound: cst.BaseExpression, depth: int = 0) -> bool:
        """Is a bound exactly a whole pool's token extent (`buf.shape[0]`, `buf.size(0)`, `len(buf)`,
        a name assigned one once)?"""
        t = self.tables
        if isinstance(bound, cst.Name) and depth < 4:
            values = [self._assigned_once(a.node) for a in self.reaching(bound)]
            return len(values) == 1 and values[0] is not None and self._exact_extent(values[0], depth + 1)
        holder = None
        if isinstance(bound, cst.Subscript) and len(bound.slice) == 1 and isinstance(bound.slice[0].slice, cst.Index):
            head = bound.value
            if isinstance(head, cst.Attribute) and head.attr.value in t.extent_attributes:
                if self._int_constant(bound.slice[0].slice.value) == 0:
                    holder = head.value
        elif isinstance(bound, cst.Call) and len(bound.args) == 1 and not bound.args[0].star:
            func, arg = bound.func, bound.args[0].value
            if isinstance(func, cst.Attribute) and func.attr.value in t.extent_methods:
                holder = func.value if self._int_constant(arg) == 0 else None
            elif isinstance(func, cst.Name) and func.value in t.extent_functions:
                holder = arg
        return holder is not None and self.origin(holder) == Origin.POOL

    def _bounded_tail(self, lower: Optional[cst.BaseExpression]) -> bool:
        """`[-n:]`: the last n slots, bounded as `[:n]` is (by the step, or by anything but the pool's
        own extent: `[-buf.shape[0]:]` is every slot). A count named with an extent word reaches back
        over every slot only when it reads the pool's extent or the object's own state
        (`[-self.num_blocks:]`); one handed in (a helper's `num_blocks` parameter, a local) counts the
        last blocks, a window, as `[:, -num_blocks:]` selects them before a copy."""
        if not (isinstance(lower, cst.UnaryOperation) and isinstance(lower.operator, cst.Minus)):
            return False
        count = lower.expression
        if self._step_bound(count) or not self._mentions_extent(count):
            return True
        if isinstance(count, cst.Attribute) and self._int_constant(count) is not None and not self._past_extent(count):
            return True  # `[-self.window_blocks:]` of a class body's `window_blocks = 4`: the last few slots
        if self._exact_extent(count) or self._past_extent(count):
            return False
        sources: set = set()
        self._bound_sources(count, sources, 0)
        return self._handed_count(count, 0) and not sources & {"self", "extent"}

    def _handed_start(self, lower: Optional[cst.BaseExpression]) -> bool:
        """`[start:]` whose start is only handed in (a parameter, arithmetic of parameters and constants)
        or read from the step: the slots from a point the caller chose, a window as `[-n:]` is. A literal
        start (`[1:]`: all but a few), the pool's own extent or the object's state (`[self.start:]`)
        still covers (nearly) every slot."""
        if lower is None or self._int_constant(lower) is not None:
            return False
        if self._exact_extent(lower) or self._past_extent(lower):
            return False
        sources: set = set()
        self._bound_sources(lower, sources, 0)
        if sources & {"self", "extent"}:
            return False
        return self._step_bound(lower) or self._handed_count(lower, 0)

    def _handed_count(self, expr: cst.BaseExpression, depth: int) -> bool:
        """Is a count only what a function is handed (its parameters, constants, arithmetic of them,
        through local names assigned them once), no object's attribute read (`mgr.num_blocks`) and no
        parameter of a run-once method (`__init__`: the object's state)?"""
        if depth > 4:
            return False
        if isinstance(expr, cst.Integer):
            return True
        if isinstance(expr, cst.UnaryOperation):
            return self._handed_count(expr.expression, depth + 1)
        if isinstance(expr, cst.BinaryOperation):
            return self._handed_count(expr.left, depth + 1) and self._handed_count(expr.right, depth + 1)
        if not isinstance(expr, cst.Name) or expr.value == "self":
            return False
        assignments = list(self.reaching(expr))
        if not assignments:
            return False
        for assignment in assignments:
            node = assignment.node
            param = self.param_of(node)
            if isinstance(param, cst.Param):
                owner = self.enclosing_function(param)
                if owner is not None and owner.name.value in self.tables.run_once_methods:
                    return False  # a constructor's parameter is the object's state, not what a step hands in
                continue
            value = self._assigned_once(node)
            if value is None or not self._handed_count(value, depth + 1):
                return False
        return True

    @staticmethod
    def _planes_slice(s: cst.Slice) -> bool:
        """`[:1]`, `[1:2]`, `[:2]`: literal bounds within a plane count (at most 4 planes): some planes
        (K, V, their scales) of every block, as `entry[:2]` of lmdeploy's (k, v, k_sz, v_sz) entry is."""
        if s.step is not None:
            return False
        lower = 0 if s.lower is None else (s.lower.evaluated_value if isinstance(s.lower, cst.Integer) else None)
        upper = s.upper.evaluated_value if isinstance(s.upper, cst.Integer) else None
        return lower is not None and upper is not None and 0 <= lower < upper <= 4

    @staticmethod
    def _strided(s: cst.Slice) -> bool:
        """`[::2]`: every other slot, a constant step other than 1 and -1."""
        step = s.step
        if isinstance(step, cst.UnaryOperation) and isinstance(step.operator, cst.Minus):
            step = step.expression
        return isinstance(step, cst.Integer) and step.evaluated_value not in (0, 1)

    def _step_bound(self, expr: cst.BaseExpression) -> bool:
        """Does a slice bound come only from the step: the parameters of a per-step entry point
        (`[hot_path]` entry points and step_inputs) that hold no pool, through reads of them and local names
        assigned from them, with constants? Not when it reads a whole pool's extent or `self`."""
        sources: set = set()
        self._bound_sources(expr, sources, 0)
        return "step" in sources and sources <= {"step", "const"}

    def _passed_bound_sources(self, owner: cst.FunctionDef, param: cst.Param, out: set, depth: int) -> None:
        """The sources of what the visible calls of a helper pass for param (`self._window(buf,
        attn_metadata.num_blocks_used)`); "other" when a call is not seen or passes nothing."""
        cls = self.method_class(owner)
        calls = list(self._calls_by_name().get(id(owner), ()))
        if cls is not None:
            self._index_class(cls)
            calls += self._method_calls.get((id(cls), owner.name.value), [])
        if not calls:
            out.add("other")
            return
        for call in calls:
            argument = self._argument_for(call, owner, param, skip_self=cls is not None)
            if argument is None:
                out.add("other")
            else:
                self._bound_sources(argument, out, depth + 2)

    def _bound_sources(self, expr: cst.BaseExpression, out: set, depth: int) -> None:
        t = self.tables
        if depth > 6:
            out.add("other")
            return
        if isinstance(expr, (cst.Integer, cst.Float)):
            out.add("const")
        elif isinstance(expr, cst.Name):
            if expr.value == "self":
                out.add("self")
                return
            assignments = self.reaching(expr)
            if not assignments:
                out.add("other")
            for assignment in assignments:
                node = assignment.node
                param = self.param_of(node)
                if isinstance(param, cst.Param):
                    owner = self._param_owner(param)
                    if not isinstance(owner, cst.FunctionDef):
                        out.add("other")
                    elif owner.name.value in t.hot_path_entry_points or owner.name.value in t.step_input_methods:
                        out.add("step" if self.origin(expr) < Origin.PREFIX else "other")
                    else:  # a helper's parameter: what every visible caller passes
                        self._passed_bound_sources(owner, param, out, depth)
                    continue
                kind, value, path = self.binding(node) if isinstance(node, cst.Name) else (None, None, None)
                if kind == "assign" and not path and value is not None:
                    self._bound_sources(value, out, depth + 1)
                else:
                    out.add("other")
        elif isinstance(expr, cst.Attribute):
            fields = self._record_field_bound(expr)
            if expr.attr.value in t.extent_attributes and self.origin(expr.value) >= Origin.PREFIX:
                out.add("extent")  # `buf.shape`
            elif fields:  # `few.count` of `few = Pages(buf, 0, meta.num_pages)`: what was built in
                for value in fields:
                    self._bound_sources(value, out, depth + 1)
            else:
                self._bound_sources(expr.value, out, depth + 1)
        elif isinstance(expr, cst.Subscript):
            if self._layout_extent(expr):
                out.add("const")  # `buf.shape[1]`: a page or head size, not the token extent
                return
            self._bound_sources(expr.value, out, depth + 1)
        elif isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, _QUOTIENT_OPERATORS):
            self._bound_sources(expr.left, out, depth + 1)  # `n // self.page_size`: no more than its dividend
        elif isinstance(expr, (cst.BinaryOperation, cst.UnaryOperation)):
            for part in (getattr(expr, "left", None), getattr(expr, "right", None), getattr(expr, "expression", None)):
                if part is not None:
                    self._bound_sources(part, out, depth + 1)
        elif isinstance(expr, cst.Call):
            func = expr.func
            receiver = func.value if isinstance(func, cst.Attribute) else None
            read = [a.value for a in expr.args if not a.star and a.keyword is None]
            if isinstance(func, cst.Attribute) and func.attr.value in t.extent_methods:
                if self._layout_extent(expr):
                    out.add("const")  # `buf.size(1)`: a page or head size, not the token extent
                    return
                if self.origin(func.value) >= Origin.PREFIX:
                    out.add("extent")  # `buf.size(0)`, `buf.numel()`
                    return
            if isinstance(func, cst.Name) and func.value in t.extent_functions and read:
                if any(self.origin(v) >= Origin.PREFIX for v in read):
                    out.add("extent")  # `len(buf)`
                    return
            if (
                isinstance(func, cst.Name)
                and func.value not in t.extent_functions
                and func.value not in t.count_functions
            ):
                out.add("other")  # a function of the module or elsewhere: what it returns is unknown
                return
            for part in ([receiver] if receiver is not None else []) + read:
                self._bound_sources(part, out, depth + 1)
        else:
            out.add("other")

    def _record_field_bound(self, expr: cst.Attribute) -> List[cst.BaseExpression]:
        """The values a record field read (`rec.count`, rec an instance of a record class of the module
        by its constructions) was built with; [] for any other attribute, or when not all are known."""
        if isinstance(expr.value, cst.Name) and expr.value.value == "self":
            return []
        owner = self.instance_class(expr.value)
        if owner is None or not self.is_record(owner) or expr.attr.value not in self.record_fields(owner):
            return []
        return self.field_values(expr.value, owner, expr.attr.value)

    def _layout_extent(self, expr: cst.BaseExpression) -> bool:
        """`buf.shape[d]` / `buf.size(d)` of a pool for a constant d other than 0: the size of a
        later dimension (a page, the heads), a constant of the layout, not the token extent.
        `meta.max_kv_seqlen // k_cache.size(1)` is then a bound read from the step."""
        t = self.tables
        if isinstance(expr, cst.Subscript):
            holder = expr.value
            if not (isinstance(holder, cst.Attribute) and holder.attr.value in t.extent_attributes):
                return False
            if len(expr.slice) != 1 or not isinstance(expr.slice[0].slice, cst.Index):
                return False
            owner, index = holder.value, expr.slice[0].slice.value
        elif isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute):
            if expr.func.attr.value != "size" or len(expr.args) != 1 or expr.args[0].star:
                return False
            owner, index = expr.func.value, expr.args[0].value
        else:
            return False
        if isinstance(index, cst.UnaryOperation) and isinstance(index.operator, cst.Minus):
            index = index.expression
        if not isinstance(index, cst.Integer) or index.evaluated_value == 0:
            return False
        return self.origin(owner) >= Origin.PREFIX

    def _mentions_extent(self, expr: cst.BaseExpression) -> bool:
        """Does the expression name the pool's own extent (`self.size`, `buf.shape[0]`)?"""
        words, batch = self.tables.extent_words, self.tables.batch_words | self.tables.window_words
        for text in self._identifiers(expr, resolve=True):
            parts = name_parts(text)
            if parts & words and not parts & batch:  # `batch_size` sizes the step, `live_blocks` a window
                return True
        return False

    def subscript_keeps_whole(self, sub: cst.Subscript) -> bool:
        """buf[:, :, :512], buf[...], caches[layer_id] keep every token; pool[idx] and the
        active prefix pool[:n] do not."""
        if self.origin(sub.value) >= Origin.PREFIX:
            return self.origin(sub) >= Origin.POOL_TUPLE
        for element in self.slice_elements(sub):
            inner = element.slice
            if isinstance(inner, cst.Slice):
                if self._bounded_slice(inner):
                    return False
                continue
            value = inner.value
            if isinstance(value, cst.Ellipsis) or (isinstance(value, cst.Name) and value.value == "None"):
                continue
            return False
        return True

    def gather_consumer(self, node: cst.CSTNode) -> Optional[str]:
        """How a value is gathered right where it is used: 'subscript' (`x[idx]`, `x[:n]`),
        'method' (`x.index_select(...)`) or 'function' (`torch.index_select(x, ...)`)."""
        parent = self.parents.get(node)
        if isinstance(parent, cst.Subscript) and parent.value is node:
            return None if self.subscript_keeps_whole(parent) else "subscript"
        if (
            isinstance(parent, cst.Attribute)
            and parent.value is node
            and parent.attr.value in self.tables.gather_methods
        ):
            return "method" if isinstance(self.parents.get(parent), cst.Call) else None
        if isinstance(parent, cst.Arg):
            call = self.parents.get(parent)
            if isinstance(call, cst.Call) and self._first_positional(call.args) is node:
                if self.call_name(call) in self.tables.gather_functions:
                    return "function"
            if isinstance(call, cst.Call) and self._gathered_table(call) is node:
                return "function"  # `F.embedding(ids, <node>)`
        return None

    def _gathered_table(self, call: cst.Call) -> Optional[cst.BaseExpression]:
        """The table `F.embedding(ids, table)` ([gathers] table_functions) reads rows of: its
        second positional argument or `weight=`; None for any other call."""
        if not self.tables.gather_table_functions or self.call_name(call) not in self.tables.gather_table_functions:
            return None
        positional = [a for a in call.args if a.keyword is None]
        if any(a.star for a in positional[:2]):
            return None
        if len(positional) >= 2:
            return positional[1].value
        return next((a.value for a in call.args if a.keyword is not None and a.keyword.value == "weight"), None)
