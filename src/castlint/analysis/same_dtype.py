"""Casts to the dtype a buffer is allocated in: no conversion.

`pool.get_qsa_key_state_buffer(i).to(pool.index_state_dtype)` of a ring allocated with
`torch.zeros(..., dtype=self.index_state_dtype)` returns the buffer unchanged. Where the
analysis sees a pool's allocation dtype and the cast's target is the same value, the cast is
no whole-pool conversion (CL001 does not report it):

- the allocation dtype: a learnt accessor's (castlint.analysis.pool_classes records the
  `dtype=` of the `[allocation]` calls stored in the buffers it returns, as spelled in the
  pool class: `self.<attribute>`, or a `torch.<dtype>` constant, with the class body's
  `<attribute> = torch.<dtype>` read through), read at the call as `<receiver>.<attribute>`;
  or a `self.` buffer of the checked class (`DataFlow.allocated_dtype`, through per-layer
  lists of allocations);
- the value cast: followed back through the one flow model's reaching assignments, views,
  reshapes and subscripts to the accessor calls or buffers; every one must have the target
  dtype (a parameter counts only where the flow model says a pool reaches it);
- the target: the same expression (`pool.index_state_dtype`), or the same `torch.<dtype>`
  constant, through a local name assigned once.

Anything unresolved keeps the finding: a cast whose source dtype is unknown converts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, List, Optional, Set

import libcst as cst

if TYPE_CHECKING:
    from castlint.analysis.dataflow import ModuleAnalysis

_MAX_DEPTH = 12


def _spelled(analysis: "ModuleAnalysis", expr: cst.BaseExpression, depth: int = 0) -> Set[str]:
    """The spellings of a dtype expression: its code, and where a local name is assigned
    once, the assigned value's."""
    out = {analysis.code(expr)}
    if isinstance(expr, cst.Attribute) and depth < 3:
        out |= _attribute_constant(analysis, expr)
    if isinstance(expr, cst.Name) and depth < 3:
        for assignment in analysis.reaching(expr):
            if isinstance(assignment.node, cst.Name):
                kind, value, path = analysis.binding(assignment.node)
                if kind == "assign" and not path and value is not None:
                    out |= _spelled(analysis, value, depth + 1)
    return out


def _attribute_constant(analysis: "ModuleAnalysis", expr: cst.Attribute) -> Set[str]:
    """`self.compute_dtype` whose every store in the class family is one `torch.<dtype>` constant: that
    constant; an empty set otherwise (a parameter, two dtypes, no store seen)."""
    if not (isinstance(expr.value, cst.Name) and expr.value.value == "self"):
        return set()
    cls = analysis.enclosing_class(expr)
    values = analysis.instance_attr_values(cls, expr.attr.value) if cls is not None else []
    spelled = {analysis.code(v) for v in values}
    if len(spelled) != 1 or not next(iter(spelled)).startswith("torch.") or not analysis.dtype_like(values[0]):
        return set()
    return spelled


def _allocation_dtypes(analysis: "ModuleAnalysis", expr: cst.BaseExpression, depth: int) -> Optional[Set[str]]:
    """The dtype spellings the value of expr is allocated with (each source must have one
    of them: the set of the first, narrowed by the others); None when some source's dtype
    is unknown; an empty set when nothing whole reaches expr."""
    if depth > _MAX_DEPTH:
        return None
    tables = analysis.tables
    if isinstance(expr, cst.Subscript):
        return _allocation_dtypes(analysis, expr.value, depth + 1)
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute):
        method = expr.func.attr.value
        accessor = tables.accessors.get(method)
        if accessor is not None:
            spellings = getattr(accessor, "dtype", ()) or ()
            if not spellings or analysis.return_targets(expr):
                return _method_dtypes(analysis, expr, depth)  # (a pool class of this module says)
            receiver = analysis.code(expr.func.value)
            return {f"{receiver}.{s[len('self.') :]}" if s.startswith("self.") else s for s in spellings}
        if (
            (method in tables.view_methods or method in tables.tuple_view_methods)
            and method not in tables.reinterpret_methods
            and analysis.cast_target(expr) is None
        ):
            return _allocation_dtypes(analysis, expr.func.value, depth + 1)
        return _method_dtypes(analysis, expr, depth)
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name):
        # a held accessor (`getter = getattr(engine, "value_cache")`; `getter(i)`): the accessor's
        return _held_call_dtypes(analysis, expr, depth)
    if isinstance(expr, cst.Attribute):
        if isinstance(expr.value, cst.Name) and expr.value.value == "self":
            found = analysis.allocated_dtype(expr)
            if found is None:
                found = _listed_dtype(analysis, expr)
            if found is None:
                found = _family_dtype(analysis, expr)
            if found is not None and found.isidentifier():
                return _init_argument_dtypes(analysis, expr, found)
            if found is None or not found.startswith(("self.", "torch.")):
                return None  # a local of the allocating method means nothing here
            return {found}
        return _other_object_dtypes(analysis, expr)
    if isinstance(expr, cst.Name):
        from castlint.analysis.dataflow import Origin

        assignments = analysis.reaching(expr)
        if not assignments:
            return None
        common: Optional[Set[str]] = None
        for assignment in assignments:
            node = assignment.node
            param = node if isinstance(node, cst.Param) else analysis.parents.get(node)
            if isinstance(param, cst.Param):
                if analysis._param_origin(param, depth + 1) < Origin.POOL_TUPLE:
                    continue  # no pool arrives here: nothing whole is converted through it
                found = _passed_dtypes(analysis, param, depth + 1)  # the callers' pools
            elif not isinstance(node, cst.Name):
                return None
            else:
                kind, value, path = analysis.binding(node)
                if kind == "assign" and value is not None and len(path) == 1 and isinstance(path[0], int):
                    # `kb, vb = self.pool.buffer(i)`: the element the file shows at that position
                    found = _elements_dtypes(analysis, value, path[0], depth + 1)
                    if found is None:
                        return None
                    common = set(found) if common is None else common & found
                    if not common:
                        return None
                    continue
                if kind != "assign" or path or value is None:
                    return None
                if analysis.origin(value) < Origin.POOL_TUPLE:
                    continue  # a batch tensor (`source_keys = token_k`): nothing whole converted
                found = _allocation_dtypes(analysis, value, depth + 1)
            if found is None:
                return None
            common = set(found) if common is None else common & found
            if not common:
                return None
        return common or None
    return None


