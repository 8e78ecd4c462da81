"""Can a dtype cast move after the gather that follows it? (CL003 and its codemod)

`pool.to(d)[idx]` -> `pool[idx].to(d)`; `pool.to(d).index_select(0, i)` ->
`pool.index_select(0, i).to(d)`; `x = pool.to(d)` used only as `x[idx]` ->
`x = pool` and `x[idx].to(d)`. An elementwise conversion commutes with a
gather, so the values are bit-identical *if nothing else changes between the
old and the new position of the cast*. `assess()` proves that, or says why not:

- every read of the converted value is rewritten: uses in comprehensions,
  lambdas and nested functions included (they are found through the
  assignment's references, not only the function scope's accesses);
- the dtype/device expressions read at the new position are the ones read at
  the old one: no rebinding of their names (assignment, `for`, `with ... as`,
  walrus, `del`, import, def) and no assignment to an attribute of their chain
  in between; no comprehension or lambda that shadows them at the use;
- nothing in between writes to the source tensor: the old code gathered from a
  snapshot taken at the cast, the new one from the live pool. A write is an
  index assignment into the pool or an alias of it, an augmented assignment of
  an alias, an in-place method (`copy_`, `index_copy_`, any `*_`) on one,
  `set_kv_buffer`-like stores on any receiver.

Those are definite problems: the fix is not offered, and the finding says why.
What may or may not write or rebind - a call that receives the pool, its owner
or an object on the dtype's attribute chain, a method of the pool owner that is
not a known read, a use that runs later (lambda, nested def, generator), an
`await`/`yield` in between, a dtype expression that is itself a call, a cast
that also moves devices or takes another tensor's dtype and device - makes the
fix *unsafe*: offered only with --unsafe-fixes, with the reason.

CL003 calls `assess()` and attaches the result to its finding, so a finding carries
`[*]` exactly when castlint.fixes.cast_after_gather applies it by default.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import List, Optional, Sequence, Set, Tuple

import libcst as cst

from castlint.analysis.dataflow import Origin, dotted, iter_nodes
from castlint.analysis.gathers import gathered_cast, names_dtype_attribute
from castlint.models import FixSafety

_SCOPES = (cst.FunctionDef, cst.Lambda, cst.ClassDef)
_COMPREHENSIONS = (cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)
_STATEMENTS = (cst.BaseSmallStatement, cst.BaseCompoundStatement)


@dataclass(frozen=True)
class CastMove:
    """How (and whether) one CL003 finding is fixed."""

    form: str  # "direct" | "variable"
    safety: Optional[FixSafety]  # None: the fix is not offered
    reason: str = ""  # why unsafe / why not offered; "" when safe
    uses: Tuple[cst.Name, ...] = field(default=(), compare=False)  # variable form: every read to rewrite
    call: Optional[cst.Call] = field(default=None, compare=False)  # the outermost cast of the chain
    depth: int = 1  # how many casts are stacked: `pool.to(a).to(b)` is 2; all move at once


# -- small helpers -------------------------------------------------------------


def chain_depth(analysis, call: cst.Call) -> int:
    """How many dtype casts of a pool are stacked here: `pool.to(a).to(b)` is 2.

    The gather moves below all of them at once, so one fix run settles the chain."""
    depth, node = 1, call.func.value
    while (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)
           and analysis.cast_target(node) is not None and names_dtype_attribute(node) | _names_a_dtype(analysis, node)):
        depth, node = depth + 1, node.func.value
    return depth


def _names_a_dtype(analysis, call: cst.Call) -> bool:
    target = analysis.cast_target(call)
    return target is not None and not target.endswith(".dtype")


def cast_chain(call: cst.Call, depth: int) -> Tuple[cst.BaseExpression, List[cst.Call]]:
    """(the pool expression, the casts applied to it, innermost first)."""
    chain, node = [], call
    for _ in range(depth):
        chain.append(node)
        node = node.func.value
    return node, list(reversed(chain))


def _pos(analysis, node) -> Tuple[int, int, int, int]:
    """Position in the analysed tree (a pruned copy keeps its own coordinates)."""
    r = analysis.positions[node]
    return r.start.line, r.start.column, r.end.line, r.end.column


def _line(analysis, node) -> int:
    return analysis.position(node).start.line


def _code(analysis, node, limit: int = 60) -> str:
    text = " ".join(analysis.code(node).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _is_prefix(short: str, long: str) -> bool:
    return long == short or long.startswith(short + ".")


def _root(expr: cst.BaseExpression) -> Optional[cst.BaseExpression]:
    """The object an expression is taken from: `a.b[i].c(x)` -> `a.b` (dotted), `x` -> `x`."""
    node = expr
    while True:
        if isinstance(node, (cst.Name, cst.Attribute)) and dotted(node) is not None:
            return node
        if isinstance(node, cst.Subscript):
            node = node.value
        elif isinstance(node, cst.Attribute):
            node = node.value
        elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
            node = node.func.value
        else:
            return None


def _owner_chains(analysis, pool: cst.BaseExpression, depth: int = 0) -> Set[str]:
    """Dotted chains naming the pool tensor or the object it is read from:
    `self.token_to_kv_pool.get_key_buffer(i)` -> {self.token_to_kv_pool};
    `self.kv_buffer[i]` -> {self.kv_buffer}; a local alias -> its own chains too."""
    chains: Set[str] = set()
    node = pool
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
        node = node.func.value
    root = _root(node)
    if root is None:
        return chains
    text = dotted(root)
    chains.add(text)
    if isinstance(root, cst.Name) and depth < 4:
        scope = analysis.scopes.get(root)
        if scope is not None:
            for asg in scope.assignments[root.value]:
                if isinstance(asg.node, cst.Name):
                    value, _ = analysis.assigned_value(asg.node)
                    if value is not None:
                        chains |= _owner_chains(analysis, value, depth + 1)
    return chains


# -- where the code between the old and the new cast position lies ----------------


def _in_loop_with(analysis, node, stop) -> List[cst.CSTNode]:
    """Loops around node, innermost first, up to (not including) stop."""
    loops = []
    for anc in analysis.ancestors(node):
        if anc is stop:
            break
        if isinstance(anc, (cst.For, cst.While)):
            loops.append(anc)
        if isinstance(anc, _SCOPES):
            break
    return loops


def _contains(analysis, outer, inner) -> bool:
    return any(anc is outer for anc in analysis.ancestors(inner))


def _region_nodes(analysis, body: cst.CSTNode, start: Tuple[int, int], end: Tuple[int, int], skip: Set[int],
                  after: Set[int] = frozenset()):
    """Nodes of body that start inside [start, end), not descending into defs/lambdas
    (defined, not run) or into the nodes in skip. Nodes in `after` (what encloses a gather,
    and so runs after it: `f(x[i])`) are not yielded, but their other parts are."""
    stack = [body.body if isinstance(body, cst.FunctionDef) else body]
    while stack:
        node = stack.pop()
        if id(node) in skip:
            continue
        p = _pos(analysis, node)
        if (p[2], p[3]) <= start or (p[0], p[1]) >= end:
            continue  # entirely outside
        if (p[0], p[1]) >= start and id(node) not in after:
            yield node
        if isinstance(node, cst.FunctionDef):
            stack.extend(list(node.decorators) + list(iter_nodes(node.params, cst.Param)))
            continue
        if isinstance(node, cst.Lambda):
            stack.append(node.params)
            continue
        stack.extend(reversed(node.children))


def _binds(node: cst.CSTNode) -> List[cst.BaseExpression]:
    """Targets a statement/expression node binds or deletes (in its own scope)."""
    if isinstance(node, cst.Assign):
        return [t.target for t in node.targets]
    if isinstance(node, (cst.AnnAssign, cst.AugAssign)):
        return [node.target]
    if isinstance(node, cst.NamedExpr):
        return [node.target]
    if isinstance(node, cst.For):
        return [node.target]
    if isinstance(node, cst.WithItem) and node.asname is not None:
        return [node.asname.name]
    if isinstance(node, cst.ExceptHandler) and node.name is not None:
        return [node.name.name]
    if isinstance(node, cst.Del):
        return [node.target]
    if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
        return [node.name]
    if isinstance(node, (cst.Import, cst.ImportFrom)) and not isinstance(node.names, cst.ImportStar):
        out = []
        for alias in node.names:
            if alias.asname is not None:
                out.append(alias.asname.name)
            else:
                out.append(cst.Name(dotted(alias.name).split(".")[0]) if dotted(alias.name) else alias.name)
        return out
    return []


def _flat_targets(target: cst.BaseExpression) -> List[cst.BaseExpression]:
    if isinstance(target, (cst.Tuple, cst.List)):
        out = []
        for el in target.elements:
            out.extend(_flat_targets(el.value))
        return out
    if isinstance(target, cst.StarredElement):
        return _flat_targets(target.value)
    return [target]


def _comp_targets(node: cst.CSTNode) -> Set[int]:
    """ids of comprehension `for` targets (they bind in the comprehension's own scope)."""
    ids: Set[int] = set()
    for comp in iter_nodes(node, cst.CompFor):
        for t in iter_nodes(comp.target, cst.Name):
            ids.add(id(t))
    return ids


# -- the dtype / device expressions that move -------------------------------------


@dataclass
class _Moved:
    """What the moved casts read: names, attribute chains, and why that may be unsafe."""

    names: Set[str] = field(default_factory=set)  # root names
    chains: Set[str] = field(default_factory=set)  # dotted chains (len >= 2)
    owners: Set[str] = field(default_factory=set)  # proper prefixes whose methods may rebind the chain
    unsafe: List[str] = field(default_factory=list)


def _moved_expressions(analysis, casts: Sequence[cst.Call]) -> _Moved:
    moved = _Moved()
    for cast in casts:
        for arg in cast.args:
            if arg.keyword is not None and arg.keyword.value in analysis.tables.cast_flags:
                if not isinstance(arg.value, (cst.Name, cst.Integer)) and dotted(arg.value) is None:
                    moved.unsafe.append(f"the cast's `{arg.keyword.value}=` argument `{_code(analysis, arg.value)}` "
                                        "would be evaluated at each gather")
                continue
            value = arg.value
            if isinstance(value, (cst.SimpleString, cst.Integer, cst.Float)):
                continue
            text = dotted(value)
            if text is None or arg.star:
                moved.unsafe.append(f"the cast's argument `{_code(analysis, value)}` is not a plain name or attribute "
                                    "and would be evaluated at a different point")
                continue
            parts = text.split(".")
            moved.names.add(parts[0])
            if _import_bound(analysis, value):
                continue  # torch.bfloat16 & co: a module attribute
            if len(parts) >= 2:
                moved.chains.add(text)
                # `q.dtype`, `self.q.dtype`: the tensor's own dtype cannot change, but a method
                # of self may rebind self.q; `self.dtype`, `self.model_runner.dtype`: a method of
                # self (or of the model runner) may rebind the attribute.
                for i in range(1, len(parts)):
                    prefix = parts[:i]
                    if i == len(parts) - 1 and parts[-1] in ("dtype", "device") and prefix not in (["self"], ["cls"]):
                        continue
                    moved.owners.add(".".join(prefix))
    return moved


def _import_bound(analysis, expr: cst.BaseExpression) -> bool:
    node = expr
    while isinstance(node, cst.Attribute):
        node = node.value
    if not isinstance(node, cst.Name):
        return False
    scope = analysis.scopes.get(node)
    while scope is not None:
        assignments = list(scope.assignments[node.value])
        if assignments:
            return all(isinstance(asg.node, (cst.Import, cst.ImportFrom)) for asg in assignments)
        parent = getattr(scope, "parent", None)
        scope = parent if parent is not scope else None
    return False


# -- the assessment ----------------------------------------------------------------


class _Verdict:
    def __init__(self):
        self.refuse: List[str] = []
        self.unsafe: List[str] = []

    def plan(self, form: str, uses=()) -> CastMove:
        if self.refuse:
            return CastMove(form, None, self.refuse[0], tuple(uses))
        if self.unsafe:
            return CastMove(form, FixSafety.UNSAFE, self.unsafe[0], tuple(uses))
        return CastMove(form, FixSafety.SAFE, "", tuple(uses))


def _touches(analysis, expr: cst.BaseExpression, owners: Set[str], aliases: Set[str]) -> bool:
    """Does expr denote the source tensor, a view of it, or an object it is read from?

    Gathered rows (`x[idx]`, `x.index_select(...)`) are copies: passing them on writes nothing back."""
    if isinstance(expr, cst.Subscript) and not analysis.subscript_keeps_whole(expr):
        return False
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) and (
            expr.func.attr.value in analysis.tables.gather_methods):
        return False
    if isinstance(expr, cst.Name) and expr.value in aliases:
        return True
    root = _root(expr)
    if root is not None:
        text = dotted(root)
        if text.split(".")[0] in aliases:
            return True
        if any(_is_prefix(text, o) or _is_prefix(o, text) for o in owners):
            return True
    try:
        return analysis.origin(expr) >= Origin.POOL_TUPLE
    except Exception:  # noqa: BLE001 - a node the analysis never indexed
        return False


