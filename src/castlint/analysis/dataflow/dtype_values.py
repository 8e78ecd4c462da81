"""The spellings a dtype expression may resolve to (`resolve_value`, for CL002)."""

from __future__ import annotations

from typing import List, Optional, Tuple

import libcst as cst
from libcst.metadata import Assignment

from castlint.analysis.dataflow.shared import MAX_DEPTH


class DtypeValues:
    def _returned_element(self, value: cst.BaseExpression, index) -> Optional[cst.BaseExpression]:
        """Element `index` of what `value` is: a tuple literal, or a method of this class
        (or a module function) with one `return` of a tuple literal."""
        if isinstance(value, cst.Call):
            func, target = value.func, None
            if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self":
                cls = self.enclosing_class(value)
                target = self.find_method(cls, func.attr.value) if cls is not None else None
            returns = self._return_values(target) if isinstance(target, cst.FunctionDef) else []
            value = returns[0] if len(returns) == 1 else None
        if isinstance(value, (cst.Tuple, cst.List)) and isinstance(index, int) and 0 <= index < len(value.elements):
            element = value.elements[index]
            return element.value if isinstance(element, cst.Element) else None
        return None

    def paired_values(self, q: cst.BaseExpression, kv: cst.BaseExpression) -> List[Tuple[tuple, tuple]]:
        """(q sources, kv sources) per alternative of the one tuple unpacking that binds both names
        (`q, kv = self._native() if c else self._same()`, a helper with several `return a, b`): a
        choice between pairs read pair by pair, not element by element; [] otherwise."""
        if not (isinstance(q, cst.Name) and isinstance(kv, cst.Name)):
            return []
        reaching = self.reaching(q), self.reaching(kv)
        if any(len(r) != 1 or not isinstance(r[0].node, cst.Name) for r in reaching):
            return []
        (q_value, q_index), (kv_value, kv_index) = (self.assigned_value(r[0].node) for r in reaching)
        if q_value is None or q_value is not kv_value or q_index is None or kv_index is None:
            return []
        out = []
        for pair in self._pair_alternatives(q_value, 0):
            elements = self._returned_element(pair, q_index), self._returned_element(pair, kv_index)
            if None in elements:
                return []
            out.append(tuple(self.resolve_value(e) for e in elements))
        return out if len(out) > 1 else []

    def _pair_alternatives(self, expr: cst.BaseExpression, depth: int) -> List[cst.BaseExpression]:
        """The values expr may be: each side of a choice, each `return` of the defs a call reaches."""
        if depth > 4:
            return [expr]
        if isinstance(expr, cst.IfExp):
            return [*self._pair_alternatives(expr.body, depth + 1), *self._pair_alternatives(expr.orelse, depth + 1)]
        if isinstance(expr, cst.Call):
            returns = [
                v
                for target, _, _ in self.return_targets(expr)
                if isinstance(target, cst.FunctionDef)
                for v in self._return_values(target)
            ]
            if returns:
                return [alt for v in returns for alt in self._pair_alternatives(v, depth + 1)]
        return [expr]

    def resolve_value(self, expr: cst.BaseExpression, depth: int = 0) -> Tuple[str, ...]:
        """The terminal expressions a dtype argument comes from, as source text."""
        if depth > MAX_DEPTH:
            return (self.code(expr),)
        if isinstance(expr, cst.NamedExpr):  # `(dt := self.data_type)`: what it binds
            return self.resolve_value(expr.value, depth + 1)
        if isinstance(expr, (cst.IfExp, cst.BooleanOperation)):  # `a if c else b`, `a or b`: either
            sides = (expr.body, expr.orelse) if isinstance(expr, cst.IfExp) else (expr.left, expr.right)
            return tuple(sorted({text for side in sides for text in self.resolve_value(side, depth + 1)}))
        if isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name) and expr.value.value == "self":
            cls = self.enclosing_class(expr)
            values = self.self_attr_values(cls, expr.attr.value) if cls is not None else []
            if values:
                out: List[str] = []
                for value in values:
                    out.extend(self.resolve_value(value, depth + 1))
                return tuple(sorted(set(out)))
        if isinstance(expr, cst.Attribute) and not (isinstance(expr.value, cst.Name) and expr.value.value == "self"):
            owner = self.instance_class(expr.value)  # `self.pair.kv`, `rec.kv_data_type`: a record's field
            if owner is not None and self.is_record(owner) and expr.attr.value in self.record_fields(owner):
                values = self.field_values(expr.value, owner, expr.attr.value)
                if values:
                    return tuple(sorted({t for v in values for t in self.resolve_value(v, depth + 1)}))
        if isinstance(expr, cst.Name):
            scope = self.scopes.get(expr)
            if scope is not None:
                # the assignments that reach this use, in statement order (`q_dt, kv_dt = ...` twice)
                assignments = [a for a in self.reaching(expr) if isinstance(a, Assignment)] or [
                    a for a in scope.assignments[expr.value] if isinstance(a, Assignment)
                ]
                values, covered = [], 0
                for a in assignments:
                    if isinstance(a.node, cst.Name):
                        value, index = self.assigned_value(a.node)
                        found = [value] if value is not None and index is None else []
                        if value is not None and index is not None:  # `q, kv = self.dtypes()`
                            element = self._returned_element(value, index)
                            # else by structure: a lambda of a dispatch dict, a helper's tuple
                            found = [element] if element is not None else (self.element_values(value, index) or [])
                        if found:
                            covered += 1
                            values.extend(found)
                if values and covered == len(assignments):
                    out = []
                    for value in values:
                        out.extend(self.resolve_value(value, depth + 1))
                    return tuple(sorted(set(out)))
        if (
            isinstance(expr, cst.Subscript) and len(expr.slice) == 1 and isinstance(expr.slice[0].slice, cst.Index)
        ):  # `dts["kv"]` of a dict a helper returns, `pair[1]`
            values = self.keyed_values(expr)
            key = expr.slice[0].slice.value
            if not values and isinstance(key, cst.Integer):
                values = self.element_values(expr.value, int(key.value)) or []
            if values:
                return tuple(sorted({text for value in values for text in self.resolve_value(value, depth + 1)}))
        return (self.code(expr),)