def _family_dtype(analysis: "ModuleAnalysis", expr: cst.Attribute) -> Optional[str]:
    """`self.v_buffer` stored only by a base (or a subclass) of the checked class: the `dtype=` every
    store of the class family allocates with, as spelled there; None when two differ or one is unknown."""
    cls = analysis.enclosing_class(expr)
    found: Set[str] = set()
    for value in analysis.instance_attr_values(cls, expr.attr.value) if cls is not None else ():
        if isinstance(value, (cst.ListComp, cst.GeneratorExp)):
            value = value.elt
        dtype = analysis.allocated_dtype_expr(value) if isinstance(value, cst.Call) else None
        if dtype is None:
            return None
        found.add(analysis.code(dtype))
    return next(iter(found)) if len(found) == 1 else None


def _other_object_dtypes(analysis: "ModuleAnalysis", expr: cst.Attribute) -> Optional[Set[str]]:
    """`self.pool.v_buffer` (`group.pool.v_buffer`) where the flow model knows the object's class: the
    dtype every store of that attribute in the class allocates with (per-layer lists too), `self.` read
    as the object; None when one is unknown."""
    owner = analysis.instance_class(expr.value) or _field_annotation_class(analysis, expr.value)
    if owner is None:
        return None
    holder = analysis.code(expr.value)
    common: Optional[Set[str]] = None
    for value in analysis.instance_attr_values(owner, expr.attr.value):
        if isinstance(value, (cst.ListComp, cst.GeneratorExp)):
            value = value.elt
        dtype = analysis.allocated_dtype_expr(value) if isinstance(value, cst.Call) else None
        if dtype is None:
            return None
        text = analysis.code(dtype)
        if text.startswith("self."):
            found = {f"{holder}.{text[len('self.') :]}"}
        elif text.startswith("torch."):
            found = {text}
        else:
            return None  # a parameter of the allocating method
        common = found if common is None else common & found
        if not common:
            return None
    return common


def _field_annotation_class(analysis: "ModuleAnalysis", expr: cst.BaseExpression) -> Optional[cst.ClassDef]:
    """`self.pool` where the class (or a base) declares `pool: SplitPool` in its body (a dataclass field):
    that class of the module."""
    if not (isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name) and expr.value.value == "self"):
        return None
    cls = analysis.enclosing_class(expr)
    for member in analysis.class_mro(cls) if cls is not None else ():
        for line in member.body.body:
            for small in getattr(line, "body", ()) if isinstance(line, cst.SimpleStatementLine) else ():
                if isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name):
                    if small.target.value == expr.attr.value:
                        return analysis.annotation_class(small.annotation)
    return None


def _named_method_returns(analysis: "ModuleAnalysis", call: cst.Call) -> List[cst.FunctionDef]:
    """`obj.m(...)` of an object whose class the flow model does not know: every method m of the module's
    classes (the defs the flow model reads it as running)."""
    if not isinstance(call.func, cst.Attribute):
        return []
    name = call.func.attr.value
    found = [analysis.class_methods(c).get(name) for c in analysis.module_classes().values()]
    return [f for f in found if isinstance(f, cst.FunctionDef)]


def _elements_dtypes(analysis: "ModuleAnalysis", value, index: int, depth: int) -> Optional[Set[str]]:
    """The allocation dtypes of element `index` of value, through the element structure the file
    shows (ObjectFlow.element_values: a helper's or a method's returned tuple); None when unknown."""
    elements = analysis.element_values(value, index)
    if not elements and _one_dtype_accessor(analysis, value):
        return _allocation_dtypes(analysis, value, depth + 1)  # `kb, vb = pool.get_kv_buffer(i)`: its dtype
    receiver = None
    if not elements and isinstance(value, cst.Call):
        # a returned tuple display's element at that position; any other returned value's every
        # leaf (both branches of a conditional): one dtype for all
        targets = [t for t, _, _ in analysis.return_targets(value)] or _named_method_returns(analysis, value)
        elements = [
            leaf
            for target in targets
            if isinstance(target, cst.FunctionDef)
            for returned in analysis._return_values(target)
            for leaf in _positional_leaves(returned, index)
        ]
        receiver = value.func.value if isinstance(value.func, cst.Attribute) else None
    if not elements:
        return None
    common: Optional[Set[str]] = None
    for element in elements:
        found = _allocation_dtypes(analysis, element, depth + 1)
        if found is not None and any(d.startswith("self.") for d in found):
            if receiver is None:
                return None
            holder = analysis.code(receiver)  # the method's `self.d`: the receiver's
            found = {f"{holder}.{d[len('self.') :]}" if d.startswith("self.") else d for d in found}
        if found is None:
            return None
        common = set(found) if common is None else common & found
        if not common:
            return None
    return common


def _one_dtype_accessor(analysis: "ModuleAnalysis", value) -> bool:
    """Is value a call of a table accessor whose several buffers share the dtype it names (rules/accessors.toml
    `one_dtype` with `dtype`)?"""
    if not isinstance(value, cst.Call) or not isinstance(value.func, cst.Attribute):
        return False
    accessor = analysis.tables.accessors.get(value.func.attr.value)
    return accessor is not None and accessor.one_dtype and bool(accessor.dtype)