def _check_region(analysis, verdict: _Verdict, nodes, moved: _Moved, owners: Set[str], aliases: Set[str],
                  comp_targets: Set[int], where: str):
    """Look for writes to the source and rebinding of the moved expressions among nodes."""
    for node in nodes:
        line = _line(analysis, node)
        _check_bindings(analysis, verdict, node, line, where, moved, owners, aliases, comp_targets)
        if isinstance(node, (cst.Await, cst.Yield)):
            verdict.unsafe.append(f"line {line} suspends the function {where} (other code may write the pool)")
        if isinstance(node, cst.Call):
            _check_call(analysis, verdict, node, line, where, moved, owners, aliases)


def _check_bindings(analysis, verdict: _Verdict, node, line: int, where: str, moved: _Moved, owners: Set[str],
                    aliases: Set[str], comp_targets: Set[int]) -> None:
    """What node binds: a moved name, an attribute on a moved chain, rows of the pool, the pool in place."""
    # rebinding of a moved name, or of an attribute on a moved chain
    for target in _binds(node):
        for leaf in _flat_targets(target):
            if isinstance(leaf, cst.Name) and id(leaf) not in comp_targets and leaf.value in moved.names:
                verdict.refuse.append(f"`{leaf.value}` is rebound at line {line} {where}; the moved cast "
                                      "would read the new value")
            elif isinstance(leaf, cst.Attribute) and dotted(leaf) is not None and any(
                    _is_prefix(dotted(leaf), c) for c in moved.chains):
                verdict.refuse.append(f"`{dotted(leaf)}` is assigned at line {line} {where}; the moved cast "
                                      "would read the new value")
            elif isinstance(leaf, (cst.Subscript, cst.Attribute)) and not isinstance(node, (cst.For, cst.Del)) \
                    and _touches(analysis, leaf.value, owners, aliases):
                if isinstance(leaf, cst.Subscript) or leaf.attr.value == "data":
                    verdict.refuse.append(f"line {line} writes into the pool (`{_code(analysis, leaf)} = ...`) "
                                          f"{where}; the gather would read the new values")
            elif isinstance(leaf, cst.Name) and isinstance(node, cst.AugAssign) and leaf.value in aliases:
                operator = _code(analysis, node.operator)
                verdict.refuse.append(f"line {line} updates the pool in place (`{leaf.value} {operator} ...`) "
                                      f"{where}; the gather would read the new values")


