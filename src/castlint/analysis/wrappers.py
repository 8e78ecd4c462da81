"""Which attention wrapper a plan() call belongs to, and the dtypes it passes.

The wrappers, their plan methods and their dtype parameters (by position and
keyword, per version) are data: rules/flashinfer.toml.
"""

from __future__ import annotations

from typing import Dict, List, Optional, Tuple

import libcst as cst

from castlint.analysis.dataflow import ModuleAnalysis
from castlint.analysis.tree import dotted, iter_nodes
from castlint.tables import Wrapper


def _annotation_classes(analysis: ModuleAnalysis, receiver: cst.BaseExpression) -> Optional[Tuple[str, ...]]:
    """The classes named in the annotation of a parameter (every member of a `Union[...]`,
    `Optional[...]` or `A | B`, as sglang <= 0.4.3 annotates its decode/MLA wrappers), or
    in `x = Class(...)`."""
    if isinstance(receiver, cst.Name):
        scope = analysis.scopes.get(receiver)
        if scope is None:
            return None
        for assignment in scope.assignments[receiver.value]:
            node = getattr(assignment, "node", None)
            param = node if isinstance(node, cst.Param) else analysis.parent(node) if node is not None else None
            if isinstance(param, cst.Param) and param.annotation is not None:
                return _classes_named(analysis, param.annotation.annotation)
            if isinstance(node, cst.Name):
                value, _ = analysis.assigned_value(node)
                if isinstance(value, cst.Call) and not _object_method_call(analysis, value):
                    name = (dotted(value.func) or "").rsplit(".", 1)[-1]
                    return (name,) if name else None
    if isinstance(receiver, cst.Attribute) and isinstance(receiver.value, cst.Name) and receiver.value.value == "self":
        cls = analysis.enclosing_class(receiver)
        if cls is not None:
            for value in analysis.self_attr_values(cls, receiver.attr.value):
                if isinstance(value, cst.Call) and not _object_method_call(analysis, value):
                    name = (dotted(value.func) or "").rsplit(".", 1)[-1]
                    return (name,) if name else None
    return None


def _object_method_call(analysis: ModuleAnalysis, call: cst.Call) -> bool:
    """Is call a method of an object a parameter holds (`model_runner.make_mla_wrapper()`): a factory
    whose class the file does not show, not a constructor naming one? Then the call decides."""
    root = call.func
    while isinstance(root, cst.Attribute):
        root = root.value
    if root is call.func or not isinstance(root, cst.Name):
        return False
    scope = analysis.scopes.get(root)
    assignments = scope.assignments[root.value] if scope is not None else ()
    return any(isinstance(getattr(a, "node", None), cst.Param) for a in assignments)


_TYPING_WRAPPERS = {"Union", "Optional", "typing", "List", "Tuple", "Sequence", "None", "Type"}


def _classes_named(analysis: ModuleAnalysis, annotation: cst.BaseExpression) -> Tuple[str, ...]:
    if isinstance(annotation, cst.SimpleString):
        text = annotation.evaluated_value if isinstance(annotation.evaluated_value, str) else ""
        parts = [
            p.strip()
            for p in text.replace("Union[", ",")
            .replace("Optional[", ",")
            .replace("]", ",")
            .replace("|", ",")
            .split(",")
        ]
        return tuple(p.rsplit(".", 1)[-1] for p in parts if p and p.rsplit(".", 1)[-1] not in _TYPING_WRAPPERS)
    text = dotted(annotation)
    if text is not None:
        return (text.rsplit(".", 1)[-1],)
    out = []
    for node in iter_nodes(annotation, (cst.Name, cst.Attribute, cst.SimpleString)):
        if isinstance(node, cst.SimpleString):
            out.extend(_classes_named(analysis, node))
        elif (
            isinstance(node, cst.Name)
            and node.value not in _TYPING_WRAPPERS
            and not isinstance(analysis.parent(node), cst.Attribute)
        ):
            out.append(node.value)
        elif isinstance(node, cst.Attribute) and not isinstance(analysis.parent(node), cst.Attribute):
            out.append(node.attr.value)
    return tuple(dict.fromkeys(out))


def match_wrapper(analysis: ModuleAnalysis, call: cst.Call) -> Optional[Wrapper]:
    """The attention wrapper (rules/flashinfer.toml) whose plan() this call is, or None."""
    t = analysis.tables
    if isinstance(call.func, cst.Name):
        return t.wrapper_function(call.func.value)
    if not isinstance(call.func, cst.Attribute):
        return None
    candidates = t.wrapper_for_method(call.func.attr.value)
    if not candidates:
        return None
    positional = [arg for arg in call.args if arg.keyword is None and not arg.star]
    keywords = {arg.keyword.value for arg in call.args if arg.keyword is not None}
    classes = _annotation_classes(analysis, call.func.value)
    if classes is not None:
        named = [w for w in candidates if w.cls in classes]
        # the annotated class whose dtype parameters this call actually passes: sglang
        # <= 0.4.3 annotates a paged-prefill wrapper that is an MLA wrapper under
        # --enable-flashinfer-mla, and calls it with the MLA plan's 12 arguments
        if not named:
            return None
        fitting = [w for w in named if _passes_dtypes(w, positional, keywords)]
        if fitting:
            return fitting[0]
        # none of the annotated wrappers takes the dtypes where this call passes them:
        # tell the wrapper by the call itself, below
    keyworded = [w for w in candidates if keywords & ({w.q_dtype.keyword, w.kv_dtype.keyword} | set(w.aliases))]
    if keyworded:
        return keyworded[0]
    by_arity = [w for w in candidates if w.kv_dtype.index is not None and len(positional) == w.kv_dtype.index + 1]
    if by_arity and len({(w.q_dtype.index, w.kv_dtype.index) for w in by_arity}) == 1:
        return by_arity[0]
    return None


def _passes_dtypes(w: Wrapper, positional, keywords) -> bool:
    """Does a call with these arguments pass w's q dtype (positionally or by keyword)?"""
    if w.q_dtype.keyword in keywords:
        return True
    return w.q_dtype.index is not None and len(positional) > w.q_dtype.index


def dtype_argument(call: cst.Call, wrapper: Wrapper, which: str) -> Optional[cst.BaseExpression]:
    """The expression this call passes as wrapper's q (which="q") or kv dtype, or None."""
    param = wrapper.q_dtype if which == "q" else wrapper.kv_dtype
    names = {param.keyword} | (set(wrapper.aliases) if which == "kv" else set())
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value in names:
            return arg.value
    positional = [arg for arg in call.args if arg.keyword is None and not arg.star]
    if param.index is not None and param.index < len(positional):
        return positional[param.index].value
    return None


def receiver_is_known(analysis: ModuleAnalysis, call: cst.Call, wrapper: Wrapper) -> bool:
    """Is the receiver of this plan() call known to be an instance of wrapper's class?"""
    if isinstance(call.func, cst.Name):
        return True
    return wrapper.cls in (_annotation_classes(analysis, call.func.value) or ())


# -- plan() calls in other forms ---------------------------------------------------------


def resolved_call(analysis: ModuleAnalysis, call: cst.Call, depth: int = 0) -> cst.Call:
    """call as the plain call it amounts to: through a held callable (`functools.partial(w.plan,
    ...)`, `getattr(w, "plan")`, a bound method under another name) its callee and bound
    arguments, `*args` of a tuple or list (a literal, a name bound to one, a helper returning
    one) as positions, `**kwargs` of a dict (`{...}`, `dict(k=v)`, a name bound to one) as
    keywords. The call itself when nothing is to resolve; a synthetic call otherwise (its
    argument values are the module's own nodes)."""
    func, args, changed = call.func, list(call.args), False
    if match_wrapper(analysis, call) is None and isinstance(func, (cst.Name, cst.Attribute)):
        forms = _alike_forms(analysis, analysis.callable_values(func))
        if len(forms) == 1 and isinstance(forms[0][0], cst.Attribute):
            form, bound = forms[0]
            func, args, changed = form, [*bound, *args], True
        elif len(forms) == 1 and _receiver_first(forms[0][0], args):
            # `methodcaller("plan", ...)(w)`: w.plan(...) with the bound arguments (a call by a name held as data)
            (_, method), bound = forms[0]
            func = cst.Attribute(value=args[0].value, attr=cst.Name(method))
            analysis.parents.setdefault(func, analysis.parents.get(args[0].value))
            args, changed = [*bound, *args[1:]], True
    unbound = _unbound_plan(analysis, func, args)
    if unbound is not None:  # `BatchMLAPagedAttentionWrapper.plan(w, ...)`, its partial: `w.plan(...)`
        func, args, changed = *unbound, True
    expanded: List[cst.Arg] = []
    for arg in args:
        parts = _star_parts(analysis, arg, depth) if arg.star else None
        if parts is None:
            expanded.append(arg)
        else:
            expanded.extend(parts)
            changed = True
    aligned = _tail_aligned(analysis, func, expanded)
    if aligned is not None:  # `w.plan(*geometry, q_dt, kv_dt)`: the last positions are the dtypes'
        expanded, changed = aligned, True
    if not changed:
        return call
    # positions first: `f(k=1, *args)` passes args by position before the keyword
    expanded = [a for a in expanded if a.keyword is None and a.star != "**"] + [
        a for a in expanded if a.keyword is not None or a.star == "**"
    ]
    try:
        synthetic = cst.Call(func=func, args=expanded)
    except cst.CSTValidationError:
        return call
    analysis.parents.setdefault(synthetic, analysis.parents.get(call))
    return synthetic