def _positional_leaves(expr: cst.BaseExpression, index: int) -> List[cst.BaseExpression]:
    """The value a returned expression unpacks to at position index: a tuple display's element there;
    every leaf of anything else (a conditional's branches are read the same way)."""
    if isinstance(expr, cst.IfExp):
        return _positional_leaves(expr.body, index) + _positional_leaves(expr.orelse, index)
    if isinstance(expr, (cst.Tuple, cst.List)) and not any(isinstance(e, cst.StarredElement) for e in expr.elements):
        return [expr.elements[index].value] if index < len(expr.elements) else []
    return _leaves(expr)


def _leaves(expr: cst.BaseExpression) -> List[cst.BaseExpression]:
    if isinstance(expr, (cst.Tuple, cst.List)):
        return [leaf for e in expr.elements for leaf in _leaves(e.value)]
    if isinstance(expr, cst.IfExp):
        return _leaves(expr.body) + _leaves(expr.orelse)
    return [expr]


def _init_argument_dtypes(analysis: "ModuleAnalysis", expr: cst.Attribute, name: str) -> Optional[Set[str]]:
    """`self.k = [torch.zeros(..., dtype=dtype) ...]` with dtype a parameter of the class's own
    `__init__`: the `torch.<dtype>` every visible call binding it passes (its constructions and a
    subclass's `super().__init__(..., torch.float8_e5m2)`, at least one); None when a call passes
    another or no subclass passes one."""
    cls = analysis.enclosing_class(expr)
    init = param = None
    for member in analysis.class_mro(cls) if cls is not None else ():
        # the first `__init__` of the MRO that takes the name: a base allocating with its parameter
        init = analysis.class_methods(member).get("__init__")
        p = init.params if init is not None else None
        param = (
            next((q for q in (*p.posonly_params, *p.params, *p.kwonly_params) if q.name.value == name), None)
            if p
            else None
        )
        if param is not None:
            cls = member
            break
    if init is None or param is None:
        return None
    calls = [c for c in analysis.constructor_calls(cls) if analysis.constructed_class(c) is not None]
    calls = [c for c in calls if analysis.find_method(analysis.constructed_class(c), "__init__") is init]
    supers = analysis.super_calls(init)
    if not supers:
        return None  # (only then: the pruner analyses such a file whole, prune._dtype_to_base_init)
    calls += supers
    common: Optional[Set[str]] = None
    for call in calls:
        argument = analysis._argument_for(call, init, param, skip_self=True)
        if argument is None:
            return None
        spelled = {s for s in _spelled(analysis, argument) if s.startswith("torch.")}
        if not spelled:
            return None
        common = spelled if common is None else common & spelled
        if not common:
            return None
    return common


def _method_dtypes(analysis: "ModuleAnalysis", call: cst.Call, depth: int) -> Optional[Set[str]]:
    """The allocation dtypes of what `obj.m(...)` returns, where m is a method of a class of this
    module (an accessor the engine's pool class defines): every `return` of every def the call may
    run, `self.` read as the receiver; None when one is unknown or it runs no def of the module."""
    targets = analysis.return_targets(call)
    receiver = analysis.code(call.func.value)
    common: Optional[Set[str]] = None
    for target, _, env in targets:
        if env is not None or not isinstance(target, cst.FunctionDef):
            return None
        for value in analysis._return_values(target):
            found = _allocation_dtypes(analysis, value, depth + 1)
            if found is None:
                return None
            found = {f"{receiver}.{d[len('self.') :]}" if d.startswith("self.") else d for d in found}
            common = set(found) if common is None else common & found
            if not common:
                return None
    return common


def _held_call_dtypes(analysis: "ModuleAnalysis", call: cst.Call, depth: int) -> Optional[Set[str]]:
    """The allocation dtypes of a call of a name that holds a bound method (a getattr with a
    constant name, `self._get = pool.get_key_buffer`): read as the direct call `obj.m(...)` of
    every form it may hold; None when one of them is unknown or binds arguments."""
    forms = analysis.callable_values(call.func)
    if not forms:
        return None
    cache = analysis.__dict__.setdefault("_held_direct_calls", {})
    common: Optional[Set[str]] = None
    for form, bound in forms:
        if bound or not isinstance(form, cst.Attribute):
            return None
        key = (id(call), id(form))
        direct = cache.get(key)
        if direct is None:
            direct = cst.Call(func=form, args=call.args)
            analysis.parents.setdefault(direct, analysis.parents.get(call))
            cache[key] = direct
        found = _allocation_dtypes(analysis, direct, depth + 1)
        if found is None:
            return None
        common = set(found) if common is None else common & found
        if not common:
            return None
    return common


def _passed_dtypes(analysis: "ModuleAnalysis", param: cst.Param, depth: int) -> Optional[Set[str]]:
    """A method parameter that the class's own `self.method(...)` calls feed with a pool: the
    dtypes of what every call passes, spelled in the method (`pool.d` where the call's `p.d`
    is of the `p` it passes as the method's `pool`); None when a caller is not seen."""
    owner = analysis._param_owner(param)
    if not isinstance(owner, cst.FunctionDef) or analysis.cache_parameter(owner, param.name.value) is not None:
        return None
    cls = analysis.method_class(owner)
    if cls is None:
        return None
    analysis._index_class(cls)
    calls = analysis._method_calls.get((id(cls), owner.name.value), [])
    if not calls:
        return None
    p = owner.params
    others = [q for q in (*p.posonly_params, *p.params, *p.kwonly_params) if q is not param]
    common: Optional[Set[str]] = None
    for call in calls:
        argument = analysis._argument_for(call, owner, param, skip_self=True)
        if argument is None:
            continue  # the default
        found = _allocation_dtypes(analysis, argument, depth + 1)
        if found is None:
            return None
        passed = {}
        for q in others:
            value = analysis._argument_for(call, owner, q, skip_self=True)
            if value is not None:
                passed.setdefault(analysis.code(value), q.name.value)
        spelled = set()
        for spelling in found:
            holder, _, attr = spelling.rpartition(".")
            if spelling.startswith("torch."):
                spelled.add(spelling)
            elif holder in passed:
                spelled.add(f"{passed[holder]}.{attr}")
        if not spelled:
            return None
        common = spelled if common is None else common & spelled
        if not common:
            return None
    return common