def _check_call(analysis, verdict: _Verdict, node: cst.Call, line: int, where: str, moved: _Moved, owners: Set[str],
                aliases: Set[str]) -> None:
    """A call in between: a store into a pool, a method of the pool or its owner, the pool passed on."""
    tables = analysis.tables
    func = node.func
    name = analysis.call_name(node) or ""
    method = func.attr.value if isinstance(func, cst.Attribute) else None
    receiver = func.value if isinstance(func, cst.Attribute) else None
    if method is not None and method.startswith("set_") and any(w in method for w in ("kv", "buffer", "cache")):
        verdict.refuse.append(f"line {line} stores into a KV pool (`{_code(analysis, func)}(...)`) {where}; the gather "
                              "would read values written after the original cast")
        return
    if method is not None and receiver is not None and _touches(analysis, receiver, owners, aliases):
        if method.endswith("_") and not method.endswith("__"):
            verdict.refuse.append(f"line {line} modifies the pool in place (`.{method}(...)`) {where}; the "
                                  "gather would read the new values")
            return
        known = (method in tables.read_methods or method in tables.accessors or method in tables.gather_methods
                 or method in tables.view_methods or method in tables.casts or method in tables.reinterpret_methods)
        if not known:
            verdict.unsafe.append(f"line {line} calls `{_code(analysis, func)}(...)` on the pool or its owner {where}; "
                                  "it may write the pool")
            return
    elif method is not None and receiver is not None and dotted(receiver) in moved.owners:
        verdict.unsafe.append(f"line {line} calls `{_code(analysis, func)}(...)` {where}; it may rebind what the "
                              "cast's dtype is read from")
        return
    if name in tables.read_functions:
        return
    for arg in node.args:
        if _touches(analysis, arg.value, owners, aliases):
            if name.endswith("_") and not name.endswith("__"):
                verdict.refuse.append(f"line {line} modifies the pool in place (`{_code(analysis, func)}(...)`) "
                                      f"{where}; the gather would read the new values")
            else:
                verdict.unsafe.append(f"line {line} passes the pool or its owner to `{_code(analysis, func)}(...)` "
                                      f"{where}; it may write the pool")
            break
        text = dotted(arg.value)
        if text is not None and text in moved.owners:
            verdict.unsafe.append(f"line {line} passes `{text}` to `{_code(analysis, func)}(...)` {where}; it may "
                                  "rebind what the cast's dtype is read from")
            break