def _receiver_first(form, args) -> bool:
    """Is form a method called by name on the call's first argument (ObjectFlow's ("method", name) of a
    methodcaller), with that argument a plain position?"""
    return (
        isinstance(form, tuple)
        and len(form) == 2
        and form[0] == "method"
        and bool(args)
        and args[0].keyword is None
        and not args[0].star
    )


def _alike_forms(analysis: ModuleAnalysis, forms: list) -> list:
    """forms, as one when each is the same method of other receivers bound with the same arguments: a loop
    over a display of bound plans (`for plan in (self.prefill_wrapper.plan, self.decode_wrapper.plan)`), or of
    partials binding the same keywords to each wrapper, runs one call of each alike."""
    if len(forms) < 2 or not all(isinstance(f, cst.Attribute) for f, _ in forms):
        return forms
    first, bound = forms[0]
    shape = [analysis.code(a) for a in bound]
    for form, more in forms[1:]:
        if form.attr.value != first.attr.value or [analysis.code(a) for a in more] != shape:
            return forms
    return forms[:1]


def _tail_aligned(analysis: ModuleAnalysis, func, args: List[cst.Arg]) -> Optional[List[cst.Arg]]:
    """args with one `*seq` of unknown length before the last positions padded so that those end at the
    kv dtype's position (the last the plan requires): `w.plan(*geo, q_dt, kv_dt)` passes the dtypes at
    their indices whatever geo holds. Only with two or more positions after it, and a receiver (or the
    module's wrapper classes) that tells one kv position; None otherwise."""
    positional = [a for a in args if a.keyword is None and a.star != "**"]
    unknown = [i for i, a in enumerate(positional) if a.star == "*"]
    if len(unknown) != 1 or not isinstance(func, cst.Attribute):
        return None
    star = unknown[0]
    after = len(positional) - star - 1
    candidates = analysis.tables.wrapper_for_method(func.attr.value)
    classes = _annotation_classes(analysis, func.value)
    if classes is not None:
        candidates = [w for w in candidates if w.cls in classes]
    else:
        candidates = [w for w in candidates if w.cls in analysis.nodes.names]
    indices = {w.kv_dtype.index for w in candidates}
    if after < 2 or len(indices) != 1 or None in indices:
        return None
    pad = indices.pop() + 1 - after - star
    if pad < 0:
        return None
    filler = [cst.Arg(value=cst.Name("None")) for _ in range(pad)]
    rest = [a for a in args if a.keyword is not None or a.star == "**"]
    return positional[:star] + filler + positional[star + 1 :] + rest


def _unbound_plan(analysis: ModuleAnalysis, func, args) -> Optional[tuple]:
    """(`w.plan`, the further arguments) for a wrapper's plan method called through its class with
    the wrapper first (`BatchMLAPagedAttentionWrapper.plan(w, ...)`, and so a partial of the unbound
    method: `partial(BatchMLAPagedAttentionWrapper.plan, w)(...)`); None otherwise."""
    if not isinstance(func, cst.Attribute):
        return None
    owner = dotted(func.value)
    if owner is None:
        return None
    cls = owner.rsplit(".", 1)[-1]
    if not any(w.cls == cls and not w.function for w in analysis.tables.wrapper_for_method(func.attr.value)):
        return None
    if not args or args[0].keyword is not None or args[0].star:
        return None
    method = cst.Attribute(value=args[0].value, attr=func.attr)
    analysis.parents.setdefault(method, analysis.parents.get(args[0].value))
    return method, list(args[1:])


def _bound_value(analysis: ModuleAnalysis, expr: cst.BaseExpression) -> cst.BaseExpression:
    """A name's value where one plain assignment reaches it; else expr."""
    if isinstance(expr, cst.Name):
        reaching = analysis.reaching(expr)
        if len(reaching) == 1 and isinstance(reaching[0].node, cst.Name):
            kind, value, path = analysis.binding(reaching[0].node)
            if kind == "assign" and not path:
                return value
    return expr


def _statement_of(analysis: ModuleAnalysis, node: cst.CSTNode):
    """(the block's statements, the index of the statement holding node) of the innermost block."""
    child, parent = node, analysis.parents.get(node)
    while parent is not None:
        if isinstance(parent, (cst.IndentedBlock, cst.Module)) and isinstance(parent.body, (list, tuple)):
            body = list(parent.body)
            for i, stmt in enumerate(body):
                if stmt is child:
                    return body, i
            return None
        child, parent = parent, analysis.parents.get(parent)
    return None


def _mentions(node: cst.CSTNode, name: str) -> bool:
    return any(n.value == name for n in iter_nodes(node, cst.Name))


def _grown_sequence(
    analysis: ModuleAnalysis, use: cst.BaseExpression, depth: int
) -> Optional[List[cst.BaseExpression]]:
    """The elements of the local list use names, in order, where its block shows them: one plain
    assignment of a list or tuple display (or of a helper call returning such a list), then only
    statements that grow it (rules/accessors.toml [containers] grow_one, grow_many, `insert` at a
    constant position, `+=` of a display): `args = [...]; args.extend([dt, dt]); w.plan(*args)`.
    None when anything else may touch it."""
    if not isinstance(use, cst.Name) or depth > 3:
        return None
    name = use.value
    reaching = analysis.reaching(use)
    if len(reaching) != 1 or not isinstance(reaching[0].node, cst.Name):
        return None
    kind, value, path = analysis.binding(reaching[0].node)
    if kind != "assign" or path:
        return None
    at_use, at_def = _statement_of(analysis, use), _statement_of(analysis, reaching[0].node)
    if at_use is None or at_def is None or at_use[0] != at_def[0] or at_def[1] >= at_use[1]:
        return None
    body, start, stop = at_use[0], at_def[1], at_use[1]
    elements = _display_elements(analysis, value, depth)
    if elements is None:
        return None
    t = analysis.tables
    for stmt in body[start + 1 : stop]:
        if not _mentions(stmt, name):
            continue
        if _reads_sequence_only(analysis, stmt, name):
            continue  # `w.plan(*args)`, `w.plan(*(args + [dt]))`, `chain(args, ...)`: read, not changed
        if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
            return None
        small = stmt.body[0]
        if isinstance(small, cst.AugAssign) and isinstance(small.target, cst.Name) and small.target.value == name:
            if not isinstance(small.operator, cst.AddAssign):
                return None
            more = _display_elements(analysis, small.value, depth)
            if more is None:
                return None
            elements.extend(more)
            continue
        call = small.value if isinstance(small, cst.Expr) else None
        if (
            not isinstance(call, cst.Call)
            or not isinstance(call.func, cst.Attribute)
            or not isinstance(call.func.value, cst.Name)
            or call.func.value.value != name
            or any(a.star or a.keyword for a in call.args)
            or any(_mentions(a.value, name) for a in call.args)
        ):
            return None
        method, values = call.func.attr.value, [a.value for a in call.args]
        if method in t.grow_one and method.endswith("left") and len(values) == 1:
            elements.insert(0, values[0])
        elif method in t.grow_one and len(values) == 1:
            elements.append(values[0])
        elif method in t.grow_many and len(values) == 1 and not method.endswith("left"):
            more = _display_elements(analysis, values[0], depth)
            if more is None:
                return None
            elements.extend(more)
        elif method in t.grow_last and len(values) == 2 and isinstance(values[0], cst.Integer):
            elements.insert(int(values[0].value, 0), values[1])
        else:
            return None
    return elements


def _reads_sequence_only(analysis: ModuleAnalysis, stmt: cst.CSTNode, name: str) -> bool:
    """Does stmt only read the local list `name` (spread as `*name`, added to another sequence with `+`, an
    argument of an iteration function that reads it: rules/accessors.toml [iteration] chain, [containers]
    keep_elements)?"""
    t = analysis.tables
    for node in iter_nodes(stmt, cst.Name):
        if node.value != name:
            continue
        parent = analysis.parents.get(node)
        while isinstance(parent, cst.BinaryOperation) and isinstance(parent.operator, cst.Add):
            parent = analysis.parents.get(parent)  # `name + [dt]`: a new list
        if isinstance(parent, cst.Arg) and parent.keyword is None:
            if parent.star == "*":
                continue
            call = analysis.parents.get(parent)
            if (
                parent.star == ""
                and isinstance(call, cst.Call)
                and isinstance(call.func, (cst.Name, cst.Attribute))
                and (analysis._named_in(call.func, t.iter_chain) or analysis._named_in(call.func, t.keep_elements))
            ):
                continue
        return False
    return True


