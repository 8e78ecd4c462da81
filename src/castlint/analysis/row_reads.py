"""Backend reads of an accessor that dequantizes a whole pool, by a kernel that reads rows.

On sglang's FP4 pools `get_key_buffer` / `get_value_buffer` dequantize the layer's
whole buffer (rules/row_reads.toml [[dequantizing_accessor]]). A kernel of
[[row_kernel]] (the Triton backend's decode and extend kernels) reads the K/V
buffers only at the rows its index tensor lists, so

    kernel(..., pool.get_key_buffer(L), pool.get_value_buffer(L), ..., kv_indices, ...)

reads the same values as

    k_buffer, v_buffer, kv_rows = read_kv_rows(pool, L, kv_indices)
    kernel(..., k_buffer, v_buffer, ..., kv_rows, ...)

where read_kv_rows returns those rows dequantized alone and the indices 0..n-1
(or the accessors' buffers and kv_indices, where the pool has no rows getters).

`row_reads(analysis)` gives each such kernel call, proven or refused:
- both buffers are read by the kernel call itself, from one pool and layer;
- the call is a statement of its own (`kernel(...)`, `x = kernel(...)`, `return
  kernel(...)`): nothing in the statement decides whether it runs;
- every input is accounted for: no other argument of the kernel gets the pool, a
  buffer or the index (the fix redirects only the three), or the site is refused;
- the accessors, the pool and layer expressions and the index move before the
  statement and are evaluated once there: anything else the statement runs (a call
  not proven read-only by rules/casts.toml [cast_motion], one inside the pool or
  layer expression included, a walrus, `await`, a property read) makes the fix unsafe.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple

import libcst as cst

from castlint.analysis.cast_motion import is_read_only, unproven_effect
from castlint.analysis.paged_reads import call_argument, last_name
from castlint.analysis.tree import iter_nodes
from castlint.common.versions import parse_version, release_of

CODEMOD = "rows-read"  # Fix.codemod of the CL004 findings this fix rewrites


@dataclass
class RowRead:
    """One kernel call whose K/V come from dequantizing accessors."""

    kernel: cst.Call
    row: dict  # its [[row_kernel]] row
    accessor: dict  # the [[dequantizing_accessor]] row
    key_call: cst.Call  # pool.get_key_buffer(L), the finding's node
    statement: Optional[cst.SimpleStatementLine] = None
    pool: Optional[cst.BaseExpression] = None
    layer: Optional[cst.BaseExpression] = None
    rows_arg: Optional[cst.Arg] = None
    key_arg: Optional[cst.Arg] = None
    value_arg: Optional[cst.Arg] = None
    refused: Optional[str] = None  # why the fix cannot rewrite it
    unsafe: Optional[str] = None  # why the proof is incomplete


def accessors_for(analysis, path: str) -> List[dict]:
    """The [[dequantizing_accessor]] rows that apply to this file's tree (all of them
    when the tree's release is unknown)."""
    tables = analysis.tables
    rows = tables.dequantizing_accessors
    if not rows:
        return []
    source = tables.pin_source or {}
    version = release_of(path, source["package"], source["version_files"]) if path and source else None
    if version is None:
        return list(rows)
    have = parse_version(version)
    return [r for r in rows if not r["since"] or not have or have >= parse_version(r["since"])]


def _accessor_call(expr: cst.BaseExpression, name: str) -> Optional[cst.Call]:
    if (
        isinstance(expr, cst.Call)
        and isinstance(expr.func, cst.Attribute)
        and expr.func.attr.value == name
        and len(expr.args) == 1
        and expr.args[0].keyword is None
        and not expr.args[0].star
    ):
        return expr
    return None


def _code(analysis, node) -> str:
    return "".join(analysis.code(node).split())


def _bound_from_accessor(analysis, expr, accessor: dict) -> Optional[cst.Call]:
    """The accessor call a Name argument holds (its one reaching binding), if any."""
    if not isinstance(expr, cst.Name):
        return None
    reaching = analysis.reaching(expr)
    if len(reaching) != 1:
        return None
    kind, value, path = analysis.binding(reaching[0].node)
    if kind != "assign":
        return None
    names = (accessor["key"], accessor["value"])
    return next((c for n in names if (c := _accessor_call(value, n)) is not None), None) if not path else None


def _statement_of(analysis, call: cst.Call) -> Tuple[Optional[cst.SimpleStatementLine], Optional[str]]:
    parent = analysis.parent(call)
    statement = analysis.parent(parent) if parent is not None else None
    if (
        isinstance(parent, cst.Expr)
        or (isinstance(parent, cst.Assign) and parent.value is call)
        or (isinstance(parent, cst.Return) and parent.value is call)
    ):
        if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1:
            return statement, None
    return None, (
        "the kernel call is part of a larger expression (a condition decides whether it runs), so "
        "its buffers cannot be read before it"
    )