def _scope_root(analysis, node) -> cst.CSTNode:
    """The function (or module) whose code runs around node."""
    for anc in analysis.ancestors(node):
        if isinstance(anc, (cst.FunctionDef, cst.Module)):
            return anc
    return analysis.module


def _deferred(analysis, use, stop) -> Optional[str]:
    """Why a use runs at some other time than the statement it is written in, if it does."""
    for anc in analysis.ancestors(use):
        if anc is stop:
            return None
        if isinstance(anc, cst.Lambda):
            return "a lambda"
        if isinstance(anc, cst.FunctionDef):
            return f"the nested function `{anc.name.value}`"
        if isinstance(anc, cst.GeneratorExp):
            parent = analysis.parent(anc)
            call = analysis.parent(parent) if isinstance(parent, cst.Arg) else parent
            consumer = (analysis.call_name(call) or "").replace("builtins.", "") if isinstance(call, cst.Call) else ""
            if consumer not in analysis.tables.eager_consumers:
                return "a generator expression"
        if isinstance(anc, cst.ClassDef):
            return f"the class body `{anc.name.value}`"
    return None


def _shadowing(analysis, use, stop, names: Set[str]) -> Optional[str]:
    """A comprehension/lambda/def between use and stop that binds one of names."""
    for anc in analysis.ancestors(use):
        if anc is stop:
            return None
        bound: Set[str] = set()
        if isinstance(anc, _COMPREHENSIONS):
            for comp in iter_nodes(anc, cst.CompFor):
                bound |= {n.value for n in iter_nodes(comp.target, cst.Name)}
        elif isinstance(anc, (cst.Lambda, cst.FunctionDef)):
            bound |= {p.name.value for p in iter_nodes(anc.params, cst.Param)}
            if isinstance(anc, cst.FunctionDef):
                for node in iter_nodes(anc.body, (cst.Assign, cst.AugAssign, cst.AnnAssign, cst.For)):
                    for target in _binds(node):
                        bound |= {leaf.value for leaf in _flat_targets(target) if isinstance(leaf, cst.Name)}
        hit = bound & names
        if hit:
            return f"`{sorted(hit)[0]}` is a different variable at the gather on line {_line(analysis, use)}"
    return None


