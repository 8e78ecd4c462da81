"""What introspection attributes of a callable hold (`introspected_values`: a partial's `func`
and `args`, `__closure__`, `__self__`), and the functions a value may be."""

from __future__ import annotations

from typing import Dict, List, Optional

import libcst as cst

from castlint.analysis.tree import iter_nodes


class IntrospectedCallables:
    def introspected_values(self, expr: cst.Attribute, depth: int = 0) -> Optional[List[cst.BaseExpression]]:
        """What an introspection attribute of a callable holds ([callables] partial_*_attributes,
        bound_self_attributes, closure_attributes, cell_value_attributes): `p.args` of `p = partial(f, kv)`
        the tuple `(kv,)`, `p.keywords` a dict display of its keywords, `p.func` f; `obj.m.__self__` obj;
        `fn.__closure__` a tuple of the free variables of the def fn is (sorted by name: a cell per
        variable), whose `cell_contents` is the variable itself. None for any other attribute."""
        t, attr = self.tables, expr.attr.value
        if attr in t.cell_value_attributes:
            return [expr.value]  # a cell stands for its variable
        if attr in t.bound_self_attributes:
            method = expr.value  # `obj.m.__self__`, `bound.__self__` of `bound = obj.m`
            values = [method] if isinstance(method, cst.Attribute) else (self._container_sources(method, depth) or [])
            return [v.value for v in values if isinstance(v, cst.Attribute)] or None
        if attr in t.closure_attributes:
            cells = [self._closure_cells(f) for f in self.function_values(expr.value, depth)]
            return [c for c in cells if c is not None] or None
        if attr in t.partial_func_attributes | t.partial_args_attributes | t.partial_keywords_attributes:
            held = [expr.value] if isinstance(expr.value, cst.Call) else self._container_sources(expr.value, depth)
            partials = [v for v in held or () if isinstance(v, cst.Call) and self._named_in(v, t.partial_callables)]
            return [self._partial_part(p, attr) for p in partials] or None
        return None

    def _partial_part(self, call: cst.Call, attr: str) -> cst.BaseExpression:
        """`.func`, `.args` or `.keywords` of `partial(f, *args, **keywords)` as a node of this module."""
        t = self.tables
        positional = [a for a in call.args if a.keyword is None and not a.star]
        if attr in t.partial_func_attributes and positional:
            return positional[0].value
        cache = self.__dict__.setdefault("_partial_parts", {})
        key = (id(call), attr)
        if key not in cache:
            if attr in t.partial_args_attributes:
                node = cst.Tuple([cst.Element(a.value) for a in positional[1:]])
            else:
                keywords = [a for a in call.args if a.keyword is not None]
                node = cst.Dict([cst.DictElement(cst.SimpleString(repr(a.keyword.value)), a.value) for a in keywords])
            self.parents.setdefault(node, call)
            cache[key] = node
        return cache[key]

    def function_values(self, expr: cst.BaseExpression, depth: int = 0) -> List[cst.CSTNode]:
        """The defs and lambdas expr may evaluate to: a def's name, a name assigned one, what a
        factory returns (`make_reader(k, v)` returning its nested `read`)."""
        if depth > 4:
            return []
        if isinstance(expr, cst.Lambda):
            return [expr]
        if isinstance(expr, cst.Call):
            out: List[cst.CSTNode] = []
            for target, _, _ in self.return_targets(expr, depth + 1):
                returns = [target.body] if isinstance(target, cst.Lambda) else self._return_values(target)
                for value in returns:
                    out.extend(self.function_values(value, depth + 1))
            return out
        if isinstance(expr, cst.Name):
            out = []
            for assignment in self.reaching(expr):
                node = assignment.node
                if isinstance(node, cst.FunctionDef):
                    out.append(node)
                elif isinstance(node, cst.Name):
                    kind, value, path = self.binding(node)
                    if kind == "assign" and not path and value is not None:
                        out.extend(self.function_values(value, depth + 1))
            return out
        return []

    def _closure_cells(self, fn: cst.CSTNode) -> Optional[cst.Tuple]:
        """A tuple of fn's free variables, one use of each, sorted by name (its `__closure__`); None when it
        has none."""
        cache = self.__dict__.setdefault("_closure_cell_tuples", {})
        if id(fn) in cache:
            return cache[id(fn)]
        outer = self.enclosing_function(fn)
        first: Dict[str, cst.Name] = {}
        for name in iter_nodes(fn.body, (cst.Name,)):
            if outer is None or name.value in first:
                continue
            nodes = [a.node for a in self.reaching(name)]
            inside = [n for n in nodes if self._under(n, fn)]
            if nodes and not inside and all(self._under(n, outer) for n in nodes):
                first[name.value] = name
        node = cst.Tuple([cst.Element(first[n]) for n in sorted(first)]) if first else None
        if node is not None:
            self.parents.setdefault(node, fn)
        cache[id(fn)] = node
        return node

    def _under(self, node: cst.CSTNode, ancestor: cst.CSTNode) -> bool:
        while node is not None:
            if node is ancestor:
                return True
            node = self.parents.get(node)
        return False
