"""The FlashInfer MLA rewrite: read the FP8 KV pool natively instead of casting it.

In sglang's FlashInferMLAAttnBackend (and look-alikes) it:
1. plans with `kv_data_type` = the KV-cache dtype (decode/prefill updaters,
   wrapper.plan and fast_mla_*_plan, positional or keyword form);
2. drops the whole-pool `.to(q.dtype)` before run();
3. passes run() `ckv_scale=`/`kpe_scale=` (1.0: the MLA pool stores e4m3 unscaled);
4. decides all of it once at backend init through `_castlint_native_fp8_kv_mla`,
   built from the FP8-KV matrix in rules/flashinfer.toml; everywhere else the
   original cast path runs unchanged.
The call form follows the FlashInfer the target sglang pins (rules/sglang.toml),
or the keyword form of FlashInfer >= 0.7 with --flashinfer-api keyword.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Optional, Set, Tuple

import libcst as cst
import libcst.matchers as m

from castlint.analysis import ModuleAnalysis
from castlint.analysis.dataflow import dotted
from castlint.checks.base import FileContext
from castlint.checks.plan_forces_kv_dtype import dtype_argument, match_wrapper
from castlint.checks.whole_pool_cast import mla_native_fix, runs_fed_by
from castlint.fixes.edits import append_args, keyword_arg, literal, star_star_arg, statements
from castlint.fixes.target import Target
from castlint.tables import Tables, parse_version

CODEMOD = "flashinfer-mla-native-fp8"
GUARD_FUNCTION = "_castlint_native_fp8_kv_mla"
VERSION_FUNCTION = "_castlint_version_tuple"
GUARD_ATTR = "castlint_native_fp8_kv"
SCALE_ATTR = "castlint_kv_scale"
SCALES_DICT_ATTR = "castlint_mla_run_scales"
KV_DTYPE_ATTR = "castlint_kv_data_type"
SCALES_SINCE = "0.6.14"  # run() takes ckv_scale/kpe_scale from here on


@dataclass
class CastSite:
    statement: cst.SimpleStatementLine
    variable: str
    cast: cst.Call
    function: cst.FunctionDef
    backend: cst.ClassDef


@dataclass
class PlanSite:
    call: cst.Call
    kv_arg: cst.BaseExpression
    q_source: Tuple[str, ...]
    updater: Optional[cst.ClassDef]


@dataclass
class Plan:
    """What the rewrite will do to one module (empty: nothing to do)."""

    casts: List[CastSite] = field(default_factory=list)
    plans: List[PlanSite] = field(default_factory=list)
    runs: Dict[int, cst.Call] = field(default_factory=dict)
    skipped: List[Tuple[int, str]] = field(default_factory=list)  # (line, why)


def plan_rewrite(ctx: FileContext, allowed: Set[Tuple[str, int, int]]) -> Plan:
    """Find the sites; `allowed` holds (code, line, column) of findings the user wants fixed."""
    a = ctx.analysis
    plan = Plan()
    for call, _ in a.pool_casts():
        pos = a.position(call)
        if ("CL001", pos.start.line, pos.start.column + 1) not in allowed:
            continue
        fix, _ = mla_native_fix(ctx, call)
        if fix is None:
            continue
        assign = a.parent(call)
        line = a.parent(assign) if assign is not None else None
        if not (isinstance(assign, cst.Assign) and isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1):
            plan.skipped.append((pos.start.line, "the cast is not a plain `name = pool.to(...)` statement"))
            continue
        function = a.enclosing_function(call)
        backend = a.enclosing_class(call)
        if function is None or backend is None:
            plan.skipped.append((pos.start.line, "the cast is not in a backend method"))
            continue
        variable = assign.targets[0].target.value
        plan.casts.append(CastSite(line, variable, call, function, backend))
        for run in runs_fed_by(a, call):
            plan.runs[id(run)] = run
    if not plan.casts:
        return plan
    for call in a.nodes.calls:
        wrapper = match_wrapper(ctx, call)
        if wrapper is None:
            continue
        pos = a.position(call)
        if ("CL002", pos.start.line, pos.start.column + 1) not in allowed:
            continue
        q_arg, kv_arg = dtype_argument(call, wrapper, "q"), dtype_argument(call, wrapper, "kv")
        if q_arg is None or kv_arg is None:
            plan.skipped.append((pos.start.line, "plan() has no kv dtype argument to redirect"))
            continue
        plan.plans.append(PlanSite(call, kv_arg, a.resolve_value(q_arg), a.enclosing_class(call)))
    return plan


# -- emitted code ----------------------------------------------------------------

def guard_source(tables: Tables, dcp_expression: Optional[str]) -> str:
    """The init-time guard, generated from the FP8-KV MLA matrix in rules/flashinfer.toml."""
    rows = tables.fp8_kv_rows()
    sm90 = tables.auto_backend.get("sm90", "fa3")
    checks = []
    for row in rows:
        since = parse_version(row["since"])
        backends = tuple(row["backends"])
        ckv = tuple(row.get("head_dim_ckv", [512]))
        kpe = tuple(row.get("head_dim_kpe", [64]))
        checks.append(
            f"        if version >= {since!r}:\n"
            f"            return backend in {literal(backends)} and ckv in {literal(ckv)} and kpe in {literal(kpe)}\n"
        )
    capability = tuple(rows[0].get("compute_capability", [9, 0])) if rows else (9, 0)
    kv_dtype = rows[0].get("kv_dtypes", ["float8_e4m3fn"])[0] if rows else "float8_e4m3fn"
    q_dtype = rows[0].get("q_dtypes", ["bfloat16"])[0] if rows else "bfloat16"
    dcp = (
        f"        if {dcp_expression}:\n"
        f"            return False  # DCP extend feeds run() a per-batch BF16 buffer\n"
    ) if dcp_expression else ""
    return (
        f"\n\ndef {VERSION_FUNCTION}(text):\n"
        f'    """castlint: \'0.6.18.post1\' -> (0, 6, 18)."""\n'
        f"    parts = []\n"
        f"    for piece in str(text).split(\".\"):\n"
        f"        digits = \"\"\n"
        f"        for char in piece:\n"
        f"            if not char.isdigit():\n"
        f"                break\n"
        f"            digits += char\n"
        f"        if not digits:\n"
        f"            break\n"
        f"        parts.append(int(digits))\n"
        f"        if digits != piece:\n"
        f"            break\n"
        f"    return tuple(parts)\n"
        f"\n\ndef {GUARD_FUNCTION}(model_runner, backend):\n"
        f'    """castlint: can FlashInfer\'s MLA kernels read this FP8 KV pool as stored?\n'
        f"\n"
        f"    Decided once at init, never per step, so it is safe under CUDA-graph\n"
        f"    capture. True only for a {kv_dtype} KV cache with a {q_dtype} model on\n"
        f"    SM{capability[0]}{capability[1]}, with head dims and a FlashInfer version that have the\n"
        f"    FP8-KV MLA kernel (castlint rules/flashinfer.toml). Elsewhere the\n"
        f"    original cast to the model dtype runs unchanged.\n"
        f'    """\n'
        f"    try:\n"
        f"        import flashinfer\n"
        f"\n"
        f"        if model_runner.kv_cache_dtype != torch.{kv_dtype}:\n"
        f"            return False\n"
        f"        if model_runner.dtype != torch.{q_dtype}:\n"
        f"            return False\n"
        f"        if not torch.cuda.is_available():\n"
        f"            return False\n"
        f"        if tuple(torch.cuda.get_device_capability(model_runner.device)) != {capability!r}:\n"
        f"            return False\n"
        f"{dcp}"
        f"        version = {VERSION_FUNCTION}(getattr(flashinfer, \"__version__\", \"0\"))\n"
        f"        ckv = model_runner.model_config.kv_lora_rank\n"
        f"        kpe = model_runner.model_config.qk_rope_head_dim\n"
        f"        if backend == \"auto\":\n"
        f"            backend = {literal(sm90)}\n"
        + "".join(checks)
        + "        return False\n"
        "    except Exception:\n"
        "        return False\n"
    )