def _stored_to(analysis, node) -> bool:
    """Is node (a subscript) assigned to or deleted, rather than read?"""
    child, holder = node, analysis.parent(node)
    while isinstance(holder, (cst.Element, cst.StarredElement, cst.Tuple, cst.List)):
        child, holder = holder, analysis.parent(holder)
    if isinstance(holder, (cst.AssignTarget, cst.Del)):
        return True
    if isinstance(holder, (cst.AugAssign, cst.AnnAssign, cst.For, cst.CompFor)):
        return holder.target is child
    if isinstance(holder, cst.AsName):
        return True
    return False


def _use_problem(analysis, use: cst.Name) -> Optional[str]:
    """A read of the converted variable that the rewrite cannot turn into gather-then-cast."""
    parent = analysis.parent(use)
    line = _line(analysis, use)
    if isinstance(parent, cst.Subscript) and parent.value is use:
        if analysis.subscript_keeps_whole(parent):
            return f"line {line} reads the converted pool whole (`{_code(analysis, parent)}`)"
        holder = analysis.parent(parent)
        if _stored_to(analysis, parent):
            return f"line {line} writes into the converted pool (`{_code(analysis, parent)}`)"
        if isinstance(holder, cst.Attribute) and holder.value is parent:
            method = holder.attr.value
            if method.endswith("_") and not method.endswith("__"):
                return f"line {line} modifies rows of the converted pool in place (`.{method}(...)`)"
        return None
    if isinstance(parent, cst.Attribute) and parent.value is use \
            and parent.attr.value in analysis.tables.gather_methods and isinstance(analysis.parent(parent), cst.Call):
        return None
    shown = _code(analysis, parent if parent is not None else use)
    return f"line {line} uses the converted pool as `{shown}`, not as a gather"


