"""Which attention wrapper a plan() call belongs to, and the dtypes it passes.

The wrappers, their plan methods and their dtype parameters (by position and
keyword, per version) are data: rules/flashinfer.toml.
"""
from __future__ import annotations

from typing import Optional, Tuple

import libcst as cst

from castlint.analysis.dataflow import ModuleAnalysis, dotted, iter_nodes
from castlint.tables import Wrapper


def _annotation_class(analysis: ModuleAnalysis, receiver: cst.BaseExpression) -> Optional[str]:
    """The class named in the annotation of a parameter, or in `x = Class(...)` (the first
    one, for a Union)."""
    classes = _annotation_classes(analysis, receiver)
    return classes[0] if classes else None


def _annotation_classes(analysis: ModuleAnalysis, receiver: cst.BaseExpression) -> Optional[Tuple[str, ...]]:
    """The classes named in the annotation of a parameter (every member of a `Union[...]`,
    `Optional[...]` or `A | B`, as sglang <= 0.4.3 annotates its decode/MLA wrappers), or
    in `x = Class(...)`."""
    if isinstance(receiver, cst.Name):
        scope = analysis.scopes.get(receiver)
        if scope is None:
            return None
        for assignment in scope.assignments[receiver.value]:
            node = getattr(assignment, "node", None)
            param = node if isinstance(node, cst.Param) else analysis.parent(node) if node is not None else None
            if isinstance(param, cst.Param) and param.annotation is not None:
                return _classes_named(analysis, param.annotation.annotation)
            if isinstance(node, cst.Name):
                value, _ = analysis.assigned_value(node)
                if isinstance(value, cst.Call):
                    name = (dotted(value.func) or "").rsplit(".", 1)[-1]
                    return (name,) if name else None
    if isinstance(receiver, cst.Attribute) and isinstance(receiver.value, cst.Name) and receiver.value.value == "self":
        cls = analysis.enclosing_class(receiver)
        if cls is not None:
            for value in analysis.self_attr_values(cls, receiver.attr.value):
                if isinstance(value, cst.Call):
                    name = (dotted(value.func) or "").rsplit(".", 1)[-1]
                    return (name,) if name else None
    return None


_TYPING_WRAPPERS = {"Union", "Optional", "typing", "List", "Tuple", "Sequence", "None", "Type"}


def _classes_named(analysis: ModuleAnalysis, annotation: cst.BaseExpression) -> Tuple[str, ...]:
    if isinstance(annotation, cst.SimpleString):
        text = annotation.evaluated_value if isinstance(annotation.evaluated_value, str) else ""
        parts = [p.strip() for p in text.replace("Union[", ",").replace("Optional[", ",")
                 .replace("]", ",").replace("|", ",").split(",")]
        return tuple(p.rsplit(".", 1)[-1] for p in parts if p and p.rsplit(".", 1)[-1] not in _TYPING_WRAPPERS)
    text = dotted(annotation)
    if text is not None:
        return (text.rsplit(".", 1)[-1],)
    out = []
    for node in iter_nodes(annotation, (cst.Name, cst.Attribute, cst.SimpleString)):
        if isinstance(node, cst.SimpleString):
            out.extend(_classes_named(analysis, node))
        elif isinstance(node, cst.Name) and node.value not in _TYPING_WRAPPERS and not isinstance(
                analysis.parent(node), cst.Attribute):
            out.append(node.value)
        elif isinstance(node, cst.Attribute) and not isinstance(analysis.parent(node), cst.Attribute):
            out.append(node.attr.value)
    return tuple(dict.fromkeys(out))


def match_wrapper(analysis: ModuleAnalysis, call: cst.Call) -> Optional[Wrapper]:
    """The attention wrapper (rules/flashinfer.toml) whose plan() this call is, or None."""
    t = analysis.tables
    if isinstance(call.func, cst.Name):
        return t.wrapper_function(call.func.value)
    if not isinstance(call.func, cst.Attribute):
        return None
    candidates = t.wrapper_for_method(call.func.attr.value)
    if not candidates:
        return None
    positional = [arg for arg in call.args if arg.keyword is None and not arg.star]
    keywords = {arg.keyword.value for arg in call.args if arg.keyword is not None}
    classes = _annotation_classes(analysis, call.func.value)
    if classes is not None:
        named = [w for w in candidates if w.cls in classes]
        # the annotated class whose dtype parameters this call actually passes: sglang
        # <= 0.4.3 annotates a paged-prefill wrapper that is an MLA wrapper under
        # --enable-flashinfer-mla, and calls it with the MLA plan's 12 arguments
        if not named:
            return None
        fitting = [w for w in named if _passes_dtypes(w, positional, keywords)]
        if fitting:
            return fitting[0]
        # none of the annotated wrappers takes the dtypes where this call passes them:
        # tell the wrapper by the call itself, below
    keyworded = [w for w in candidates if keywords & ({w.q_dtype.keyword, w.kv_dtype.keyword} | set(w.aliases))]
    if keyworded:
        return keyworded[0]
    by_arity = [w for w in candidates if w.kv_dtype.index is not None and len(positional) == w.kv_dtype.index + 1]
    if by_arity and len({(w.q_dtype.index, w.kv_dtype.index) for w in by_arity}) == 1:
        return by_arity[0]
    return None


def _passes_dtypes(w: Wrapper, positional, keywords) -> bool:
    """Does a call with these arguments pass w's q dtype (positionally or by keyword)?"""
    if w.q_dtype.keyword in keywords:
        return True
    return w.q_dtype.index is not None and len(positional) > w.q_dtype.index


def dtype_argument(call: cst.Call, wrapper: Wrapper, which: str) -> Optional[cst.BaseExpression]:
    """The expression this call passes as wrapper's q (which="q") or kv dtype, or None."""
    param = wrapper.q_dtype if which == "q" else wrapper.kv_dtype
    names = {param.keyword} | (set(wrapper.aliases) if which == "kv" else set())
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value in names:
            return arg.value
    positional = [arg for arg in call.args if arg.keyword is None and not arg.star]
    if param.index is not None and param.index < len(positional):
        return positional[param.index].value
    return None


def receiver_is_known(analysis: ModuleAnalysis, call: cst.Call, wrapper: Wrapper) -> bool:
    """Is the receiver of this plan() call known to be an instance of wrapper's class?"""
    if isinstance(call.func, cst.Name):
        return True
    return wrapper.cls in (_annotation_classes(analysis, call.func.value) or ())
