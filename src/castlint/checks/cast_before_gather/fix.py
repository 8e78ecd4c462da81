"""CL003's codemod: move a dtype cast after the gather that follows it.

`pool.to(d)[idx]` -> `pool[idx].to(d)`; `pool.to(d).index_select(0, i)` ->
`pool.index_select(0, i).to(d)`; `x = pool.to(d)` (or `x: T = ...`) used only as
`x[idx]` -> `x = pool` and `x[idx].to(d)`. Whether the move keeps every value, and which
reads it must rewrite, is proved by castlint.analysis.cast_motion.assess; CL003
attaches that proof (a CastMove) to its finding, and this codemod applies it.
Unsafe moves are applied only with --unsafe-fixes.
"""

from __future__ import annotations

from typing import Dict, List

import libcst as cst

from castlint.analysis.cast_motion import cast_chain
from castlint.checks.cast_before_gather.rule import CODEMOD
from castlint.fixes.base import Codemod, CodemodResult, FixOptions
from castlint.models import FixSafety

# -- the rewrite -------------------------------------------------------------------


class MoveCastsAfterGathers(cst.CSTTransformer):
    def __init__(
        self,
        direct: Dict[int, int],
        assigns: Dict[int, int],
        uses: Dict[int, List[cst.Call]],
        functions: Dict[int, int] = None,
    ):
        super().__init__()
        self.functions = functions or {}  # id(outer cast call), the input of a gather function -> chain depth
        self.direct = direct  # id(outer cast call) -> chain depth
        self.assigns = assigns  # id(assigned cast call) -> chain depth
        self.uses = uses  # id(Name) of a read -> the casts to apply after its gather

    @staticmethod
    def _recast(gathered: cst.BaseExpression, chain: List[cst.Call]) -> cst.BaseExpression:
        for cast in chain:
            gathered = cst.Call(func=cst.Attribute(value=gathered, attr=cast.func.attr), args=cast.args)
        return gathered

    def leave_Subscript(self, original, updated):
        value = original.value
        if id(value) in self.direct:
            base, chain = cast_chain(updated.value, self.direct[id(value)])
            return self._recast(updated.with_changes(value=base), chain)
        if isinstance(value, cst.Name) and id(value) in self.uses:
            return self._recast(updated, self.uses[id(value)])
        return updated

    def leave_Call(self, original, updated):
        if original.args and id(original.args[0].value) in self.functions:  # torch.index_select(pool.to(d), ...)
            base, chain = cast_chain(updated.args[0].value, self.functions[id(original.args[0].value)])
            args = [updated.args[0].with_changes(value=base)] + list(updated.args[1:])
            return self._recast(updated.with_changes(args=args), chain)
        if original.args and isinstance(original.args[0].value, cst.Name) and id(original.args[0].value) in self.uses:
            return self._recast(updated, self.uses[id(original.args[0].value)])  # torch.index_select(x, ...)
        func = original.func
        if isinstance(func, cst.Attribute) and id(func.value) in self.direct:
            base, chain = cast_chain(updated.func.value, self.direct[id(func.value)])
            return self._recast(updated.with_changes(func=updated.func.with_changes(value=base)), chain)
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and id(func.value) in self.uses:
            return self._recast(updated, self.uses[id(func.value)])
        return updated

    def leave_Assign(self, original, updated):
        if id(original.value) in self.assigns:
            base, _ = cast_chain(updated.value, self.assigns[id(original.value)])
            return updated.with_changes(value=base)
        return updated

    leave_AnnAssign = leave_Assign  # `x: T = pool.to(d)`


class CastAfterGather(Codemod):
    name = CODEMOD
    order = 10

    def apply(self, module: cst.Module, ctx, findings: List, options: FixOptions) -> CodemodResult:
        direct: Dict[int, int] = {}
        assigns: Dict[int, int] = {}
        uses: Dict[int, List[cst.Call]] = {}
        functions: Dict[int, int] = {}
        result = CodemodResult(module)
        for finding in findings:
            move = finding.fix.site  # castlint.analysis.cast_motion.CastMove
            if move.safety == FixSafety.UNSAFE and not options.unsafe:
                result.skipped.append((finding.start.line, f"unsafe fix ({move.reason}); use --unsafe-fixes"))
                continue
            if move.form == "direct":
                direct[id(move.call)] = move.depth
            elif move.form == "function":
                functions[id(move.call)] = move.depth
            else:
                assigns[id(move.call)] = move.depth
                _, chain = cast_chain(move.call, move.depth)
                for use in move.uses:
                    uses[id(use)] = chain
        if direct or assigns or functions:
            result.module = module.visit(MoveCastsAfterGathers(direct, assigns, uses, functions))
            counts = f"{len(direct)} direct, {len(assigns)} variable" + (
                f", {len(functions)} function" if functions else ""
            )
            result.applied.append(f"cast moved after the gather ({counts})")
        return result
