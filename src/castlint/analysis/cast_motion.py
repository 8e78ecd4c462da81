"""Can a dtype cast move after the gather that follows it? (CL003 and its codemod)

`pool.to(d)[idx]` -> `pool[idx].to(d)`; `pool.to(d).index_select(0, i)` ->
`pool.index_select(0, i).to(d)`; `x = pool.to(d)` used only as `x[idx]` ->
`x = pool` and `x[idx].to(d)`. An elementwise conversion commutes with a
gather, so the values are bit-identical *if nothing else changes between the
old and the new position of the cast*. `assess()` proves that, or says why not:

- every read of the converted value is rewritten: uses in comprehensions,
  lambdas and nested functions included (they are found through the
  assignment's references, not only the function scope's accesses), and no
  other value of the variable reaches a rewritten read: it is a local of the
  function with one binding (a walrus in a comprehension, a `global`/`nonlocal`
  and a module or class variable are other values or other readers);
- the dtype/device expressions read at the new position are the ones read at
  the old one: no rebinding of their names (assignment, `for`, `with ... as`,
  walrus, `del`, import, def) and no assignment to an attribute of their chain
  in between; no comprehension or lambda that shadows them at the use;
- nothing in between writes to the source tensor: the old code gathered from a
  snapshot taken at the cast, the new one from the live pool. "In between" is
  every expression evaluated after the old position of the cast and before a
  gather: the statements between, the whole loop when a loop repeats a gather
  without the cast, the gather's own index, the test of a conditional
  expression and the clauses of a comprehension the gather is in, the
  arguments evaluated before it, a call that encloses one gather and runs
  before a later one, and the `__exit__` of a `with` the cast is in.

Under aliasing a call need not receive the pool to write it: an object that
holds the pool, or a function that writes through a pointer table, may store
K/V without being given either. So only what is *proven* harmless may run in
between: calls proven read-only by rules/casts.toml [cast_motion] (read_methods,
read_functions; with the accessor, gather, view and cast names of the other
tables), in-place tensor methods and index assignments whose target is provably
distinct from the pool (a literal, an operator's result, a parameter or a local
built only from those), operators, attribute and index reads - each only where the
code it runs implicitly is proven harmless too (implicit_effect, _call_effect:
iteration only of builtin containers; a builtin's key=/map callables, drained
iterables and dunders; no dunder, property or table-listed method name that a class
of the file defines with a body that may write: effectful_members). Any other call
(an unknown function or method, a callable held in a variable or attribute, a
constructor, a decorator), an attribute assignment (a property or `__setattr__`
is a call), `del`, `with` (`__enter__`/`__exit__`), an import, a class
definition, `await`/`yield`, makes the fix *unsafe*: offered only with
--unsafe-fixes, with the reason naming the line and the call.

Definite problems - a store into a pool (`set_kv_buffer` and the like), an index
assignment or in-place method on the pool or an alias of it, a rebinding of the
dtype, a read the rewrite cannot take - mean no fix at all, and the finding says
why. Also unsafe: a use that runs later (lambda, nested def, generator), a dtype
expression that is itself a call, a cast that also moves devices or takes
another tensor's dtype and device.

A name proves nothing where other code can stand behind it (docs/fix.md, "Round 5"): a
module_conversions call (`.to`, `.half`) is read-only only on a proven tensor in a file that may
hold nn.Modules; a writer passed on as a value (a Mock's side_effect, a record field) makes listed
method calls on other receivers unproven; a library base, decorator or metaclass whose code may
call a member not proven read-only makes every protocol unproven; frame reads (`locals()`,
`f_locals`) make the variable form unsafe; an operator's result is new only where no class of the
file defines that operator.

CL003 calls `assess()` and attaches the result to its finding, so a finding carries
`[*]` exactly when castlint.checks.cast_before_gather.fix applies it by default.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import libcst as cst
from libcst.metadata import ClassScope, ComprehensionScope, FunctionScope, GlobalScope

from castlint.analysis.dataflow import Origin
from castlint.analysis.gathers import gathered_cast, names_dtype_attribute
from castlint.analysis.tree import children, dotted, iter_nodes, own_nodes
from castlint.models import FixSafety

_SCOPES = (cst.FunctionDef, cst.Lambda, cst.ClassDef)
_COMPREHENSIONS = (cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)
_STATEMENTS = (cst.BaseSmallStatement, cst.BaseCompoundStatement)
_LOOPS = (cst.For, cst.While) + _COMPREHENSIONS  # a comprehension runs its element once per item
_CONSTANTS = (
    cst.SimpleString,
    cst.ConcatenatedString,
    cst.FormattedString,
    cst.Integer,
    cst.Float,
    cst.Imaginary,
    cst.Ellipsis,
)
_DISPLAYS = (cst.List, cst.Tuple, cst.Set, cst.Dict) + _COMPREHENSIONS
_KEYWORD_NAMES = ("None", "True", "False")
# torch's convention: a function given `out=` writes its result into that tensor
_OUT_KEYWORD = "out"


@dataclass(frozen=True)
class CastMove:
    """How (and whether) one CL003 finding is fixed."""

    form: str  # "direct" | "variable"
    safety: FixSafety | None  # None: the fix is not offered
    reason: str = ""  # why unsafe / why not offered; "" when safe
    uses: tuple[cst.Name, ...] = field(default=(), compare=False)  # variable form: every read to rewrite
    call: cst.Call | None = field(default=None, compare=False)  # the outermost cast of the chain
    depth: int = 1  # how many casts are stacked: `pool.to(a).to(b)` is 2; all move at once


# -- small helpers -------------------------------------------------------------


def chain_depth(analysis, call: cst.Call) -> int:
    """How many dtype casts of a pool are stacked here: `pool.to(a).to(b)` is 2.

    The gather moves below all of them at once, so one fix run settles the chain."""
    depth, node = 1, call.func.value
    while (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and analysis.cast_target(node) is not None
        and names_dtype_attribute(node) | _names_a_dtype(analysis, node)
    ):
        depth, node = depth + 1, node.func.value
    return depth


def _names_a_dtype(analysis, call: cst.Call) -> bool:
    target = analysis.cast_target(call)
    return target is not None and not target.endswith(".dtype")


def cast_chain(call: cst.Call, depth: int) -> tuple[cst.BaseExpression, list[cst.Call]]:
    """(the pool expression, the casts applied to it, innermost first)."""
    chain, node = [], call
    for _ in range(depth):
        chain.append(node)
        node = node.func.value
    return node, list(reversed(chain))


def _pos(analysis, node) -> tuple[int, int, int, int]:
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


def _root(expr: cst.BaseExpression) -> cst.BaseExpression | None:
    """The object an expression is taken from: `a.b[i].c(x)` -> `a.b` (dotted), `x` -> `x`."""
    node = expr
    while True:
        if isinstance(node, (cst.Name, cst.Attribute)) and dotted(node) is not None:
            return node
        if isinstance(node, (cst.Subscript, cst.Attribute)):
            node = node.value
        elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
            node = node.func.value
        else:
            return None


def _owner_chains(analysis, pool: cst.BaseExpression, depth: int = 0) -> set[str]:
    """Dotted chains naming the pool tensor or the object it is read from:
    `self.token_to_kv_pool.get_key_buffer(i)` -> {self.token_to_kv_pool};
    `self.kv_buffer[i]` -> {self.kv_buffer}; a local alias -> its own chains too."""
    chains: set[str] = set()
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


def _in_loop_with(analysis, node, stop) -> list[cst.CSTNode]:
    """Loops (and comprehensions) around node, innermost first, up to (not including) stop."""
    loops = []
    for anc in analysis.ancestors(node):
        if anc is stop:
            break
        if isinstance(anc, _LOOPS):
            loops.append(anc)
        if isinstance(anc, _SCOPES):
            break
    return loops


def _contains(analysis, outer, inner) -> bool:
    return any(anc is outer for anc in analysis.ancestors(inner))


def _region_nodes(
    analysis,
    body: cst.CSTNode,
    start: tuple[int, int],
    end: tuple[int, int],
    skip: set[int],
    after: set[int] = frozenset(),
):
    """Nodes of body that start inside [start, end), not descending into defs/lambdas
    (defined, not run) or into the nodes in skip. Nodes in `after` (what encloses a gather,
    and so runs after it: `f(x[i])`) are not yielded, but their other parts are."""
    stack = [body.body if isinstance(body, cst.FunctionDef) else body]
    while stack:
        node = stack.pop()
        if id(node) in skip:
            continue
        try:
            p = _pos(analysis, node)
        except KeyError:  # whitespace a `match` pattern holds: no position, no code
            continue
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
        stack.extend(reversed(children(node)))


def _binds(node: cst.CSTNode) -> list[cst.BaseExpression]:
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
    if isinstance(node, (cst.MatchAs, cst.MatchStar)) and node.name is not None:
        return [node.name]  # a capture pattern binds the name in the function's scope
    if isinstance(node, cst.MatchMapping) and node.rest is not None:
        return [node.rest]
    if isinstance(node, (cst.Import, cst.ImportFrom)) and not isinstance(node.names, cst.ImportStar):
        out = []
        for alias in node.names:
            if alias.asname is not None:
                out.append(alias.asname.name)
            else:
                out.append(cst.Name(dotted(alias.name).split(".")[0]) if dotted(alias.name) else alias.name)
        return out
    return []


def _flat_targets(target: cst.BaseExpression) -> list[cst.BaseExpression]:
    if isinstance(target, (cst.Tuple, cst.List)):
        out = []
        for el in target.elements:
            out.extend(_flat_targets(el.value))
        return out
    if isinstance(target, cst.StarredElement):
        return _flat_targets(target.value)
    return [target]


def _comp_targets(node: cst.CSTNode) -> set[int]:
    """ids of comprehension `for` targets (they bind in the comprehension's own scope)."""
    ids: set[int] = set()
    for comp in iter_nodes(node, cst.CompFor):
        for t in iter_nodes(comp.target, cst.Name):
            ids.add(id(t))
    return ids


# -- the dtype / device expressions that move -------------------------------------


@dataclass
class _Moved:
    """What the moved casts read: names, attribute chains, and why that may be unsafe."""

    names: set[str] = field(default_factory=set)  # root names
    chains: set[str] = field(default_factory=set)  # dotted chains (len >= 2)
    owners: set[str] = field(default_factory=set)  # proper prefixes whose methods may rebind the chain
    unsafe: list[str] = field(default_factory=list)


def _moved_expressions(analysis, casts: Sequence[cst.Call]) -> _Moved:
    moved = _Moved()
    for cast in casts:
        for arg in cast.args:
            if arg.keyword is not None and arg.keyword.value in analysis.tables.cast_flags:
                if not isinstance(arg.value, (cst.Name, cst.Integer)) and dotted(arg.value) is None:
                    moved.unsafe.append(
                        f"the cast's `{arg.keyword.value}=` argument `{_code(analysis, arg.value)}` "
                        "would be evaluated at each gather"
                    )
                continue
            value = arg.value
            if isinstance(value, (cst.SimpleString, cst.Integer, cst.Float)):
                continue
            if _default_dtype_call(analysis, value):
                moved.names.add(dotted(value.func).split(".")[0])  # round 12: `torch.get_default_dtype()`
                continue
            if _dtype_getter_call(analysis, value):
                moved.names.add(value.func.value)  # round 13: `get_kv_compute_dtype()`, a getter of a dtype constant
                continue
            text = dotted(value)
            if text is None or arg.star:
                moved.unsafe.append(
                    f"the cast's argument `{_code(analysis, value)}` is not a plain name or attribute "
                    "and would be evaluated at a different point"
                )
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
            return all(isinstance(getattr(asg, "node", None), (cst.Import, cst.ImportFrom)) for asg in assignments)
        parent = getattr(scope, "parent", None)
        scope = parent if parent is not scope else None
    return False


# -- the assessment ----------------------------------------------------------------


class _Verdict:
    def __init__(self):
        self.refuse: list[str] = []
        self.unsafe: list[str] = []
        self.cast_may_fail = False  # a target not proven convertible: the cast may raise

    def plan(self, form: str, uses=()) -> CastMove:
        if self.refuse:
            return CastMove(form, None, self.refuse[0], tuple(uses))
        if self.unsafe:
            return CastMove(form, FixSafety.UNSAFE, self.unsafe[0], tuple(uses))
        return CastMove(form, FixSafety.SAFE, "", tuple(uses))


def _touches(analysis, expr: cst.BaseExpression, owners: set[str], aliases: set[str]) -> bool:
    """Does expr denote the source tensor, a view of it, or an object it is read from?

    Gathered rows (`x[idx]`, `x.index_select(...)`) are copies: passing them on writes nothing back."""
    if isinstance(expr, cst.Subscript) and not analysis.subscript_keeps_whole(expr):
        return False
    if (
        isinstance(expr, cst.Call)
        and isinstance(expr.func, cst.Attribute)
        and (expr.func.attr.value in analysis.tables.gather_methods)
    ):
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
        # (a new tensor made from the pool, `-pool`, `pool * 2`, is as whole but not the pool itself)
        return analysis.origin(expr) >= Origin.POOL_TUPLE and not _distinct(analysis, expr)
    except Exception:  # noqa: BLE001 - a node the analysis never indexed
        return False


# -- what may run between the old and the new position of the cast -------------------
#
# Only what is proven harmless may run there: a write the proof cannot see (an object that
# holds the pool, a function that writes through a pointer table) needs neither the pool nor
# its owner as an argument. Definite writes to the pool refuse the fix; anything not proven
# harmless makes it unsafe.


def _known_methods(tables) -> set[str]:
    """Method names proven read-only (rules/casts.toml [cast_motion] read_methods, and the
    accessor, gather, view, cast and reinterpret names of the other tables)."""
    return (
        set(tables.read_methods)
        | set(tables.accessors)
        | set(tables.gather_methods)
        | set(tables.view_methods)
        | set(tables.tuple_view_methods)
        | set(tables.casts)
        | set(tables.reinterpret_methods)
    )


def _function_name(analysis, call: cst.Call) -> str | None:
    """The qualified name of a called function, when the proof can name it: a builtin
    (`len`) or an imported function (`torch.cat`); None for a local variable, a module
    function of this file, a call result, a subscript, a lambda."""
    if dotted(call.func) is None:
        return None
    name = analysis.call_name(call) or ""
    if name.startswith("builtins."):
        return name[len("builtins.") :]
    if "." not in name or "<locals>" in name:
        return None  # defined in this module (or nowhere), or a local: not a builtin
    return name


def _is_method(analysis, func) -> bool:
    """`obj.m(...)` on an object, not `module.function(...)`."""
    return isinstance(func, cst.Attribute) and not _import_bound(analysis, func)


def _listed_read_only(analysis, call: cst.Call) -> bool:
    """Do the tables list this call as read-only (and is it given no `out=` to write into)?"""
    if any(arg.keyword is not None and arg.keyword.value == _OUT_KEYWORD for arg in call.args):
        return False
    tables = analysis.tables
    if _is_method(analysis, call.func):
        return (
            call.func.attr.value in _known_methods(tables)
            or _logging_call(analysis, call)
            or _container_call(analysis, call)  # round 9: `self.plan_cache.get(key)` on a builtin dict
            or _context_var_read(analysis, call)  # round 10: `DEBUG.get()` of a module's ContextVar
        )
    name = _function_name(analysis, call)
    if name is None:
        return (
            _plain_construction(analysis, call)
            or _pure_cached_call(analysis, call)  # rounds 7, 8
            or _enum_lookup(analysis, call)  # round 12: `KVLayout(self.layout)`
        )
    if name in tables.dataclass_replace_functions:
        return _plain_replace(analysis, call)  # round 8: a copy of a plain dataclass of the file
    if name in tables.stream_print_functions:
        return _memory_print(analysis, call)  # round 9: `print(..., file=<an io.StringIO>)`
    if name in tables.grad_mode_managers:
        return _grad_mode_item(analysis, call)  # round 9: `with torch.inference_mode():`
    if name in tables.memory_stream_factories:
        return _memory_stream(analysis, call)  # round 9: `io.StringIO()` makes a new in-memory stream
    if name in tables.container_write_functions:
        return _container_write(analysis, call)  # round 11: `heapq.heappush(<a proven builtin list>, x)`
    if name in tables.exit_registrars:
        return _exit_registration(analysis, call)  # round 13: registers its arguments, runs nothing now
    if name in tables.null_context_managers:
        return _null_context(analysis, call)  # round 13: stores its argument, hands it back, exits doing nothing
    if name in tables.autocast_managers:
        return _autocast_call(analysis, call)  # round 14: `with torch.autocast("cpu", dtype=torch.float16):`
    if name in tables.suppress_managers:
        return all(_builtin_exception(analysis, arg.value) and not arg.star for arg in call.args)  # round 11
    if _immutable_arguments(analysis, call):
        return True  # round 12: `os.path.join("/tmp", f"...")`, `functools.reduce(operator.mul, q.shape, 1)`
    return (
        name in tables.read_functions
        or name in tables.gather_functions
        or name in tables.view_functions
        or name in tables.logging_functions
        or name in tables.logger_factories
    )


def _read_only(analysis, call: cst.Call) -> bool:
    """Is this call proven read-only: listed by the tables, given no `out=`, and nothing it calls
    back into (an iterable it drains, a callable it calls, a dunder it runs, a method of a class of
    this file under the listed name) may write?"""
    return _listed_read_only(analysis, call) and _call_effect(analysis, call) is None


def is_read_only(analysis, call: cst.Call) -> bool:
    """Is this call proven read-only by rules/casts.toml (and given no `out=`)? For other proofs."""
    return _read_only(analysis, call)


def _in_place(method: str | None) -> bool:
    return method is not None and method.endswith("_") and not method.endswith("__")


def _distinct(analysis, expr, depth: int = 0) -> bool:
    """Is expr provably neither the pool nor an object that holds it? A constant, a display or
    comprehension of such values, an operator's result (a new tensor), a local bound only to
    such values, an index or a read-only call (view, cast) of one. An attribute is never
    distinct (the object may hold the pool), nor is a parameter: the caller may pass the pool
    itself, or a view of it (`k_cache`, `kv_buffer`), whatever the parameter is called."""
    if depth > 6:
        return False
    if isinstance(expr, cst.UnaryOperation) and _identity_operator(analysis, expr):
        return _distinct(analysis, expr.expression, depth + 1)  # `+t` is t itself
    if isinstance(expr, _CONSTANTS + (cst.Lambda,)):
        return True
    if isinstance(expr, cst.UnaryOperation):  # `not x` is a bool; `-x` what `__neg__` answers
        return isinstance(expr.operator, cst.Not) or _operator_new(analysis, "unary", [expr.expression])
    if isinstance(expr, cst.BinaryOperation):
        return _operator_new(analysis, "binary", [expr.left, expr.right])
    if isinstance(expr, cst.Comparison):  # `in`/`is` answer a bool; `==` what `__eq__` answers
        return all(isinstance(c.operator, (cst.In, cst.NotIn, cst.Is, cst.IsNot)) for c in expr.comparisons) or (
            _operator_new(analysis, "compare", [expr.left] + [c.comparator for c in expr.comparisons])
        )
    if isinstance(expr, cst.Name):
        return expr.value in _KEYWORD_NAMES or _distinct_name(analysis, expr, depth)
    if isinstance(expr, (cst.List, cst.Tuple, cst.Set)):
        return all(_distinct(analysis, el.value, depth + 1) for el in expr.elements)
    if isinstance(expr, cst.Dict):
        return all(
            _distinct(analysis, el.value, depth + 1)
            and (not isinstance(el, cst.DictElement) or _distinct(analysis, el.key, depth + 1))
            for el in expr.elements
        )
    if isinstance(expr, (cst.ListComp, cst.SetComp, cst.GeneratorExp)):
        return _distinct(analysis, expr.elt, depth + 1)
    if isinstance(expr, cst.DictComp):
        return _distinct(analysis, expr.key, depth + 1) and _distinct(analysis, expr.value, depth + 1)
    if isinstance(expr, cst.Subscript):
        if len(expr.slice) == 1 and isinstance(expr.slice[0].slice, cst.Index):
            # an element: of a new container made by an operator (`bufs = layers + []`), an operand's
            return _elements_distinct(analysis, expr.value, depth + 1)
        return _distinct(analysis, expr.value, depth + 1)
    if isinstance(expr, cst.NamedExpr):
        return _distinct(analysis, expr.value, depth + 1)
    if isinstance(expr, cst.Attribute) and _is_method(analysis, expr):
        return _fresh_buffer(analysis, expr)  # round 8: `self.static_q`, allocated and never handed on
    if isinstance(expr, cst.BooleanOperation):  # `a or b` is one of its operands
        return _distinct(analysis, expr.left, depth + 1) and _distinct(analysis, expr.right, depth + 1)
    if isinstance(expr, cst.IfExp):
        return _distinct(analysis, expr.body, depth + 1) and _distinct(analysis, expr.orelse, depth + 1)
    if isinstance(expr, cst.Call) and _read_only(analysis, expr):
        if (
            _is_method(analysis, expr.func)
            and expr.func.attr.value in analysis.tables.new_value_methods
            and (_tensor_typed(analysis, expr.func.value) or not _may_provide(analysis, expr.func.attr.value))
        ):
            # a new tensor; on another receiver only where no object of the file may have a member of
            # that name (a class's def, a Mock or SimpleNamespace configured with it, a field)
            return True
        if (
            not _is_method(analysis, expr.func)
            and _function_name(analysis, expr) in analysis.tables.new_value_functions
        ):
            return True
        if _is_method(analysis, expr.func):  # a view or copy of the receiver (accessors return pools)
            return expr.func.attr.value not in analysis.tables.accessors and _distinct(
                analysis, expr.func.value, depth + 1
            )
        return all(_distinct(analysis, arg.value, depth + 1) for arg in expr.args)
    return False


def _elements_distinct(analysis, expr, depth: int) -> bool:
    """Is expr distinct, and so is every element it may hold? An operator's result holds its operands'
    elements (`layers + []`, `[buf] * 2`): each operand must be distinct or a tensor or scalar (whose
    arithmetic holds nothing); a local, each value bound to it."""
    if depth > 6 or not _distinct(analysis, expr, depth):
        return False
    if isinstance(expr, cst.BinaryOperation):
        return all(
            _tensor_typed(analysis, op) or _elements_distinct(analysis, op, depth + 1) for op in (expr.left, expr.right)
        )
    if isinstance(expr, cst.Name):
        return _bound_only_to(analysis, expr, lambda v: _elements_distinct(analysis, v, depth + 1)) or not any(
            isinstance(a.node, cst.Name) and isinstance(analysis.binding(a.node)[1], cst.BinaryOperation)
            for a in analysis.reaching(expr)
            if hasattr(a, "node")
        )
    return True


_UNARY_SPELLINGS = {cst.Plus: "+", cst.Minus: "-", cst.BitInvert: "~", cst.Not: "not"}


def _identity_operator(analysis, expr: cst.UnaryOperation) -> bool:
    """Is this unary operator one whose result is its operand itself (rules/casts.toml [cast_motion]
    identity_operators: `+t` is `Tensor.positive()`, which returns t, an alias, not a new tensor)?"""
    return _UNARY_SPELLINGS.get(type(expr.operator)) in analysis.tables.identity_operators


def _distinct_name(analysis, name: cst.Name, depth: int) -> bool:
    scope = analysis.scopes.get(name)
    if scope is None:
        return False
    assignments = [a for a in scope.assignments[name.value] if hasattr(a, "node")]
    if not assignments or not isinstance(scope, (FunctionScope, ComprehensionScope)):
        return False  # a global, a builtin, a closure variable: anything
    reaching = [a for a in analysis.reaching(name) if hasattr(a, "node")]
    if reaching and all(any(r is a for a in assignments) for r in reaching):
        assignments = reaching  # the values this read can see (`x = view(p); x = x * s; x.mul_()`)
    for assignment in assignments:
        node = assignment.node
        param = node if isinstance(node, cst.Param) else analysis.parent(node)
        if isinstance(param, cst.Param):
            return False  # self keeps the pool; any other parameter may be the pool, given by the caller
        kind, value, _ = analysis.binding(node) if isinstance(node, cst.Name) else (None, None, ())
        if kind is None or value is None:
            return False  # with ... as, except ... as, import, def: anything
        if kind == "for":
            value = _iterated_items(value)
            if value is None:
                return False
        if not _distinct(analysis, value, depth + 1):
            return False
    return True


def _iterated_items(iterable) -> cst.BaseExpression | None:
    """What `for x in iterable` binds x to, as one expression to judge: the display itself
    (every element), or None when the items are not visible."""
    if isinstance(iterable, (cst.List, cst.Tuple, cst.Set)):
        return iterable
    return None


def _check_region(
    analysis,
    verdict: _Verdict,
    nodes,
    moved: _Moved,
    owners: set[str],
    aliases: set[str],
    ignored: set[int],
    where: str,
):
    """Look for writes to the source, rebinding of the moved expressions, and anything not
    proven harmless among nodes (the code that runs between the old and the new cast).
    ignored: ids of binding targets that bind nothing in between (comprehension variables,
    targets stored after the last gather)."""
    for node in nodes:
        line = _line(analysis, node)
        _check_bindings(analysis, verdict, node, line, where, moved, owners, aliases, ignored)
        if isinstance(node, cst.Call):
            _check_call(analysis, verdict, node, line, where, moved, owners, aliases)
            continue
        read = _property_read(analysis, node)
        if read is not None:
            verdict.unsafe.append(f"line {line} {read} {where}; {_MAY_WRITE}")
            continue
        implicit = implicit_effect(analysis, node)
        if implicit is not None:
            verdict.unsafe.append(f"line {line} {implicit} {where}; {_MAY_WRITE}")
            continue
        effect = _statement_effect(analysis, node, autocast=True)
        if effect is not None:
            verdict.unsafe.append(f"line {line} {effect} {where}; {_MAY_WRITE}")


_MAY_WRITE = "it is not proven read-only and may write the pool"
_MAY_WRITE_CALL = "it is not proven read-only (rules/casts.toml [cast_motion]) and may write the pool"


def _statement_effect(analysis, node, autocast: bool = False) -> str | None:
    """What a non-call node runs that may write the pool: implicit calls and suspensions. autocast: CL003's
    own region, where _autocast_entered judges the moved cast (other proofs keep an autocast scope unproven:
    what they move into one may be an autocast op)."""
    if isinstance(node, (cst.Await, cst.Yield)):
        return f"suspends the function (`{'await' if isinstance(node, cst.Await) else 'yield'}`: other code runs)"
    if isinstance(node, (cst.For, cst.CompFor)) and node.asynchronous is not None:
        return "suspends the function (`async for`: other code runs)"
    if (
        isinstance(node, cst.With)
        and not node.asynchronous
        and all(isinstance(item.item, cst.Call) and _grad_mode_item(analysis, item.item) for item in node.items)
    ):
        return None  # round 9: a grad-mode switch (its call is judged as a call)
    if (
        isinstance(node, cst.With)
        and not node.asynchronous
        and all(_suppress_item(analysis, item) for item in node.items)
    ):
        return None  # round 11: `contextlib.suppress(<builtin exceptions>)`; its body is judged node by node
    if (
        isinstance(node, cst.With)
        and not node.asynchronous
        and all(isinstance(item.item, cst.Call) and _null_context(analysis, item.item) for item in node.items)
    ):
        return None  # round 13: `contextlib.nullcontext(x)`; its call is judged as a call, its body node by node
    if (
        autocast
        and isinstance(node, cst.With)
        and not node.asynchronous
        and all(item.asname is None and _autocast_call(analysis, item.item) for item in node.items)
    ):
        return None  # round 14: an autocast scope of constant arguments; its body is judged node by node
    if isinstance(node, cst.With):
        items = ", ".join(_code(analysis, item.item, 30) for item in node.items)
        return f"enters and exits `with {items}` (`__enter__`/`__exit__` are calls)"
    if isinstance(node, cst.Del):
        return _del_effect(analysis, node)
    if isinstance(node, (cst.Import, cst.ImportFrom)):
        return "imports a module (its code may run)"
    if isinstance(node, cst.ClassDef):
        return f"defines the class `{node.name.value}` (its metaclass and `__init_subclass__` run)"
    if isinstance(node, cst.Decorator):
        return f"applies the decorator `@{_code(analysis, node.decorator)}` (a call)"
    return None


def _del_effect(analysis, node: cst.Del) -> str | None:
    """`del` of local names only drops references (round 6): harmless where dropping their old values
    runs no finalizer of the file (_drops_finalizable). `del obj.attr` / `del obj[key]` run
    `__delattr__`/`__delete__`/`__delitem__`: not proven."""
    leaves = _flat_targets(node.target)
    function = next((a for a in analysis.ancestors(node) if isinstance(a, (cst.FunctionDef, cst.Lambda))), None)
    declared = {
        n.name.value
        for g in (iter_nodes(function.body, (cst.Global, cst.Nonlocal)) if function is not None else ())
        for n in g.names
    }
    if function is not None and all(
        isinstance(leaf, cst.Name)
        and leaf.value not in declared
        and isinstance(analysis.scopes.get(leaf), FunctionScope)
        for leaf in leaves
    ):
        for leaf in leaves:
            dropped = _drops_finalizable(analysis, leaf)
            if dropped is not None:
                return f"deletes `{leaf.value}`, {dropped}"
        return None
    return f"deletes `{_code(analysis, node.target)}` (`__del__`, `__delitem__` or `__delattr__` runs)"


def _check_bindings(
    analysis,
    verdict: _Verdict,
    node,
    line: int,
    where: str,
    moved: _Moved,
    owners: set[str],
    aliases: set[str],
    ignored: set[int],
) -> None:
    """What node binds: a moved name, an attribute on a moved chain, rows of the pool, the pool in
    place; an attribute anywhere (a property setter is a call), into anything that may hold the pool."""
    for target in _binds(node):
        for leaf in _flat_targets(target):
            problem = _binding_problem(analysis, node, leaf, line, moved, owners, aliases, ignored)
            if problem is None:
                continue
            refuse, text = problem
            if refuse and text.startswith("`"):
                verdict.refuse.append(f"{text} {where}; the moved cast would read the new value")
            elif refuse:
                verdict.refuse.append(f"{text} {where}; the gather would read the new values")
            else:
                verdict.unsafe.append(f"{text} {where}; {_MAY_WRITE}")


def _binding_problem(
    analysis, node, leaf, line: int, moved: _Moved, owners: set[str], aliases: set[str], ignored: set[int]
) -> tuple[bool, str] | None:
    """(refuse?, why) for one binding target, or None when it is harmless."""
    if id(leaf) in ignored:
        return None  # a comprehension's own variable, or stored after the last gather
    if isinstance(leaf, cst.Name) and leaf.value in moved.names:
        return True, f"`{leaf.value}` is rebound at line {line}"
    if isinstance(node, cst.Del):
        return None  # `del` is unsafe as a statement
    if isinstance(leaf, cst.Name):
        if isinstance(node, cst.AugAssign):
            operator = _code(analysis, node.operator)
            if leaf.value in aliases:
                return True, f"line {line} updates the pool in place (`{leaf.value} {operator} ...`)"
            if not _distinct(analysis, leaf) and not _builtin_typed(analysis, leaf):
                return (
                    False,
                    f"line {line} updates `{leaf.value}` in place (`{operator}`), which may be or hold the pool",
                )
        dropped = _drops_finalizable(analysis, leaf)
        if dropped is not None:
            return False, f"line {line} rebinds `{leaf.value}`, {dropped}"
        return None
    text = dotted(leaf) if isinstance(leaf, cst.Attribute) else None
    if text is not None and any(_is_prefix(text, c) for c in moved.chains):
        return True, f"`{text}` is assigned at line {line}"
    if (
        isinstance(leaf, (cst.Subscript, cst.Attribute))
        and not isinstance(node, cst.For)
        and _touches(analysis, leaf.value, owners, aliases)
        and (isinstance(leaf, cst.Subscript) or leaf.attr.value == "data")
    ):
        return True, f"line {line} writes into the pool (`{_code(analysis, leaf)} = ...`)"
    if isinstance(leaf, cst.Attribute) and _plain_self_store(analysis, node, leaf, moved):
        return None  # round 14: `self.prefetch_skips += 1`, a builtin immutable value into a plain instance
    if isinstance(leaf, cst.Attribute):
        return False, f"line {line} assigns `{_code(analysis, leaf)}` (a property or `__setattr__` is a call)"
    if (
        isinstance(leaf, cst.Subscript)
        and not _distinct(analysis, leaf.value)
        and not _counter_store(analysis, node, leaf)
        and not _container_store(analysis, node, leaf)
    ):
        return False, f"line {line} writes into `{_code(analysis, leaf)}`, which may be or hold the pool"
    return None


def _finalizers(analysis) -> str | None:
    """What may run when this module drops the last reference to one of its objects: a finalizer
    dunder (rules/casts.toml finalizer_dunders) that a class of the file defines with a body not
    proven read-only, a callback registered by a finalizer_registrars call (`weakref.finalize(obj,
    f)`, `weakref.ref(obj, callback)`), or a generator function with a `finally` or `with` (closing a suspended
    generator runs them)."""
    effectful = effectful_members(analysis)
    hit = next((d for d in sorted(analysis.tables.finalizer_dunders & effectful) if is_effectful(analysis, d)), None)
    hit = hit or _open_hit(analysis)
    if hit is not None:
        return f"`{hit}`{_member_line(analysis, hit)}"
    for call in iter_nodes(analysis.module, cst.Call):
        name = analysis.call_name(call) or dotted(call.func) or ""
        if name in analysis.tables.finalizer_registrars and len(call.args) > 1:
            return f"the callback registered by `{_code(analysis, call.func)}(...)` (line {_line(analysis, call)})"
    yielding = {id(_own_function(analysis, n)) for n in iter_nodes(analysis.module, cst.Yield)}
    # round 15: a coroutine suspended at an `await` and dropped is closed as a generator is
    yielding.update(id(f) for f in iter_nodes(analysis.module, cst.FunctionDef) if f.asynchronous is not None)
    if yielding:
        cleaning = {id(_own_function(analysis, n)) for n in iter_nodes(analysis.module, cst.With)}
        cleaning.update(
            id(_own_function(analysis, n))
            for n in iter_nodes(analysis.module, (cst.Try, cst.TryStar))
            if n.finalbody is not None
        )
        for function in iter_nodes(analysis.module, cst.FunctionDef):
            if id(function) in yielding and id(function) in cleaning:
                return f"the generator `{function.name.value}`'s `finally`/`with` (line {_line(analysis, function)})"
    return None


def _own_function(analysis, node):
    """The def or lambda whose own code node is (None at module level)."""
    for anc in analysis.ancestors(node):
        if isinstance(anc, (cst.FunctionDef, cst.Lambda)):
            return anc
    return None


def _module_finalizers(analysis) -> str | None:
    """_finalizers, once per module."""
    found = analysis.derived.get("cast_motion.finalizers", False)
    if found is False:
        found = analysis.derived["cast_motion.finalizers"] = _finalizers(analysis)
    return found


def _drops_finalizable(analysis, leaf: cst.Name) -> str | None:
    """A rebinding drops the name's old value: where the module has finalizers (_finalizers) and a
    value reaching the name before is not proven a builtin value or a tensor, its `__del__` or a
    suspended generator's `finally` may run here."""
    found = _module_finalizers(analysis)
    if found is None:
        return None
    scope = analysis.scopes.get(leaf)
    if scope is None or not isinstance(scope, (FunctionScope, ComprehensionScope)):
        return None
    earlier = [
        a.node
        for a in scope.assignments[leaf.value]
        if isinstance(getattr(a, "node", None), cst.Name) and _pos(analysis, a.node) < _pos(analysis, leaf)
    ]
    for node in earlier:
        kind, value, path = analysis.binding(node)
        if kind == "assign" and value is not None and not path and _builtin_typed(analysis, value):
            continue
        return (
            f"dropping its old value (`{_code(analysis, node)}`): {found} may run when the last reference goes, "
            "and it is not proven read-only"
        )
    return None


def _check_call(
    analysis,
    verdict: _Verdict,
    node: cst.Call,
    line: int,
    where: str,
    moved: _Moved,
    owners: set[str],
    aliases: set[str],
) -> None:
    """A call in between: refused when it certainly writes the pool, unsafe unless proven harmless."""
    shown = _code(analysis, node.func)
    written = _definite_write(analysis, node, owners, aliases)
    if written is not None:
        verdict.refuse.append(
            f"line {line} {written} {where}; the gather would read "
            + ("values written after the original cast" if written.startswith("stores") else "the new values")
        )
        return

    why = _unproven_call(analysis, node, shown, moved, owners, aliases)
    if why is not None:
        rebinds = "cast's dtype" in why or "change the dtype" in why
        verdict.unsafe.append(
            f"line {line} {why} {where}; "
            + ("it may rebind what the cast's dtype is read from" if rebinds else _MAY_WRITE_CALL)
        )


def _definite_write(analysis, node: cst.Call, owners: set[str], aliases: set[str]) -> str | None:
    """Why this call certainly writes the pool, if it does."""
    func = node.func
    method = func.attr.value if _is_method(analysis, func) else None
    shown = _code(analysis, func)
    if method is not None and method.startswith("set_") and any(w in method for w in ("kv", "buffer", "cache")):
        return f"stores into a KV pool (`{shown}(...)`)"
    if _in_place(method) and _touches(analysis, func.value, owners, aliases):
        return f"modifies the pool in place (`.{method}(...)`)"
    if (
        method is None
        and _in_place(analysis.call_name(node))
        and any(_touches(analysis, arg.value, owners, aliases) for arg in node.args)
    ):
        return f"modifies the pool in place (`{shown}(...)`)"
    for arg in node.args:
        if (
            arg.keyword is not None
            and arg.keyword.value == _OUT_KEYWORD
            and _touches(analysis, arg.value, owners, aliases)
        ):
            return f"writes into the pool (`{shown}(..., out=...)`)"
    return None


def _unproven_call(
    analysis, node: cst.Call, shown: str, moved: _Moved, owners: set[str], aliases: set[str]
) -> str | None:
    """Why a call (that does not certainly write the pool) is not proven harmless; None when it
    is: read-only by the tables, or an in-place method of a tensor that is provably not the pool."""
    func = node.func
    method = func.attr.value if _is_method(analysis, func) else None
    if _listed_read_only(analysis, node):
        why = _call_effect(analysis, node)
        return None if why is None else f"calls `{shown}(...)`, which {why}"

    def rebinding(statement, leaf) -> str | None:  # round 11: `nonlocal` in a function of the file
        problem = _binding_problem(analysis, statement, leaf, _line(analysis, node), moved, owners, aliases, set())
        return None if problem is None else f"rebinds `{leaf.value}` (`nonlocal`): {problem[1]}"

    why = getattr_call_effect(analysis, node)  # round 11: `getattr(x, <literal>)(...)` of a read method
    if why is None:
        return None
    if why:
        return f"calls `{shown}(...)`, which {why}"
    why = file_call_effect(analysis, node, rebinding)  # round 11: a function of the file, by its body
    if why is None:
        return None
    if why:
        return why
    why = class_method_effect(analysis, node, rebinding)  # round 12: `KVLayout(x).stride_order()`, by its body
    if why is None:
        return None
    if why:
        return f"calls `{shown}(...)`, which {why}"
    why = _literal_format_effect(analysis, node)  # round 13: `"layer {0.layer_id}".format(layer)`
    if why is None:
        return None
    if why:
        return f"calls `{shown}(...)`, which {why}"
    if _inplace_function_harmless(analysis, node):
        return None  # round 12: `torch.nn.init.zeros_(self.workspace)` writes only the backend's own tensor
    if method is not None and _touches(analysis, func.value, owners, aliases) and not _read_only(analysis, node):
        return f"calls `{shown}(...)` on the pool or its owner"
    if method is not None and dotted(func.value) in moved.owners and not _read_only(analysis, node):
        return f"calls `{shown}(...)`, whose object the cast's dtype is read from"
    if _listed_read_only(analysis, node):
        why = _call_effect(analysis, node)
        if why is None:
            return None
        return f"calls `{shown}(...)`, which {why}"
    if _in_place(method) and _distinct(analysis, func.value):
        return None  # writes only its receiver, which is not the pool
    for arg in node.args:
        if _touches(analysis, arg.value, owners, aliases):
            return f"passes the pool or its owner to `{shown}(...)`"
        if dotted(arg.value) in moved.owners:
            return f"passes `{dotted(arg.value)}` to `{shown}(...)`, which may change the dtype"
    if dotted(func) is None:
        return f"calls `{shown}(...)`, a callable the proof cannot name"
    return f"calls `{shown}(...)`"


# -- what the other fixers' proofs share: may running this node write what a fix reads? ----


def property_names(analysis) -> frozenset:
    """Attribute names whose read may run code that is not proven harmless: a class of this module
    defines them with a decorator of rules/casts.toml [cast_motion] property_decorators
    (`@property`, `@cached_property`) whose getter is not proven read-only (effectful_members: a
    getter of attribute reads and comparisons is a read), or as `name = property(...)` (the getter
    is not looked into)."""
    found = analysis.derived.get("cast_motion.properties")
    if found is not None:
        return found
    return _members(analysis)[1]


def effectful_members(analysis) -> frozenset:
    """Names of methods (dunders, accessors, property getters, any method) that a class of this
    module defines with a body that is not proven read-only: a call of a table-listed method
    under such a name, or a protocol that runs such a dunder, is then a call of that body."""
    found = analysis.derived.get("cast_motion.effectful")
    if found is not None:
        return found
    return _members(analysis)[0]


UNKNOWN = "cast_motion.unknown"
PRUNED_UNDECIDED = "cast_motion.pruned_undecided"


def is_effectful(analysis, name: str) -> bool:
    """Is name a member that a class of this module defines with a body not proven read-only?"""
    return _noted(analysis, name, name in effectful_members(analysis))


def is_property(analysis, name: str) -> bool:
    """Is name a property of a class of this module whose getter is not proven read-only?"""
    return _noted(analysis, name, name in property_names(analysis))


def _noted(analysis, name: str, answer: bool) -> bool:
    if answer and name in analysis.derived.get(UNKNOWN, ()):
        analysis.derived[PRUNED_UNDECIDED] = True  # the body is in code the pruner dropped
    return answer


def pruned_undecided(analysis) -> bool:
    """Did a proof rest on a member whose body the pruned copy does not hold (the whole file
    must then decide)?"""
    return bool(analysis.derived.get(PRUNED_UNDECIDED))


def _member_line(analysis, name: str) -> str:
    where = analysis.derived.get("cast_motion.effectful_at", {}).get(name)
    return f" (line {_line(analysis, where)})" if where is not None else ""


def _members(analysis) -> tuple[frozenset, frozenset]:
    """(effectful_members, property_names), to one fixed point: a body that calls an effectful
    member (or reads an effectful property) is effectful. Least fixed point: a body is effectful
    only through a node that is (a body that only recurses writes nothing)."""
    decorators = analysis.tables.property_decorators
    methods, getters, names = [], set(), set()
    bound: list = []  # (member name, value, names of its class's defs): `__bool__ = _flush`
    for cls in analysis.nodes.classes:
        members = list(_class_statements(cls.body.body))
        defs = {s.name.value for s in members if isinstance(s, cst.FunctionDef)}
        for statement in members:
            if isinstance(statement, cst.FunctionDef):
                methods.append(statement)
                if any(_getter_decorator(analysis, d) for d in statement.decorators):
                    getters.add(statement.name.value)
            elif isinstance(statement, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
                for small in statement.body:
                    if (
                        isinstance(small, cst.Assign)
                        and isinstance(small.value, cst.Call)
                        and dotted(small.value.func) in decorators
                    ):
                        names |= {t.target.value for t in small.targets if isinstance(t.target, cst.Name)}
                        continue
                    # a member bound by assignment is defined by its value, not by a def of its name
                    targets = (
                        [t.target for t in small.targets]
                        if isinstance(small, cst.Assign)
                        else [small.target]
                        if isinstance(small, cst.AnnAssign) and small.value is not None
                        else []
                    )
                    bound += [(t.value, small.value, defs) for t in targets if isinstance(t, cst.Name)]
    bound += _dunders_bound_outside(analysis)
    bound += _members_bound_outside(analysis)
    effectful: set = set()
    at: dict = {}
    pruned = getattr(analysis, "_pruned", None)
    unknown = frozenset(pruned.dropped_members) if pruned is not None else frozenset()
    # a pruned copy (castlint.prune) keeps a dropped def's name but not its body, nor a dropped
    # class's members: each may write, and those the pruner saw read as attributes are
    # properties (a decision that rests on one is not the whole file's: pruned_undecided)
    effectful |= unknown
    names |= frozenset(pruned.dropped_properties) if pruned is not None else frozenset()
    analysis.derived[UNKNOWN] = unknown
    analysis.derived["cast_motion.effectful_at"] = at
    changed = True
    while changed:
        analysis.derived["cast_motion.effectful"] = frozenset(effectful)
        analysis.derived["cast_motion.properties"] = frozenset(names | (getters & effectful))
        changed = False
        for method in methods:
            name = method.name.value
            if name in effectful:
                continue
            if any(
                unproven_effect(analysis, node) is not None
                for node in iter_nodes(method.body, cst.CSTNode)
                if not isinstance(node, cst.Return)
            ):
                effectful.add(name)
                at[name] = method
                changed = True
        for name, value, defs in bound:
            if name not in effectful and _bound_member_effectful(analysis, name, value, defs, effectful):
                effectful.add(name)
                at[name] = value
                changed = True
    found = frozenset(effectful), frozenset(names | (getters & effectful))
    analysis.derived["cast_motion.effectful"], analysis.derived["cast_motion.properties"] = found
    analysis.derived[_MEMBERS_DONE] = True
    return found


_MEMBERS_DONE = "cast_motion.members_done"


def _settled(analysis, key: str, compute):
    """compute(), kept once the file's effectful members are settled (during their fixed point a fact
    that rests on them may still grow, so it is computed afresh); re-entered while it runs: None (least
    fixed point: what it looks for must show through other nodes)."""
    if key in analysis.derived:
        return analysis.derived[key]
    running = key + ".running"
    if analysis.derived.get(running):
        return None
    analysis.derived[running] = True
    try:
        found = compute()
    finally:
        analysis.derived[running] = False
    if analysis.derived.get(_MEMBERS_DONE):
        analysis.derived[key] = found
    return found


def _getter_decorator(analysis, decorator: cst.Decorator) -> bool:
    """May this decorator make the method an attribute whose read runs its body? A property
    decorator (rules/casts.toml property_decorators), and any decorator that is not proven a plain
    method's (plain_method_decorators): `prop = property; @prop`, a subclass of property, a
    descriptor class."""
    name = dotted(decorator.decorator.func if isinstance(decorator.decorator, cst.Call) else decorator.decorator)
    return name in analysis.tables.property_decorators or name not in analysis.tables.plain_method_decorators


def _is_dunder(name: str) -> bool:
    return len(name) > 4 and name.startswith("__") and name.endswith("__")


def _dunders_bound_outside(analysis) -> list:
    """Dunders a class gets outside its class statement, as (name, value, defs) like a class body's
    `__bool__ = _flush`: `Flags.__bool__ = f` anywhere in the module, `setattr(Flags, "__len__", f)`,
    and the namespace of `type(name, bases, {"__len__": f})`. A `type()` or `setattr()` whose name
    or namespace is not literal may bind any dunder."""
    found: list = []
    for node in iter_nodes(analysis.module, (cst.Assign, cst.Call)):
        if isinstance(node, cst.Assign):
            found += [
                (t.target.attr.value, node.value, set())
                for t in node.targets
                if isinstance(t.target, cst.Attribute) and _is_dunder(t.target.attr.value)
            ]
        elif isinstance(node, cst.Call) and dotted(node.func) in ("setattr", "type") and len(node.args) == 3:
            name, value = node.args[1].value, node.args[2].value
            if dotted(node.func) == "setattr":
                if isinstance(name, cst.SimpleString):
                    key = name.evaluated_value
                    if isinstance(key, str) and _is_dunder(key):
                        found.append((key, value, set()))
                else:
                    found += [(d, value, set()) for d in _ANY_DUNDER(analysis)]
            elif isinstance(value, cst.Dict):
                for element in value.elements:
                    key = getattr(element, "key", None)
                    if isinstance(key, cst.SimpleString):
                        text = key.evaluated_value
                        if isinstance(text, str) and _is_dunder(text):
                            found.append((text, element.value, set()))
                    else:
                        found += [(d, element.value, set()) for d in _ANY_DUNDER(analysis)]
            else:
                found += [(d, value, set()) for d in _ANY_DUNDER(analysis)]
    return found


def _members_bound_outside(analysis) -> list:
    """Members of any name (not only dunders) an object gets outside a class statement, as (name,
    value, defs): `obj.item = f` anywhere in the module, `setattr(obj, "item", f)`, and a keyword of
    any call (`SimpleNamespace(item=self._sync)`, a dataclass's `Hooks(item=f)`: the constructor
    may store it under that name). A listed read-only method called under such a name
    (`hooks.item()`) calls the value: effectful when the value is a callable of this module not
    proven read-only (_bound_member_effectful; data, a parameter, a constant are read as data)."""
    listed = _known_methods(analysis.tables)  # only a listed name's call is trusted by its name
    found: list = []
    for node in iter_nodes(analysis.module, (cst.Assign, cst.Call)):
        if isinstance(node, cst.Assign):
            found += [
                (t.target.attr.value, node.value, set())
                for t in node.targets
                if isinstance(t.target, cst.Attribute) and t.target.attr.value in listed
            ]
        elif isinstance(node, cst.Call):
            found += [
                (arg.keyword.value, arg.value, set())
                for arg in node.args
                if arg.keyword is not None and arg.keyword.value in listed
            ]
            if dotted(node.func) == "setattr" and len(node.args) == 3:
                name = node.args[1].value
                key = name.evaluated_value if isinstance(name, cst.SimpleString) else None
                if isinstance(key, str) and key in listed:
                    found.append((key, node.args[2].value, set()))
                elif not isinstance(key, str):
                    found += [(m, node.args[2].value, set()) for m in listed]
    return [(name, value, defs) for name, value, defs in found if not isinstance(value, _CONSTANTS)]


def _ANY_DUNDER(analysis) -> set:
    """Every dunder the protocol tables name: what a non-literal binding may define."""
    t = analysis.tables
    names = set().union(*t.protocols.values()) if t.protocols else set()
    for callback in t.callbacks.values():
        names |= set(callback.get("dunders", ()))
    return names | set(t.finalizer_dunders)


def _class_statements(statements):
    """The statements that run in a class body, those under its `if`/`try`/`with`/`for`/`while`
    too (`if DEBUG: def __bool__(self): ...` defines a member); not a nested def's or class's."""
    for statement in statements:
        yield statement
        if isinstance(statement, (cst.If, cst.Try, cst.TryStar, cst.With, cst.For, cst.While)):
            for block in _blocks(statement):
                yield from _class_statements(block.body) if isinstance(block, cst.IndentedBlock) else [block]


def _module_functions(analysis, name: str) -> list:
    """The module's top-level defs of that name (an index kept once per file)."""
    index = analysis.derived.get("cast_motion.module_functions")
    if index is None:
        index = analysis.derived["cast_motion.module_functions"] = {}
        for s in analysis.module.body:
            if isinstance(s, cst.FunctionDef):
                index.setdefault(s.name.value, []).append(s)
    return index.get(name, [])


def _class_methods(analysis, name: str) -> list:
    """Every def of that name in a class body of the file (_class_statements; an index kept once per file)."""
    index = analysis.derived.get("cast_motion.class_methods")
    if index is None:
        index = analysis.derived["cast_motion.class_methods"] = {}
        for cls in analysis.nodes.classes:
            for s in _class_statements(cls.body.body):
                if isinstance(s, cst.FunctionDef):
                    index.setdefault(s.name.value, []).append(s)
    return index.get(name, [])


def _blocks(node):
    for child in children(node):
        if isinstance(child, (cst.IndentedBlock, cst.SimpleStatementSuite)):
            yield child
        elif isinstance(child, (cst.If, cst.Else, cst.ExceptHandler, cst.ExceptStarHandler, cst.Finally)):
            yield from _blocks(child)


_BUILTIN_TYPES = frozenset({"object", "type", "int", "float", "bool", "str", "bytes", "tuple", "list", "dict", "set"})


def _bound_member_effectful(analysis, name: str, value, defs: set, effectful: set) -> bool:
    """May calling the member a class binds by assignment (`__bool__ = _flush`, `__len__ = lambda
    self: ...`, `__eq__ = functools.partialmethod(...)`) run code not proven read-only? A def of
    the same class is judged by its body (to the same fixed point), a function or lambda of this
    module by its body, a builtin type's member (`__hash__ = object.__hash__`) and a constant
    (`__hash__ = None`) are harmless; any other value may be any callable: a dunder so bound is
    effectful (a plain member is data, read as such)."""
    if isinstance(value, cst.Name) and value.value in defs:
        return value.value in effectful
    if isinstance(value, cst.Lambda):
        return any(unproven_effect(analysis, n) is not None for n in iter_nodes(value.body, cst.CSTNode))
    if isinstance(value, cst.Name):
        function = next(iter(_module_functions(analysis, value.value)), None)
        if function is not None:
            return any(
                unproven_effect(analysis, n) is not None
                for n in iter_nodes(function.body, cst.CSTNode)
                if not isinstance(n, cst.Return)
            )
        if value.value in _KEYWORD_NAMES:
            return False
    if isinstance(value, _CONSTANTS + _DISPLAYS):
        return False
    if isinstance(value, cst.Attribute) and (dotted(value) or "").split(".")[0] in _BUILTIN_TYPES:
        return False
    if isinstance(value, cst.Attribute) and value.attr.value in effectful:
        return True  # a bound method of a class of this file (`self._sync`) whose body may write
    if (
        isinstance(value, cst.Call)
        and (analysis.call_name(value) or dotted(value.func) or "")
        in (analysis.tables.partial_callables | analysis.tables.partial_methods)
        and value.args
        and value.args[0].keyword is None
    ):  # `partial(self._sync, 1)` calls its first argument
        return _bound_member_effectful(analysis, name, value.args[0].value, defs, effectful)
    if isinstance(value, cst.Call) and any(
        isinstance(arg.value, (cst.Name, cst.Attribute, cst.Lambda))
        and _bound_member_effectful(analysis, "member", arg.value, defs, effectful)
        for arg in value.args
    ):  # `property(_get)`, `staticmethod(_sync)`: a wrapper of a callable not proven read-only
        return True
    return name.startswith("__") and name.endswith("__")


def _property_read(analysis, node) -> str | None:
    """Why reading this attribute runs code (a property of a class of the file), if it does."""
    if not isinstance(node, cst.Attribute) or not is_property(analysis, node.attr.value):
        return None
    parent = analysis.parent(node)
    if isinstance(parent, cst.Call) and parent.func is node:
        return None  # a method call: judged as a call
    if (
        isinstance(parent, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign, cst.Del))
        and getattr(parent, "target", None) is node
    ):
        return None  # a store: judged as one
    return (
        f"reads `{_code(analysis, node)}`, a property of a class of this file whose getter is not proven "
        "read-only (a call)"
    )


# -- code the file does not show: library bases, writers passed on, frames (round 5) -----------------
#
# rules/casts.toml [cast_motion] module_conversions, frame_functions, frame_attributes,
# [cast_motion.library_bases], protocols.torch_arguments / match_* / contains; docs/fix.md, "Round 5
# of the blind benchmark", states the rules.


class _LibraryHit(str):
    """A member of a class of the file that code the file does not show (a library base's dunders, a
    class decorator's generated methods, a metaclass) may call, whose body is not proven read-only."""

    origin: str = ""  # the base, decorator or metaclass, as spelled
    owner: cst.ClassDef | None = None
    at: cst.CSTNode | None = None  # the member's definition in that class, when it has one


def _qualified(analysis, expr) -> str | None:
    """The dotted name expr stands for under the module's imports (`nn.Module` -> `torch.nn.Module`,
    a builtin its own name), else as spelled."""
    if isinstance(expr, cst.Call):
        expr = expr.func
    if isinstance(expr, cst.Subscript):  # `Generic[T]`
        expr = expr.value
    scope = analysis.scopes.get(expr)
    try:
        names = scope.get_qualified_names_for(expr) if scope is not None else set()
    except Exception:  # noqa: BLE001 - a node the scope analysis never saw
        names = set()
    for qn in sorted(names, key=lambda q: q.name):
        return qn.name[len("builtins.") :] if qn.name.startswith("builtins.") else qn.name
    return dotted(expr)


def _class_members(cls: cst.ClassDef) -> set[str]:
    """Names a class statement defines: its defs and nested classes, class-level assignments and
    annotated fields (a dataclass's or NamedTuple's fields)."""
    names: set[str] = set()
    for statement in _class_statements(cls.body.body):
        if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
            names.add(statement.name.value)
        elif isinstance(statement, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
            for small in statement.body:
                targets = (
                    [t.target for t in small.targets]
                    if isinstance(small, cst.Assign)
                    else [small.target]
                    if isinstance(small, (cst.AnnAssign, cst.AugAssign))
                    else []
                )
                for target in targets:
                    names |= {leaf.value for leaf in _flat_targets(target) if isinstance(leaf, cst.Name)}
    return names


def _defined_members(analysis) -> frozenset:
    """Every member name a class of the file defines (any body) or gets bound outside its statement."""
    found = analysis.derived.get("cast_motion.defined")
    if found is None:
        names: set[str] = set()
        for cls in analysis.nodes.classes:
            names |= _class_members(cls)
        names |= {name for name, _, _ in _dunders_bound_outside(analysis)}
        pruned = getattr(analysis, "_pruned", None)
        if pruned is not None:
            names |= set(pruned.dropped_members)
        found = analysis.derived["cast_motion.defined"] = frozenset(names)
    return found


def _open_classes(analysis) -> list:
    """(class, origin, members, star) for each class of the file that gets code it does not show: a
    library base (not a class of the file, nor of the project's other files), a class decorator, a
    metaclass. members: the names that code may call (rules/casts.toml [cast_motion.library_bases];
    "fields": the names the class annotates; an origin not listed, or "*" - then star -: every member
    the class and its bases of the file define). A subclass of such a class of the file is open too."""
    found = analysis.derived.get("cast_motion.open_classes")
    if found is not None:
        return found
    table = analysis.tables.library_bases
    classes = {cls.name.value: cls for cls in analysis.nodes.classes}
    memo: dict = {}

    def all_members(cls, seen=()) -> set[str]:
        names = _class_members(cls)
        for base in cls.bases:
            other = classes.get(dotted(base.value) or "")
            if other is not None and other not in seen and other is not cls:
                names |= all_members(other, seen + (cls,))
        return names

    def sources(cls, seen=()) -> list:
        if id(cls) in memo:
            return memo[id(cls)]
        memo[id(cls)] = []  # a cycle adds nothing
        out = []
        exprs = (
            [b.value for b in cls.bases]
            + [d.decorator for d in cls.decorators]
            + [k.value for k in cls.keywords if k.keyword is not None and k.keyword.value == "metaclass"]
        )
        for expr in exprs:
            plain = expr.value if isinstance(expr, cst.Subscript) else expr
            spelled = dotted(plain) or ""
            if spelled in classes and classes[spelled] is not cls and isinstance(plain, cst.Name):
                out += [(origin, names) for origin, names in sources(classes[spelled])]
                continue
            qualified = _qualified(analysis, expr) or spelled
            listed = table.get(spelled)
            if listed is None:
                listed = table.get(qualified)
            if listed is None and not _library_name(analysis, qualified):
                continue  # a class of the project, defined in another file: outside reach, trusted by name
            text = _code(analysis, expr, 40)
            if listed is None or "*" in listed:
                out.append((text, None))
            elif listed:
                out.append((text, frozenset(listed)))
        memo[id(cls)] = out
        return out

    def fields(cls, seen=()) -> set[str]:
        """The names the class and its bases of the file annotate (a record's fields)."""
        names = {
            small.target.value
            for statement in _class_statements(cls.body.body)
            if isinstance(statement, (cst.SimpleStatementLine, cst.SimpleStatementSuite))
            for small in statement.body
            if isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name)
        }
        for base in cls.bases:
            other = classes.get(dotted(base.value) or "")
            if other is not None and other not in seen and other is not cls:
                names |= fields(other, seen + (cls,))
        return names

    found = []
    for cls in analysis.nodes.classes:
        for origin, names in sources(cls):
            star = names is None
            if star:
                names = frozenset(all_members(cls))
            elif "fields" in names:  # [cast_motion.library_bases]: a record's generated methods read its fields
                names = (names - {"fields"}) | frozenset(fields(cls))
            found.append((cls, origin, names, star))
    analysis.derived["cast_motion.open_classes"] = found
    return found


def _library_name(analysis, qualified: str) -> bool:
    """Is this (qualified) name one of a library whose classes' code the file does not show: the
    standard library, or a package of rules/casts.toml [cast_motion] library_modules (torch, attrs,
    ...)? A bare name not imported and not a builtin (from a `*` import) may be anything: yes. A class
    of the project in another file: no (its code is outside reach, trusted by name as the tables are)."""
    if "." not in qualified:
        return True
    top = qualified.split(".")[0]
    stdlib = getattr(sys, "stdlib_module_names", None)
    return stdlib is None or top in stdlib or top in analysis.tables.library_modules


def _open_hit(analysis) -> _LibraryHit | None:
    """A member that code of a library base, class decorator or metaclass of a class of the file may
    call (_open_classes), whose body is not proven read-only: then any protocol operation on a value
    that may be an instance of that class may run it. The class's own defs (and those of its bases of
    the file) are judged by their bodies; a field (data the library may read, or a name that code
    looks up on other objects: a Protocol's) by the file's members of that name."""
    if not _open_classes(analysis) and not _type_calls(analysis):
        return None
    return _settled(analysis, "cast_motion.open_hit", lambda: _find_open_hit(analysis))


def _find_open_hit(analysis) -> _LibraryHit | None:
    pruned = getattr(analysis, "_pruned", None)
    dropped = set(pruned.dropped_members) if pruned is not None else set()
    for cls, origin, names, star, defs, bound in _open_class_members(analysis):
        # the class's own members first, `__init__` last (library code calls it only to make a copy)
        for name in sorted(names, key=lambda n: (n not in defs, n == "__init__", n)):
            if name in defs:
                writes = _body_unproven(analysis, defs[name].body)
            elif name in bound:
                writes = _bound_member_effectful(analysis, name, bound[name], set(defs), effectful_members(analysis))
            elif star:  # a field an unknown library's code may look up on other objects (a Protocol's)
                writes = name in effectful_members(analysis) and is_effectful(analysis, name)
            else:  # a name the class does not define: the library's own member runs
                writes = False
            if not writes and name in dropped:
                analysis.derived[PRUNED_UNDECIDED] = True
                writes = True
            if writes:
                hit = _LibraryHit(name)
                hit.origin, hit.owner, hit.at = origin, cls, defs.get(name)
                return hit
    return _type_call_hit(analysis)


def _open_class_members(analysis) -> list:
    """(class, origin, names, star, defs, bound) per open class (_open_classes): the defs and
    assigned members of the class and its bases of the file, the class's first. Structure only, so
    kept once per file (the open hit is judged again on each pass of _members' fixed point)."""
    found = analysis.derived.get("cast_motion.open_class_members")
    if found is not None:
        return found
    classes = {cls.name.value: cls for cls in analysis.nodes.classes}
    found = []
    for cls, origin, names, star in _open_classes(analysis):
        defs: dict = {}
        bound: dict = {}
        chain, seen = [cls], set()
        while chain:  # the class, then its bases of the file
            one = chain.pop(0)
            if id(one) in seen:
                continue
            seen.add(id(one))
            for statement in _class_statements(one.body.body):
                if isinstance(statement, cst.FunctionDef):
                    defs.setdefault(statement.name.value, statement)
                elif isinstance(statement, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
                    for small in statement.body:
                        if isinstance(small, cst.Assign):
                            for t in small.targets:
                                if isinstance(t.target, cst.Name):
                                    bound.setdefault(t.target.value, small.value)
            chain += [classes[b] for b in (dotted(base.value) for base in one.bases) if b in classes]
        found.append((cls, origin, names, star, defs, bound))
    analysis.derived["cast_motion.open_class_members"] = found
    return found


def _type_call_hit(analysis) -> _LibraryHit | None:
    """A class made by `type(name, bases, namespace)` with a library base (or bases that are not a
    literal tuple): a member of its namespace not proven read-only (a namespace that is not a literal
    dict: any member of the file not proven read-only)."""
    effectful = effectful_members(analysis)
    classes = {cls.name.value for cls in analysis.nodes.classes}
    for call in _type_calls(analysis):
        bases, namespace = call.args[1].value, call.args[2].value
        if isinstance(bases, (cst.Tuple, cst.List)):
            library = [
                el.value
                for el in bases.elements
                if dotted(el.value) not in classes
                and (
                    (analysis.tables.library_bases.get(_qualified(analysis, el.value) or "") is None)
                    or "*" in analysis.tables.library_bases.get(_qualified(analysis, el.value) or "", ())
                )
                and _library_name(analysis, _qualified(analysis, el.value) or "")
            ]
            if not library:
                continue
            origin = _code(analysis, library[0], 40)
        else:
            origin = _code(analysis, bases, 40)
        if isinstance(namespace, cst.Dict):
            members = [
                (el.key.evaluated_value, el.value)
                for el in namespace.elements
                if isinstance(el, cst.DictElement) and isinstance(el.key, cst.SimpleString)
            ]
            hit = next(
                (name for name, value in members if _bound_member_effectful(analysis, name, value, set(), effectful)),
                None,
            )
        else:
            hit = next((name for name in sorted(effectful) if is_effectful(analysis, name)), None)
        if hit is not None:
            found = _LibraryHit(hit)
            found.origin, found.owner = origin, call
            return found
    return None


def _type_calls(analysis) -> list:
    """The module's `type(name, bases, namespace)` calls (built once)."""
    found = analysis.derived.get("cast_motion.type_calls")
    if found is None:
        found = analysis.derived["cast_motion.type_calls"] = [
            call
            for call in iter_nodes(analysis.module, cst.Call)
            if dotted(call.func) == "type" and len(call.args) == 3 and not any(a.keyword or a.star for a in call.args)
        ]
    return found


def _provided_names(analysis) -> tuple:
    """(names, why any): the member names an object of the file may get - a class's defs, fields and
    class-level bindings, an attribute stored (every name of the target's chain: `m.clone.return_value
    = buf` configures a Mock's `clone`), a keyword of a call (`SimpleNamespace(clone=...)`), a string
    literal naming one (`namedtuple("S", ["tolist"])`, `Mock(**{"clone.return_value": b})`,
    `setattr(o, "clone", f)`); why any: a `__getattr__`/`__getattribute__` of the file, a `setattr`
    with a name that is not a literal, `**` of a value that is not a display given to a library callable
    or a class of the file (a Mock or a record built from a dict)."""
    found = analysis.derived.get("cast_motion.provided")
    if found is not None:
        return found
    names = set(_defined_members(analysis))
    anything = None
    if names & {"__getattr__", "__getattribute__"}:
        anything = "a class of the file defines `__getattr__`/`__getattribute__`"
    classes = {cls.name.value for cls in analysis.nodes.classes}
    for node in iter_nodes(
        analysis.module, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign, cst.Call, cst.SimpleString)
    ):
        if isinstance(node, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign)):
            target = node.target
            while isinstance(target, (cst.Attribute, cst.Subscript)):
                if isinstance(target, cst.Attribute):
                    names.add(target.attr.value)
                target = target.value
        elif isinstance(node, cst.SimpleString):
            text = node.evaluated_value
            if isinstance(text, str) and len(text) < 80:
                for word in text.replace(",", " ").split():
                    names.add(word.split(".")[0])
        else:
            names |= {arg.keyword.value for arg in node.args if arg.keyword is not None}
            callee = dotted(node.func) or ""
            if callee == "setattr" and len(node.args) >= 2 and not isinstance(node.args[1].value, cst.SimpleString):
                anything = anything or f"`setattr` with a name that is not a literal (line {_line(analysis, node)})"
            if any(arg.star == "**" and not isinstance(arg.value, cst.Dict) for arg in node.args) and (
                callee in classes or _library_name(analysis, _qualified(analysis, node.func) or callee)
            ):
                anything = anything or f"`{_code(analysis, node, 40)}` (line {_line(analysis, node)})"
    found = analysis.derived["cast_motion.provided"] = (frozenset(names), anything)
    return found


