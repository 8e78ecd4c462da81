"""The FlashInfer MLA rewrite: read an FP8 KV pool the cheapest way for each plan.

In sglang's FlashInferMLAAttnBackend (and look-alikes) every forward casts the whole
pool to the model dtype before run(). The rewrite makes each plan() choose, on the
host and from values the plan already has, one of three reads (rules/costs_h200.toml):

- native: FlashInfer's FP8-KV kernel reads the pool as stored (decode, and small
  query counts where the measured model says it wins);
- gather: only the rows the plan reads are converted, and the BF16 kernel runs on
  that compact buffer (big prefills on big pools);
- cast: the original whole-pool cast (where neither wins, where the shape is
  unknown, and in every environment the FP8-KV kernel does not support).

The machinery is in the module the fix adds beside the backend (mla_kv_read.py,
castlint.fixes.kv_read_module); the backend changes only at its call sites:

- each plan goes through the backend's MlaKvRead, by its callee only:
  `wrapper.plan(...)` becomes `self.kv_read.call_plan(wrapper.plan, ...)` and
  `fast_mla_decode_plan(w, ...)` `self.kv_read.call_plan(fast_mla_decode_plan, w, ...)`,
  the arguments as they were (the module binds them by FlashInfer's names, from
  rules/flashinfer.toml, chooses the read and passes the KV dtype it needs);
- the cast `k = pool_read.to(dtype)` becomes `k = pool_read` and
  `k = self.kv_read.convert(wrapper, k, dtype)`;
- the run() it feeds gets `**self.kv_read.scales(wrapper)`.

The choice is kept by wrapper at plan time, and forward reads it for the wrapper it
runs, so plan and forward always agree, CUDA graphs included. The call form follows
the FlashInfer the target sglang pins, or FlashInfer 0.7's keyword form with
--flashinfer-api keyword.

A site is rewritten only when every reader of the converted value is a run() that
can take the choice; otherwise the whole file is left alone, with the reason.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

import libcst as cst
import libcst.matchers as m

from castlint.analysis import ModuleAnalysis
from castlint.analysis.context import FileContext
from castlint.analysis.mla_sites import (
    CastSite,
    PlanSite,
    RewriteRefused,
    feeds_a_run,
    is_mla_plan,
    plan_site,
    why_not_rewritable,
)
from castlint.analysis.tree import dotted
from castlint.analysis.wrappers import match_wrapper
from castlint.fixes.base import Codemod, CodemodResult, FixOptions
from castlint.fixes.edits import (
    add_import,
    append_args,
    black_call,
    clean_separator,
    fit_statement,
    keyword_arg,
    literal,
    one_line,
    star_star_arg,
    statements,
)
from castlint.fixes.kv_read_module import kv_read_module, run_scales
from castlint.fixes.style import DEFAULT, Style, style_for
from castlint.fixes.target import Target, detect_target
from castlint.mla_names import DCP_KEYWORD, MLA_CODEMOD, PLAN_METHOD, READ_ATTR, READ_CLASS
from castlint.tables import Tables


@dataclass
class MlaSites:
    """What the rewrite changes in one module: the casts, the plan() calls, and why
    some wanted sites are not taken."""

    casts: List[CastSite] = field(default_factory=list)
    plans: List[PlanSite] = field(default_factory=list)
    skipped: List[Tuple[int, str]] = field(default_factory=list)  # (line, why)


def _site_node(finding) -> cst.CSTNode:
    """The node a wanted finding's fix names: CL001's cast (in its CastSite), CL002's plan() call."""
    site = finding.fix.site
    return site.cast if isinstance(site, CastSite) else site