def _display_elements(analysis: ModuleAnalysis, value: cst.BaseExpression, depth: int):
    """The elements of a list or tuple display without spreads, of a name grown in its block, of a
    display repeated (`(dt,) * 2`), sliced by constants (`xs[:10]`), copied (`list(xs)`), of a
    mapping's `.values()` in insertion order, or of a helper's one returned value of those; None
    otherwise."""
    if isinstance(value, (cst.List, cst.Tuple)):
        if all(isinstance(e, cst.Element) and not isinstance(e, cst.StarredElement) for e in value.elements):
            return [e.value for e in value.elements]
        return None
    if isinstance(value, cst.Name):
        return _grown_sequence(analysis, value, depth + 1)
    if depth >= 8:
        return None
    if isinstance(value, (cst.GeneratorExp, cst.ListComp)) or (
        isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and value.func.value == "map"
    ):  # `*(dt for _ in range(2))`, `[dt for dt in (q, kv)]`, `map(lambda r: dt, ROLES)`
        return _unrolled_elements(analysis, value, depth + 1)
    if isinstance(value, cst.BinaryOperation) and isinstance(value.operator, cst.Multiply):
        for seq, times in ((value.left, value.right), (value.right, value.left)):
            if isinstance(times, cst.Integer) and int(times.value, 0) <= 16:
                elements = _display_elements(analysis, seq, depth + 1)
                if elements is not None:
                    return elements * int(times.value, 0)
        return None
    if isinstance(value, cst.Subscript) and len(value.slice) == 1 and isinstance(value.slice[0].slice, cst.Slice):
        part = value.slice[0].slice
        bounds = [part.lower, part.upper, part.step]
        if all(b is None or isinstance(b, cst.Integer) for b in bounds):
            elements = _display_elements(analysis, value.value, depth + 1)
            if elements is not None:
                return elements[slice(*(None if b is None else int(b.value, 0) for b in bounds))]
        return None
    if isinstance(value, cst.BinaryOperation) and isinstance(value.operator, cst.Add):  # `geo + [dt] * 2`
        left = _display_elements(analysis, value.left, depth + 1)
        right = _display_elements(analysis, value.right, depth + 1) if left is not None else None
        return None if right is None else left + right
    if isinstance(value, cst.Call) and isinstance(value.func, (cst.Name, cst.Attribute)):
        t = analysis.tables
        if any(a.keyword is not None or a.star for a in value.args):
            pass
        elif analysis._named_in(value.func, t.iter_repeat) and len(value.args) == 2:
            times = value.args[1].value  # `itertools.repeat(dt, 2)`: dt twice
            if isinstance(times, cst.Integer) and int(times.value, 0) <= 16:
                return [value.args[0].value] * int(times.value, 0)
            return None
        elif analysis._named_in(value.func, t.record_as_tuple_functions) and len(value.args) == 1:
            cls = analysis.instance_class(value.args[0].value)  # `dataclasses.astuple(rec)`: its fields in order
            if cls is None or not analysis.is_record(cls):
                return None
            return [analysis._attribute(value.args[0].value, name) for name in analysis.record_fields(cls)]
        elif analysis._named_in(value.func, t.iter_chain):  # `itertools.chain(geo, (dt, dt))`: one after another
            out: List[cst.BaseExpression] = []
            for a in value.args:
                part = _display_elements(analysis, a.value, depth + 1)
                if part is None:
                    return None
                out.extend(part)
            return out
    if isinstance(value, cst.Call) and _defaulted_lookup(analysis, value):
        entry = _looked_up(analysis, value, depth)
        return None if entry is None else _display_elements(analysis, entry, depth + 1)
    if isinstance(value, cst.Call) and not value.args and isinstance(value.func, cst.Attribute):
        if value.func.attr.value == "values":  # `kw.values()` of a mapping the block shows, in order
            items = _mapping_items(analysis, value.func.value, depth + 1)
            return None if items is None else [v for _, v in items]
    if (
        isinstance(value, cst.Call)
        and isinstance(value.func, cst.Name)
        and value.func.value in ("list", "tuple")
        and len(value.args) == 1
        and not value.args[0].star
        and value.args[0].keyword is None
    ):
        return _display_elements(analysis, value.args[0].value, depth + 1)
    if isinstance(value, cst.Call):
        returned = _single_return(analysis, value)
        if returned is not None and returned is not value:
            return _display_elements(analysis, returned, depth + 1)
        applied = analysis.applied_values(value)
        if len(applied) == 1:  # `attrgetter("dtype", "dtype")(runner)`: (runner.dtype, runner.dtype)
            return _display_elements(analysis, applied[0], depth + 1)
    return None


def _iterated(analysis: ModuleAnalysis, iterable: cst.BaseExpression, depth: int) -> Optional[list]:
    """The elements an iteration over iterable yields where the module shows them: a display (or a
    name bound once to one, `_display_elements`), `range(n)` of a small literal n, `zip(a, b)` of
    such (a row per position, as a Python tuple); None otherwise."""
    if depth > 8:
        return None
    if (
        isinstance(iterable, cst.Call)
        and isinstance(iterable.func, cst.Name)
        and iterable.args
        and not any(a.star or a.keyword for a in iterable.args)
    ):
        name, args = iterable.func.value, [a.value for a in iterable.args]
        if name in analysis.tables.stride_ranges and len(args) == 1 and isinstance(args[0], cst.Integer):
            n = int(args[0].value, 0)
            return [cst.Integer(str(i)) for i in range(n)] if n <= 16 else None
        if name == "zip":
            columns = [_iterated(analysis, a, depth + 1) for a in args]
            return None if any(c is None for c in columns) else [tuple(row) for row in zip(*columns)]
    shown = _display_elements(analysis, iterable, depth + 1)
    if shown is None:
        bound = _bound_value(analysis, iterable)
        shown = _display_elements(analysis, bound, depth + 1) if bound is not iterable else None
    return shown


def _bind_target(target: cst.BaseExpression, element, bindings: dict) -> bool:
    """Bind a comprehension or lambda target to one element (a node, or a Python tuple of nodes)."""
    if isinstance(target, cst.Name):
        bindings[target.value] = element
        return True
    if not isinstance(target, (cst.Tuple, cst.List)):
        return False
    if isinstance(element, tuple):
        parts = list(element)
    elif isinstance(element, (cst.Tuple, cst.List)) and all(
        isinstance(e, cst.Element) and not isinstance(e, cst.StarredElement) for e in element.elements
    ):
        parts = [e.value for e in element.elements]
    else:
        return False
    if len(parts) != len(target.elements):
        return False
    return all(
        not isinstance(t, cst.StarredElement) and _bind_target(t.value, part, bindings)
        for t, part in zip(target.elements, parts)
    )


def _substituted(expr: cst.BaseExpression, bindings: dict):
    """expr with its bound names read as their elements: a bound name is its element, a tuple
    display of such a tuple of them, an expression naming none itself; None otherwise."""
    if isinstance(expr, cst.Name) and expr.value in bindings:
        return bindings[expr.value]
    if not any(_mentions(expr, name) for name in bindings):
        return expr
    if isinstance(expr, (cst.Tuple, cst.List)) and all(
        isinstance(e, cst.Element) and not isinstance(e, cst.StarredElement) for e in expr.elements
    ):
        parts = tuple(_substituted(e.value, bindings) for e in expr.elements)
        return None if any(p is None for p in parts) else parts
    return None


def _key_text(analysis: ModuleAnalysis, key: cst.BaseExpression, bindings: dict) -> Optional[str]:
    """The string a key spells in one iteration: a bound name of a constant, an f-string or a sum
    of such parts (`f"{role}_data_type"`), a constant naming no bound name."""
    if isinstance(key, cst.Name) and key.value in bindings:
        bound = bindings[key.value]
        return analysis.constant_string(bound) if isinstance(bound, cst.BaseExpression) else None
    if not any(_mentions(key, name) for name in bindings):
        return analysis.constant_string(key)
    if isinstance(key, cst.FormattedString):
        parts = []
        for part in key.parts:
            if isinstance(part, cst.FormattedStringText):
                parts.append(part.value)
            elif part.conversion is None and part.format_spec is None:
                text = _key_text(analysis, part.expression, bindings)
                if text is None:
                    return None
                parts.append(text)
            else:
                return None
        return "".join(parts)
    if isinstance(key, cst.BinaryOperation) and isinstance(key.operator, cst.Add):
        left, right = _key_text(analysis, key.left, bindings), _key_text(analysis, key.right, bindings)
        return None if left is None or right is None else left + right
    return None


def _unrolled(analysis: ModuleAnalysis, value: cst.BaseExpression, depth: int) -> Optional[list]:
    """Per iteration, (bindings, the yielded expressions) of a one-clause generator or list/dict
    comprehension with no condition, or of `map(lambda ...: ..., xs[, ys])`, over iterables the
    module shows (`_iterated`); None otherwise. A list or dict comprehension's or a generator's
    element is read with its target bound to each element in turn."""
    if depth > 8:
        return None
    if isinstance(value, (cst.GeneratorExp, cst.ListComp, cst.DictComp)):
        clause = value.for_in
        if clause.inner_for_in is not None or clause.ifs or clause.asynchronous is not None:
            return None
        exprs = (value.key, value.value) if isinstance(value, cst.DictComp) else (value.elt,)
        elements = _iterated(analysis, clause.iter, depth + 1)
        if elements is None:
            return None
        rows = []
        for element in elements:
            bindings: dict = {}
            if not _bind_target(clause.target, element, bindings):
                return None
            rows.append((bindings, exprs))
        return rows
    if (
        isinstance(value, cst.Call)
        and isinstance(value.func, cst.Name)
        and value.func.value == "map"
        and len(value.args) >= 2
        and not any(a.star or a.keyword for a in value.args)
        and isinstance(value.args[0].value, cst.Lambda)
    ):
        fn = value.args[0].value
        params = fn.params
        names = [p.name.value for p in params.params]
        if (
            params.posonly_params
            or params.kwonly_params
            or not isinstance(params.star_arg, cst.MaybeSentinel)
            or params.star_kwarg is not None
            or any(p.default is not None for p in params.params)
            or len(names) != len(value.args) - 1
        ):
            return None
        columns = [_iterated(analysis, a.value, depth + 1) for a in value.args[1:]]
        if any(c is None for c in columns):
            return None
        return [(dict(zip(names, row)), (fn.body,)) for row in zip(*columns)]
    return None