def _listed_dtype(analysis: "ModuleAnalysis", expr: cst.Attribute) -> Optional[str]:
    """`self.k = [torch.zeros(..., dtype=d) for _ in range(n)]`: d (one dtype for every
    allocation stored in the attribute)."""
    cls = analysis.enclosing_class(expr)
    if cls is None:
        return None
    found: List[str] = []
    for value in analysis.self_attr_values(cls, expr.attr.value):
        if isinstance(value, (cst.ListComp, cst.GeneratorExp)):
            value = value.elt
        elif isinstance(value, (cst.List, cst.Tuple)):
            if not value.elements:
                continue  # a placeholder
            return None
        dtype = analysis.allocated_dtype(value) if isinstance(value, cst.Call) else None
        if dtype is None:
            return None
        found.append(dtype)
    return found[0] if found and all(d == found[0] for d in found) else None


def _constant_key(expr: cst.BaseExpression) -> bool:
    """An index that selects the same element each time it is read: a constant (`[0]`, `[-1]`,
    `["k"]`) or a name."""
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus):
        expr = expr.expression
    return isinstance(expr, (cst.Integer, cst.SimpleString, cst.Name))


def _plain_value(expr: cst.BaseExpression) -> bool:
    """A name or attribute chain (with constant subscripts): read twice in one call, the same value."""
    while isinstance(expr, (cst.Attribute, cst.Subscript)):
        if isinstance(expr, cst.Subscript) and not all(
            isinstance(e.slice, cst.Index) and _constant_key(e.slice.value) for e in expr.slice
        ):
            return False
        expr = expr.value
    return isinstance(expr, cst.Name)


# -- dtype-keeping derivations: a value whose dtype is another's ----------------------------
#
# `torch.flatten(k_cache, 0, 1).to(k_cache.dtype)`, `getattr(kv, "to")(getattr(kv, "dtype"))`,
# `cast_pair(buf, buf.dtype)` (the callee's parameters bound to the call's arguments),
# `torch.vstack([kb, vb]).to(kb.dtype)` (kb and vb of one accessor whose planes share a dtype):
# the receiver and the target are derived from one value through what keeps a dtype (views other
# than a reinterpret given a dtype, `[views] dtype_keeping_*`, subscripts, getattr of a constant,
# joins of values of one dtype, assignments, a followed call's arguments). Each derivation ends
# at a root: a key that two reads share only where they read one value.


def _frame_call(analysis: "ModuleAnalysis", owner) -> Optional[tuple]:
    """(call, skip_self) of the followed call that runs owner (call_conversions), else None."""
    for target, call in reversed(analysis._frames):
        if target is owner:
            skip = (
                isinstance(owner, cst.FunctionDef)
                and analysis.method_class(owner) is not None
                and isinstance(call.func, cst.Attribute)
                and not _self_passed(analysis, call, owner)
            )
            return call, skip
    return None


def _self_passed(analysis: "ModuleAnalysis", call: cst.Call, owner: cst.FunctionDef) -> bool:
    """Does call pass a method's self explicitly: `f.__wrapped__(self, x)` ([callables]
    unwrapped_attributes), or an instance method called through its class (`Base.m(self, x)`,
    `type(self).m(self, x)`), as return_targets binds them?"""
    func = call.func
    if func.attr.value in analysis.tables.unwrapped_attributes:
        return True
    if analysis.class_bound(owner):
        return False
    return analysis.class_named(func.value) is not None or analysis._class_valued(func.value)


def _bound_argument(analysis: "ModuleAnalysis", param: cst.Param) -> Optional[cst.BaseExpression]:
    """What a parameter holds under the followed call that binds it: the argument passed, or
    the default where the call passes none and unpacks nothing; None when no call binds it."""
    owner = analysis._param_owner(param)
    found = _frame_call(analysis, owner) if owner is not None else None
    if found is None:
        return None
    call, skip = found
    if param is owner.params.star_arg or param is owner.params.star_kwarg:
        return None
    argument = analysis._argument_for(call, owner, param, skip)
    if argument is not None:
        return argument
    if any(a.star for a in call.args) or param.default is None:
        return None
    return param.default


def _name_values(analysis: "ModuleAnalysis", name: cst.Name) -> Optional[List[cst.BaseExpression]]:
    """The expressions a local name holds where it is read: assigned values (a tuple display's
    or a followed `*args`' element where it is unpacked), a followed call's arguments for a
    parameter; None when one of them is unknown."""
    assignments = analysis.reaching(name)
    if not assignments:
        return None
    out: List[cst.BaseExpression] = []
    for assignment in assignments:
        node = assignment.node
        param = node if isinstance(node, cst.Param) else analysis.parents.get(node)
        if isinstance(param, cst.Param):
            bound = _bound_argument(analysis, param)
            if bound is None:
                return None
            out.append(bound)
            continue
        if not isinstance(node, cst.Name):
            return None
        kind, value, path = analysis.binding(node)
        if kind != "assign" or value is None:
            return None
        for index in path or ():
            elements = analysis._star_frame(value) if isinstance(value, cst.Name) else None
            if elements is None and isinstance(value, (cst.Tuple, cst.List)):
                if any(isinstance(e, cst.StarredElement) for e in value.elements):
                    return None
                elements = [e.value for e in value.elements]
            if elements is None or not isinstance(index, int) or not 0 <= index < len(elements):
                return None
            value = elements[index]
        out.append(value)
    return out


