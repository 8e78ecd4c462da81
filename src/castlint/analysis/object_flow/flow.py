"""ObjectFlow: this package's parts composed into the one mixin ModuleAnalysis takes."""

from __future__ import annotations

from castlint.analysis.object_flow.classes import ModuleClasses
from castlint.analysis.object_flow.containers import Containers
from castlint.analysis.object_flow.decorators import Decorators
from castlint.analysis.object_flow.elements import Elements
from castlint.analysis.object_flow.held_callables import HeldCallables
from castlint.analysis.object_flow.instances import InstanceClasses
from castlint.analysis.object_flow.introspection import IntrospectedCallables
from castlint.analysis.object_flow.narrowing import IsinstanceNarrowing, KeyTestNarrowing


class ObjectFlow(
    ModuleClasses,
    InstanceClasses,
    Decorators,
    IsinstanceNarrowing,
    KeyTestNarrowing,
    Elements,
    IntrospectedCallables,
    HeldCallables,
    Containers,
):
    """Mixed into ModuleAnalysis: needs nodes, reaching, binding, enclosing_class, origin,
    self_attr_values, _returned, class_methods."""