def _unrolled_elements(analysis: ModuleAnalysis, value: cst.BaseExpression, depth: int) -> Optional[list]:
    """The elements a generator, list comprehension or `map(lambda ...)` yields, each a node."""
    if isinstance(value, cst.DictComp):
        return None
    rows = _unrolled(analysis, value, depth)
    if rows is None:
        return None
    out = [_substituted(exprs[0], bindings) for bindings, exprs in rows]
    return None if any(not isinstance(e, cst.BaseExpression) for e in out) else out


def _unrolled_pairs(analysis: ModuleAnalysis, value: cst.BaseExpression, depth: int) -> Optional[list]:
    """(key, value) pairs of a dict comprehension, or of an iteration of 2-tuples with constant keys
    (`dict(map(lambda k: (k, dt), KEYS))`, `dict((k, dt) for k in KEYS)`) the module shows."""
    rows = _unrolled(analysis, value, depth)
    if rows is None:
        if isinstance(value, (cst.List, cst.Tuple)):  # `dict([("q_data_type", dt), ...])`
            rows = [({}, (e,)) for e in _display_elements(analysis, value, depth + 1) or ()]
        if not rows:
            return None
    pairs = []
    for bindings, exprs in rows:
        if len(exprs) == 2:
            key, item = exprs
        else:
            pair = exprs[0]
            if not isinstance(pair, cst.Tuple) or len(pair.elements) != 2:
                return None
            key, item = (e.value for e in pair.elements)
        text = _key_text(analysis, key, bindings)
        item = _substituted(item, bindings)
        if text is None or not isinstance(item, cst.BaseExpression):
            return None
        pairs.append((text, item))
    return pairs


def _defaulted_lookup(analysis: ModuleAnalysis, call: cst.Call) -> bool:
    """Is call a read-only lookup with a default (`d.get(key, default)`: [containers] lookup_methods
    and default_last)?"""
    t = analysis.tables
    return (
        isinstance(call.func, cst.Attribute)
        and call.func.attr.value in t.lookup_methods
        and call.func.attr.value in t.default_last
        and len(call.args) == 2
        and not any(a.star or a.keyword for a in call.args)
    )


def _looked_up(analysis: ModuleAnalysis, call: cst.Call, depth: int) -> Optional[cst.BaseExpression]:
    """What `d.get(key, default)` gives: the entry of a mapping the file shows when every key the key
    may be (constant strings) is one of its keys and they are one; else the default (a key the file does
    not fix may be missing, and the call then gives the default); None for several shown keys."""
    default = call.args[1].value
    keys = analysis.constant_strings(call.args[0].value)
    items = _mapping_items(analysis, call.func.value, depth + 1)
    if not keys or items is None:
        return default
    shown = dict(items)
    if not all(k in shown for k in keys):
        return default
    return shown[keys[0]] if len(set(keys)) == 1 else None


def _mapping_items(analysis: ModuleAnalysis, value: cst.BaseExpression, depth: int):
    """The (key, value) pairs, in insertion order, of a mapping the file shows: a dict display with
    constant keys (and `**` spreads of such), `dict(k=v)` / `dict(other, k=v)`, the fields of a
    record (`dataclasses.asdict(rec)`, `rec._asdict()`), a local name merged into in its block
    (`kw |= {...}`, `kw.update(...)`, `kw["k"] = v`), a helper's one returned value of those; None
    otherwise."""
    if depth > 8:
        return None
    items: List[Tuple[str, cst.BaseExpression]] = []

    def put(key: str, item: cst.BaseExpression) -> None:
        for i, (k, _) in enumerate(items):
            if k == key:
                items[i] = (key, item)  # a merged key keeps its place, takes the later value
                return
        items.append((key, item))

    if isinstance(value, cst.Dict):
        for e in value.elements:
            if isinstance(e, cst.DictElement) and isinstance(e.key, cst.SimpleString):
                key = e.key.evaluated_value
                if not isinstance(key, str):
                    return None
                put(key, e.value)
            elif isinstance(e, cst.StarredDictElement):
                inner = _mapping_items(analysis, e.value, depth + 1)
                if inner is None:
                    return None
                for k, v in inner:
                    put(k, v)
            else:
                return None
        return items
    if isinstance(value, cst.Name):
        return _grown_mapping(analysis, value, depth + 1)
    if isinstance(value, cst.DictComp):  # `{f"{role}_data_type": dt for role in ("q", "kv")}`
        pairs = _unrolled_pairs(analysis, value, depth + 1)
        if pairs is None:
            return None
        for k, v in pairs:
            put(k, v)
        return items
    if isinstance(value, cst.Attribute):  # `self.defaults` of one dict display the class assigns
        held = analysis._container_sources(value, 0) or []
        return _mapping_items(analysis, held[0], depth + 1) if len(held) == 1 and held[0] is not value else None
    if isinstance(value, cst.BinaryOperation) and isinstance(value.operator, cst.BitOr):  # `a | b`
        left, right = _mapping_items(analysis, value.left, depth + 1), _mapping_items(analysis, value.right, depth + 1)
        if left is None or right is None:
            return None
        for k, v in [*left, *right]:
            put(k, v)
        return items
    if not isinstance(value, cst.Call):
        return None
    if (
        isinstance(value.func, cst.Attribute)
        and value.func.attr.value in analysis.tables.mapping_copies
        and not value.args
    ):  # `kw = base.copy()`: base's items
        return _mapping_items(analysis, value.func.value, depth + 1)
    source = analysis.fields_source(value)  # `dataclasses.asdict(rec)`, `rec._asdict()`: the fields by name
    if source is not None:
        cls = analysis.instance_class(source)
        if cls is None or not analysis.is_record(cls):
            return None
        return [(name, analysis._attribute(source, name)) for name in analysis.record_fields(cls)]
    if isinstance(value.func, (cst.Name, cst.Attribute)) and analysis._named_in(value.func, analysis.tables.chain_maps):
        # `ChainMap(first, defaults)`: a key's value is the first mapping's that holds it
        if any(a.keyword is not None or a.star for a in value.args):
            return None
        for a in reversed(value.args):
            inner = _mapping_items(analysis, a.value, depth + 1)
            if inner is None:
                return None
            for k, v in inner:
                put(k, v)
        return items
    if isinstance(value.func, cst.Attribute) and analysis._named_in(value.func, analysis.tables.key_fill_dicts):
        return _filled_keys(analysis, value, depth)  # `dict.fromkeys(("q_data_type", "kv_data_type"), dt)`
    if isinstance(value.func, (cst.Name, cst.Attribute)) and analysis._named_in(value.func, analysis.tables.item_dicts):
        for a in value.args:
            if a.keyword is not None:
                put(a.keyword.value, a.value)
            elif a is value.args[0] and not a.star and _zipped_pairs(analysis, a.value, depth) is not None:
                for k, v in _zipped_pairs(analysis, a.value, depth):  # `dict(zip(names, dtypes))`
                    put(k, v)
            elif a is value.args[0] and not a.star and _unrolled_pairs(analysis, a.value, depth) is not None:
                for k, v in _unrolled_pairs(analysis, a.value, depth):  # `dict(map(lambda k: (k, dt), KEYS))`
                    put(k, v)
            elif a.star == "*" or (a.star != "**" and a is not value.args[0]):
                return None
            else:  # `dict(base)`, `dict(**base)`: a copy of base's items
                inner = _mapping_items(analysis, a.value, depth + 1)
                if inner is None:
                    return None
                for k, v in inner:
                    put(k, v)
        return items
    returned = _single_return(analysis, value)
    if returned is not None and returned is not value:
        items = _mapping_items(analysis, returned, depth + 1)
        return None if items is None else [(k, _on_receiver(analysis, value, v)) for k, v in items]
    return None


def _on_receiver(analysis: ModuleAnalysis, call: cst.Call, item: cst.BaseExpression) -> cst.BaseExpression:
    """An item a method returned, read on the call's receiver: `self.kv_dtype` of the method's own
    instance is `params.kv_dtype` for `params.dtype_kwargs()` (the object the call names, not any
    instance of the class); item itself otherwise."""
    if not (
        isinstance(call.func, cst.Attribute)
        and isinstance(item, cst.Attribute)
        and isinstance(item.value, cst.Name)
        and not (isinstance(call.func.value, cst.Name) and call.func.value.value == item.value.value)
    ):
        return item
    method = analysis.enclosing_function(item)
    if method is None or analysis.method_class(method) is None:
        return item
    params = method.params.params
    if not params or params[0].name.value != item.value.value:
        return item
    return analysis._attribute(call.func.value, item.attr.value)


def _filled_keys(analysis: ModuleAnalysis, call: cst.Call, depth: int):
    """(key, value) pairs of `dict.fromkeys(keys, value)`: every key a constant string of a display
    the file shows, each holding the one value; None otherwise (no value: every key holds None)."""
    args = call.args
    if len(args) != 2 or any(a.star or a.keyword for a in args):
        return None
    keys = _display_elements(analysis, args[0].value, depth + 1) or _display_elements(
        analysis, _bound_value(analysis, args[0].value), depth + 1
    )
    texts = [analysis.constant_string(k) for k in keys or ()]
    if not texts or None in texts:
        return None
    return [(text, args[1].value) for text in texts]


def _own_item(items, value: cst.BaseExpression, name: str) -> Optional[cst.BaseExpression]:
    """The value an item store reads from the dict it stores into (`kw["kv"] = kw["q"]`): the item
    under that constant key so far; None for any other read of the dict."""
    if not (
        isinstance(value, cst.Subscript)
        and isinstance(value.value, cst.Name)
        and value.value.value == name
        and len(value.slice) == 1
        and isinstance(value.slice[0].slice, cst.Index)
        and isinstance(value.slice[0].slice.value, cst.SimpleString)
    ):
        return None
    key = value.slice[0].slice.value.evaluated_value
    return next((item for k, item in items if k == key), None)