def find_sites(ctx: FileContext, findings: List) -> MlaSites:
    """The sites of the wanted findings (CL001: the CastSite its rule proved; CL002: the plan()
    call, in fix.site), and the plans of the file the rewrite redirects or marks.

    Raises RewriteRefused when a wanted site cannot be rewritten safely: a cast that feeds a
    run() stays (suppressed or not selected), or no plan can be redirected."""
    analysis = ctx.analysis
    proven = {id(f.fix.site.cast): f.fix.site for f in findings if isinstance(f.fix.site, CastSite)}
    wanted = {id(_site_node(f)) for f in findings}
    sites = MlaSites()
    left = []
    for call, _ in analysis.pool_casts():
        if id(call) in proven:
            sites.casts.append(proven[id(call)])
        elif feeds_a_run(ctx, call):
            left.append(call)
    if not sites.casts:
        return sites
    if left:
        # plans are shared by every forward that runs the wrapper: a cast left in place
        # would feed run() BF16 against a plan that now may declare FP8
        line = analysis.position(left[0]).start.line
        why = why_not_rewritable(ctx, left[0]) or "it is suppressed or not selected"
        raise RewriteRefused(line, f"the cast at line {line} stays ({why}), so no plan() in this file may change")
    for call in analysis.nodes.calls:
        wrapper = match_wrapper(analysis, call)
        if wrapper is None or not is_mla_plan(ctx.tables, wrapper):
            continue
        sites.plans.append(plan_site(ctx, call, wrapper, redirect=id(call) in wanted))
    if not any(site.redirect for site in sites.plans):
        raise RewriteRefused(
            analysis.position(sites.casts[0].cast).start.line,
            "no plan() of an MLA wrapper in this file declares the KV dtype in a form the fix "
            "can redirect (CL002): dropping the cast would feed run() a dtype its plan does "
            "not declare",
        )
    return sites


def is_decode_plan(site: PlanSite) -> bool:
    """A decode plan: its `causal` is the literal False."""
    return isinstance(site.causal, cst.Name) and site.causal.value == "False"


def decode_only(sites: MlaSites, tables: Tables, analysis: ModuleAnalysis) -> MlaSites:
    """The sites --profile minimal rewrites: the casts of the decode forwards (methods whose
    name holds none of rules/sglang.toml [decode_step] exclude_words) and the decode plans.
    The others are left exactly as they are: their plans keep the model dtype and their
    forwards the whole-pool cast, which is what they did (the wrappers a decode plan plans
    are the ones the decode forward runs; a mix-up cannot pass silently, since the FlashInfer
    that has the FP8-KV kernel refuses a run() whose KV dtype differs from its plan's)."""
    words = tuple(word.lower() for word in tables.decode_step_exclude_words)
    casts, plans, skipped = [], [], list(sites.skipped)
    for site in sites.casts:
        if any(word in site.function.name.value.lower() for word in words):
            line = analysis.position(site.cast).start.line
            skipped.append(
                (
                    line,
                    f"--profile minimal: {site.function.name.value} keeps the whole-pool cast (the "
                    "decode native read only)",
                )
            )
        else:
            casts.append(site)
    for site in sites.plans:
        if is_decode_plan(site):
            plans.append(site)
    if not casts or not any(site.redirect for site in plans):
        line = analysis.position((sites.casts[0]).cast).start.line
        raise RewriteRefused(
            line,
            "--profile minimal: no decode forward whose cast can go with a decode plan "
            "(plan() with causal=False) that declares the KV dtype",
        )
    return MlaSites(casts, plans, skipped)


# -- the transformer ---------------------------------------------------------------


