"""Small helpers for building libcst edits that keep the file's formatting."""

from __future__ import annotations

import re
from typing import Dict, List, Optional, Sequence

import libcst as cst

from castlint.analysis.tree import iter_nodes


def clean_separator(template: cst.CSTNode) -> cst.Comma:
    """A comma that separates arguments the way `template` does, minus any comment."""
    if isinstance(template, cst.Comma):
        after = template.whitespace_after
        if isinstance(after, cst.ParenthesizedWhitespace):
            return cst.Comma(
                whitespace_before=cst.SimpleWhitespace(""),
                whitespace_after=cst.ParenthesizedWhitespace(
                    first_line=cst.TrailingWhitespace(),
                    empty_lines=[],
                    indent=after.indent,
                    last_line=after.last_line,
                ),
            )
    return cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))


def append_args(args: Sequence[cst.Arg], new: Sequence[cst.Arg]) -> List[cst.Arg]:
    """args + new, laid out like the existing ones (one per line if they are)."""
    args = list(args)
    if not new:
        return args
    if not args:
        out = list(new)
        for i in range(len(out) - 1):
            out[i] = out[i].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        return out
    template = args[-2].comma if len(args) >= 2 else args[-1].comma
    sep = clean_separator(template)
    last = args[-1]
    if isinstance(last.comma, cst.Comma):  # trailing comma: it carries the newline before ')'
        closing_comma = last.comma
        if isinstance(sep.whitespace_after, cst.SimpleWhitespace) and isinstance(
            closing_comma.whitespace_after, cst.ParenthesizedWhitespace
        ):
            sep = clean_separator(closing_comma)
        args[-1] = last.with_changes(comma=sep)
        tail = [a.with_changes(comma=sep) for a in new[:-1]] + [new[-1].with_changes(comma=closing_comma)]
    else:
        closing_ws = last.whitespace_after_arg
        args[-1] = last.with_changes(comma=sep, whitespace_after_arg=cst.SimpleWhitespace(""))
        tail = [a.with_changes(comma=sep) for a in new[:-1]] + [
            new[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT, whitespace_after_arg=closing_ws)
        ]
    return args + tail


def keyword_arg(name: str, value: str) -> cst.Arg:
    return cst.Arg(
        keyword=cst.Name(name),
        value=cst.parse_expression(value),
        equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")),
    )


def star_star_arg(value: str) -> cst.Arg:
    return cst.Arg(value=cst.parse_expression(value), star="**")


def statements(code: str) -> List[cst.BaseStatement]:
    """Parse code into statements; leading comments and blank lines stay with the first."""
    module = cst.parse_module(code)
    body = list(module.body)
    if body and module.header:
        body[0] = body[0].with_changes(leading_lines=[*module.header, *body[0].leading_lines])
    return body


