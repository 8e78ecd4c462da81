"""What several parts of the object flow read: the binding of self's class and dotted names."""

from __future__ import annotations

from typing import Optional

import libcst as cst


def _dotted(node) -> Optional[str]:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        inner = _dotted(node.value)
        return f"{inner}.{node.attr.value}" if inner else None
    if isinstance(node, cst.Call):
        return _dotted(node.func)
    return None


SELF_CLASS = ("self-class",)  # a binding: the name of the class self is an instance of
