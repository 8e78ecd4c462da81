"""Whole-pool casts that only a paged attention kernel reads: what the paged-read fix may rewrite.

`kv = pool.to(q.dtype)` whose every reader is a kernel of rules/paged_kernels.toml
(FA3/FA4's flash_attn_with_kvcache, xpu's flash_mla_decode), reached through views
that keep the pool's rows (`kv[:, :, 512:]`) and a page view (`paged_view(x, P)`,
`x.view(-1, P, ...)`). Such a kernel reads request b's pages
`page_table[b, :ceil(seqlens[b] / P)]` and nothing else, so converting only those
pages, into a buffer the page table is remapped to, gives it the same values.

`paged_read(analysis, call)` proves it or says why not:
- every value of `kv` is accounted for: a reader that is not a view or one of these
  kernels refuses the site;
- the kernels that read through another page table or other lengths (cascade, CP
  closures) must each sit under a condition evaluable at the cast: the rewrite keeps
  the cast whenever that condition holds (`fallback=`);
- the page table, lengths and page size are evaluated at the cast instead of at the
  kernel: their names must not be rebound in between, and a call in between that
  rules/casts.toml [cast_motion] does not prove read-only makes the fix unsafe - as does
  anything else that may write them (an attribute or index store, `with`, `del`, `await`/
  `yield`: castlint.analysis.cast_motion.unproven_effect), in the code after the cast, in the
  kernel call's own arguments, and anywhere in a loop that repeats the kernel without the cast.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple

import libcst as cst

from castlint.analysis.cast_motion import is_property, is_read_only, nodes_between, proven_on_a_copy, unproven_effect
from castlint.analysis.tree import iter_nodes

CODEMOD = "paged-kv-read"  # Fix.codemod of the findings this fix rewrites


class NotPaged(Exception):
    """The cast reaches a paged kernel, but the rewrite cannot be proven; says why."""

    def __init__(self, line: int, why: str):
        super().__init__(why)
        self.line, self.why = line, why


@dataclass
class PagedRead:
    """One rewritable cast: what the fix writes in its place, and the kernel arguments it redirects."""

    cast: cst.Call
    statement: cst.SimpleStatementLine
    variable: str
    pool: cst.BaseExpression
    dtype: cst.BaseExpression
    page_table: cst.BaseExpression
    seqlens: cst.BaseExpression
    page_size: cst.BaseExpression
    redirect: List[cst.Arg] = field(default_factory=list)  # the page_table arguments to point at the remap
    fallbacks: List[str] = field(default_factory=list)  # conditions (source) under which the cast is kept
    kept: List[Tuple[int, str]] = field(default_factory=list)  # (line, which path keeps the cast, and why)
    unsafe: Optional[str] = None  # why the proof is incomplete (the fix is then unsafe)


@dataclass
class _Reader:
    call: cst.Call
    row: dict
    page_size: cst.BaseExpression
    table_arg: cst.Arg
    seqlens_arg: cst.Arg
    conditions: List[Tuple[cst.BaseExpression, bool]]
    nested: bool  # inside a function defined in the site's function


def call_argument(call: cst.Call, keyword: str, position: int) -> Optional[cst.Arg]:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == keyword:
            return arg
    positional = [a for a in call.args if a.keyword is None and not a.star]
    return positional[position] if position < len(positional) else None


def _is_none(expr: cst.BaseExpression) -> bool:
    return isinstance(expr, cst.Name) and expr.value == "None"


def last_name(func: cst.BaseExpression) -> Optional[str]:
    if isinstance(func, cst.Name):
        return func.value
    if isinstance(func, cst.Attribute):
        return func.attr.value
    return None


def _full_slice(element: cst.SubscriptElement) -> bool:
    s = element.slice
    return isinstance(s, cst.Slice) and s.lower is None and s.upper is None and s.step is None


def _keeps_rows(elements) -> bool:
    """Does this subscript keep dim 0 whole: `x[:, ...]`, or `x[..., a:b]` (the ellipsis
    covers dim 0 when something follows it)?"""
    if not elements:
        return False
    first = elements[0].slice
    if isinstance(first, cst.Index) and isinstance(first.value, cst.Ellipsis):
        return len(elements) > 1
    return _full_slice(elements[0])


def _not_dim_zero(expr: Optional[cst.BaseExpression]) -> bool:
    return expr is not None and (
        isinstance(expr, cst.Integer)
        and expr.value != "0"
        or (isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus))
    )


def _kernel_row(tables, call: cst.Call, analysis=None) -> Optional[dict]:
    """The [[paged_kernel]] row of this call: by its name, or by the name it was imported as."""
    names = {last_name(call.func)}
    if analysis is not None and isinstance(call.func, cst.Name):
        qualified = analysis.call_name(call) or ""
        names.add(qualified.rsplit(".", 1)[-1])
    return next((row for row in tables.paged_kernels if row["function"] in names), None)


def reaches_paged_kernel(analysis, call: cst.Call) -> bool:
    """Is the function of this cast one that calls a paged kernel? (cheap: the fix applies at all)"""
    function = analysis.enclosing_function(call)
    if function is None or not analysis.tables.paged_kernels:
        return False
    return any(_kernel_row(analysis.tables, c, analysis) is not None for c in iter_nodes(function, cst.Call))


class _Site:
    def __init__(self, analysis, call: cst.Call):
        self.analysis = analysis
        self.tables = analysis.tables
        self.call = call
        self.function = analysis.enclosing_function(call)
        self.readers: List[_Reader] = []
        self.ranks: Dict[int, int] = {}  # id(page size expr) -> rank of the view it came from

    def line(self, node) -> int:
        return self.analysis.position(node).start.line

    def refuse(self, node, why: str):
        raise NotPaged(self.line(node), why)

    # -- the cast ------------------------------------------------------------
    def statement(self) -> Tuple[cst.SimpleStatementLine, str, cst.BaseExpression]:
        analysis, call = self.analysis, self.call
        assign = analysis.parent(call)
        statement = analysis.parent(assign) if assign is not None else None
        if not (
            isinstance(assign, cst.Assign)
            and len(assign.targets) == 1
            and isinstance(assign.targets[0].target, cst.Name)
            and isinstance(statement, cst.SimpleStatementLine)
            and len(statement.body) == 1
        ):
            self.refuse(call, "the cast is not assigned to one name on its own line")
        if len(analysis.cast_chain(call)) != 1 or not isinstance(call.func, cst.Attribute):
            self.refuse(call, "a chain of casts")
        dtype = self.dtype_of(call)
        return statement, assign.targets[0].target.value, dtype

    def dtype_of(self, call: cst.Call) -> cst.BaseExpression:
        method = call.func.attr.value
        flags = self.tables.cast_flags
        args = [a for a in call.args if not (a.keyword is not None and a.keyword.value in flags)]
        if method == "to" and len(args) == 1 and (args[0].keyword is None or args[0].keyword.value == "dtype"):
            return args[0].value
        spelling = self.tables.casts.get(method)
        target = getattr(spelling, "target", None)
        if spelling is not None and spelling.form == "no-args" and not call.args and target:
            return cst.parse_expression(target if "." in target else f"torch.{target}")
        self.refuse(call, f"the cast `.{method}(...)` names its dtype in a form the fix does not rewrite")

    # -- following the converted value -----------------------------------------
    def follow(self, variable: str, binding: cst.CSTNode) -> None:
        work = [(variable, binding, None)]
        while work:
            name, bound, page_size = work.pop()
            for use in self.uses(name, bound):
                work += self.consume(use, page_size)

    def binds(self, node: cst.Name, augmented: bool = True) -> bool:
        """Is this Name bound here (an assignment, for or comprehension target, walrus, `as`
        name, and with `augmented` an augmented assignment, which also reads it)?"""
        parent = self.analysis.parent(node)
        if isinstance(parent, cst.AugAssign) and parent.target is node:
            return augmented
        if isinstance(parent, cst.AsName) and parent.name is node:
            return True
        return self.analysis.binding(node)[0] is not None

    def uses(self, name: str, bound: cst.CSTNode) -> List[cst.Name]:
        """The reads of `name` that its binding at `bound` reaches; a read that another
        binding may also reach refuses the site."""
        uses = []
        for n in iter_nodes(self.function, cst.Name):
            parent = self.analysis.parent(n)
            if (
                n.value != name
                or n is bound
                or (isinstance(parent, cst.Attribute) and parent.attr is n)
                or (isinstance(parent, cst.Arg) and parent.keyword is n)
                or isinstance(parent, cst.Param)
                or self.binds(n, augmented=False)
            ):
                continue
            reaching = [a.node for a in self.analysis.reaching(n)]
            if not any(r is bound for r in reaching):
                continue
            if len(reaching) > 1:
                self.refuse(n, f"`{name}` at line {self.line(n)} may also hold another value")
            uses.append(n)
        return uses

    def consume(self, node: cst.BaseExpression, page_size) -> List[tuple]:
        """What reads `node` (the converted cache or a view of it): more names to follow."""
        analysis = self.analysis
        parent = analysis.parent(node)
        if isinstance(parent, cst.Subscript) and parent.value is node:
            if not _keeps_rows(parent.slice):
                self.refuse(parent, f"`{analysis.code(parent)}` selects rows of the converted cache")
            return self.consume(parent, page_size)
        if isinstance(parent, cst.Attribute) and parent.value is node:
            call = analysis.parent(parent)
            views = self.tables.page_views
            method = parent.attr.value
            if isinstance(call, cst.Call) and call.func is parent:
                args = [a for a in call.args if a.keyword is None and not a.star]
                if (
                    method in views.get("methods", ())
                    and page_size is None
                    and len(args) >= 2
                    and len(args) == len(call.args)
                    and not any(a.value is None for a in args)
                ):
                    self.ranks[id(args[1].value)] = len(args)
                    return self.consume(call, args[1].value)
                if (
                    method == views.get("unflatten")
                    and page_size is None
                    and len(args) == 2
                    and isinstance(args[0].value, cst.Integer)
                    and args[0].value.value == "0"
                    and isinstance(args[1].value, (cst.Tuple, cst.List))
                    and len(args[1].value.elements) == 2
                ):
                    return self.consume(call, args[1].value.elements[1].value)
                for name, keyword, position in views.get("row_keeping", ()):
                    dim = call_argument(call, keyword, position)
                    if method == name and dim is not None and _not_dim_zero(dim.value):
                        return self.split_parts(call, page_size) if name == "split" else self.consume(call, page_size)
            if method in views.get("metadata", ()):
                return []  # the buffer the fix hands over has the cast's shape, dtype, device and strides
            self.refuse(
                parent,
                f"`{analysis.code(parent)}` reads the converted cache, and the fix can only pass it to a paged kernel",
            )
        if isinstance(parent, cst.Arg):
            call = analysis.parent(parent)
            if isinstance(call, cst.Call) and parent in call.args:
                return self.argument(node, parent, call, page_size)
        if (
            isinstance(parent, cst.Assign)
            and parent.value is node
            and len(parent.targets) == 1
            and isinstance(parent.targets[0].target, cst.Name)
        ):
            return [(parent.targets[0].target.value, parent.targets[0].target, page_size)]
        where = parent if parent is not None else node
        self.refuse(
            where,
            f"`{analysis.code(where)[:60]}` reads the converted cache, and the fix can only pass it to a paged kernel",
        )

    def split_parts(self, call: cst.Call, page_size) -> List[tuple]:
        """`a, b = x.split(sizes, dim=-1)`: each part keeps the rows; follow each name."""
        parent = self.analysis.parent(call)
        if (
            isinstance(parent, cst.Assign)
            and parent.value is call
            and len(parent.targets) == 1
            and isinstance(parent.targets[0].target, (cst.Tuple, cst.List))
        ):
            names = [e.value for e in parent.targets[0].target.elements]
            if all(isinstance(n, cst.Name) for n in names):
                return [(n.value, n, page_size) for n in names]
        self.refuse(
            call, f"`{self.analysis.code(call)[:60]}`: the parts of a split are followed only when unpacked into names"
        )

    def argument(self, node, arg: cst.Arg, call: cst.Call, page_size) -> List[tuple]:
        name = last_name(call.func)
        position = call.args.index(arg)
        for function, page_arg in self.tables.page_views.get("functions", ()):
            if name == function and position == 0 and arg.keyword is None and page_size is None:
                size = call_argument(call, "page_size", page_arg)
                if size is None:
                    self.refuse(call, f"`{name}(...)` without its page size")
                return self.consume(call, size.value)
        row = _kernel_row(self.tables, call, self.analysis)
        if row is not None and any(call_argument(call, k, p) is arg for k, p in row["caches"]):
            self.reader(call, row, page_size)
            return []
        self.refuse(
            call,
            f"`{self.analysis.code(call)[:60]}` receives the converted cache, and the fix can only "
            "pass it to a paged kernel",
        )

    def reader(self, call: cst.Call, row: dict, page_size) -> None:
        if any(r.call is call for r in self.readers):
            return
        if page_size is None:
            self.refuse(call, f"`{row['function']}` gets the converted cache without a page view")
        rank = self.ranks.get(id(page_size))
        if rank and row.get("cache_rank") and rank != row["cache_rank"]:
            self.refuse(
                call,
                f"`{row['function']}` takes a rank-{row['cache_rank']} paged cache, and the view that "
                f"reaches it has rank {rank}",
            )
        for keyword, position in row["writes"]:
            arg = call_argument(call, keyword, position)
            if arg is not None and not _is_none(arg.value):
                self.refuse(call, f"`{row['function']}(..., {keyword}=...)` writes new K/V into the cache")
        for keyword, position in row["refuse"]:
            arg = call_argument(call, keyword, position)
            if arg is not None and not _is_none(arg.value):
                self.refuse(call, f"`{row['function']}(..., {keyword}=...)` reads the cache by another index")
        table, seqlens = call_argument(call, *row["page_table"]), call_argument(call, *row["seqlens"])
        if table is None or seqlens is None or _is_none(table.value) or _is_none(seqlens.value):
            self.refuse(call, f"`{row['function']}` without its page table and sequence lengths")
        nested = any(
            isinstance(a, (cst.FunctionDef, cst.Lambda)) and a is not self.function
            for a in self._ancestors_to_function(call)
        )
        self.readers.append(_Reader(call, row, page_size, table, seqlens, self.conditions(call), nested))

    def _ancestors_to_function(self, node):
        for anc in self.analysis.ancestors(node):
            if anc is self.function:
                return
            yield anc

    def conditions(self, node) -> List[Tuple[cst.BaseExpression, bool]]:
        """(test, branch) of each `if` between the site's function and node, outermost first,
        except those that also hold the cast."""
        out = []
        child = node
        cast_ancestors = {id(a) for a in self.analysis.ancestors(self.call)}
        for anc in self._ancestors_to_function(node):
            if isinstance(anc, cst.If) and id(anc) not in cast_ancestors:
                if child is anc.body:
                    out.append((anc.test, True))
                elif child is anc.orelse:
                    out.append((anc.test, False))
            child = anc
        return list(reversed(out))

    # -- evaluating at the cast ---------------------------------------------------
    def evaluable(self, expr: cst.BaseExpression, statement) -> Optional[str]:
        """None when expr means the same at the cast as where it is read; else why not."""
        start = self.analysis.position(statement).start
        later = self.bound_after(start)
        for name in self.free_names(expr):
            if name in later:
                return f"`{name}` is bound at line {later[name]}, after the cast"
            if name in self.nested_params:
                return f"`{name}` is a parameter of a nested function"
        for call in iter_nodes(expr, cst.Call):
            if not is_read_only(self.analysis, call):
                return f"`{self.analysis.code(call)[:40]}` is not proven read-only"
        for node in iter_nodes(expr, cst.Attribute):
            if is_property(self.analysis, node.attr.value):
                return f"`{self.analysis.code(node)[:40]}` is a property (its getter is a call)"
        return None

    def free_names(self, expr) -> List[str]:
        names = []
        for node in iter_nodes(expr, cst.Name):
            parent = self.analysis.parent(node)
            if isinstance(parent, cst.Attribute) and parent.attr is node:
                continue
            if isinstance(parent, cst.Arg) and parent.keyword is node:
                continue
            names.append(node.value)
        return names

    @property
    def nested_params(self) -> set:
        params = set()
        for node in iter_nodes(self.function, (cst.FunctionDef, cst.Lambda)):
            if node is not self.function:
                params |= {p.name.value for p in iter_nodes(node.params, cst.Param)}
        return params

    def bound_after(self, start) -> Dict[str, int]:
        bound: Dict[str, int] = {}
        for node in iter_nodes(self.function, cst.Name):
            if not self.binds(node):
                continue
            pos = self.analysis.position(node).start
            if (pos.line, pos.column) > (start.line, start.column):
                bound.setdefault(node.value, pos.line)
        return bound

    def unproven_between(self, statement, reader: _Reader) -> Optional[str]:
        """The first thing that runs between the cast and the reader's read of its page table and
        may write the table, the lengths or the page size (the fix reads them at the cast): a call
        not proven read-only, an attribute or index store, `with`, `del`, `await`/`yield`...
        (castlint.analysis.cast_motion.unproven_effect). In between: the code after the cast, the
        kernel call's own arguments (evaluated before it reads them), and the whole of a loop that
        repeats the kernel without the cast."""
        analysis = self.analysis
        at = analysis.position
        start = (at(statement).end.line, at(statement).end.column)
        end = (at(reader.call).start.line, at(reader.call).start.column)
        spans = [(start, end), ((end[0], end[1] + 1), (at(reader.call).end.line, at(reader.call).end.column))]
        for loop in analysis.ancestors(reader.call):
            if loop is self.function:
                break
            if isinstance(loop, (cst.For, cst.While)) and not any(a is loop for a in analysis.ancestors(statement)):
                spans.append(((at(loop).start.line, at(loop).start.column), (at(loop).end.line, at(loop).end.column)))
        for low, high in spans:
            for node in nodes_between(analysis, self.function, low, high):
                if node is reader.call or (
                    isinstance(node, cst.Call)
                    and (_kernel_row(self.tables, node, analysis) is not None or self.is_page_view(node))
                ):
                    continue
                if self.not_on_the_way(node, reader.call):
                    continue
                why = unproven_effect(analysis, node)
                if why is not None:
                    return (
                        f"line {at(node).start.line} {why} between the cast and `{reader.row['function']}` "
                        f"(line {at(reader.call).start.line}), and is not proven read-only: it may change the "
                        "page table, lengths or page size that the fix reads at the cast"
                    )
        proven_on_a_copy(analysis)
        return None

    def not_on_the_way(self, call: cst.Call, reader: cst.Call) -> bool:
        """Does `call` never run between the cast and the reader: in a function it only
        defines, or in the other branch of an `if` that holds the reader?"""
        reader_ancestors = {id(a) for a in self.analysis.ancestors(reader)}
        child = call
        for anc in self._ancestors_to_function(call):
            if isinstance(anc, (cst.FunctionDef, cst.Lambda)) and id(anc) not in reader_ancestors:
                return True
            if isinstance(anc, cst.If) and id(anc) in reader_ancestors:
                side = child is anc.body
                reader_side = any(a is anc.body for a in self.analysis.ancestors(reader))
                if side != reader_side:
                    return True
            child = anc
        return False

    def is_page_view(self, call: cst.Call) -> bool:
        name = last_name(call.func)
        views = self.tables.page_views
        methods = {*views.get("methods", ()), views.get("unflatten"), *(m for m, _, _ in views.get("row_keeping", ()))}
        return any(name == function for function, _ in views.get("functions", ())) or (
            isinstance(call.func, cst.Attribute) and name in methods
        )

    # -- the verdict ----------------------------------------------------------
    def verdict(self) -> Optional[PagedRead]:
        if self.function is None or not reaches_paged_kernel(self.analysis, self.call):
            return None
        statement, variable, dtype = self.statement()
        self.follow(variable, statement.body[0].targets[0].target)
        if not self.readers:
            return None
        code = self.analysis.code

        def key(r: _Reader):
            return tuple("".join(code(e).split()) for e in (r.table_arg.value, r.seqlens_arg.value, r.page_size))

        groups: Dict[tuple, List[_Reader]] = {}
        for r in self.readers:
            groups.setdefault(key(r), []).append(r)
        usable = [
            g
            for g in groups.values()
            if not any(
                self.evaluable(e, statement) for e in (g[0].table_arg.value, g[0].seqlens_arg.value, g[0].page_size)
            )
        ]
        if not usable:
            r = self.readers[0]
            why = next(
                w
                for w in (self.evaluable(e, statement) for e in (r.table_arg.value, r.seqlens_arg.value, r.page_size))
                if w
            )
            self.refuse(
                r.call,
                f"the page table, lengths and page size of `{r.row['function']}` cannot be read at the cast: {why}",
            )
        primary = min(usable, key=lambda g: (min(len(r.conditions) for r in g), self.line(g[0].call)))
        site = PagedRead(
            self.call,
            statement,
            variable,
            self.call.func.value,
            dtype,
            primary[0].table_arg.value,
            primary[0].seqlens_arg.value,
            primary[0].page_size,
        )
        for group in groups.values():
            if group is primary:
                continue
            shared = {(id(t), b) for p in primary for t, b in p.conditions}
            for r in group:
                condition = next(
                    (
                        (t, b)
                        for t, b in reversed(r.conditions)
                        if (id(t), b) not in shared and self.evaluable(t, statement) is None
                    ),
                    None,
                )
                if condition is None:
                    self.refuse(
                        r.call,
                        f"`{r.row['function']}` at line {self.line(r.call)} reads the cache through "
                        "another page table or other lengths, under no condition the fix can test at "
                        "the cast",
                    )
                test, branch = condition
                text = (
                    code(test)
                    if branch
                    else f"not ({code(test)})"
                    if not isinstance(test, cst.Name)
                    else f"not {code(test)}"
                )
                if text not in site.fallbacks:
                    site.fallbacks.append(text)
                if site.unsafe is None and any(
                    isinstance(n, (cst.Attribute, cst.Call, cst.Subscript))
                    for n in iter_nodes(test, (cst.Attribute, cst.Call, cst.Subscript))
                ):
                    # the test is read again at the kernel: nothing in between may change what it reads
                    why = self.unproven_between(statement, r)
                    site.unsafe = None if why is None else f"{why}, before `{text}` is read again"
                site.kept.append(
                    (
                        self.line(r.call),
                        f"keeps the whole-pool cast when `{text}`: its kernel reads "
                        "through another page table or other lengths",
                    )
                )
        for r in primary:
            site.redirect.append(r.table_arg)
            if site.unsafe is None:
                if r.nested:
                    site.unsafe = f"`{r.row['function']}` at line {self.line(r.call)} runs later, in a nested function"
                else:
                    site.unsafe = self.unproven_between(statement, r)
        return site


def paged_read(analysis, call: cst.Call) -> Optional[PagedRead]:
    """The paged-read rewrite of this whole-pool cast; None when no paged kernel reads it.

    Raises NotPaged when one does but the rewrite cannot be proven."""
    return _Site(analysis, call).verdict()


def why_not_paged(analysis, call: cst.Call) -> Tuple[Optional[PagedRead], Optional[str]]:
    """(the site, None), (None, why not), or (None, None) when the fix does not apply."""
    try:
        return paged_read(analysis, call), None
    except NotPaged as exc:
        return None, f"the paged-read fix cannot rewrite this site: {exc.why} (line {exc.line})"


def describe(site: PagedRead) -> str:
    return (
        "convert only the pages this step's page table lists, into a buffer shared by every layer, and read "
        "them through the remapped table"
        + (f"; the cast stays when {' or '.join(site.fallbacks)}" if site.fallbacks else "")
    )


__all__: Sequence[str] = (
    "CODEMOD",
    "NotPaged",
    "PagedRead",
    "call_argument",
    "describe",
    "last_name",
    "paged_read",
    "reaches_paged_kernel",
    "why_not_paged",
)
