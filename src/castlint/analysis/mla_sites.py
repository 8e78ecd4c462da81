"""Where sglang-style FlashInfer MLA backends read an FP8 pool, and whether the
MLA fix (castlint.checks.whole_pool_cast.fix) can rewrite it: the cast sites and plan
sites, and the reasons a site cannot be taken. CL001 uses `why_not_rewritable` to
decide whether a finding carries `[*]`; the codemod uses the same site finders.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional, Set, Tuple

import libcst as cst

from castlint.analysis.dataflow import ModuleAnalysis
from castlint.analysis.tree import iter_nodes
from castlint.analysis.wrappers import dtype_argument, match_wrapper
from castlint.tables import Tables


class RewriteRefused(Exception):
    """The file cannot be rewritten safely; the message says why (line, reason)."""

    def __init__(self, line: int, reason: str):
        super().__init__(reason)
        self.line, self.reason = line, reason


@dataclass
class CastSite:
    statement: cst.SimpleStatementLine
    variable: str
    cast: cst.Call
    function: cst.FunctionDef
    backend: cst.ClassDef
    wrapper: str  # source of the run() receiver, valid at the cast
    runs: List[cst.Call]
    local_read: str  # the local name that holds the read mode
    runs_in_block: Set[int]  # id(run) of runs that can use the local name


@dataclass
class PlanSite:
    call: cst.Call
    statement: cst.SimpleStatementLine
    wrapper: str
    qo_indptr: Optional[cst.Arg]
    kv_indptr: Optional[cst.Arg]
    kv_indices: Optional[cst.Arg]
    kv_arg: Optional[cst.BaseExpression]
    causal: Optional[cst.BaseExpression]
    owner: Optional[cst.ClassDef]  # the class whose __init__ provides self.fp8_kv_read
    redirect: bool  # False: record the cast path only (plan kv dtype kept)


# -- finding the sites --------------------------------------------------------------


def _is_pure(node: cst.BaseExpression) -> bool:
    """An expression that can be evaluated twice with the same result: names,
    attributes, constants, and subscripts of those."""
    if isinstance(node, (cst.Name, cst.Integer, cst.Float, cst.SimpleString)):
        return True
    if isinstance(node, cst.Attribute):
        return _is_pure(node.value)
    if isinstance(node, cst.Subscript):
        return _is_pure(node.value) and all(
            isinstance(e.slice, cst.Index)
            and _is_pure(e.slice.value)
            or isinstance(e.slice, cst.Slice)
            and all(part is None or _is_pure(part) for part in (e.slice.lower, e.slice.upper, e.slice.step))
            for e in node.slice
        )
    if isinstance(node, cst.UnaryOperation):
        return _is_pure(node.expression)
    if isinstance(node, cst.BinaryOperation):
        return _is_pure(node.left) and _is_pure(node.right)
    return False


def _statement_of(analysis: ModuleAnalysis, node: cst.CSTNode) -> Optional[cst.SimpleStatementLine]:
    for parent in analysis.ancestors(node):
        if isinstance(parent, cst.SimpleStatementLine):
            return parent
        if isinstance(parent, (cst.BaseCompoundStatement, cst.Lambda, cst.FunctionDef)):
            return None
    return None


def _mla_arg_index(tables: Tables, name: str) -> Optional[int]:
    for row in tables.mla_signatures:
        names = row.get("plan_positional", [])
        if name in names:
            return names.index(name)
    return None


def is_mla_plan(tables: Tables, wrapper) -> bool:
    """An MLA plan: the MLA wrapper's method, or a function taking that wrapper first
    with the MLA plan's dtype positions one further (sglang's fast_mla_*_plan)."""
    if wrapper.mla:
        return True
    kv = _mla_arg_index(tables, "kv_data_type")
    return bool(wrapper.function and kv is not None and wrapper.kv_dtype.index == kv + 1)


def _plan_arg(call: cst.Call, function: bool, tables: Tables, name: str) -> Optional[cst.Arg]:
    names = {name}
    for row in tables.mla_signatures:
        names.update(row.get("plan_keyword_aliases", {}).get(name, ()))
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value in names:
            return arg
    index = _mla_arg_index(tables, name)
    positional = [arg for arg in call.args if arg.keyword is None and not arg.star]
    if index is None:
        return None
    index += 1 if function else 0
    return positional[index] if index < len(positional) else None


def names_in(node: cst.CSTNode) -> Set[str]:
    return {n.value for n in iter_nodes(node, cst.Name)}


def cast_site(ctx, call: cst.Call) -> CastSite:
    """Check one cast and describe it; RewriteRefused says why it cannot be rewritten."""
    analysis = ctx.analysis
    line = analysis.position(call).start.line
    assign = analysis.parent(call)
    statement = analysis.parent(assign) if assign is not None else None
    if not (
        isinstance(assign, cst.Assign)
        and len(assign.targets) == 1
        and isinstance(assign.targets[0].target, cst.Name)
        and isinstance(statement, cst.SimpleStatementLine)
        and len(statement.body) == 1
    ):
        raise RewriteRefused(line, "the cast is not a plain `name = pool.to(...)` statement")
    if not (isinstance(call.func, cst.Attribute) and call.func.attr.value == "to"):
        raise RewriteRefused(line, "only `.to(...)` casts are rewritten")
    function, backend = analysis.enclosing_function(call), analysis.enclosing_class(call)
    if function is None or backend is None:
        raise RewriteRefused(line, "the cast is not in a backend method")
    variable = assign.targets[0].target.value
    run_method = _run_method(ctx)
    runs, readers = [], []
    target = assign.targets[0].target
    facts = _function_facts(analysis, function)
    for name in facts["names"]:
        if name.value != variable or name is target or analysis.position(name).start.line < line:
            continue
        run = _enclosing_run(analysis, name, run_method)
        if run is None and _in_view_rebinding(analysis, name, variable):
            continue
        if run is None:
            readers.append(name)
        elif run not in runs:
            runs.append(run)
    if readers:
        where = analysis.position(readers[0]).start.line
        raise RewriteRefused(
            line,
            f"`{variable}` is also read at line {where} by something other than "
            f"the attention run(); it would get the FP8 pool",
        )
    if not runs:
        raise RewriteRefused(line, f"`{variable}` feeds no {run_method}() call in the same method")
    _check_sources(ctx, call, target, runs, variable)
    _check_between(analysis, call, statement, function, runs)
    receivers = {analysis.code(run.func.value) for run in runs}
    if len(receivers) != 1:
        raise RewriteRefused(line, f"`{variable}` feeds run() of several wrappers ({', '.join(sorted(receivers))})")
    receiver = runs[0].func.value
    wrapper = analysis.code(receiver)
    if not _is_pure(receiver):
        raise RewriteRefused(line, f"the run() receiver `{wrapper}` is not a plain name or attribute")
    root = receiver
    while isinstance(root, (cst.Attribute, cst.Subscript)):
        root = root.value
    # the receiver must hold the same wrapper at the cast as at the run
    stop = max(analysis.position(run).start.line for run in runs)
    if isinstance(root, cst.Name) and root.value != "self":
        if any(line < at <= stop for at, _ in facts["bindings"].get(root.value, ())):
            raise RewriteRefused(line, f"`{root.value}` is rebound between the cast and run()")
    if isinstance(receiver, cst.Name):
        params = {p.name.value for p in function.params.params + function.params.kwonly_params}
        bound_before = receiver.value in params or any(
            top and at < line for at, top in facts["bindings"].get(receiver.value, ())
        )
        if not bound_before:
            raise RewriteRefused(line, f"the run() receiver `{wrapper}` is not bound before the cast")
    taken = {n.value for n in facts["names"]}
    local = next(
        n
        for n in ("kv_read", "mla_kv_read", "kv_read_mode") + tuple(f"kv_read_{i}" for i in range(9))
        if n not in taken
    )
    block = analysis.parent(statement)
    in_block = {id(run) for run in runs if _statement_in(analysis, run, block)}
    return CastSite(statement, variable, call, function, backend, wrapper, runs, local, in_block)


def _check_sources(ctx, call: cst.Call, target: cst.Name, runs: List[cst.Call], variable: str) -> None:
    """Every value of `variable` that reaches one of `runs` must be this cast's (or a reshape of it),
    or a buffer the tables declare with an init-time switch that turns the read off
    ([kv_pool] dcp_buffer_attribute / dcp_attribute); else RewriteRefused: the plan would
    declare the pool's read while run() gets the other buffer."""
    analysis = ctx.analysis
    line = analysis.position(call).start.line
    declared = ctx.tables.kv_pool.get("dcp_buffer_attribute")
    switch = ctx.tables.kv_pool.get("dcp_attribute")
    switched = switch is not None and any(a.attr.value == switch for a in analysis.nodes.attributes)
    for run in runs:
        for arg in run.args:
            for name in iter_nodes(arg.value, cst.Name):
                if name.value != variable:
                    continue
                for assignment in analysis.reaching(name):
                    source = assignment.node
                    statement = _statement_of(analysis, source)
                    if source is target or (
                        statement is not None
                        and isinstance(source, cst.Name)
                        and _in_view_rebinding(analysis, source, variable)
                    ):
                        continue
                    code = analysis.code(statement.body[0]) if statement is not None else variable
                    other = statement is not None and declared is not None and declared in names_in(statement)
                    if other and switched:
                        continue
                    at = analysis.position(source).start.line
                    raise RewriteRefused(
                        line,
                        f"`{variable}` reaches run() at line {analysis.position(run).start.line} "
                        f"also from line {at} (`{code}`), which is not this pool: under a plan "
                        f"that reads the pool natively run() would get that buffer in the "
                        f"wrong dtype",
                    )