def _may_provide(analysis, name: str) -> bool:
    """May an object of the file have a member of this name (_provided_names)?"""
    names, anything = _provided_names(analysis)
    return anything is not None or name in names


def _operator_new(analysis, construct: str, operands) -> bool:
    """Is an operator's result a new object (not an operand, nor anything one holds)? Yes where every
    operand is proven a tensor or builtin value (torch and Python make a new one), or where no class of
    the file defines one of the construct's dunders ([cast_motion.protocols]): the file's `__add__` may
    return the pool's buffer itself (a library's operators make new objects)."""
    if all(_tensor_typed(analysis, op) for op in operands):
        return True
    dunders = analysis.tables.protocols.get(construct, frozenset())
    return not (dunders & _defined_members(analysis))


def _tensor_typed(analysis, expr, depth: int = 0) -> bool:
    """Is expr proven a torch tensor or a builtin value - never an nn.Module, nor an object of the
    file: a builtin value (_builtin_typed), a pool or rows of one (the flow model), an index, cast,
    view, gather or new tensor of one, an operator of such, a local bound only to such values?"""
    if depth > 6 or expr is None:
        return False
    if _builtin_typed(analysis, expr, depth):
        return True
    try:
        if analysis.origin(expr) in (Origin.GATHERED, Origin.PREFIX, Origin.POOL):
            return True
    except Exception:  # noqa: BLE001 - a node the analysis never indexed
        pass
    t = analysis.tables
    if isinstance(expr, cst.Name):
        return _bound_only_to(analysis, expr, lambda v: _tensor_typed(analysis, v, depth + 1))
    if isinstance(expr, cst.Subscript):
        return _tensor_typed(analysis, expr.value, depth + 1)
    if isinstance(expr, cst.BinaryOperation):
        return _tensor_typed(analysis, expr.left, depth + 1) and _tensor_typed(analysis, expr.right, depth + 1)
    if isinstance(expr, cst.UnaryOperation):
        return _tensor_typed(analysis, expr.expression, depth + 1)
    if isinstance(expr, cst.Call) and _is_method(analysis, expr.func):
        method = expr.func.attr.value
        tensor_methods = (
            set(t.casts) | t.view_methods | t.gather_methods | t.new_value_methods | set(t.reinterpret_methods)
        )
        return (
            method in tensor_methods
            and not is_effectful(analysis, method)
            and _tensor_typed(analysis, expr.func.value, depth + 1)
        )
    return False