class MlaReadRewrite(cst.CSTTransformer):
    def __init__(
        self,
        plan: MlaSites,
        analysis: ModuleAnalysis,
        tables: Tables,
        target: Target,
        keyword_api: bool,
        backend_kind: str,
        dcp_expression: Optional[str],
        import_line: str,
        import_name: str,
        minimal: bool = False,
        style: Style = DEFAULT,
    ):
        super().__init__()
        self.plan, self.analysis, self.tables = plan, analysis, tables
        self.line_length = style.line_length
        self.keyword_api = keyword_api
        self.import_line, self.import_name, self.minimal = import_line, import_name, minimal
        self.scale_keywords = run_scales(tables)
        self.keyword_row = next((row for row in tables.mla_signatures if row.get("keyword_form")), None)
        self.backend_kind = backend_kind
        self.dcp_expression = dcp_expression
        self.casts = {id(site.statement): site for site in plan.casts}
        self.plan_statements = {id(site.statement): site for site in plan.plans}
        self.plan_calls = {id(site.call): site for site in plan.plans if site.redirect}
        self.runs: Dict[int, Tuple[CastSite, cst.Call]] = {id(r): (s, r) for s in plan.casts for r in s.runs}
        self.run_statements = {
            id(line)
            for site in plan.casts
            for run in site.runs
            for line in [self._statement_line(run)]
            if line is not None
        }
        self.insert_first: Dict[int, str] = {}  # id(__init__) -> code placed first (after a docstring)
        self.insert_after: Dict[int, str] = {}  # id(statement) -> code placed right after it
        self.applied: List[str] = []
        self.rebinds_plan = any(
            m.matches(t.target, m.Attribute(attr=m.Name("plan")))
            for node in m.findall(analysis.module, m.Assign())
            for t in node.targets
        )
        self.needs_plan_metadata_import = False
        self._schedule_inits()
        if not minimal:
            self._mark_cuda_graph_wrappers()

    def _statement_line(self, node: cst.CSTNode) -> Optional[cst.SimpleStatementLine]:
        while node is not None and not isinstance(node, cst.SimpleStatementLine):
            if isinstance(node, (cst.Lambda, cst.FunctionDef, cst.BaseCompoundStatement)):
                return None
            node = self.analysis.parent(node)
        return node

    def _init_of(self, cls: cst.ClassDef) -> Optional[cst.FunctionDef]:
        for stmt in cls.body.body if isinstance(cls.body, cst.IndentedBlock) else ():
            if isinstance(stmt, cst.FunctionDef) and stmt.name.value == "__init__":
                return stmt
        return None

    def _param(self, init: cst.FunctionDef, name: str, annotation: str) -> Optional[str]:
        for p in init.params.params:
            ann = self.analysis.code(p.annotation.annotation) if p.annotation else ""
            if p.name.value == name or ann.strip("'\"").endswith(annotation):
                return p.name.value
        return None

    def _init_with_runner(self, cls: cst.ClassDef, refusal: str):
        """(cls's __init__, the name of its model_runner parameter); RewriteRefused(refusal) if none."""
        init = self._init_of(cls)
        runner = (
            self._param(init, self.tables.kv_pool["runner_parameter"], self.tables.kv_pool["runner_annotation"])
            if init
            else None
        )
        if init is None or runner is None:
            raise RewriteRefused(self.analysis.position(cls).start.line, refusal)
        return init, runner

    def _schedule_inits(self) -> None:
        """The guard's answer is stored first thing in __init__ (it needs only model_runner),
        so that every later statement, return or branch of __init__ sees it."""
        backends = []
        for site in self.plan.casts:
            if site.backend not in backends:
                backends.append(site.backend)
        for backend in backends:
            init, runner = self._init_with_runner(
                backend, "the backend has no __init__(model_runner, ...) to decide the read in"
            )
            args = [runner] + ([] if self.backend_kind == "auto" else [literal(self.backend_kind)])
            if self.dcp_expression:
                args.append(f"{DCP_KEYWORD}={self.dcp_expression}")
            column = self.analysis.position(init).start.column + 4
            self._early_in_init(init, black_call(f"self.{READ_ATTR}", READ_CLASS, args, column, self.line_length))
        owners = []
        for site in self.plan.plans:
            if site.owner is None:
                raise RewriteRefused(
                    self.analysis.position(site.call).start.line,
                    "the plan() call is not in a class whose __init__ can hold the read choice",
                )
            if site.owner not in owners and site.owner not in backends:
                owners.append(site.owner)
        for owner in owners:
            init, runner = self._init_with_runner(
                owner, "the plan()'s class has no __init__(model_runner, ...) to hold the read choice"
            )
            backend_param = self._param(
                init, self.tables.kv_pool["backend_parameter"], self.tables.kv_pool["backend_annotation"]
            )
            if backend_param is None:
                raise RewriteRefused(
                    self.analysis.position(owner).start.line,
                    "the plan()'s class does not receive the backend (its __init__ has no "
                    f"`{self.tables.kv_pool['backend_parameter']}`), so its plans cannot share the "
                    "backend's read choice",
                )
            self._early_in_init(init, f"self.{READ_ATTR} = {backend_param}.{READ_ATTR}\n")

    def _early_in_init(self, init: cst.FunctionDef, code: str) -> None:
        """code right after `super().__init__(...)` when that is __init__'s first statement
        (after a docstring), else first: every later statement, return or branch sees it."""
        body = list(init.body.body)
        at = 1 if body and m.matches(body[0], m.SimpleStatementLine(body=[m.Expr(m.SimpleString())])) else 0
        super_init = m.SimpleStatementLine(
            body=[m.Expr(m.Call(func=m.Attribute(value=m.Call(func=m.Name("super")), attr=m.Name("__init__"))))]
        )
        if at < len(body) and m.matches(body[at], super_init):
            key = id(body[at])
            self.insert_after[key] = self.insert_after.get(key, "") + code
            return
        self.insert_first[id(init)] = self.insert_first.get(id(init), "") + code

    def _mark_cuda_graph_wrappers(self) -> None:
        """After each construction of an MLA wrapper for CUDA graphs (the constructor's
        [kv_read_module] cuda_graph_keyword), mark it so that its read is fixed at capture."""
        keyword = self.tables.kv_read_module["cuda_graph_keyword"]
        mla_class = self.tables.mla_wrapper().cls
        classes = {id(site.backend) for site in self.plan.casts} | {id(site.owner) for site in self.plan.plans}
        for call in self.analysis.nodes.calls:
            name = dotted(call.func)
            if not name or name.split(".")[-1] != mla_class:
                continue
            flag = next(
                (arg.value for arg in call.args if arg.keyword is not None and arg.keyword.value == keyword), None
            )
            if flag is None or (isinstance(flag, cst.Name) and flag.value == "False"):
                continue
            line = self.analysis.position(call).start.line
            statement = self.analysis.parent(call)
            holder = self.analysis.enclosing_class(call)
            if not (m.matches(statement, m.Assign(targets=[m.AssignTarget()])) and statement.value is call):
                raise RewriteRefused(
                    line,
                    f"a CUDA-graph {mla_class} is constructed other than as `x = "
                    f"{mla_class}(...)`: its read could not be fixed at capture",
                )
            if holder is None or id(holder) not in classes:
                raise RewriteRefused(
                    line,
                    f"a CUDA-graph {mla_class} is constructed outside the classes that "
                    "hold the read choice: its read could not be fixed at capture",
                )
            target = self.analysis.code(statement.targets[0].target)
            mark = f"self.{READ_ATTR}.in_cuda_graph({target})\n"
            if not (isinstance(flag, cst.Name) and flag.value == "True"):
                mark = f"if {self.analysis.code(flag)}:\n    {mark}"
            line_statement = self.analysis.parent(statement)
            self.insert_after[id(line_statement)] = self.insert_after.get(id(line_statement), "") + mark

    def _keep_cast_line(self, site: PlanSite) -> str:
        """Before a plan the fix cannot redirect: its run() keeps the cast."""
        return f"self.{READ_ATTR}.keep_cast({site.wrapper})  # this plan keeps the model dtype\n"

    def _routed(self, call: cst.Call) -> cst.Call:
        """`wrapper.plan(args)` as `self.kv_read.call_plan(wrapper.plan, args)` and `plan_fn(w, args)`
        as `self.kv_read.call_plan(plan_fn, w, args)`: only the callee changes, the arguments stay as
        they are (one per line when they were). Not named `plan`: a `.plan(...)` call that passes
        `kv_data_type=` would read as a FlashInfer plan of the model dtype (CL002)."""
        args = list(call.args)
        exploded = (
            bool(args)
            and isinstance(args[0].comma, cst.Comma)
            and isinstance(args[0].comma.whitespace_after, cst.ParenthesizedWhitespace)
        )
        if len(args) == 1 and isinstance(call.whitespace_before_args, cst.ParenthesizedWhitespace):
            exploded = True
        separator = clean_separator(args[0].comma) if exploded and len(args) > 1 else None
        if separator is None and exploded:  # one argument, on its own line
            separator = cst.Comma(whitespace_after=call.whitespace_before_args)
        callee = cst.Arg(value=call.func, comma=separator or cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        return call.with_changes(func=cst.parse_expression(f"self.{READ_ATTR}.{PLAN_METHOD}"), args=[callee, *args])

    def _cast_arguments(self, site: CastSite) -> List[str]:
        """The original cast's arguments, each on one line (the original may span lines)."""
        parts = []
        for arg in site.cast.args:
            value = one_line(arg.value)
            parts.append(f"{arg.star}{arg.keyword.value}={value}" if arg.keyword is not None else f"{arg.star}{value}")
        return parts

    # -- visitors --------------------------------------------------------------
    def leave_SimpleStatementLine(self, original, updated):
        site = self.casts.get(id(original))
        if site is not None:
            assign = updated.body[0]
            keep = updated.with_changes(body=[assign.with_changes(value=assign.value.func.value)])
            v, column = site.variable, self.analysis.position(original).start.column
            convert = black_call(
                v, f"self.{READ_ATTR}.convert", [site.wrapper, v, *self._cast_arguments(site)], column, self.line_length
            )
            self.applied.append(
                f"line {self.analysis.position(site.cast).start.line}: read the pool as the plan chose "
                + (
                    "(native or the original cast)"
                    if self.minimal
                    else "(native, the rows it reads, or the original cast)"
                )
            )
            return cst.FlattenSentinel([keep, *statements(convert)])
        plan = self.plan_statements.get(id(original))
        if plan is not None:
            line = self.analysis.position(plan.call).start.line
            column = self.analysis.position(original).start.column
            if plan.redirect:
                self.applied.append(f"line {line}: plan() chooses the KV read on the host")
                fitted = fit_statement(updated, column, self.line_length, rejoin=True)
                return fitted[0] if len(fitted) == 1 else cst.FlattenSentinel(fitted)
            self.applied.append(f"line {line}: plan() records the original cast read")
            return cst.FlattenSentinel([*statements(self._keep_cast_line(plan)), updated])
        if id(original) in self.run_statements:  # a one-line run() that its scales make too long
            column = self.analysis.position(original).start.column
            fitted = fit_statement(updated, column, self.line_length)
            updated = fitted[0] if len(fitted) == 1 else cst.FlattenSentinel(fitted)
        after = self.insert_after.get(id(original))
        if after:
            nodes = list(updated.nodes) if isinstance(updated, cst.FlattenSentinel) else [updated]
            return cst.FlattenSentinel([*nodes, *statements(after)])
        return updated

    def leave_FunctionDef(self, original, updated):
        code = self.insert_first.get(id(original))
        if not code:
            return updated
        body = list(updated.body.body)
        at = 1 if body and m.matches(body[0], m.SimpleStatementLine(body=[m.Expr(m.SimpleString())])) else 0
        return updated.with_changes(body=updated.body.with_changes(body=[*body[:at], *statements(code), *body[at:]]))

    def leave_Call(self, original, updated):
        if id(original) in self.plan_calls:
            if (
                self.keyword_api
                and not self.rebinds_plan
                and isinstance(original.func, cst.Attribute)
                and self._positional_prefix(updated) >= 4
            ):
                updated = self._keyword_plan(updated)
            return self._routed(updated)
        found = self.runs.get(id(original))
        if found is None:
            return updated
        site, run = found
        keywords = {arg.keyword.value for arg in updated.args if arg.keyword is not None}
        if self.scale_keywords[0] in keywords or any(arg.star == "**" for arg in updated.args):
            return updated
        extra = [star_star_arg(f"self.{READ_ATTR}.scales({site.wrapper})")]
        args = list(updated.args)
        if self.keyword_api and len([x for x in args if x.keyword is None and not x.star]) >= 4:
            args = self._keyword_run_args(args)
        self.applied.append(
            f"line {self.analysis.position(original).start.line}: run() gets "
            f"{'/'.join(self.scale_keywords)} when it reads natively"
        )
        return updated.with_changes(args=append_args(args, extra))

    # -- FlashInfer >= 0.7 keyword form ---------------------------------------------
    @staticmethod
    def _positional_prefix(call: cst.Call) -> int:
        """How many leading positional arguments (0 if any * or ** argument)."""
        if any(arg.star for arg in call.args):
            return 0
        count = 0
        for arg in call.args:
            if arg.keyword is not None:
                break
            count += 1
        return count

    @staticmethod
    def _pair(name: str, first: cst.Arg, second: cst.Arg) -> cst.Arg:
        value = cst.Tuple(
            [
                cst.Element(first.value, comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))),
                cst.Element(second.value),
            ]
        )
        return cst.Arg(
            keyword=cst.Name(name),
            value=value,
            comma=second.comma,
            equal=cst.AssignEqual(
                whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")
            ),
        )

    def _keyword_run_args(self, args: List[cst.Arg]) -> List[cst.Arg]:
        query, kv_cache = self.keyword_row["run_keywords"][:2]
        return [self._pair(query, args[0], args[1]), self._pair(kv_cache, args[2], args[3]), *args[4:]]

    def _keyword_plan(self, call: cst.Call) -> cst.Call:
        names = self._plan_names()
        args = list(call.args)
        eq = cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace(""))
        spec = self.keyword_row["plan_metadata"]
        metadata = cst.parse_expression(f"{spec['class']}.{spec['constructor']}()").with_changes(
            args=[
                arg.with_changes(
                    comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")) if i < 3 else cst.MaybeSentinel.DEFAULT,
                    whitespace_after_arg=cst.SimpleWhitespace(""),
                )
                for i, arg in enumerate(args[:4])
            ]
        )
        metadata_keyword = spec["keyword"]
        new_args = [cst.Arg(keyword=cst.Name(metadata_keyword), value=metadata, equal=eq, comma=args[3].comma)]
        for i, arg in enumerate(args[4:], start=4):
            if arg.keyword is None:
                arg = arg.with_changes(keyword=cst.Name(names[i]), equal=eq)
            new_args.append(arg)
        new_args = append_args(
            new_args, [keyword_arg(name, f'"{layout}"') for name, layout in self.keyword_row["plan_layouts"].items()]
        )
        self.needs_plan_metadata_import = True
        return call.with_changes(args=new_args)

    def _plan_names(self) -> List[str]:
        for row in self.tables.mla_signatures:
            if row.get("keyword_form"):
                return list(row["plan_positional"])
        return list(self.tables.mla_signatures[-1]["plan_positional"])

    def leave_Module(self, original, updated):
        body = list(updated.body)
        if self.needs_plan_metadata_import:
            body = self._add_plan_metadata_import(body)
        module = updated.with_changes(body=body)
        return add_import(module, self.import_line, self.import_name) if self.casts else module

    def _add_plan_metadata_import(self, body):
        spec = self.keyword_row["plan_metadata"]
        statement = statements(f"from {spec['module']} import {spec['class']}\n")[0]
        wrapper = self.tables.mla_wrapper()
        mla_class, wrapper_module = wrapper.cls, wrapper.module

        class AddImport(cst.CSTTransformer):
            done = False

            def leave_SimpleStatementLine(self, original, updated):
                if not AddImport.done and m.matches(
                    updated, m.SimpleStatementLine(body=[m.ImportFrom(module=m.Name(wrapper_module))])
                ):
                    names = (
                        [alias.name.value for alias in updated.body[0].names]
                        if not isinstance(updated.body[0].names, cst.ImportStar)
                        else []
                    )
                    if mla_class in names:
                        AddImport.done = True
                        return cst.FlattenSentinel([updated, statement])
                return updated

        module = cst.Module(body=body).visit(AddImport())
        body = list(module.body)
        if not AddImport.done:
            body.insert(0, statement)
        return body


