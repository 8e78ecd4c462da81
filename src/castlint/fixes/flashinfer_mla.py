"""The FlashInfer MLA rewrite: read an FP8 KV pool the cheapest way for each plan.

In sglang's FlashInferMLAAttnBackend (and look-alikes) every forward casts the whole
pool to the model dtype before run(). The rewrite makes each plan() choose, on the
host and from values the plan already has, one of three reads (rules/crossover.toml):

- native: FlashInfer's FP8-KV kernel reads the pool as stored (decode, and small
  query counts where the measured model says it wins);
- gather: only the rows the plan reads are converted, and the BF16 kernel runs on
  that compact buffer (big prefills on big pools);
- cast: the original whole-pool cast (where neither wins, where the shape is
  unknown, and in every environment the FP8-KV kernel does not support).

The choice is recorded on the wrapper at plan time, and forward reads it from the
wrapper it runs, so plan and forward always agree, CUDA graphs included. The
generated code holds the capability matrix (rules/flashinfer.toml) and the cost
model (rules/crossover.toml); the call form follows the FlashInfer the target
sglang pins, or FlashInfer 0.7's keyword form with --flashinfer-api keyword.

A site is rewritten only when every reader of the converted value is a run() that
can take the choice; otherwise the whole file is left alone, with the reason.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

import libcst as cst
import libcst.matchers as m

from castlint.analysis import ModuleAnalysis
from castlint.analysis.dataflow import dotted
from castlint.analysis.mla_sites import (
    CastSite, PlanSite, RewriteRefused, cast_site, feeds_a_run, is_mla_plan, names_in, plan_site,
    why_not_rewritable,
)
from castlint.analysis.context import FileContext
from castlint.analysis.wrappers import match_wrapper
from castlint.fixes.base import Codemod, CodemodResult, FixOptions
from castlint.fixes.edits import append_args, keyword_arg, literal, star_star_arg, statements
from castlint.fixes.target import Target, detect_target
from castlint.mla_names import GUARD_FUNCTION, MLA_CODEMOD, READ_ATTR, WRAPPER_ATTR
from castlint.tables import Tables, parse_version

# Names the patch adds to the engine's code: plain words a maintainer would keep.
VERSION_FUNCTION = "_flashinfer_version_tuple"
PLAN_FUNCTION = "_plan_mla_kv_read"
READ_FUNCTION = "_mla_kv_read"
READ_CLASS = "_MlaKvRead"


@dataclass
class MlaSites:
    """What the rewrite changes in one module: the casts, the plan() calls, and why
    some wanted sites are not taken."""

    casts: List[CastSite] = field(default_factory=list)
    plans: List[PlanSite] = field(default_factory=list)
    skipped: List[Tuple[int, str]] = field(default_factory=list)  # (line, why)


def find_sites(ctx: FileContext, findings: List) -> MlaSites:
    """The sites of the wanted findings (CL001: the cast; CL002: the plan() call, in fix.site).

    Raises RewriteRefused when a wanted site cannot be rewritten safely."""
    analysis = ctx.analysis
    wanted = {id(f.fix.site) for f in findings}
    sites = MlaSites()
    left = []
    for call, _ in analysis.pool_casts():
        if id(call) in wanted:
            sites.casts.append(cast_site(ctx, call))
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
        raise RewriteRefused(analysis.position(sites.casts[0].cast).start.line,
                             "no plan() of an MLA wrapper in this file declares the KV dtype in a form the fix "
                             "can redirect (CL002): dropping the cast would feed run() a dtype its plan does "
                             "not declare")
    return sites


# -- emitted code ----------------------------------------------------------------

def _cost_rows(tables: Tables) -> str:
    rows = []
    for row in sorted(tables.mla_kv_read, key=lambda r: parse_version(r["since"]), reverse=True):
        rows.append(
            f"    ({parse_version(row['since'])!r}, {row['cast_ms_per_pool_token']!r}, {row['gather_ms']!r}, "
            f"{row['gather_ms_per_token']!r}, {row['native_ms']!r}, {row['native_ms_per_token_query']!r}, "
            f"{row['margin']!r}),\n")
    return "".join(rows)


def guard_source(tables: Tables, dcp_expression: Optional[str]) -> str:
    """Module-level code: the init-time guard and the per-plan choice, from rules/*.toml.

    One part per generated definition, in the order the patched module holds them."""
    return (_costs_source(tables) + _read_class_source(run_scales(tables)) + _read_function_source()
            + _version_function_source()
            + _guard_function_source(tables, dcp_expression) + _plan_function_source(tables))


def _costs_source(tables: Tables) -> str:
    """_MLA_KV_READ_COSTS: the measured costs (rules/crossover.toml), newest FlashInfer first."""
    return (
        f"\n\n# Per-token costs (ms) of the three ways to read an FP8 KV pool, by FlashInfer\n"
        f"# version, measured on an H200: (since, cast per pool row, gather, gather per\n"
        f"# row read, native, native per row read x query, margin).\n"
        f"_MLA_KV_READ_COSTS = (\n{_cost_rows(tables)})\n"
    )


def run_scales(tables: Tables) -> Tuple[str, str]:
    """run()'s keywords for the ckv and kpe scales (the newest [[mla_signature]] that has them)."""
    return tuple(next(row["run_scales"] for row in reversed(tables.mla_signatures) if row.get("run_scales")))


def _read_class_source(scales: Tuple[str, str]) -> str:
    """The class of a plan's choice, and _MLA_KV_CAST: the original whole-pool cast."""
    return (
        f"\n\nclass {READ_CLASS}:\n"
        f'    """How run() reads the KV pool for the plan it belongs to.\n'
        f"\n"
        f"    native: the pool as stored (FP8-KV kernel); rows: convert only these rows\n"
        f"    (the plan indexes them 0..n-1); neither: convert the whole pool (original).\n"
        f'    """\n'
        f"\n"
        f"    __slots__ = (\"native\", \"rows\", \"scale\")\n"
        f"\n"
        f"    def __init__(self, native=False, rows=None):\n"
        f"        self.native = native\n"
        f"        self.rows = rows\n"
        f"        # the pool stores e4m3 unscaled (set_kv_buffer casts without a scale)\n"
        f"        self.scale = 1.0 if native else None\n"
        f"\n"
        f"    @property\n"
        f"    def scales(self):\n"
        f"        return {{\"{scales[0]}\": 1.0, \"{scales[1]}\": 1.0}} if self.native else {{}}\n"
        f"\n\n_MLA_KV_CAST = {READ_CLASS}()\n"
    )


def _read_function_source() -> str:
    """The function forward calls to learn how the wrapper it runs reads the pool."""
    return (
        f"\n\ndef {READ_FUNCTION}(wrapper):\n"
        f'    """How run() on this wrapper reads the pool, as its last plan decided."""\n'
        f"    return getattr(wrapper, \"{WRAPPER_ATTR}\", _MLA_KV_CAST)\n"
    )


def _version_function_source() -> str:
    """The version parser the guard uses: a FlashInfer version string as a tuple of ints."""
    return (
        f"\n\ndef {VERSION_FUNCTION}(text):\n"
        f'    """\'0.6.18.post1\' -> (0, 6, 18)."""\n'
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
    )


def _capability_branches(rows: list) -> str:
    """The guard's if/elif chain: which backends and head dims each FlashInfer release supports."""
    capable = ""
    for row in sorted((r for r in rows if r.get("backends")), key=lambda r: parse_version(r["since"]), reverse=True):
        keyword = "if" if not capable else "elif"
        backends = tuple(row["backends"])
        ckv = tuple(row["head_dim_ckv"])
        kpe = tuple(row["head_dim_kpe"])
        capable += (f"        {keyword} version >= {parse_version(row['since'])!r}:\n"
                    f"            supported = backend in {literal(backends)} and ckv in {literal(ckv)} "
                    f"and kpe in {literal(kpe)}\n")
    return capable


def _guard_function_source(tables: Tables, dcp_expression: Optional[str]) -> str:
    """The init-time guard: None where the FP8-KV kernel cannot read the pool (capability matrix from
    rules/flashinfer.toml), else what each plan choice needs."""
    rows = tables.fp8_kv_rows()
    sm90 = tables.auto_backend.get("sm90", "fa3")
    capable = _capability_branches(rows)
    supported_rows = [r for r in rows if r.get("backends")]
    # the newest native row (tables.py requires these keys there); without one the guard never says yes
    newest = supported_rows[0] if supported_rows else {"compute_capability": [9, 0], "kv_dtypes": ["float8_e4m3fn"],
                                                       "q_dtypes": ["bfloat16"]}
    capability = tuple(newest["compute_capability"])
    kv_dtype, q_dtype = newest["kv_dtypes"][0], newest["q_dtypes"][0]
    pool = tables.kv_pool
    dcp = (
        f"        if {dcp_expression}:\n"
        f"            return None  # DCP feeds run() a per-batch buffer, not the pool\n"
    ) if dcp_expression else ""
    return (
        f"\n\ndef {GUARD_FUNCTION}(model_runner, backend):\n"
        f'    """Can FlashInfer\'s MLA kernels read this FP8 KV pool as stored?\n'
        f"\n"
        f"    Decided once at init. None where they cannot (the original cast path runs\n"
        f"    unchanged); else the KV dtype, the pool's rows and this FlashInfer's costs.\n"
        f"    Needs a {kv_dtype} KV cache, a {q_dtype} model, SM{capability[0]}{capability[1]}, and head dims\n"
        f"    and a FlashInfer version that have the FP8-KV MLA kernel.\n"
        f'    """\n'
        f"    try:\n"
        f"        import flashinfer\n"
        f"\n"
        f"        if model_runner.kv_cache_dtype != torch.{kv_dtype}:\n"
        f"            return None\n"
        f"        if model_runner.dtype != torch.{q_dtype}:\n"
        f"            return None\n"
        f"        if not torch.cuda.is_available():\n"
        f"            return None\n"
        f"        if tuple(torch.cuda.get_device_capability(model_runner.device)) != {capability!r}:\n"
        f"            return None\n"
        f"{dcp}"
        f"        version = {VERSION_FUNCTION}(getattr(flashinfer, \"__version__\", \"0\"))\n"
        f"        ckv = model_runner.model_config.kv_lora_rank\n"
        f"        kpe = model_runner.model_config.qk_rope_head_dim\n"
        f"        if backend == \"auto\":\n"
        f"            backend = {literal(sm90)}\n"
        f"        supported = False\n"
        f"{capable}"
        f"        costs = next((row[1:] for row in _MLA_KV_READ_COSTS if version >= row[0]), None)\n"
        f"        if not supported or costs is None:\n"
        f"            return None\n"
        f"        pool = model_runner.{pool.get('pool', 'token_to_kv_pool')}\n"
        f"        rows = int(pool.{pool.get('size', 'size')}) + int(pool.{pool.get('padding', 'page_size')})\n"
        f"        return {{\"kv_data_type\": model_runner.kv_cache_dtype, \"pool_rows\": rows, \"costs\": costs}}\n"
        f"    except Exception:\n"
        f"        return None\n"
    )


def _plan_function_source(tables: Tables) -> str:
    """The per-plan choice of the cheapest read (recorded on the wrapper), and the plan's arguments for it."""
    graph_attr = tables.kv_pool.get("cuda_graph_attribute", "_use_cuda_graph")
    return (
        f"\n\ndef {PLAN_FUNCTION}(wrapper, fp8_kv_read, qo_indptr, kv_indices, kv_data_type, decode):\n"
        f'    """Choose how the next run() on `wrapper` reads the FP8 pool; return the plan\'s\n'
        f"    (kv_indices, kv_data_type).\n"
        f"\n"
        f"    Host-side only (tensor shapes and host index arrays; no device sync), and\n"
        f"    recorded on the wrapper so that forward follows the plan. Decode reads the\n"
        f"    pool natively. A CUDA-graph wrapper otherwise keeps the cast, so that capture\n"
        f"    and replay agree. Elsewhere the measured cost model picks the cheapest read;\n"
        f"    without a host query count the FP8-KV kernel is not chosen.\n"
        f'    """\n'
        f"    choice = _MLA_KV_CAST\n"
        f"    if fp8_kv_read is not None:\n"
        f"        cast_ms, gather_ms, gather_row_ms, native_ms, native_row_ms, margin = fp8_kv_read[\"costs\"]\n"
        f"        rows = kv_indices.shape[0]\n"
        f"        if decode:\n"
        f"            choice = {READ_CLASS}(native=True)\n"
        f"        elif not getattr(wrapper, \"{graph_attr}\", False):\n"
        f"            original = cast_ms * fp8_kv_read[\"pool_rows\"]\n"
        f"            gathered = gather_ms + gather_row_ms * rows\n"
        f"            queries = None\n"
        f"            if isinstance(qo_indptr, torch.Tensor) and qo_indptr.device.type == \"cpu\" and len(qo_indptr) > 1:\n"
        f"                queries = int(qo_indptr[-1]) / (len(qo_indptr) - 1)\n"
        f"            if queries is not None and native_ms + native_row_ms * rows * queries < margin * min(original, gathered):\n"
        f"                choice = {READ_CLASS}(native=True)\n"
        f"            elif gathered < margin * original:\n"
        f"                # stale tails of a reused index buffer are never read; keep them in range\n"
        f"                choice = {READ_CLASS}(rows=kv_indices.clamp(0, fp8_kv_read[\"pool_rows\"] - 1))\n"
        f"    wrapper.{WRAPPER_ATTR} = choice\n"
        f"    if choice.native:\n"
        f"        return kv_indices, fp8_kv_read[\"kv_data_type\"]\n"
        f"    if choice.rows is not None:\n"
        f"        return torch.arange(rows, dtype=kv_indices.dtype, device=kv_indices.device), kv_data_type\n"
        f"    return kv_indices, kv_data_type\n"
    )


# -- the transformer ---------------------------------------------------------------

class MlaReadRewrite(cst.CSTTransformer):
    def __init__(self, plan: MlaSites, analysis: ModuleAnalysis, tables: Tables, target: Target, keyword_api: bool,
                 backend_kind: str, dcp_expression: Optional[str]):
        super().__init__()
        self.plan, self.analysis, self.tables = plan, analysis, tables
        self.keyword_api = keyword_api
        scales_since = next((row["version"] for row in tables.mla_signatures if row.get("run_scales")), None)
        self.explicit_scales = keyword_api or (scales_since is not None and target.flashinfer_at_least(scales_since))
        self.scale_keywords = run_scales(tables)
        self.keyword_row = next((row for row in tables.mla_signatures if row.get("keyword_form")), None)
        self.backend_kind = backend_kind
        self.dcp_expression = dcp_expression
        self.casts = {id(site.statement): site for site in plan.casts}
        self.plan_statements = {id(site.statement): site for site in plan.plans}
        self.plan_calls = {id(site.call): site for site in plan.plans if site.redirect}
        self.replace_args: Dict[int, str] = {}
        self.runs: Dict[int, Tuple[CastSite, cst.Call]] = {id(r): (s, r) for s in plan.casts for r in s.runs}
        self.insert_first: Dict[int, str] = {}  # id(__init__) -> code placed first (after a docstring)
        self.applied: List[str] = []
        self.rebinds_plan = any(
            m.matches(t.target, m.Attribute(attr=m.Name("plan")))
            for node in m.findall(analysis.module, m.Assign()) for t in node.targets
        )
        self.needs_plan_metadata_import = False
        self.plan_names: Dict[int, Tuple[str, str]] = {}
        self._schedule_inits()
        self._name_plan_locals()

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
        runner = self._param(init, self.tables.kv_pool["runner_parameter"], self.tables.kv_pool["runner_annotation"]) if init else None
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
            init, runner = self._init_with_runner(backend, "the backend has no __init__(model_runner, ...) to "
                                                           "decide the read in")
            self._first(init, (
                "# How FlashInfer's MLA kernels can read this KV pool (decided once, None: cast it).\n"
                f"self.{READ_ATTR} = {GUARD_FUNCTION}({runner}, {literal(self.backend_kind)})\n"))
        owners = []
        for site in self.plan.plans:
            if site.owner is None:
                raise RewriteRefused(self.analysis.position(site.call).start.line,
                                     "the plan() call is not in a class whose __init__ can hold the read choice")
            if site.owner not in owners and site.owner not in backends:
                owners.append(site.owner)
        for owner in owners:
            init, runner = self._init_with_runner(owner, "the plan()'s class has no __init__(model_runner, ...) "
                                                         "to hold the read choice")
            backend_param = self._param(init, self.tables.kv_pool["backend_parameter"], self.tables.kv_pool["backend_annotation"])
            decided = (f'getattr({backend_param}, "{READ_ATTR}", None)' if backend_param
                       else f"{GUARD_FUNCTION}({runner}, {literal(self.backend_kind)})")
            self._first(init, f"self.{READ_ATTR} = {decided}\n")

    def _first(self, init: cst.FunctionDef, code: str) -> None:
        self.insert_first[id(init)] = self.insert_first.get(id(init), "") + code

    def _name_plan_locals(self) -> None:
        for site in self.plan.plans:
            function = self.analysis.enclosing_function(site.call)
            taken = names_in(function) if function is not None else set()
            pick = lambda base: next(n for n in (base, *(f"{base}_{i}" for i in range(2, 20))) if n not in taken)  # noqa: E731
            self.plan_names[id(site.statement)] = (pick("plan_kv_indices"), pick("plan_kv_data_type"))
            if site.redirect:
                indices, dtype = self.plan_names[id(site.statement)]
                self.replace_args[id(site.kv_indices.value)] = indices
                self.replace_args[id(site.kv_arg)] = dtype

    def _plan_prelude(self, site: PlanSite) -> str:
        indices, dtype = self.plan_names[id(site.statement)]
        decode = isinstance(site.causal, cst.Name) and site.causal.value == "False"
        if not site.redirect:
            return (f"{site.wrapper}.{WRAPPER_ATTR} = _MLA_KV_CAST  # this plan keeps the model dtype\n")
        code = self.analysis.code
        return (f"{indices}, {dtype} = {PLAN_FUNCTION}(\n"
                f"    {site.wrapper}, self.{READ_ATTR}, {code(site.qo_indptr.value)}, {code(site.kv_indices.value)}, "
                f"{code(site.kv_arg)}, decode={decode}\n)\n")

    # -- visitors --------------------------------------------------------------
    def leave_SimpleStatementLine(self, original, updated):
        site = self.casts.get(id(original))
        if site is not None:
            assign = updated.body[0]
            keep = updated.with_changes(body=[assign.with_changes(value=assign.value.func.value)])
            v, r = site.variable, site.local_read
            cast = self.analysis.module.code_for_node(
                site.cast.with_changes(func=site.cast.func.with_changes(value=cst.Name(v))))
            guard = statements(
                f"{r} = {READ_FUNCTION}({site.wrapper})\n"
                f"if {r}.rows is not None:\n    {v} = {v}[{r}.rows]\n"
                f"if not {r}.native:\n    {v} = {cast}\n"
            )
            self.applied.append(f"line {self.analysis.position(site.cast).start.line}: read the pool as the plan chose "
                                "(native, the rows it reads, or the original cast)")
            return cst.FlattenSentinel([keep, *guard])
        plan = self.plan_statements.get(id(original))
        if plan is not None:
            line = self.analysis.position(plan.call).start.line
            self.applied.append(f"line {line}: plan() chooses the KV read on the host" if plan.redirect
                                else f"line {line}: plan() records the original cast read")
            return cst.FlattenSentinel([*statements(self._plan_prelude(plan)), updated])
        return updated

    def leave_FunctionDef(self, original, updated):
        code = self.insert_first.get(id(original))
        if not code:
            return updated
        body = list(updated.body.body)
        at = 1 if body and m.matches(body[0], m.SimpleStatementLine(body=[m.Expr(m.SimpleString())])) else 0
        return updated.with_changes(body=updated.body.with_changes(body=[*body[:at], *statements(code), *body[at:]]))

    def leave_Arg(self, original, updated):
        name = self.replace_args.get(id(original.value))
        if name is not None:
            return updated.with_changes(value=cst.Name(name))
        return updated

    def leave_Call(self, original, updated):
        if id(original) in self.plan_calls:
            if self.keyword_api and not self.rebinds_plan and isinstance(original.func, cst.Attribute) \
                    and self._positional_prefix(updated) >= 4:
                return self._keyword_plan(updated)
            return updated
        found = self.runs.get(id(original))
        if found is None:
            return updated
        site, run = found
        keywords = {arg.keyword.value for arg in updated.args if arg.keyword is not None}
        if self.scale_keywords[0] in keywords or any(arg.star == "**" for arg in updated.args):
            return updated
        read = site.local_read if id(original) in site.runs_in_block else f"{READ_FUNCTION}({site.wrapper})"
        if self.explicit_scales:
            extra = [keyword_arg(name, f"{read}.scale") for name in self.scale_keywords]
        else:
            extra = [star_star_arg(f"{read}.scales")]
        args = list(updated.args)
        if self.keyword_api and len([x for x in args if x.keyword is None and not x.star]) >= 4:
            args = self._keyword_run_args(args)
        self.applied.append(f"line {self.analysis.position(original).start.line}: run() gets {'/'.join(self.scale_keywords)}")
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
        value = cst.Tuple([cst.Element(first.value, comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))),
                           cst.Element(second.value)])
        return cst.Arg(keyword=cst.Name(name), value=value, comma=second.comma,
                       equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")))

    def _keyword_run_args(self, args: List[cst.Arg]) -> List[cst.Arg]:
        query, kv_cache = self.keyword_row["run_keywords"][:2]
        return [self._pair(query, args[0], args[1]), self._pair(kv_cache, args[2], args[3]), *args[4:]]

    def _keyword_plan(self, call: cst.Call) -> cst.Call:
        names = self._plan_names()
        args = list(call.args)
        eq = cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace(""))
        spec = self.keyword_row["plan_metadata"]
        metadata = cst.parse_expression(f"{spec['class']}.{spec['constructor']}()").with_changes(
            args=[arg.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")) if i < 3 else cst.MaybeSentinel.DEFAULT,
                                   whitespace_after_arg=cst.SimpleWhitespace(""))
                  for i, arg in enumerate(args[:4])])
        metadata_keyword = self.keyword_row["plan_keywords"][0]
        new_args = [cst.Arg(keyword=cst.Name(metadata_keyword), value=metadata, equal=eq, comma=args[3].comma)]
        for i, arg in enumerate(args[4:], start=4):
            if arg.keyword is None:
                arg = arg.with_changes(keyword=cst.Name(names[i]), equal=eq)
            new_args.append(arg)
        new_args = append_args(new_args, [keyword_arg(name, f'"{layout}"')
                                          for name, layout in self.keyword_row["plan_layouts"].items()])
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
        spec = self.keyword_row["plan_metadata"]
        statement = statements(f"from {spec['module']} import {spec['class']}\n")[0]
        wrapper = self.tables.mla_wrapper()
        mla_class, wrapper_module = wrapper.cls, wrapper.module

        class AddImport(cst.CSTTransformer):
            done = False

            def leave_SimpleStatementLine(self, original, updated):
                if not AddImport.done and m.matches(updated, m.SimpleStatementLine(body=[m.ImportFrom(module=m.Name(wrapper_module))])):
                    names = [alias.name.value for alias in updated.body[0].names] if not isinstance(updated.body[0].names, cst.ImportStar) else []
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

    def apply(self, module: cst.Module, ctx: FileContext, findings: List, options: FixOptions) -> CodemodResult:
        target = detect_target(ctx.path, ctx.tables, options.flashinfer_version)
        keyword_api = options.flashinfer_api == "keyword"  # auto: positional, which every pinned FlashInfer takes
        analysis = ctx.analysis
        try:
            sites = find_sites(ctx, findings)
            if not sites.casts:
                return CodemodResult(module, [], sites.skipped)
            transformer = MlaReadRewrite(sites, analysis, ctx.tables, target, keyword_api, _backend_kind(analysis),
                                         _dcp_expression(analysis))
        except RewriteRefused as exc:
            return CodemodResult(module, [], [(exc.line, f"FlashInfer MLA fix not applied to this file: {exc.reason}")])
        result = CodemodResult(module.visit(transformer), transformer.applied, list(sites.skipped))
        if keyword_api and transformer.rebinds_plan and sites.plans:
            result.skipped.append((analysis.position(sites.plans[0].call).start.line,
                                   "plan() calls kept positional: this module rebinds `.plan` to sglang's "
                                   "fast_mla_*_plan, which takes positional arguments (FlashInfer 0.7 accepts "
                                   "them with a DeprecationWarning)"))
        since = _keyword_form_since(ctx.tables)
        if keyword_api and since and target.flashinfer and not target.flashinfer_at_least(since):
            result.skipped.append((1, f"keyword form emitted, but the target pins FlashInfer {target.flashinfer}, "
                                      f"which has no keyword plan/run; upgrade FlashInfer to >= {since}"))
        return result


def _backend_kind(analysis: ModuleAnalysis) -> str:
    """The `backend=` the module constructs its MLA wrapper with ("auto" when none)."""
    backend_kind = "auto"
    mla_class = analysis.tables.mla_wrapper().cls
    for call in analysis.nodes.calls:
        if dotted(call.func) and dotted(call.func).endswith(mla_class):
            for arg in call.args:
                if arg.keyword is not None and arg.keyword.value == "backend" and isinstance(arg.value, cst.SimpleString):
                    backend_kind = arg.value.evaluated_value
    return backend_kind


def _dcp_expression(analysis: ModuleAnalysis) -> Optional[str]:
    """The module's decode-context-parallel switch (`...dcp_enabled`), if it has one."""
    for attr in analysis.nodes.attributes:
        if attr.attr.value == analysis.tables.kv_pool.get("dcp_attribute"):
            return analysis.code(attr)
    return None