def backend_init_source(model_runner: str, backend_kind: str, explicit_scales: bool) -> str:
    lines = [
        "# castlint: read the FP8 KV pool as stored where FlashInfer can (decided once).\n",
        f"self.{GUARD_ATTR} = {GUARD_FUNCTION}({model_runner}, {literal(backend_kind)})\n",
        "# MLATokenToKVPool stores e4m3 unscaled (set_kv_buffer casts without k_scale),\n",
        "# so real = stored x 1.0: the scale FlashInfer's FP8-KV run() needs is 1.0.\n",
    ]
    if explicit_scales:
        lines.append(f"self.{SCALE_ATTR} = 1.0 if self.{GUARD_ATTR} else None\n")
    else:
        lines.append(
            f"self.{SCALES_DICT_ATTR} = (\n"
            f"    {{\"ckv_scale\": 1.0, \"kpe_scale\": 1.0}} if self.{GUARD_ATTR} else {{}}\n"
            ")\n"
        )
    return "".join(lines)


# -- the transformer ---------------------------------------------------------------

class _Rewrite(cst.CSTTransformer):
    def __init__(self, plan: Plan, a: ModuleAnalysis, tables: Tables, target: Target, keyword_api: bool,
                 backend_kind: str, dcp_expression: Optional[str]):
        super().__init__()
        self.plan, self.a, self.tables = plan, a, tables
        self.keyword_api = keyword_api
        self.explicit_scales = keyword_api or target.flashinfer_at_least(SCALES_SINCE)
        self.backend_kind = backend_kind
        self.dcp_expression = dcp_expression
        self.casts = {id(site.statement): site for site in plan.casts}
        self.kv_args = {id(site.kv_arg): site for site in plan.plans}
        self.plan_calls = {id(site.call): site for site in plan.plans}
        self.insert_after: Dict[int, str] = {}
        self.insert_first: Dict[int, str] = {}  # id(__init__) -> code, when it has no anchor statement
        self.applied: List[str] = []
        self.rebinds_plan = any(
            m.matches(t.target, m.Attribute(attr=m.Name("plan")))
            for node in m.findall(a.module, m.Assign()) for t in node.targets
        )
        self.needs_plan_metadata_import = False
        self._schedule_inits()

    # where the init lines go
    def _init_of(self, cls: cst.ClassDef) -> Optional[cst.FunctionDef]:
        for stmt in cls.body.body if isinstance(cls.body, cst.IndentedBlock) else ():
            if isinstance(stmt, cst.FunctionDef) and stmt.name.value == "__init__":
                return stmt
        return None

    def _param(self, init: cst.FunctionDef, name: str, annotation: str) -> Optional[str]:
        for p in init.params.params:
            ann = self.a.code(p.annotation.annotation) if p.annotation else ""
            if p.name.value == name or ann.strip("'\"").endswith(annotation):
                return p.name.value
        return None

    def _schedule_inits(self) -> None:
        backends = []
        for site in self.plan.casts:
            if site.backend not in backends:
                backends.append(site.backend)
        for backend in backends:
            init = self._init_of(backend)
            runner = self._param(init, "model_runner", "ModelRunner") if init else None
            if init is None or runner is None:
                self.plan.skipped.append((self.a.position(backend).start.line,
                                          "the backend has no __init__(model_runner, ...) to decide the guard in"))
                self.casts = {k: v for k, v in self.casts.items() if v.backend is not backend}
                continue
            body = list(init.body.body)
            anchor = next((s for s in body if m.matches(s, m.SimpleStatementLine(body=[m.Expr(m.Call(
                func=m.Attribute(value=m.Call(func=m.Name("super")), attr=m.Name("__init__"))))]))), None)
            if anchor is None and m.matches(body[0], m.SimpleStatementLine(body=[m.Expr(m.SimpleString())])):
                anchor = body[0]  # right after the docstring
            code = backend_init_source(runner, self.backend_kind, self.explicit_scales)
            if anchor is None:
                self.insert_first[id(init)] = code
            else:
                self.insert_after[id(anchor)] = self.insert_after.get(id(anchor), "") + code
        updaters = []
        for site in self.plan.plans:
            if site.updater is not None and site.updater not in updaters:
                updaters.append(site.updater)
        for updater in updaters:
            init = self._init_of(updater)
            runner = self._param(init, "model_runner", "ModelRunner") if init else None
            if init is None or runner is None:
                self.kv_args = {k: v for k, v in self.kv_args.items() if v.updater is not updater}
                self.plan.skipped.append((self.a.position(updater).start.line,
                                          "the plan()'s class has no __init__(model_runner, ...)"))
                continue
            backend_param = self._param(init, "attn_backend", "AttentionBackend")
            decided = (f"{backend_param}.{GUARD_ATTR}" if backend_param
                       else f"{GUARD_FUNCTION}({runner}, {literal(self.backend_kind)})")
            sources = {s for site in self.plan.plans if site.updater is updater for s in site.q_source}
            fallback = sorted(sources)[0] if len(sources) == 1 else f"{runner}.dtype"
            last = init.body.body[-1]
            code = (
                "# castlint: plan the KV cache in its own dtype where the native path is on.\n"
                f"self.{KV_DTYPE_ATTR} = (\n"
                f"    {runner}.kv_cache_dtype if {decided} else {fallback}\n"
                ")\n"
            )
            self.insert_after[id(last)] = self.insert_after.get(id(last), "") + code

    # -- visitors --------------------------------------------------------------
    def leave_SimpleStatementLine(self, original, updated):
        out: List[cst.BaseStatement] = [updated]
        site = self.casts.get(id(original))
        if site is not None:
            assign = updated.body[0]
            keep = updated.with_changes(body=[assign.with_changes(value=assign.value.func.value)])
            args = ", ".join(self.a.code(arg) for arg in site.cast.args)
            guard = statements(
                f"if not self.{GUARD_ATTR}:\n    {site.variable} = {site.variable}.{site.cast.func.attr.value}({args})\n"
            )
            out = [keep, *guard]
            self.applied.append(f"line {self.a.position(site.cast).start.line}: read the pool as stored; cast only on the fallback path")
        code = self.insert_after.get(id(original))
        if code:
            out.extend(statements(code))
        if len(out) == 1:
            return updated
        return cst.FlattenSentinel(out)

    def leave_FunctionDef(self, original, updated):
        code = self.insert_first.get(id(original))
        if code:
            body = list(updated.body.body)
            return updated.with_changes(body=updated.body.with_changes(body=[*statements(code), *body]))
        return updated

    def leave_Arg(self, original, updated):
        if id(original.value) in self.kv_args:
            return updated.with_changes(value=cst.parse_expression(f"self.{KV_DTYPE_ATTR}"))
        return updated

    def leave_Call(self, original, updated):
        if id(original) in self.plan_calls:
            line = self.a.position(original).start.line
            self.applied.append(f"line {line}: plan kv_data_type = the KV-cache dtype on the native path")
            if self.keyword_api and not self.rebinds_plan and isinstance(original.func, cst.Attribute) \
                    and self._positional_prefix(updated) >= 4:
                return self._keyword_plan(updated)
            return updated
        if id(original) not in self.plan.runs:
            return updated
        keywords = {arg.keyword.value for arg in updated.args if arg.keyword is not None}
        if "ckv_scale" in keywords or any(arg.star == "**" for arg in updated.args):
            return updated
        if self.explicit_scales:
            extra = [keyword_arg("ckv_scale", f"self.{SCALE_ATTR}"), keyword_arg("kpe_scale", f"self.{SCALE_ATTR}")]
        else:
            extra = [star_star_arg(f"self.{SCALES_DICT_ATTR}")]
        args = list(updated.args)
        if self.keyword_api and len([x for x in args if x.keyword is None and not x.star]) >= 4:
            args = self._keyword_run_args(args)
        self.applied.append(f"line {self.a.position(original).start.line}: run() gets ckv_scale/kpe_scale")
        return updated.with_changes(args=append_args(args, extra))

    # -- FlashInfer >= 0.7 keyword form ---------------------------------------------
    @staticmethod
    def _positional_prefix(call: cst.Call) -> int:
        """How many leading positional arguments (0 if any * or ** argument)."""
        if any(a.star for a in call.args):
            return 0
        count = 0
        for arg in call.args:
            if arg.keyword is not None:
                break
            count += 1
        return count

    @staticmethod
    def _pair(name: str, first: cst.Arg, second: cst.Arg) -> cst.Arg:
        value = cst.Tuple([cst.Element(first.value, comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))),
                           cst.Element(second.value)])
        return cst.Arg(keyword=cst.Name(name), value=value, comma=second.comma,
                       equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")))

    def _keyword_run_args(self, args: List[cst.Arg]) -> List[cst.Arg]:
        return [self._pair("query", args[0], args[1]), self._pair("kv_cache", args[2], args[3]), *args[4:]]

    def _keyword_plan(self, call: cst.Call) -> cst.Call:
        names = self._plan_names()
        args = list(call.args)
        eq = cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace(""))
        metadata = cst.parse_expression("MLAPlanMetadata.csr()").with_changes(
            args=[a.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")) if i < 3 else cst.MaybeSentinel.DEFAULT,
                                 whitespace_after_arg=cst.SimpleWhitespace(""))
                  for i, a in enumerate(args[:4])])
        new_args = [cst.Arg(keyword=cst.Name("metadata"), value=metadata, equal=eq, comma=args[3].comma)]
        for i, arg in enumerate(args[4:], start=4):
            if arg.keyword is None:
                arg = arg.with_changes(keyword=cst.Name(names[i]), equal=eq)
            new_args.append(arg)
        new_args = append_args(new_args, [keyword_arg("query_layout", '"split"'), keyword_arg("kv_cache_layout", '"split"')])
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
        defined = {s.name.value for s in body if isinstance(s, cst.FunctionDef)}
        if GUARD_FUNCTION not in defined and self.casts:
            body.extend(statements(guard_source(self.tables, self.dcp_expression)))
        return updated.with_changes(body=body)

    def _add_plan_metadata_import(self, body):
        statement = statements("from flashinfer.mla import MLAPlanMetadata\n")[0]

        class AddImport(cst.CSTTransformer):
            done = False

            def leave_SimpleStatementLine(self, original, updated):
                if not AddImport.done and m.matches(updated, m.SimpleStatementLine(body=[m.ImportFrom(module=m.Name("flashinfer"))])):
                    names = [alias.name.value for alias in updated.body[0].names] if not isinstance(updated.body[0].names, cst.ImportStar) else []
                    if "BatchMLAPagedAttentionWrapper" in names:
                        AddImport.done = True
                        return cst.FlattenSentinel([updated, statement])
                return updated

        module = cst.Module(body=body).visit(AddImport())
        body = list(module.body)
        if not AddImport.done:
            body.insert(0, statement)
        return body


