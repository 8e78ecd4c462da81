"""Small helpers for building libcst edits that keep the file's formatting."""
from __future__ import annotations

from typing import List, Sequence

import libcst as cst


def clean_separator(template: cst.CSTNode) -> cst.Comma:
    """A comma that separates arguments the way `template` does, minus any comment."""
    if isinstance(template, cst.Comma):
        after = template.whitespace_after
        if isinstance(after, cst.ParenthesizedWhitespace):
            return cst.Comma(
                whitespace_before=cst.SimpleWhitespace(""),
                whitespace_after=cst.ParenthesizedWhitespace(
                    first_line=cst.TrailingWhitespace(), empty_lines=[], indent=after.indent,
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
        keyword=cst.Name(name), value=cst.parse_expression(value),
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
