"""The paged-read rewrite: convert only the pages a paged attention kernel reads.

For each CL001 site that castlint.analysis.paged_reads proved (its finding's
`Fix.site` is the PagedRead), the cast

    kv_cache = pool.to(q.dtype)

becomes

    kv_cache, kv_page_table = read_kv_pages(pool, q.dtype, page_table, seqlens, page_size)

and the kernels that read `kv_cache` through that page table get `kv_page_table`.
Kernels that read it through another table keep the cast: `fallback=` holds their
conditions. `read_kv_pages` lives in the module the MLA fixes add to the tree
(castlint.fixes.kv_read_module: its conversion kernel is the FlashInfer MLA fix's),
where rules/sglang.toml [kv_read_module] says, or next to the file. `--profile
minimal` (the decode native read only) leaves these sites as they are.
"""

from __future__ import annotations

from typing import Dict, List, Tuple

import libcst as cst

from castlint.analysis.paged_reads import CODEMOD, PagedRead
from castlint.fixes.base import Codemod, CodemodResult, FixOptions, sites_to_apply
from castlint.fixes.edits import ImportingRewrite, black_call, fresh_name, one_line, statements
from castlint.fixes.kv_read_module import kv_read_module
from castlint.fixes.style import style_for

READ_FUNCTION = "read_kv_pages"  # defined by the module the fix adds
TABLE_NAME = "kv_page_table"


def _call_source(analysis, site: PagedRead, table_name: str, column: int, line_length: int) -> str:
    args = [one_line(node) for node in (site.pool, site.dtype, site.page_table, site.seqlens, site.page_size)]
    if site.fallbacks:
        args.append("fallback=" + " or ".join(site.fallbacks))
    return black_call(f"{site.variable}, {table_name}", READ_FUNCTION, args, column, line_length)


class _Rewrite(ImportingRewrite):
    def __init__(self, analysis, sites: List[PagedRead], import_line: str, import_module: str, line_length: int):
        super().__init__(import_line, import_module)
        self.analysis, self.line_length = analysis, line_length
        self.statements: Dict[int, Tuple[PagedRead, str]] = {}
        self.applied: List[str] = []
        for site in sites:
            function = analysis.enclosing_function(site.cast)
            name = fresh_name(function, TABLE_NAME)
            self.statements[id(site.statement)] = (site, name)
            for arg in site.redirect:
                self.redirect[id(arg)] = name

    def leave_SimpleStatementLine(self, original, updated):
        found = self.statements.get(id(original))
        if found is None:
            return updated
        site, name = found
        column = self.analysis.position(original).start.column
        new = statements(_call_source(self.analysis, site, name, column, self.line_length))
        line = self.analysis.position(site.cast).start.line
        self.applied.append(f"line {line}: convert only the pages the page table lists (read_kv_pages)")
        for kept_line, why in site.kept:
            self.applied.append(f"line {kept_line}: {why}")
        first = new[0].with_changes(leading_lines=original.leading_lines)
        return cst.FlattenSentinel([first, *new[1:]])


class PagedKvRead(Codemod):
    name = CODEMOD
    order = 30

    def apply(self, module: cst.Module, ctx, findings: List, options: FixOptions) -> CodemodResult:
        sites, skipped = sites_to_apply(
            findings, PagedRead, options, lambda site: ctx.analysis.position(site.cast).start.line
        )
        if not sites:
            return CodemodResult(module, skipped=skipped)
        first_line = ctx.analysis.position(sites[0].cast).start.line
        if options.profile == "minimal":
            return CodemodResult(
                module,
                skipped=[(first_line, "--profile minimal: the paged read is left out (the decode native read only)")],
            )
        added = kv_read_module(ctx.path, ctx.tables, options.profile)
        if added is None:
            return CodemodResult(module, skipped=[(first_line, "the added module would replace this file")])
        import_line = f"from {added.import_name} import {READ_FUNCTION}\n"
        style = style_for(ctx.path, ctx.tables.formatting)
        rewrite = _Rewrite(ctx.analysis, sites, import_line, added.import_name, style.line_length)
        new = module.visit(rewrite)
        result = CodemodResult(new, applied=rewrite.applied, skipped=skipped)
        result.companions = dict(added.companions)
        return result