def _escape_candidates(analysis) -> dict:
    """Where a callable of this file may be used as a value, not called on the spot (built once):
    "values": (node, the callable, its name) for a function's or method's name read (`Hooks(self._sync)`,
    `{"tolist.side_effect": self._admit}`, `return w`), a `getattr(obj, "<method>")`, a lambda, a
    writer of any file (`operator.setitem`, `buf.zero_`: the callable None); "reads": attribute reads
    (not calls, not stores) by name; "callbacks": ids of the arguments a read-only builtin only calls
    back (`key=`), never keeps."""
    found = analysis.derived.get("cast_motion.escape_candidates")
    if found is not None:
        return found
    functions: dict = {}
    for function in iter_nodes(analysis.module, cst.FunctionDef):
        functions.setdefault(function.name.value, []).append(function)
    methods = {
        s.name.value
        for cls in analysis.nodes.classes
        for s in _class_statements(cls.body.body)
        if isinstance(s, cst.FunctionDef)
    }
    callbacks: set[int] = set()
    for call in iter_nodes(analysis.module, cst.Call):
        name = _function_name(analysis, call) if dotted(call.func) is not None else None
        entry = analysis.tables.callbacks.get(name or "")
        if entry is not None:
            callbacks |= {id(v) for v in _args_at(call, entry["calls"])}
    values: list = []
    reads: dict = {}
    for node in iter_nodes(analysis.module, (cst.Name, cst.Attribute, cst.Lambda, cst.Call)):
        parent = analysis.parent(node)
        if isinstance(parent, cst.Call) and parent.func is node:
            continue  # called on the spot
        stored = isinstance(parent, (cst.AssignTarget, cst.Del)) or getattr(parent, "target", None) is node
        if isinstance(node, cst.Attribute) and not stored:
            reads.setdefault(node.attr.value, []).append(node)
        if isinstance(node, (cst.Name, cst.Attribute)) and not stored and _writer_value(analysis, node):
            values.append((node, None, _code(analysis, node, 40)))
        elif isinstance(node, cst.Lambda):
            values.append((node, node, "lambda"))
        elif isinstance(node, cst.Name) and node.value in functions:
            if isinstance(parent, (cst.FunctionDef, cst.ClassDef)) and parent.name is node:
                continue  # the def itself
            if isinstance(parent, (cst.ImportAlias, cst.AsName)) or any(
                isinstance(a, (cst.Import, cst.ImportFrom)) for a in analysis.ancestors(node)
            ):
                continue  # an import binds a name, it passes nothing on
            if isinstance(parent, cst.Attribute) and parent.attr is node or stored:
                continue
            values.append((node, node, node.value))
        elif isinstance(node, cst.Attribute) and node.attr.value in methods | set(functions) and not stored:
            values.append((node, node, node.attr.value))
        elif (
            isinstance(node, cst.Call)
            and dotted(node.func) == "getattr"
            and len(node.args) >= 2
            and isinstance(node.args[1].value, cst.SimpleString)
            and isinstance(node.args[1].value.evaluated_value, str)
            and node.args[1].value.evaluated_value in methods
        ):
            values.append((node, node, node.args[1].value.evaluated_value))
    found = analysis.derived["cast_motion.escape_candidates"] = {
        "values": values,
        "reads": reads,
        "callbacks": callbacks,
    }
    return found


def _escape_sink(analysis, node, callbacks: set, depth: int = 0):
    """Where a value read at node may be kept: None when it is only called, tested or dropped (through
    a conditional or boolean expression, or a local whose every read is so); ("held", name) when it
    is stored as an attribute under a literal name that no table lists as read-only (its reads are then
    followed in turn); else the node that keeps it (an argument of a call, a display, a return, a store
    under a listed name or into a container) - an object may then hold it under any name."""
    parent = analysis.parent(node)
    if parent is None or depth > 4:
        return parent
    if isinstance(parent, cst.Call) and parent.func is node:
        return None
    if isinstance(parent, cst.IfExp) and parent.test is not node or isinstance(parent, cst.BooleanOperation):
        return _escape_sink(analysis, parent, callbacks, depth + 1)
    if isinstance(parent, cst.Arg) and id(node) in callbacks:
        return None
    if isinstance(parent, cst.Arg) and _exit_registration(analysis, analysis.parent(parent)):
        return None  # round 13: `atexit.register(f, ...)` keeps f for interpreter exit, calls it only then
    if isinstance(parent, cst.Arg):
        call = analysis.parent(parent)
        if isinstance(call, cst.Call) and _project_callee(analysis, call):
            return None  # a function of the project's other files: outside reach, trusted by name
        if (
            isinstance(call, cst.Call)
            and (analysis.call_name(call) or "") in analysis.tables.partial_callables
            and call.args
            and call.args[0] is parent
        ):
            return _escape_sink(analysis, call, callbacks, depth + 1)  # `partial(f, x)` is f, called later
        if isinstance(call, cst.Call):
            params = _callee_params(analysis, call, parent)
            if params:  # functions of this file: where each keeps what it is given
                for param in params:
                    scope = analysis.scopes.get(param.name)
                    accesses = scope.accesses[param.name.value] if scope is not None else ()
                    for access in accesses:
                        sink = _escape_sink(analysis, access.node, callbacks, depth + 1)
                        if sink is not None:
                            return sink
                return None
    if isinstance(parent, (cst.Expr, cst.Comparison, cst.If, cst.IfExp, cst.While, cst.Assert)):
        return None  # evaluated and dropped, or tested
    if isinstance(parent, cst.Attribute) and parent.value is node:
        return None  # `f.__name__`: an attribute of the callable is read, the callable is not kept
    if isinstance(parent, cst.Subscript) and parent.value is node:
        return _escape_sink(analysis, parent, callbacks, depth + 1)  # `kernel[grid]`: a launcher of it
    if isinstance(parent, cst.Assign) and parent.value is node:
        listed = _known_methods(analysis.tables)
        for target in parent.targets:
            leaf = target.target
            if isinstance(leaf, cst.Attribute) and leaf.attr.value not in listed:
                return ("held", leaf.attr.value)
            if isinstance(leaf, cst.Name):
                scope = analysis.scopes.get(leaf)
                if isinstance(scope, ClassScope) and leaf.value not in listed:
                    return ("held", leaf.value)  # a member of that name
                if not isinstance(scope, FunctionScope):
                    return parent  # a module variable: any code may read it
                for access in scope.accesses[leaf.value]:
                    sink = _escape_sink(analysis, access.node, callbacks, depth + 1)
                    if sink is not None:
                        return sink
                continue
            return parent
        return None
    if isinstance(parent, cst.Decorator):
        return None  # `@traced`: called once, on the def, when it is defined
    if isinstance(parent, cst.Return) and _decorator_only(analysis, analysis.enclosing_function(parent)):
        return None  # a decorator's result is what the decorated name is bound to: a def of the file
    return parent


def _decorator_only(analysis, function, depth: int = 0) -> bool:
    """Is this def of the file only ever applied as a decorator (`@traced`), called as a decorator factory
    (`@tagged("v")`), or returned by such a factory? Then what it returns is bound to the decorated def's
    name, whose calls are judged as calls of the file's functions, not held by an object under any name."""
    if not isinstance(function, cst.FunctionDef) or depth > 3:
        return False
    # every Name spelling it anywhere in the file (scopes miss a class body's decorators; a shadowing
    # name of another scope only counts against)
    uses = [
        n for n in iter_nodes(analysis.module, cst.Name) if n.value == function.name.value and n is not function.name
    ]
    if not uses:
        return False
    for node in uses:
        parent = analysis.parent(node)
        if isinstance(parent, cst.Decorator):
            continue
        if isinstance(parent, cst.Call) and parent.func is node and isinstance(analysis.parent(parent), cst.Decorator):
            continue
        if isinstance(parent, cst.Return) and _decorator_only(analysis, analysis.enclosing_function(parent), depth + 1):
            continue
        return False
    return True


def _callee_params(analysis, call: cst.Call, arg: cst.Arg) -> list:
    """The parameters of this file's functions that a call may bind arg to: a module function called by
    name, a method of a class of the file called by attribute (every def of that name; `self` is not
    a positional). [] when a callee is not one of the file's (or arg cannot be mapped: `*args`)."""
    if arg.star or any(a.star for a in call.args):
        return []
    if isinstance(call.func, cst.Name):
        defs = list(_module_functions(analysis, call.func.value))
        skip = 0
    elif isinstance(call.func, cst.Attribute):
        name = call.func.attr.value
        defs = list(_class_methods(analysis, name))
        skip = 1
    else:
        return []
    if not defs:
        return []
    out = []
    position = [a for a in call.args if a.keyword is None].index(arg) if arg.keyword is None else None
    for function in defs:
        params = list(function.params.posonly_params) + list(function.params.params)
        if skip and not any(
            isinstance(d.decorator, cst.Name) and d.decorator.value == "staticmethod" for d in function.decorators
        ):
            params = params[1:]
        if position is not None:
            if position >= len(params):
                return []
            out.append(params[position])
        else:
            named = [p for p in params + list(function.params.kwonly_params) if p.name.value == arg.keyword.value]
            if not named:
                return []
            out += named
    return out


def _project_callee(analysis, call: cst.Call, depth: int = 0) -> bool:
    """Is the called function one of the project's other files (not a library's, not this file's own):
    imported from one of them, or a method of an object only such a function answers
    (`get_cp_strategy().run_attention(...)`)? Its code is outside the file's reach: it is trusted by
    name, as the tables are."""
    if depth > 3 or dotted(call.func) is None:
        return False
    if _import_bound(analysis, call.func):
        return not _library_name(analysis, _qualified(analysis, call.func) or "")
    if isinstance(call.func, cst.Attribute) and isinstance(call.func.value, cst.Name):
        return _bound_only_to(
            analysis,
            call.func.value,
            lambda v: isinstance(v, cst.Call) and _project_callee(analysis, v, depth + 1),
        )
    return False


def _escaped_writer(analysis) -> str | None:
    """Where a callable of this file whose body is not proven read-only (or a writer of any file:
    writer_callables, a bound in-place method) is passed on as a value (not called on the spot) to where
    an object may hold it under *any* name - a call's argument (a Mock's `side_effect`, a dataclass or
    namedtuple field, a constructor that stores it), a display, a return (`__getattr__` answering it) -
    so that a call of a read_methods name on a value not proven a tensor may call it. Stored as an
    attribute under a name no table lists, its reads are followed in turn. None when none escapes."""
    if not _escape_candidates(analysis)["values"]:
        return None
    return _settled(analysis, "cast_motion.escaped", lambda: _find_escaped_writer(analysis))


def _find_escaped_writer(analysis) -> str | None:
    found = _escape_candidates(analysis)
    callbacks = found["callbacks"]
    work = list(found["values"])
    held: set[str] = set()
    sinks = analysis.derived.setdefault("cast_motion.escape_sinks", {})  # structure: kept across the fixed point
    while work:
        node, value, name = work.pop(0)
        if id(node) not in sinks:
            sinks[id(node)] = _escape_sink(analysis, node, callbacks)
        sink = sinks[id(node)]
        if sink is None or not _writes(analysis, value, name):
            continue
        if isinstance(sink, tuple):
            if sink[1] not in held:
                held.add(sink[1])
                work += [(read, "held", sink[1]) for read in found["reads"].get(sink[1], ())]
            continue
        shown = "a lambda" if isinstance(value, cst.Lambda) else f"`{name}`"
        return (
            f"{shown}, a callable that is not proven read-only, is passed on as a value at line "
            f"{_line(analysis, node)} (`{_code(analysis, sink, 50)}`): an object may hold it under any "
            "name (a Mock, a dataclass or namedtuple field, `__getattr__`)"
        )
    return None


def _writes(analysis, value, name: str) -> bool:
    """May calling this escaping value write? A writer of any file or what holds one (value None or
    "held"), a lambda or function of the file by its body, a method by the file's members of its name."""
    if value is None or value == "held":
        return True
    if isinstance(value, cst.Lambda):
        return _body_unproven(analysis, value.body)
    if isinstance(value, cst.Name):
        return _function_writes(analysis, value)
    if name in effectful_members(analysis) and name not in property_names(analysis) and is_effectful(analysis, name):
        return True  # a method (or a module function) read as an attribute, or got by getattr
    return isinstance(value, cst.Attribute) and _function_writes(analysis, cst.Name(name), module_only=True)


def _writer_value(analysis, node) -> bool:
    """Is this name or attribute, read as a value, a callable that writes whatever the file defines: one
    of [cast_motion] writer_callables, or a bound method of an in-place name, of writer_attributes or
    a `set_*kv*` store?"""
    t = analysis.tables
    if isinstance(node, cst.Attribute):
        parent = analysis.parent(node)
        if isinstance(parent, (cst.AssignTarget, cst.Del)) or getattr(parent, "target", None) is node:
            return False
        name = node.attr.value
        if name in t.writer_attributes:  # a bound writer (`buf.zero_`, `buf.__setitem__`)
            return True
        if name.startswith("set_") and any(w in name for w in ("kv", "buffer", "cache")):
            return True
    elif not (isinstance(node, cst.Name) and node.value in {w.split(".")[-1] for w in t.writer_callables}):
        return False
    return dotted(node) is not None and _qualified(analysis, node) in t.writer_callables


def _body_unproven(analysis, body) -> bool:
    return any(
        unproven_effect(analysis, n) is not None for n in iter_nodes(body, cst.CSTNode) if not isinstance(n, cst.Return)
    )


def _function_writes(analysis, name: cst.Name, module_only: bool = False) -> bool:
    """Is the function this name reads (a def of the module, or a nested def it reaches) one whose
    body is not proven read-only?"""
    defs = []
    if not module_only:
        scope = analysis.scopes.get(name)
        try:
            assignments = list(scope[name.value]) if scope is not None else []
        except Exception:  # noqa: BLE001
            assignments = []
        defs = [a.node for a in assignments if isinstance(getattr(a, "node", None), cst.FunctionDef)]
    if not defs:
        defs = list(_module_functions(analysis, name.value))
    return any(_body_unproven(analysis, d.body) for d in defs)


def _may_hold_modules(analysis) -> str | None:
    """Where the file refers to torch.nn (or another maker of modules: rules/casts.toml [cast_motion]
    module_markers: an import of one, or an attribute chain that names one), so that a value of it may
    be an nn.Module whose conversions work in place."""
    found = analysis.derived.get("cast_motion.modules", False)
    if found is not False:
        return found
    markers = analysis.tables.module_markers

    def under(name: str, words) -> bool:
        return any(name == m or name.startswith(m + ".") for m in words)

    def marked(name: str) -> bool:
        return under(name, markers) and not under(name, analysis.tables.not_module_markers)

    parts = {p for m in markers for p in m.split(".")[1:]}
    found = None
    for node in iter_nodes(analysis.module, (cst.Import, cst.ImportFrom, cst.Attribute)):
        names: list[str] = []
        if isinstance(node, cst.Import):
            names = [dotted(alias.name) or "" for alias in node.names]
        elif isinstance(node, cst.ImportFrom) and node.module is not None and not node.relative:
            module = dotted(node.module) or ""
            if isinstance(node.names, cst.ImportStar):
                names = [module]
            else:
                names = [f"{module}.{dotted(alias.name)}" for alias in node.names]
        elif isinstance(node, cst.Attribute):
            parent = analysis.parent(node)
            text = dotted(node)
            if (
                text is not None
                and not (isinstance(parent, cst.Attribute) and parent.value is node)
                and parts & set(text.split(".")[1:])
            ):
                names = [_qualified(analysis, node) or ""]  # the whole chain: `torch.nn.functional.relu`
        if any(marked(name) for name in names):
            found = f"`{_code(analysis, node, 40)}` (line {_line(analysis, node)})"
            break
    if found is None:
        pruned = getattr(analysis, "_pruned", None)
        if pruned is not None and parts & (set(pruned.dropped_names) | set(pruned.dropped_attr_names)):
            analysis.derived[PRUNED_UNDECIDED] = True
            found = "code the pruned copy dropped"
    analysis.derived["cast_motion.modules"] = found
    return found


def _frame_reader(analysis) -> str | None:
    """Where the file reads a frame's locals by a way the proof does not see as a read of a name
    (rules/casts.toml [cast_motion] frame_functions, frame_attributes): `locals()`, `vars()`, `eval`,
    `sys._getframe().f_locals`, a traceback's `tb_frame`."""
    found = analysis.derived.get("cast_motion.frames", False)
    if found is not False:
        return found
    t = analysis.tables
    last = {f.split(".")[-1] for f in t.frame_functions}
    found = None
    for node in iter_nodes(analysis.module, (cst.Name, cst.Attribute)):
        if isinstance(node, cst.Attribute):
            name = node.attr.value
            hit = name in t.frame_attributes or (
                name in last and dotted(node) is not None and _qualified(analysis, node) in t.frame_functions
            )
        else:
            parent = analysis.parent(node)
            hit = (
                node.value in last
                and not (isinstance(parent, cst.Attribute) and parent.attr is node)
                and _qualified(analysis, node) in t.frame_functions
            )
        if hit:
            found = f"`{_code(analysis, node, 40)}` (line {_line(analysis, node)})"
            break
    pruned = getattr(analysis, "_pruned", None)
    if found is None and pruned is not None:
        words = {f.split(".")[-1] for f in t.frame_functions} | set(t.frame_attributes)
        hit = sorted(words & (set(pruned.dropped_names) | set(pruned.dropped_attr_names)))
        if hit:
            analysis.derived[PRUNED_UNDECIDED] = True
            found = f"`{hit[0]}` (in code the pruned copy dropped)"
    analysis.derived["cast_motion.frames"] = found
    return found


# -- code that runs implicitly: iteration, callbacks, dunder protocols ------------------------
#
# rules/casts.toml [cast_motion] (container_functions, iterable_*, scalar_*, [[callbacks]],
# [protocols]) holds the facts; docs/fix.md, "Safety", states the rule.


def _effectful_hit(analysis, dunders) -> str | None:
    """Where a construct runs implicit code (its [cast_motion.protocols] / callbacks list is not
    empty): the first member of the file that implicit code may run whose body is not proven
    read-only (_implicit_hit). The list says only *that* the construct runs implicit code, never
    *which* member: a dunder's result runs its own dunders, a fallback runs another operator, a
    library runs protocols no list names (round 6)."""
    if not dunders:
        return None
    return _implicit_hit(analysis)


class _EscapeHit(str):
    """A writer of the file passed on as a value, which an object may hold and library code call."""

    why: str = ""


