"""What several parts of the flow model read: the kinds of an index's or a `.to()` argument's
value, the depth limit, and small tree predicates."""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

if TYPE_CHECKING:
    from castlint.analysis.dataflow.analysis import ModuleAnalysis


def _is_none(expr: cst.BaseExpression) -> bool:
    return isinstance(expr, cst.Name) and expr.value == "None"


# What an index (or a `.to()` argument) holds, decided by its value.
SCALAR, TENSOR, UNKNOWN = "scalar", "tensor", "unknown"
DTYPE, DEVICE = "dtype", "device"

MAX_DEPTH = 12


def _annotation_kind(analysis: ModuleAnalysis, param: cst.Param, for_index: bool = False) -> str:
    """What a parameter's annotation says it holds ([dtype_spelling] *_annotations): for an
    index SCALAR or TENSOR, for a `.to()` argument DEVICE, DTYPE or TENSOR."""
    if param.annotation is None:
        return UNKNOWN
    t = analysis.tables
    text = analysis.code(param.annotation.annotation).strip("'\"")
    if text in t.tensor_annotations:
        return TENSOR
    if for_index:
        return SCALAR if text in t.scalar_annotations else UNKNOWN
    if text in t.device_annotations:
        return DEVICE
    if text in t.dtype_annotations:
        return DTYPE
    return UNKNOWN