def _in_fstring(analysis, node) -> bool:
    return any(isinstance(anc, cst.FormattedString) for anc in analysis.ancestors(node))


def assess(analysis, call: cst.Call) -> Optional[CastMove]:
    """The fix for the CL003 finding at `call`, or None when `call` is no CL003 candidate."""
    move = _assess(analysis, call)
    return None if move is None else replace(move, call=call, depth=chain_depth(analysis, call))


def _assess(analysis, call: cst.Call) -> Optional[CastMove]:
    form = gathered_cast(analysis, call)
    if form is None:
        return None
    verdict = _Verdict()
    pool, casts = cast_chain(call, chain_depth(analysis, call))
    _check_cast_arguments(analysis, verdict, casts)
    moved = _moved_expressions(analysis, casts)
    verdict.unsafe += moved.unsafe
    owners = _owner_chains(analysis, pool)
    if _in_fstring(analysis, call):
        verdict.refuse.append("the cast is inside an f-string")
    if form == "direct":
        return _assess_direct(analysis, call, verdict, moved, owners)
    return _assess_variable(analysis, call, form, verdict, moved, owners)


def _check_cast_arguments(analysis, verdict: _Verdict, casts: Sequence[cst.Call]) -> None:
    """A cast that also moves the tensor to another device cannot be applied to the gathered rows as is."""
    for cast in casts:
        target = analysis.cast_target(cast) or ""
        if target.endswith(".dtype") and not names_dtype_attribute(cast):
            verdict.unsafe.append("the cast takes another tensor's dtype *and device* (`.to(other)`); the index "
                                  "would be applied on the pool's device")
        elif any((arg.keyword is not None and arg.keyword.value == "device")
                 or (arg.keyword is None and analysis.device_like(arg.value) and not analysis.dtype_like(arg.value))
                 for arg in cast.args):
            verdict.unsafe.append("the cast also moves the tensor to another device; the index would be applied "
                                  "on the pool's device")


def _assess_direct(analysis, call: cst.Call, verdict: _Verdict, moved: _Moved, owners: Set[str]) -> CastMove:
    """`pool.to(d)[idx]`, `pool.to(d).index_select(0, i)`: after the fix the index runs before the cast."""
    gather = analysis.parent(call)
    if isinstance(gather, cst.Subscript) and _stored_to(analysis, gather):
        verdict.refuse.append(f"the gathered rows are assigned to (`{_code(analysis, gather)}`); the rewrite cannot "
                              "express that")
    if isinstance(gather, cst.Subscript):
        moved_over = [gather.slice]
    else:  # .index_select(...) and friends: the call's arguments run before the cast now
        moved_over = [analysis.parent(gather).args]
    nodes = []
    for part in moved_over:
        for item in (part if isinstance(part, (list, tuple)) else [part]):
            nodes.extend(n for n in iter_nodes(item, cst.CSTNode) if not isinstance(n, cst.Lambda))
    _check_region(analysis, verdict, nodes, moved, owners, set(), set(), "in the index, evaluated before the cast "
                  "after the fix")
    return verdict.plan("direct")


def _assess_variable(analysis, call: cst.Call, form: str, verdict: _Verdict, moved: _Moved,
                     owners: Set[str]) -> CastMove:
    """`x = <pool casts>` and reads of x below: each read `x[idx]` becomes `x[idx].to(d)`."""
    assign = analysis.parent(call)
    name = assign.targets[0].target
    scope = analysis.scopes[name]
    assignment = next(iter(scope.assignments[name.value]))
    # the function scope's own reads (those before the assignment too) and reads in nested scopes
    reads = {access.node for access in scope.accesses[name.value]} | {r.node for r in assignment.references}
    uses = sorted((n for n in reads if isinstance(n, cst.Name)), key=lambda n: _pos(analysis, n))
    if not uses:
        verdict.refuse.append("the converted pool is never read")
        return verdict.plan(form)
    body = _scope_root(analysis, assign)
    start, end, enclosing = _span_to_uses(analysis, verdict, assign, uses, body, moved)
    aliases = {name.value} | _pool_aliases(analysis, body)
    skip = {id(call)} | {id(u) for u in uses}
    nodes = [n for n in _region_nodes(analysis, body, start, end, skip, enclosing) if n is not assign]
    _check_region(analysis, verdict, nodes, moved, owners, aliases, _comp_targets(body),
                  f"between the cast (line {_line(analysis, call)}) and a gather")
    return verdict.plan(form, uses)