def _check_between(analysis: ModuleAnalysis, call: cst.Call, statement, function, runs: List[cst.Call]) -> None:
    """Nothing that may write the pool runs between the cast and a run() it feeds: the native read
    hands run() the pool itself, so run() would read what was stored after the cast instead of the
    snapshot the cast took. Under aliasing that is anything not proven harmless
    (castlint.analysis.cast_motion.unproven_effect: a call not proven read-only by rules/casts.toml
    [cast_motion], an attribute or index store, `with`, `del`, `await`/`yield`...), in the code
    after the cast, in run()'s own arguments, and in a loop that repeats run() without the cast."""
    from castlint.analysis.cast_motion import nodes_between, proven_on_a_copy, unproven_effect

    line = analysis.position(call).start.line
    at = analysis.position
    start = (at(statement).end.line, at(statement).end.column)
    cast_ancestors = {id(a) for a in analysis.ancestors(statement)}
    for run in runs:
        spans = [(start, (at(run).start.line, at(run).start.column))]
        spans += [
            ((at(a.value).start.line, at(a.value).start.column), (at(a.value).end.line, at(a.value).end.column))
            for a in run.args
        ]
        for loop in analysis.ancestors(run):
            if loop is function:
                break
            if isinstance(loop, (cst.For, cst.While)) and id(loop) not in cast_ancestors:
                spans.append(((at(loop).start.line, at(loop).start.column), (at(loop).end.line, at(loop).end.column)))
        for low, high in spans:
            for node in nodes_between(analysis, function, low, high, skip={id(run)} if low != start else ()):
                if node is run or _other_branch(analysis, node, run, function):
                    continue
                why = unproven_effect(analysis, node)
                if why is not None:
                    raise RewriteRefused(
                        line,
                        f"line {at(node).start.line} {why} between the cast and run() (line "
                        f"{at(run).start.line}), and is not proven read-only: under the native "
                        "read run() gets the pool itself and would read what that stores",
                    )
    proven_on_a_copy(analysis)