def _unpacked_root(analysis: "ModuleAnalysis", name: cst.Name, depth: int) -> Optional[frozenset]:
    """The roots of a name unpacked from a call whose elements share one dtype: the planes of a
    `one_dtype` accessor (`kb, vb = pool.get_kv_buffer(i)`), or the views a tuple view makes of
    one tensor (`k, v = kv_cache.unbind(0)`: its roots)."""
    assignments = analysis.reaching(name)
    if len(assignments) != 1 or not isinstance(assignments[0].node, cst.Name):
        return None
    kind, value, path = analysis.binding(assignments[0].node)
    if kind == "assign" and path and len(path) == 1 and isinstance(path[0], int):
        sliced = _sliced_element_root(analysis, value, path[0], depth)
        if sliced is not None:
            return sliced
    if kind != "assign" or not path or len(path) != 1 or not isinstance(value, cst.Call):
        return None
    t = analysis.tables
    func = value.func
    if isinstance(func, cst.Attribute) and not analysis._is_unbound_receiver(func.value):
        accessor = t.accessors.get(func.attr.value)
        if accessor is not None and getattr(accessor, "one_dtype", False):
            return frozenset({("one dtype", id(value))})
        if func.attr.value in t.tuple_view_methods and accessor is None and not _module_method_call(analysis, func):
            return dtype_roots(analysis, func.value, depth + 1)
    qualified = analysis.call_name(value) or ""
    if qualified in t.tuple_view_functions and value.args and not value.args[0].star:
        return dtype_roots(analysis, value.args[0].value, depth + 1)
    return None


def _sliced_element_root(analysis: "ModuleAnalysis", value, index: int, depth: int) -> Optional[frozenset]:
    """`k_cache, v_cache = past_key_value[:2]` (a slice of a container, from a literal start): element
    start + index of the container, the root `past_key_value[0]` has."""
    if not isinstance(value, cst.Subscript) or len(value.slice) != 1 or not _holds_elements(analysis, value.value):
        return None
    part = value.slice[0].slice
    if not isinstance(part, cst.Slice) or part.step is not None:
        return None
    start = 0 if part.lower is None else (int(part.lower.value) if isinstance(part.lower, cst.Integer) else None)
    if start is None:
        return None
    inner = dtype_roots(analysis, value.value, depth + 1)
    return frozenset(("element", root, f"_[{start + index}]") for root in inner)


def _keeps_dtype_call(analysis: "ModuleAnalysis", call: cst.Call) -> Optional[List[cst.BaseExpression]]:
    """The values whose dtype a call's result has (one for a view or copy, the elements of a
    join), or None where the call may change it."""
    from castlint.analysis.tree import dotted

    t = analysis.tables
    func = call.func
    qualified = analysis.call_name(call) or dotted(func) or ""
    short = func.value if isinstance(func, cst.Name) else None
    functions = (t.view_functions, t.tuple_view_functions, t.narrow_functions)
    if qualified in t.concat_functions or any(qualified in g or short in g for g in functions):
        if not call.args or call.args[0].star or call.args[0].keyword is not None:
            return None
        if qualified not in t.concat_functions:
            return [call.args[0].value]
        joined = call.args[0].value
        if isinstance(joined, (cst.List, cst.Tuple)) and joined.elements:
            if any(isinstance(e, cst.StarredElement) for e in joined.elements):
                return None
            return [e.value for e in joined.elements]
        return None
    if isinstance(func, cst.Attribute) and not analysis._is_unbound_receiver(func.value):
        method = func.attr.value
        if analysis.cast_target(call) is not None:
            return None
        if _module_method_call(analysis, func):
            return None  # `cls.split(kv)`, `self.layout.chunk(kv)`: a def of the module's, no tensor's view
        if method in t.dtype_keeping_methods and not any(analysis.dtype_like(a.value) for a in call.args):
            return [func.value]
        views = (t.view_methods, t.tuple_view_methods, t.narrow_methods, t.select_methods)
        if any(method in group for group in views):
            if method in t.reinterpret_methods and not _shape_args(analysis, call.args):
                return None  # `view(dtype)`: the bytes read as another dtype
            return [func.value]
    return None


def _module_method_call(analysis: "ModuleAnalysis", func: cst.Attribute) -> bool:
    """Does `x.m(...)` run a method of a module class: x a class of the module (`cls`, `Layout`, a class
    held in an attribute) or an instance of one, whose MRO defines m?"""
    receiver, method = func.value, func.attr.value
    owner = analysis.class_named(receiver)
    if owner is None and analysis._class_valued(receiver):
        owner = next(iter(analysis.computed_classes(receiver)), None)
    if owner is None and not (isinstance(receiver, cst.Name) and receiver.value == "self"):
        owner = analysis.instance_class(receiver)
    return owner is not None and analysis.find_method(owner, method) is not None


def _shape_args(analysis: "ModuleAnalysis", args) -> bool:
    """Arguments of a shape (`view(-1, 2, d)`, `view((n, d))`), not of a dtype."""
    if not args:
        return False

    def shape_like(expr) -> bool:
        if isinstance(expr, (cst.Integer, cst.UnaryOperation, cst.BinaryOperation)):
            return True
        if isinstance(expr, (cst.Tuple, cst.List)):
            return all(isinstance(e, cst.Element) and shape_like(e.value) for e in expr.elements)
        return False

    return len(args) > 1 or shape_like(args[0].value)


