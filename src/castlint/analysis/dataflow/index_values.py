"""What an index holds, told by its value (`index_kind`): SCALAR (a layer id, a loop counter),
TENSOR (a table of indices) or UNKNOWN."""

from __future__ import annotations

from typing import List

import libcst as cst

from castlint.analysis.dataflow.shared import MAX_DEPTH, SCALAR, TENSOR, UNKNOWN, _annotation_kind
from castlint.analysis.tree import dotted


class IndexValues:
    def index_kind(self, expr: cst.BaseExpression, depth: int = 0) -> str:
        """SCALAR (a layer id, a loop counter), TENSOR (indices) or UNKNOWN, by value."""
        key = ("index", id(expr))
        if key in self._kind_cache:
            return self._kind_cache[key]
        self._kind_cache[key] = UNKNOWN  # cycles
        result = self._index_kind(expr, depth + 1) if depth <= MAX_DEPTH else UNKNOWN
        self._kind_cache[key] = result
        return result

    def _dict_value_kind(self, expr: cst.BaseExpression, depth: int) -> str:
        """What the values of a dict the module builds are: a map of layer ids to local
        indices (`{lid: i for i, lid in enumerate(ids)}`) holds scalars, not index tensors."""
        if isinstance(expr, cst.Attribute):
            owner = self._attr_owner(expr)
            values = list(self.instance_attr_values(owner, expr.attr.value)) if owner is not None else []
        elif isinstance(expr, cst.Name):
            values = [
                v
                for a in self.reaching(expr)
                if isinstance(a.node, cst.Name)
                for k, v, p in [self.binding(a.node)]
                if k == "assign" and not p
            ]
        else:
            values = []
        kinds = []
        for value in values:
            if isinstance(value, cst.DictComp):
                kinds.append(self.index_kind(value.value, depth))
            elif isinstance(value, cst.Dict):
                kinds.extend(self.index_kind(e.value, depth) for e in value.elements if isinstance(e, cst.DictElement))
        if TENSOR in kinds:
            return TENSOR
        return SCALAR if kinds and all(k == SCALAR for k in kinds) else UNKNOWN

    def _index_kind(self, expr: cst.BaseExpression, depth: int) -> str:
        t = self.tables
        iterated = self.__dict__.get("iteration_elements", {}).get(id(expr))
        if iterated is not None:  # an element a fold or a runner takes from iterating a container
            return self._loop_index_kind(iterated, (), depth)
        if isinstance(expr, (cst.Integer, cst.Float)):
            return SCALAR
        if isinstance(expr, cst.UnaryOperation):
            return self.index_kind(expr.expression, depth)
        if isinstance(expr, cst.Subscript) and self.dict_like(expr.value):
            return self._dict_value_kind(expr.value, depth)  # `self.layer_map[layer_id]`: a value of a dict
        if isinstance(expr, cst.Subscript) and self._scalar_table(expr.value):
            return SCALAR  # `mgr.layer_offsets[self.layer_idx]`: an engine's table of scalars
        if isinstance(expr, cst.Subscript) and len(expr.slice) == 1:
            # an element the file builds, read by structure (`self.slot[layer_id][1]` of `{lid: ("swa", i)
            # for i, lid in enumerate(ids)}`: the position i): its own kind when every element is known
            key = expr.slice[0].slice
            position = key.value if isinstance(key, cst.Index) else None
            if isinstance(position, cst.Integer):
                found = self.element_values(expr.value, int(position.value, 0), depth)
                if found:
                    kinds = [self.index_kind(v, depth) for v in found]
                    if all(k == SCALAR for k in kinds):
                        return SCALAR
        if isinstance(expr, cst.Subscript) and len(expr.slice) == 1:
            keyed = self.keyed_values(expr)  # `inp["layer_idx"]` of `dict(layer_idx=layer_idx)`: what it holds
            if keyed:
                return self._values_index_kind(keyed, depth)
        if isinstance(expr, (cst.Tuple, cst.List, cst.Comparison, cst.Subscript)):
            return TENSOR  # fancy indices, a mask, an element of a table of indices
        if isinstance(expr, cst.BinaryOperation):
            return _combine_arith(self.index_kind(expr.left, depth), self.index_kind(expr.right, depth))
        if isinstance(expr, cst.IfExp):
            return _combine_any(self.index_kind(expr.body, depth), self.index_kind(expr.orelse, depth))
        if isinstance(expr, cst.Call):
            name = (dotted(expr.func) or "").rsplit(".", 1)[-1]
            if name in t.scalar_calls:
                return SCALAR
            if name in t.tensor_calls:
                return TENSOR
            return self._reduced_kind(expr, depth)
        if isinstance(expr, cst.Attribute):
            if expr.attr.value in t.scalar_attributes:
                return SCALAR
            if isinstance(expr.value, cst.Name) and expr.value.value == "self":
                cls = self.enclosing_class(expr)
                values = self.self_attr_values(cls, expr.attr.value) if cls is not None else []
                return _combine_values([self.index_kind(v, depth) for v in values])
            owner = self.instance_class(expr.value)
            if owner is not None:  # `st.block_ids` of `st = StepState(buf, meta.block_offsets[0])`: what was
                # passed for that field (a record's constructor argument by position or keyword) or assigned it
                values = [v for v in self.field_values(expr.value, owner, expr.attr.value) if v is not expr]
                return self._values_index_kind(values, depth)
            return UNKNOWN
        if isinstance(expr, cst.Name):
            kinds = []
            for assignment in self.reaching(expr):
                node = assignment.node
                param = self.param_of(node)
                if isinstance(param, cst.Param):
                    kind = _annotation_kind(self, param, for_index=True)
                    if kind == UNKNOWN and param.default is None and not param.star:
                        # unannotated: what every visible call passes (`self.blocks.get_buffers(self.layer_idx)`)
                        passed = [self.index_kind(a, depth) for a in self.passed_arguments(param)]
                        kind = passed[0] if passed and all(k == passed[0] for k in passed) else UNKNOWN
                    kinds.append(kind)
                    continue
                if not isinstance(node, cst.Name):
                    kinds.append(UNKNOWN)
                    continue
                kind, value, path = self.binding(node)
                if kind == "assign" and not path:
                    kinds.append(self.index_kind(value, depth))
                elif kind == "assign":  # `i, h = grid[-1]`, `mgr, idx = self._where(meta)`: that position
                    # of the value (a helper's returned tuple too), by structure
                    kinds.append(self._values_index_kind(self.path_values(value, path), depth))
                elif kind == "for":
                    found = self._loop_index_kind(value, path, depth)
                    kinds.append(SCALAR if found == UNKNOWN and self._keys_dict_comp(node) else found)
                else:
                    kinds.append(UNKNOWN)
            return _combine_values(kinds)

    def _reduced_kind(self, call: cst.Call, depth: int) -> str:
        """`k.abs().amax()` ([index_values] full_reductions without a dimension): a 0-dim tensor, SCALAR;
        a shape-keeping method of one (`.clamp(min=e)`, shape_keeping_methods) too; else UNKNOWN."""
        func = call.func
        if not isinstance(func, cst.Attribute):
            return UNKNOWN
        t = self.tables
        if func.attr.value in t.full_reductions:
            dims = [a for a in call.args if a.keyword is None or a.keyword.value in t.reduction_dim_keywords]
            return UNKNOWN if dims else SCALAR
        if func.attr.value in t.shape_keeping_methods:
            return SCALAR if self.index_kind(func.value, depth) == SCALAR else UNKNOWN
        return UNKNOWN

    def _keys_dict_comp(self, target: cst.Name) -> bool:
        """Is a comprehension's for target the key of its dict comprehension (`{i: mgr.get_buffers(i) for i in
        layers}`)? A dict is keyed by ids, not by index tensors (a tensor hashes by identity)."""
        node = self.parents.get(target)
        while node is not None and not isinstance(node, cst.CompFor):
            node = self.parents.get(node)
        comp = self.parents.get(node) if node is not None else None
        while isinstance(comp, cst.CompFor):
            comp = self.parents.get(comp)
        return isinstance(comp, cst.DictComp) and isinstance(comp.key, cst.Name) and comp.key.value == target.value
        return UNKNOWN

    def _scalar_table(self, expr: cst.BaseExpression) -> bool:
        """An attribute of [index_values] scalar_element_attributes that no module class assigns
        (a class of the file that builds it decides by its values, as dict_like reads)."""
        if not isinstance(expr, cst.Attribute) or expr.attr.value not in self.tables.scalar_element_attributes:
            return False
        owner = self._attr_owner(expr)
        if owner is None:
            return True
        # a class that only stores what it was handed (`self.layer_index = layer_index`) builds nothing
        values = self.instance_attr_values(owner, expr.attr.value)
        return bool(values) and all(isinstance(v, (cst.Name, cst.Attribute)) for v in values)

    def _layer_id_list(self, iterable: cst.BaseExpression, sources: list) -> bool:
        """Is iterable named as a list of layer indices ([index_values] scalar_element_words: the whole
        name or its last words) that the file does not build (only names and attributes handed in reach
        it: `self.target_layer_ids = target_layer_ids`)?"""
        text = iterable.value if isinstance(iterable, cst.Name) else iterable.attr.value
        if not any(text == w or text.endswith("_" + w) for w in self.tables.scalar_element_words):
            return False
        return all(isinstance(v, (cst.Name, cst.Attribute)) for v in sources)

    def _values_index_kind(self, values, depth: int) -> str:
        """SCALAR when every value (None: unknown) is a scalar, TENSOR when one is indices."""
        if not values:
            return UNKNOWN
        return _combine_values([self.index_kind(v, depth) for v in values])

    def _loop_index_kind(self, iterable: cst.BaseExpression, path, depth: int = 0) -> str:
        """A for target's index kind at path: a counter (range, enumerate's position) is a scalar,
        an element of zip/product a kind of its argument's elements, an element of a display its own
        kind (`for i, half in itertools.product(ids, (0, 1))`: half is a constant)."""
        shape = self.iteration_kind(iterable)
        if shape is not None:
            args = self.iterated_args(iterable)
            if shape == "counters":
                return SCALAR if not path else UNKNOWN
            if shape == "numbered" and path:
                return SCALAR if path[0] == 0 else self._loop_index_kind(args[0], path[1:], depth)
            if shape == "pairs" and path and path[0] is not None and path[0] < len(args):
                return self._loop_index_kind(args[path[0]], path[1:], depth)
            if shape == "repeats":
                return self._values_index_kind(self.path_values(args[0], path), depth)
            return UNKNOWN
        if isinstance(iterable, (cst.Tuple, cst.List, cst.Set)) and depth <= MAX_DEPTH:
            if any(not isinstance(e, cst.Element) or isinstance(e, cst.StarredElement) for e in iterable.elements):
                return UNKNOWN
            return self._values_index_kind(self._at_path([e.value for e in iterable.elements], path, depth), depth)
        if path and isinstance(iterable, cst.Name) and depth <= MAX_DEPTH:
            # `for (half, tag), _ in product(grid, ...)` of `grid = [(0, "k"), (1, "v")]`: by structure
            return self._values_index_kind(self._iterated_elements(iterable, path, depth), depth)
        if not path and isinstance(iterable, (cst.Name, cst.Attribute)) and depth <= MAX_DEPTH:
            # `for i in self.layer_ids` of `self.layer_ids = range(n)`, `for i in layer_ids` of a parameter
            # every visible call hands such a range: what the name holds decides
            sources = self._iterable_sources(iterable)
            found = _combine_values([self._loop_index_kind(v, (), depth + 1) for v in sources])
            if found == UNKNOWN and self._layer_id_list(iterable, sources):
                return SCALAR
            return found
        return UNKNOWN

    def _iterable_sources(self, iterable: cst.BaseExpression) -> List[cst.BaseExpression]:
        """What a name or a self attribute iterated by a for holds: its single assignments, the values
        the class stores into the attribute, the arguments every visible call passes for a parameter."""
        if isinstance(iterable, cst.Attribute):
            is_self = isinstance(iterable.value, cst.Name) and iterable.value.value == "self"
            cls = self.enclosing_class(iterable) if is_self else None
            return self.self_attr_values(cls, iterable.attr.value) if cls is not None else []
        out: List[cst.BaseExpression] = []
        for assignment in self.reaching(iterable):
            node = assignment.node
            param = self.param_of(node)
            if isinstance(param, cst.Param):
                passed = self.complete_arguments(param)
                if not passed:
                    return []
                out.extend(passed)
                continue
            kind, value, path = self.binding(node) if isinstance(node, cst.Name) else (None, None, None)
            if kind != "assign" or path:
                return []
            out.append(value)
        return out


def _combine_arith(left: str, right: str) -> str:
    if TENSOR in (left, right):
        return TENSOR
    return SCALAR if left == right == SCALAR else UNKNOWN


def _combine_any(left: str, right: str) -> str:
    if TENSOR in (left, right):
        return TENSOR
    return SCALAR if left == right == SCALAR else UNKNOWN


def _combine_values(kinds: List[str]) -> str:
    if not kinds:
        return UNKNOWN
    if TENSOR in kinds:
        return TENSOR
    return SCALAR if all(k == SCALAR for k in kinds) else UNKNOWN