def _site(analysis, kernel: cst.Call, row: dict, accessor: dict) -> Optional[RowRead]:
    (k_kw, k_pos), (v_kw, v_pos) = row["caches"]
    key_arg, value_arg = call_argument(kernel, k_kw, k_pos), call_argument(kernel, v_kw, v_pos)
    if key_arg is None or value_arg is None:
        return None
    key = _accessor_call(key_arg.value, accessor["key"])
    value = _accessor_call(value_arg.value, accessor["value"])
    function = row["function"]
    if key is None or value is None:
        held = _bound_from_accessor(analysis, key_arg.value, accessor) or _bound_from_accessor(
            analysis, value_arg.value, accessor
        )
        if held is None:
            return None
        return RowRead(
            kernel,
            row,
            accessor,
            held,
            refused=(
                f"`{function}` gets the buffers through names bound at line {analysis.position(held).start.line}; "
                "the rows read rewrites a kernel call that reads the accessors itself"
            ),
        )
    site = RowRead(
        kernel, row, accessor, key, pool=key.func.value, layer=key.args[0].value, key_arg=key_arg, value_arg=value_arg
    )
    if _code(analysis, key.func.value) != _code(analysis, value.func.value) or _code(
        analysis, key.args[0].value
    ) != _code(analysis, value.args[0].value):
        site.refused = f"`{function}` reads K and V from different pools or layers"
        return site
    if any(a.star for a in kernel.args):
        site.refused = f"`{function}` gets `*args` or `**kwargs`: its index argument cannot be found"
        return site
    site.rows_arg = call_argument(kernel, *row["rows"])
    if site.rows_arg is None:
        site.refused = f"`{function}` without its `{row['rows'][0]}`"
        return site
    site.statement, site.refused = _statement_of(analysis, kernel)
    if site.refused:
        return site
    site.refused = _unaccounted(analysis, site, key, value)
    if site.refused is None:
        site.unsafe = _moved_over(analysis, site)
    return site


def _unaccounted(analysis, site: RowRead, key: cst.Call, value: cst.Call) -> Optional[str]:
    """Every input of the rewritten kernel is accounted for: the buffers and the index reach it only
    through the arguments the fix redirects. Why not, if another argument also gets one of them."""
    redirected = {id(site.key_arg), id(site.value_arg), id(site.rows_arg)}
    wanted = {
        _code(analysis, e): what
        for e, what in (
            (site.rows_arg.value, "the index"),
            (site.pool, "the pool"),
            (key, "the key buffer"),
            (value, "the value buffer"),
        )
    }
    for arg in site.kernel.args:
        if id(arg) in redirected:
            continue
        for node in iter_nodes(arg.value, (cst.Name, cst.Attribute, cst.Call)):
            what = wanted.get(_code(analysis, node))
            if what is not None:
                return (
                    f"`{site.row['function']}` also gets {what} (`{analysis.code(node)[:40]}`) through another "
                    f"argument (line {analysis.position(node).start.line}), which the fix does not redirect"
                )
    return None


def _moved_over(analysis, site: RowRead) -> Optional[str]:
    """The accessors, the pool and layer expressions and the index are evaluated once, before the
    statement: why that may change what they give or what the statement does, if it may."""
    for node in iter_nodes(site.statement, cst.CSTNode):
        if node is site.kernel:
            continue
        if isinstance(node, cst.NamedExpr):
            why = f"binds `{analysis.code(node.target)}` (`:=`)"
        elif isinstance(node, cst.Call) and not is_read_only(analysis, node):
            why = f"calls `{analysis.code(node.func)[:50]}(...)`"
        else:
            why = unproven_effect(analysis, node)
        if why is not None:
            return (
                f"line {analysis.position(node).start.line} {why} in the kernel's statement, and is not "
                "proven read-only: the fix reads the buffers and the index once, before the statement"
            )
    return None


def _kernels_here(analysis) -> set:
    """The [[row_kernel]] functions this file imports from their modules, or defines."""
    rows = analysis.tables.row_kernels
    wanted = {r["function"]: set(r["modules"]) for r in rows}
    here = {n.name.value for n in iter_nodes(analysis.module, cst.FunctionDef) if n.name.value in wanted}
    for node in iter_nodes(analysis.module, cst.ImportFrom):
        if node.relative or node.module is None or isinstance(node.names, cst.ImportStar):
            continue
        module = analysis.code(node.module).strip()
        for alias in node.names:
            name = analysis.code(alias.name).strip()
            if module in wanted.get(name, ()):
                here.add(name)
    return here


def row_reads(analysis, path: str = "") -> List[RowRead]:
    """Each row-kernel call of this file whose K/V come from a dequantizing accessor."""
    tables = analysis.tables
    names = {r["function"] for r in tables.row_kernels}
    calls = [c for c in analysis.nodes.calls if last_name(c.func) in names]
    if not calls:
        return []
    here = _kernels_here(analysis)
    if not here:
        return []
    accessors = accessors_for(analysis, path)
    if not accessors:
        return []
    sites, held = [], set()
    for call in calls:
        name = last_name(call.func)
        row = next((r for r in tables.row_kernels if r["function"] == name and name in here), None)
        if row is None:
            continue
        for accessor in accessors:
            site = _site(analysis, call, row, accessor)
            if site is not None:
                if id(site.key_call) not in held:  # names read by several kernels: one finding
                    held.add(id(site.key_call))
                    sites.append(site)
                break
    return sites


def describe(site: RowRead) -> str:
    return (
        f"read only the rows `{site.row['rows'][0]}` lists: on pools whose accessors dequantize the whole "
        f"buffer ({site.accessor['pools']}), those rows are dequantized alone into a compact buffer and "
        "the kernel reads it through indices 0..n-1"
    )


__all__: Sequence[str] = ("CODEMOD", "RowRead", "accessors_for", "describe", "row_reads")