def _keyword_form_since(tables: Tables) -> Optional[str]:
    for row in tables.mla_signatures:
        if row.get("keyword_form"):
            return row["version"]
    return None


class FlashInferMlaNativeFp8(Codemod):
    """All or nothing per file: when any wanted site cannot be rewritten safely, the
    module is returned unchanged and the reason is reported."""

    name = MLA_CODEMOD
    order = 20

    def apply(self, module: cst.Module, ctx: FileContext, findings: List, options: FixOptions) -> CodemodResult:
        target = detect_target(ctx.path, ctx.tables, options.flashinfer_version)
        keyword_api = options.flashinfer_api == "keyword"  # auto: positional, which every pinned FlashInfer takes
        analysis = ctx.analysis
        added = kv_read_module(ctx.path, ctx.tables, options.profile)
        try:
            sites = find_sites(ctx, findings)
            if not sites.casts:
                return CodemodResult(module, [], sites.skipped)
            if added is None:
                raise RewriteRefused(1, "the module the fix adds would replace this file")
            import_line = f"from {added.import_name} import {READ_CLASS}\n"
            if options.profile == "minimal":
                sites = decode_only(sites, ctx.tables, analysis)
            transformer = MlaReadRewrite(
                sites,
                analysis,
                ctx.tables,
                target,
                keyword_api,
                _backend_kind(analysis),
                _dcp_expression(analysis),
                import_line,
                added.import_name,
                minimal=options.profile == "minimal",
                style=style_for(ctx.path, ctx.tables.formatting),
            )
        except RewriteRefused as exc:
            return CodemodResult(module, [], [(exc.line, f"FlashInfer MLA fix not applied to this file: {exc.reason}")])
        result = CodemodResult(module.visit(transformer), transformer.applied, list(sites.skipped))
        result.companions = dict(added.companions)
        # the findings of the sites rewritten (--profile minimal leaves the extend casts and plans)
        taken = {id(site.cast) for site in sites.casts} | {id(site.call) for site in sites.plans if site.redirect}
        result.fixed = [f for f in findings if id(_site_node(f)) in taken]
        if keyword_api and transformer.rebinds_plan and sites.plans:
            result.skipped.append(
                (
                    analysis.position(sites.plans[0].call).start.line,
                    "plan() calls kept positional: this module rebinds `.plan` to sglang's "
                    "fast_mla_*_plan, which takes positional arguments (FlashInfer 0.7 accepts "
                    "them with a DeprecationWarning)",
                )
            )
        since = _keyword_form_since(ctx.tables)
        if keyword_api and since and target.flashinfer and not target.flashinfer_at_least(since):
            result.skipped.append(
                (
                    1,
                    f"keyword form emitted, but the target pins FlashInfer {target.flashinfer}, "
                    f"which has no keyword plan/run; upgrade FlashInfer to >= {since}",
                )
            )
        return result


def _backend_kind(analysis: ModuleAnalysis) -> str:
    """The `backend=` the module constructs its MLA wrapper with ("auto" when none)."""
    backend_kind = "auto"
    mla_class = analysis.tables.mla_wrapper().cls
    for call in analysis.nodes.calls:
        if dotted(call.func) and dotted(call.func).endswith(mla_class):
            for arg in call.args:
                if (
                    arg.keyword is not None
                    and arg.keyword.value == "backend"
                    and isinstance(arg.value, cst.SimpleString)
                ):
                    backend_kind = arg.value.evaluated_value
    return backend_kind


def _dcp_expression(analysis: ModuleAnalysis) -> Optional[str]:
    """The module's decode-context-parallel switch (`...dcp_enabled`), if it has one."""
    for attr in analysis.nodes.attributes:
        if attr.attr.value == analysis.tables.kv_pool.get("dcp_attribute"):
            return analysis.code(attr)
    return None
