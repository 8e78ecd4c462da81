"""One `ast.parse` per source: the pruner and the learnt-accessor pass read the same tree."""

from __future__ import annotations

import ast
from typing import Optional

_LAST: list = [None, None]  # [source, tree or the exception it raised]


def parse(source: bytes) -> ast.Module:
    """ast.parse(source), parsed once for consecutive callers of the same bytes (the trees
    are read, never changed)."""
    if _LAST[0] is not source:
        try:
            _LAST[1] = ast.parse(source)
        except BaseException as exc:  # noqa: BLE001 - re-raised to every caller
            _LAST[1] = exc
        _LAST[0] = source
    if isinstance(_LAST[1], BaseException):
        raise _LAST[1]
    return _LAST[1]


def parsed(source: bytes) -> bool:
    """Has parse() already seen these very bytes (its answer is then free)?"""
    return _LAST[0] is source


_INDEX: list = [None, [], {}, []]  # [tree, nodes in preorder, id(node) -> index, index -> end of its subtree]
# fields that hold no node, or only the shared singletons nothing reads (contexts, operators)
_NO_NODES = frozenset(
    {"ctx", "op", "ops", "type_comment", "id", "arg", "attr", "value_str", "kind", "level", "is_async", "conversion"}
)
CHILD_FIELDS: dict = {}  # node type -> the fields that can hold child nodes (child_fields)


def child_fields(node_type: type) -> tuple:
    """The fields of node_type that can hold child nodes (not contexts or operators)."""
    names = CHILD_FIELDS.get(node_type)
    if names is None:
        names = CHILD_FIELDS[node_type] = tuple(f for f in node_type._fields if f not in _NO_NODES)
    return names


_SINGLETONS = (ast.expr_context, ast.operator, ast.unaryop, ast.boolop, ast.cmpop)


def nodes(node: ast.AST) -> list:
    """The nodes of node's subtree, node first, each parent before its children (what ast.walk
    yields, without the context and operator singletons, in another order). A subtree of the tree
    parse() made last is a slice of one index of that tree, so the pruner's many walks of a file
    cost one; any other node is walked."""
    tree = _LAST[1]
    if _INDEX[0] is not tree and isinstance(tree, ast.AST) and isinstance(node, (ast.stmt, ast.mod)):
        _build_index(tree)  # (an expression is walked: one small walk costs less than the index)
    at = _INDEX[2].get(id(node)) if _INDEX[0] is tree else None
    if at is None or _INDEX[1][at] is not node:
        return [n for n in ast.walk(node) if not isinstance(n, _SINGLETONS)]
    return _INDEX[1][at : _INDEX[3][at]]


def _build_index(tree: ast.AST) -> None:
    order: list = []
    ends: list = []
    where: dict = {}
    stack: list = [tree]
    pop, push, AST, fields = stack.pop, stack.append, ast.AST, CHILD_FIELDS
    while stack:
        node = pop()
        if type(node) is int:
            ends[node] = len(order)
            continue
        i = len(order)
        where[id(node)] = i
        order.append(node)
        ends.append(0)
        push(i)
        names = fields.get(type(node))
        if names is None:
            names = child_fields(type(node))
        for name in names:
            value = getattr(node, name, None)
            if type(value) is list:
                for item in reversed(value):
                    if isinstance(item, AST):
                        push(item)
            elif isinstance(value, AST):
                push(value)
    _INDEX[:] = [tree, order, where, ends]


def dotted(node: ast.AST) -> Optional[str]:
    """`a.b.c` of a Name or an Attribute chain of names; None for anything else."""
    if type(node) is ast.Name:
        return node.id
    if type(node) is ast.Attribute:
        base = dotted(node.value)
        return None if base is None else f"{base}.{node.attr}"
    return None