def _other_branch(analysis: ModuleAnalysis, node: cst.CSTNode, run: cst.Call, function) -> bool:
    """Is node in the other branch of an `if` that holds run() (so never runs before it)?"""
    run_ancestors = list(analysis.ancestors(run))
    run_ids = {id(a) for a in run_ancestors}
    child = node
    for anc in analysis.ancestors(node):
        if anc is function:
            return False
        if isinstance(anc, cst.If) and id(anc) in run_ids:
            node_side = child is anc.body
            run_side = any(a is anc.body for a in run_ancestors)
            return node_side != run_side
        child = anc
    return False


def _in_view_rebinding(analysis: ModuleAnalysis, name: cst.Name, variable: str) -> bool:
    """Is `name` part of `v = v.view(...)` / `v.reshape(...)`, reading v otherwise only as
    `v.shape[k]` for a non-row dimension? Such a reshape keeps the rows, whichever way
    the plan reads the pool (whole, gathered or as stored)."""
    statement = _statement_of(analysis, name)
    if statement is None or len(statement.body) != 1 or not isinstance(statement.body[0], cst.Assign):
        return False
    assign = statement.body[0]
    value = assign.value
    target = assign.targets[0].target if len(assign.targets) == 1 else None
    if not (
        isinstance(target, cst.Name)
        and target.value == variable
        and isinstance(value, cst.Call)
        and isinstance(value.func, cst.Attribute)
        and isinstance(value.func.value, cst.Name)
        and value.func.value.value == variable
        and value.func.attr.value in ("view", "reshape")
    ):
        return False
    if name is assign.targets[0].target or name is value.func.value:
        return True
    parent, grand = (
        analysis.parent(name),
        analysis.parent(analysis.parent(name)) if analysis.parent(name) is not None else None,
    )
    if not (
        isinstance(parent, cst.Attribute)
        and parent.attr.value == "shape"
        and isinstance(grand, cst.Subscript)
        and len(grand.slice) == 1
        and isinstance(grand.slice[0].slice, cst.Index)
    ):
        return False
    index = grand.slice[0].slice.value
    if isinstance(index, cst.UnaryOperation) and isinstance(index.operator, cst.Minus):
        return isinstance(index.expression, cst.Integer)
    return isinstance(index, cst.Integer) and int(index.value) >= 1