def _span_to_uses(analysis, verdict: _Verdict, assign, uses: List[cst.Name], body, moved: _Moved):
    """(start, end, enclosing): the code that runs between the conversion and its reads lies in
    [start, end), less the expressions that enclose a read (ids in enclosing: they run after it).
    Reads the rewrite cannot take are refused on the way."""
    assign_pos = _pos(analysis, assign)
    start, end = (assign_pos[2], assign_pos[3]), (assign_pos[2], assign_pos[3])
    deferred = []
    enclosing: Set[int] = set()
    for use in uses:
        problem = _use_problem(analysis, use)
        if problem is not None:
            verdict.refuse.append(problem)
            continue
        if _in_fstring(analysis, use):
            verdict.refuse.append(f"the gather on line {_line(analysis, use)} is inside an f-string")
        if _pos(analysis, use)[:2] < assign_pos[:2]:
            verdict.refuse.append(f"line {_line(analysis, use)} reads the converted pool before the line that "
                                  "converts it (a value from an earlier loop iteration)")
            continue
        later = _deferred(analysis, use, body)
        if later is not None:
            deferred.append((use, later))
        shadow = _shadowing(analysis, use, body, moved.names)
        if shadow is not None:
            verdict.refuse.append(shadow + "; the moved cast would read it")
        end = max(end, _pos(analysis, use)[2:])
        for anc in analysis.ancestors(use):  # the expressions around a gather run after it
            if anc is body or isinstance(anc, _STATEMENTS):
                break
            enclosing.add(id(anc))
        start, end = _widen_for_loops(analysis, assign, use, body, start, end)
    if deferred:
        use, why = deferred[0]
        verdict.unsafe.append(f"the gather on line {_line(analysis, use)} is in {why}, which runs later: anything may "
                              "write the pool or rebind the dtype before it")
        end = (_pos(analysis, body)[2], _pos(analysis, body)[3])
    return start, end, enclosing


def _widen_for_loops(analysis, assign, use: cst.Name, body, start, end):
    """[start, end) widened by the loops that run code between the conversion and this read again."""
    # a loop that repeats the use but not the conversion: its rest runs in between, too
    for loop in _in_loop_with(analysis, use, body):
        if not _contains(analysis, loop, assign):
            loop_pos = _pos(analysis, loop)
            end = max(end, (loop_pos[2], loop_pos[3]))
    # a conversion that does not run before every use in its loop: the whole loop is in between
    statement = analysis.parent(assign) if isinstance(analysis.parent(assign), cst.SimpleStatementLine) else assign
    suite = analysis.parent(statement)
    if not _contains(analysis, suite, use):
        for loop in _in_loop_with(analysis, assign, body):
            if _contains(analysis, loop, use):
                loop_pos = _pos(analysis, loop)
                start, end = min(start, (loop_pos[0], loop_pos[1])), max(end, (loop_pos[2], loop_pos[3]))
    # a conversion in a loop the use is not in: the loop may run it and more code again
    for loop in _in_loop_with(analysis, assign, body):
        if not _contains(analysis, loop, use):
            loop_pos = _pos(analysis, loop)
            start, end = min(start, (loop_pos[0], loop_pos[1])), max(end, (loop_pos[2], loop_pos[3]))
    return start, end


def _pool_aliases(analysis, body) -> Set[str]:
    """Local names in body that are ever assigned a whole pool (or a view of one)."""
    names: Set[str] = set()
    for node in iter_nodes(body, cst.Assign):
        try:
            whole = analysis.origin(node.value) >= Origin.POOL_TUPLE
        except Exception:  # noqa: BLE001
            whole = False
        if whole:
            for target in node.targets:
                names |= {leaf.value for leaf in _flat_targets(target.target) if isinstance(leaf, cst.Name)}
    return names