def dtype_roots(analysis: "ModuleAnalysis", expr: cst.BaseExpression, depth: int = 0) -> frozenset:
    """The roots whose dtype expr's value has (one root unless it joins several values)."""
    if depth > _MAX_DEPTH:
        return frozenset({("code", analysis.code(expr), id(expr))})
    t = analysis.tables
    if isinstance(expr, cst.Subscript):
        inner = dtype_roots(analysis, expr.value, depth + 1)
        if _holds_elements(analysis, expr.value):
            # an element of a container (a per-layer list, a dict of caches and scales): its
            # own dtype, keyed by what selects it
            key = analysis.code(cst.Subscript(cst.Name("_"), expr.slice))
            return frozenset(("element", root, key) for root in inner)
        return inner
    if isinstance(expr, cst.Attribute):
        if expr.attr.value in t.view_attributes or expr.attr.value in t.dtype_keeping_attributes:
            return dtype_roots(analysis, expr.value, depth + 1)
        if _plain_value(expr):
            return frozenset({("code", analysis.code(expr))})
        return frozenset({("node", id(expr))})
    if isinstance(expr, cst.Call):
        func = expr.func
        if isinstance(func, cst.Name) and func.value == "getattr" and len(expr.args) == 2:
            name = analysis.constant_string(expr.args[1].value)
            if name is not None and name.isidentifier() and not expr.args[0].star:
                return dtype_roots(analysis, analysis._attribute(expr.args[0].value, name), depth + 1)
        if isinstance(func, cst.Call):  # getattr(x, "contiguous")(): x.contiguous()
            inner = func
            if (
                isinstance(inner.func, cst.Name)
                and inner.func.value == "getattr"
                and len(inner.args) == 2
                and not inner.args[0].star
            ):
                name = analysis.constant_string(inner.args[1].value)
                if name is not None and name.isidentifier():
                    method = analysis._attribute(inner.args[0].value, name)
                    form = cst.Call(func=method, args=expr.args)
                    analysis.parents.setdefault(form, analysis.parents.get(expr))
                    return dtype_roots(analysis, form, depth + 1)
        sources = _keeps_dtype_call(analysis, expr)
        if sources:
            out: frozenset = frozenset()
            for source in sources:
                out |= dtype_roots(analysis, source, depth + 1)
            return out
        held = _accessor_dtype_root(analysis, expr)
        return held if held is not None else frozenset({("node", id(expr))})
    if isinstance(expr, cst.Name):
        if expr.value == "self":
            return frozenset({("code", "self")})
        one = _unpacked_root(analysis, expr, depth)
        if one is not None:
            return one
        values = _name_values(analysis, expr)
        if values is None:
            ids = frozenset(id(a.node) for a in analysis.reaching(expr))
            return frozenset({("name", expr.value, ids)})
        out = frozenset()
        for value in values:
            out |= dtype_roots(analysis, value, depth + 1)
        return out
    return frozenset({("node", id(expr))})


def _accessor_dtype_root(analysis: "ModuleAnalysis", call: cst.Call) -> Optional[frozenset]:
    """The dtype root of a pool accessor's buffer whose rules/accessors.toml `dtype` is one attribute of
    its receiver (`pool.get_value_buffer(i)` has `pool.dtype`): that attribute, so two buffers of one pool
    (`v_buf.type_as(k_buf)`), or a buffer and its pool's dtype, share it; None for any other call."""
    func = call.func
    if not isinstance(func, cst.Attribute) or not _plain_value(func.value):
        return None
    accessor = analysis.tables.accessors.get(func.attr.value)
    if accessor is None or len(accessor.dtype) != 1 or not accessor.dtype[0].startswith("self."):
        return None
    if not analysis._accessor_receiver_ok(call):
        return None
    attribute = accessor.dtype[0].removeprefix("self.")
    return frozenset({("code", f"{analysis.code(func.value)}.{attribute}")})


def _holds_elements(analysis: "ModuleAnalysis", expr: cst.BaseExpression) -> bool:
    """Is expr a container whose elements may differ in dtype (not a tensor, whose subscripts
    keep its dtype, nor the views one tuple view makes of one tensor)?"""
    from castlint.analysis.origin import Origin

    t = analysis.tables
    if isinstance(expr, cst.Call):
        func = expr.func
        if isinstance(func, cst.Attribute) and func.attr.value in t.tuple_view_methods:
            return False
        if (analysis.call_name(expr) or "") in t.tuple_view_functions:
            return False
    return (
        analysis.origin(expr) == Origin.POOL_TUPLE
        or analysis.dict_like(expr)
        or bool(analysis.element_values(expr, None))
    )


def _target_roots(analysis: "ModuleAnalysis", expr: cst.BaseExpression, depth: int = 0) -> Optional[frozenset]:
    """The roots a dtype argument is the dtype of (`x.dtype`, `getattr(x, "dtype")`, through
    names and a followed call's arguments); an empty set for None; None when unknown."""
    if depth > _MAX_DEPTH:
        return None
    if isinstance(expr, cst.Name) and expr.value == "None":
        return frozenset()
    if isinstance(expr, cst.Attribute) and expr.attr.value == "dtype":
        return dtype_roots(analysis, expr.value, depth + 1)
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name) and expr.func.value == "getattr":
        if len(expr.args) == 2 and not expr.args[0].star and analysis.constant_string(expr.args[1].value) == "dtype":
            return dtype_roots(analysis, expr.args[0].value, depth + 1)
        if (
            len(expr.args) == 2
            and not any(a.star or a.keyword is not None for a in expr.args)
            and analysis._named_in(expr.args[0].value, analysis.tables.dtype_name_modules)
        ):  # `getattr(torch, str(x.dtype).split(".")[-1])`: x's dtype, looked up by its own name
            return _dtype_text_roots(analysis, expr.args[1].value, depth + 1)
        return None
    looked_up = _identity_lookup(analysis, expr)
    if looked_up is not None:  # `SAME[x.dtype]`, `SAME.get(x.dtype, x.dtype)`: the key itself
        found = [_target_roots(analysis, v, depth + 1) for v in looked_up]
        return found[0] if all(f is not None and f == found[0] for f in found) else None
    if isinstance(expr, cst.Name):
        values = _name_values(analysis, expr)
        if not values:
            return None
        found = [_target_roots(analysis, v, depth + 1) for v in values]
        if any(f is None for f in found) or any(f != found[0] for f in found):
            return None
        return found[0]
    return None