_FUNCTION_FACTS: dict = {}  # id(function) -> (function, facts)


def _function_facts(analysis: ModuleAnalysis, function: cst.FunctionDef) -> dict:
    """One walk of a function: its Name nodes, and per bound name the (line, top level?) of
    each binding (assignments, augmented and annotated ones, for/with targets, walrus)."""
    hit = _FUNCTION_FACTS.get(id(function))
    if hit is not None and hit[0] is function:
        return hit[1]
    names, bindings = [], {}

    def bind(target: cst.CSTNode, node: cst.CSTNode) -> None:
        statement = _statement_of(analysis, node) or node
        top = analysis.parent(statement) is function.body
        at = analysis.position(node).start.line
        for n in iter_nodes(target, cst.Name):
            bindings.setdefault(n.value, []).append((at, top))

    for node in iter_nodes(function.body, cst.CSTNode):
        if isinstance(node, cst.Name):
            names.append(node)
        elif isinstance(node, cst.AssignTarget):
            bind(node.target, node)
        elif isinstance(node, (cst.AugAssign, cst.AnnAssign, cst.NamedExpr)):
            bind(node.target, node)
        elif isinstance(node, cst.For):
            bind(node.target, node)
        elif isinstance(node, cst.WithItem) and node.asname is not None:
            bind(node.asname.name, node)
    facts = {"names": names, "bindings": bindings}
    if len(_FUNCTION_FACTS) > 64:
        _FUNCTION_FACTS.clear()
    _FUNCTION_FACTS[id(function)] = (function, facts)
    return facts


def _statement_in(analysis: ModuleAnalysis, node: cst.CSTNode, block: cst.CSTNode) -> bool:
    statement = _statement_of(analysis, node)
    return statement is not None and analysis.parent(statement) is block


def _enclosing_run(analysis: ModuleAnalysis, name: cst.Name, run_method: str) -> Optional[cst.Call]:
    """The run() call whose argument holds `name` (directly or sliced), if any."""
    node: cst.CSTNode = name
    for parent in analysis.ancestors(name):
        if isinstance(parent, (cst.Lambda, cst.FunctionDef, cst.BaseComp)):
            return None
        if isinstance(parent, cst.Arg):
            call = analysis.parent(parent)
            if (
                isinstance(call, cst.Call)
                and isinstance(call.func, cst.Attribute)
                and call.func.attr.value == run_method
                and parent.keyword is None
            ):
                return call
            return None
        if not isinstance(parent, (cst.Subscript, cst.SubscriptElement, cst.Index, cst.Slice)):
            return None
        if isinstance(parent, cst.Subscript) and parent.value is not node:
            return None  # the name is an index, not the sliced buffer
        node = parent
    return None


def _run_method(ctx) -> Optional[str]:
    wrapper = ctx.tables.mla_wrapper()
    return wrapper.run_method if wrapper is not None else None