def _zipped_pairs(analysis: ModuleAnalysis, value: cst.BaseExpression, depth: int):
    """(key, value) pairs of `zip(keys, values)` when both are displays the file shows and every
    key folds to a constant string (ObjectFlow.constant_string); None otherwise."""
    if not (
        isinstance(value, cst.Call)
        and isinstance(value.func, cst.Name)
        and value.func.value == "zip"
        and len(value.args) == 2
        and not any(a.star or a.keyword for a in value.args)
    ):
        return None
    keys, values = (
        _display_elements(analysis, a.value, depth + 1)
        # a name bound once elsewhere (`_KEYS = [...]` at module level): its display
        or _display_elements(analysis, _bound_value(analysis, a.value), depth + 1)
        # an attribute holding one (`self.plan_dtypes = (dt, dt)`), as `*x` reads it
        or analysis._starred_values(a.value)
        or None
        for a in value.args
    )
    if keys is None or values is None:
        return None
    pairs = []
    for key, item in zip(keys, values):
        text = analysis.constant_string(key)
        if text is None:
            return None
        pairs.append((text, item))
    return pairs


def _star_param_spread(analysis: ModuleAnalysis, expr: cst.BaseExpression) -> Optional[List[cst.Arg]]:
    """`*a` of a def's or lambda's own `*args` parameter: the further positional arguments its
    visible callers pass (a value caller too: `self._plan = lambda w, *a: w.plan(*a, ...)` called
    as `self._plan(w, qo, ...)`), position by position (several callers: either), when every
    caller passes as many and spreads none; None otherwise."""
    param = _parameter(analysis, expr)
    if param is None:
        return None
    owner = analysis._param_owner(param)
    if not isinstance(owner, (cst.FunctionDef, cst.Lambda)) or owner.params.star_arg is not param:
        return None
    rows = []
    for call, skip, env in analysis._callers_of(owner):
        if env:
            return None
        positional = [a for a in call.args if a.keyword is None]
        if any(a.star for a in positional):
            return None
        named = len(analysis._positional_params(owner, skip))
        rows.append([a.value for a in positional[named:]])
    if not rows or len({len(r) for r in rows}) != 1:
        return None
    return [cst.Arg(value=analysis.either(list(column), expr)) for column in zip(*rows)]


def _kwargs_param_spread(analysis: ModuleAnalysis, expr: cst.BaseExpression) -> Optional[List[cst.Arg]]:
    """`**kw` of a def's or lambda's own `**kwargs` parameter: the keywords its visible callers pass
    that no named parameter takes (`self._plan_with(w, *a, q_data_type=dt, kv_data_type=dt)`), key by
    key (several callers: either), when every caller passes the same keys and spreads no `**`; None
    otherwise."""
    param = _parameter(analysis, expr)
    if param is None:
        return None
    owner = analysis._param_owner(param)
    if not isinstance(owner, (cst.FunctionDef, cst.Lambda)) or owner.params.star_kwarg is not param:
        return None
    params = owner.params
    named = {p.name.value for p in [*params.posonly_params, *params.params, *params.kwonly_params]}
    columns: Dict[str, list] = {}
    keys = None
    for call, _skip, env in analysis._callers_of(owner):
        if env or any(a.star == "**" for a in call.args):
            return None
        passed = {a.keyword.value: a.value for a in call.args if a.keyword is not None and a.keyword.value not in named}
        if keys is not None and set(passed) != keys:
            return None
        keys = set(passed)
        for key, value in passed.items():
            columns.setdefault(key, []).append(value)
    if keys is None:
        return None
    return [cst.Arg(value=analysis.either(values, expr), keyword=cst.Name(key)) for key, values in columns.items()]


def _grown_mapping(analysis: ModuleAnalysis, use: cst.Name, depth: int):
    """The items of the local dict use names, where its block shows them: one plain assignment of a
    mapping _mapping_items reads, then only statements that merge into it (_merged_items). None when
    anything else may touch it."""
    name = use.value
    reaching = analysis.reaching(use)
    if len(reaching) != 1 or not isinstance(reaching[0].node, cst.Name):
        return None
    kind, value, path = analysis.binding(reaching[0].node)
    if kind != "assign" or path:
        return None
    at_use, at_def = _statement_of(analysis, use), _statement_of(analysis, reaching[0].node)
    if at_use is None or at_def is None or at_use[0] != at_def[0] or at_def[1] >= at_use[1]:
        return None
    items = _mapping_items(analysis, value, depth)
    if items is None:
        return None
    body, start, stop = at_use[0], at_def[1], at_use[1]
    return _merged_items(analysis, body[start + 1 : stop], name, list(items), depth)


def _merged_items(analysis: ModuleAnalysis, stmts, name: str, items: list, depth: int):
    """The items of the dict `name` after stmts: merges (`kw |= {...}`, `kw.update(...)`, `kw["k"] = v`),
    a default for a missing key ([containers] key_defaults: `kw.setdefault("k", v)`), and an `if` whose
    branches do only those. A key the branches set differently holds either value: a synthetic
    `body_value if test else other_value` (ModuleAnalysis.resolve_value reads both; CL002 reads which path
    keeps the q dtype, kv_q_on_fp8_path), ABSENT on a path that does not set it (a later setdefault fills
    it there). None when anything else may touch the dict."""
    items = list(items)

    def put(k, v) -> None:
        for i, (key, _) in enumerate(items):
            if key == k:
                items[i] = (k, v)
                break
        else:
            items.append((k, v))

    def merge(more) -> None:
        for k, v in more:
            put(k, v)

    for stmt in stmts:
        if not _mentions(stmt, name):
            continue
        if isinstance(stmt, cst.If) and depth < 6:
            branches = _branch_items(analysis, stmt, name, items, depth + 1)
            if branches is None:
                return None
            then_items, else_items = branches
            then, other = dict(then_items), dict(else_items)
            for k in [*[k for k, _ in then_items], *[k for k, _ in else_items if k not in then]]:
                body, orelse = then.get(k, ABSENT), other.get(k, ABSENT)
                put(k, body if body is orelse else cst.IfExp(test=stmt.test, body=body, orelse=orelse))
            continue
        if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
            return None
        small = stmt.body[0]
        if isinstance(small, cst.AugAssign) and isinstance(small.target, cst.Name) and small.target.value == name:
            more = (
                _mapping_items(analysis, small.value, depth + 1)
                if isinstance(small.operator, cst.BitOrAssign)
                else None
            )
            if more is None:
                return None
            merge(more)
            continue
        if (
            isinstance(small, cst.Assign)
            and len(small.targets) == 1
            and isinstance(small.targets[0].target, cst.Subscript)
            and isinstance(small.targets[0].target.value, cst.Name)
            and small.targets[0].target.value.value == name
        ):
            stored = _own_item(items, small.value, name) if _mentions(small.value, name) else small.value
            if stored is None:
                return None
            sub = small.targets[0].target
            key = (
                sub.slice[0].slice.value if len(sub.slice) == 1 and isinstance(sub.slice[0].slice, cst.Index) else None
            )
            if not isinstance(key, cst.SimpleString) or not isinstance(key.evaluated_value, str):
                return None
            merge([(key.evaluated_value, stored)])
            continue
        call = small.value if isinstance(small, cst.Expr) else None
        if (
            isinstance(call, cst.Call)
            and isinstance(call.func, cst.Attribute)
            and isinstance(call.func.value, cst.Name)
            and call.func.value.value == name
        ):
            method = call.func.attr.value
            if method == "update" and not any(_mentions(a.value, name) for a in call.args):
                more = _mapping_items(analysis, cst.Call(func=cst.Name("dict"), args=call.args), depth + 1)
                if more is None:
                    return None
                merge(more)
                continue
            if method in analysis.tables.key_defaults:  # `kw.setdefault("kv_data_type", kw["q_data_type"])`
                key = analysis.constant_string(call.args[0].value) if len(call.args) == 2 else None
                if key is None or any(a.keyword or a.star for a in call.args):
                    return None
                value = call.args[1].value
                default = _own_item(items, value, name) if _mentions(value, name) else value
                if default is None:
                    return None
                held = dict(items).get(key)
                put(key, default if held is None else _fill_absent(held, default))
                continue
        if _copies_only(analysis, stmt, name):  # `w.plan(**kw)`, `vkw = dict(kw)`: read, not changed
            continue
        return None
    return items


def _branch_items(analysis: ModuleAnalysis, stmt: cst.If, name: str, items, depth: int):
    """(items past the if's body, items past its else) of the dict `name`; None when a branch does
    anything else to it."""
    then = _merged_items(analysis, stmt.body.body, name, items, depth)
    orelse = stmt.orelse
    if orelse is None:
        other = list(items)
    elif isinstance(orelse, cst.Else):
        other = _merged_items(analysis, orelse.body.body, name, items, depth)
    else:  # elif: an if of its own in the else
        other = _merged_items(analysis, [orelse], name, items, depth)
    if then is None or other is None:
        return None
    return then, other


# a key a path of a dict's statements does not set (_merged_items): a plan keyword left to its default
ABSENT = cst.Name("__castlint_absent__")


def _fill_absent(value: cst.BaseExpression, default: cst.BaseExpression) -> cst.BaseExpression:
    """value with ABSENT, on each path of its synthetic choices, replaced by default (a setdefault)."""
    if value is ABSENT:
        return default
    if isinstance(value, cst.IfExp) and _has_absent(value):
        body, orelse = _fill_absent(value.body, default), _fill_absent(value.orelse, default)
        return cst.IfExp(test=value.test, body=body, orelse=orelse)
    return value


