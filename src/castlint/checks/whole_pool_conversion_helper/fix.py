"""The rows read: a row-index kernel gets only the rows it reads of a dequantizing pool.

For each kernel call castlint.analysis.row_reads proved (its CL004 finding's
`Fix.site` is the RowRead),

    kernel(..., pool.get_key_buffer(L), pool.get_value_buffer(L), ..., kv_indices, ...)

becomes

    k_buffer, v_buffer, kv_rows = read_kv_rows(pool, L, kv_indices)
    kernel(..., k_buffer, v_buffer, ..., kv_rows, ...)

`read_kv_rows` lives in a module the fix adds to the tree (the template
templates/kv_rows_read.py beside this module, its placeholders filled from
rules/*.toml), where rules/sglang.toml [rows_read_module] says, or next to the file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Dict, List, Tuple

import libcst as cst

from castlint.analysis.row_reads import CODEMOD, RowRead
from castlint.fixes.base import Codemod, CodemodResult, FixOptions, added_module, sites_to_apply
from castlint.fixes.edits import ImportingRewrite, black_call, fill_placeholders, fresh_name, one_line, statements
from castlint.tables import Tables

TEMPLATE = Path(__file__).with_name("templates") / "kv_rows_read.py"
READ_FUNCTION = "read_kv_rows"  # defined by the template


def template_values(tables: Tables, accessor: dict) -> Dict[str, object]:
    module, share = tables.rows_read_module, tables.rows_kv_read
    return {
        "_SWITCH": (module["switch"], tuple(module["switch_values"])),
        "_KEY_GETTER": accessor["key"],
        "_VALUE_GETTER": accessor["value"],
        "_ROWS_SUFFIX": tables.rows_getter["suffix"],
        "_POOL_ROWS": module["pool_rows"],
        "_WHOLE_POOL_SHARE": float(share["whole_pool_share"]),
        "_WHOLE_POOL_SHARE_MEASURED": f"{share.get('gpu', '?')}, {share.get('measured', '?')}",
    }


def module_source(tables: Tables, accessor: dict) -> str:
    return fill_placeholders(TEMPLATE.read_text(encoding="utf-8"), template_values(tables, accessor), TEMPLATE.name)


class _Rewrite(ImportingRewrite):
    def __init__(self, analysis, sites: List[RowRead], import_line: str, import_module: str):
        super().__init__(import_line, import_module)
        self.analysis = analysis
        self.before: Dict[int, List[Tuple[RowRead, Tuple[str, str, str]]]] = {}
        self.applied: List[str] = []
        for site in sites:
            function = analysis.enclosing_function(site.kernel)
            (k_kw, _), (v_kw, _) = site.row["caches"]
            names = (fresh_name(function, k_kw), fresh_name(function, v_kw), fresh_name(function, "kv_rows"))
            self.before.setdefault(id(site.statement), []).append((site, names))
            for arg, name in zip((site.key_arg, site.value_arg, site.rows_arg), names):
                self.redirect[id(arg)] = name

    def leave_SimpleStatementLine(self, original, updated):
        found = self.before.get(id(original))
        if not found:
            return updated
        column = self.analysis.position(original).start.column
        new = []
        for site, names in found:
            args = [one_line(n) for n in (site.pool, site.layer, site.rows_arg.value)]
            new += statements(black_call(", ".join(names), READ_FUNCTION, args, column))
            line = self.analysis.position(site.kernel).start.line
            self.applied.append(f"line {line}: `{site.row['function']}` reads only the rows it reads ({READ_FUNCTION})")
        new[0] = new[0].with_changes(leading_lines=original.leading_lines)
        return cst.FlattenSentinel([*new, updated.with_changes(leading_lines=[])])


class RowsRead(Codemod):
    name = CODEMOD
    order = 50

    def apply(self, module: cst.Module, ctx, findings: List, options: FixOptions) -> CodemodResult:
        sites, skipped = sites_to_apply(
            findings, RowRead, options, lambda site: ctx.analysis.position(site.kernel).start.line
        )
        if not sites:
            return CodemodResult(module, skipped=skipped)
        added = added_module(ctx.path, ctx.tables.rows_read_module["module"])
        if added is None:
            return CodemodResult(
                module,
                skipped=[
                    (ctx.analysis.position(sites[0].kernel).start.line, "the added module would replace this file")
                ],
            )
        location, import_name = added
        rewrite = _Rewrite(ctx.analysis, sites, f"from {import_name} import {READ_FUNCTION}\n", import_name)
        result = CodemodResult(module.visit(rewrite), applied=rewrite.applied, skipped=skipped)
        result.companions = {location: module_source(ctx.tables, sites[0].accessor).encode("utf-8")}
        return result