def plan_site(ctx, call: cst.Call, wrapper, redirect: bool) -> PlanSite:
    analysis, t = ctx.analysis, ctx.tables
    line = analysis.position(call).start.line
    statement = _statement_of(analysis, call)
    if statement is None or len(statement.body) != 1:
        raise RewriteRefused(
            line, "the plan() call is not a statement of its own; the read choice must be made right before it"
        )
    if wrapper.function:
        positional = [arg for arg in call.args if arg.keyword is None and not arg.star]
        if not positional:
            raise RewriteRefused(line, "the plan function's wrapper argument is missing")
        receiver = positional[0].value
    else:
        receiver = call.func.value
    qo = _plan_arg(call, wrapper.function, t, "qo_indptr")
    kv_indptr = _plan_arg(call, wrapper.function, t, "kv_indptr")
    kv_indices = _plan_arg(call, wrapper.function, t, "kv_indices")
    causal = _plan_arg(call, wrapper.function, t, "causal")
    kv_arg = dtype_argument(call, wrapper, "kv")
    if redirect and (qo is None or kv_indptr is None or kv_indices is None or kv_arg is None):
        raise RewriteRefused(
            line,
            "plan() does not pass qo_indptr, kv_indptr, kv_indices and kv_data_type where rules/flashinfer.toml says",
        )
    for expr in (receiver, *(arg.value for arg in (qo, kv_indptr, kv_indices) if arg is not None)):
        if expr is not None and not _is_pure(expr):
            raise RewriteRefused(
                line,
                f"plan() argument `{analysis.code(expr)}` is not a plain name, attribute or "
                "subscript; evaluating it twice could change it",
            )
    owner = analysis.enclosing_class(call)
    return PlanSite(
        call,
        statement,
        analysis.code(receiver),
        qo,
        kv_indptr,
        kv_indices,
        kv_arg,
        causal.value if causal else None,
        owner,
        redirect,
    )


def why_not_rewritable(ctx, call: cst.Call) -> Optional[str]:
    """None if the MLA fix can take this cast and the plans its file makes; else why not."""
    return rewritable_site(ctx, call)[1]


def rewritable_site(ctx, call: cst.Call) -> Tuple[Optional[CastSite], Optional[str]]:
    """(the cast's CastSite, None) if the MLA fix can take this cast and the plans its file
    makes; else (None, why not).

    The file-level part (every other cast that feeds a run(), every MLA plan) is worked
    out once per analysed module, not once per cast."""
    try:
        site = cast_site(ctx, call)
    except RewriteRefused as exc:
        return None, exc.reason
    file_reasons = _file_reasons(ctx)
    for other, reason in file_reasons["casts"]:
        if other is not call:
            return None, reason
    why_not = file_reasons["runs"] or file_reasons["plans"]
    return (None, why_not) if why_not else (site, None)


_FILE_REASONS: dict = {}  # id(ModuleAnalysis) -> (the analysis, its reasons); a handful at a time


def _file_reasons(ctx) -> dict:
    analysis = ctx.analysis
    hit = _FILE_REASONS.get(id(analysis))
    if hit is not None and hit[0] is analysis:
        return hit[1]
    casts, fed = [], set()
    for other, _ in analysis.pool_casts():
        if not feeds_a_run(ctx, other):
            continue
        try:
            fed |= {id(run) for run in cast_site(ctx, other).runs}
        except RewriteRefused as exc:
            casts.append(
                (
                    other,
                    f"the cast at line {exc.line} in this file cannot be rewritten ({exc.reason}), "
                    "and the plans it shares with this one must not change",
                )
            )
    plans = (
        "no plan() of an MLA wrapper in this file passes qo_indptr, kv_indices and kv_data_type where the "
        "fix can redirect them"
    )
    try:
        for other in analysis.nodes.calls:
            wrapper = match_wrapper(ctx.analysis, other)
            if wrapper is None or not is_mla_plan(ctx.tables, wrapper):
                continue
            site = plan_site(ctx, other, wrapper, redirect=False)
            if site.qo_indptr is not None and site.kv_indices is not None and site.kv_arg is not None:
                plans = None
    except RewriteRefused as exc:
        plans = exc.reason
    reasons = {"casts": casts, "plans": plans, "runs": _unaccounted_run(ctx, fed)}
    if len(_FILE_REASONS) > 8:
        _FILE_REASONS.clear()
    _FILE_REASONS[id(analysis)] = (analysis, reasons)
    return reasons


def _mla_run_shaped(tables: Tables, call: cst.Call) -> bool:
    """A run() call in the MLA wrapper's form: its four positional tensors (q_nope, q_pe, ckv, kpe)
    or a keyword of rules/flashinfer.toml's run signatures."""
    keywords = {
        name for row in tables.mla_signatures for name in (*row.get("run_positional", ()), *row.get("run_keywords", ()))
    }
    positional = [a for a in call.args if a.keyword is None and not a.star]
    return len(positional) >= 4 or any(a.keyword is not None and a.keyword.value in keywords for a in call.args)