def _implicit_hit(analysis, construction: bool = False) -> str | None:
    """The first member of the file that code nobody spells may run, whose body is not proven
    read-only (docs/fix.md, "Round 6"): any dunder, any name library code calls on what it is given
    (rules/casts.toml library_called_members) - and, where the operation may construct
    (construction: a `raise`, a library function), the members that run when an object is made
    (construction_members, `__init__`) or dies (finalizer_dunders: the made object may be dropped at
    once; other drops are judged where they happen, _drops_finalizable) -; else a member that code of
    a library base, decorator or metaclass may call (_open_hit); else a writer of the file passed on
    as a value (_escaped_writer: a defaultdict's factory, a hook). None: no implicit code of the file
    may write, whatever the operands are."""
    t = analysis.tables
    for name in sorted(effectful_members(analysis)):
        if not (_is_dunder(name) or name in t.library_called_members):
            continue
        if (name in t.construction_members or name in t.finalizer_dunders) and not construction:
            continue  # run when an object is made or dies: a construction, or a drop (_drops_finalizable)
        if is_effectful(analysis, name):
            return name
    hit = _open_hit(analysis)
    if hit is not None:
        return hit
    escaped = _escaped_writer(analysis)
    if escaped is not None:
        found = _EscapeHit("escaped")
        found.why = escaped
        return found
    return None


def _proven_value(analysis, expr) -> bool:
    """Is expr proven a value whose protocols run no code of the file: a builtin value or tensor
    (_tensor_typed), or a display (spelled here, not through a name: a list may have been filled
    since) of such values?"""
    if expr is None:
        return True
    if isinstance(expr, (cst.List, cst.Tuple, cst.Set)):
        return all(not isinstance(el, cst.StarredElement) and _proven_value(analysis, el.value) for el in expr.elements)
    if isinstance(expr, cst.Dict):
        return all(
            isinstance(el, cst.DictElement) and _proven_value(analysis, el.key) and _proven_value(analysis, el.value)
            for el in expr.elements
        )
    return _tensor_typed(analysis, expr)


def _proven_items(analysis, expr) -> bool:
    """Are the items that iterating expr yields proven values (_proven_value): a display of them, a
    string, `range(...)`, a tensor's `.tolist()`/`.size()`/`.shape` (Python numbers)?"""
    if isinstance(expr, (cst.List, cst.Tuple, cst.Set)):
        return _proven_value(analysis, expr)
    if isinstance(expr, (cst.SimpleString, cst.ConcatenatedString)):
        return True
    if isinstance(expr, cst.Call) and not _is_method(analysis, expr.func):
        return _function_name(analysis, expr) == "range"
    t = analysis.tables
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute):
        return expr.func.attr.value in t.iterable_methods and _tensor_typed(analysis, expr.func.value)
    if isinstance(expr, cst.Attribute):
        return expr.attr.value in t.iterable_attributes and _tensor_typed(analysis, expr.value)
    return False


def _may_construct(analysis, name: str | None) -> bool:
    """May a listed read-only function construct an object it is given (copy.copy's reconstruction):
    a function of a module not in rules/casts.toml non_constructing_modules; builtins never do."""
    if name is None or "." not in name:
        return False
    return name.split(".")[0] not in analysis.tables.non_constructing_modules


def _defined_here(analysis, name: str) -> str:
    if isinstance(name, _EscapeHit):
        return f"may run a writer that library code holds: {name.why}"
    if isinstance(name, _LibraryHit):
        owner = name.owner
        shown = owner.name.value if isinstance(owner, cst.ClassDef) else _code(analysis, owner, 30)
        return (
            f"may run code of `{name.origin}` (the base, decorator or metaclass of `{shown}`, line "
            f"{_line(analysis, owner)}), which may call its member `{name}`"
            + (f" (line {_line(analysis, name.at)})" if name.at is not None else _member_line(analysis, name))
            + ", whose body is not proven read-only (rules/casts.toml [cast_motion.library_bases])"
        )
    return (
        f"runs `{name}`, which a class of this file defines{_member_line(analysis, name)} with a body "
        "that is not proven read-only"
    )


def _builtin_typed(analysis, expr, depth: int = 0) -> bool:
    """Is expr proven a builtin scalar, string, None or a torch tensor (a value whose dunders are
    Python's or torch's own code, never a class of this file)?"""
    if depth > 6 or expr is None:
        return False
    t = analysis.tables
    if isinstance(expr, _CONSTANTS):
        return True
    if isinstance(expr, cst.Name):
        if expr.value in _KEYWORD_NAMES:
            return True
        return _bound_only_to(analysis, expr, lambda v: _builtin_typed(analysis, v, depth + 1))
    if isinstance(expr, cst.Attribute):
        return expr.attr.value in t.scalar_attributes or _import_bound(analysis, expr)
    if isinstance(expr, cst.Subscript):
        return _builtin_typed(analysis, expr.value, depth + 1)
    if isinstance(expr, (cst.BinaryOperation,)):
        return _builtin_typed(analysis, expr.left, depth + 1) and _builtin_typed(analysis, expr.right, depth + 1)
    if isinstance(expr, cst.UnaryOperation):
        return _builtin_typed(analysis, expr.expression, depth + 1)
    if isinstance(expr, cst.Comparison):
        # a bool, unless a class of the file defines a comparison (it may answer any object)
        operands = [expr.left] + [c.comparator for c in expr.comparisons]
        return (
            all(isinstance(c.operator, (cst.In, cst.NotIn, cst.Is, cst.IsNot)) for c in expr.comparisons)
            or (not (t.protocols.get("compare", frozenset()) & _defined_members(analysis)))
            or all(_builtin_typed(analysis, op, depth + 1) for op in operands)
        )
    if isinstance(expr, cst.Call):
        if _is_method(analysis, expr.func):
            method = expr.func.attr.value
            return method in t.scalar_methods and _listed_result_trusted(analysis, expr)
        name = _function_name(analysis, expr) or ""
        return name in t.scalar_functions or (name.startswith("torch.") and name in t.new_value_functions)
    return False


def _listed_result_trusted(analysis, call: cst.Call) -> bool:
    """May the result of this read_methods call (`x.item()`, `x.tolist()`) be taken for what the
    tensor method answers? Where the receiver is proven a tensor, or no class of the file defines the
    name with a body not proven read-only, no writer of the file escapes under any name
    (_escaped_writer) and no library code of a class of the file may run a member (_open_hit)."""
    receiver = call.func.value
    if _tensor_typed(analysis, receiver, 5):
        return True
    return (
        not is_effectful(analysis, call.func.attr.value)
        and _escaped_writer(analysis) is None
        and _open_hit(analysis) is None
    )


def _bound_only_to(analysis, name: cst.Name, test) -> bool:
    """Is every value that reaches this read of a local name one that passes test?"""
    scope = analysis.scopes.get(name)
    if scope is None or not isinstance(scope, (FunctionScope, ComprehensionScope)):
        return False
    reaching = [a for a in analysis.reaching(name) if hasattr(a, "node")]
    if not reaching:
        owner = _nonlocal_owner(analysis, name, scope)  # round 14: `nonlocal n` of a closure
        return owner is not None and _all_bindings(analysis, owner, name.value, test)
    augmented = False
    for assignment in reaching:
        node = assignment.node
        if not isinstance(node, cst.Name):
            return False
        parent = analysis.parent(node)
        if isinstance(parent, cst.AugAssign) and parent.target is node:
            augmented = True  # `n += 1`: its value is of the operand's and of the name's earlier values
            if not test(parent.value):
                return False
            continue
        kind, value, path = analysis.binding(node)
        if kind != "assign" or value is None or path:
            return False
        if not test(value):
            return False
    if augmented:  # every value the name is given in its scope (those the augmented ones update)
        return _all_bindings(analysis, scope, name.value, test)
    return True


def _all_bindings(analysis, scope, name: str, test) -> bool:
    """Is every binding of name in scope (those a nested function makes through `nonlocal` too) an
    assignment or an augmented assignment whose value passes test?"""
    for assignment in scope.assignments[name]:
        node = getattr(assignment, "node", None)
        parent = analysis.parent(node) if isinstance(node, cst.Name) else None
        if isinstance(parent, cst.AugAssign) and parent.target is node:
            if not test(parent.value):
                return False
            continue
        kind, value, path = analysis.binding(node) if isinstance(node, cst.Name) else (None, None, ())
        if kind != "assign" or value is None or path or not test(value):
            return False
    return True


def _declares(fn, name: str, kinds) -> bool:
    """Does fn's own body (not a def, lambda or class nested in it) declare name `nonlocal`/`global`?"""
    return any(
        type(node) in (cst.Global, cst.Nonlocal)
        and isinstance(node, kinds)
        and any(n.name.value == name for n in node.names)
        for node in own_nodes(fn)
    )


def _nonlocal_owner(analysis, name: cst.Name, scope):
    """Round 14: the function scope that binds a name its closure declares `nonlocal` (the closure's own
    body says `nonlocal name`, its scope's parent is a function's that binds the name and declares it
    neither `nonlocal` nor `global`); None otherwise. Every binding of the name, the closure's included, is
    recorded in that scope, so judging them all judges every value the name may hold."""
    fn, parent = getattr(scope, "node", None), getattr(scope, "parent", None)
    if not isinstance(scope, FunctionScope) or not isinstance(fn, cst.FunctionDef):
        return None
    if not isinstance(parent, FunctionScope) or not isinstance(getattr(parent, "node", None), cst.FunctionDef):
        return None
    if not _declares(fn, name.value, cst.Nonlocal) or _declares(parent.node, name.value, (cst.Nonlocal, cst.Global)):
        return None
    if not any(hasattr(a, "node") for a in parent.assignments[name.value]):
        return None
    return parent


def _iterated_tensor(analysis, expr) -> bool:
    """Round 15: is iterating expr torch's own Tensor.__iter__ (`unbind(0)`'s row views, nothing written):
    expr is proven a tensor, not a builtin value (_tensor_typed: a pool, or a view, gather, cast or new
    tensor of one), and no class of the file defines a member that iteration may run (rules/casts.toml
    tensor_iteration_members: a subclass's `__iter__`, `unbind`, `dim`, `__torch_function__`) with a body
    not proven read-only. The rows stay the pool's for the flow model (a `for` target over the pool)."""
    if _builtin_typed(analysis, expr) or not _tensor_typed(analysis, expr):
        return False
    members = analysis.tables.tensor_iteration_members
    if any(is_effectful(analysis, name) for name in sorted(members & effectful_members(analysis))):
        return False  # named members (`unbind`) the general rule of implicit dunders does not cover
    return _effectful_hit(analysis, members) is None


def _proven_iterable(analysis, expr, depth: int = 0, bound: bool = False) -> bool:
    """Is iterating expr proven to run no code of this program: a display, a comprehension, a
    string, the result of a container function or of a callback builtin (their own arguments are
    checked where they are called), `.tolist()`/`.size()`/`.shape`, a slice of one, or a local bound
    only to such values? A generator, a parameter, an attribute: not proven."""
    if depth > 6 or expr is None:
        return False
    t = analysis.tables
    if isinstance(
        expr,
        (
            cst.List,
            cst.Tuple,
            cst.Set,
            cst.Dict,
            cst.ListComp,
            cst.SetComp,
            cst.DictComp,
            cst.SimpleString,
            cst.ConcatenatedString,
            cst.FormattedString,
        ),
    ):
        return True
    if isinstance(expr, cst.GeneratorExp):
        # written here, its clauses and element are code of the region, checked there; bound to a
        # name earlier, its element runs here but is written elsewhere: not proven
        return not bound
    if isinstance(expr, cst.Name):
        if _group_of(analysis, expr):
            return True  # round 13: a group of `itertools.groupby` (its call judged where it is made)
        return _bound_only_to(analysis, expr, lambda v: _proven_iterable(analysis, v, depth + 1, True))
    if not isinstance(expr, cst.Name) and _iterated_tensor(analysis, expr):
        return True  # round 15: `for row in pool.get_key_buffer(i)`, torch's Tensor.__iter__ (row views)
    if isinstance(expr, cst.Attribute):
        if _builtin_container(analysis, expr):
            return True  # round 10: an attribute held only as a builtin container
        return expr.attr.value in t.iterable_attributes and not is_property(analysis, expr.attr.value)
    if isinstance(expr, cst.Subscript):
        return all(isinstance(el.slice, cst.Slice) for el in expr.slice) and _proven_iterable(
            analysis, expr.value, depth + 1, bound
        )
    if isinstance(expr, cst.Call):
        if _container_view(analysis, expr):
            return True  # round 10: `self.sampling.items()` of a proven builtin container
        if _is_method(analysis, expr.func):
            method = expr.func.attr.value
            return method in t.iterable_methods and _listed_result_trusted(analysis, expr)
        name = _function_name(analysis, expr)
        return (
            name is not None
            and (name in t.container_functions or name in t.callbacks or name in t.iterable_functions)
            and name not in ("iter", "next")
        )
    return False


def _harmless_callable(analysis, expr, depth: int = 0) -> str | None:
    """Why calling expr (a key=, a map function) may write, or None when it is proven not to: a
    lambda or a function of this module whose body is proven read-only, a read-only builtin that
    calls nothing back."""
    if depth > 3:
        return f"calls `{_code(analysis, expr)}` back"
    body = None
    if isinstance(expr, cst.Lambda):
        body = expr.body
    elif isinstance(expr, cst.Name):
        scope = analysis.scopes.get(expr)
        # resolved through outer scopes; a builtin has no node
        assignments = [a for a in scope[expr.value] if hasattr(a, "node")] if scope is not None else []
        defs = [a.node for a in assignments if isinstance(getattr(a, "node", None), cst.FunctionDef)]
        if assignments and len(defs) == len(assignments) == 1 and isinstance(analysis.parent(defs[0]), cst.Module):
            body = defs[0].body
        elif not assignments and expr.value in analysis.tables.read_functions:
            entry = analysis.tables.callbacks.get(expr.value)
            if entry is None:
                return None
            if entry["iterates"] or entry["calls"] or entry["attribute"]:
                return f"calls `{expr.value}` back on items it cannot see"
            hit = _effectful_hit(analysis, entry["dunders"])
            return None if hit is None else _defined_here(analysis, hit)
    if body is None:
        return f"calls `{_code(analysis, expr)}` back (a callable the proof cannot see into)"
    for node in iter_nodes(body, cst.CSTNode):
        why = unproven_effect(analysis, node)
        if why is not None:
            return f"calls `{_code(analysis, expr, 40)}` back, which {why}"
    return None


def _args_at(call: cst.Call, positions) -> list:
    """The argument values at positions ("0", "1", "*": every positional; or keywords)."""
    positional = [arg for arg in call.args if arg.keyword is None and not arg.star]
    out = []
    for position in positions:
        if position.endswith("?"):  # "0?": position 0 when it is the only positional (`min(xs)`, not `min(a, b)`)
            if len(positional) == 1 and position[:-1] == "0":
                out.append(positional[0].value)
            continue
        if position == "*":
            out += [arg.value for arg in positional]
        elif position.endswith("+"):  # "1+": every positional from 1 on (`map(f, xs, ys)`)
            out += [arg.value for arg in positional[int(position[:-1]) :]]
        elif position.isdigit():
            if int(position) < len(positional):
                out.append(positional[int(position)].value)
        else:
            out += [arg.value for arg in call.args if arg.keyword is not None and arg.keyword.value == position]
    return out


def _items_builtin_typed(analysis, expr) -> bool:
    if isinstance(expr, (cst.List, cst.Tuple, cst.Set)):
        return all(
            not isinstance(el, cst.StarredElement) and _builtin_typed(analysis, el.value) for el in expr.elements
        )
    return isinstance(expr, (cst.SimpleString, cst.ConcatenatedString)) or (
        isinstance(expr, cst.Call) and not _is_method(analysis, expr.func) and _function_name(analysis, expr) == "range"
    )


def _call_effect(analysis, call: cst.Call) -> str | None:
    """Why a call the tables list as read-only may still run code that is not proven harmless: it
    drains an iterable or calls a callable not proven harmless, runs a dunder or a method that a
    class of this file defines with a body not proven read-only, reads an attribute through
    getattr that may be such a property. None when it is proven harmless."""
    for arg in call.args:
        if arg.star == "*" and not _proven_iterable(analysis, arg.value):
            return f"unpacks `*{_code(analysis, arg.value, 40)}` (iterating it may run a generator or `__iter__`)"
        if arg.star == "**" and not isinstance(arg.value, cst.Dict):
            return f"unpacks `**{_code(analysis, arg.value, 40)}` (`keys()`/`__getitem__` run)"
    if _logging_call(analysis, call):
        return _logging_effect(analysis, call)
    if _container_call(analysis, call):
        return _container_effect(analysis, call)
    if _is_method(analysis, call.func):
        method = call.func.attr.value
        receiver = call.func.value
        if (
            method in effectful_members(analysis)
            and not _builtin_typed(analysis, receiver)
            and is_effectful(analysis, method)
        ):
            return _defined_here(analysis, method)
        if (
            method in analysis.tables.module_conversions
            and _may_hold_modules(analysis) is not None
            and not _tensor_typed(analysis, receiver)
            and not _fresh_module(analysis, receiver)
        ):
            return (
                f"converts in place if `{_code(analysis, receiver, 40)}` is an `nn.Module` (`.{method}()` of a "
                "module converts its Parameters, which may hold the pool: rules/casts.toml module_conversions); "
                "the receiver is not proven a tensor"
            )
        if not _tensor_typed(analysis, receiver):
            writer = _escaped_writer(analysis)
            if writer is not None:
                return f"may call a writer under the name `{method}`: {writer}"
            hit = _open_hit(analysis)
            if hit is not None:
                return _defined_here(analysis, hit)
        return _torch_arguments(analysis, call)
    name = _function_name(analysis, call)
    if name is None:
        return None
    if _exit_registration(analysis, call):
        return None  # round 13: `callable(f)` reads a type slot; its arguments are only stored
    if name in analysis.tables.dataclass_replace_functions:
        return None  # _plain_replace: the instance's class runs no code of the file; fields are stored as given
    if _immutable_arguments(analysis, call):
        return None  # round 12: builtin immutable arguments (their protocols are Python's), proven callables
    if name in analysis.tables.stream_print_functions:
        return _print_effect(analysis, call)
    if name.startswith("torch."):
        why = _torch_arguments(analysis, call)
        if why is not None:
            return why
    entry = analysis.tables.callbacks.get(name)
    iterated = set(map(id, _args_at(call, entry["iterates"]))) if entry is not None else set()
    # whatever the builtin or function (listed or not in [[cast_motion.callbacks]]): it may run implicit
    # code on each argument (and on the items of those it iterates) - round 6
    if not all(
        _proven_items(analysis, arg.value) if id(arg.value) in iterated else _proven_value(analysis, arg.value)
        for arg in call.args
    ):
        hit = _implicit_hit(analysis, construction=_may_construct(analysis, name))
        if hit is not None:
            bad = next(
                arg.value
                for arg in call.args
                if not (
                    _proven_items(analysis, arg.value)
                    if id(arg.value) in iterated
                    else _proven_value(analysis, arg.value)
                )
            )
            return (
                f"{_defined_here(analysis, hit)} (on its argument `{_code(analysis, bad, 30)}`, which is not "
                "proven a builtin value or tensor)"
            )
    if entry is None:
        return None
    for value in _args_at(call, entry["iterates"]):
        if not _proven_iterable(analysis, value):
            return (
                f"iterates `{_code(analysis, value, 40)}`, which is not proven a builtin container (a "
                "generator's body or an `__iter__` may run)"
            )
    for value in _args_at(call, entry["calls"]):
        why = _harmless_callable(analysis, value)
        if why is not None:
            return why
    for value in _args_at(call, entry["attribute"]):
        hit = _effectful_hit(analysis, analysis.tables.protocols.get("attribute", ()))
        if hit is not None:
            return _defined_here(analysis, hit)
        text = value.evaluated_value if isinstance(value, cst.SimpleString) else None
        props = property_names(analysis)
        if isinstance(text, str) and is_property(analysis, text):
            return f"reads `{text}`, a property of a class of this file whose getter is not proven read-only"
        if not isinstance(text, str) and props and is_property(analysis, min(props)):
            return (
                f"reads an attribute by a name that is not a literal (`{_code(analysis, value, 30)}`); a "
                f"property of this file whose getter is not proven read-only (`{min(props)}`) may be it"
            )
    return None


def _torch_arguments(analysis, call: cst.Call) -> str | None:
    """A torch function or tensor method parses its arguments: a size's or bound's `__index__`, a
    sequence's `__len__`/`__getitem__`, `__torch_function__` ([cast_motion.protocols]
    torch_arguments), harmless unless one is not proven read-only and an argument is not proven a
    builtin value, tensor or display of builtin values."""
    hit = _effectful_hit(analysis, analysis.tables.protocols.get("torch_arguments", ()))
    if hit is None:
        return None
    for arg in call.args:
        if not (_proven_value(analysis, arg.value) or _items_builtin_typed(analysis, arg.value)):
            return f"{_defined_here(analysis, hit)} (on its argument `{_code(analysis, arg.value, 30)}`)"
    return None


def _protocol(analysis, construct: str, operands) -> str | None:
    """Why running construct's dunders on operands may write: one of them is defined by a class of
    this file with a body not proven read-only, and an operand is not proven a builtin value."""
    if all(_proven_value(analysis, op) for op in operands if op is not None):
        return None
    hit = _effectful_hit(analysis, analysis.tables.protocols.get(construct, ()))
    if hit is None:
        return None
    return _defined_here(analysis, hit)


def _unpacks(analysis, target, value) -> str | None:
    """Tuple-unpacking `a, b = value` iterates value."""
    if not isinstance(target, (cst.Tuple, cst.List)) or value is None:
        return None
    if _proven_iterable(analysis, value):
        return None
    if isinstance(value, cst.Call) and _listed_read_only(analysis, value) and _is_method(analysis, value.func):
        return None  # a tuple of tensors (`get_kv_buffer`, `split`): the call itself is checked
    return f"unpacks `{_code(analysis, value, 40)}` (iterating it may run a generator or `__iter__`)"


def _unpacks_items(analysis, target, iterable) -> str | None:
    """`for a, b in iterable` unpacks (iterates) each item."""
    if not isinstance(target, (cst.Tuple, cst.List)):
        return None
    if (
        isinstance(iterable, cst.Call)
        and not _is_method(analysis, iterable.func)
        and _function_name(analysis, iterable) in ("enumerate", "zip")
    ):
        return None  # tuples
    if (
        isinstance(iterable, cst.Call)
        and not _is_method(analysis, iterable.func)
        and _function_name(analysis, iterable) in analysis.tables.group_iterators
    ):
        return None  # round 13: `itertools.groupby` yields (key, group) tuples
    if isinstance(iterable, (cst.List, cst.Tuple, cst.Set)) and all(
        not isinstance(el, cst.StarredElement) and _proven_iterable(analysis, el.value) for el in iterable.elements
    ):
        return None
    if (
        isinstance(iterable, cst.Call)
        and _is_method(analysis, iterable.func)
        and iterable.func.attr.value in analysis.tables.pair_view_methods
        and (isinstance(iterable.func.value, cst.Dict) or _container_view(analysis, iterable))
    ):
        return None  # a dict's (key, value) tuples; round 10: of a proven builtin container too
    if _tuple_items(analysis, iterable):
        return None  # round 11: a list attribute of tuple displays only
    return f"unpacks the items of `{_code(analysis, iterable, 40)}` (iterating each may run `__iter__`)"


def implicit_effect(analysis, node) -> str | None:
    """Why a node that is not a call may still run code that is not proven harmless: iteration of
    a value not proven a builtin container (`for`, a comprehension clause, `*x`, unpacking, `in`),
    or a dunder protocol (an operator, an index, a truth test, a format, a hash, an attribute read)
    that a class of this file defines with a body not proven read-only, on an operand not proven a
    builtin value. None when it is proven harmless."""
    if isinstance(node, (cst.For, cst.CompFor)):
        if not _proven_iterable(analysis, node.iter):
            return (
                f"iterates `{_code(analysis, node.iter, 40)}`, which is not proven a builtin container (a "
                "generator's body or an `__iter__` may run)"
            )
        return _unpacks_items(analysis, node.target, node.iter)
    if isinstance(node, cst.Assign):
        for target in node.targets:
            why = _unpacks(analysis, target.target, node.value)
            if why is not None:
                return why
        return None
    if isinstance(node, cst.AnnAssign):
        return None
    if isinstance(node, cst.StarredElement):
        if not _proven_iterable(analysis, node.value):
            return f"unpacks `*{_code(analysis, node.value, 40)}` (iterating it may run a generator or `__iter__`)"
        return None
    if isinstance(node, cst.StarredDictElement):
        if not isinstance(node.value, cst.Dict):
            return f"unpacks `**{_code(analysis, node.value, 40)}` (`keys()`/`__getitem__` run)"
        return None
    if isinstance(node, cst.Comparison):
        for target in node.comparisons:
            if isinstance(target.operator, (cst.In, cst.NotIn)) and not _proven_iterable(analysis, target.comparator):
                return (
                    f"tests membership in `{_code(analysis, target.comparator, 40)}`, which is not proven a "
                    "builtin container (`__contains__` or a generator's body may run)"
                )
            if isinstance(target.operator, (cst.In, cst.NotIn)):
                why = _held_membership(analysis, target.comparator)
                if why is not None:
                    return why
        operands = [node.left] + [c.comparator for c in node.comparisons]
        if any(isinstance(c.operator, (cst.In, cst.NotIn)) for c in node.comparisons):
            why = _protocol(analysis, "contains", operands)  # the item's __eq__, and __hash__ for a set
            if why is not None:
                return why
        return _protocol(analysis, "compare", operands)
    if isinstance(node, cst.Subscript):
        parent = analysis.parent(node)
        if isinstance(parent, cst.Del):
            return None  # `del`: judged as a statement
        if _stored_target(analysis, node):
            # a store into what is proven distinct (judged as one) still hashes or converts its key
            return _protocol(analysis, "subscript", _index_operands(node))
        return _protocol(analysis, "subscript", [node.value] + _index_operands(node))
    if isinstance(node, cst.Raise):
        return _raise_effect(analysis, node)
    if isinstance(node, cst.SetComp):
        return _protocol(analysis, "hash", [node.elt])
    if isinstance(node, cst.DictComp):
        return _protocol(analysis, "hash", [node.key])
    if isinstance(node, (cst.MatchValue, cst.MatchSequence, cst.MatchMapping, cst.MatchClass)):
        return _match_effect(analysis, node)
    if isinstance(node, cst.BinaryOperation):
        return _protocol(analysis, "binary", [node.left, node.right])
    if isinstance(node, cst.UnaryOperation):
        return _protocol(analysis, "unary", [node.expression])
    if isinstance(node, cst.BooleanOperation):
        return _protocol(analysis, "truth", [node.left, node.right])
    if isinstance(node, (cst.If, cst.While, cst.IfExp, cst.CompIf)):
        return _protocol(analysis, "truth", [node.test])
    if isinstance(node, cst.Assert):
        return _protocol(analysis, "truth", [node.test])
    if isinstance(node, cst.AugAssign):
        return _protocol(analysis, "augmented", [node.target, node.value])
    if isinstance(node, cst.FormattedStringExpression):
        return _protocol(analysis, "format", [node.expression])
    if isinstance(node, (cst.Dict, cst.Set)):
        keys = [
            el.key if isinstance(el, cst.DictElement) else el.value
            for el in node.elements
            if isinstance(el, (cst.DictElement, cst.Element))
        ]
        return _protocol(analysis, "hash", keys)
    if isinstance(node, cst.Attribute) and not _import_bound(analysis, node):
        parent = analysis.parent(node)
        if isinstance(parent, (cst.AssignTarget, cst.Del)) or getattr(parent, "target", None) is node:
            return None
        return _protocol(analysis, "attribute", [node.value])
    return None


def _stored_target(analysis, node) -> bool:
    """Is node (a subscript or attribute) stored into: an assignment's, augmented assignment's, `for`'s
    or `with`'s target, or an element of one?"""
    child, parent = node, analysis.parent(node)
    while isinstance(parent, (cst.Element, cst.StarredElement, cst.Tuple, cst.List)):
        child, parent = parent, analysis.parent(parent)
    if isinstance(parent, cst.AssignTarget):
        return True
    return getattr(parent, "target", None) is child and not isinstance(parent, cst.NamedExpr)


def _raise_effect(analysis, node: cst.Raise) -> str | None:
    """`raise X` / `raise E from X` where X may be a class: raising a class constructs it, so its
    construction members (`__init__`) run, with no call spelled. Proven harmless: a builtin exception
    class (rules/casts.toml builtin_exceptions) or a call of one (the call is judged as a call), or no
    implicit member of the file, construction included, that is not proven read-only."""
    for operand in (node.exc, node.cause.item if node.cause is not None else None):
        if operand is None or _builtin_exception(analysis, operand):
            continue
        hit = _implicit_hit(analysis, construction=True)
        if hit is not None:
            return (
                f"raises `{_code(analysis, operand, 40)}`, which may be a class that the raise constructs: it "
                f"{_defined_here(analysis, hit)}"
            )
    return None


def _builtin_exception(analysis, expr) -> bool:
    """A builtin exception class (rules/casts.toml builtin_exceptions, not rebound in the module) or a
    call of one."""
    if isinstance(expr, cst.Call):
        expr = expr.func
    if not isinstance(expr, cst.Name) or expr.value not in analysis.tables.builtin_exceptions:
        return False
    scope = analysis.scopes.get(expr)
    return scope is not None and not any(hasattr(a, "node") for a in scope[expr.value])


def _index_operands(subscript: cst.Subscript) -> list:
    """What an index runs `__index__` (or a sequence protocol) on: each index, each slice bound."""
    out = []
    for el in subscript.slice:
        if isinstance(el.slice, cst.Index):
            out.append(el.slice.value)
        elif isinstance(el.slice, cst.Slice):
            out += [b for b in (el.slice.lower, el.slice.upper, el.slice.step) if b is not None]
    return out


