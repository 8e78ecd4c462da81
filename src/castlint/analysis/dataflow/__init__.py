"""Follow values through assignments on the libcst tree.

`ModuleAnalysis.origin(expr)` answers: is this expression a whole KV pool
(every slot of a layer), a container of whole pools, an active prefix of one, a
gather of some slots of one, or something else? It follows

- names to the assignments that reach the use, in statement order (ScopeProvider
  for the candidates, the block structure for their order), through tuple
  unpacking, for loops and comprehensions;
- `self.x` to its assignments anywhere in the class, and cache attributes to the
  class's own allocation of them;
- parameters to the arguments of their call sites: `self.method(...)` in the
  class, `f(...)` for module-level and nested functions and named lambdas,
  `map(f, xs)`; and to engines' calling conventions (rules/conventions.toml);
- calls to helpers defined in the file to what they return, given the call's
  arguments.

Indices are told by their value (a layer id is a scalar, a table of indices a
tensor), `.to()` arguments by theirs (a device, a dtype or a tensor). See
docs/analysis.md.

One module a part, each a mixin that `analysis.ModuleAnalysis` composes with tree navigation
(castlint.analysis.tree), conversion queries (castlint.analysis.conversions) and object flow
(castlint.analysis.object_flow): origins (Origins); subscripts (Subscripts); index_values
(IndexValues); names (ReachingAssignments); patterns (PatternMatching); attributes (SelfAttributes);
parameters (Parameters); returns (ReturnValues); casts (Casts); dtype_values (DtypeValues); shared
holds what several read.
"""

from __future__ import annotations

from castlint.analysis.dataflow.analysis import ModuleAnalysis
from castlint.analysis.dataflow.shared import DEVICE, DTYPE, MAX_DEPTH, SCALAR, TENSOR, UNKNOWN
from castlint.analysis.origin import Origin

__all__ = ["DEVICE", "DTYPE", "MAX_DEPTH", "SCALAR", "TENSOR", "UNKNOWN", "ModuleAnalysis", "Origin"]