def _has_absent(value: cst.BaseExpression) -> bool:
    if value is ABSENT:
        return True
    return isinstance(value, cst.IfExp) and (_has_absent(value.body) or _has_absent(value.orelse))


def _paths(value: cst.BaseExpression, analysis: ModuleAnalysis, conds=()):
    """(the (test, truth) conditions, the value) of each path of a synthetic choice (one _merged_items
    made: not a node of the module, so without a parent)."""
    if isinstance(value, cst.IfExp) and value not in analysis.parents:
        yield from _paths(value.body, analysis, (*conds, (value.test, True)))
        yield from _paths(value.orelse, analysis, (*conds, (value.test, False)))
    else:
        yield conds, value


def kv_q_on_fp8_path(analysis: ModuleAnalysis, kv_arg: cst.BaseExpression, q_src: tuple) -> bool:
    """Is a kv dtype assembled in a dict over several paths (_merged_items) the q dtype, or left to its
    default (the q dtype), on a path no condition keeps from an FP8 pool? A condition keeps it when it
    must be false (true) on that path and holds (fails) whenever the pool is FP8 (_fp8_sign)."""
    if not (isinstance(kv_arg, cst.IfExp) and kv_arg not in analysis.parents):
        return False
    for conds, leaf in _paths(kv_arg, analysis):
        if leaf is not ABSENT and analysis.resolve_value(leaf) != q_src:
            continue
        if not any(_fp8_sign(analysis, test, 0) is (not truth) for test, truth in conds):
            return True
    return False


def kv_q_on_unguarded_choice(analysis: ModuleAnalysis, kv_arg: cst.BaseExpression, q_src: tuple) -> bool:
    """Is a kv dtype chosen by the code (a conditional expression, a name or self attribute assigned one, a
    name bound in the branches of `if` statements) the q dtype on a path no condition keeps from an FP8
    pool? The same path rule as kv_q_on_fp8_path's: a condition keeps the pool away when it must be false
    (true) on the path and holds (fails) whenever the pool is FP8 (_fp8_sign); a condition reading the
    KV-cache dtype whose sign is not known is taken to keep it (`if self.kv_cache_dtype == self.dtype`).
    `kv = self.q_dtype if self.sm < (8, 9) else self.cache_dtype` plans an FP8 pool as q on SM < 8.9."""
    paths = list(_choice_paths(analysis, kv_arg, (), 0))
    if len(paths) < 2:
        return False  # (no choice: resolve_value read it)
    for conds, leaf in paths:
        if analysis.resolve_value(leaf) != q_src:
            continue
        if not any(_keeps_fp8_away(analysis, test, truth) for test, truth in conds):
            return True
    return False


def _keeps_fp8_away(analysis: ModuleAnalysis, test: cst.BaseExpression, truth: bool) -> bool:
    """Does this condition keep an FP8 pool off the path? By its FP8 sign when known; else when it
    reads a KV-cache dtype (how is not known), or what a step method is given (a per-step mode, `fb.forward_mode
    .is_decode()`, or a parameter's None fallback: the other path may plan a wrapper that reads no paged
    pool, or the callers decide, dtypes_from_callers). A configuration (a device capability, a flag on self, a
    constructor's argument) is what the whole run takes: it does not."""
    sign = _fp8_sign(analysis, test, 0)
    if sign is not None:
        return sign is (not truth)
    return _reads_kv_cache_dtype(analysis, test, 0) or _reads_step_input(analysis, test)


def _reads_step_input(analysis: ModuleAnalysis, test: cst.BaseExpression) -> bool:
    """Does test read a parameter (not self) of the def it is in, that def not a run-once method?"""
    func = analysis.enclosing_function(test)
    if func is None or func.name.value in analysis.tables.run_once_methods:
        return False
    for name in iter_nodes(test, cst.Name):
        if name.value == "self" or name not in analysis.parents:
            continue
        for assignment in analysis.reaching(name):
            node = assignment.node
            if isinstance(node, cst.Param) or isinstance(analysis.parents.get(node), cst.Param):
                return True
    return False


def _reads_kv_cache_dtype(analysis: ModuleAnalysis, test: cst.BaseExpression, depth: int) -> bool:
    """Does test read a KV-cache dtype, itself or through a name or self attribute assigned once?"""
    if depth > 3:
        return False
    if _names_kv_cache_dtype(analysis, test):
        return True
    for node in [*iter_nodes(test, cst.Name), *iter_nodes(test, cst.Attribute)]:
        value = _one_value(analysis, node)
        if value is not None and _reads_kv_cache_dtype(analysis, value, depth + 1):
            return True
    return False


def _one_value(analysis: ModuleAnalysis, node: cst.CSTNode) -> Optional[cst.BaseExpression]:
    """The one value a name (its one reaching plain assignment) or a self attribute (its one
    assignment in the class) holds; None otherwise."""
    if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == "self":
        cls = analysis.enclosing_class(node)
        values = analysis.self_attr_values(cls, node.attr.value) if cls is not None else []
        return values[0] if len(values) == 1 else None
    if isinstance(node, cst.Name) and node in analysis.parents:
        reaching = analysis.reaching(node)
        if len(reaching) == 1 and isinstance(reaching[0].node, cst.Name):
            kind, value, path = analysis.binding(reaching[0].node)
            return value if kind == "assign" and not path else None
    return None


def _choice_paths(analysis: ModuleAnalysis, expr: cst.BaseExpression, conds: tuple, depth: int):
    """(the (test, truth) conditions, the value) of each path by which the code chooses expr: the sides
    of a conditional expression (itself, or what a name or self attribute is assigned once), and the
    assignments of a name in the branches of `if` statements that reach it, under those ifs' tests."""
    if depth > 4:
        yield conds, expr
        return
    if isinstance(expr, cst.IfExp):
        yield from _choice_paths(analysis, expr.body, (*conds, (expr.test, True)), depth + 1)
        yield from _choice_paths(analysis, expr.orelse, (*conds, (expr.test, False)), depth + 1)
        return
    if isinstance(expr, cst.Attribute):
        value = _one_value(analysis, expr)
        if isinstance(value, cst.IfExp):
            yield from _choice_paths(analysis, value, conds, depth + 1)
            return
    if isinstance(expr, cst.Name) and expr in analysis.parents:
        reaching = analysis.reaching(expr)
        bound = []
        for assignment in reaching:
            node = assignment.node
            kind, value, path = analysis.binding(node) if isinstance(node, cst.Name) else (None, None, ())
            if kind != "assign" or path or value is None:
                bound = []
                break
            bound.append((node, value))
        if len(bound) == 1 and isinstance(bound[0][1], cst.IfExp):
            yield from _choice_paths(analysis, bound[0][1], conds, depth + 1)
            return
        if len(bound) > 1:
            around = {id(a) for a in analysis.ancestors(expr)}
            for node, value in bound:
                yield from _choice_paths(analysis, value, (*conds, *_branch_tests(analysis, node, around)), depth + 1)
            return
    yield conds, expr


def _branch_tests(analysis: ModuleAnalysis, node: cst.CSTNode, around: set) -> tuple:
    """The (test, truth) of each `if` whose branch holds node and not the use (around: the use's ancestors)."""
    out = []
    child = node
    for ancestor in analysis.ancestors(node):
        if isinstance(ancestor, (cst.FunctionDef, cst.Lambda)) or id(ancestor) in around:
            break
        if isinstance(ancestor, cst.If):
            out.append((ancestor.test, child is ancestor.body))
        child = ancestor
    return tuple(reversed(out))


def _fp8_sign(analysis: ModuleAnalysis, test: cst.BaseExpression, depth: int) -> Optional[bool]:
    """True when test holds whenever the KV pool is FP8 (a test of the KV-cache dtype, [kv_cache_dtype]:
    `cache_dtype == "fp8"`, `"fp8" in kv_cache_dtype`, `is_fp8(kv_dtype)`), False when it fails then
    (`!=`, `not in`, `not`), through `and`/`or` and a name or self attribute assigned one such test;
    None when not known."""
    if depth > 4:
        return None
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        sign = _fp8_sign(analysis, test.expression, depth + 1)
        return None if sign is None else not sign
    if isinstance(test, cst.BooleanOperation):
        signs = [_fp8_sign(analysis, side, depth + 1) for side in (test.left, test.right)]
        if isinstance(test.operator, cst.And):
            return True if all(s is True for s in signs) else False if False in signs else None
        return True if True in signs else False if all(s is False for s in signs) else None
    if isinstance(test, (cst.Comparison, cst.Call)):
        if not _names_kv_cache_dtype(analysis, test):
            return None
        if isinstance(test, cst.Call):
            return True
        if len(test.comparisons) != 1:
            return None
        negated = (cst.NotEqual, cst.IsNot, cst.NotIn)
        holds = not isinstance(test.comparisons[0].operator, negated)
        sides = (test.left, test.comparisons[0].comparator)
        if any(_is_none_literal(side) for side in sides):
            return None  # `kv_dtype is None`: whether it was given, not which dtype
        if any(_spells_other_dtype(analysis, side) for side in sides if not _names_kv_cache_dtype(analysis, side)):
            return not holds  # `cache_dtype == "auto"`: equal to a dtype that is not FP8
        return holds
    value = None
    if isinstance(test, cst.Attribute) and isinstance(test.value, cst.Name) and test.value.value == "self":
        cls = analysis.enclosing_class(test)
        values = analysis.self_attr_values(cls, test.attr.value) if cls is not None else []
        value = values[0] if len(values) == 1 else None
    elif isinstance(test, cst.Name):
        reaching = analysis.reaching(test)
        if len(reaching) == 1 and isinstance(reaching[0].node, cst.Name):
            kind, value, path = analysis.binding(reaching[0].node)
            value = value if kind == "assign" and not path else None
    return None if value is None else _fp8_sign(analysis, value, depth + 1)