def _unaccounted_run(ctx, fed: Set[int]) -> Optional[str]:
    """Every value that reaches a rewritten run() is accounted for: a plan the fix redirects to the
    pool's dtype is shared by every run() of its wrapper, so an MLA-shaped run() that no rewritten
    cast feeds (a draft buffer, a BF16 copy of something else) would get a buffer in the wrong dtype.
    The proof cannot tell which wrapper a run() uses, so any such run() in the file refuses it."""
    analysis = ctx.analysis
    method = _run_method(ctx)
    if method is None:
        return None
    for run in analysis.nodes.calls:
        if (
            isinstance(run.func, cst.Attribute)
            and run.func.attr.value == method
            and id(run) not in fed
            and _mla_run_shaped(ctx.tables, run)
        ):
            return (
                f"the {method}() at line {analysis.position(run).start.line} (`{analysis.code(run.func)}`) reads "
                "a buffer that no cast the fix rewrites feeds; a plan redirected to the pool's dtype would give "
                "it that buffer in the wrong dtype"
            )
    return None


def feeds_a_run(ctx, call: cst.Call) -> bool:
    """Does the variable this cast is assigned to reach a run() of the same method?"""
    analysis = ctx.analysis
    assign = analysis.parent(call)
    function = analysis.enclosing_function(call)
    if not (
        isinstance(assign, cst.Assign)
        and len(assign.targets) == 1
        and isinstance(assign.targets[0].target, cst.Name)
        and function is not None
    ):
        return False
    variable, method = assign.targets[0].target.value, _run_method(ctx)
    if method is None:
        return False
    return any(
        _enclosing_run(analysis, n, method) is not None
        for n in iter_nodes(function.body, cst.Name)
        if n.value == variable
    )


def why_not_mla_fixable(ctx, call: cst.Call) -> Optional[str]:
    """None when the MLA fix rewrites this whole-pool cast; "" when the cast feeds no
    MLA run() (the fix does not apply); else why the fix cannot rewrite it."""
    return mla_fix_site(ctx, call)[1]


def mla_fix_site(ctx, call: cst.Call) -> Tuple[Optional[CastSite], Optional[str]]:
    """(the CastSite the MLA fix rewrites, None) for this whole-pool cast: the site CL001's
    fix carries, so the codemod applies what the rule proved; (None, "") when the cast feeds
    no MLA run() (the fix does not apply); else (None, why the fix cannot rewrite it)."""
    analysis = ctx.analysis
    wrapper = ctx.tables.mla_wrapper()
    single = len(analysis.cast_chain(call)) == 1 and analysis.method_parts(call)[0] is call.func.value
    if (
        wrapper is None
        or not single
        or wrapper.cls not in analysis.nodes.names
        or not _names_a_run_argument(analysis, call)
    ):
        return None, ""
    site, why_not = rewritable_site(ctx, call)
    return (site, None) if site is not None else (None, f"the FlashInfer MLA fix cannot rewrite this site: {why_not}")


def any_mla_fixable(ctx) -> bool:
    """Does the MLA fix rewrite some whole-pool cast of this file? (once per analysed module)"""
    analysis = ctx.analysis
    hit = _ANY_FIXABLE.get(id(analysis))
    if hit is None or hit[0] is not analysis:
        if len(_ANY_FIXABLE) > 8:
            _ANY_FIXABLE.clear()
        hit = _ANY_FIXABLE[id(analysis)] = (
            analysis,
            any(why_not_mla_fixable(ctx, call) is None for call, _ in analysis.pool_casts()),
        )
    return hit[1]


_ANY_FIXABLE: dict = {}  # id(ModuleAnalysis) -> (the analysis, the answer)


def _names_a_run_argument(analysis: ModuleAnalysis, call: cst.Call) -> bool:
    """Is the variable this cast is assigned to named in the arguments of a run() of
    the MLA wrapper in the same function?"""
    parent = analysis.parent(call)
    function = analysis.enclosing_function(call)
    wrapper = analysis.tables.mla_wrapper()
    if not (
        isinstance(parent, cst.Assign)
        and len(parent.targets) == 1
        and isinstance(parent.targets[0].target, cst.Name)
        and function is not None
        and wrapper is not None
    ):
        return False
    variable = parent.targets[0].target.value
    return any(
        isinstance(run.func, cst.Attribute)
        and run.func.attr.value == wrapper.run_method
        and analysis.enclosing_function(run) is function
        and any(n.value == variable for arg in run.args for n in iter_nodes(arg.value, cst.Name))
        for run in analysis.nodes.calls
    )