def _dtype_text_roots(analysis: "ModuleAnalysis", expr: cst.BaseExpression, depth: int) -> Optional[frozenset]:
    """The roots whose dtype a text names (rules/casts.toml [dtype_names]): `str(x.dtype)`, `repr(...)`,
    `f"{x.dtype}"`, and what text methods with constant arguments (`.split(".")`, `.replace("torch.",
    "")`) and constant subscripts (`[-1]`, `[6:]`) make of it, through names bound once; None when unknown."""
    if depth > _MAX_DEPTH:
        return None
    t = analysis.tables
    if isinstance(expr, cst.Subscript):
        if all(_constant_part(e.slice) for e in expr.slice):
            return _dtype_text_roots(analysis, expr.value, depth + 1)
        return None
    if isinstance(expr, cst.FormattedString):  # `f"{x.dtype}"`: the text of its one expression
        parts = [p for p in expr.parts if not (isinstance(p, cst.FormattedStringText) and not p.value)]
        if len(parts) == 1 and isinstance(parts[0], cst.FormattedStringExpression) and parts[0].format_spec is None:
            return _target_roots(analysis, parts[0].expression, depth + 1)
        return None
    if isinstance(expr, cst.Call):
        args = [a for a in expr.args if not a.star]
        if len(args) != len(expr.args):
            return None
        func = expr.func
        if isinstance(func, cst.Attribute) and func.attr.value in t.dtype_text_methods:
            if all(isinstance(a.value, (cst.SimpleString, cst.Integer)) for a in args):
                return _dtype_text_roots(analysis, func.value, depth + 1)
            return None
        if analysis._named_in(func, t.dtype_text_functions) and len(args) == 1 and args[0].keyword is None:
            return _target_roots(analysis, args[0].value, depth + 1)  # `str(x.dtype)`: "torch.<x's dtype>"
        return None
    if isinstance(expr, cst.Name):
        values = _name_values(analysis, expr)
        if not values or len(values) != 1:
            return None
        return _dtype_text_roots(analysis, values[0], depth + 1)
    return None


def _constant_part(part) -> bool:
    """Is a subscript part a constant index or a slice of constants (`[-1]`, `[6:]`)?"""

    def constant(node) -> bool:
        if node is None or isinstance(node, cst.Integer):
            return True
        return isinstance(node, cst.UnaryOperation) and isinstance(node.expression, cst.Integer)

    if isinstance(part, cst.Index):
        return constant(part.value)
    if isinstance(part, cst.Slice):
        return constant(part.lower) and constant(part.upper) and constant(part.step)
    return False


def _identity_lookup(analysis: "ModuleAnalysis", expr: cst.BaseExpression) -> Optional[List[cst.BaseExpression]]:
    """What a lookup in an identity table can return: `T[k]` is k, `T.get(k, d)` ([containers]
    lookup_methods) k or d (None when no default is given), where T is a mapping display every entry
    of which maps a dtype to itself and that the module never stores into; None for anything else."""
    if isinstance(expr, cst.Subscript) and len(expr.slice) == 1 and isinstance(expr.slice[0].slice, cst.Index):
        table, found = expr.value, [expr.slice[0].slice.value]
    elif isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute):
        if expr.func.attr.value not in analysis.tables.lookup_methods:
            return None
        args = [a.value for a in expr.args if a.keyword is None and not a.star]
        if len(args) != len(expr.args) or not 1 <= len(args) <= 2:
            return None
        table, found = expr.func.value, args + [cst.Name("None")] * (2 - len(args))
    else:
        return None
    return found if isinstance(table, cst.Name) and _identity_table(analysis, table) else None


def _identity_table(analysis: "ModuleAnalysis", name: cst.Name) -> bool:
    """Is name bound only to a dict display each of whose entries maps a dtype to the same dtype
    (`{torch.bfloat16: torch.bfloat16, torch.half: torch.float16}`), never stored into?"""
    values = _name_values(analysis, name)
    if not values or len(values) != 1 or not isinstance(values[0], cst.Dict) or not values[0].elements:
        return False
    aliases = analysis.tables.dtype_aliases
    for entry in values[0].elements:
        if not isinstance(entry, cst.DictElement) or not analysis.dtype_like(entry.key):
            return False
        if _canonical(_spelled(analysis, entry.key), aliases).isdisjoint(
            _canonical(_spelled(analysis, entry.value), aliases)
        ):
            return False
    return name.value not in _mutated_names(analysis)


def _mutated_names(analysis: "ModuleAnalysis") -> Set[str]:
    """Names the module stores into (`T[k] = v`, `del T[k]`, `T[k] += v`) or calls a method of
    other than a lookup ([containers] lookup_methods)."""
    found = analysis.derived.get("mutated_names")
    if found is not None:
        return found
    lookups = analysis.tables.lookup_methods
    found = set()
    for node, parent in analysis.parents.items():
        if isinstance(node, cst.Subscript) and isinstance(node.value, cst.Name):
            if isinstance(parent, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign, cst.Del)):
                found.add(node.value.value)
        elif isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name):
            if isinstance(parent, cst.Call) and parent.func is node and node.attr.value not in lookups:
                found.add(node.value.value)
    analysis.derived["mutated_names"] = found
    return found


