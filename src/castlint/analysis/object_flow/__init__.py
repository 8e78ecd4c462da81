"""Values through objects, classes and call indirection, for ModuleAnalysis.

A pool reaches a cast through more than names and `self.x`:
- an object of a class in the module (`self.kv_io = KVIO(pool)`, `reader.layer(i)`):
  its attributes are what the class's methods assign to `self.<attr>` (with the
  arguments of the construction bound to `__init__`'s parameters), or, for a
  dataclass or NamedTuple, the construction's arguments for that field;
- a method found through the class hierarchy of the module (`self.m()` defined
  in a base, `super().m()`), and attributes assigned anywhere in a class's family;
- a callable held under another name: a bound method (`self._get = pool.get_key_buffer`),
  `functools.partial(f, ...)`, `getattr(obj, "name")` with a constant name.

Everything is decided from where a value comes from (the same Origin lattice as
castlint.analysis.dataflow), never from how it is spelled.

One module a part, each a mixin that `flow.ObjectFlow` composes: classes (ModuleClasses); instances
(InstanceClasses); decorators (Decorators); narrowing (IsinstanceNarrowing); elements (Elements);
introspection (IntrospectedCallables); held_callables (HeldCallables); containers (Containers);
shared holds what several read.
"""

from __future__ import annotations

from castlint.analysis.object_flow.containers import KeyShape
from castlint.analysis.object_flow.flow import ObjectFlow
from castlint.analysis.object_flow.shared import SELF_CLASS

__all__ = ["KeyShape", "ObjectFlow", "SELF_CLASS"]
