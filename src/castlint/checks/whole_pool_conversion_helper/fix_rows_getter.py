"""The rows getter: beside a pool accessor that dequantizes its whole buffer, one that
dequantizes only the rows a kernel reads.

For each sibling castlint.checks.whole_pool_conversion_helper.rows_getter_proof derived (the CL004 finding's
`Fix.site`), the method

    def get_key_buffer(self, layer_id: int):
        ...
        return batched_dequantize(packed, scales)

gets, right after it,

    def get_key_buffer_rows(self, layer_id: int, rows: torch.Tensor):
        \"\"\"...\"\"\"
        ...
        return batched_dequantize(packed[rows], scales[rows])

with every other `return` made `return None` (that buffer is read as stored), and a
`return self._get_key_buffer(layer_id)` made `return self._get_key_buffer_rows(layer_id, rows)`.
The accessor itself is unchanged.
"""

from __future__ import annotations

from typing import Dict, List

import libcst as cst

from castlint.analysis.tree import iter_nodes
from castlint.checks.whole_pool_conversion_helper.rows_getter_proof import CODEMOD, RowsGetter
from castlint.fixes.base import Codemod, CodemodResult, FixOptions


def _imports_torch(module: cst.Module) -> bool:
    for statement in module.body:
        if isinstance(statement, cst.SimpleStatementLine):
            for node in statement.body:
                if isinstance(node, cst.Import) and any(
                    isinstance(a.name, cst.Name) and a.name.value == "torch" and a.asname is None for a in node.names
                ):
                    return True
    return False


class _Sibling(cst.CSTTransformer):
    """The accessor's body, rewritten into its sibling's (keyed on the original nodes);
    its comments are left with the accessor (the docstring says what the sibling is)."""

    def __init__(self, getter: RowsGetter):
        super().__init__()
        self.getter = getter
        self.rows = cst.Name(getter.parameter)

    def leave_Return(self, original, updated):
        if self.getter.returns.get(id(original)) == "none":
            return updated.with_changes(value=cst.Name("None"), whitespace_after_return=cst.SimpleWhitespace(" "))
        return updated

    def leave_Call(self, original, updated):
        sibling = self.getter.delegations.get(id(original))
        if sibling is None:
            return updated
        args = list(updated.args)
        last = args[-1]
        args[-1] = last.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        args.append(cst.Arg(self.rows, comma=last.comma))
        return updated.with_changes(func=updated.func.with_changes(attr=cst.Name(sibling)), args=args)

    def leave_EmptyLine(self, original, updated):
        return cst.RemoveFromParent() if updated.comment is not None else updated

    def leave_TrailingWhitespace(self, original, updated):
        return updated.with_changes(whitespace=cst.SimpleWhitespace(""), comment=None)

    def on_leave(self, original, updated):
        if id(original) in self.getter.row_args and isinstance(updated, cst.BaseExpression):
            return cst.Subscript(updated, [cst.SubscriptElement(cst.Index(self.rows))])
        return super().on_leave(original, updated)


def _is_return_none(statement) -> bool:
    return (
        isinstance(statement, cst.SimpleStatementLine)
        and len(statement.body) == 1
        and isinstance(statement.body[0], cst.Return)
        and isinstance(statement.body[0].value, cst.Name)
        and statement.body[0].value.value == "None"
    )


def _drop_dead_ifs(body: list) -> list:
    """`if test: return None` right before `return None` (a test with no call) says nothing: drop it."""
    out = list(body)
    i = len(out) - 2
    while i >= 0 and _is_return_none(out[-1]):
        node = out[i]
        if not (
            isinstance(node, cst.If)
            and node.orelse is None
            and len(node.body.body) == 1
            and _is_return_none(node.body.body[0])
            and not any(True for _ in iter_nodes(node.test, cst.Call))
        ):
            break
        out[-1] = out[-1].with_changes(leading_lines=node.leading_lines)
        del out[i]
        i -= 1
    return out


def _docstring(getter: RowsGetter, indent: str) -> cst.SimpleStatementLine:
    name, rows = getter.method.name.value, getter.parameter
    if getter.stub:
        text = f'"""None: `{name}` reads its buffer as stored."""'
    else:
        text = (
            f'"""`{name}(...)` at the rows `{rows}` only, each dequantized alone.\n\n'
            f"{indent}None when that buffer is read as stored: read it with `{name}`.\n"
            f'{indent}"""'
        )
    return cst.SimpleStatementLine([cst.Expr(cst.SimpleString(text))])


def sibling(getter: RowsGetter, annotate: bool, indent: str) -> cst.FunctionDef:
    method = getter.method
    new = method.visit(_Sibling(getter))
    if getter.stub:  # reads as stored: nothing of the accessor's body is needed
        new = new.with_changes(
            body=new.body.with_changes(body=[cst.SimpleStatementLine([cst.Return(cst.Name("None"))])])
        )
    params = list(new.params.params)
    annotation = cst.Annotation(cst.parse_expression("torch.Tensor")) if annotate else None
    params[-1] = params[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
    params.append(cst.Param(cst.Name(getter.parameter), annotation=annotation))
    body = list(new.body.body)
    first = body[0] if body else None
    has_doc = (
        isinstance(first, cst.SimpleStatementLine)
        and isinstance(first.body[0], cst.Expr)
        and isinstance(first.body[0].value, (cst.SimpleString, cst.ConcatenatedString))
    )
    doc = _docstring(getter, indent)
    body = _drop_dead_ifs([doc, *body[1:]] if has_doc else [doc, *body])
    return new.with_changes(
        name=cst.Name(getter.name),
        params=new.params.with_changes(params=params),
        body=new.body.with_changes(body=body),
        leading_lines=[cst.EmptyLine(indent=False)],
    )


class _Insert(cst.CSTTransformer):
    def __init__(self, getters: List[RowsGetter], annotate: bool, indent: str):
        super().__init__()
        self.after: Dict[int, RowsGetter] = {id(g.method): g for g in getters}
        self.annotate = annotate
        self.indent = indent
        self.applied: List[str] = []

    def leave_FunctionDef(self, original, updated):
        getter = self.after.get(id(original))
        if getter is None:
            return updated
        self.applied.append(f"`{getter.cls.name.value}.{getter.name}`: the rows a kernel reads, dequantized alone")
        return cst.FlattenSentinel([updated, sibling(getter, self.annotate, self.indent)])


def _body_indent(module: cst.Module, method: cst.FunctionDef) -> str:
    """The indent of the method body's statements (class indent + the block's)."""
    block = method.body
    own = block.indent if isinstance(block, cst.IndentedBlock) and block.indent is not None else module.default_indent
    return module.default_indent + own


class RowsGetterFix(Codemod):
    name = CODEMOD
    order = 40

    def apply(self, module: cst.Module, ctx, findings: List, options: FixOptions) -> CodemodResult:
        getters, seen = [], set()
        for finding in findings:
            site = finding.fix.site
            if isinstance(site, list):
                for getter in site:
                    if id(getter.method) not in seen:
                        seen.add(id(getter.method))
                        getters.append(getter)
        if not getters:
            return CodemodResult(module)
        annotate = _imports_torch(module)
        rewrite = _Insert(getters, annotate, _body_indent(module, getters[0].method))
        new = module.visit(rewrite)
        return CodemodResult(new, applied=rewrite.applied)


__all__ = ["RowsGetterFix", "sibling"]