def _match_effect(analysis, pattern) -> str | None:
    """A `match` pattern runs protocols on the subject: a value pattern `==` (compare), a sequence
    pattern `isinstance(Sequence)`/`len`/items, a mapping pattern `get`/`keys`, a class pattern
    `isinstance` and attribute reads - its keywords' names, and for positional patterns the names of
    `__match_args__` (any property of the file) ([cast_motion.protocols] match_*)."""
    match = next((a for a in analysis.ancestors(pattern) if isinstance(a, cst.Match)), None)
    subject = match.subject if match is not None else None
    if isinstance(pattern, cst.MatchValue):
        return _protocol(analysis, "compare", [subject, pattern.value])
    if isinstance(pattern, cst.MatchSequence):
        return _protocol(analysis, "match_sequence", [subject])
    if isinstance(pattern, cst.MatchMapping):
        return _protocol(analysis, "match_mapping", [subject])
    why = _protocol(analysis, "match_class", [subject])
    if why is not None or _builtin_typed(analysis, subject):
        return why
    for keyword in pattern.kwds:
        if is_property(analysis, keyword.key.value):
            return (
                f"matches the class pattern keyword `{keyword.key.value}=`, a read of a property of a class of "
                "this file whose getter is not proven read-only"
            )
    props = property_names(analysis)
    if pattern.patterns and props and is_property(analysis, min(props)):
        return (
            f"matches positional class patterns, which read the attributes `__match_args__` names; a property "
            f"of this file whose getter is not proven read-only (`{min(props)}`) may be one"
        )
    return None


def unproven_effect(analysis, node) -> str | None:
    """Why running node may write memory that a fix reads later or earlier than the original
    (a pool, a page table, an index), or None when it is proven harmless: a call proven read-only
    (rules/casts.toml [cast_motion]) or an in-place method of a provably new tensor; an
    assignment to a plain local; operators, attribute and index reads (of attributes that no class
    of the file makes a property). Anything else - another call, an attribute or index store into
    what may hold the data, an augmented assignment of what may be a tensor, `del`, `with`,
    `await`/`yield`, an import, a class definition, a decorator - is not proven harmless."""
    if isinstance(node, cst.Call):
        if _listed_read_only(analysis, node):
            why = _call_effect(analysis, node)
            return None if why is None else f"calls `{_code(analysis, node.func)}(...)`, which {why}"
        method = node.func.attr.value if _is_method(analysis, node.func) else None
        if _in_place(method) and _distinct(analysis, node.func.value):
            return None
        why = file_call_effect(analysis, node)  # round 11: a function of the file, by its body
        if why is None or (why == "" and getattr_call_effect(analysis, node) is None):
            return None
        why = why or getattr_call_effect(analysis, node)
        return why or f"calls `{_code(analysis, node.func)}(...)`"
    read = _property_read(analysis, node)
    if read is not None:
        return read
    implicit = implicit_effect(analysis, node)
    if implicit is not None:
        return implicit
    effect = _statement_effect(analysis, node)
    if effect is not None:
        return effect
    if isinstance(node, (cst.Assign, cst.AnnAssign, cst.AugAssign, cst.For)):
        for target in _binds(node):
            for leaf in _flat_targets(target):
                if isinstance(leaf, cst.Attribute):
                    return f"assigns `{_code(analysis, leaf)}` (a property or `__setattr__` is a call)"
                if (
                    isinstance(leaf, cst.Subscript)
                    and not _distinct(analysis, leaf.value)
                    and not _counter_store(analysis, node, leaf)
                    and not _container_store(analysis, node, leaf)
                ):
                    return f"writes into `{_code(analysis, leaf)}`"
                if (
                    isinstance(node, cst.AugAssign)
                    and isinstance(leaf, cst.Name)
                    and not _distinct(analysis, leaf)
                    and not _builtin_typed(analysis, leaf)
                ):
                    return f"updates `{leaf.value}` in place (`{_code(analysis, node.operator)}`)"
    return None


def nodes_between(analysis, body, start: tuple[int, int], end: tuple[int, int], skip=frozenset()):
    """The nodes of body (a function) that run from position start to end: not the bodies of the
    functions and lambdas it defines (their decorators and defaults run), nor the nodes in skip."""
    return _region_nodes(analysis, body, start, end, set(skip))


def first_unproven(analysis, nodes) -> str | None:
    """`line N <why>` for the first of nodes that unproven_effect does not prove harmless."""
    for node in nodes:
        why = unproven_effect(analysis, node)
        if why is not None:
            return f"line {_line(analysis, node)} {why}"
    return None


def _scope_root(analysis, node) -> cst.CSTNode:
    """The function (or module) whose code runs around node."""
    for anc in analysis.ancestors(node):
        if isinstance(anc, (cst.FunctionDef, cst.Module)):
            return anc
    return analysis.module


def _deferred(analysis, use, stop) -> str | None:
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


def _shadowing(analysis, use, stop, names: set[str]) -> str | None:
    """A comprehension/lambda/def between use and stop that binds one of names."""
    for anc in analysis.ancestors(use):
        if anc is stop:
            return None
        bound: set[str] = set()
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
            return f"`{min(hit)}` is a different variable at the gather on line {_line(analysis, use)}"
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
    return isinstance(holder, cst.AsName)


def _use_problem(analysis, use: cst.Name) -> str | None:
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
    if (
        isinstance(parent, cst.Attribute)
        and parent.value is use
        and parent.attr.value in analysis.tables.gather_methods
        and isinstance(analysis.parent(parent), cst.Call)
    ):
        return None
    from castlint.analysis.gathers import function_gather

    if isinstance(parent, cst.Arg) and function_gather(analysis, use) is not None:
        return None  # `torch.index_select(x, 0, idx)`: the input of a gather function, no `out=`
    shown = _code(analysis, parent if parent is not None else use)
    return f"line {line} uses the converted pool as `{shown}`, not as a gather"


def _in_fstring(analysis, node) -> bool:
    return any(isinstance(anc, cst.FormattedString) for anc in analysis.ancestors(node))


def assess(analysis, call: cst.Call) -> CastMove | None:
    """The fix for the CL003 finding at `call`, or None when `call` is no CL003 candidate."""
    move = _assess(analysis, call)
    if move is not None and move.safety == FixSafety.SAFE:
        proven_on_a_copy(analysis)
    return None if move is None else replace(move, call=call, depth=chain_depth(analysis, call))


def proven_on_a_copy(analysis) -> None:
    """A proof that nothing in between may write passed (CL003's safe label, the MLA fix's native read,
    the paged read, a rows getter): on a pruned copy its module-wide facts (escaping writers, library
    bases, frame reads, finalizers, handlers) may lie in code the pruner dropped, so only the whole file
    may decide it (engine.PrunedTooFar)."""
    if getattr(analysis, "_pruned", None) is not None:
        analysis.derived[PRUNED_UNDECIDED] = True


def _assess(analysis, call: cst.Call) -> CastMove | None:
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
    answers_none = _may_answer_none(analysis, pool)
    if answers_none is not None:
        verdict.unsafe.append(answers_none)
    verdict.unsafe += _module_problems(analysis)
    verdict.cast_may_fail = not all(_convertible_target(analysis, cast) for cast in casts)
    if form in ("direct", "function"):
        return _assess_direct(analysis, call, verdict, moved, owners, form)
    return _assess_variable(analysis, call, form, verdict, moved, owners)


def _check_cast_arguments(analysis, verdict: _Verdict, casts: Sequence[cst.Call]) -> None:
    """A cast that also moves the tensor to another device cannot be applied to the gathered rows as is."""
    for cast in casts:
        target = analysis.cast_target(cast) or ""
        if (
            target.endswith(".dtype")
            and not names_dtype_attribute(cast)
            and not (len(cast.args) == 1 and _default_dtype_call(analysis, cast.args[0].value))
            and not (len(cast.args) == 1 and _dtype_getter_call(analysis, cast.args[0].value))
        ):
            verdict.unsafe.append(
                "the cast takes another tensor's dtype *and device* (`.to(other)`); the index "
                "would be applied on the pool's device"
            )
        elif any(
            (arg.keyword is not None and arg.keyword.value == "device")
            or (arg.keyword is None and analysis.device_like(arg.value) and not analysis.dtype_like(arg.value))
            for arg in cast.args
        ):
            verdict.unsafe.append(
                "the cast also moves the tensor to another device; the index would be applied on the pool's device"
            )


def _assess_direct(
    analysis, call: cst.Call, verdict: _Verdict, moved: _Moved, owners: set[str], form: str = "direct"
) -> CastMove:
    """`pool.to(d)[idx]`, `pool.to(d).index_select(0, i)`, `torch.index_select(pool.to(d), 0, i)`:
    after the fix the index runs before the cast."""
    if form == "function":  # the arguments after the input run before the cast now
        from castlint.analysis.gathers import function_gather

        _check_gather_dtype(analysis, verdict, function_gather(analysis, call))
        nodes = [
            n
            for arg in function_gather(analysis, call).args[1:]
            for n in iter_nodes(arg, cst.CSTNode)
            if not isinstance(n, cst.Lambda)
        ]
        _check_region(
            analysis,
            verdict,
            nodes,
            moved,
            owners,
            set(),
            set(),
            "in the gather's arguments, evaluated before the cast after the fix",
        )
        return verdict.plan("function")
    gather = analysis.parent(call)
    if isinstance(gather, cst.Subscript) and _stored_to(analysis, gather):
        verdict.refuse.append(
            f"the gathered rows are assigned to (`{_code(analysis, gather)}`); the rewrite cannot express that"
        )
    if isinstance(gather, cst.Subscript):
        moved_over = [gather.slice]
    else:  # .index_select(...) and friends: the call's arguments run before the cast now
        moved_over = [analysis.parent(gather).args]
    _check_gather_dtype(analysis, verdict, gather)
    _check_gather_index(analysis, verdict, gather)
    _check_handlers(analysis, verdict, [call])
    nodes = []
    for part in moved_over:
        for item in part if isinstance(part, (list, tuple)) else [part]:
            nodes.extend(n for n in iter_nodes(item, cst.CSTNode) if not isinstance(n, cst.Lambda))
    _check_region(
        analysis, verdict, nodes, moved, owners, set(), set(), "in the index, evaluated before the cast after the fix"
    )
    return verdict.plan("direct")


def _is_none(expr) -> bool:
    if isinstance(expr, cst.Name):
        return expr.value == "None"
    if isinstance(expr, cst.IfExp):
        return _is_none(expr.body) or _is_none(expr.orelse)
    if isinstance(expr, cst.BooleanOperation):
        return _is_none(expr.left) or _is_none(expr.right)
    return False


def _may_answer_none(analysis, pool) -> str | None:
    """The fix swaps the cast and the gather, so a receiver that is not a tensor raises another
    exception (`None.float()` is AttributeError, `None[idx]` TypeError). A pool read through a
    method that a class of this file defines with a `return None` (a bare `return`, a conditional
    or `or`/`and` with a None branch: a layer not on this rank) may be None."""
    if not (isinstance(pool, cst.Call) and _is_method(analysis, pool.func)):
        return None
    name = pool.func.attr.value
    for cls in analysis.nodes.classes:
        for statement in cls.body.body:
            if not (isinstance(statement, cst.FunctionDef) and statement.name.value == name):
                continue
            for ret in iter_nodes(statement.body, cst.Return):
                if ret.value is None or _is_none(ret.value):
                    return (
                        f"`{name}` (line {_line(analysis, statement)}) may answer None (line {_line(analysis, ret)}); "
                        "the fix swaps the cast and the gather, so it would raise another exception "
                        "(`None[idx]` is TypeError where `None.float()` is AttributeError)"
                    )
    return None


def _convertible_target(analysis, cast: cst.Call) -> bool:
    """Is the cast's target one every tensor converts to (rules/casts.toml convertible_dtypes), so
    that the cast cannot raise? A no-argument cast (`.float()`) or a `torch.<name>` literal of the
    table; a name, attribute or call may hold anything (sglang's kv_cache_dtype is a string)."""
    target = analysis.cast_target(cast)
    spelling = analysis.tables.casts.get(cast.func.attr.value) if isinstance(cast.func, cst.Attribute) else None
    ok = analysis.tables.convertible_dtypes
    if spelling is not None and spelling.form == "no-args":
        return (spelling.target or "") in ok
    return target is not None and target.startswith("torch.") and target[len("torch.") :] in ok


def _gather_name(analysis, gather) -> str | None:
    """The gather a converted read goes through: `__getitem__` for `x[idx]`, the method name for
    `x.gather(...)`, the function's dotted name for `torch.take(x, ...)`; None when unknown."""
    if isinstance(gather, cst.Subscript):
        return "__getitem__"
    if isinstance(gather, cst.Attribute):
        return gather.attr.value
    if isinstance(gather, cst.Arg):
        gather = analysis.parent(gather)
    if isinstance(gather, cst.Call):
        return dotted(gather.func)
    return None


def _check_gather_dtype(analysis, verdict: _Verdict, gather) -> None:
    """After the fix the gather runs on the pool's stored dtype: unsafe unless it is defined for every
    dtype the pool may store (rules/casts.toml [cast_motion.gather_dtype_gaps] against pool_dtypes: the
    pool's dtype is never proven, so a gather with a gap - `masked_select` on uint16, `gather`/`take` on
    FP8 - keeps the cast first)."""
    name = _gather_name(analysis, gather)
    t = analysis.tables
    gaps = t.gather_dtype_gaps.get(name) if name is not None else None
    if gaps is not None and not (gaps & t.pool_dtypes):
        return
    missing = ", ".join(sorted(gaps & t.pool_dtypes)) if gaps is not None else "unknown"
    verdict.unsafe.append(
        f"line {_line(analysis, gather)}: the gather `{name or _code(analysis, gather, 40)}` is not proven defined for "
        f"every stored dtype the pool may have (rules/casts.toml gather_dtype_gaps, pool_dtypes: not for {missing}); "
        "after the fix it runs on the pool's stored dtype and may raise NotImplementedError"
    )


def _module_problems(analysis) -> list[str]:
    """Facts of the whole module that make every cast move unsafe (computed once per module):
    a trace or profile hook installed (rules/casts.toml module_hooks: it runs on every line and
    call, the read-only ones too), autograd in use (autograd_markers: the pool may require grad,
    and the fix changes the graph and the dtype backward accumulates duplicate indices in), a
    tensor subclass of the file (tensor_classes, or a class defining `__torch_function__` /
    `__torch_dispatch__`: the pool may be one, with a cast or gather of its own)."""
    found = analysis.derived.get("cast_motion.module_problems")
    if found is not None:
        return found
    t = analysis.tables
    problems: list[str] = []
    for node in iter_nodes(analysis.module, cst.CSTNode):
        if isinstance(node, cst.Call) and dotted(node.func) in t.module_hooks:
            problems.append(
                f"line {_line(analysis, node)} installs a hook (`{dotted(node.func)}`) that runs on every line or "
                "call, so nothing between the cast and the gather is proven harmless"
            )
            break
    for node in iter_nodes(analysis.module, cst.CSTNode):
        name = (
            node.attr.value
            if isinstance(node, cst.Attribute)
            else node.value
            if isinstance(node, cst.Name)
            else node.keyword.value
            if isinstance(node, cst.Arg) and node.keyword is not None
            else None
        )
        if name is not None and (name in t.autograd_markers or dotted(node) in t.autograd_markers):
            problems.append(
                f"line {_line(analysis, node)} uses autograd (`{name}`): the pool may require grad, and the fix "
                "changes the autograd graph and the dtype backward accumulates duplicate indices in"
            )
            break
    dispatch = set(t.protocols.get("torch_function", ())) | {"__torch_dispatch__"}
    for cls in analysis.nodes.classes:
        bases = {dotted(b.value) for b in cls.bases}
        defines = {s.name.value for s in _class_statements(cls.body.body) if isinstance(s, cst.FunctionDef)}
        if bases & t.tensor_classes or defines & dispatch:
            problems.append(
                f"the class `{cls.name.value}` (line {_line(analysis, cls)}) is a tensor subclass: the pool may be "
                "one, whose cast or gather runs its own code (not an elementwise conversion)"
            )
            break
    analysis.derived["cast_motion.module_problems"] = problems
    return problems


def _check_gather_index(analysis, verdict: _Verdict, gather) -> None:
    """The gather itself runs its index's dunders (`__index__`, a sequence's `__len__` and
    `__getitem__`, `__torch_function__`: rules/casts.toml [cast_motion.protocols] gather_index)
    before it reads: after the fix they run before the pool is read, where they ran after the cast
    before. The index expression's own code is checked with the code in between; this is the
    protocol the gather runs on its value."""
    if isinstance(gather, cst.Subscript):
        operands = [el.slice.value for el in gather.slice if isinstance(el.slice, cst.Index)]
    elif isinstance(gather, cst.Attribute) and isinstance(analysis.parent(gather), cst.Call):
        operands = [arg.value for arg in analysis.parent(gather).args]
    elif isinstance(gather, cst.Arg) and isinstance(analysis.parent(gather), cst.Call):
        operands = [arg.value for arg in analysis.parent(gather).args if arg is not gather]  # torch.index_select
    else:
        return
    if not operands:
        return
    why = _protocol(analysis, "gather_index", operands)
    if why is not None:
        verdict.unsafe.append(
            f"line {_line(analysis, gather)}: the gather's index `{_code(analysis, operands[0], 40)}` {why}; "
            f"the gather runs it before it reads the pool, which after the fix is before the cast; {_MAY_WRITE}"
        )


def _check_handlers(analysis, verdict: _Verdict, nodes) -> None:
    """The fix swaps the cast and the gather: where the receiver is not a tensor (an accessor that
    answers None) or both would fail, the other one raises first, another exception type
    (`None.float()` is AttributeError, `None[idx]` TypeError). A `try` around them whose handler
    may catch one of those (rules/casts.toml [cast_motion] reorder_exceptions, a bare `except`, a
    type that is not a plain builtin name) would then take another path."""
    catches = analysis.tables.reorder_exceptions
    if verdict.cast_may_fail:
        catches = catches | analysis.tables.cast_failure_exceptions
    for node in nodes:
        child = node
        for anc in analysis.ancestors(node):
            if isinstance(anc, _SCOPES):
                break
            handlers = []
            if isinstance(anc, (cst.Try, cst.TryStar)) and child is anc.body:
                handlers = [
                    [None]
                    if handler.type is None
                    else [el.value for el in handler.type.elements]
                    if isinstance(handler.type, cst.Tuple)
                    else [handler.type]
                    for handler in anc.handlers
                ]
            elif isinstance(anc, cst.With) and child is anc.body:  # `with contextlib.suppress(E):`
                handlers = [
                    [arg.value for arg in item.item.args]
                    for item in anc.items
                    if isinstance(item.item, cst.Call) and (dotted(item.item.func) or "").split(".")[-1] == "suppress"
                ]
            for kinds in handlers:
                hit = next((k for k in kinds if k is None or not isinstance(k, cst.Name) or k.value in catches), False)
                if hit is not False:
                    what = "a bare `except`" if hit is None else f"`{_code(analysis, hit, 40)}`"
                    verdict.unsafe.append(
                        f"line {_line(analysis, node)} is inside a `{'with' if isinstance(anc, cst.With) else 'try'}` "
                        f"(line {_line(analysis, anc)}) that may catch {what} from the cast or the gather; the fix "
                        "swaps them, so a receiver that is not a tensor (an accessor that answers None), or a "
                        "cast to a target not proven convertible, raises another exception first"
                    )
                    return
            child = anc
    if verdict.cast_may_fail:
        caller = _module_handler(analysis, catches)
        if caller is not None:
            verdict.unsafe.append(
                f"the cast's target is not proven convertible, so the cast may raise, and after the fix the gather "
                f"(an `IndexError`) raises first; the exception escapes the function and {caller} may catch "
                "the one that escaped"
            )


def _handlers_of(analysis, node) -> list:
    """The exception types each handler of a `try` (or `with contextlib.suppress(...)`) names: [None]
    for a bare `except`."""
    if isinstance(node, (cst.Try, cst.TryStar)):
        return [
            [None]
            if handler.type is None
            else [el.value for el in handler.type.elements]
            if isinstance(handler.type, cst.Tuple)
            else [handler.type]
            for handler in node.handlers
        ]
    if isinstance(node, cst.With):
        return [
            [arg.value for arg in item.item.args]
            for item in node.items
            if isinstance(item.item, cst.Call) and (dotted(item.item.func) or "").split(".")[-1] == "suppress"
        ]
    return []


def _module_handler(analysis, catches) -> str | None:
    """A handler anywhere in the module (a caller's) that may catch one of catches: where the cast may
    fail, the fix changes which exception escapes the function (the gather's `IndexError` first)."""
    key = ("cast_motion.module_handler", frozenset(catches))
    if key in analysis.derived:
        return analysis.derived[key]
    found = None
    for node in iter_nodes(analysis.module, cst.CSTNode):
        for kinds in _handlers_of(analysis, node):
            hit = next((k for k in kinds if k is None or not isinstance(k, cst.Name) or k.value in catches), False)
            if hit is not False:
                what = "a bare `except`" if hit is None else f"`{_code(analysis, hit, 40)}`"
                found = f"a handler of {what} (line {_line(analysis, node)})"
                break
        if found is not None:
            break
    analysis.derived[key] = found
    return found


def _assess_variable(
    analysis, call: cst.Call, form: str, verdict: _Verdict, moved: _Moved, owners: set[str]
) -> CastMove:
    """`x = <pool casts>` and reads of x below: each read `x[idx]` becomes `x[idx].to(d)`."""
    from castlint.analysis.gathers import bound_name

    assign = analysis.parent(call)
    name = bound_name(assign, call)
    scope = analysis.scopes[name]
    assignment = next(iter(scope.assignments[name.value]))
    # the function scope's own reads (those before the assignment too) and reads in nested scopes
    reads = {access.node for access in scope.accesses[name.value]} | {r.node for r in assignment.references}
    from castlint.analysis.gathers import is_shape_read

    # reads of the shape stay on the unconverted pool: the cast does not change it
    uses = sorted(
        (n for n in reads if isinstance(n, cst.Name) and not is_shape_read(analysis, n)),
        key=lambda n: _pos(analysis, n),
    )
    if not uses:
        verdict.refuse.append("the converted pool is never read")
        return verdict.plan(form)
    body = _scope_root(analysis, assign)
    _check_variable(analysis, verdict, name, scope, body)
    frames = _frame_reader(analysis)
    if frames is not None:
        verdict.unsafe.append(
            f"this file reads frames' local variables ({frames}, rules/casts.toml frame_functions / "
            f"frame_attributes): after the fix `{name.value}` holds the unconverted pool, which such a read "
            "would see instead of the converted copy"
        )
    start, end, kept = _span_to_uses(analysis, verdict, assign, uses, body, moved)
    enclosing, late = _runs_after_gathers(analysis, assign, kept, body)
    exits = _exits_between(analysis, assign, kept, body)
    if exits is not None:
        verdict.unsafe.append(exits)
    entered = _autocast_entered(analysis, call, assign, kept, body)
    if entered is not None:
        verdict.unsafe.append(entered)
    aliases = {name.value} | _pool_aliases(analysis, body)
    skip = {id(call)} | {id(u) for u in uses} | late
    nodes = [n for n in _region_nodes(analysis, body, start, end, skip, enclosing) if n is not assign]
    _check_region(
        analysis,
        verdict,
        nodes,
        moved,
        owners,
        aliases,
        _comp_targets(body) | late,
        f"between the cast (line {_line(analysis, call)}) and a gather",
    )
    for use in kept:
        _check_gather_dtype(analysis, verdict, analysis.parent(use))
        _check_gather_index(analysis, verdict, analysis.parent(use))
    _check_handlers(analysis, verdict, [call, *kept])
    return verdict.plan(form, uses)


def _check_variable(analysis, verdict: _Verdict, name: cst.Name, scope, body) -> None:
    """Every value that reaches a rewritten read must be the converted one, and every read of the
    converted one must be seen: a local of this function, bound once."""
    if not isinstance(scope, FunctionScope) or getattr(scope, "node", None) is not body:
        kind = "class" if isinstance(scope, ClassScope) else "module" if isinstance(scope, GlobalScope) else "outer"
        verdict.unsafe.append(
            f"`{name.value}` is a {kind} variable, not a local of one function: code elsewhere may "
            "read the converted pool through it, or assign it another value"
        )
        return
    other = _other_binding(analysis, body, name)
    if other is not None:
        verdict.refuse.append(
            f"`{name.value}` is also bound at line {_line(analysis, other)} "
            f"(`{_code(analysis, other)}`); that value may reach a gather the fix would convert"
        )


def _other_binding(analysis, body, name: cst.Name) -> cst.CSTNode | None:
    """A binding of the variable besides its assignment that libcst files under another scope: a
    walrus in a comprehension (it binds the function's variable), a nested function's
    `nonlocal`/`global` assignment, the function's own `global`/`nonlocal` declaration."""
    stack = list(children(body.body if isinstance(body, cst.FunctionDef) else body))
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.Nonlocal, cst.Global)) and any(n.name.value == name.value for n in node.names):
            return node
        if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            declares = any(
                isinstance(n, (cst.Nonlocal, cst.Global)) and any(x.name.value == name.value for x in n.names)
                for n in iter_nodes(node, cst.CSTNode)
            )
            if not declares:
                continue  # its own variables
        if (
            isinstance(node, cst.NamedExpr)
            and isinstance(node.target, cst.Name)
            and node.target.value == name.value
            and node.target is not name
            and any(isinstance(a, _COMPREHENSIONS) for a in analysis.ancestors(node))
        ):
            return node
        stack.extend(children(node))
    return None


def _span_to_uses(analysis, verdict: _Verdict, assign, uses: list[cst.Name], body, moved: _Moved):
    """(start, end, kept): the code that runs between the conversion and its reads lies in
    [start, end) (less what _runs_after_gathers takes out); kept: the reads that are gathers the
    rewrite can take (the others are refused on the way)."""
    assign_pos = _pos(analysis, assign)
    start, end = (assign_pos[2], assign_pos[3]), (assign_pos[2], assign_pos[3])
    deferred, kept = [], []
    for use in uses:
        problem = _use_problem(analysis, use)
        if problem is not None:
            verdict.refuse.append(problem)
            continue
        if _in_fstring(analysis, use):
            verdict.refuse.append(f"the gather on line {_line(analysis, use)} is inside an f-string")
        if _pos(analysis, use)[:2] < assign_pos[:2]:
            verdict.refuse.append(
                f"line {_line(analysis, use)} reads the converted pool before the line that "
                "converts it (a value from an earlier loop iteration)"
            )
            continue
        later = _deferred(analysis, use, body)
        if later is not None:
            deferred.append((use, later))
        shadow = _shadowing(analysis, use, body, moved.names)
        if shadow is not None:
            verdict.refuse.append(shadow + "; the moved cast would read it")
        kept.append(use)
        end = max(end, _evaluated_before(analysis, use))
        start, end = _widen_for_loops(analysis, assign, use, body, start, end)
    if deferred:
        use, why = deferred[0]
        verdict.unsafe.append(
            f"the gather on line {_line(analysis, use)} is in {why}, which runs later: anything may "
            "write the pool or rebind the dtype before it"
        )
        end = (_pos(analysis, body)[2], _pos(analysis, body)[3])
    return start, end, kept


def _evaluated_before(analysis, use: cst.Name) -> tuple[int, int]:
    """Where the code written after a read but evaluated before its gather ends: the gather's
    own index or arguments, the test of a conditional expression the gather is a branch of."""
    end = _pos(analysis, use)[2:]
    parent = analysis.parent(use)
    # `x.index_select(...)` and `torch.index_select(x, ...)`: the whole call, its arguments after x too
    gather = analysis.parent(parent) if isinstance(parent, (cst.Attribute, cst.Arg)) else parent
    if gather is not None:
        end = max(end, _pos(analysis, gather)[2:])
    child = use
    for anc in analysis.ancestors(use):
        if isinstance(anc, _STATEMENTS + _SCOPES):
            break
        if isinstance(anc, cst.IfExp) and child is anc.body:
            end = max(end, _pos(analysis, anc.test)[2:])
        child = anc
    return end


def _repeats(analysis, loop, assign, use) -> bool:
    """Does the loop run this read again without running the conversion before it?"""
    if not _contains(analysis, loop, assign):
        return True
    statement = analysis.parent(assign) if isinstance(analysis.parent(assign), cst.SimpleStatementLine) else assign
    return not _contains(analysis, analysis.parent(statement), use)


def _runs_after_gathers(analysis, assign, uses: list[cst.Name], body) -> tuple[set[int], set[int]]:
    """(enclosing, late): code around the gathers that runs after them, so not in between: the
    expressions that enclose a gather (`f(x[i])`: f runs after; not checked themselves, their
    other parts are) and the targets of a gather's assignment (`self.rows = x[i]`: skipped
    whole). Only where no gather runs after them: none is written after, and no loop around them
    repeats a gather."""
    later_starts = [_pos(analysis, u)[:2] for u in uses]
    repeating = {
        id(loop) for use in uses for loop in _in_loop_with(analysis, use, body) if _repeats(analysis, loop, assign, use)
    }
    enclosing: set[int] = set()
    late: set[int] = set()
    for use in uses:
        child = use
        for anc in analysis.ancestors(use):
            if anc is body or isinstance(anc, _SCOPES):
                break
            if isinstance(anc, _STATEMENTS):
                if isinstance(anc, (cst.Assign, cst.AugAssign, cst.AnnAssign)) and child is anc.value:
                    targets = [t.target for t in anc.targets] if isinstance(anc, cst.Assign) else [anc.target]
                    # stored when the statement ends, after everything in it
                    late |= {
                        id(leaf)
                        for t in targets
                        if _last_to_run(analysis, t, later_starts, repeating, anc)
                        for leaf in [t] + _flat_targets(t)
                    }
                break
            if _last_to_run(analysis, anc, later_starts, repeating):
                enclosing.add(id(anc))
            child = anc
    return enclosing, late