def rewrite(module: cst.Module, ctx: FileContext, allowed: Set[Tuple[str, int, int]], target: Target,
            api: str = "auto") -> Tuple[cst.Module, List[str], List[Tuple[int, str]]]:
    """Apply the rewrite to module; returns (new module, what was done, what was skipped and why)."""
    plan = plan_rewrite(ctx, allowed)
    if not plan.casts:
        return module, [], plan.skipped
    a = ctx.analysis
    backend_kind = "auto"
    for call in a.nodes.calls:
        if dotted(call.func) and dotted(call.func).endswith("BatchMLAPagedAttentionWrapper"):
            for arg in call.args:
                if arg.keyword is not None and arg.keyword.value == "backend" and isinstance(arg.value, cst.SimpleString):
                    backend_kind = arg.value.evaluated_value
    dcp_expression = None
    for attr in a.nodes.attributes:
        if attr.attr.value == "dcp_enabled":
            dcp_expression = a.code(attr)
            break
    keyword_api = api == "keyword"
    transformer = _Rewrite(plan, a, ctx.tables, target, keyword_api, backend_kind, dcp_expression)
    new = module.visit(transformer)
    skipped = list(plan.skipped)
    if keyword_api and transformer.rebinds_plan and plan.plans:
        skipped.append((a.position(plan.plans[0].call).start.line,
                        "plan() calls kept positional: this module rebinds `.plan` to sglang's "
                        "fast_mla_*_plan, which takes positional arguments (FlashInfer 0.7 accepts "
                        "them with a DeprecationWarning)"))
    if keyword_api and target.flashinfer and not target.flashinfer_at_least("0.7.0"):
        skipped.append((1, f"keyword form emitted, but the target pins FlashInfer {target.flashinfer}, "
                           "which has no keyword plan/run; upgrade FlashInfer to >= 0.7"))
    return new, transformer.applied, skipped