def literal(value) -> str:
    """Python source for a str/int/float/tuple in the double-quote style of black."""
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, tuple):
        inner = ", ".join(literal(v) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    return repr(value)


# -- engine code laid out as Black lays it out ------------------------------------------

LINE_LENGTH = 88  # Black's default; a fix lays its code out at the tree's (castlint.fixes.style)


class Record:
    """A row of a NamedTuple table in engine code, written as a call: Name(field=value, ...)."""

    def __init__(self, name: str, **fields):
        self.name, self.fields = name, fields

    def source(self, column: int, suffix: str = "", indent: int = 0, line_length: int = LINE_LENGTH) -> str:
        """As Black lays it out when it starts at `column` of a line indented by `indent`
        and `suffix` follows it."""
        args = [f"{key}={_value_source(value, False)}" for key, value in self.fields.items()]
        one = f"{self.name}({', '.join(args)})"
        if column + len(one) + len(suffix) <= line_length:
            return one
        pad = " " * indent
        inner = ", ".join(args)
        if indent + 4 + len(inner) <= line_length:
            return f"{self.name}(\n{pad}    {inner}\n{pad})"
        return f"{self.name}(\n" + "".join(f"{pad}    {a},\n" for a in args) + f"{pad})"


def _value_source(value, top: bool = True, column: int = 0, line_length: int = LINE_LENGTH) -> str:
    """Python source for a placeholder's value, laid out as Black would: a table of rows
    gets one row per line, and a row too long for one line one element per line."""
    if isinstance(value, Record):
        return value.source(column, line_length=line_length)
    if top and isinstance(value, tuple) and value and all(isinstance(v, Record) for v in value):
        return "(\n" + "".join(f"    {row.source(4, ',', 4, line_length)},\n" for row in value) + ")"
    if top and isinstance(value, tuple) and value and all(isinstance(v, tuple) for v in value):
        rows = []
        for row in value:
            flat = f"    {_value_source(row, False)},"
            if len(flat) > line_length:
                flat = "    (\n" + "".join(f"        {_value_source(v, False)},\n" for v in row) + "    ),"
            rows.append(flat + "\n")
        return "(\n" + "".join(rows) + ")"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{literal(k)}: {_value_source(v)}" for k, v in value.items()) + "}"
    if isinstance(value, tuple):
        return "(" + ", ".join(_value_source(v, False) for v in value) + ("," if len(value) == 1 else "") + ")"
    return literal(value) if isinstance(value, str) else repr(value)


def black_call(target: Optional[str], func: str, args: List[str], column: int, line_length: int = LINE_LENGTH) -> str:
    """`target = func(args)` (`func(args)` when target is None) as Black lays it out at this
    indentation column: on one line, or the arguments on one line inside the parentheses,
    or one argument per line."""
    head = f"{target} = {func}" if target is not None else func
    one = f"{head}({', '.join(args)})"
    if column + len(one) <= line_length:
        return one + "\n"
    inner = ", ".join(args)
    if column + 4 + len(inner) <= line_length:
        return f"{head}(\n    {inner}\n)\n"
    return f"{head}(\n" + "".join(f"    {a},\n" for a in args) + ")\n"


def fit_statement(
    statement: cst.SimpleStatementLine, column: int, line_length: int = LINE_LENGTH, rejoin: bool = False
) -> List[cst.BaseStatement]:
    """A one-line `x = f(...)` or `f(...)` statement too long for the line, laid out as Black
    lays it out (the arguments on their own line or one per line); with `rejoin`, also such a
    statement over several lines whose call has no magic trailing comma and no comment (an
    argument added to it may no longer fit its line); anything else as it is."""
    node = statement.body[0] if len(statement.body) == 1 else None
    code = cst.Module([]).code_for_node
    text = code(node) if node is not None else "\n"
    if statement.trailing_whitespace.comment is not None:
        return [statement]
    if isinstance(node, cst.Assign) and len(node.targets) == 1 and isinstance(node.value, cst.Call):
        target, call = code(node.targets[0].target), node.value
    elif isinstance(node, cst.Expr) and isinstance(node.value, cst.Call):
        target, call = None, node.value
    else:
        return [statement]
    if "\n" in text:
        magic = bool(call.args) and isinstance(call.args[-1].comma, cst.Comma)
        if not rejoin or magic or "#" in text:
            return [statement]
    elif column + len(text) <= line_length:
        return [statement]
    args = [one_line(arg.with_changes(comma=cst.MaybeSentinel.DEFAULT)).strip() for arg in call.args]
    laid = statements(black_call(target, code(call.func), args, column, line_length))
    return [laid[0].with_changes(leading_lines=statement.leading_lines), *laid[1:]]


