"""Casts and conversions: is a value a dtype or a device (`dtype_like`, `device_like`, `value_kind`),
and what a cast converts to (`cast_target`)."""

from __future__ import annotations

from typing import Dict, List, Optional, Tuple

import libcst as cst

from castlint.analysis.dataflow.shared import DEVICE, DTYPE, TENSOR, UNKNOWN, _annotation_kind
from castlint.analysis.tree import dotted


class Casts:
    def dtype_like(self, expr: cst.BaseExpression) -> bool:
        t = self.tables
        if isinstance(expr, cst.Subscript):  # options["dtype"]: what is stored under the key
            keyed = self.keyed_values(expr)
            return bool(keyed) and all(self.dtype_like(v) for v in keyed)
        text = dotted(expr)
        if text is None:
            return False
        if text.startswith("torch.") and text.split(".", 1)[1] in t.torch_dtypes:
            return True
        last = text.rsplit(".", 1)[-1]
        return self._has_word(last, t.dtype_words)

    def device_like(self, expr: cst.BaseExpression) -> bool:
        return self.value_kind(expr) == DEVICE

    def value_kind(self, expr: cst.BaseExpression, depth: int = 0) -> str:
        """What a `.to()` argument holds: DTYPE, DEVICE, TENSOR or UNKNOWN, by its value
        where the file shows it (`dev = torch.device(...)`, `self.gpu_id = 0`, a parameter
        annotated int), else by its spelling."""
        key = ("value", id(expr))
        if key in self._kind_cache:
            return self._kind_cache[key]
        self._kind_cache[key] = UNKNOWN
        result = self._value_kind(expr, depth + 1) if depth <= 6 else UNKNOWN
        self._kind_cache[key] = result
        return result

    def _value_kind(self, expr: cst.BaseExpression, depth: int) -> str:
        if isinstance(expr, (cst.SimpleString, cst.FormattedString, cst.ConcatenatedString, cst.Integer)):
            return DEVICE
        if self.dtype_like(expr):
            return DTYPE
        if isinstance(expr, cst.Call):
            name = (dotted(expr.func) or "").rsplit(".", 1)[-1]
            if name.endswith(self.tables.device_call_suffixes):
                return DEVICE
            return UNKNOWN
        members = self.enum_value(expr)  # `Precision.BF16.value`, `self.precision.value`: the members' values
        if members:
            kinds = {self.value_kind(v, depth) for v in members}
            return kinds.pop() if len(kinds) == 1 else UNKNOWN
        text = dotted(expr)
        if text is not None and self._has_word(text.rsplit(".", 1)[-1], self.tables.device_words):
            return DEVICE
        kinds: List[str] = []
        if isinstance(expr, cst.Name):
            for assignment in self.reaching(expr):
                node = assignment.node
                param = self.param_of(node)
                if isinstance(param, cst.Param):
                    kinds.append(_annotation_kind(self, param))
                    continue
                if not isinstance(node, cst.Name):
                    kinds.append(UNKNOWN)
                    continue
                kind, value, path = self.binding(node)
                kinds.append(self.value_kind(value, depth) if kind == "assign" and not path else UNKNOWN)
        elif isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name) and expr.value.value == "self":
            cls = self.enclosing_class(expr)
            values = self.self_attr_values(cls, expr.attr.value) if cls is not None else []
            kinds = [self.value_kind(v, depth) for v in values]
        elif isinstance(expr, cst.IfExp):
            kinds = [self.value_kind(expr.body, depth), self.value_kind(expr.orelse, depth)]
        elif isinstance(expr, cst.BooleanOperation):  # `dtype or self.compute_dtype`: either operand
            kinds = [self.value_kind(expr.left, depth), self.value_kind(expr.right, depth)]
        if kinds and all(k == kinds[0] for k in kinds) and kinds[0] in (DTYPE, DEVICE, TENSOR):
            return kinds[0]
        return UNKNOWN

    def cast_target(self, call: cst.Call) -> Optional[str]:
        """The dtype a call converts to (as written), or None if it is no dtype cast.
        `x.m(...)` and the unbound `torch.Tensor.m(x, ...)` forms."""
        receiver, method, args = self.method_parts(call)
        if method is None:
            return None
        spelling = self.tables.casts.get(method)
        if spelling is None or spelling.method in self.tables.reinterpret_methods:
            return None
        if receiver is None:
            return None
        positional, keywords = self.expanded_args(args)
        if spelling.form == "no-args":
            return spelling.target if not args else None
        keyword, is_tensor = spelling.keyword_target(keywords)
        if spelling.form in ("one-arg", "tensor-arg"):
            first = positional[0] if positional else keyword
            if first is None:
                return None
            tensor = spelling.form == "tensor-arg" or (not positional and is_tensor)
            return f"{self.code(first)}.dtype" if tensor else self.code(first)
        # form "to"
        if keyword is not None and not is_tensor:
            return self.code(keyword)
        kinds = [self.value_kind(value) for value in positional]
        for value, kind in zip(positional, kinds):
            if kind == DTYPE:
                return self.code(value)
        if positional and kinds[0] != DEVICE:
            if isinstance(positional[0], (cst.Name, cst.Attribute, cst.Subscript, cst.Call)):
                return f"{self.code(positional[0])}.dtype"
        if keyword is not None and not positional:  # `.to(other=q)`: q's dtype
            return f"{self.code(keyword)}.dtype"
        return None

    def expanded_args(self, args) -> Tuple[List[cst.BaseExpression], Dict[str, cst.BaseExpression]]:
        """(positional values, keyword values) of a call's arguments, with `*x` and `**x`
        expanded where the file shows what they hold: a tuple display (through names and
        attributes of any object), a dict display with constant keys, or the `**kwargs` of
        the function whose call is being followed."""
        positional: List[cst.BaseExpression] = []
        keywords: Dict[str, cst.BaseExpression] = {}
        for arg in args:
            if arg.keyword is not None:
                keywords[arg.keyword.value] = arg.value
            elif arg.star == "*":
                positional.extend(self._starred_values(arg.value))
            elif arg.star == "**":
                keywords.update(self._double_starred_values(arg.value))
            else:
                positional.append(arg.value)
        return positional, keywords

    def _starred_values(self, expr: cst.BaseExpression) -> List[cst.BaseExpression]:
        frame = self._star_frame(expr)
        if frame is not None:  # `t.to(*args)` under a followed call: the call's further positional arguments
            return frame
        iterated = self.protocol_sequence(expr)
        if iterated is not None:  # `*LayerPair(pool, i)` of a class whose `__iter__` hands back (k, v)
            return iterated
        sources = [expr] if isinstance(expr, (cst.Tuple, cst.List)) else (self._container_sources(expr, 0) or [])
        for source in sources:
            if isinstance(source, cst.Call):  # `self.pair = attrgetter("dtype", "dtype")(runner)`: what it gives
                source = next(iter(self._container_sources(source, 1) or ()), source)
            if isinstance(source, (cst.Tuple, cst.List)) and not any(
                isinstance(e, cst.StarredElement) for e in source.elements
            ):
                return [e.value for e in source.elements]
        return self._kv_halves(expr)

    def _kv_halves(self, expr: cst.BaseExpression) -> List[cst.BaseExpression]:
        """[expr[0], expr[1]] when expr is a (K, V) pair the tables describe: what an accessor
        returning a tuple gives (`*pool.get_kv_buffer(i)`), one entry of an entry list
        (`*cache_engine.gpu_cache[i]`: lmdeploy's (k_cache, v_cache)); [] otherwise."""
        pair = False
        if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute):
            accessor = self.tables.accessors.get(expr.func.attr.value)
            pair = accessor is not None and accessor.returns == "tuple"
        elif isinstance(expr, cst.Subscript) and len(expr.slice) == 1 and isinstance(expr.slice[0].slice, cst.Index):
            holder = expr.value
            pair = isinstance(holder, cst.Attribute) and holder.attr.value in self.tables.cache_entry_lists
        if not pair:
            return []
        halves = self.__dict__.setdefault("_halves", {})
        found = halves.get(id(expr))
        if found is None:
            found = halves[id(expr)] = [
                cst.Subscript(expr, [cst.SubscriptElement(cst.Index(cst.Integer(str(j))))]) for j in (0, 1)
            ]
            for part in found:
                self.parents.setdefault(part, self.parents.get(expr))
        return found

    def _star_frame(self, expr: cst.BaseExpression) -> Optional[List[cst.BaseExpression]]:
        """What `*args` holds when expr is the `*args` parameter of a function whose call is
        being followed (call_conversions): the call's positional arguments past the named ones
        (None when expr is no such parameter, or one of them is itself unpacked)."""
        if not isinstance(expr, cst.Name) or not self._frames:
            return None
        for assignment in self.reaching(expr):
            node = assignment.node
            param = self.param_of(node)
            if not isinstance(param, cst.Param):
                return None
            owner = self._param_owner(param)
            if not isinstance(owner, (cst.FunctionDef, cst.Lambda)) or owner.params.star_arg is not param:
                return None
            for target, call in reversed(self._frames):
                if target is owner:
                    skip = (
                        isinstance(owner, cst.FunctionDef)
                        and self.method_class(owner) is not None
                        and isinstance(call.func, cst.Attribute)
                    )
                    positional = [a for a in call.args if a.keyword is None]
                    extra = positional[len(self._positional_params(owner, skip)) :]
                    if any(a.star for a in extra):
                        return None
                    return [a.value for a in extra]
            return None
        return None

    def _double_starred_values(self, expr: cst.BaseExpression, depth: int = 0) -> Dict[str, cst.BaseExpression]:
        out: Dict[str, cst.BaseExpression] = {}
        if isinstance(expr, cst.Name):  # `kw["k"] = v` / `kw.setdefault("k", v)` into a local dict
            for key, values in self.stored_keywords(expr).items():
                out.setdefault(key, self.either(values, expr))
        for holder in self._held_values(expr):
            if isinstance(holder, cst.Dict):
                for element in reversed(holder.elements):  # later keys win
                    if isinstance(element, cst.DictElement) and isinstance(element.key, cst.SimpleString):
                        key = element.key.evaluated_value
                        if isinstance(key, str):
                            out.setdefault(key, element.value)
                    elif isinstance(element, cst.StarredDictElement) and depth < 3:  # `{**base, "dtype": d}`
                        for key, value in self._double_starred_values(element.value, depth + 1).items():
                            out.setdefault(key, value)
            elif isinstance(holder, cst.Call):  # `**dict(k=a)`
                for key, value in (self.dict_keywords(holder) or {}).items():
                    out.setdefault(key, value)
            elif isinstance(holder, tuple):  # `**rec._asdict()`: the record's fields by name
                cls = self.instance_class(holder[0])
                for name in self.record_fields(cls) if cls is not None and self.is_record(cls) else ():
                    out.setdefault(name, self._attribute(holder[0], name))
            elif isinstance(holder, cst.Param):
                func = self._param_owner(holder)
                for target, call in reversed(self._frames):
                    if target is func:
                        for arg in call.args:
                            if arg.keyword is not None:
                                out.setdefault(arg.keyword.value, arg.value)
                        break
        return out