def _last_to_run(analysis, node, later_starts, repeating: set[int], runs_at=None) -> bool:
    """Does node (run when runs_at, or itself, ends) run after every gather?"""
    end = _pos(analysis, node if runs_at is None else runs_at)[2:]
    if any(start >= end for start in later_starts):
        return False  # a gather written after it runs after it
    return not any(id(anc) in repeating for anc in analysis.ancestors(node))


def _exits_between(analysis, assign, uses: list[cst.Name], body) -> str | None:
    """A `with` block the conversion is in but a gather is not: its `__exit__` runs in between."""
    for anc in analysis.ancestors(assign):
        if anc is body or isinstance(anc, _SCOPES):
            return None
        if isinstance(anc, cst.With):
            outside = [u for u in uses if not _contains(analysis, anc, u)]
            if outside:
                items = ", ".join(_code(analysis, item.item, 30) for item in anc.items)
                return (
                    f"the `with {items}` block (line {_line(analysis, anc)}) around the cast exits before the "
                    f"gather on line {_line(analysis, outside[0])}; `__exit__` is a call that is not proven "
                    "read-only and may write the pool"
                )
    return None


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


def _pool_aliases(analysis, body) -> set[str]:
    """Local names in body that are ever assigned a whole pool (or a view of one; not a new tensor
    made from it: `alias = -buf`, `buf * 2`, `buf.clamp(a, b)` hold a copy)."""
    names: set[str] = set()
    for node in iter_nodes(body, cst.Assign):
        try:
            whole = analysis.origin(node.value) >= Origin.POOL_TUPLE and not _distinct(analysis, node.value)
        except Exception:  # noqa: BLE001
            whole = False
        if whole:
            for target in node.targets:
                names |= {leaf.value for leaf in _flat_targets(target.target) if isinstance(leaf, cst.Name)}
    return names


# -- round 7: provenance of a stdlib logger, a plain dataclass, torch's tuple results ----------
#
# rules/casts.toml [cast_motion] "round 7" holds the facts; docs/fix.md, "Round 7", the rule.


def _logger_receiver(analysis, expr, depth: int = 0) -> bool:
    """Is expr proven a logger of the standard library: a logger_factories call (`logging.getLogger`
    qualified through the imports), or a name every binding of which, in the scope it resolves to, is
    one (`logger = logging.getLogger(__name__)` at module level, bound nowhere else)?"""
    t = analysis.tables
    if isinstance(expr, cst.Call):
        return not _is_method(analysis, expr.func) and _function_name(analysis, expr) in t.logger_factories
    if depth > 2:
        return False
    return _name_bound_only_to(analysis, expr, lambda value: _logger_receiver(analysis, value, depth + 1))


def _name_bound_only_to(analysis, expr, test) -> bool:
    """Is expr a name every binding of which, in the scope it resolves to (a module's global too, with
    the functions' `global` stores), is a plain assignment of a value that passes test?"""
    if not isinstance(expr, cst.Name):
        return False
    scope = analysis.scopes.get(expr)
    if scope is None:
        return False
    assignments = list(scope[expr.value])
    if not assignments:
        return False
    for assignment in assignments:
        node = getattr(assignment, "node", None)
        if not isinstance(node, cst.Name):
            return False  # an import, a def, a parameter, a builtin
        kind, value, path = analysis.binding(node)
        if kind != "assign" or value is None or path or not test(value):
            return False
    return True


def _logging_call(analysis, call: cst.Call) -> bool:
    """`logger.debug(...)` on a proven stdlib logger, or `logging.debug(...)` (logger_methods,
    logging_functions); whether it is harmless is _logging_effect's."""
    t = analysis.tables
    if _is_method(analysis, call.func):
        return call.func.attr.value in t.logger_methods and _logger_receiver(analysis, call.func.value)
    name = _function_name(analysis, call)
    return name in t.logging_functions or name in t.logger_factories  # getLogger: a logger of the manager


def _logging_hook(analysis) -> str | None:
    """Where the file may give logging code of its own (rules/casts.toml logging_hooks: a handler, a
    filter, a formatter, a record factory, a logger class, a replaced stream; or any `logging.<name>`
    that logging_module_reads does not list: a Handler base, basicConfig, logging.config)."""
    key = "cast_motion.logging_hook"
    if key in analysis.derived:
        return analysis.derived[key]
    t = analysis.tables
    found = None
    for node in iter_nodes(analysis.module, (cst.Name, cst.Attribute, cst.SimpleString)):
        if isinstance(node, cst.SimpleString):
            text = node.evaluated_value
            hit = isinstance(text, str) and text in t.logging_hooks
        elif isinstance(node, cst.Attribute):
            qualified = _qualified(analysis, node) if dotted(node) is not None else None
            hit = node.attr.value in t.logging_hooks or (
                qualified is not None
                and (qualified == "logging" or qualified.startswith("logging."))
                and qualified not in t.logging_module_reads
                and not isinstance(analysis.parent(node), cst.Attribute)
            )
        else:
            parent = analysis.parent(node)
            if isinstance(parent, cst.Attribute) and parent.attr is node:
                continue
            if isinstance(parent, (cst.Attribute, cst.ImportAlias)) or _in_import(analysis, node):
                hit = False  # `logging.x`: judged as the attribute; an import binds, the reads are judged
            else:
                qualified = _qualified(analysis, node)
                hit = node.value in t.logging_hooks or (
                    qualified is not None
                    and qualified.startswith("logging.")
                    and qualified not in t.logging_module_reads
                )
        if hit:
            found = f"`{_code(analysis, node, 40)}` (line {_line(analysis, node)})"
            break
    pruned = getattr(analysis, "_pruned", None)
    if found is None and pruned is not None:
        hit = sorted(set(t.logging_hooks) & (set(pruned.dropped_names) | set(pruned.dropped_attr_names)))
        if hit:
            analysis.derived[PRUNED_UNDECIDED] = True
            found = f"`{hit[0]}` (in code the pruned copy dropped)"
    analysis.derived[key] = found
    return found


def _in_import(analysis, node) -> bool:
    parent = analysis.parent(node)
    while parent is not None and not isinstance(parent, _STATEMENTS):
        parent = analysis.parent(parent)
    return isinstance(parent, (cst.Import, cst.ImportFrom))


def _logging_effect(analysis, call: cst.Call) -> str | None:
    """Why a stdlib logger's record method may run code of the file (None: proven harmless): the file
    extends logging (_logging_hook), a class of the file defines a member logging calls on what it
    holds with a body not proven read-only, a writer of the file is passed on (a function filter), a
    keyword that runs other code (`exc_info=` formats an exception), or `%` formatting of an argument
    not proven a builtin value runs a member of the file that is not proven read-only (round 6)."""
    t = analysis.tables
    hook = _logging_hook(analysis)
    if hook is not None:
        return f"logs through the standard library, and this file may give logging code of its own: {hook}"
    for name in sorted(t.logging_called_members):
        if is_effectful(analysis, name):
            return _defined_here(analysis, name) + " (logging calls it on a handler, filter, formatter or stream)"
    escaped = _escaped_writer(analysis)
    if escaped is not None:
        return f"logs through the standard library, which may hold a writer of this file: {escaped}"
    for arg in call.args:
        if arg.star:
            return f"unpacks `{arg.star}{_code(analysis, arg.value, 40)}` into a logging call"
        if arg.keyword is not None and arg.keyword.value not in t.logger_keywords:
            return f"passes `{arg.keyword.value}=` to a logging call (it may run other code: a traceback's format)"
    bad = next((arg.value for arg in call.args if not _proven_value(analysis, arg.value)), None)
    if bad is not None:
        hit = _implicit_hit(analysis)
        if hit is not None:
            return (
                f"{_defined_here(analysis, hit)} (logging formats its argument `{_code(analysis, bad, 30)}`, which "
                "is not proven a builtin value or tensor)"
            )
    return None


def _plain_construction(analysis, call: cst.Call) -> bool:
    """Is this call the construction of a class of the file proven to run no code of the file when
    made (rules/casts.toml dataclass_decorators)? The name is bound once, to a module-level class
    statement, and read only as a call, an annotation or isinstance's class (nothing stores into the
    class); the class has no base, keyword or metaclass, one decorator of dataclass_decorators with
    constant arguments (its generated `__init__` only stores the fields), no dunder of its own and
    none bound outside it, no decorated method other than plain_method_decorators (a property is a
    data descriptor the field stores would run), and fields whose defaults are constants,
    `field(default=<constant>)` or `field(default_factory=<a builtin container function>)`."""
    func = call.func
    if not isinstance(func, cst.Name):
        return False
    scope = analysis.scopes.get(func)
    if scope is None:
        return False
    assignments = list(scope[func.value])
    if len(assignments) != 1:
        return False
    cls = getattr(assignments[0], "node", None)
    if not isinstance(cls, cst.ClassDef) or not isinstance(analysis.parent(cls), cst.Module):
        return False
    key = "cast_motion.plain_class"
    cache = analysis.derived.setdefault(key, {})
    if id(cls) in cache:
        return cache[id(cls)]
    found = _plain_class(analysis, cls)
    if analysis.derived.get(_MEMBERS_DONE):  # a __post_init__'s judgement rests on the effectful members
        cache[id(cls)] = found
    return found


def _constant(expr) -> bool:
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus):
        expr = expr.expression
    return isinstance(expr, _CONSTANTS) or (isinstance(expr, cst.Name) and expr.value in _KEYWORD_NAMES)


def _builtin_name(analysis, expr, allowed) -> bool:
    """A bare name that is the builtin of that name (bound nowhere in the file) and in allowed."""
    if not isinstance(expr, cst.Name) or expr.value not in allowed:
        return False
    scope = analysis.scopes.get(expr)
    return scope is not None and not any(hasattr(a, "node") for a in scope[expr.value])


def _plain_class(analysis, cls: cst.ClassDef) -> bool:
    t = analysis.tables
    if cls.bases or cls.keywords or len(cls.decorators) != 1:
        return False
    decorator = cls.decorators[0].decorator
    if _qualified(analysis, decorator) not in t.dataclass_decorators:
        return False
    if isinstance(decorator, cst.Call) and not all(
        arg.keyword is not None and _constant(arg.value) for arg in decorator.args
    ):
        return False
    if _dunders_bound_outside_cached(analysis):
        return False
    for statement in cls.body.body:
        if isinstance(statement, cst.FunctionDef):
            if statement.name.value in t.construction_members and _plain_post_init(analysis, cls, statement):
                continue  # round 9: a __post_init__ that only validates and sets the instance's own fields
            if _is_dunder(statement.name.value) or not all(
                _qualified(analysis, d.decorator) in t.plain_method_decorators for d in statement.decorators
            ):
                return False
            continue
        if not isinstance(statement, cst.SimpleStatementLine):
            return False
        for small in statement.body:
            if isinstance(small, cst.Pass):
                continue
            if isinstance(small, cst.Expr) and isinstance(small.value, (cst.SimpleString, cst.ConcatenatedString)):
                continue  # a docstring
            if not isinstance(small, cst.AnnAssign) or not isinstance(small.target, cst.Name):
                return False
            if _is_dunder(small.target.value):
                return False
            if small.value is not None and not (_constant(small.value) or _plain_field(analysis, small.value)):
                return False
    # the class is read only as a call, an annotation or isinstance's class: nothing stores into it
    for node in iter_nodes(analysis.module, cst.Name):
        if node.value != cls.name.value or node is cls.name:
            continue
        parent = analysis.parent(node)
        if isinstance(parent, cst.Attribute) and parent.attr is node:
            continue  # `obj.Name`: another object's attribute
        if isinstance(parent, cst.Call) and parent.func is node:
            continue
        if _in_annotation(analysis, node):
            continue
        grand = analysis.parent(parent) if isinstance(parent, cst.Arg) else None
        if (
            isinstance(grand, cst.Call)
            and dotted(grand.func) in ("isinstance", "issubclass")
            and _function_name(analysis, grand) in ("isinstance", "issubclass")
        ):
            continue
        return False
    return True


def _plain_field(analysis, value) -> bool:
    """`field(default=<constant>)`, `field(default_factory=list)`, with constant other keywords."""
    t = analysis.tables
    if not isinstance(value, cst.Call) or _qualified(analysis, value.func) not in t.dataclass_field_functions:
        return False
    for arg in value.args:
        if arg.keyword is None:
            return False
        if arg.keyword.value == "default_factory":
            if not _builtin_name(analysis, arg.value, t.container_functions):
                return False
        elif not _constant(arg.value):
            return False
    return True


def _in_annotation(analysis, node) -> bool:
    parent = analysis.parent(node)
    while parent is not None and not isinstance(parent, _STATEMENTS):
        if isinstance(parent, cst.Annotation):
            return True
        parent = analysis.parent(parent)
    return False


def _dunders_bound_outside_cached(analysis) -> bool:
    key = "cast_motion.dunders_outside_any"
    if key not in analysis.derived:
        analysis.derived[key] = bool(_dunders_bound_outside(analysis))
    return analysis.derived[key]


# -- round 8: a copy of a plain dataclass, a cached pure function of the file ---------------------
#
# rules/casts.toml [cast_motion] "round 8" holds the facts; docs/fix.md, "Round 8", the rule.


def _plain_replace(analysis, call: cst.Call) -> bool:
    """`dataclasses.replace(md, field=value)` (dataclass_replace_functions) where md is proven an instance
    of a plain dataclass of the file (_plain_instance): replace reads md's fields and calls md's class with
    them, whose generated `__init__` only stores them (round 7's constructibility rule); keywords only, no
    unpacking."""
    positional = [arg for arg in call.args if arg.keyword is None]
    if len(positional) != 1 or positional[0].star or any(arg.star for arg in call.args):
        return False
    return _plain_instance(analysis, positional[0].value, frozenset())


def _plain_instance(analysis, expr, seen: frozenset) -> bool:
    """Is expr proven an instance of a plain dataclass of the file: a construction of one
    (_plain_construction), a dataclasses.replace of one, or a local name of a function every binding of
    which is one of those (`md = Meta(...)`; `md = dataclasses.replace(md, ...)`), at least one a
    construction. A parameter, an attribute, a global, a `for` target prove nothing."""
    t = analysis.tables
    if isinstance(expr, cst.Call):
        if _plain_construction(analysis, expr):
            return True
        positional = [arg for arg in expr.args if arg.keyword is None]
        return (
            not _is_method(analysis, expr.func)
            and _function_name(analysis, expr) in t.dataclass_replace_functions
            and len(positional) == 1
            and not any(arg.star for arg in expr.args)
            and _plain_instance(analysis, positional[0].value, seen)
        )
    if not isinstance(expr, cst.Name) or len(seen) > 4:
        return False
    if expr.value in seen:
        return True  # `md = replace(md, ...)`: the other bindings decide
    scope = analysis.scopes.get(expr)
    if not isinstance(scope, FunctionScope):
        return False
    assignments = list(scope[expr.value])
    made = False
    for assignment in assignments:
        node = getattr(assignment, "node", None)
        if not isinstance(node, cst.Name):
            return False  # a parameter, an import, a def, a builtin
        kind, value, path = analysis.binding(node)
        if kind != "assign" or value is None or path:
            return False
        if not _plain_instance(analysis, value, seen | {expr.value}):
            return False
        made = made or (isinstance(value, cst.Call) and _plain_construction(analysis, value))
    return made and _other_binding(analysis, scope.node, expr) is None


def _pure_cached_call(analysis, call: cst.Call) -> bool:
    """`_num_pages(n, page)` where the name is bound once, to a module-level def of the file whose one
    decorator is a cached_decorators cache (`functools.lru_cache(maxsize=None)`, `functools.cache`; constant
    arguments) and whose body is proven read-only (_pure_body). The cache hashes and compares the arguments
    (their `__hash__`/`__eq__`): where one is not proven a builtin value or tensor, no implicit member of the
    file may write (round 6). Positional and keyword arguments only, no unpacking."""
    func = call.func
    if not isinstance(func, cst.Name) or any(arg.star for arg in call.args):
        return False
    scope = analysis.scopes.get(func)
    assignments = list(scope[func.value]) if scope is not None else []
    if len(assignments) != 1:
        return False
    fn = getattr(assignments[0], "node", None)
    if not isinstance(fn, cst.FunctionDef) or not isinstance(analysis.parent(fn), cst.Module) or fn.asynchronous:
        return False
    if len(fn.decorators) != 1:
        return False
    decorator = fn.decorators[0].decorator
    if _qualified(analysis, decorator) not in analysis.tables.cached_decorators:
        return False
    if isinstance(decorator, cst.Call) and not all(_constant(arg.value) and not arg.star for arg in decorator.args):
        return False
    cache = analysis.derived.setdefault("cast_motion.pure_cached", {})
    if id(fn) not in cache:
        cache[id(fn)] = False  # a recursive call proves nothing while the body is being judged
        cache[id(fn)] = _pure_body(analysis, fn)
    if not cache[id(fn)]:
        return False
    return all(_proven_value(analysis, arg.value) for arg in call.args) or _implicit_hit(analysis) is None


def _pure_body(analysis, fn: cst.FunctionDef) -> bool:
    """A function body proven read-only: no `global`/`nonlocal`, no nested def, lambda, class or `yield`,
    parameters without defaults that are not constants, and every node proven harmless (unproven_effect:
    calls proven read-only, stores only into plain locals, no in-place write into a parameter)."""
    for param in iter_nodes(fn.params, cst.Param):
        if param.default is not None and not _constant(param.default):
            return False
    for node in iter_nodes(fn.body, cst.CSTNode):
        if isinstance(node, (cst.Global, cst.Nonlocal, cst.FunctionDef, cst.ClassDef, cst.Lambda, cst.Yield)):
            return False
        if isinstance(node, cst.Return):
            continue
        if unproven_effect(analysis, node) is not None:
            return False
    return True


# -- round 8: counters in a dict of str keys and int values ------------------------------------------


def _str_key(sub: cst.Subscript) -> bool:
    return (
        len(sub.slice) == 1
        and isinstance(sub.slice[0].slice, cst.Index)
        and isinstance(sub.slice[0].slice.value, (cst.SimpleString, cst.ConcatenatedString))
    )


def _counter_store(analysis, node, leaf: cst.Subscript) -> bool:
    """`stats["steps"] += n` (an AugAssign of counter_operators under a literal str key) into a proven
    counter dict (_counter_dict): a builtin dict's item is read and stored back, the key is a str, the
    stored value an operator's result, a new object (_operator_new): never the pool nor a view of it."""
    t = analysis.tables
    return (
        isinstance(node, cst.AugAssign)
        and type(node.operator).__name__ in t.counter_operators
        and _str_key(leaf)
        and _operator_new(analysis, "binary", [leaf, node.value])
        and _counter_dict(analysis, leaf.value)
    )


def _counter_display(analysis, value) -> bool:
    """`{"steps": 0, "tokens": 0}`, `{}`, `dict()`: str literal keys, int literal values."""
    if isinstance(value, cst.Dict):
        return all(
            isinstance(el, cst.DictElement)
            and isinstance(el.key, (cst.SimpleString, cst.ConcatenatedString))
            and isinstance(el.value, cst.Integer)
            for el in value.elements
        )
    return isinstance(value, cst.Call) and not value.args and _builtin_name(analysis, value.func, {"dict"})


def _counter_use(analysis, occ) -> bool:
    """An occurrence of a counter dict that can put no other value in it nor hand it on: an item read or
    a counter update under a str literal, `d[k] = <int literal>`, a read method (counter_read_methods,
    called), the argument of a builtin that copies or reads it (counter_readers)."""
    t = analysis.tables
    parent = analysis.parent(occ)
    if isinstance(parent, cst.Subscript) and parent.value is occ:
        if not _str_key(parent):
            return False
        if not _stored_to(analysis, parent):
            return True
        holder = analysis.parent(parent)
        if isinstance(holder, cst.AugAssign):
            return holder.target is parent and type(holder.operator).__name__ in t.counter_operators
        if isinstance(holder, cst.AssignTarget):
            assign = analysis.parent(holder)
            return isinstance(assign, cst.Assign) and len(assign.targets) == 1 and isinstance(assign.value, cst.Integer)
        return False
    if isinstance(parent, cst.Attribute) and parent.value is occ:
        call = analysis.parent(parent)
        return parent.attr.value in t.counter_read_methods and isinstance(call, cst.Call) and call.func is parent
    if isinstance(parent, cst.Arg) and parent.keyword is None and not parent.star:
        call = analysis.parent(parent)
        return (
            isinstance(call, cst.Call)
            and not _is_method(analysis, call.func)
            and _builtin_name(analysis, call.func, t.counter_readers)
        )
    return False


def _counter_dict(analysis, expr) -> bool:
    """Is expr proven a builtin dict of str keys and int values (or operators' new results): a local of a
    function bound only to counter displays, or an attribute `<obj>.<name>` whose every occurrence in the
    file, whatever the object, is an assignment of a counter display or a counter use (_counter_use), where
    no class of the file defines `<name>` or an attribute hook (`__setattr__`, `__getattr__`,
    `__getattribute__`) and the file names it in no string nor reaches attributes by name (`setattr`,
    `vars`, `__dict__`). Other files' code is outside reach, as other files' classes are."""
    if isinstance(expr, cst.Name):
        scope = analysis.scopes.get(expr)
        if not isinstance(scope, FunctionScope):
            return False
        assignments = list(scope[expr.value])
        if not assignments:
            return False
        for assignment in assignments:
            node = getattr(assignment, "node", None)
            if not isinstance(node, cst.Name):
                return False
            kind, value, path = analysis.binding(node)
            if kind != "assign" or path or not _counter_display(analysis, value):
                return False
            if not isinstance(analysis.parent(analysis.parent(node)), cst.Assign):
                return False  # a walrus or an annotated assignment: judged as any other binding
        if _other_binding(analysis, scope.node, expr) is not None:
            return False
        reads = {a.node for a in scope.accesses[expr.value]}
        reads |= {r.node for a in assignments for r in getattr(a, "references", ())}
        return all(isinstance(r, cst.Name) and _counter_use(analysis, r) for r in reads)
    if not isinstance(expr, cst.Attribute):
        return False
    name = expr.attr.value
    cache = analysis.derived.setdefault("cast_motion.counter_attrs", {})
    if name not in cache:
        cache[name] = _counter_attribute(analysis, name)
    return cache[name]


def _counter_attribute(analysis, name: str) -> bool:
    return _attribute_only(analysis, name, _counter_display, _counter_use)


class _Spelled:
    """What of a module spells attribute names other than `obj.name`, gathered in one pass: its string
    constants, the keywords of its calls, whether it reaches attributes by name (`setattr`, `vars`,
    `delattr`, `__dict__`), and its attribute nodes by name."""

    def __init__(self, analysis):
        module = analysis.module
        self.strings = {n.evaluated_value for n in iter_nodes(module, (cst.SimpleString, cst.ConcatenatedString))}
        self.keywords = {n.keyword.value for n in iter_nodes(module, cst.Arg) if n.keyword is not None}
        self.attributes: dict = {}
        for node in iter_nodes(module, cst.Attribute):
            self.attributes.setdefault(node.attr.value, []).append(node)
        self.by_name = (
            "__dict__" in self.strings
            or "__dict__" in self.attributes
            or any(n.value in ("setattr", "vars", "delattr", "__dict__") for n in iter_nodes(module, cst.Name))
        )


def _spelled_names(analysis) -> _Spelled:
    found = analysis.derived.get("cast_motion.spelled")
    if found is None:
        found = analysis.derived["cast_motion.spelled"] = _Spelled(analysis)
    return found


def _attribute_only(analysis, name: str, bound_ok, use_ok) -> bool:
    """Is every occurrence of `<obj>.<name>` in the file, whatever the object, an assignment whose value
    bound_ok accepts (one at least) or a use use_ok accepts, where no class of the file defines `<name>`
    or an attribute hook (rules/casts.toml attribute_hooks), and the file names it in no string nor
    reaches attributes by name (`setattr`, `vars`, `delattr`, `__dict__`)? Other files' code is outside
    reach, as other files' classes are."""
    if _defined_members(analysis) & ({name} | set(analysis.tables.attribute_hooks)):
        return False
    spelled = _spelled_names(analysis)
    if spelled.by_name or name in spelled.strings or name in spelled.keywords:
        return False  # reached by name, named in a string, or given by keyword (`SimpleNamespace(name=...)`)
    assigned = False
    for node in spelled.attributes.get(name, ()):
        holder = analysis.parent(node)
        if isinstance(holder, cst.AssignTarget):
            assign = analysis.parent(holder)
            if not (
                isinstance(assign, cst.Assign)
                and len(assign.targets) == 1
                and holder.target is node
                and bound_ok(analysis, assign.value)
            ):
                return False
            assigned = True
            continue
        if not use_ok(analysis, node):
            return False
    return assigned


# -- round 8: a buffer of the file proven distinct from the pool ------------------------------------


def _fresh_buffer(analysis, expr: cst.Attribute) -> bool:
    """`self.static_q`: an attribute whose every assignment in the file is a fresh allocation (a
    new_value_functions call: `torch.zeros(...)`) and whose every read keeps it (or a slice of it) in
    place: an in-place method whose result is dropped (`self.static_q[:bs].copy_(q)`), a store into it, a
    new value (`.clone()`) or a metadata read of it - never handed on, so never bound to the pool
    (_attribute_only)."""
    name = expr.attr.value
    cache = analysis.derived.setdefault("cast_motion.fresh_buffers", {})
    if name not in cache:
        cache[name] = _attribute_only(analysis, name, _fresh_allocation, _buffer_use_or_inplace_function)
    return cache[name]


def _fresh_module_construction(analysis, value) -> bool:
    """Round 15: `torch.nn.Linear(4, 4, dtype=torch.bfloat16)`: a call of a fresh_module_constructors class
    (qualified through the imports), every argument a builtin immutable value or `torch.<dtype>`, nothing
    unpacked: it allocates Parameters of its own, holding no tensor it is given."""
    return (
        isinstance(value, cst.Call)
        and _qualified(analysis, value.func) in analysis.tables.fresh_module_constructors
        and all(
            not arg.star and (_immutable_value(analysis, arg.value, 1) or _torch_dtype(analysis, arg.value))
            for arg in value.args
        )
    )


def _converted_in_place(analysis, occ) -> bool:
    """`self.adapter.to(torch.float16)` as a statement: occ the receiver of a module_conversions method
    called with builtin immutable values or `torch.<dtype>` only, its result (the module itself) dropped."""
    attr = analysis.parent(occ)
    call = analysis.parent(attr) if isinstance(attr, cst.Attribute) and attr.value is occ else None
    if not (isinstance(call, cst.Call) and call.func is attr and attr.attr.value in analysis.tables.module_conversions):
        return False
    if not all(
        not arg.star and (_immutable_value(analysis, arg.value, 1) or _torch_dtype(analysis, arg.value))
        for arg in call.args
    ):
        return False
    return isinstance(analysis.parent(call), cst.Expr)


def _fresh_module(analysis, receiver) -> bool:
    """Round 15: `self.lm_head_adapter`, an attribute of `self` every assignment of which in the file is a
    fresh module (_fresh_module_construction) and every other occurrence of which converts it in place
    as a statement (_converted_in_place) - never read, handed on or given a Parameter, so its Parameters
    are its own: neither the pool nor another module's (a dtype the moved cast reads of one). Nothing else
    binds it (_attribute_only; other files' code is outside reach)."""
    if not (isinstance(receiver, cst.Attribute) and isinstance(receiver.value, cst.Name)):
        return False
    if not analysis.tables.fresh_module_constructors:
        return False
    name = receiver.attr.value
    cache = analysis.derived.setdefault("cast_motion.fresh_modules", {})
    if name not in cache:
        cache[name] = _attribute_only(
            analysis,
            name,
            lambda a, v: _fresh_module_construction(a, v) and _plain_self_holder(a, a.parent(v)),
            lambda a, occ: _converted_in_place(a, occ) and _plain_self_holder(a, occ),
        )
    return cache[name]


def _plain_self_holder(analysis, node) -> bool:
    """Is node (an `x.<name>` occurrence, or the assignment storing one) spelled on `self` in a method of a
    module-level class of the file with no base, keyword or decorator - a plain object, not an nn.Module
    whose `parameters()`, `modules()` or `__setattr__` would reach the attribute's module by no name?"""
    if isinstance(node, cst.Assign):
        if len(node.targets) != 1:
            return False
        node = node.targets[0].target
    if not (isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name)):
        return False
    fn = _own_function(analysis, node)
    if not isinstance(fn, cst.FunctionDef) or fn.decorators:
        return False
    params = fn.params.posonly_params or fn.params.params
    if not params or params[0].name.value != node.value.value:
        return False
    scope = analysis.scopes.get(node.value)
    if scope is None or len([a for a in scope.assignments[node.value.value] if hasattr(a, "node")]) != 1:
        return False  # `self` rebound in the method
    block = analysis.parent(fn)
    cls = analysis.parent(block) if isinstance(block, cst.IndentedBlock) else None
    return (
        isinstance(cls, cst.ClassDef)
        and not (cls.bases or cls.keywords or cls.decorators)
        and isinstance(analysis.parent(cls), cst.Module)
    )


def _fresh_allocation(analysis, value) -> bool:
    return (
        isinstance(value, cst.Call)
        and not _is_method(analysis, value.func)
        and _function_name(analysis, value) in analysis.tables.new_value_functions
        and not any(arg.keyword is not None and arg.keyword.value == _OUT_KEYWORD for arg in value.args)
    )