def _spells_other_dtype(analysis: ModuleAnalysis, node: cst.CSTNode) -> bool:
    """Is node a constant spelling a dtype other than FP8 ([kv_cache_dtype] other_dtypes, and none of
    fp8_words): `"auto"`, `"bfloat16"`, `torch.float16`?"""
    t = analysis.tables
    if isinstance(node, cst.SimpleString):
        word = node.evaluated_value if isinstance(node.evaluated_value, str) else ""
    elif isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name):
        word = node.attr.value
    else:
        return False
    return word.lower() in t.kv_cache_dtype_other_dtypes and not any(w in word for w in t.kv_cache_dtype_fp8_words)


def _names_kv_cache_dtype(analysis: ModuleAnalysis, node: cst.CSTNode) -> bool:
    """Does node read a KV-cache dtype by a name of [kv_cache_dtype] (`cache_config.cache_dtype`,
    `self.kv_cache_dtype`, `kv_cache_spec.dtype`, `self.kv_cache_manager.dtype`)?"""
    t = analysis.tables
    for n in iter_nodes(node, cst.Attribute):
        if n.attr.value in t.kv_cache_dtype_attributes:
            return True
        holder = n.value.attr.value if isinstance(n.value, cst.Attribute) else getattr(n.value, "value", None)
        holders = t.kv_cache_dtype_holders | t.kv_cache_dtype_holder_attributes
        if n.attr.value == "dtype" and holder in holders:
            return True
    return any(n.value in t.kv_cache_dtype_attributes for n in iter_nodes(node, cst.Name))


def _copies_only(analysis: ModuleAnalysis, stmt: cst.CSTNode, name: str) -> bool:
    """Does stmt only read the dict `name` into a copy: `f(**name)`, `dict(name)`?"""
    for node in iter_nodes(stmt, cst.Name):
        if node.value != name:
            continue
        arg = analysis.parents.get(node)
        if isinstance(arg, cst.Attribute) and arg.value is node and arg.attr.value in analysis.tables.mapping_copies:
            call = analysis.parents.get(arg)
            if isinstance(call, cst.Call) and call.func is arg and not call.args:
                continue  # `vkw = kw.copy()`: read into a new dict
        if not isinstance(arg, cst.Arg) or arg.keyword is not None:
            return False
        call = analysis.parents.get(arg)
        if (
            arg.star == ""
            and isinstance(call, cst.Call)
            and isinstance(call.func, (cst.Name, cst.Attribute))
            and analysis._named_in(call.func, analysis.tables.chain_maps)
            and _copies_only_view(analysis, call)
        ):
            continue  # `**ChainMap(first, name)`: a view read once, name unchanged
        if arg.star != "**" and not (
            arg.star == ""
            and isinstance(call, cst.Call)
            and isinstance(call.func, cst.Name)
            and call.func.value == "dict"
        ):
            return False
    return True


def _copies_only_view(analysis: ModuleAnalysis, view: cst.Call) -> bool:
    """Is a view call (a ChainMap) read at once: spread with `**`, or copied by `dict(view)`?"""
    arg = analysis.parents.get(view)
    if not isinstance(arg, cst.Arg) or arg.keyword is not None:
        return False
    if arg.star == "**":
        return True
    call = analysis.parents.get(arg)
    return (
        arg.star == ""
        and isinstance(call, cst.Call)
        and isinstance(call.func, cst.Name)
        and call.func.value == "dict"
        and _copies_only_view(analysis, call)
    )


def _star_parts(analysis: ModuleAnalysis, arg: cst.Arg, depth: int) -> Optional[List[cst.Arg]]:
    if arg.star == "*":
        # `args = [...]; args.extend([dt, dt]); w.plan(*args)`, `*(dt,) * 2`, `*list(kw.values())[:10]`
        grown = _display_elements(analysis, arg.value, depth)
        if grown is not None:
            return [cst.Arg(value=v) for v in grown]
        spread = _star_param_spread(analysis, arg.value)
        if spread is not None:
            return spread
        cls = analysis.instance_class(arg.value)
        if cls is not None and analysis.is_record(cls):  # `*self.pair` of a NamedTuple: its fields in order
            return [cst.Arg(value=analysis._attribute(arg.value, name)) for name in analysis.record_fields(cls)]
    if arg.star == "**":
        # `**kw` merged with `|=`, `**dataclasses.asdict(rec)`, `**{**base, "kv_data_type": d}`
        items = _mapping_items(analysis, arg.value, depth)
        if items is not None:
            return [cst.Arg(value=v, keyword=cst.Name(k)) for k, v in items if k.isidentifier()]
        spread = _kwargs_param_spread(analysis, arg.value)
        if spread is not None:
            return spread
    value = _bound_value(analysis, arg.value)
    if (
        isinstance(value, cst.Call)
        and depth < 3
        and not (isinstance(value.func, cst.Name) and value.func.value == "dict")
    ):
        value = _single_return(analysis, value) or value  # a helper returning a tuple or a dict
    if isinstance(value, cst.Subscript) and depth < 3:  # `*self.pairs[Mode.DECODE]`: the entry under that key
        entries = analysis.keyed_values(value)
        if len(entries) == 1:
            value = _bound_value(analysis, entries[0])
    if isinstance(value, cst.Attribute) and depth < 3:  # a property or attribute holding one (`**self.dtypes`)
        held = analysis._container_sources(value, 0) or []
        if len(held) == 1:
            value = held[0]
    if arg.star == "*":
        if isinstance(value, cst.Call) and value is not arg.value:  # `*self.pair` held from a getter's call
            shown = _display_elements(analysis, value, depth + 1)
            if shown is not None:
                return [cst.Arg(value=v) for v in shown]
        if isinstance(value, (cst.Tuple, cst.List)) and all(
            isinstance(e, cst.Element) and not isinstance(e, cst.StarredElement) for e in value.elements
        ):
            return [cst.Arg(value=e.value) for e in value.elements]
        return None
    if isinstance(value, cst.Dict):
        parts: List[cst.Arg] = []
        for e in value.elements:
            if isinstance(e, cst.DictElement) and isinstance(e.key, cst.SimpleString):
                parts = [a for a in parts if a.keyword is None or a.keyword.value != e.key.evaluated_value]
                parts.append(cst.Arg(value=e.value, keyword=cst.Name(e.key.evaluated_value)))
            elif isinstance(e, cst.StarredDictElement) and depth < 3:  # `{**base, "kv_data_type": d}`
                inner = _star_parts(analysis, cst.Arg(value=e.value, star="**"), depth + 1)
                if inner is None:
                    return None
                names = {a.keyword.value for a in inner if a.keyword is not None}
                parts = [a for a in parts if a.keyword is None or a.keyword.value not in names] + inner
            else:
                return None
        return parts
    if (
        isinstance(value, cst.Call)
        and isinstance(value.func, cst.Name)
        and value.func.value == "dict"
        and all(a.keyword is not None for a in value.args)
    ):
        return [cst.Arg(value=a.value, keyword=cst.Name(a.keyword.value)) for a in value.args]
    return None


def _single_return(analysis: ModuleAnalysis, call: cst.Call) -> Optional[cst.BaseExpression]:
    """What the function or method this call reaches returns (ObjectFlow.return_targets: a
    function of the module, `self.m()` through the class hierarchy, `super().m()`, `Cls.m()`),
    when every target has one and the same `return` value."""
    values = []
    for target, _, _ in analysis.return_targets(call):
        values.extend([target.body] if isinstance(target, cst.Lambda) else analysis._return_values(target))
    if (
        not values
    ):  # a lambda held in an attribute or a dispatch entry: `self._dtypes()` of `self._dtypes = lambda: ...`
        values = [form.body for form, _ in analysis.callable_values(call.func, 1) if isinstance(form, cst.Lambda)]
    return values[0] if len(values) == 1 else None


# -- plan() helpers that take the dtypes from their callers --------------------------------


def _parameter(analysis: ModuleAnalysis, expr: cst.BaseExpression) -> Optional[cst.Param]:
    """The parameter a name is, when its only binding is one: of its own def, or of a def it is nested
    in (a closure's free variable: `kv_dtype` of `make_planner(..., kv_dtype)` in the plan it returns)."""
    if not isinstance(expr, cst.Name):
        return None
    scope = analysis.scopes.get(expr)
    while scope is not None and not scope.assignments[expr.value] and isinstance(scope, cst.metadata.FunctionScope):
        scope = _enclosing_function_scope(scope)
    if scope is None:
        return None
    bindings = list(scope.assignments[expr.value])
    if len(bindings) == 1 and isinstance(bindings[0].node, cst.Param):
        return bindings[0].node
    return None