def fill_placeholders(text: str, values: Dict[str, object], template: str, line_length: int = LINE_LENGTH) -> str:
    """A template's `NAME = ()` / `{}` / `""` / `0.0` placeholders, each replaced by its value laid
    out as Black would at `line_length`; ValueError naming the template when one is missing."""
    for name, value in values.items():
        filled = f"{name} = " + (
            value.source(len(name) + 3, line_length=line_length)
            if isinstance(value, Record)
            else _value_source(value, line_length=line_length)
        )
        if "\n" not in filled and len(filled) > line_length and isinstance(value, (tuple, dict)) and value:
            # too long for one line: one element per line, ending in a magic trailing comma
            items = (
                [f"{literal(k)}: {_value_source(v)}" for k, v in value.items()]
                if isinstance(value, dict)
                else [_value_source(v, False) for v in value]
            )
            opening, closing = "{}" if isinstance(value, dict) else "()"
            filled = f"{name} = {opening}\n" + "".join(f"    {item},\n" for item in items) + closing
        text, found = re.subn(rf"^{name} = (\(\)|\{{\}}|\"\"|0\.0)$", lambda _: filled, text, count=1, flags=re.M)
        if not found:
            raise ValueError(f"{template}: no placeholder {name}")
    return text


# -- call-site edits shared by the codemods -------------------------------------------


def fresh_name(function: cst.CSTNode, base: str) -> str:
    """base, or base_2, base_3 ...: the first name the function does not use."""
    taken = {n.value for n in iter_nodes(function, cst.Name)}
    return next(n for n in (base, *(f"{base}_{i}" for i in range(2, 50))) if n not in taken)


def one_line(node: cst.BaseExpression) -> str:
    """An expression's source on one line (an original may span several): its
    parenthesized whitespace and trailing commas dropped, as Black joins a short call."""

    class Flatten(cst.CSTTransformer):
        def on_leave(self, original, updated):
            if isinstance(updated, cst.ParenthesizedWhitespace):
                return cst.SimpleWhitespace("")
            return updated

        def leave_Comma(self, original, updated):
            return updated.with_changes(
                whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace(" ")
            )

    flat = node.visit(Flatten())
    text = cst.Module([]).code_for_node(flat)
    return re.sub(r",\s*([)\]}])", r"\1", text)


def add_import(module: cst.Module, line: str, name: str) -> cst.Module:
    """`line` among the module's top-level imports, where isort (profile black) puts it:
    with the `from` imports of its top package, in module order; else after the imports."""
    body = list(module.body)
    statement = cst.parse_statement(line)
    imports = [
        i
        for i, s in enumerate(body)
        if isinstance(s, cst.SimpleStatementLine) and isinstance(s.body[0], (cst.Import, cst.ImportFrom))
    ]
    if any(cst.Module([]).code_for_node(body[i]).strip() == line.strip() for i in imports):
        return module
    top = name.split(".")[0]
    froms = []
    for i in imports:
        node = body[i].body[0]
        if isinstance(node, cst.ImportFrom) and not node.relative and node.module is not None:
            froms.append((i, cst.Module([]).code_for_node(node.module)))
    same = [(i, dotted) for i, dotted in froms if dotted.split(".")[0] == top] or froms
    if same:
        later = [i for i, dotted in same if dotted.lower() > name.lower()]
        at = later[0] if later else same[-1][0] + 1
        if later and body[at].leading_lines:  # the blank lines/comments above it stay above
            statement = statement.with_changes(leading_lines=body[at].leading_lines)
            body[at] = body[at].with_changes(leading_lines=[])
    elif imports:
        at = imports[-1] + 1
    else:
        at = 0
    body.insert(at, statement)
    return module.with_changes(body=body)


class ImportingRewrite(cst.CSTTransformer):
    """A rewrite that renames the arguments it redirects (redirect: id of an original Arg -> the
    name it now passes) and imports what it calls from the module the fix adds."""

    def __init__(self, import_line: str, import_module: str):
        super().__init__()
        self.redirect: Dict[int, str] = {}
        self.import_line, self.import_module = import_line, import_module

    def leave_Arg(self, original, updated):
        name = self.redirect.get(id(original))
        return updated if name is None else updated.with_changes(value=cst.Name(name))

    def leave_Module(self, original, updated):
        return add_import(updated, self.import_line, self.import_module)