def _buffer_use(analysis, occ) -> bool:
    t = analysis.tables
    node, parent = occ, analysis.parent(occ)
    while isinstance(parent, cst.Subscript) and parent.value is node:  # a slice or element: a view of it
        if _stored_to(analysis, parent):
            holder = analysis.parent(parent)
            return isinstance(holder, cst.AssignTarget) or (
                isinstance(holder, cst.AugAssign) and holder.target is parent
            )  # a store into the buffer
        node, parent = parent, analysis.parent(parent)
    if not (isinstance(parent, cst.Attribute) and parent.value is node):
        return False
    attr = parent.attr.value
    call = analysis.parent(parent)
    called = isinstance(call, cst.Call) and call.func is parent
    if not called:
        return attr in t.scalar_attributes
    if attr in t.new_value_methods or attr in t.scalar_methods:
        return True
    # an in-place method (`copy_`, `zero_`, `fill_`): it answers the buffer itself, so only where dropped
    return _in_place(attr) and isinstance(analysis.parent(call), cst.Expr)


def _buffer_use_or_inplace_function(analysis, occ) -> bool:
    return _buffer_use(analysis, occ) or _inplace_function_use(analysis, occ)  # round 12


# -- round 9: builtin containers and in-memory streams of the file, grad-mode switches, a __post_init__
#
# rules/casts.toml [cast_motion] "round 9" holds the facts; docs/fix.md, "Round 9", the rule.


def _container_value(analysis, value) -> bool:
    """A value that is a builtin list, dict or set whatever its operands: a display, a comprehension, a
    call of a builtin of container_functions (not rebound in the file)."""
    if isinstance(value, (cst.List, cst.Dict, cst.Set, cst.ListComp, cst.DictComp, cst.SetComp)):
        return True
    return (
        isinstance(value, cst.Call)
        and not any(arg.star for arg in value.args)
        and _builtin_name(analysis, value.func, analysis.tables.container_functions)
    )


def _not_stored(analysis, occ) -> bool:
    """An occurrence of `<obj>.<name>` that reads the attribute: not a store target, `del`ed or bound by
    `for`/`with ... as`/a walrus (an assignment is judged by _attribute_only)."""
    parent = analysis.parent(occ)
    if isinstance(parent, cst.NamedExpr):
        return parent.target is not occ
    return not _stored_to(analysis, occ)


def _builtin_container(analysis, expr) -> bool:
    """Is expr proven a builtin list, dict or set: a local bound only to container values, or an attribute
    whose every assignment in the file is one and that nothing else binds (_attribute_only)."""
    if isinstance(expr, cst.Name):
        # round 13: or an attribute proven one (`with contextlib.nullcontext(self.trace) as trace`)
        return _bound_only_to(analysis, expr, lambda v: _container_or_attribute(analysis, v))
    if not isinstance(expr, cst.Attribute) or not _is_method(analysis, expr):
        return False
    if _factory_field(analysis, expr):
        return True  # round 11: a dataclass field made by its default_factory
    name = expr.attr.value
    cache = analysis.derived.setdefault("cast_motion.container_attrs", {})
    if name not in cache:
        cache[name] = _attribute_only(analysis, name, _container_value, _not_stored)
    return cache[name]


def _container_or_attribute(analysis, value) -> bool:
    return _container_value(analysis, value) or (
        isinstance(value, cst.Attribute) and _builtin_container(analysis, value)
    )


def _container_call(analysis, call: cst.Call) -> bool:
    """`self.plan_cache.get(key)`, `self.headers.append(h)`: a container_methods call on a proven builtin
    container, with plain arguments."""
    return (
        _is_method(analysis, call.func)
        and (
            call.func.attr.value in analysis.tables.container_methods
            or call.func.attr.value in analysis.tables.container_iterating_methods
        )
        and not any(arg.star or arg.keyword is not None for arg in call.args)
        and _builtin_container(analysis, call.func.value)
    )


def _container_effect(analysis, call: cst.Call) -> str | None:
    """A lookup hashes and compares its argument with the elements (`__hash__`/`__eq__` of the file's
    objects): harmless where no implicit member of the file may write (round 6). Storing a reference
    (`append`) runs nothing."""
    if call.func.attr.value in analysis.tables.container_iterating_methods:
        # round 11: `xs.extend(items)` drains items (a generator or an `__iter__` may run) and stores them
        bad = next((a.value for a in call.args if not _proven_iterable(analysis, a.value)), None)
        if bad is not None:
            return f"iterates `{_code(analysis, bad, 40)}`, which is not proven a builtin container"
        return None
    if call.func.attr.value not in analysis.tables.container_lookup_methods:
        return None
    hit = _implicit_hit(analysis)
    if hit is None:
        return None
    return f"hashes or compares its argument with the container's elements: it {_defined_here(analysis, hit)}"


def _container_store(analysis, node, leaf: cst.Subscript) -> bool:
    """`self.plan_cache[key] = plan`: a plain assignment into a proven builtin container writes no tensor;
    the value it replaces is dropped, so the module must have no finalizer (_finalizers). The key's
    protocols are judged as implicit code (a store's key, round 6)."""
    if not isinstance(node, cst.Assign) or not _builtin_container(analysis, leaf.value):
        return False
    # settled: during the members' fixed point the finalizers found may still grow
    return _settled(analysis, "cast_motion.finalizers_settled", lambda: _finalizers(analysis)) is None


def _container_view(analysis, call) -> bool:
    """`self.sampling.items()`: a container_view_methods call with no argument on a proven builtin
    container; iterating it runs no code (round 10)."""
    return (
        isinstance(call, cst.Call)
        and _is_method(analysis, call.func)
        and call.func.attr.value in analysis.tables.container_view_methods
        and not call.args
        and _builtin_container(analysis, call.func.value)
    )


def _held_membership(analysis, container) -> str | None:
    """`x in self.sliding_layers` on a container held by the file: its elements, unseen here, are compared
    and hashed with x (`__eq__`/`__hash__`): harmless only where no implicit member of the file may write
    (round 6). None where the container is a display (its elements are judged where they are written)."""
    held = isinstance(container, cst.Attribute) or _container_view(analysis, container)
    if not held and not (isinstance(container, cst.Name) and _builtin_container(analysis, container)):
        return None
    hit = _implicit_hit(analysis)
    if hit is None:
        return None
    elements = _code(analysis, container, 40)
    return f"compares its item with the elements of `{elements}`: it {_defined_here(analysis, hit)}"


def _context_var_read(analysis, call: cst.Call) -> bool:
    """`DEBUG_KV.get()` / `.get(default)`: a context_var_read_methods call on a name bound only to a
    context_var_factories call (round 10); it answers a value and runs no code."""
    t = analysis.tables
    return (
        call.func.attr.value in t.context_var_read_methods
        and len(call.args) <= 1
        and not any(arg.star or arg.keyword is not None for arg in call.args)
        and _name_bound_only_to(analysis, call.func.value, lambda value: _context_var_factory(analysis, value))
    )


def _context_var_factory(analysis, value) -> bool:
    return (
        isinstance(value, cst.Call)
        and not _is_method(analysis, value.func)
        and _function_name(analysis, value) in analysis.tables.context_var_factories
    )


def _memory_stream(analysis, expr) -> bool:
    """Is expr proven an in-memory text stream: a call of memory_stream_factories with constant arguments,
    a local bound only to one, or an attribute assigned only one in the file (_attribute_only)?"""
    if isinstance(expr, cst.Call):
        return (
            not _is_method(analysis, expr.func)
            and _function_name(analysis, expr) in analysis.tables.memory_stream_factories
            and all(not arg.star and _constant(arg.value) for arg in expr.args)
        )
    if isinstance(expr, cst.Name):
        return _bound_only_to(analysis, expr, lambda v: isinstance(v, cst.Call) and _memory_stream(analysis, v))
    if not isinstance(expr, cst.Attribute) or not _is_method(analysis, expr):
        return False
    name = expr.attr.value
    cache = analysis.derived.setdefault("cast_motion.stream_attrs", {})
    if name not in cache:
        cache[name] = _attribute_only(
            analysis, name, lambda a, v: isinstance(v, cst.Call) and _memory_stream(a, v), _not_stored
        )
    return cache[name]


def _memory_print(analysis, call: cst.Call) -> bool:
    """`print(..., file=f)` where f is a proven in-memory stream; `sep`/`end`/`flush` constants."""
    keywords = {arg.keyword.value: arg.value for arg in call.args if arg.keyword is not None}
    if "file" not in keywords or not _memory_stream(analysis, keywords["file"]):
        return False
    return all(k == "file" or (k in ("sep", "end", "flush") and _constant(v)) for k, v in keywords.items())


def _print_effect(analysis, call: cst.Call) -> str | None:
    """print calls `str()` of each positional argument: harmless where each is proven a builtin value or
    tensor, or no implicit member of the file may write (round 6)."""
    for arg in call.args:
        if arg.keyword is not None:
            continue
        if arg.star or not _proven_value(analysis, arg.value):
            hit = _implicit_hit(analysis)
            if hit is not None:
                return (
                    f"formats `{_code(analysis, arg.value, 30)}` with `str()`, which is not proven a builtin "
                    f"value: it {_defined_here(analysis, hit)}"
                )
            if arg.star and not _proven_iterable(analysis, arg.value):
                return f"unpacks `*{_code(analysis, arg.value, 40)}` (iterating it may run a generator or `__iter__`)"
    return None


def _grad_mode_item(analysis, call: cst.Call) -> bool:
    """`torch.inference_mode()` (grad_mode_managers), with no argument, as a `with` item without `as`."""
    item = analysis.parent(call)
    return (
        not call.args
        and isinstance(item, cst.WithItem)
        and item.asname is None
        and _function_name(analysis, call) in analysis.tables.grad_mode_managers
    )


def _plain_post_init(analysis, cls: cst.ClassDef, fn: cst.FunctionDef) -> bool:
    """A `__post_init__(self)` of a plain dataclass whose body only reads, raises and stores the fresh
    instance's own attributes (`self.page_shift = ...`: the class has no property, descriptor or
    `__setattr__`, _plain_class checks): every other node proven harmless (unproven_effect), no
    global/nonlocal, nested def, lambda, class or yield, and `self` neither stored nor handed on."""
    if fn.name.value != "__post_init__" or fn.decorators or fn.asynchronous:
        return False
    params = fn.params
    if params.posonly_params or params.kwonly_params or isinstance(params.star_arg, cst.Param) or params.star_kwarg:
        return False
    if len(params.params) != 1 or params.params[0].default is not None:
        return False
    me = params.params[0].name.value
    cache = analysis.derived.setdefault("cast_motion.plain_post_init", {})
    if id(fn) in cache:
        return cache[id(fn)]
    cache[id(fn)] = False  # a construction inside its own __post_init__ proves nothing
    try:
        found = _post_init_body(analysis, fn, me)
    finally:
        del cache[id(fn)]
    if analysis.derived.get(_MEMBERS_DONE):  # the body's judgement rests on the file's effectful members
        cache[id(fn)] = found
    return found


def _self_field(node, me: str) -> bool:
    """`self.<name>` with a name that is not a dunder (`self.__class__ = ...` re-types the instance)."""
    return (
        isinstance(node, cst.Attribute)
        and isinstance(node.value, cst.Name)
        and node.value.value == me
        and not _is_dunder(node.attr.value)
    )


def _post_init_body(analysis, fn: cst.FunctionDef, me: str) -> bool:
    for node in iter_nodes(fn.body, cst.CSTNode):
        if isinstance(node, (cst.Global, cst.Nonlocal, cst.FunctionDef, cst.ClassDef, cst.Lambda, cst.Yield)):
            return False
        if isinstance(node, cst.Return) and node.value is not None:
            return False
        if isinstance(node, cst.Name) and node.value == me:
            parent = analysis.parent(node)
            if not (isinstance(parent, cst.Attribute) and parent.value is node):
                return False  # `self` itself handed on, stored or rebound
            continue
        if isinstance(node, cst.Assign) and all(_self_field(t.target, me) for t in node.targets):
            continue  # a store of the fresh instance's own field; its value is judged node by node
        if unproven_effect(analysis, node) is not None:
            return False
    return True


# -- round 11: functions of the file, proven by their bodies ------------------------------------------
#
# A call of a def or lambda of this file (module-level or nested) runs its body: harmless where the body
# is proven read-only by the same judge as the code between the cast and the gather (unproven_effect),
# calls in it of other functions of the file judged the same way (depth bounded, a cycle refused). A
# decorator is followed where it is a module-level def that only returns a wrapper it defines (under
# `functools.wraps` at most): the call then runs the wrapper's body, in which a call of the decorator's
# parameter is a call of the decorated body. `nonlocal` rebinding is allowed only at the outermost call,
# judged as a rebinding at the call site (_binding_problem: not a name the cast reads, not the cast's
# variable, which _other_binding refuses; no finalizer may run on the old value).

_FILE_CALL_DEPTH = 4


def _single_binding(analysis, name: cst.Name):
    """The node that binds name, where it resolves to exactly one binding of the file: a FunctionDef,
    or the Lambda of `name = lambda ...`; None otherwise."""
    scope = analysis.scopes.get(name)
    if scope is None:
        return None
    try:
        assignments = list(scope[name.value])
    except Exception:  # noqa: BLE001
        return None
    if len(assignments) != 1:
        return None
    node = getattr(assignments[0], "node", None)
    if isinstance(node, cst.FunctionDef):
        return node
    if isinstance(node, cst.Name):
        target = analysis.parent(node)
        assign = analysis.parent(target) if isinstance(target, cst.AssignTarget) else None
        if isinstance(assign, cst.Assign) and len(assign.targets) == 1 and isinstance(assign.value, cst.Lambda):
            return assign.value
    return None


def _plain_wrapper(analysis, decorator: cst.Decorator):
    """(wrapper def, name of the decorator's parameter) where the decorator is a Name bound once to a
    module-level def of one parameter whose body only defines a wrapper (decorated with nothing but
    `functools.wraps(<the parameter>)`) and returns it; None otherwise."""
    if not isinstance(decorator.decorator, cst.Name):
        return None
    deco = _single_binding(analysis, decorator.decorator)
    if not isinstance(deco, cst.FunctionDef) or deco.decorators or deco.asynchronous:
        return None
    if not isinstance(analysis.parent(deco), cst.Module):
        return None
    params = deco.params
    if (
        len(params.params) != 1
        or isinstance(params.star_arg, (cst.Param, cst.ParamStar))
        or params.kwonly_params
        or params.star_kwarg is not None
        or params.posonly_params
    ):
        return None
    if params.params[0].default is not None:
        return None
    param = params.params[0].name.value
    statements = list(deco.body.body)
    if len(statements) != 2 or not isinstance(statements[0], cst.FunctionDef):
        return None
    wrapper = statements[0]
    ret = statements[1]
    if not (
        isinstance(ret, cst.SimpleStatementLine)
        and len(ret.body) == 1
        and isinstance(ret.body[0], cst.Return)
        and isinstance(ret.body[0].value, cst.Name)
        and ret.body[0].value.value == wrapper.name.value
    ):
        return None
    if wrapper.asynchronous:
        return None
    for param_node in iter_nodes(wrapper.params, cst.Param):
        if param_node.default is not None and not _constant(param_node.default):
            return None
    for inner in wrapper.decorators:
        d = inner.decorator
        if not (
            isinstance(d, cst.Call)
            and _qualified(analysis, d.func) in analysis.tables.wrapper_decorators
            and len(d.args) == 1
            and isinstance(d.args[0].value, cst.Name)
            and d.args[0].value.value == param
            and d.args[0].keyword is None
            and not d.args[0].star
        ):
            return None
    return wrapper, param


def _passthrough(fn, call: cst.Call) -> bool:
    """Are call's star arguments only the wrapper's own `*args`/`**kwargs` handed on (builtin tuple and
    dict: unpacking them runs no code of the file)?"""
    star = fn.params.star_arg.name.value if isinstance(fn.params.star_arg, cst.Param) else None
    kwargs = fn.params.star_kwarg.name.value if fn.params.star_kwarg is not None else None
    for arg in call.args:
        if arg.star == "*" and not (isinstance(arg.value, cst.Name) and arg.value.value == star):
            return False
        if arg.star == "**" and not (isinstance(arg.value, cst.Name) and arg.value.value == kwargs):
            return False
    return True


def file_call_effect(analysis, call: cst.Call, nonlocal_check=None) -> str | None:
    """Why calling a function of this file (call.func a Name bound once to a def or lambda of the file)
    may write; None when its body is proven read-only. "" when call is not such a call.
    nonlocal_check(statement, leaf): why rebinding an enclosing name (`nonlocal`) is a problem, or None;
    without it `nonlocal` is refused."""
    if not isinstance(call.func, cst.Name):
        return ""
    fn = _single_binding(analysis, call.func)
    if fn is None:
        return ""
    if any(arg.star for arg in call.args):
        return "unpacks arguments into a function of the file"
    stack = analysis.derived.setdefault("cast_motion.file_calls", [])
    return _function_effect(analysis, fn, stack, {}, nonlocal_check)


def _function_effect(analysis, fn, stack: list, substituted: dict, nonlocal_check, wrapped: bool = False) -> str | None:
    """Why running fn's body (a def, its decorator's wrapper, or a lambda) may write, or None. wrapped:
    fn's own body, called by its decorator's wrapper."""
    name = fn.name.value if isinstance(fn, cst.FunctionDef) else "<lambda>"
    if not wrapped and any(entry is fn for entry in stack):
        return f"calls `{name}(...)` recursively (a cycle proves nothing)"
    if len(stack) >= _FILE_CALL_DEPTH:
        return f"calls `{name}(...)` through more than {_FILE_CALL_DEPTH} functions of the file"
    if _settled(analysis, "cast_motion.finalizers_settled", lambda: _finalizers(analysis)) is not None:
        return "runs a function of the file whose locals, dropped on return, may run a finalizer"
    if isinstance(fn, cst.FunctionDef):
        if fn.asynchronous:
            return f"calls the coroutine function `{name}`"
        if fn.decorators and not wrapped:
            if len(fn.decorators) != 1:
                return f"calls `{name}(...)`, whose decorators are not proven plain wrappers"
            plain = _plain_wrapper(analysis, fn.decorators[0])
            if plain is None:
                shown = _code(analysis, fn.decorators[0].decorator)
                return f"calls `{name}(...)`, whose decorator `@{shown}` is not proven a plain wrapper"
            wrapper, param = plain
            stack.append(fn)
            try:
                return _body_effect(analysis, wrapper, stack, {param: fn}, None)
            finally:
                stack.pop()
    if isinstance(fn, cst.FunctionDef) and _generator_function(fn):
        return None  # round 13: a call of a generator function binds its arguments and runs no line of it
    stack.append(fn)
    try:
        return _body_effect(analysis, fn, stack, substituted, nonlocal_check)
    finally:
        stack.pop()


def _body_effect(analysis, fn, stack: list, substituted: dict, nonlocal_check) -> str | None:
    name = fn.name.value if isinstance(fn, cst.FunctionDef) else "<lambda>"
    declared: set[str] = set()
    nodes = list(iter_nodes(fn.body, cst.CSTNode))
    for node in nodes:
        if isinstance(node, cst.Global):
            return f"calls `{name}(...)`, which declares `global`"
        if isinstance(node, cst.Nonlocal):
            if nonlocal_check is None:
                return f"calls `{name}(...)`, which rebinds an enclosing name (`nonlocal`) the proof cannot follow"
            declared |= {n.name.value for n in node.names}
        if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda, cst.Yield, cst.Await)):
            return f"calls `{name}(...)`, which defines a function or class, or suspends"
    for node in nodes:
        if isinstance(node, (cst.Return, cst.Nonlocal)):
            continue
        if declared and isinstance(node, (cst.Assign, cst.AugAssign, cst.AnnAssign, cst.For, cst.NamedExpr)):
            for target in _binds(node):
                for leaf in _flat_targets(target):
                    if isinstance(leaf, cst.Name) and leaf.value in declared:
                        why = nonlocal_check(node, leaf)
                        if why is not None:
                            return f"calls `{name}(...)`, which {why}"
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Name):
            if node.func.value in substituted and _scope_root_is_fn(analysis, node, fn):
                if not _passthrough(fn, node):
                    return f"calls `{name}(...)`, which unpacks arguments into the wrapped function"
                why = _function_effect(analysis, substituted[node.func.value], stack, {}, None, wrapped=True)
                if why is not None:
                    return f"calls `{name}(...)`, which {why}"
                continue
            inner = _single_binding(analysis, node.func)
            if inner is not None:
                if any(arg.star for arg in node.args):
                    return f"calls `{name}(...)`, which unpacks arguments into a function of the file"
                why = _function_effect(analysis, inner, stack, {}, None)
                if why is not None:
                    return f"calls `{name}(...)`, which {why}"
                continue
        why = unproven_effect(analysis, node)
        if why is not None:
            return f"calls `{name}(...)`, which {why}"
    return None


def _scope_root_is_fn(analysis, node, fn) -> bool:
    for anc in analysis.ancestors(node):
        if isinstance(anc, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
            return anc is fn
    return False


# -- round 11: a heap of a proven builtin list, `getattr(x, name)(...)`, `contextlib.suppress` ---------


def _container_write(analysis, call: cst.Call) -> bool:
    """`heapq.heappush(self.waiting, item)`: a container_write_functions call whose first argument is a
    proven builtin list (round 9's rule), positional arguments only. What it compares (`__lt__`) is
    judged by _call_effect (implicit code of the file, round 6)."""
    if any(arg.star or arg.keyword is not None for arg in call.args) or not call.args:
        return False
    return _builtin_container(analysis, call.args[0].value)


def _literal_names(analysis, expr) -> set[str] | None:
    """The attribute names `getattr(x, expr)` may read: a string literal's, or every string literal an
    attribute is assigned (round 8's attribute rule: every occurrence in the file an assignment of a
    literal or a read); None where not proven."""
    if isinstance(expr, cst.SimpleString):
        text = expr.evaluated_value
        return {text} if isinstance(text, str) else None
    if not isinstance(expr, cst.Attribute) or not _is_method(analysis, expr):
        return None
    name = expr.attr.value

    def literal(analysis, value) -> bool:
        return isinstance(value, cst.SimpleString) and isinstance(value.evaluated_value, str)

    def read(analysis, occ) -> bool:
        return not _stored_target(analysis, occ) and not isinstance(analysis.parent(occ), cst.Del)

    if not _attribute_only(analysis, name, literal, read):
        return None
    names = set()
    for node in iter_nodes(analysis.module, cst.Assign):
        for target in node.targets:
            if isinstance(target.target, cst.Attribute) and target.target.attr.value == name:
                names.add(node.value.evaluated_value)
    return names


def getattr_call_effect(analysis, call: cst.Call) -> str | None:
    """`getattr(q, "mul")(0.5)` or `getattr(q, self.scale_op)(...)` with the name proven one of string
    literals (_literal_names): judged as `q.<name>(...)` for each name - every one a read method of the
    tables, no member of the file under it that may write, `.to()`-like names only on a tensor where
    modules may hold the pool, arguments proven values or no implicit code of the file that may write.
    "" when call is not of that form."""
    inner = call.func
    if not (isinstance(inner, cst.Call) and not _is_method(analysis, inner.func)):
        return ""
    if _function_name(analysis, inner) != "getattr" or len(inner.args) != 2:
        return ""
    if any(arg.star or arg.keyword is not None for arg in inner.args):
        return ""
    receiver, attr = inner.args[0].value, inner.args[1].value
    names = _literal_names(analysis, attr)
    t = analysis.tables
    if not names or not all(
        m in _known_methods(t) and not _in_place(m) and m not in t.writer_attributes for m in names
    ):
        return ""  # not proven one of the read methods: judged as any callable

    if any(arg.star or (arg.keyword is not None and arg.keyword.value == _OUT_KEYWORD) for arg in call.args):
        return "calls a method by name with unpacked arguments or `out=`"
    tensor = _tensor_typed(analysis, receiver)
    for method in sorted(names):
        if method in effectful_members(analysis) and not _builtin_typed(analysis, receiver):
            if is_effectful(analysis, method):
                return _defined_here(analysis, method)
        if method in t.module_conversions and _may_hold_modules(analysis) is not None and not tensor:
            return f"calls `.{method}()` by name on a value not proven a tensor (modules may hold the pool)"
        if not tensor:
            writer = _escaped_writer(analysis)
            if writer is not None:
                return f"may call a writer under the name `{method}`: {writer}"
            hit = _open_hit(analysis)
            if hit is not None:
                return _defined_here(analysis, hit)
    if not all(_proven_value(analysis, arg.value) for arg in call.args):
        hit = _implicit_hit(analysis)
        if hit is not None:
            return _defined_here(analysis, hit)
    return None


def _suppress_item(analysis, item: cst.WithItem) -> bool:
    """`contextlib.suppress(KeyError, ...)` (suppress_managers, qualified), builtin exceptions only, no `as`."""
    call = item.item
    return (
        item.asname is None
        and isinstance(call, cst.Call)
        and _qualified(analysis, call.func) in analysis.tables.suppress_managers
        and all(not arg.star and arg.keyword is None and _builtin_exception(analysis, arg.value) for arg in call.args)
    )


def _tuple_list(analysis, value) -> bool:
    """A list display (or `list()`) whose elements are tuple displays."""
    if isinstance(value, cst.List):
        return all(isinstance(el, cst.Element) and isinstance(el.value, cst.Tuple) for el in value.elements)
    return isinstance(value, cst.Call) and not value.args and _builtin_name(analysis, value.func, {"list"})


def _tuple_item_use(analysis, occ) -> bool:
    """A use of `<obj>.<name>` that keeps its items builtin tuples: iterated by a `for` or a comprehension,
    measured by `len`, given a tuple display by `.append(...)` or by a container_write_functions call."""
    parent = analysis.parent(occ)
    if isinstance(parent, (cst.For, cst.CompFor)) and parent.iter is occ:
        return True
    if isinstance(parent, cst.Attribute) and parent.value is occ and parent.attr.value == "append":
        call = analysis.parent(parent)
        return (
            isinstance(call, cst.Call)
            and call.func is parent
            and len(call.args) == 1
            and not call.args[0].star
            and call.args[0].keyword is None
            and isinstance(call.args[0].value, cst.Tuple)
        )
    if isinstance(parent, cst.Arg) and parent.value is occ and not parent.star and parent.keyword is None:
        call = analysis.parent(parent)
        if not isinstance(call, cst.Call) or _is_method(analysis, call.func):
            return False
        name = _function_name(analysis, call)
        if name == "len":
            return True
        return (
            name in analysis.tables.container_write_functions
            and call.args[0] is parent
            and all(isinstance(arg.value, cst.Tuple) and not arg.star for arg in call.args[1:])
        )
    return False


def _tuple_items(analysis, expr) -> bool:
    """round 11: are the items of expr builtin tuples - an attribute every assignment of which in the file
    is a list display of tuple displays (or `list()`), and every other occurrence a _tuple_item_use (round
    8's attribute rule otherwise)? Unpacking them (`for prio, rid in self.waiting_queue`) runs no code."""
    if not isinstance(expr, cst.Attribute) or not _is_method(analysis, expr):
        return False
    name = expr.attr.value
    cache = analysis.derived.setdefault("cast_motion.tuple_lists", {})
    if name not in cache:
        cache[name] = _attribute_only(analysis, name, _tuple_list, _tuple_item_use)
    return cache[name]


def _factory_field(analysis, expr) -> bool:
    """round 11: `stats.pages` where stats is proven an instance of a plain dataclass of the file
    (_plain_instance) and `pages` a field that every class of the file declaring it declares as
    `field(default_factory=<a builtin of container_functions>)`, that nothing in the file passes by
    keyword or positionally to a construction of such a class, stores, deletes, or names by a string
    (`setattr`/`vars`/`__dict__` absent): the field holds the builtin container the factory made."""
    if not (isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name)):
        return False
    if not _plain_instance(analysis, expr.value, frozenset()):
        return False
    name = expr.attr.value
    cache = analysis.derived.setdefault("cast_motion.factory_fields", {})
    if name not in cache:
        cache[name] = _factory_field_name(analysis, name)
    return cache[name]


def _factory_field_name(analysis, name: str) -> bool:
    t = analysis.tables
    holders = set()
    for cls in analysis.nodes.classes:
        lines = _class_statements(cls.body.body)
        for statement in (
            x for line in lines for x in (line.body if isinstance(line, cst.SimpleStatementLine) else [line])
        ):
            if isinstance(statement, cst.FunctionDef) and statement.name.value == name:
                return False
            if isinstance(statement, (cst.Assign,)) and any(
                isinstance(tg.target, cst.Name) and tg.target.value == name for tg in statement.targets
            ):
                return False
            if isinstance(statement, cst.AnnAssign) and isinstance(statement.target, cst.Name):
                if statement.target.value != name:
                    continue
                value = statement.value
                if not (
                    isinstance(value, cst.Call)
                    and _qualified(analysis, value.func) in t.dataclass_field_functions
                    and any(
                        arg.keyword is not None
                        and arg.keyword.value == "default_factory"
                        and _builtin_name(analysis, arg.value, t.container_functions)
                        for arg in value.args
                    )
                ):
                    return False
                holders.add(cls.name.value)
    if not holders or set(analysis.tables.attribute_hooks) & _defined_members(analysis):
        return False
    for node in iter_nodes(analysis.module, cst.CSTNode):
        if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
            if node.evaluated_value in (name, "__dict__"):
                return False
        elif isinstance(node, cst.Name) and node.value in ("setattr", "vars", "delattr", "__dict__"):
            return False
        elif isinstance(node, cst.Arg) and node.keyword is not None and node.keyword.value == name:
            return False
        elif isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value in holders:
            if any(arg.keyword is None or arg.star for arg in node.args):
                return False  # a field given positionally (or unpacked) may be this one
        elif isinstance(node, cst.Attribute) and node.attr.value == "__dict__":
            return False
        elif isinstance(node, cst.Attribute) and node.attr.value == name and not _not_stored(analysis, node):
            return False
        elif isinstance(node, cst.Attribute) and node.attr.value == name:
            holder = analysis.parent(node)
            if isinstance(holder, cst.AssignTarget) or isinstance(holder, cst.Del):
                return False
    return True