def own_dtype_cast(analysis: "ModuleAnalysis", call: cst.Call) -> bool:
    """Is `call` a cast to its receiver's own dtype (through dtype-keeping derivations of one
    root), or one whose dtype argument is None at the followed call (no conversion)?"""
    receiver, method, args = analysis.method_parts(call)
    spelling = analysis.tables.casts.get(method) if method is not None else None
    if receiver is None or spelling is None or spelling.form == "no-args":
        return False
    positional, keywords = analysis.expanded_args(args)
    keyword, is_tensor = spelling.keyword_target(keywords)
    if spelling.form == "to":
        target = None if is_tensor else keyword
        if target is None:
            kinds = [(v, analysis.value_kind(v)) for v in positional]
            target = next((v for v, k in kinds if k == "dtype"), None)
            if target is None and positional and kinds[0][1] != "device":
                target = positional[0]
            if target is None and not positional:
                target = keyword  # `.to(other=t)`: t's dtype
    else:
        target = positional[0] if positional else keyword
    if target is None:
        return False
    if spelling.form == "tensor-arg" or _other_tensor(analysis, spelling, target, is_tensor):
        roots: Optional[frozenset] = dtype_roots(analysis, target)  # `x.type_as(other)`: other's dtype
    else:
        roots = _target_roots(analysis, target)
    if roots is None:
        return False
    if not roots:
        return True  # `.to(None)` / `.to(dtype=None)`: the value itself
    own = dtype_roots(analysis, receiver)
    return len(own) == 1 and own == roots


def _other_tensor(analysis: "ModuleAnalysis", spelling, target: cst.BaseExpression, is_tensor: bool) -> bool:
    """Is a `.to()` target another tensor (`kc.to(vc)`, `.to(other=vc)`: its dtype), known as a tensor
    by its value or by the flow model (some part of a pool reaches it)?"""
    from castlint.analysis.dataflow import TENSOR
    from castlint.analysis.origin import Origin

    if spelling.form != "to":
        return False
    return is_tensor or analysis.value_kind(target) == TENSOR or analysis.origin(target) >= Origin.PREFIX


def same_dtype_cast(analysis: "ModuleAnalysis", call: cst.Call) -> bool:
    """Is `call` (a cast of a whole pool) a cast to the dtype the pool is allocated in?"""
    from castlint.analysis.tree import dotted

    receiver, method, args = analysis.method_parts(call)
    if receiver is None or method is None:
        return False
    if analysis.cast_target(call) == f"{analysis.code(receiver)}.dtype" and _plain_value(receiver):
        return True  # `kb.to(kb.dtype)`, `kb.type_as(kb)`: to its own dtype, whatever it is
    if own_dtype_cast(analysis, call):
        return True
    if _tested_equal(analysis, call, args):
        return True  # under `if kv.dtype == d:` (castlint.analysis.dtype_narrowing)
    positional, keywords = analysis.expanded_args(args)
    spelling = analysis.tables.casts.get(method)
    implied = _no_args_target(analysis, method)
    if implied is not None:
        targets = {implied}  # `.int()` of a pool allocated in torch.int32
    else:
        keyword, is_tensor = spelling.keyword_target(keywords) if spelling is not None else (None, False)
        target = None if is_tensor else keyword
        if target is None:
            if spelling is None or spelling.form not in ("to", "one-arg"):
                return False
            target = next((v for v in positional if dotted(v) is not None), None)
            if target is None or analysis.cast_target(call) != analysis.code(target):
                return False  # `.to(other_tensor)`, a device: not a dtype written out
        targets = _spelled(analysis, target)
    allocated = _allocation_dtypes(analysis, receiver, 0)
    aliases = analysis.tables.dtype_aliases
    return bool(allocated) and bool(_canonical(allocated, aliases) & _canonical(targets, aliases))


def _tested_equal(analysis: "ModuleAnalysis", call: cst.Call, args) -> bool:
    """Is call a cast to a dtype written out (an argument) that a condition over it has shown equal?"""
    from castlint.analysis.dtype_narrowing import dtype_tested_equal

    written = analysis.cast_target(call)
    if written is None:
        return False
    target = next((a.value for a in args if analysis.code(a.value) == written), None)
    if target is not None:
        return dtype_tested_equal(analysis, call, target)
    _receiver, method, _args = analysis.method_parts(call)
    implied = _no_args_target(analysis, method)
    return implied is not None and dtype_tested_equal(analysis, call, None, {implied})  # `.half()`


def _no_args_target(analysis: "ModuleAnalysis", method) -> Optional[str]:
    """The dtype a cast method with no arguments implies (`.half()`: `torch.float16`), from the tables."""
    spelling = analysis.tables.casts.get(method) if method is not None else None
    if spelling is not None and spelling.form == "no-args" and spelling.target:
        return f"torch.{spelling.target}"
    return None


def _canonical(spellings: Set[str], aliases: dict) -> Set[str]:
    """Spellings of dtypes with torch's other names read as the dtype (`torch.half` -> `torch.float16`,
    rules/casts.toml [dtype_aliases])."""
    out = set()
    for text in spellings:
        head, _, name = text.rpartition(".")
        out.add(f"{head}.{aliases[name]}" if head == "torch" and name in aliases else text)
    return out


def copy_keeps_dtype(analysis: "ModuleAnalysis", source: cst.BaseExpression, dtype: cst.BaseExpression) -> bool:
    """Is a whole pool copied (`buf.copy_(source)`, `buf[:] = source`) into a buffer allocated
    with `dtype=dtype` that the pool is allocated in too (a raw mirror: nothing converted)?"""
    allocated = _allocation_dtypes(analysis, source, 0)
    return bool(allocated) and bool(allocated & _spelled(analysis, dtype))