def _fallback_parameter(
    analysis: ModuleAnalysis, expr: cst.BaseExpression
) -> Optional[Tuple[cst.Param, cst.BaseExpression]]:
    """(parameter, fallback) for a name whose bindings are one parameter and rebindings of it to a
    fallback when the caller leaves it out: `kv = kv or q`, `kv = q if kv is None else kv`,
    `kv = kv if kv is not None else q`, `if kv is None: kv = q` (or `if not kv:`). None otherwise."""
    if not isinstance(expr, cst.Name):
        return None
    scope = analysis.scopes.get(expr)
    if not isinstance(scope, cst.metadata.FunctionScope):
        return None
    name = expr.value
    params, fallbacks = [], []
    for binding in scope.assignments[name]:
        node = binding.node
        if isinstance(node, cst.Param):
            params.append(node)
            continue
        fallback = _fallback_of(analysis, node, name) if isinstance(node, cst.Name) else None
        if fallback is None:
            return None
        fallbacks.append(fallback)
    if len(params) != 1 or len(fallbacks) != 1:
        return None
    return params[0], fallbacks[0]


def _fallback_of(analysis: ModuleAnalysis, target: cst.Name, name: str) -> Optional[cst.BaseExpression]:
    """The fallback a rebinding of `name` gives it when it is None (see _fallback_parameter)."""
    value, index = analysis.assigned_value(target)
    if value is None or index is not None:
        return None
    if isinstance(value, cst.BooleanOperation) and isinstance(value.operator, cst.Or):
        if _is_name(value.left, name):
            return value.right
        return None
    if isinstance(value, cst.IfExp):
        test = _none_test(value.test, name)
        if test == "is None" and _is_name(value.orelse, name):
            return value.body
        if test == "is not None" and _is_name(value.body, name):
            return value.orelse
        return None
    # `if kv is None: kv = q`: the assignment alone in the body of an if that tests the name
    statement = analysis.parents.get(analysis.parents.get(target))  # AssignTarget -> Assign
    line = analysis.parents.get(statement)
    block = analysis.parents.get(line)
    branch = analysis.parents.get(block)
    if (
        isinstance(statement, cst.Assign)
        and isinstance(block, cst.IndentedBlock)
        and isinstance(branch, cst.If)
        and branch.body is block
        and _none_test(branch.test, name) == "is None"
    ):
        return value
    return None


def _none_test(test: cst.BaseExpression, name: str) -> Optional[str]:
    """ "is None" for `name is None` / `not name`, "is not None" for `name is not None` / `name`."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not) and _is_name(test.expression, name):
        return "is None"
    if _is_name(test, name):
        return "is not None"
    if isinstance(test, cst.Comparison) and _is_name(test.left, name) and len(test.comparisons) == 1:
        target = test.comparisons[0]
        if _is_none_literal(target.comparator):
            if isinstance(target.operator, cst.Is):
                return "is None"
            if isinstance(target.operator, cst.IsNot):
                return "is not None"
    return None


def _is_name(expr, name: str) -> bool:
    return isinstance(expr, cst.Name) and expr.value == name


def _is_none_literal(expr) -> bool:
    return isinstance(expr, cst.Name) and expr.value == "None"


def _fallen_to(fallback: cst.BaseExpression, other_arg, other_value):
    """A fallback naming the other dtype (`kv = kv or q`) is what the caller made of that one."""
    if isinstance(fallback, cst.Name) and isinstance(other_arg, cst.Name) and fallback.value == other_arg.value:
        return other_value
    return fallback


def _enclosing_function_scope(scope):
    """The scope of the def a def is nested in (class bodies skipped, as Python's closures skip them)."""
    parent = scope.parent
    while isinstance(parent, cst.metadata.ClassScope):
        parent = parent.parent
    return parent if isinstance(parent, cst.metadata.FunctionScope) else None


def _passed_or_default(analysis: ModuleAnalysis, caller: cst.Call, owner, param: cst.Param, skip: bool):
    """What caller passes for param, else param's default when the call leaves it out: every
    argument shown (a `*args` of one tuple display of known length, no `**`), none of them reaching
    param's position or naming it (`update(*args)` with `kv_data_type=torch.bfloat16` in the signature)."""
    passed = analysis._argument_for(caller, owner, param, skip_self=skip)
    if passed is not None or param.default is None or param.star:
        return passed
    count = 0
    for arg in caller.args:
        if arg.keyword is not None:
            if arg.keyword.value == param.name.value:
                return None
        elif arg.star == "**":
            return None
        elif arg.star == "*":
            shown = _shown_length(analysis, arg.value)
            if shown is None:
                return None
            count += shown
        else:
            count += 1
    positional = [*owner.params.posonly_params, *owner.params.params]
    if param not in positional:
        return param.default if param in owner.params.kwonly_params else None
    return param.default if positional.index(param) - int(skip) >= count else None


def _shown_length(analysis: ModuleAnalysis, expr: cst.BaseExpression) -> Optional[int]:
    """The length of what `*expr` spreads, when the file shows it as one tuple or list display."""
    sources = [expr] if isinstance(expr, (cst.Tuple, cst.List)) else (analysis._container_sources(expr, 0) or [])
    if len(sources) != 1 or not isinstance(sources[0], (cst.Tuple, cst.List)):
        return None
    if any(isinstance(e, cst.StarredElement) for e in sources[0].elements):
        return None
    return len(sources[0].elements)


def dtypes_from_callers(
    analysis: ModuleAnalysis, call: cst.Call, q_arg: cst.BaseExpression, kv_arg: cst.BaseExpression, depth: int = 0
) -> List[Tuple[cst.Call, tuple, tuple]]:
    """A plan() inside a helper (a module-level function, a method of a base class or a mixin)
    whose q or kv dtype is one of the helper's parameters: (caller, q sources, kv sources) for
    each visible call of the helper (ObjectFlow's one call resolution: `f(...)`, `self.m(...)`
    through the class hierarchy, `obj.m(...)`), followed up through callers that pass their
    own parameters on. [] when neither dtype is a parameter or no call of the helper is seen."""
    q_param, kv_param = _parameter(analysis, q_arg), _parameter(analysis, kv_arg)
    # a parameter rebound to a fallback when left out (`kv = kv or q`, `if kv is None: kv = q`)
    q_back = _fallback_parameter(analysis, q_arg) if q_param is None else None
    kv_back = _fallback_parameter(analysis, kv_arg) if kv_param is None else None
    q_param = q_param or (q_back[0] if q_back else None)
    kv_param = kv_param or (kv_back[0] if kv_back else None)
    if (q_param is None and kv_param is None) or q_param is kv_param or depth > 3:
        return []
    owner = analysis._param_owner(q_param or kv_param)
    if not isinstance(owner, cst.FunctionDef) or (
        q_param is not None and kv_param is not None and analysis._param_owner(kv_param) is not owner
    ):
        return []
    out = []
    closure = analysis.enclosing_function(call) is not owner  # the plan runs in a closure owner returns
    for caller, skip, _ in analysis._callers_of(owner):
        q_value = q_arg if q_param is None else _passed_or_default(analysis, caller, owner, q_param, skip)
        kv_value = kv_arg if kv_param is None else _passed_or_default(analysis, caller, owner, kv_param, skip)
        fell = False  # a left-out parameter replaced by its fallback, evaluated in the helper
        if q_back and _is_none_literal(q_value):
            q_value, fell = _fallen_to(q_back[1], kv_arg, kv_value), True
        if kv_back and _is_none_literal(kv_value):
            kv_value, fell = _fallen_to(kv_back[1], q_arg, q_value), True
        if q_value is None or kv_value is None:
            continue  # a default or a star argument: unknown here
        further = dtypes_from_callers(analysis, caller, q_value, kv_value, depth + 1)
        if further:
            out.extend((call, q, kv) if closure else (at, q, kv) for at, q, kv in further)
        else:
            # both from the signature's defaults: the helper's own plan forces them, reported there
            defaulted = fell or all(p is None or v is p.default for p, v in ((q_param, q_value), (kv_param, kv_value)))
            at = call if defaulted or closure else caller  # a factory's call binds the closure's plan
            out.append((at, analysis.resolve_value(q_value), analysis.resolve_value(kv_value)))
    for binding, skip in _partial_bindings(analysis, owner):
        # `plan_bf16 = functools.partialmethod(_plan, q_dtype=..., kv_dtype=...)`: what every call of the
        # bound callable plans, fixed where it is bound; reported at the helper's plan, as a default is
        q_value = q_arg if q_param is None else analysis._argument_for(binding, owner, q_param, skip_self=skip)
        kv_value = kv_arg if kv_param is None else analysis._argument_for(binding, owner, kv_param, skip_self=skip)
        if q_value is not None and kv_value is not None:
            out.append((call, analysis.resolve_value(q_value), analysis.resolve_value(kv_value)))
    return out


def _partial_bindings(analysis: ModuleAnalysis, owner: cst.FunctionDef) -> List[Tuple[cst.Call, bool]]:
    """(the binding as a call of owner, whether owner's self is left out) for each partial of owner
    the module makes ([callables] partial_callables, partial_methods: `partial(helper, ...)`,
    `partial(self._plan, ...)`, `partialmethod(_plan, ...)` in owner's class body)."""
    t = analysis.tables
    method = analysis.method_class(owner) is not None
    out = []
    for call in analysis.nodes.calls:
        if not call.args or call.args[0].star or call.args[0].keyword is not None:
            continue
        if not analysis._named_in(call.func, t.partial_callables | t.partial_methods):
            continue
        held = call.args[0].value
        if isinstance(held, cst.Name) and held.value == owner.name.value:
            named = analysis.method_class(owner) is analysis.method_class_of_body(call) if method else True
        elif isinstance(held, cst.Attribute) and held.attr.value == owner.name.value and method:
            named = isinstance(held.value, cst.Name) and held.value.value == "self"
        else:
            named = False
        if named:
            binding = cst.Call(func=held, args=call.args[1:])
            analysis.parents.setdefault(binding, analysis.parents.get(call))
            out.append((binding, method))
    return out