# -- round 12: library functions given builtin values, in-place torch functions on the backend's own
# tensors, methods of an Enum or plain dataclass of the file ------------------------------------------
#
# rules/casts.toml [cast_motion] "round 12" holds the facts; docs/fix.md, "Round 12", the rule.


def _immutable_value(analysis, expr, depth: int = 0) -> bool:
    """Is expr proven a value of a builtin immutable type (int/float/str/bytes/bool/None, a tuple of
    them): a literal, an f-string (always an exact str), `len(...)`, a tensor's `.shape`, a tuple
    display, an arithmetic operator or unary minus of such, a local bound only to such?"""
    if depth > 6 or expr is None:
        return False
    if isinstance(expr, _CONSTANTS) and not isinstance(expr, cst.Ellipsis):
        return True
    if isinstance(expr, cst.Name):
        if expr.value in _KEYWORD_NAMES:
            return True
        return _bound_only_to(analysis, expr, lambda v: _immutable_value(analysis, v, depth + 1))
    if isinstance(expr, cst.Tuple):
        return all(
            not isinstance(el, cst.StarredElement) and _immutable_value(analysis, el.value, depth + 1)
            for el in expr.elements
        )
    if isinstance(expr, cst.UnaryOperation):
        return isinstance(expr.operator, (cst.Minus, cst.Plus)) and _immutable_value(
            analysis, expr.expression, depth + 1
        )
    if isinstance(expr, cst.BinaryOperation):
        return _immutable_value(analysis, expr.left, depth + 1) and _immutable_value(analysis, expr.right, depth + 1)
    if isinstance(expr, cst.Attribute) and expr.attr.value not in analysis.tables.iterable_attributes:
        # round 13: `self.raw_meta`, an attribute whose every assignment in the file is a builtin immutable
        # value (or an exact str of str_result_functions) and that nothing else binds (_attribute_only)
        return _is_method(analysis, expr) and _immutable_attribute(analysis, expr.attr.value)
    if isinstance(expr, cst.Attribute):
        # `q.shape`: a torch.Size of ints, where the receiver is proven a tensor, or where no object of
        # the file may have a member `shape` (a def, property, field, Mock or namespace configured so)
        return (
            expr.attr.value in analysis.tables.iterable_attributes
            and not _import_bound(analysis, expr)
            and (_tensor_typed(analysis, expr.value) or not _may_provide(analysis, expr.attr.value))
            and not is_property(analysis, expr.attr.value)
        )
    if isinstance(expr, cst.Call):
        # `len(x)`: the builtin always answers an exact int (its `__len__` is judged where it is called)
        return (
            not _is_method(analysis, expr.func)
            and _builtin_name(analysis, expr.func, ("len",))
            and not any(arg.star for arg in expr.args)
        )
    return False


def _immutable_callable(analysis, expr) -> bool:
    """A callable that, called on builtin immutable values (and its own results), runs no code that may
    write: a read_functions entry (qualified through the imports) that calls nothing back, or a lambda /
    module-level def of the file whose body is proven read-only (_harmless_callable)."""
    if isinstance(expr, (cst.Name, cst.Attribute)):
        name = _qualified(analysis, expr)
        scope = analysis.scopes.get(expr)
        local = isinstance(expr, cst.Name) and scope is not None and any(hasattr(a, "node") for a in scope[expr.value])
        if (
            name is not None
            and not local
            and (isinstance(expr, cst.Name) or _import_bound(analysis, expr))
            and name in analysis.tables.read_functions
            and name not in analysis.tables.writer_callables
        ):
            entry = analysis.tables.callbacks.get(name)
            return entry is None or not (entry["iterates"] or entry["calls"] or entry["attribute"])
    if isinstance(expr, cst.Lambda) or isinstance(expr, cst.Name):
        return _harmless_callable(analysis, expr) is None
    return False


def _immutable_arguments(analysis, call: cst.Call) -> bool:
    """Round 12: a call of immutable_argument_functions whose every argument is a builtin immutable value
    and whose every listed callable argument is proven harmless on such values."""
    name = _function_name(analysis, call)
    positions = analysis.tables.argument_positions("immutable_argument_functions").get(name or "")
    if positions is None:
        return False
    callables = set(map(id, _args_at(call, positions)))
    for arg in call.args:
        if arg.star:
            return False
        if id(arg.value) in callables:
            if not _immutable_callable(analysis, arg.value):
                return False
        elif not _immutable_value(analysis, arg.value) and not _builtin_display(analysis, arg.value):
            return False
    return True


def _builtin_display(analysis, expr, depth: int = 0) -> bool:
    """Round 14: a list, set or dict display (or a tuple display holding one) whose every element, key and
    value is a builtin immutable value (_immutable_value) or such a display, nothing unpacked: a new exact
    builtin container whose hashing, comparing and saving run only Python's own code."""
    if depth > 6:
        return False
    if isinstance(expr, (cst.List, cst.Set, cst.Tuple)):
        return all(
            isinstance(el, cst.Element)
            and (_immutable_value(analysis, el.value) or _builtin_display(analysis, el.value, depth + 1))
            for el in expr.elements
        )
    if isinstance(expr, cst.Dict):
        return all(
            isinstance(el, cst.DictElement)
            and _immutable_value(analysis, el.key)
            and (_immutable_value(analysis, el.value) or _builtin_display(analysis, el.value, depth + 1))
            for el in expr.elements
        )
    return False


def _inplace_function_harmless(analysis, call: cst.Call) -> bool:
    """Round 12: a call of inplace_functions whose written arguments are each proven not the pool nor
    anything that holds or views it (_distinct; for a list display, each element), and whose arguments
    run no code of the file (torch_arguments), given no `out=`."""
    if _is_method(analysis, call.func):
        return False
    positions = analysis.tables.argument_positions("inplace_functions").get(_function_name(analysis, call) or "")
    if positions is None:
        return False
    if any(arg.star for arg in call.args):
        return False
    if any(arg.keyword is not None and arg.keyword.value == _OUT_KEYWORD for arg in call.args):
        return False
    written = _args_at(call, positions)
    if not written or not all(_distinct(analysis, value) for value in written):
        return False
    return _torch_arguments(analysis, call) is None


def _inplace_function_use(analysis, occ) -> bool:
    """`torch.nn.init.zeros_(self.workspace)` with its result dropped: the buffer is written in place,
    not handed on (round 8's _buffer_use, for in-place torch functions)."""
    arg = analysis.parent(occ)
    if not (isinstance(arg, cst.Arg) and arg.value is occ and not arg.star):
        return False
    call = analysis.parent(arg)
    if not isinstance(call, cst.Call) or _is_method(analysis, call.func):
        return False
    positions = analysis.tables.argument_positions("inplace_functions").get(_function_name(analysis, call) or "")
    if positions is None or not any(value is occ for value in _args_at(call, positions)):
        return False
    return isinstance(analysis.parent(call), cst.Expr)


def _enum_class(analysis, cls: cst.ClassDef) -> bool:
    t = analysis.tables
    if cls.keywords or cls.decorators or len(cls.bases) != 1:
        return False
    if _qualified(analysis, cls.bases[0].value) not in t.enum_bases:
        return False
    for statement in cls.body.body:
        if isinstance(statement, cst.FunctionDef):
            if statement.name.value in t.enum_hook_members or _is_dunder(statement.name.value):
                return False
            continue
        if not isinstance(statement, cst.SimpleStatementLine):
            return False
        for small in statement.body:
            if isinstance(small, (cst.Pass, cst.Expr)) and (
                isinstance(small, cst.Pass) or isinstance(small.value, (cst.SimpleString, cst.ConcatenatedString))
            ):
                continue
            if not isinstance(small, cst.Assign) or len(small.targets) != 1:
                return False
            target = small.targets[0].target
            if not isinstance(target, cst.Name) or target.value in t.enum_hook_members or _is_dunder(target.value):
                return False
            if not (_constant(small.value) or _immutable_value(analysis, small.value)):
                return False
    return True


def _class_read_only_name(analysis, cls: cst.ClassDef) -> bool:
    """Is the class's name read only as a call, `C.<attr>` (never stored or deleted), `C[...]`, an
    annotation or isinstance's class - nothing stores into the class or hands it on?"""
    for node in iter_nodes(analysis.module, cst.Name):
        if node.value != cls.name.value or node is cls.name:
            continue
        parent = analysis.parent(node)
        if isinstance(parent, cst.Attribute) and parent.attr is node:
            continue  # `obj.Name`: another object's attribute
        if isinstance(parent, cst.Call) and parent.func is node:
            continue
        if isinstance(parent, (cst.Attribute, cst.Subscript)) and parent.value is node:
            if _stored_to(analysis, parent):
                return False
            continue
        if _in_annotation(analysis, node):
            continue
        grand = analysis.parent(parent) if isinstance(parent, cst.Arg) else None
        if (
            isinstance(grand, cst.Call)
            and dotted(grand.func) in ("isinstance", "issubclass")
            and _function_name(analysis, grand) in ("isinstance", "issubclass")
        ):
            continue
        return False
    return True


def _module_class(analysis, name: cst.Name):
    scope = analysis.scopes.get(name)
    if scope is None:
        return None
    try:
        assignments = list(scope[name.value])
    except Exception:  # noqa: BLE001
        return None
    if len(assignments) != 1:
        return None
    cls = getattr(assignments[0], "node", None)
    if not isinstance(cls, cst.ClassDef) or not isinstance(analysis.parent(cls), cst.Module):
        return None
    return cls


def _instance_class(analysis, receiver):
    """The class of the file receiver is proven an instance of, made or looked up right there: an Enum
    lookup `C(value)` (its value hashed: the `hash` protocol), `C.<member>`, `C["<name>"]`, or a plain
    dataclass's construction (round 7). (class, why-not-harmless-or-None); (None, None) otherwise."""
    if isinstance(receiver, cst.Call) and isinstance(receiver.func, cst.Name):
        cls = _module_class(analysis, receiver.func)
        if cls is None:
            return None, None
        if _enum_class(analysis, cls) and _class_read_only_name(analysis, cls):
            args = receiver.args
            if len(args) != 1 or args[0].star or args[0].keyword is not None:
                return None, None
            return cls, _protocol(analysis, "hash", [args[0].value])
        if _plain_construction(analysis, receiver):
            return cls, None
        return None, None
    if isinstance(receiver, cst.Attribute) and isinstance(receiver.value, cst.Name):
        cls = _module_class(analysis, receiver.value)
        if cls is not None and _enum_class(analysis, cls) and _class_read_only_name(analysis, cls):
            member = receiver.attr.value
            if any(
                isinstance(small, cst.Assign)
                and isinstance(small.targets[0].target, cst.Name)
                and small.targets[0].target.value == member
                for statement in cls.body.body
                if isinstance(statement, cst.SimpleStatementLine)
                for small in statement.body
            ):
                return cls, None
        return None, None
    if isinstance(receiver, cst.Subscript) and isinstance(receiver.value, cst.Name):
        cls = _module_class(analysis, receiver.value)
        if (
            cls is not None
            and len(receiver.slice) == 1
            and isinstance(receiver.slice[0].slice, cst.Index)
            and isinstance(receiver.slice[0].slice.value, cst.SimpleString)
            and _enum_class(analysis, cls)
            and _class_read_only_name(analysis, cls)
        ):
            return cls, None
    return None, None


def class_method_effect(analysis, call: cst.Call, nonlocal_check=None) -> str | None:
    """Round 12: why calling `<instance>.<method>(...)` - the instance of a class of the file made or
    looked up right there (_instance_class) - may write; None when the method's body is proven
    read-only (judged as a function of the file, round 11). "" when call is not such a call."""
    func = call.func
    if not isinstance(func, cst.Attribute):
        return ""
    cls, why = _instance_class(analysis, func.value)
    if cls is None:
        return ""
    if why is not None:
        return f"looks up `{cls.name.value}` by a value whose hash {why}"
    method = func.attr.value
    if _is_dunder(method):
        return ""
    defs = []
    for statement in cls.body.body:
        if isinstance(statement, cst.FunctionDef) and statement.name.value == method:
            defs.append(statement)
        elif isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                for target in _binds(small) if isinstance(small, (cst.Assign, cst.AnnAssign, cst.AugAssign)) else ():
                    if isinstance(target, cst.Name) and target.value == method:
                        return ""
        elif not isinstance(statement, cst.FunctionDef):
            return ""
    if len(defs) != 1 or defs[0].decorators or defs[0].asynchronous:
        return ""
    # the member is never stored nor reached by name anywhere in the file (an instance attribute
    # would shadow the method)
    spelled = _spelled_names(analysis)
    if spelled.by_name or method in spelled.strings or method in spelled.keywords:
        return ""
    for node in spelled.attributes.get(method, ()):
        if _stored_to(analysis, node):
            return ""
    if any(arg.star for arg in call.args):
        return "unpacks arguments into a method of the file"
    stack = analysis.derived.setdefault("cast_motion.file_calls", [])
    return _function_effect(analysis, defs[0], stack, {}, nonlocal_check)


def _enum_lookup(analysis, call: cst.Call) -> bool:
    """Round 12: `C(value)` of an Enum of the file (_enum_class, its name never stored into): EnumType's
    lookup hashes and compares the value (harmless where the `hash` protocol is) and runs only `_missing_`,
    which the class does not define (a miss raises ValueError)."""
    if not isinstance(call.func, cst.Name):
        return False
    cls = _module_class(analysis, call.func)
    if cls is None or not _enum_class(analysis, cls) or not _class_read_only_name(analysis, cls):
        return False
    args = call.args
    if len(args) != 1 or args[0].star or args[0].keyword is not None:
        return False
    return _protocol(analysis, "hash", [args[0].value]) is None


def _default_dtype_call(analysis, expr) -> bool:
    """Round 12: `torch.get_default_dtype()` (rules/casts.toml default_dtype_functions), with no argument:
    a dtype, read from process state that no code proven harmless changes."""
    return (
        isinstance(expr, cst.Call)
        and not expr.args
        and dotted(expr.func) is not None
        and _import_bound(analysis, expr.func)
        and _qualified(analysis, expr.func) in analysis.tables.default_dtype_functions
    )


# -- round 13: null context managers, generator functions called but not advanced ----------------------
#
# rules/casts.toml [cast_motion] "round 13" holds the facts; docs/fix.md, "Round 13", the rule.


def _null_context(analysis, call: cst.Call) -> bool:
    """`contextlib.nullcontext()` / `nullcontext(x)` / `nullcontext(enter_result=x)` (null_context_managers,
    qualified through the imports): its construction stores x, `__enter__` returns it, `__exit__` returns
    None; no code of the file runs (x's own evaluation is judged where it is)."""
    if _qualified(analysis, call.func) not in analysis.tables.null_context_managers:
        return False
    if len(call.args) > 1 or any(arg.star for arg in call.args):
        return False
    return all(arg.keyword is None or arg.keyword.value == "enter_result" for arg in call.args)


def _generator_function(fn: cst.FunctionDef) -> bool:
    """Is fn a (synchronous) generator function: a `yield` in its own body, not in a def, lambda or class
    nested in it? Calling one binds its arguments into a new frame and returns the generator unstarted: no
    line of the body runs until it is advanced, and advancing it is iterating a value not proven a builtin
    container (refused where it happens, _proven_iterable). Dropped unstarted, its `close()` runs nothing;
    a finalizer of an argument held by its frame is refused as for every function of the file."""
    if fn.asynchronous is not None:
        return False
    return any(type(node) is cst.Yield for node in own_nodes(fn))


def _exit_registration(analysis, call) -> bool:
    """`atexit.register(f, *args, **kwargs)` (exit_registrars, qualified through the imports) as a statement
    of its own, no argument unpacked: it checks that f is callable (a type slot, no code), stores f and
    its arguments and returns f, dropped here. They run at interpreter exit only, the same in both
    programs; a call that would run them before (`atexit._run_exitfuncs()`) is not proven read-only."""
    return (
        isinstance(call, cst.Call)
        and isinstance(analysis.parent(call), cst.Expr)
        and dotted(call.func) is not None
        and _function_name(analysis, call) in analysis.tables.exit_registrars
        and bool(call.args)
        and not any(arg.star for arg in call.args)
    )


def _immutable_attribute(analysis, name: str) -> bool:
    """Round 13: every `<obj>.<name>` of the file is an assignment of a builtin immutable value (a literal,
    an f-string, ... _immutable_value; an exact str of str_result_functions) or a read, no class of the
    file defines `<name>` or an attribute hook, nothing reaches it by a string (_attribute_only)."""
    cache = analysis.derived.setdefault("cast_motion.immutable_attrs", {})
    if name not in cache:
        cache[name] = False  # a cycle proves nothing
        cache[name] = _attribute_only(
            analysis,
            name,
            lambda a, v: _immutable_value(a, v, 1) or _str_result(a, v),
            _not_stored,
        )
    return cache[name]


def _str_result(analysis, value) -> bool:
    """`json.dumps(obj)` (str_result_functions, qualified), no `cls=` and no argument unpacked: the encoder
    always answers an exact str (what it runs on obj is judged where it is called)."""
    return (
        isinstance(value, cst.Call)
        and dotted(value.func) is not None
        and _function_name(analysis, value) in analysis.tables.str_result_functions
        and not any(arg.star for arg in value.args)
        and not any(arg.keyword is not None and arg.keyword.value == "cls" for arg in value.args)
    )


def _dtype_getter_call(analysis, expr) -> bool:
    """Round 13: `get_kv_compute_dtype()`, no argument, of a name bound once, to a module-level def of no
    parameter whose body (a docstring aside) is one `return torch.<dtype>` and whose decorator, if any, is
    one cached_decorators cache (constant arguments): every call answers that dtype, cached or not, cleared
    or not (`cache_clear()` recomputes the same constant), and runs no code of the file. A getter reading
    configuration, taking an argument, rebound or decorated otherwise proves nothing."""
    if not (isinstance(expr, cst.Call) and not expr.args and isinstance(expr.func, cst.Name)):
        return False
    scope = analysis.scopes.get(expr.func)
    try:
        assignments = list(scope[expr.func.value]) if scope is not None else []
    except Exception:  # noqa: BLE001
        return False
    if len(assignments) != 1:
        return False
    fn = getattr(assignments[0], "node", None)
    if not isinstance(fn, cst.FunctionDef) or not isinstance(analysis.parent(fn), cst.Module) or fn.asynchronous:
        return False
    params = fn.params
    if params.params or params.posonly_params or params.kwonly_params or params.star_kwarg:
        return False
    if not isinstance(params.star_arg, cst.MaybeSentinel) and params.star_arg is not None:
        return False
    if len(fn.decorators) > 1:
        return False
    if fn.decorators:
        decorator = fn.decorators[0].decorator
        if _qualified(analysis, decorator) not in analysis.tables.cached_decorators:
            return False
        if isinstance(decorator, cst.Call) and not all(_constant(arg.value) and not arg.star for arg in decorator.args):
            return False
    body = list(fn.body.body) if isinstance(fn.body, cst.IndentedBlock) else [fn.body]
    lines = [small for statement in body for small in getattr(statement, "body", [statement])]
    if lines and isinstance(lines[0], cst.Expr) and isinstance(lines[0].value, cst.SimpleString):
        lines = lines[1:]  # the docstring
    if len(lines) != 1 or not isinstance(lines[0], cst.Return) or lines[0].value is None:
        return False
    value = lines[0].value
    text = dotted(value)
    return (
        text is not None
        and text.startswith("torch.")
        and _import_bound(analysis, value)
        and text.split(".", 1)[1] in analysis.tables.torch_dtypes
    )


def _literal_format_effect(analysis, call: cst.Call) -> str | None:
    """Round 13: `"layer {0.layer_id}: bs {1.batch_size}".format(layer, fb)` - literal_format_methods of a
    str literal - runs what the equivalent f-string runs: per replacement field (nested ones in a format
    spec too), the attribute reads and indexings its name spells on its argument, then the value's
    `__format__` (its conversion's `__str__`/`__repr__`); no other code. Why that may write (a property
    under a spelled name, an implicit member of the file not proven read-only where the formatted value
    is not proven builtin), None when proven harmless, "" when call is not such a call."""
    func = call.func
    if not (
        isinstance(func, cst.Attribute)
        and func.attr.value in analysis.tables.literal_format_methods
        and isinstance(func.value, (cst.SimpleString, cst.ConcatenatedString))
    ):
        return ""
    text = func.value.evaluated_value
    if not isinstance(text, str):
        return ""  # bytes have no `format`
    if any(arg.star for arg in call.args):
        return "unpacks arguments into `str.format`"
    positional = [arg.value for arg in call.args if arg.keyword is None]
    keywords = {arg.keyword.value: arg.value for arg in call.args if arg.keyword is not None}
    fields: list = []
    try:
        _format_fields(text, fields, 0)
    except (ValueError, IndexError):
        return "formats a string whose fields the proof cannot parse"
    auto = 0
    for first, rest in fields:
        if first == "":
            first, auto = auto, auto + 1
        value = positional[first] if isinstance(first, int) and first < len(positional) else keywords.get(first)
        if value is None:
            return f"formats a field (`{first}`) that names no argument given"
        for is_attribute, key in rest:
            if is_attribute and is_property(analysis, key):
                return (
                    f"reads `{key}` by a format field, a property of a class of this file whose getter is not "
                    "proven read-only"
                )
        if rest:
            hit = _effectful_hit(analysis, analysis.tables.protocols.get("attribute", ()))
            hit = hit or _effectful_hit(analysis, analysis.tables.protocols.get("subscript", ()))
            hit = hit or _effectful_hit(analysis, analysis.tables.protocols.get("format", ()))
            if hit is not None:
                return f"{_defined_here(analysis, hit)} (on a format field of `{_code(analysis, value, 30)}`)"
        else:
            why = _protocol(analysis, "format", [value])
            if why is not None:
                return why
    return None


def _format_fields(text: str, fields: list, depth: int) -> None:
    """The (argument, [(is_attribute, key)...]) of each replacement field of a format string, nested
    fields of format specs included (`string.Formatter` parses as `str.format` does)."""
    import _string
    import string

    if depth > 2:
        raise ValueError("format spec nested too deep")
    for _, name, spec, _ in string.Formatter().parse(text):
        if name is None:
            continue
        first, rest = _string.formatter_field_name_split(name)
        fields.append((first, list(rest)))
        if spec and "{" in spec:
            _format_fields(spec, fields, depth + 1)


def _group_of(analysis, name: cst.Name) -> bool:
    """Round 13: is every value reaching this read of a local the group of a `for key, group in
    itertools.groupby(...)` (group_iterators, positional second target)? Iterating a group advances the
    groupby's own iterator - its argument proven where the groupby is called ([[cast_motion.callbacks]]
    iterates) - and compares keys (its `key=` and the items' `__eq__`, judged there too)."""
    scope = analysis.scopes.get(name)
    if scope is None or not isinstance(scope, (FunctionScope, ComprehensionScope)):
        return False
    reaching = [a for a in analysis.reaching(name) if hasattr(a, "node")]
    if not reaching:
        return False
    for assignment in reaching:
        node = assignment.node
        if not isinstance(node, cst.Name):
            return False
        kind, value, path = analysis.binding(node)
        if kind != "for" or tuple(path) != (1,):
            return False
        if not (
            isinstance(value, cst.Call)
            and not _is_method(analysis, value.func)
            and _function_name(analysis, value) in analysis.tables.group_iterators
        ):
            return False
        target = analysis.parent(analysis.parent(node))
        if not (isinstance(target, cst.Tuple) and len(target.elements) == 2):
            return False
    return True


# -- round 14: autocast scopes ----------------------------------------------------------------------
#
# rules/casts.toml [cast_motion] "round 14" holds the facts; docs/fix.md, "Round 14", the rule.

_AUTOCAST_PARAMS = ("device_type", "dtype", "enabled", "cache_enabled")


def _torch_dtype(analysis, expr, allowed=None) -> bool:
    """`torch.<dtype>` (dtype_spelling torch_dtypes, or the names allowed), torch as imported."""
    text = dotted(expr)
    return (
        isinstance(expr, cst.Attribute)
        and text is not None
        and text.startswith("torch.")
        and text.count(".") == 1
        and _import_bound(analysis, expr)
        and text.split(".", 1)[1] in (analysis.tables.torch_dtypes if allowed is None else allowed)
    )


def _autocast_call(analysis, call) -> bool:
    """Round 14: `torch.autocast("cpu", dtype=torch.float16)` (autocast_managers, qualified): a literal
    device_type of autocast_devices, a dtype (if given) `torch.<name>` of autocast_dtypes, the flags
    constants, nothing unpacked: its construction runs no code of the file and warns nothing (no warnings
    hook can run), entering and leaving switch torch's thread-local autocast state only."""
    if not isinstance(call, cst.Call) or _qualified(analysis, call.func) not in analysis.tables.autocast_managers:
        return False
    given = {}
    for position, arg in enumerate(call.args):
        if arg.star:
            return False
        key = arg.keyword.value if arg.keyword is not None else None
        if key is None:
            if position >= len(_AUTOCAST_PARAMS):
                return False
            key = _AUTOCAST_PARAMS[position]
        if key not in _AUTOCAST_PARAMS or key in given:
            return False
        given[key] = arg.value
    device = given.get("device_type")
    if not isinstance(device, cst.SimpleString) or device.evaluated_value not in analysis.tables.autocast_devices:
        return False
    if "dtype" in given and not _torch_dtype(analysis, given["dtype"], analysis.tables.autocast_dtypes):
        return False
    return all(_constant(given[k]) for k in ("enabled", "cache_enabled") if k in given)


def _autocast_entered(analysis, call, assign, uses, body) -> str | None:
    """Round 14: a gather inside an autocast scope (a `with` of autocast_managers) that does not hold the
    cast: the moved cast would run inside the scope. Proven only where every argument of the cast is a
    constant or a `torch.<dtype>` (nothing that reads the autocast state, `torch.get_autocast_dtype()`); the
    cast itself and indexing are no autocast ops."""
    constant = all(not arg.star and (_constant(arg.value) or _torch_dtype(analysis, arg.value)) for arg in call.args)
    for use in uses:
        for anc in analysis.ancestors(use):
            if anc is body or isinstance(anc, _SCOPES):
                break
            if (
                isinstance(anc, cst.With)
                and not _contains(analysis, anc, assign)
                and any(
                    _qualified(analysis, item.item.func) in analysis.tables.autocast_managers
                    for item in anc.items
                    if isinstance(item.item, cst.Call)
                )
                and not constant
            ):
                return (
                    f"the gather on line {_line(analysis, use)} runs inside the autocast scope of line "
                    f"{_line(analysis, anc)}, which the cast does not: the moved cast's arguments "
                    f"(`{_code(analysis, call, 40)}`) are not all constants or `torch.<dtype>` and may read the "
                    "autocast state"
                )
    return None


# -- round 14: a builtin immutable value stored into an attribute of a plain instance ---------------


def _plain_self_store(analysis, node, leaf: cst.Attribute, moved: _Moved) -> bool:
    """Round 14: `self.<name> = v` / `self.<name> += v` (v a builtin immutable value, _immutable_value) in a
    plain method (no decorator, `self` its first parameter and never rebound) of a module-level class of
    the file with no base, keyword or decorator: the store runs object's own `__setattr__` (no class of the
    file defines `<name>` or an attribute hook, nothing reaches it by a string: _attribute_only) and drops
    an old builtin immutable value (every assignment of `<name>` in the file is one). Every read of
    `<name>` is in this method, so no accessor or property the moved cast runs reads it, and `<name>` is no
    part of a moved chain."""
    name = leaf.attr.value
    target = leaf.value
    if _is_dunder(name) or not isinstance(target, cst.Name):
        return False
    if any(name in chain.split(".")[1:] for chain in moved.chains | moved.owners):
        return False
    # round 15: where nothing of the file may run when an object is dropped (_module_finalizers: no
    # finalizer dunder, finalizer registration or cleaning generator), a plain `=` may store any value - the
    # store is object's own `__setattr__`, the old value dropped runs no code of the file; `op=` keeps
    # round 14's rule (it calls the old value's in-place dunder, so every value must be builtin immutable)
    any_value = isinstance(node, cst.Assign) and _module_finalizers(analysis) is None
    if isinstance(node, cst.AugAssign):
        if node.target is not leaf or not _immutable_value(analysis, node.value, 1):
            return False
    elif isinstance(node, cst.Assign):
        if (
            len(node.targets) != 1
            or node.targets[0].target is not leaf
            or not (any_value or _immutable_value(analysis, node.value, 1))
        ):
            return False
    else:
        return False
    fn = _own_function(analysis, leaf)
    if not isinstance(fn, cst.FunctionDef) or fn.decorators or fn.asynchronous is not None:
        return False
    params = fn.params.posonly_params or fn.params.params
    if not params or params[0].name.value != target.value:
        return False
    block = analysis.parent(fn)
    cls = analysis.parent(block) if isinstance(block, cst.IndentedBlock) else None
    if not isinstance(cls, cst.ClassDef) or cls.bases or cls.keywords or cls.decorators:
        return False
    if not isinstance(analysis.parent(cls), cst.Module):
        return False
    scope = analysis.scopes.get(target)
    if scope is None or len([a for a in scope.assignments[target.value] if hasattr(a, "node")]) != 1:
        return False  # `self` rebound in the method

    def read_here(a, occ) -> bool:
        parent = a.parent(occ)
        if isinstance(parent, cst.AugAssign) and parent.target is occ:
            # an `op=` runs the old value's in-place dunder: only where every value is builtin immutable
            return not any_value and _own_function(a, occ) is fn and _immutable_value(a, parent.value, 1)
        return _own_function(a, occ) is fn and _not_stored(a, occ)

    return _attribute_only(analysis, name, lambda a, v: any_value or _immutable_value(a, v, 1), read_here)
