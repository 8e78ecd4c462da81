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
"""

from __future__ import annotations

import operator
import re
from typing import Dict, List, Optional, Sequence, Tuple

import libcst as cst
from libcst.metadata import Assignment, ComprehensionScope, ImportAssignment

from castlint.analysis.conversions import ConversionQueries
from castlint.analysis.object_flow import SELF_CLASS, ObjectFlow
from castlint.analysis.origin import Origin
from castlint.analysis.tree import NodeIndex, TreeNavigation, children, dotted, iter_nodes, name_parts, resolve_scopes
from castlint.tables import Tables

# A constructor's data written out: Python values, never a tensor's copy (constructor_parts)
_WRITTEN_DATA = (
    cst.List,
    cst.Tuple,
    cst.Set,
    cst.ListComp,
    cst.SetComp,
    cst.GeneratorExp,
    cst.Integer,
    cst.Float,
    cst.SimpleString,
    cst.ConcatenatedString,
    cst.FormattedString,
)


def _is_none(expr: cst.BaseExpression) -> bool:
    return isinstance(expr, cst.Name) and expr.value == "None"


# What an index (or a `.to()` argument) holds, decided by its value.
SCALAR, TENSOR, UNKNOWN = "scalar", "tensor", "unknown"
DTYPE, DEVICE = "dtype", "device"

MAX_DEPTH = 12

_SCOPE_NODES = (
    cst.FunctionDef,
    cst.Lambda,
    cst.ClassDef,
    cst.Module,
    cst.ListComp,
    cst.SetComp,
    cst.DictComp,
    cst.GeneratorExp,
)
_BLOCKS = (cst.IndentedBlock, cst.Module, cst.SimpleStatementLine, cst.SimpleStatementSuite)
_QUOTIENT_OPERATORS = (cst.FloorDivide, cst.Divide, cst.RightShift)
# int arithmetic a constant slice bound is folded through (`2**63 - 1`, `1 << 62`)
_FOLDED_OPERATORS = {
    cst.Add: operator.add,
    cst.Subtract: operator.sub,
    cst.Multiply: operator.mul,
    cst.Power: operator.pow,
    cst.LeftShift: operator.lshift,
}


_EINSUM_LETTERS = re.compile(r"\.\.\.|[A-Za-z]")
_EINSUM_NAMES = re.compile(r"\.\.\.|[A-Za-z_][A-Za-z0-9_]*")


def _einsum_dims(side: str) -> Optional[List[str]]:
    """The dimensions one side of an einsum equation names: letters (`thd`), or names separated by
    spaces as einops writes them (`t h d`, `blocks heads dim`), `...` as one; None for several
    operands (`,`) or anything else (a parenthesized group)."""
    side = side.strip()
    if not side or "," in side:
        return None
    spaced = " " in side
    pattern = _EINSUM_NAMES if spaced else _EINSUM_LETTERS
    dims = pattern.findall(side)
    rest = pattern.sub("", side).replace(" ", "")
    return dims if dims and not rest else None


def _display_element(value: cst.BaseExpression, key) -> Optional[cst.BaseExpression]:
    """The element a constant position or key selects of a tuple, list or dict display; None when
    the display does not show it."""
    if isinstance(value, (cst.Tuple, cst.List)) and isinstance(key, cst.Integer):
        elements = list(value.elements)
        index = int(key.value)
        if all(isinstance(e, cst.Element) for e in elements) and index < len(elements):
            return elements[index].value
    if isinstance(value, cst.Dict) and isinstance(key, cst.SimpleString):
        for e in value.elements:
            shown = isinstance(e, cst.DictElement) and isinstance(e.key, cst.SimpleString)
            if shown and e.key.evaluated_value == key.evaluated_value:
                return e.value
    return None


_SEQUENCE_DISPLAYS = (cst.Tuple, cst.List, cst.ListComp, cst.GeneratorExp)


def _name_shape(expr: cst.BaseExpression) -> Optional[Tuple[str, str]]:
    """(literal head, literal tail) of an attribute name spelled as an f-string (`f"kv_{i}"`: ("kv_", "")),
    or a literal string (head and tail the whole); None when nothing of it is written out."""
    if isinstance(expr, cst.SimpleString) and isinstance(expr.evaluated_value, str):
        return expr.evaluated_value, expr.evaluated_value
    if not isinstance(expr, cst.FormattedString):
        return None
    parts = expr.parts
    head = parts[0].value if parts and isinstance(parts[0], cst.FormattedStringText) else ""
    tail = parts[-1].value if len(parts) > 1 and isinstance(parts[-1], cst.FormattedStringText) else ""
    return head, tail


def _shapes_meet(a: Optional[Tuple[str, str]], b: Optional[Tuple[str, str]]) -> bool:
    """May two attribute-name shapes spell the same name (heads and tails agree where both are written)?"""
    if a is None or b is None:
        return True
    heads = a[0].startswith(b[0]) or b[0].startswith(a[0])
    tails = a[1].endswith(b[1]) or b[1].endswith(a[1])
    return heads and tails


class ModuleAnalysis(TreeNavigation, ConversionQueries, ObjectFlow):
    def __init__(self, wrapper: cst.MetadataWrapper, tables: Tables, pruned=None, own_lines: Optional[int] = None):
        """pruned: a castlint.prune.Pruned when wrapper.module is a pruned copy of the
        file (positions are then mapped back to the file's lines); own_lines: the file's
        own lines when definitions of other files of the tree follow them
        (castlint.analysis.tree_index): those stand where the file imports them."""
        self.own_lines = own_lines
        self.wrapper = wrapper
        self.module = wrapper.module
        self.tables = tables
        self.scopes = resolve_scopes(wrapper)
        self._positions = None  # resolved on first use
        # One walk gives the parent map and the node index (ParentNodeProvider walks
        # the tree again through CSTNode.children, which costs as much as a parse).
        self.nodes = NodeIndex.build(self.module)
        self.parents = self.nodes.parents
        self._pruned = pruned
        if pruned is not None:
            self.nodes.names |= pruned.dropped_names
            self.nodes.attr_names |= pruned.dropped_attr_names
        self._origin_cache: Dict[int, Origin] = {}
        self.derived: Dict[str, object] = {}  # what a proof derives once per module (by its name)
        self._in_progress: set = set()
        self._self_attr_index: Dict[Tuple[int, str], List[cst.BaseExpression]] = {}
        self._method_calls: Dict[Tuple[int, str], List[cst.Call]] = {}
        self._indexed_classes: set = set()
        self._hot_cache: Dict[int, set] = {}
        self._pool_casts: Optional[List[Tuple[cst.Call, str]]] = None
        self._conversions: Optional[List[Tuple[cst.Call, str, str]]] = None
        self._call_conversions: Optional[List[Tuple[cst.Call, str, str]]] = None
        self._frames: List[tuple] = []  # (def or lambda, call) of the calls being followed
        self._bindings: List[Dict[int, Origin]] = []  # parameter origins of the calls being followed
        self._returns_cache: Dict[tuple, Origin] = {}
        self._returns_in_progress: set = set()
        self._callers: Optional[Dict[int, List[cst.Call]]] = None  # id(def or lambda) -> calls by name
        self._mapped: Optional[Dict[int, List[Tuple[cst.Call, int]]]] = None  # id(def) -> map() calls
        self._anc_ids: Dict[int, frozenset] = {}
        self._kind_cache: Dict[Tuple[str, int], str] = {}
        self._held_params: set = set()  # names of the parameters some binding hands a callable
        self._callerless: set = set()  # ids of the stand-in calls that pass nothing, defaults included

    # -- words from the tables ----------------------------------------------
    def _has_word(self, text: str, words: Sequence[str]) -> bool:
        low = text.lower()
        return any(word in low for word in words)

    # -- origins -------------------------------------------------------------
    def origin(self, expr: cst.BaseExpression, depth: int = 0) -> Origin:
        key = id(expr)
        if key in self._origin_cache:
            return self._origin_cache[key]
        if key in self._in_progress or depth > MAX_DEPTH:
            return Origin.OTHER
        self._in_progress.add(key)
        try:
            result = self._origin(expr, depth + 1)
        finally:
            self._in_progress.discard(key)
        self._origin_cache[key] = result
        return result

    def _origin(self, expr: cst.BaseExpression, depth: int) -> Origin:
        if isinstance(expr, cst.Call):
            return self._call_origin(expr, depth)
        if isinstance(expr, cst.Attribute):
            if expr.attr.value in self.tables.cache_attributes:
                return self._cache_attr_origin(expr, depth)
            if expr.attr.value in self.tables.view_attributes or expr.attr.value in self.tables.whole_copy_attributes:
                viewed = self.origin(expr.value, depth)  # `pool.mT`, `pool.data`: the same slots
                if viewed >= Origin.PREFIX or viewed == Origin.GATHERED:
                    return viewed
            if expr.attr.value in self.tables.record_as_dict_attributes:  # `rec.__dict__`: its fields
                fields = self._fields_origin(expr.value, depth)
                if fields == Origin.POOL_TUPLE:
                    return fields
            introspected = self.introspected_values(expr)
            if introspected is not None:  # `p.args` of a partial, `fn.__closure__`, `cell.cell_contents`
                return max(self.origin(v, depth) for v in introspected)
            if isinstance(expr.value, cst.Name) and expr.value.value == "self":
                return self._self_attr_origin(expr, depth)
            held = self.held_attribute(expr)
            if held is not None:  # `_tls.engine` of `_tls = threading.local()`: what the module stores there
                return max((self.origin(v, depth) for v in held), default=Origin.OTHER)
            return self._instance_attr_origin(expr, depth)
        if isinstance(expr, cst.Subscript):
            part = self.nodes.unpacked_parts.get(id(expr))
            if part is not None:  # `self.a, self.b = value`: unpacked by position, as a name would be
                return self._unpacked(part[0], (part[1],), depth)
            return self._subscript_origin(expr, depth)
        if isinstance(expr, cst.Name):
            return self._name_origin(expr, depth)
        if isinstance(expr, cst.IfExp):
            taken = self._none_test(expr.test)  # `base if loc is None else base[loc]`, loc bound by the call
            if taken is not None:
                return self.origin(expr.body if taken else expr.orelse, depth)
            return max(self.origin(expr.body, depth), self.origin(expr.orelse, depth))
        if isinstance(expr, cst.BooleanOperation):
            return max(self.origin(expr.left, depth), self.origin(expr.right, depth))
        if isinstance(expr, cst.NamedExpr):
            return self.origin(expr.value, depth)
        if isinstance(expr, cst.Await):  # `await self.src.fetch(n)`: what the coroutine returns
            return self.origin(expr.expression, depth)
        if isinstance(expr, cst.Yield):  # `buf = yield out`: what `.send(v)` hands the generator
            generator = self.enclosing_function(expr)
            sent = self.sent_values().get(id(generator), ()) if generator is not None else ()
            return max((self.origin(v, depth) for v in sent), default=Origin.OTHER)
        if isinstance(expr, cst.BinaryOperation):
            return self._elementwise_origin(expr, depth)
        if isinstance(expr, cst.UnaryOperation) and not isinstance(expr.operator, cst.Not):
            # `-pool`, `~packed`, `+pool`: every slot, elementwise
            found = self.origin(expr.expression, depth)
            return found if found >= Origin.PREFIX or found == Origin.GATHERED else Origin.OTHER
        if isinstance(expr, (cst.Tuple, cst.List)):
            inner = [self.origin(e.value, depth) for e in expr.elements if isinstance(e, cst.Element)]
            # `[*self.k_caches, *self.v_caches]`: the elements of a container of whole caches
            spread = [self.origin(e.value, depth) for e in expr.elements if isinstance(e, cst.StarredElement)]
            return (
                Origin.POOL_TUPLE
                if any(o >= Origin.POOL_TUPLE for o in inner) or Origin.POOL_TUPLE in spread
                else Origin.OTHER
            )
        if isinstance(expr, cst.Dict):
            inner = [self.origin(e.value, depth) for e in expr.elements if isinstance(e, cst.DictElement)]
            spread = [self.origin(e.value, depth) for e in expr.elements if isinstance(e, cst.StarredDictElement)]
            return (
                Origin.POOL_TUPLE
                if any(o >= Origin.POOL_TUPLE for o in inner) or Origin.POOL_TUPLE in spread
                else Origin.OTHER
            )
        if isinstance(expr, (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)):
            element = expr.value if isinstance(expr, cst.DictComp) else expr.elt
            if self.origin(element, depth) >= Origin.POOL_TUPLE:
                return Origin.POOL_TUPLE
            # a class's per-layer arenas, wherever they are stored (`self.arenas = {"k": [torch.zeros(
            # (size + 1, h, d)) for _ in range(layer_num)], ...}`): one whole pool per element
            return Origin.POOL_TUPLE if self._per_layer_arenas(expr, element) else Origin.OTHER
        return Origin.OTHER

    def _call_origin(self, expr: cst.Call, depth: int) -> Origin:
        t = self.tables
        func = expr.func
        inner = self.wrapped_value(expr)
        if inner is not None:  # `weakref.proxy(pool)`, `self._ref()` of `weakref.ref(pool)`: the value itself
            return self.origin(inner, depth)
        held = self.held_values(expr)
        if held is not None:  # `_KV.get()` of `_KV = ContextVar(...)`: the worst value any `_KV.set(v)` stores
            return max((self.origin(v, depth) for v in held), default=Origin.OTHER)
        operated = self.operator_node(expr)
        if operated is not None:  # `operator.add(acc, [buf])`: acc + [buf]; `sum(lists, [])`: [] + lists[0]
            return max(self.origin(v, depth) for v in operated)
        if self._arena_allocation(expr):
            return Origin.POOL
        stacked = self._layer_stacked_allocation(expr)
        if stacked:
            # layers first: a container of layers; a pool's blocks first and its layers inside
            # (`torch.empty((num_blocks, num_layers, 2, ...))`): every slot of every layer
            return Origin.POOL_TUPLE if stacked == "layers" else Origin.POOL
        if (
            (
                (isinstance(func, cst.Name) and func.value in t.iter_passthrough)
                or self.qualified(expr) in t.keep_elements
            )
            and expr.args
            and not expr.args[0].star
            and expr.args[0].keyword is None
        ):
            # `list(map(pool.get_key_buffer, layers))`, `collections.deque(pool.k_buffer)`: the same
            # elements, in another container
            inner = self.origin(expr.args[0].value, depth)
            if inner < Origin.POOL_TUPLE:  # `iter(walker)`, `list(walker)`: what its class's __iter__ yields
                inner = self._protocol_iteration(expr.args[0].value, depth)
            if inner == Origin.POOL_TUPLE:
                return inner
        sources = self.iteration_sources(expr)
        if sources is not None and any(self.origin(a, depth) == Origin.POOL_TUPLE for a in sources[0]):
            return Origin.POOL_TUPLE  # `chain(ks, vs)`, `islice(caches, a, b)`, `filter(p, caches)`: their elements
        shape = self.iteration_kind(expr)
        if shape is not None:  # `enumerate(caches)`, `itertools.product(ids, halves)`, `repeat(cache, 2)`
            return self._shaped_origin(expr, shape, depth)
        source = self.fields_source(expr)
        if source is not None:  # `vars(rec)`, `rec._asdict()`: a dict of rec's fields
            fields = self._fields_origin(source, depth)
            if fields == Origin.POOL_TUPLE:
                return fields
        if self.qualified_in(expr, t.tree_flatten):  # (the leaves, a spec): the leaves, read as the tree
            tree = self._first_positional(expr.args)
            whole = tree is not None and self.origin(tree, depth) >= Origin.POOL_TUPLE
            return Origin.POOL_TUPLE if whole else Origin.OTHER
        if self.qualified(expr) in t.take_functions and expr.args and not expr.args[0].star:
            # `next(iter(d.values()))`: one element of what it iterates
            taken = self._element(self.origin(expr.args[0].value, depth))
            if taken >= Origin.POOL_TUPLE:
                return taken
        read = self._attribute_getter_origin(expr, depth)
        if read is not None:
            return read
        receiver, method, args = self.method_parts(expr)
        if method is not None and method in self._function_short_names():
            found = self._function_origin(expr, depth)  # `torch.chunk(pool, 2)`, not `pool.chunk(2)`
            if found is not None:
                return found
        if method is not None:
            if (
                receiver is func.value
                and method in t.accessors
                and self._accessor_receiver_ok(expr)
                and not self._small_state_method(receiver, method)
            ):
                # the method that runs for the receiver's class decides where the file shows it:
                # an override (or another class's method of the name) that gathers or windows
                # the step's rows returns no whole pool (`_StepReader.fetch`: index_select)
                ran = self._object_method_origin(expr, method, receiver, depth)
                if (
                    ran is not None
                    and Origin.OTHER < ran < Origin.POOL_TUPLE
                    and self._sibling_returns_pool(expr, method)
                ):
                    return ran
                return Origin.POOL_TUPLE if t.accessors[method].returns == "tuple" else Origin.POOL
            spelled = self._spelled_subscript(expr, method, receiver, args)
            if spelled is not None:  # `buf.__getitem__(slice(None))`: `buf[:]`
                return self.origin(spelled, depth)
            if receiver is not None:
                through = self._through_method(expr, method, receiver, args, depth)
                if through is not None:
                    return through
                if (method in t.element_methods or method in t.take_methods) and args and not args[0].star:
                    # `d.get(k)`, `d.pop(k)` read what `d[k]` does; `d.setdefault(k, v)` may also give v
                    element = cst.Subscript(receiver, [cst.SubscriptElement(cst.Index(args[0].value))])
                    self.parents.setdefault(element, self.parents.get(expr))
                    found = self.origin(element, depth + 1)
                    if method in t.default_last and len(args) > 1:
                        found = max(found, self.origin(args[-1].value, depth))
                    if found >= Origin.POOL_TUPLE:
                        return found
                elif method in t.take_methods and not args:  # `ring.popleft()`: any element
                    found = self._element(self.origin(receiver, depth))
                    if found >= Origin.POOL_TUPLE:
                        return found
                if method in t.member_methods and all(a.keyword for a in args):
                    members = self._member_origin(receiver, depth)  # `pool.buffers()`, `plist.parameters()`
                    if members == Origin.POOL_TUPLE:
                        return members
                if (method in t.keep_methods or method in t.item_methods) and all(a.keyword for a in args):
                    # (a keyword picks no element: `od.popitem(last=False)`)
                    # `d.values()`, `xs.copy()`: the same elements; `d.popitem()`: a (key, value) item, read as d
                    kept = self.origin(receiver, depth)
                    if kept == Origin.POOL_TUPLE:
                        return kept
            returned = self._object_method_origin(expr, method, receiver, depth)
            if returned is not None:
                return returned
            return self._alias_call_origin(expr, depth)
        found = self._function_origin(expr, depth)
        if found is not None:
            return found
        pairs = self.pair_items(expr)
        if pairs is not None:
            # `dict(zip(names, self.k_bufs))`, `dict(enumerate(pool.k_buffer, start=s))`: its values are
            # the second of each pair
            values = max((self._unpacked(p, (1,), depth) for p in pairs), default=Origin.OTHER)
            return Origin.POOL_TUPLE if values >= Origin.POOL_TUPLE else Origin.OTHER
        merged = self.merged_mappings(expr)
        if merged is not None and any(self.origin(m, depth) == Origin.POOL_TUPLE for m in merged):
            return Origin.POOL_TUPLE  # `ChainMap(draft, base)`, `dict(base)` of dicts of caches
        keywords = self.dict_keywords(expr)
        if keywords is not None:  # `dict(k=pool.k_buffer[i], ...)`: a dict of whole caches
            inner = [self.origin(v, depth) for v in keywords.values()]
            return Origin.POOL_TUPLE if any(o >= Origin.POOL_TUPLE for o in inner) else Origin.OTHER
        fn = self.applied_function(expr)
        if fn is not None and self.applier(expr) != "fold" and len(expr.args) >= fn + 2:
            # map(f, xs): f applied to an element of xs (`map(itemgetter(0), pairs)`); tree_map(f, tree),
            # tree_map_only(T, f, tree): to each leaf of tree
            element = self._element_of(expr.args[fn + 1].value, None)
            applied = self.__dict__.setdefault("_applied_nodes", {}).get(id(expr))
            if applied is None:
                applied = cst.Call(func=expr.args[fn].value, args=[cst.Arg(value=element)])
                self.parents.setdefault(applied, self.parents.get(expr))
                self._applied_nodes[id(expr)] = applied
            each = self.origin(applied, depth + 1)
            return Origin.POOL_TUPLE if each >= Origin.POOL_TUPLE else Origin.OTHER
        if isinstance(func, cst.Name):
            returned = self._return_origin(expr, depth)
            if returned is not None:
                return returned
        return self._alias_call_origin(expr, depth)

    def operator_node(self, call: cst.BaseExpression) -> Optional[List[cst.BaseExpression]]:
        """What a call of a function that is a binary operator computes, as expressions of this module's
        parent map (rules/accessors.toml [callables]): `operator.add(a, b)` is `a + b`, `operator.or_(a,
        b)` `a | b` (add_functions, or_functions); `sum(xs, start)` with a display to start from (a list
        or tuple concatenation, not numbers) is start and `start + xs[j]` (sum_functions); None otherwise."""
        t = self.tables
        if not isinstance(call, cst.Call) or any(a.star for a in call.args):
            return None
        cache = self.__dict__.setdefault("_operator_nodes", {})
        if id(call) in cache:
            return cache[id(call)]
        found = None
        positional = [a.value for a in call.args if a.keyword is None]
        if len(positional) == 2 and len(call.args) == 2:
            for names, op in ((t.add_functions, cst.Add()), (t.or_functions, cst.BitOr())):
                if self.qualified_in(call, names):
                    found = [cst.BinaryOperation(left=positional[0], operator=op, right=positional[1])]
                    break
        if found is None and positional and self.qualified_in(call, t.sum_functions):
            start = (
                positional[1]
                if len(positional) > 1
                else next((a.value for a in call.args if a.keyword is not None and a.keyword.value == "start"), None)
            )
            if isinstance(start, (cst.List, cst.Tuple)):
                element = self._element_of(positional[0], None)
                found = [start, cst.BinaryOperation(left=start, operator=cst.Add(), right=element)]
        if found is not None:
            for node in found:
                self.parents.setdefault(node, self.parents.get(call))
        cache[id(call)] = found
        return found

    def _shaped_origin(self, call: cst.Call, shape: str, depth: int) -> Origin:
        """A container of whole pools when iterating call (of iteration_kind shape) yields one at some
        position: an element of a container of them (enumerate, zip, product, tree_leaves) or the
        repeated value itself (itertools.repeat of a pool)."""
        args = self.iterated_args(call)
        if shape == "counters" or not args:
            return Origin.OTHER
        if shape == "repeats":
            return Origin.POOL_TUPLE if self.origin(args[0], depth) >= Origin.POOL_TUPLE else Origin.OTHER
        if shape == "leaves":  # a tree that is a pool, or holds pools: its leaves are pools
            return Origin.POOL_TUPLE if self.origin(args[0], depth) >= Origin.POOL_TUPLE else Origin.OTHER
        iterables = args[:1] if shape == "numbered" else args
        for iterable in iterables:
            if self.origin(iterable, depth) == Origin.POOL_TUPLE or (
                self._protocol_iteration(iterable, depth) == Origin.POOL_TUPLE
            ):
                return Origin.POOL_TUPLE
        return Origin.OTHER

    def _fields_origin(self, obj: cst.BaseExpression, depth: int) -> Origin:
        """A dict of obj's fields (`vars(rec)`, `rec.__dict__`, `rec._asdict()`): a container of whole
        pools when one of the fields of obj's class is one."""
        fields = self.any_field_attributes(obj)
        found = max((self.origin(a, depth) for a in fields), default=Origin.OTHER)
        return Origin.POOL_TUPLE if found >= Origin.POOL_TUPLE else Origin.OTHER

    def applier(self, call: cst.BaseExpression) -> Optional[str]:
        """How a call runs the function it is given (rules/accessors.toml, by qualified name): "map"
        (`map(f, xs)`: f on each element of xs; [iteration] apply), "tree" (`tree_map(f, tree)`: f on
        each leaf; [iteration] tree_apply), "typed" (`tree_map_only(T, f, tree)`; tree_apply_typed),
        "fold" (`functools.reduce(f, xs, init)`: f on the accumulated value and each element;
        [callables] fold_functions); None for any other."""
        if not isinstance(call, cst.Call) or not isinstance(call.func, (cst.Name, cst.Attribute)) or not call.args:
            return None
        shorts = self.__dict__.get("_applier_shorts")
        if shorts is None:
            t = self.tables
            shorts = self._applier_shorts = {
                n.rsplit(".", 1)[-1] for n in (*t.iter_apply, *t.tree_apply, *t.tree_apply_typed, *t.fold_functions)
            }
        func = call.func
        short = func.value if isinstance(func, cst.Name) else func.attr.value
        if short not in shorts or short in self.nodes.local_callables or any(a.star for a in call.args[:2]):
            return None
        name = self.qualified(call) or ""
        t = self.tables
        if name in t.iter_apply or (isinstance(func, cst.Name) and func.value in t.iter_apply):
            return "map"
        if name in t.tree_apply:
            return "tree"
        if name in t.tree_apply_typed:
            return "typed"
        if name in t.fold_functions:
            return "fold"
        return None

    def applied_function(self, call: cst.BaseExpression) -> Optional[int]:
        """The position of the function argument an applier call runs (its iterables follow it)."""
        kind = self.applier(call)
        if kind is None:
            return None
        fn = 1 if kind == "typed" else 0
        return fn if len(call.args) > fn and call.args[fn].keyword is None else None

    def qualified_in(self, call: cst.BaseExpression, names) -> bool:
        """Is call a call of one of names (qualified, under any import alias)?"""
        if not names or not isinstance(call, cst.Call) or not isinstance(call.func, (cst.Name, cst.Attribute)):
            return False
        func = call.func
        short = func.value if isinstance(func, cst.Name) else func.attr.value
        shorts = self.__dict__.setdefault("_short_sets", {})
        known = shorts.get(id(names))
        if known is None:
            known = shorts[id(names)] = frozenset(n.rsplit(".", 1)[-1] for n in names)
        if short not in known:
            return False
        return self.qualified(call) in names

    def _object_method_origin(self, call: cst.Call, method: str, receiver, depth: int) -> Optional[Origin]:
        """`super().m(...)` and `obj.m(...)` with obj an instance of a class of this module."""
        if receiver is None or receiver is not call.func.value:
            return None
        if not (isinstance(receiver, cst.Name) and receiver.value == "self") and not (
            isinstance(receiver, cst.Call) and isinstance(receiver.func, cst.Name) and receiver.func.value == "super"
        ):
            frames = self.construction_frames(receiver)
            if any(self.replaced_record(c) is not None for c, _ in frames):
                frames = []  # a record's copy with fields replaced: no __init__ ran for it
            if frames and len(frames) <= 8:
                # `LatentView(k).nope()`: the method reads the attributes of *that* construction
                found = [
                    self._under_construction(c, lambda: self._return_origin(call, depth), depth, env)
                    for c, env in frames
                ]
                if any(f is not None for f in found):
                    return max(f for f in found if f is not None)
                return None
            duck = self.duck_class(receiver, method, method=True)
            if duck is not None:  # `mgr.get_buffers(i)`, mgr of no known class: the one class defining it
                return self._returned(call, self.class_methods(duck)[method], True, depth)
        return self._return_origin(call, depth)

    def _under_construction(self, call: cst.Call, compute, depth: int, env: Optional[Dict[int, Origin]] = None):
        """compute() with __init__'s parameters bound to what this construction passes (its
        arguments read under env: the parameters of the helper that made it, bound by its call)."""
        cls = self.instance_class(call)
        init = self.find_method(cls, "__init__") if cls is not None else None
        bindings: Dict[int, Origin] = {}
        saved, saved_returns = self._origin_cache, self._returns_cache
        self._origin_cache, self._returns_cache = {}, {}  # both hold results under other bindings
        if init is not None:
            self._bindings.append(env or {})
            try:
                for param in (*init.params.posonly_params, *init.params.params, *init.params.kwonly_params):
                    argument = self._argument_for(call, init, param, skip_self=True)
                    bindings[id(param)] = self._passed_origin(call, argument, param, depth)
            finally:
                self._bindings.pop()
            self._origin_cache = {}
        self._bindings.append(bindings)
        try:
            return compute()
        finally:
            self._bindings.pop()
            self._origin_cache, self._returns_cache = saved, saved_returns

    def _spelled_subscript(self, call: cst.Call, method, receiver, args) -> Optional[cst.Subscript]:
        """`x.__getitem__(k)` ([views] subscript_methods) as the subscript `x[k]`, a node of this module's
        parent map; None for any other call, or for x of a module class that defines the method."""
        if method not in self.tables.subscript_methods or receiver is None or len(args) != 1:
            return None
        if args[0].keyword is not None or args[0].star:
            return None
        owner = self.instance_class(receiver)
        if owner is not None and self.find_method(owner, method) is not None:
            return None
        cache = self.__dict__.setdefault("_spelled_subscripts", {})
        if id(call) not in cache:
            index = args[0].value
            parts = [index]  # `x.__getitem__((slice(None), 0))` is `x[:, 0]`
            if isinstance(index, cst.Tuple) and index.elements:
                if not any(isinstance(e, cst.StarredElement) for e in index.elements):
                    parts = [e.value for e in index.elements]
            node = cst.Subscript(receiver, [cst.SubscriptElement(cst.Index(p)) for p in parts])
            self.parents.setdefault(node, self.parents.get(call))
            cache[id(call)] = node
        return cache[id(call)]

    def _sibling_returns_pool(self, call: cst.Call, method: str) -> bool:
        """Does a method of this name that the call does not run (another class's, the base's
        an override replaces) return a whole pool? Then the name was learnt from it, and the
        method that runs for the receiver's class decides."""
        ran = {id(target) for target, _, _ in self.return_targets(call)}
        if not ran:
            return False
        for cls in self.nodes.classes:
            other = self.class_methods(cls).get(method)
            if other is None or id(other) in ran:
                continue
            if any(self.origin(v) >= Origin.POOL_TUPLE for v in self._return_values(other)):
                return True
        return False

    def _alias_call_origin(self, call: cst.Call, depth: int) -> Origin:
        """A call through a held callable: a bound method stored under another name, a
        functools.partial, getattr with a constant name."""
        best = Origin.OTHER
        for value in self.applied_values(call):
            best = max(best, self.origin(value, depth))
        for form, bound in self.callable_values(call.func):
            if isinstance(form, tuple) and form[0] == "closure":  # make_reader(pool)(i): the inner def
                _, inner, env, skip = form
                synthetic = cst.Call(func=call.func, args=self.merged_args(bound, call.args))
                self.parents.setdefault(synthetic, self.parents.get(call))
                best = max(best, self._returned(synthetic, inner, skip, depth, env=env))
                continue
            if isinstance(form, tuple):  # methodcaller("m", ...)(x): x.m(...); attrgetter, itemgetter
                continue
            synthetic = cst.Call(func=form, args=self.merged_args(bound, call.args))
            self.parents.setdefault(synthetic, self.parents.get(call))
            if isinstance(form, cst.Lambda):  # a lambda held under a name or attribute
                best = max(best, self._returned(synthetic, form, False, depth))
            else:
                best = max(best, self.origin(synthetic, depth))
        return best

    def _function_short_names(self) -> set:
        names = getattr(self, "_short_names", None)
        if names is None:
            t = self.tables
            names = {
                f.rsplit(".", 1)[-1]
                for f in (
                    *t.gather_functions,
                    *t.tuple_view_functions,
                    *t.narrow_functions,
                    *t.view_functions,
                    *t.concat_functions,
                    *t.pack_functions,
                    *t.elementwise_functions,
                    *t.choose_functions,
                    *t.window_functions,
                    *t.einsum_functions,
                    *t.select_functions,
                )
            }
            self._short_names = names
        return names

    def _elementwise_origin(self, expr: cst.BinaryOperation, depth: int) -> Origin:
        """`pool & 0x0F`, `pool >> 4`, `pool * 2`: an elementwise operation of a buffer with a
        number keeps every slot of the buffer (nibble unpacking, a constant rescale); anything
        else made by arithmetic is a new value."""
        if isinstance(expr.operator, cst.BitOr) and any(
            self.origin(side, depth) == Origin.POOL_TUPLE for side in (expr.left, expr.right)
        ):
            return Origin.POOL_TUPLE  # `draft | base` of dicts of caches: a merged mapping
        if isinstance(expr.operator, cst.Add):
            # `target + draft` of tuples or lists of caches: the concatenation holds both's elements;
            # `acc + [pool.get_key_buffer(i)]`: a list (or tuple) display of caches added to anything
            # else is a concatenation too (no tensor is added to a list of tensors)
            sides = [self.origin(side, depth) for side in (expr.left, expr.right)]
            if Origin.POOL_TUPLE in sides and all(
                o in (Origin.POOL_TUPLE, Origin.OTHER)
                and (o == Origin.POOL_TUPLE or isinstance(side, _SEQUENCE_DISPLAYS))
                for o, side in zip(sides, (expr.left, expr.right))
            ):
                return Origin.POOL_TUPLE
            if all(o in (Origin.POOL_TUPLE, Origin.OTHER) for o in sides) and any(
                o == Origin.POOL_TUPLE
                and (
                    isinstance(side, (cst.List, cst.Tuple))
                    or self.qualified_in(side, self.tables.sequence_constructors)  # `acc + list(pair)`
                )
                for o, side in zip(sides, (expr.left, expr.right))
            ):
                return Origin.POOL_TUPLE
        for whole, other in ((expr.left, expr.right), (expr.right, expr.left)):
            while isinstance(other, cst.UnaryOperation):
                other = other.expression
            if isinstance(other, (cst.Integer, cst.Float)) or (
                isinstance(other, (cst.Name, cst.Attribute)) and self.index_kind(other, depth) == SCALAR
            ):
                found = self.origin(whole, depth)
                if found >= Origin.PREFIX or found == Origin.GATHERED:
                    return found
        return Origin.OTHER

    def _attribute_getter_origin(self, expr: cst.Call, depth: int) -> Optional[int]:
        """`getattr(pool, "k_buffer")`, `object.__getattribute__(holder, "_caches")` ([callables]
        attribute_getters): the attribute the constant name reads; None when it is no such read."""
        if not self.attribute_getter(expr.func) or len(expr.args) < 2 or any(a.star for a in expr.args[:2]):
            return None
        names = self.constant_strings(expr.args[1].value)
        if names and all(n.isidentifier() for n in names):  # getattr(pool, "k_buffer"): pool.k_buffer
            # several: `f"{half}_pools"` for half in ("k", "v"): the worst attribute named
            return max(self.origin(self._attribute(expr.args[0].value, n), depth) for n in names)
        owner = self.instance_class(expr.args[0].value) if names is None else None
        computed = self._computed_name_values(owner, expr.args[1].value) if owner is not None else []
        if computed:  # `getattr(self, f"kv_{layer_id}")` of `register_buffer(f"kv_{i}", t)`
            return max(self.origin(v, depth) for v in computed)
        dynamic = self.computed_protocol_read(expr) if names is None else None
        if dynamic is not None:  # `getattr(Layers, f"L{i}")`: what the metaclass's __getattr__ returns
            return self.origin(dynamic, depth)
        if names is None and self.names_a_field(expr.args[1].value):
            # `getattr(rec, f.name)` for f in `dataclasses.fields(rec)`: any field of rec's class
            return max(
                (self.origin(a, depth) for a in self.any_field_attributes(expr.args[0].value)),
                default=Origin.OTHER,
            )
        return None

    def _function_origin(self, expr: cst.Call, depth: int) -> Optional[Origin]:
        """Functions of the tables that take the pool as first argument (`torch.gather`,
        `torch.split`, `paged_view`): None when the call is none of them."""
        t = self.tables
        qualified = self.call_name(expr)
        if not qualified or not expr.args:
            return None
        qualified = qualified.removeprefix("builtins.")  # `abs(pool)`: the builtin, as the tables name it
        short = qualified.rsplit(".", 1)[-1]
        if qualified in t.gather_table_functions:
            table = self._gathered_table(expr)
            found = self.origin(table, depth) if table is not None else Origin.OTHER
            return Origin.GATHERED if found >= Origin.PREFIX or found == Origin.GATHERED else Origin.OTHER
        if qualified in t.concat_functions:
            return self._joined_origin(expr, depth)
        if qualified in t.pack_functions:  # (the join, what undoes it): unpacked, the first is the join
            joined = self._joined_origin(expr, depth)
            return Origin.POOL_TUPLE if joined == Origin.POOL else joined
        if qualified in t.choose_functions:
            return self._chosen_origin(expr, depth)
        if qualified in t.select_functions:
            first_arg = self._first_positional(expr.args)
            rest = [a for a in expr.args if a.value is not first_arg]
            selected = self._selected(expr, first_arg, rest) if first_arg is not None else None
            return self.origin(selected, depth) if selected is not None else Origin.OTHER
        if qualified in t.einsum_functions:
            order = self.einsum_order(expr)
            if order is None:
                return Origin.OTHER  # a contraction or a reduction: a new value
            found = self.origin(order[0], depth)
            return found if found >= Origin.PREFIX or found == Origin.GATHERED else Origin.OTHER
        view = (
            short in t.view_functions
            or qualified in t.view_functions
            or short in t.whole_functions
            or qualified in t.whole_functions
            or qualified in t.elementwise_functions
        )
        tuple_view = qualified in t.tuple_view_functions or short in t.tuple_view_functions
        if not (
            view
            or qualified in t.gather_functions
            or tuple_view
            or qualified in t.narrow_functions
            or qualified in t.window_functions
        ):
            return None
        first_arg = self._first_positional(expr.args)
        first = self.origin(first_arg, depth) if first_arg is not None else Origin.OTHER
        if first >= Origin.PREFIX:
            if qualified in t.dim_index_functions:
                ranged = self._range_selected(expr, first_arg, [a for a in expr.args if a.value is not first_arg])
                if ranged is not None:  # `torch.index_select(buf, 0, torch.arange(len(buf)))`
                    return self.origin(ranged, depth)
            if qualified in t.gather_functions:
                return Origin.GATHERED
            if tuple_view:
                rest = [a for a in expr.args if a.value is not first_arg]
                if qualified in t.split_functions and self._step_sized_pieces(rest):
                    return Origin.PREFIX if first == Origin.POOL else first
                if qualified in t.dim_split_functions and self._block_pieces(first_arg, rest):
                    return Origin.PREFIX if first == Origin.POOL else first
                return Origin.POOL_TUPLE if first >= Origin.POOL_TUPLE else first
            if qualified in t.narrow_functions:
                return self._narrow_origin(first, [a for a in expr.args if a.value is not first_arg], first_arg)
            if qualified in t.window_functions:
                return self._window_origin(first, [a for a in expr.args if a.value is not first_arg])
            return first
        if first == Origin.GATHERED:
            return Origin.GATHERED
        return None if view and isinstance(expr.func, cst.Name) else Origin.OTHER

    def _chosen_origin(self, call: cst.Call, depth: int) -> Origin:
        """`torch.where(cond, x, y)` ([views] choose_functions): each element from x or y, as whole as
        the most whole of them (a gather when only gathers are chosen from); `where(cond)` alone gives
        indices."""
        positional = [a.value for a in call.args if a.keyword is None and not a.star]
        keywords = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
        chosen = positional[1:3] + [keywords[k] for k in ("input", "other") if k in keywords]
        found = [self.origin(v, depth) for v in chosen]
        best = max(found, default=Origin.OTHER)
        if best >= Origin.PREFIX or best == Origin.GATHERED:
            return best
        return Origin.OTHER

    def einsum_order(self, call: cst.Call) -> Optional[Tuple[cst.BaseExpression, List[int]]]:
        """(the operand, for each output dimension the input dimension it is) of an einsum
        ([views] einsum_functions) over one operand whose output is a permutation of its input's
        dimensions (`torch.einsum("thd->htd", kb)`, `einops.einsum(kb, "t h d -> h t d")`); None for
        a contraction, a reduction, a repeated or implicit output, or an equation not written out."""
        positional = [a for a in call.args if a.keyword is None]
        if any(a.star for a in positional) or any(a.keyword is not None for a in call.args):
            return None
        equations = [a.value for a in positional if isinstance(a.value, cst.SimpleString)]
        operands = [a.value for a in positional if not isinstance(a.value, cst.SimpleString)]
        if len(equations) != 1:
            return None
        if len(operands) == 1 and isinstance(operands[0], (cst.List, cst.Tuple)):
            elements = operands[0].elements
            if any(isinstance(e, cst.StarredElement) for e in elements):
                return None
            operands = [e.value for e in elements]
        if len(operands) != 1:
            return None
        equation = equations[0].evaluated_value
        if not isinstance(equation, str) or equation.count("->") != 1:
            return None
        sides = [_einsum_dims(side) for side in equation.split("->")]
        if sides[0] is None or sides[1] is None:
            return None
        source, output = sides
        if len(set(source)) != len(source) or sorted(source) != sorted(output):
            return None
        return operands[0], [source.index(d) for d in output]

    def _window_origin(self, receiver: Origin, args) -> Origin:
        """unfold(dimension, size, step) ([views] window_methods): along a later dimension every
        token stays; along the first, windows that skip no slot (a step of 1, or the size itself)
        keep every token, a longer step a strided subset (as `[::2]`)."""
        positional = [a.value for a in args if a.keyword is None and not a.star]
        keywords = {a.keyword.value: a.value for a in args if a.keyword is not None}
        names = ("dimension", "size", "step")
        values = [positional[i] if i < len(positional) else keywords.get(n) for i, n in enumerate(names)]
        dim, size, step = values
        if receiver == Origin.GATHERED:
            return receiver
        if isinstance(dim, cst.Integer) and dim.evaluated_value != 0:
            return receiver  # windows along the heads or the width: every token
        if isinstance(dim, cst.UnaryOperation) and isinstance(dim.expression, cst.Integer):
            return receiver  # a negative literal: a trailing dimension of a cache
        if not (isinstance(dim, cst.Integer) and step is not None and size is not None):
            return Origin.PREFIX if receiver == Origin.POOL else receiver
        if (isinstance(step, cst.Integer) and step.evaluated_value == 1) or self.code(step) == self.code(size):
            return receiver
        return Origin.PREFIX if receiver == Origin.POOL else receiver

    def _joined_origin(self, call: cst.Call, depth: int) -> Origin:
        """`torch.cat([a, b])`: whole when a joined tensor is whole (a list of pools is a tuple
        of them, its elements whole); a gather when only gathers are joined."""
        first = self._first_positional(call.args)
        if first is not None and self._every_row(first, depth):
            return Origin.POOL  # `torch.stack(list(k_cache))`: every row of the pool, joined again
        if not isinstance(first, (cst.List, cst.Tuple)):
            inner = self.origin(first, depth) if first is not None else Origin.OTHER
            return Origin.POOL if inner >= Origin.POOL_TUPLE else Origin.OTHER
        parts = [self.origin(e.value, depth) for e in first.elements if isinstance(e, cst.Element)]
        if any(p >= Origin.POOL for p in parts):
            return Origin.POOL
        return Origin.GATHERED if parts and all(p == Origin.GATHERED for p in parts) else Origin.OTHER

    def _every_row(self, expr: cst.BaseExpression, depth: int, seen: int = 0) -> bool:
        """Is expr a sequence of every row of one whole pool: `list(pool)` / `tuple(pool)` ([iteration]
        passthrough), `[p for p in pool]`, `[*pool]`, a name assigned one once, a slice of one keeping every
        element (`rows[:]`)? A subset (`rows[:1]`, `rows[i]`) is not."""
        if seen > 4:
            return False
        if isinstance(expr, cst.Name):
            values = [self._assigned_once(a.node) for a in self.reaching(expr)]
            return len(values) == 1 and values[0] is not None and self._every_row(values[0], depth, seen + 1)
        if isinstance(expr, cst.Call):
            name = (self.call_name(expr) or "").removeprefix("builtins.")
            if name not in self.tables.iter_passthrough or len(expr.args) != 1 or expr.args[0].star:
                return False
            return self.origin(expr.args[0].value, depth) == Origin.POOL
        if isinstance(expr, (cst.ListComp, cst.GeneratorExp)):
            loop = expr.for_in
            return (
                loop.inner_for_in is None
                and not loop.ifs
                and isinstance(loop.target, cst.Name)
                and isinstance(expr.elt, cst.Name)
                and expr.elt.value == loop.target.value
                and self.origin(loop.iter, depth) == Origin.POOL
            )
        if isinstance(expr, (cst.List, cst.Tuple)) and len(expr.elements) == 1:
            only = expr.elements[0]
            return isinstance(only, cst.StarredElement) and self.origin(only.value, depth) == Origin.POOL
        if isinstance(expr, cst.Subscript) and len(expr.slice) == 1 and isinstance(expr.slice[0].slice, cst.Slice):
            part = expr.slice[0].slice
            whole = all(b is None or _is_none(b) for b in (part.lower, part.upper, part.step))
            return whole and self._every_row(expr.value, depth, seen + 1)
        return False

    def _through_method(self, call, method, receiver, args, depth) -> Optional[Origin]:
        """The origin of `receiver.method(args)` when it follows the receiver's."""
        t = self.tables
        r = self.origin(receiver, depth)
        if r >= Origin.PREFIX:
            if method in t.dim_index_methods:
                ranged = self._range_selected(call, receiver, args)
                if ranged is not None:  # `buf.index_select(0, torch.arange(buf.size(0)))`: `buf[: buf.size(0)]`
                    return self.origin(ranged, depth)
            if method in t.gather_methods:
                return Origin.GATHERED
            if method in t.tuple_view_methods:
                if method in t.split_methods and self._step_sized_pieces(args):
                    return Origin.PREFIX if r == Origin.POOL else r
                if method in t.dim_split_methods and self._block_pieces(receiver, args):
                    return Origin.PREFIX if r == Origin.POOL else r
                return Origin.POOL_TUPLE if r >= Origin.POOL_TUPLE else r
            if method in t.narrow_methods:
                return self._narrow_origin(r, args, receiver)
            if method in t.window_methods:
                return self._window_origin(r, args)
            if method in t.elementwise_methods:
                return r  # `buf.masked_fill(m, 0)`, `buf.clamp(lo, hi)`: every slot, values changed
            if method in t.select_methods:  # (`torch.Tensor.select(x, d, i)`, `aten.select.int(x, d, i)` too)
                selected = self._selected(call, receiver, args)
                if selected is not None:
                    return self.origin(selected, depth)
            if method in t.sized_view_methods and not self._own_size(receiver, args):
                return Origin.PREFIX if r >= Origin.PREFIX else r  # `as_strided((4, ...), ...)`: some slots
            if (
                method in t.view_methods
                or method in t.reinterpret_methods
                or method in t.copy_methods
                or method in t.whole_copy_methods
            ):
                return r
            if method in t.whole_methods:
                return r  # `buf.clone()`, `buf.requires_grad_(False)`: every element
            if self.cast_target(call) is not None:
                if self._host_bound(args):
                    return Origin.OTHER  # `layer.to("cpu", dt)`: converted once, on its way off the device
                return r  # a converted copy is as big as what it converts
            spelling = t.casts.get(method)
            if spelling is not None and spelling.form == "to":
                return r  # `pool.to("cuda")`, `pool.to(dev, non_blocking=True)`: every slot, moved
        if r == Origin.GATHERED and (
            method in t.view_methods
            or method in t.tuple_view_methods
            or method in t.narrow_methods
            or method in t.elementwise_methods
            or method in t.window_methods
            or self.cast_target(call) is not None
        ):
            return Origin.GATHERED
        return None

    def _host_bound(self, args) -> bool:
        """Does a conversion also move its input to host memory (a device argument of rules/accessors.toml
        [conversions] host_devices: `.to("cpu", dt)`, `.to(dt, device="cpu")`)? The copy it makes is the
        one conversion reported; what the host does with the copy later reads no pool."""
        hosts = self.tables.host_devices
        for a in args:
            if a.star or (a.keyword is not None and a.keyword.value != "device"):
                continue
            if (self.constant_string(a.value) or "").split(":")[0] in hosts:
                return True
        return False

    def _own_size(self, receiver: cst.BaseExpression, args) -> bool:
        """Is the size argument of a sized view (`as_strided(size, stride)`) the receiver's own
        size: `x.size()`, `x.shape`, `tuple(x.shape)` of the same x?"""
        size = next((a.value for a in args if a.keyword is not None and a.keyword.value == "size"), None)
        if size is None:
            size = next((a.value for a in args if a.keyword is None and not a.star), None)
        if size is None:
            return False
        if isinstance(size, cst.Call) and isinstance(size.func, cst.Name) and size.func.value in ("tuple", "list"):
            if len(size.args) != 1:
                return False
            size = size.args[0].value
        own = self.code(receiver)
        spelled = self.code(size)
        return spelled in (f"{own}.size()", f"{own}.shape")

    def _selected(self, call: cst.Call, receiver: cst.BaseExpression, rest) -> Optional[cst.Subscript]:
        """`x.select(d, i)` (or `torch.select(x, d, i)`: rest, the arguments after x) as the subscript
        `x[:, ..., i]` (d slices before i); None unless d is a non-negative int."""
        args = [a for a in rest if not a.star]
        if (
            len(args) != 2
            or len(args) != len(rest)
            or any(a.keyword is not None for a in args)
            or not isinstance(args[0].value, cst.Integer)
        ):
            return None
        cache = self.__dict__.setdefault("_selected_nodes", {})
        if id(call) not in cache:
            whole = [cst.SubscriptElement(cst.Slice(None, None))] * int(args[0].value.value, 0)
            node = cst.Subscript(receiver, [*whole, cst.SubscriptElement(cst.Index(args[1].value))])
            self.parents.setdefault(node, self.parents.get(call))
            cache[id(call)] = node
        return cache[id(call)]

    def _range_selected(self, call: cst.Call, receiver: cst.BaseExpression, rest) -> Optional[cst.Subscript]:
        """`x.index_select(d, r)` with r a range index tensor (`torch.arange(...)`) as the subscript
        `x[:, ..., r]`, which reads r as the slice it spells; None for any other index."""
        args = [a for a in rest if not a.star]
        if len(args) != 2 or self._range_slice(args[1].value) is None:
            return None
        return self._selected(call, receiver, rest)

    def _accessor_receiver_ok(self, call: cst.Call) -> bool:
        accessor = self.tables.accessors[call.func.attr.value]
        if not accessor.receivers:
            return True
        if (
            accessor.arity
            and len([a for a in call.args if a.keyword is None]) == accessor.arity
            and not any(a.star for a in call.args)
            and call.args[0].keyword is None
            and (
                self.index_kind(call.args[0].value) == SCALAR
                or (self._inherited_in_accessor(call) and self.index_kind(call.args[0].value) != TENSOR)
            )
        ):
            # `mgr.get_buffers(i)`, `mgr.get_buffers(i, kv_layout="HND")`: the accessor's own signature
            # (its positional arguments), whatever holds it
            return True
        return any(text.rsplit(".", 1)[-1] in accessor.receivers for text in self._spellings(call.func.value))

    def _inherited_in_accessor(self, call: cst.Call) -> bool:
        """Is `self.<accessor>(i, ...)` called in an accessor of self's class (a learnt one: a
        subclass of the engine's manager converting what the inherited accessor returns)? Its layer
        index is then the accessor's own parameter, as castlint.analysis.pool_classes reads it."""
        receiver = call.func.value
        if not (isinstance(receiver, cst.Name) and receiver.value == "self"):
            return False
        func = self.enclosing_function(call)
        return func is not None and func.name.value in self.tables.accessors and self.method_class(func) is not None

    def _small_state_method(self, receiver: cst.BaseExpression, method: str) -> bool:
        """Is `receiver.method(...)`, a known accessor name, a method of a class of this module that
        returns only attributes it allocates batch-sized or of a literal shape (per-request state
        named like a pool: `DraftState.get_key_buffer` over `torch.zeros((max_bs, h))`)? Then the
        name proves nothing: what the method returns decides."""
        if isinstance(receiver, cst.Name) and receiver.value == "self":
            return False
        cls = self.instance_class(receiver)
        func = self.find_method(cls, method) if cls is not None else None
        if func is None:
            return False
        cache = self.derived.setdefault("small_state_methods", {})
        if id(func) not in cache:
            cache[id(func)] = self._returns_small_state(cls, func)
        return cache[id(func)]

    def _returns_small_state(self, cls: cst.ClassDef, func: cst.FunctionDef) -> bool:
        t = self.tables
        attrs: List[str] = []
        pending = list(self._return_values(func))
        while pending:
            value = pending.pop()
            if isinstance(value, cst.Tuple):
                pending.extend(e.value for e in value.elements)
            elif isinstance(value, cst.Subscript):
                pending.append(value.value)
            elif (
                isinstance(value, cst.Call)
                and isinstance(value.func, cst.Attribute)
                and (value.func.attr.value in t.view_methods or self.cast_target(value) is not None)
            ):
                pending.append(value.func.value)
            elif isinstance(value, cst.Attribute) and isinstance(value.value, cst.Name) and value.value.value == "self":
                attrs.append(value.attr.value)
            else:
                return False  # another value: the accessor's name stands
        if not attrs:
            return False
        for attr in attrs:
            values = [v for owner in self.class_mro(cls) for v in self.self_attr_values(owner, attr)]
            if not values or not all(self._small_allocation(v) for v in values):
                return False
        return True

    def _small_allocation(self, value: cst.BaseExpression) -> bool:
        """A batch-sized allocation, or one of literal dimensions only (a list of them per layer)."""
        if isinstance(value, (cst.ListComp, cst.GeneratorExp)):
            return self._small_allocation(value.elt)
        kind = self.allocation_kind(value)
        if kind == "batch":
            return True
        if kind != "unknown" or not isinstance(value, cst.Call):
            return False
        size = self._first_positional(value.args)
        if isinstance(size, (cst.Tuple, cst.List)):
            dims = [e.value for e in size.elements]
        else:
            dims = [a.value for a in value.args if a.keyword is None and not a.star]
        return bool(dims) and all(isinstance(d, cst.Integer) for d in dims)

    def _lookup_keys(self, expr: cst.BaseExpression) -> List[str]:
        """The keys of a registry lookup (`[callables] keyed_lookups`) by a constant, lower case:
        an enum member's name (the key the registry is filled under, whatever its value) and
        the string the argument holds; [] for any other value."""
        if not (isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute)):
            return []
        if expr.func.attr.value not in self.tables.keyed_lookups or len(expr.args) != 1 or expr.args[0].star:
            return []
        argument = expr.args[0].value
        keys = [argument.attr.value.lower()] if isinstance(argument, cst.Attribute) else []
        constant = self.constant_string(argument)
        return keys + ([constant.lower()] if constant is not None else [])

    def _spellings(self, expr: cst.BaseExpression, depth: int = 0) -> List[str]:
        """How the receiver is spelled where its value comes from: itself, and for a name or a
        parameter what it is assigned or passed (`manager` bound to `metadata.kv_cache_manager`)."""
        text = dotted(expr) or ""
        out = [text]
        # `rm.get_resource_manager(ResourceManagerType.KV_CACHE_MANAGER)`
        out.extend(self._lookup_keys(expr))
        if isinstance(expr, cst.Attribute) and depth <= 3:  # `self.manager` set from `kv_cache_manager`
            owner = self.instance_class(expr.value)
            for value in self.instance_attr_values(owner, expr.attr.value) if owner is not None else ():
                out.extend(self._spellings(value, depth + 1))
            return out
        if not isinstance(expr, cst.Name) or depth > 3:
            return out
        for assignment in self.reaching(expr):
            node = assignment.node
            param = node if isinstance(node, cst.Param) else self.parents.get(node)
            if isinstance(param, cst.Param):
                owner = self._param_owner(param)
                calls = list(self._calls_by_name().get(id(owner), ())) + self._object_calls(owner)
                cls = self.method_class(owner) if isinstance(owner, cst.FunctionDef) else None
                skip = cls is not None
                if cls is not None:  # `self._bind(metadata.kv_cache_manager, ...)` in the class
                    self._index_class(cls)
                    calls += self._method_calls.get((id(cls), owner.name.value), [])
                for site in calls:
                    argument = self._argument_for(site, owner, param, skip_self=skip)
                    if argument is not None:
                        out.extend(self._spellings(argument, depth + 1))
            elif isinstance(node, cst.Name):
                kind, value, path = self.binding(node)
                if kind == "assign" and not path:
                    out.extend(self._spellings(value, depth + 1))
                elif kind == "assign":  # `mgr, idx = self._where(meta)`: the element by position
                    for element in self.unpacked_values(value, path) or ():
                        out.extend(self._spellings(element, depth + 1))
        return out

    def method_parts(self, call: cst.Call):
        """(receiver, method, args) of `x.m(args)`, and of the unbound `torch.Tensor.m(x, args)`;
        (None, None, args) for a call that is no method call."""
        func = call.func
        constructed = self.constructor_parts(call)
        if constructed is not None:
            return constructed
        if not isinstance(func, cst.Attribute):
            return None, None, call.args
        op = self.namespace_op(func)  # `torch.ops.aten.permute.default(buf, dims)`: buf.permute(dims)
        if op is not None or self._is_unbound_receiver(func.value):
            method = op if op is not None else func.attr.value
            args = self.spread_args(call.args)  # `torch.Tensor.to(*call)` of `call = (buf, dt)`
            positional = [a for a in args if a.keyword is None and not a.star]
            if not positional or any(a.star == "*" for a in args[: args.index(positional[0])]):
                return None, method, call.args
            first = positional[0]
            return first.value, method, tuple(a for a in args if a is not first)
        return func.value, func.attr.value, call.args

    def namespace_op(self, func: cst.BaseExpression) -> Optional[str]:
        """The op of `torch.ops.aten.<op>(...)` or of its overload `torch.ops.aten.<op>.<overload>(...)`
        (rules/accessors.toml [conversions] op_namespaces, as spelled or under the module's imports:
        `from torch.ops import aten`); None for any other callee. Its ops take the tensor first: the
        call is the unbound method `<op>` of its first argument."""
        namespaces = self.tables.op_namespaces
        if not namespaces or not isinstance(func, cst.Attribute):
            return None
        cache = self.__dict__.setdefault("_namespace_ops", {})
        if id(func) in cache:
            return cache[id(func)]
        found = None
        text = dotted(func)
        if text is not None and any(ns.rsplit(".", 1)[-1] in text for ns in namespaces):
            spellings = [text]
            scope = self.scopes.get(func)
            if scope is not None:
                spellings += [q.name for q in scope.get_qualified_names_for(func)]
            root, _, rest = text.partition(".")
            held = self._namespace_aliases().get(root)
            if held is not None and rest:  # `aten = torch.ops.aten` at module level: `aten.permute.default`
                spellings.append(f"{held}.{rest}")
            for spelled in spellings:
                for ns in namespaces:
                    if spelled.startswith(ns + "."):
                        parts = spelled[len(ns) + 1 :].split(".")
                        if len(parts) <= 2 and parts[0].isidentifier():
                            found = parts[0]
        cache[id(func)] = found
        return found

    def constructor_parts(self, call: cst.Call):
        """`torch.as_tensor(x, dtype=d, device=dev)` ([conversions] constructors) read as the cast
        `x.to(dtype=d, device=dev)`: (x, "to", the other arguments); None for any other call."""
        func = call.func
        short = None
        if isinstance(func, cst.Attribute):
            short = func.attr.value
        elif isinstance(func, cst.Name):
            short = func.value
        constructors = self.tables.conversion_constructors
        if isinstance(func, cst.Attribute) and short in self.tables.conversion_constructor_methods:
            pass  # `t.new_tensor(pool, dtype=d)`: a method of any tensor, the data first
        elif short is None or not constructors or not any(q.rsplit(".", 1)[-1] == short for q in constructors):
            return None
        elif (self.call_name(call) or "") not in constructors:
            return None
        if not call.args or call.args[0].keyword is not None or call.args[0].star:
            return None
        first = call.args[0]
        if isinstance(first.value, _WRITTEN_DATA):
            return None  # `torch.tensor([0, n], dtype=d)`: a new tensor of Python values, no copy of a pool
        rest = tuple(a for a in call.args if a is not first)
        if short in self.tables.conversion_constructor_methods and isinstance(func, cst.Attribute):
            if not any(a.keyword is not None and a.keyword.value in self._to_dtype_keywords() for a in rest):
                rest = (self._receiver_arg(func),) + rest  # `q.new_tensor(buf)`: buf in q's dtype, `buf.to(q)`
        return first.value, "to", rest

    def _to_dtype_keywords(self) -> frozenset:
        spec = self.tables.casts.get("to")
        return frozenset(getattr(spec, "dtype_keywords", ()) or ())

    def _receiver_arg(self, func: cst.Attribute) -> cst.Arg:
        """The receiver of `t.new_tensor(...)` as an argument node (`.to(t)`: t's dtype), once per callee."""
        cache = self.__dict__.setdefault("_receiver_args", {})
        if id(func) not in cache:
            cache[id(func)] = cst.Arg(func.value)
        return cache[id(func)]

    def _namespace_aliases(self) -> Dict[str, str]:
        """Module-level names bound once to an op namespace or a part of its path (`aten =
        torch.ops.aten`, `ops = torch.ops`): name -> the dotted path."""
        found = self.__dict__.get("_ns_aliases")
        if found is None:
            namespaces = self.tables.op_namespaces
            bound: Dict[str, List[str]] = {}
            for statement in self.module.body:
                if not isinstance(statement, cst.SimpleStatementLine):
                    continue
                for small in statement.body:
                    if isinstance(small, cst.Assign):
                        for target in small.targets:
                            if isinstance(target.target, cst.Name):
                                bound.setdefault(target.target.value, []).append(dotted(small.value) or "")
            found = {
                name: values[0]
                for name, values in bound.items()
                if len(values) == 1
                and any(ns == values[0] or ns.startswith(values[0] + ".") for ns in namespaces)
                and "." in values[0]
            }
            self._ns_aliases = found
        return found

    def _is_unbound_receiver(self, expr: cst.BaseExpression) -> bool:
        """`torch.Tensor` (or `Tensor` imported from torch) in `torch.Tensor.to(pool, d)`; an op
        namespace or one of its ops in `torch.ops.aten.<op>(x, ...)` / `torch.ops.aten.<op>.<overload>(x,
        ...)` (the callee's op is then namespace_op's); the class of a value (`type(buf)`, `buf.__class__`:
        its method called with an instance first is that instance's)."""
        if self._class_of_value(expr):
            return True
        text = dotted(expr)
        if text is None:
            return False
        parent = self.parents.get(expr)
        if isinstance(parent, cst.Attribute) and parent.value is expr and self.namespace_op(parent) is not None:
            return True
        receivers = self.tables.unbound_receivers
        if text in receivers:
            return True
        if text.rsplit(".", 1)[-1] not in {r.rsplit(".", 1)[-1] for r in receivers}:
            return False
        scope = self.scopes.get(expr)
        names = scope.get_qualified_names_for(expr) if scope is not None else set()
        return any(q.name in receivers for q in names)

    def _class_of_value(self, expr: cst.BaseExpression) -> bool:
        """`type(x)` (the builtin, one argument) or `x.__class__` ([conversions] class_of_functions,
        class_of_attributes) as the receiver of a method called with x itself first (`type(x).m(x, ...)`
        is `x.m(...)`; `type(self).make(n)` of a static or class method is not)."""
        t = self.tables
        if isinstance(expr, cst.Attribute) and expr.attr.value in t.class_of_attributes:
            instance = expr.value
        elif (
            isinstance(expr, cst.Call)
            and isinstance(expr.func, cst.Name)
            and expr.func.value in t.class_of_functions
            and expr.func.value not in self.nodes.local_callables
            and expr.func.value not in self.module_classes()
            and len(expr.args) == 1
            and expr.args[0].keyword is None
            and not expr.args[0].star
        ):
            instance = expr.args[0].value
        else:
            return False
        method = self.parents.get(expr)
        call = self.parents.get(method) if isinstance(method, cst.Attribute) else None
        if not isinstance(call, cst.Call) or call.func is not method:
            call = self._called_getattr(method)
        first = self._first_positional(call.args) if isinstance(call, cst.Call) else None
        return first is not None and self.code(first) == self.code(instance)

    def _called_getattr(self, getter) -> Optional[cst.Call]:
        """The call of `getattr(cls, "name")(...)` around the Arg that holds cls, else None."""
        getter = self.parents.get(getter) if isinstance(getter, cst.Arg) else None
        call = self.parents.get(getter) if isinstance(getter, cst.Call) else None
        return call if isinstance(call, cst.Call) and call.func is getter else None

    @staticmethod
    def _first_positional(args) -> Optional[cst.BaseExpression]:
        for arg in args:
            if arg.keyword is None and not arg.star:
                return arg.value
            if arg.keyword is not None and arg.keyword.value in ("input", "self", "tensor"):
                return arg.value
        return None

    def _narrow_origin(self, receiver: Origin, args, holder: Optional[cst.BaseExpression] = None) -> Origin:
        """narrow(dim, start, length): an active prefix along dim 0, else every token; `narrow(0, 0, 1)`
        of a cache with its planes first is the plane `[0:1]` (every block's K)."""
        positional = [a.value for a in args if a.keyword is None and not a.star]
        keywords = {a.keyword.value: a.value for a in args if a.keyword is not None}
        dim = positional[0] if positional else keywords.get("dim")
        start = positional[1] if len(positional) > 1 else keywords.get("start")
        length = positional[2] if len(positional) > 2 else keywords.get("length")
        along_tokens = isinstance(dim, cst.Integer) and dim.value == "0"
        if not along_tokens or receiver == Origin.GATHERED:
            return receiver
        literal = isinstance(start, cst.Integer) and isinstance(length, cst.Integer)
        if literal and holder is not None and receiver == Origin.POOL:
            # literal bounds: read as the slice `[start:start + length]` of the holder (a plane, some blocks)
            upper = cst.Integer(str(start.evaluated_value + length.evaluated_value))
            element = cst.SubscriptElement(cst.Slice(lower=start, upper=upper))
            return self._token_subscript(receiver, [element], holder)
        if length is not None and not self._step_bound(length) and self._mentions_extent(length):
            return receiver  # (a length read from the step is a window, as a slice bound is: `[:n]`)
        return Origin.PREFIX if receiver == Origin.POOL else receiver

    def _step_sized_pieces(self, args) -> bool:
        """split(size, dim): pieces along the tokens (dim 0, or left out) whose size comes from the step
        (`buf.split(forward_batch.extend_num_tokens)`): each piece is a window of the step's size."""
        positional = [a.value for a in args if a.keyword is None and not a.star]
        keywords = {a.keyword.value: a.value for a in args if a.keyword is not None}
        size = positional[0] if positional else keywords.get("split_size") or keywords.get("split_size_or_sections")
        dim = positional[1] if len(positional) > 1 else keywords.get("dim")
        along_tokens = dim is None or (isinstance(dim, cst.Integer) and dim.value == "0")
        return along_tokens and size is not None and self._step_bound(size)

    def _split_piece(self, call: cst.BaseExpression, index: cst.BaseExpression) -> Optional[Origin]:
        """The piece a constant index picks of a split into sizes written out along dimension 0 (a list
        of sizes, or one literal size; rules/accessors.toml split_methods, split_functions), read as the
        slice of the pool it is: `buf.split([64, n - 64])[0]` is `buf[:64]`, `[1]` (the last) `buf[64:]`;
        None for anything else."""
        if not isinstance(call, cst.Call) or not isinstance(index, cst.Integer):
            return None
        t = self.tables
        func = call.func
        if (self.call_name(call) or "") in t.split_functions and call.args and not call.args[0].star:
            holder, args = call.args[0].value, list(call.args[1:])
        elif isinstance(func, cst.Attribute) and func.attr.value in t.split_methods:
            holder, args = func.value, list(call.args)
        else:
            return None
        if any(a.star for a in args) or self.origin(holder) != Origin.POOL:
            return None
        positional = [a.value for a in args if a.keyword is None]
        keywords = {a.keyword.value: a.value for a in args if a.keyword is not None}
        sizes = positional[0] if positional else keywords.get("split_size_or_sections", keywords.get("split_size"))
        dim = positional[1] if len(positional) > 1 else keywords.get("dim")
        if dim is not None and not (isinstance(dim, cst.Integer) and dim.evaluated_value == 0):
            return None
        bounds = self._piece_bounds(sizes, index.evaluated_value)
        if bounds is None:
            return None
        element = cst.SubscriptElement(cst.Slice(lower=bounds[0], upper=bounds[1]))
        return self._token_subscript(Origin.POOL, [element], holder)

    @staticmethod
    def _piece_bounds(sizes, k: int) -> Optional[tuple]:
        """(lower, upper) of piece k of a split into sizes (upper None for the last piece of a list,
        which runs to the end); None when the sizes are not written out."""
        if isinstance(sizes, cst.Integer):
            size = sizes.evaluated_value
            return cst.Integer(str(k * size)), cst.Integer(str((k + 1) * size))
        if not isinstance(sizes, (cst.List, cst.Tuple)) or k >= len(sizes.elements):
            return None
        if any(not isinstance(e, cst.Element) for e in sizes.elements):
            return None
        before = [e.value for e in sizes.elements[:k]]
        if any(not isinstance(v, cst.Integer) for v in before):
            return None  # an offset that is no literal: where the piece starts is unknown
        lower = cst.Integer(str(sum(v.evaluated_value for v in before))) if before else None
        if k == len(sizes.elements) - 1:
            return lower, None
        size = sizes.elements[k].value
        if not isinstance(size, cst.Integer):
            return None
        return lower, cst.Integer(str((0 if lower is None else lower.evaluated_value) + size.evaluated_value))

    def _block_pieces(self, holder: cst.BaseExpression, args) -> bool:
        """split/chunk/tensor_split(sizes, dim) along dimension 0 (or left out) of a cache an engine hands
        over with its blocks first (rules/conventions.toml `planes = false`): each piece some blocks."""
        positional = [a.value for a in args if a.keyword is None and not a.star]
        keywords = {a.keyword.value: a.value for a in args if a.keyword is not None}
        dim = positional[1] if len(positional) > 1 else keywords.get("dim")
        along_blocks = dim is None or (isinstance(dim, cst.Integer) and dim.evaluated_value == 0)
        return along_blocks and self.from_convention(holder, layout="blocks")

    # -- subscripts ------------------------------------------------------------
    def _subscript_origin(self, sub: cst.Subscript, depth: int) -> Origin:
        picked = self._introspected_entries(sub)
        if picked is not None:  # `fn.__closure__[1]`, `p.args[0]`, `p.keywords["cache"]`: that entry
            return max((self.origin(v, depth) for v in picked), default=Origin.OTHER)
        return self._held_subscript_origin(sub, depth)

    def _introspected_entries(self, sub: cst.Subscript) -> Optional[List[cst.BaseExpression]]:
        """The entries a constant index picks from what a callable's introspection attribute holds (a
        closure's cells, a partial's args or keywords), as written or through a name assigned it once."""
        if len(sub.slice) != 1 or not isinstance(sub.slice[0].slice, cst.Index):
            return None
        holder, key = sub.value, sub.slice[0].slice.value
        if isinstance(holder, cst.Name):
            values = [self._assigned_once(a.node) for a in self.reaching(holder)]
            holder = values[0] if len(values) == 1 else None
        held = self.introspected_values(holder) if isinstance(holder, cst.Attribute) else None
        if not held or not isinstance(key, (cst.Integer, cst.SimpleString)):
            return None
        out: List[cst.BaseExpression] = []
        for value in held:
            if isinstance(value, cst.Tuple) and isinstance(key, cst.Integer):
                index = key.evaluated_value
                out.extend([value.elements[index].value] if index < len(value.elements) else [])
            elif isinstance(value, cst.Dict) and isinstance(key, cst.SimpleString):
                out.extend(e.value for e in value.elements if self.code(e.key) == repr(key.evaluated_value))
            else:
                return None
        return out

    def _held_subscript_origin(self, sub: cst.Subscript, depth: int) -> Origin:
        cls = self.class_named(sub.value) if len(sub.slice) == 1 and isinstance(sub.slice[0].slice, cst.Index) else None
        if cls is not None:
            # `CacheHub[i]` of the class itself: its __class_getitem__, or its metaclass's __getitem__
            t = self.tables
            call = self.class_level_call(
                sub, sub.value, cls, t.class_item_protocol, t.subscript_methods, sub.slice[0].slice.value
            )
            if call is not None:
                return self.origin(call, depth)
        if (
            "__getitem__" in self.nodes.local_callables
            and len(sub.slice) == 1
            and isinstance(sub.slice[0].slice, cst.Index)
        ):
            owner = self.instance_class(sub.value)
            if owner is not None and self.find_method(owner, "__getitem__") is not None:
                # obj[k] of an object whose class defines __getitem__: what it returns for k
                synthetic = cst.Call(
                    func=self._attribute(sub.value, "__getitem__"), args=[cst.Arg(sub.slice[0].slice.value)]
                )
                self.parents.setdefault(synthetic, self.parents.get(sub))
                return self.origin(synthetic, depth)
        missing = self.missing_value(sub)
        if missing is not None:  # `self.bufs[i]` of a dict subclass: what its `__missing__(i)` returns (and stores)
            return max([self.origin(missing, depth), *(self.origin(v, depth) for v in self.keyed_values(sub))])
        keyed = self.keyed_values(sub)
        if keyed:
            return max(self.origin(v, depth) for v in keyed)
        ranked = self._ranked_origin(sub, depth)
        if ranked is not None:
            return ranked
        found = self._lattice_subscript(sub, depth)
        if found < Origin.POOL and len(sub.slice) == 1 and isinstance(sub.slice[0].slice, cst.Index):
            # an element of a container or record the file builds (`pairs[i][1]`, `record[0]`)
            key = sub.slice[0].slice.value
            if isinstance(key, cst.Integer) or self.index_kind(key, depth) != TENSOR or self.dict_like(sub.value):
                elements = self.element_values(sub.value, int(key.value) if isinstance(key, cst.Integer) else None)
                if elements:
                    found = max(found, max(self.origin(v, depth) for v in elements))
        return found

    def _ranked_origin(self, sub: cst.Subscript, depth: int) -> Optional[Origin]:
        """A subscript of a container of caches filled by stores of k index parts (ranked_stores): with k
        parts, one stored value (`self.table[l, 0]`); with fewer, a row of them (`self.table[l]`, whose `[1]`
        is then one value); None for any other subscript."""
        if not all(isinstance(e.slice, cst.Index) for e in sub.slice):
            return None
        rank, values = self.ranked_stores(sub.value)
        if not rank or len(sub.slice) > rank or self.origin(sub.value, depth) != Origin.POOL_TUPLE:
            return None
        found = max(self.origin(v, depth) for v in values)
        if found < Origin.POOL_TUPLE:
            return None
        return found if len(sub.slice) == rank else Origin.POOL_TUPLE

    def dict_like(self, expr: cst.BaseExpression) -> bool:
        """Is expr a dict (its subscript a key lookup)? Some value it is assigned is a dict display
        or comprehension, a dict constructor, or it is annotated as one (rules/accessors.toml
        [containers] dict_constructors, dict_annotations), and none is a list or tuple."""
        values: list = []
        if isinstance(expr, cst.Name):
            for assignment in self.reaching(expr):
                node = assignment.node
                param = node if isinstance(node, cst.Param) else self.parents.get(node)
                if isinstance(param, cst.Param):
                    values.append(param.annotation)
                elif isinstance(node, cst.Name):
                    kind, value, path = self.binding(node)
                    values.append(value if kind == "assign" and not path else None)
        elif isinstance(expr, cst.Attribute):
            owner = self._attr_owner(expr)
            values = list(self.instance_attr_values(owner, expr.attr.value)) if owner is not None else []
        elif isinstance(expr, cst.Subscript):  # `table["main"]` of `{"main": {}}`: what that key holds
            values = self.keyed_values(expr)
        held = {id(n) for n in self.__dict__.get("_held_lists", {}).values()}  # `self.d[k] = v` stores
        kinds = [self._dict_kind(v) for v in values if id(v) not in held]
        return True in kinds and False not in kinds

    def _attr_owner(self, expr: cst.Attribute) -> Optional[cst.ClassDef]:
        """The module class whose instance holds expr's attribute: the receiver's class, else the one
        class assigning that attribute (`pool.layer_id_mapping` of an engine-handed pool)."""
        return self.instance_class(expr.value) or self.duck_class(expr.value, expr.attr.value, method=False)

    def _dict_kind(self, value) -> Optional[bool]:
        """True: a dict; False: a list, tuple or set; None: unknown."""
        t = self.tables
        if isinstance(value, cst.Annotation):
            head = value.annotation
            head = head.value if isinstance(head, cst.Subscript) else head
            return True if (dotted(head) or "") in t.dict_annotations else None
        if isinstance(value, (cst.Dict, cst.DictComp)):
            return True
        if isinstance(value, (cst.List, cst.Tuple, cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.Set)):
            return False
        if isinstance(value, cst.Call):
            name = self.qualified(value)
            if name in t.dict_constructors:
                return True
            if name in t.keep_elements:
                return False
            if self.applier(value) == "fold" and len(value.args) == 3:
                # `reduce(lambda acc, i: {**acc, i: ...}, ids, {})`: the accumulator keeps its kind
                return self._dict_kind(value.args[2].value)
        if value is not None:
            declared = self.parents.get(value)
            if isinstance(declared, cst.AnnAssign) and declared.value is value:
                return self._dict_kind(declared.annotation)
        return None

    def _lattice_subscript(self, sub: cst.Subscript, depth: int) -> Origin:
        base = self.origin(sub.value, depth)
        if base <= Origin.GATHERED:
            return base
        elements = self.slice_elements(sub)
        if not elements:
            return base  # `buf[()]`: no index, the tensor itself
        if base == Origin.POOL_TUPLE:
            # a container of whole caches (a per-layer list, a K/V pair, split views):
            # an index selects one whole cache, unless it is a tensor of indices
            first = elements[0].slice
            start = first.lower if isinstance(first, cst.Slice) else first.value
            if isinstance(start, cst.Integer) and self._entry_scales(start.evaluated_value, sub.value, depth):
                return Origin.OTHER  # `past_key_value[2]`, `past_key_value[2:]`: the layer's scales/zeros
            if isinstance(first, cst.Slice):
                if len(elements) > 1 and not self._bounded_slice(first):
                    # every layer of a stacked tensor, then each layer's own subscript (`[:, slots]` gathers)
                    each = self._token_subscript(Origin.POOL, elements[1:])
                    return Origin.POOL_TUPLE if each == Origin.POOL else each
                return Origin.POOL_TUPLE
            value = first.value
            if isinstance(value, cst.Ellipsis) or (isinstance(value, cst.Name) and value.value == "None"):
                return Origin.POOL_TUPLE
            piece = self._split_piece(sub.value, value)
            if piece is not None:  # `buf.split([64, n - 64])[0]`: `buf[:64]`
                return self._token_subscript(piece, elements[1:]) if len(elements) > 1 else piece
            if self.index_kind(value, depth) == TENSOR and not self.dict_like(sub.value):
                return Origin.GATHERED  # (a dict's key selects one value, whatever it is)
            if len(elements) == 1 and self._nested_display(sub.value, depth):
                return Origin.POOL_TUPLE  # `[(k, v) for ... if ...][0]`: one (k, v) entry
            return self._token_subscript(Origin.POOL, elements[1:]) if len(elements) > 1 else Origin.POOL
        return self._token_subscript(base, elements, sub.value)

    def slice_elements(self, sub: cst.Subscript) -> list:
        """The subscript's elements, an index by an explicit slice object (rules/accessors.toml
        [views] slice_constructors: `buf[slice(None)]`, `buf[slice(0, n)]`) read as the slice it
        spells; a bound or step written `None` as left out (`buf[0:None]` is `buf[0:]`); the empty
        tuple as no index at all (`buf[()]`: the tensor itself); the others as written."""
        cache = self.__dict__.setdefault("_elements", {})
        found = cache.get(id(sub))
        if found is None:
            found = cache[id(sub)] = self._slice_elements(sub)
        return found

    def _slice_elements(self, sub: cst.Subscript) -> list:
        elements = list(sub.slice)
        if (
            len(elements) == 1
            and isinstance(elements[0].slice, cst.Index)
            and isinstance(elements[0].slice.value, cst.Tuple)
            and not elements[0].slice.value.elements
        ):
            return []  # `buf[()]` (a tuple of indices keyed otherwise is left as written: `d[(layer, "k")]`)
        makers = self.tables.slice_constructors
        out = []
        for element in elements:
            inner = element.slice
            if isinstance(inner, cst.Slice) and any(_is_none(b) for b in (inner.lower, inner.upper, inner.step) if b):
                element = cst.SubscriptElement(
                    cst.Slice(
                        lower=None if inner.lower is None or _is_none(inner.lower) else inner.lower,
                        upper=None if inner.upper is None or _is_none(inner.upper) else inner.upper,
                        step=None if inner.step is None or _is_none(inner.step) else inner.step,
                    )
                )
                out.append(element)
                continue
            swept = self._swept_slice(inner) if isinstance(inner, cst.Slice) else None
            if swept is not None:  # `buf[s : s + CHUNK]` for s in range(0, buf.shape[0], CHUNK): every row
                out.append(cst.SubscriptElement(swept))
                continue
            value = inner.value if isinstance(inner, cst.Index) else None
            if makers and isinstance(value, (cst.Name, cst.Attribute, cst.Subscript)):
                value = self._held_slice(value) or value  # `buf[rec.span]` of `rec = Rec(i, slice(None))`
            if makers and isinstance(value, cst.Call) and self._slice_call(value):
                cache = self.__dict__.setdefault("_slice_nodes", {})
                if id(element) not in cache:
                    cache[id(element)] = cst.SubscriptElement(self._spelled_slice(value))
                element = cache[id(element)]
            elif value is not None:
                spelled = self._range_slice(value)
                if spelled is not None:  # `buf[torch.arange(buf.shape[0])]`: the rows `buf[: buf.shape[0]]` reads
                    element = cst.SubscriptElement(spelled)
            out.append(element)
        return out

    def _held_slice(self, holder: cst.BaseExpression, depth: int = 0) -> Optional[cst.Call]:
        """The slice object ([views] slice_constructors) a name, a record's field or an element holds, when
        every value it may hold is one: the one keeping every row if any does (`slice(None)`), else the first."""
        values = self._container_sources(holder, depth) if depth < 4 else None
        if not values:
            return None
        found = []
        for value in values:
            if isinstance(value, (cst.Name, cst.Attribute, cst.Subscript)):
                value = self._held_slice(value, depth + 1)
            if not (isinstance(value, cst.Call) and self._slice_call(value)):
                return None
            found.append(value)
        whole = [v for v in found if not self._bounded_slice(self._spelled_slice(v))]
        return (whole or found)[0]

    def _slice_call(self, value: cst.Call) -> bool:
        return (
            (self.call_name(value) or "").removeprefix("builtins.") in self.tables.slice_constructors
            and 1 <= len(value.args) <= 3
            and all(a.keyword is None and not a.star for a in value.args)
        )

    def _spelled_slice(self, value: cst.Call) -> cst.Slice:
        """`slice(a, b, s)` as the slice `a:b:s` it spells (a None part left out)."""
        cache = self.__dict__.setdefault("_spelled_slices", {})
        if id(value) not in cache:
            parts = [None if _is_none(a.value) else a.value for a in value.args]
            lower, upper, step = (None, parts[0], None) if len(parts) == 1 else (parts + [None])[:3]
            cache[id(value)] = cst.Slice(lower=lower, upper=upper, step=step)
        return cache[id(value)]

    def _swept_slice(self, s: cst.Slice) -> Optional[cst.Slice]:
        """`x[i : i + w]` (or `x[i : min(i + w, n)]`, [index_values] least_functions) with i the counter of a loop
        over `range(a, b, w)` ([index_values] stride_ranges), the same w: over the loop, the rows `x[a:b]`,
        whose bounds then decide as a slice's (`range(0, buf.shape[0], w)` every row, `range(0, n, w)` of the
        step's n a window); None for any other slice."""
        if s.step is not None or not isinstance(s.lower, cst.Name) or s.upper is None:
            return None
        width = self._counter_width(s.upper, s.lower.value)
        sweep = self._counter_sweep(s.lower) if width is not None else None
        if sweep is None or self.code(sweep[2]) != self.code(width):
            return None
        cache = self.__dict__.setdefault("_swept_slices", {})
        if id(s) not in cache:
            start = sweep[0]
            start = None if isinstance(start, cst.Integer) and start.evaluated_value == 0 else start
            cache[id(s)] = cst.Slice(lower=start, upper=sweep[1])
        return cache[id(s)]

    def _counter_width(self, upper: cst.BaseExpression, counter: str) -> Optional[cst.BaseExpression]:
        """w of an upper bound `i + w` / `w + i` (or `min(i + w, n)`) of the counter named i."""
        if isinstance(upper, cst.Call) and (self.call_name(upper) or "").removeprefix("builtins.") in (
            self.tables.least_functions
        ):
            widths = [self._counter_width(a.value, counter) for a in upper.args if not a.star and a.keyword is None]
            found = [w for w in widths if w is not None]
            return found[0] if len(found) == 1 else None
        if not (isinstance(upper, cst.BinaryOperation) and isinstance(upper.operator, cst.Add)):
            return None
        for mine, other in ((upper.left, upper.right), (upper.right, upper.left)):
            if isinstance(mine, cst.Name) and mine.value == counter:
                return other
        return None

    def _counter_sweep(self, counter: cst.Name) -> Optional[tuple]:
        """(start, stop, step) of the one loop that binds counter, over a stride range written with all three."""
        assignments = list(self.reaching(counter))
        if len(assignments) != 1 or not isinstance(assignments[0].node, cst.Name):
            return None
        kind, value, path = self.binding(assignments[0].node)
        if kind != "for" or path or not isinstance(value, cst.Call):
            return None
        if (self.call_name(value) or "").removeprefix("builtins.") not in self.tables.stride_ranges:
            return None
        if len(value.args) != 3 or any(a.star or a.keyword is not None for a in value.args):
            return None
        return tuple(a.value for a in value.args)

    def _range_slice(self, index: cst.BaseExpression) -> Optional[cst.Slice]:
        """An index tensor of consecutive rows ([index_values] range_functions: `torch.arange(a, b, s)`, through a
        name assigned it once) as the slice `a:b:s` it spells; None for any other index."""
        if isinstance(index, cst.Name):
            values = []
            for assignment in self.reaching(index):
                node = assignment.node
                kind, value, path = self.binding(node) if isinstance(node, cst.Name) else (None, None, None)
                values.append(value if kind == "assign" and not path else None)
            index = values[0] if len(values) == 1 else None
        if not isinstance(index, cst.Call) or not self.qualified_in(index, self.tables.range_functions):
            return None
        if any(a.star for a in index.args):
            return None
        positional = [a.value for a in index.args if a.keyword is None]
        keywords = {a.keyword.value: a.value for a in index.args if a.keyword is not None}
        if not positional and "end" not in keywords:
            return None
        parts = positional[:3]
        start, end, step = (None, parts[0], None) if len(parts) == 1 else (parts + [None, None, None])[:3]
        start, end, step = keywords.get("start", start), keywords.get("end", end), keywords.get("step", step)
        cache = self.__dict__.setdefault("_range_slices", {})
        if id(index) not in cache:
            cache[id(index)] = cst.Slice(lower=start, upper=end, step=step)
        return cache[id(index)]

    def _moved_token(self, holder) -> Optional[int]:
        """Where a dimension-moving view (rules/accessors.toml [views] dim_swaps, dim_moves,
        dim_orders) puts its input's first (token) dimension, when its arguments are literal
        non-negative ints; None for any other value."""
        if not isinstance(holder, cst.Call):
            return None
        t = self.tables
        known = t.dim_swaps | t.dim_moves | t.dim_orders
        qualified = self.call_name(holder) or ""
        if qualified in t.einsum_functions:  # `torch.einsum("thd->htd", buf)`: where its first letter went
            order = self.einsum_order(holder)
            return order[1].index(0) if order is not None else None
        if qualified in known and "." in qualified:  # `torch.movedim(buf, 1, 0)`
            first = self._first_positional(holder.args)
            if first is None:
                return None
            name, args = qualified, [a for a in holder.args if a.value is not first]
        elif isinstance(holder.func, cst.Attribute) and holder.func.attr.value in known:
            receiver, name, args = self.method_parts(holder)  # `buf.movedim(1, 0)`, `torch.Tensor.movedim(buf, 1, 0)`
            if receiver is None:
                return None
        else:
            return None
        if any(a.keyword is not None or a.star for a in args):
            return None
        dims = []
        for a in args:
            if not isinstance(a.value, cst.Integer):
                return None
            dims.append(int(a.value.value, 0))
        if name in t.dim_orders:
            return dims.index(0) if 0 in dims else None
        if len(dims) != 2:
            return None
        if name in t.dim_swaps:
            return dims[1] if dims[0] == 0 else dims[0] if dims[1] == 0 else 0
        return dims[1] if dims[0] == 0 else (1 if dims[1] == 0 else 0)  # movedim(src, dst)

    def _moved_subscript(self, base: Origin, elements, token: int) -> Origin:
        """A subscript of a view whose token dimension sits at position token: constants and
        slices before it keep every token (a plane, a head range); from it on, as a cache's."""
        for position, element in enumerate(elements):
            if position == token:
                return self._token_subscript(base, elements[position:])
            inner = element.slice
            if isinstance(inner, cst.Slice):
                continue
            value = inner.value
            if isinstance(value, cst.Ellipsis):
                return base
            if isinstance(value, cst.Name) and value.value == "None":
                token += 1
                continue
            if not isinstance(value, cst.Integer) and self.index_kind(value) != SCALAR:
                return Origin.GATHERED
        return base

    def _nested_display(self, expr: cst.BaseExpression, depth: int) -> bool:
        """Is expr a list comprehension (or a generator: the element a fold or a take reads), or a
        list or tuple display, each of whose elements is itself several whole caches (a (k, v) entry
        of a per-layer list)? Then an index selects an entry, not one cache."""
        if isinstance(expr, (cst.ListComp, cst.GeneratorExp)):
            elements = [expr.elt]
        elif isinstance(expr, (cst.List, cst.Tuple)):
            elements = [e.value for e in expr.elements]
            if not elements or any(isinstance(e, cst.StarredElement) for e in expr.elements):
                return False
        else:
            return False
        return all(self.origin(e, depth) == Origin.POOL_TUPLE for e in elements)

    def _token_subscript(self, base: Origin, elements, holder=None) -> Origin:
        """A subscript of one whole cache: only the first (token) dimension decides."""
        token = self._moved_token(holder) if holder is not None else None
        if token:
            return self._moved_subscript(base, elements, token)
        for position, element in enumerate(elements):
            inner = element.slice
            if isinstance(inner, cst.Index):
                value = inner.value
                if isinstance(value, cst.Name) and value.value == "None":
                    continue  # a new axis: the token dimension comes next
                if isinstance(value, cst.Ellipsis):
                    return base  # what follows indexes trailing dimensions
                if isinstance(value, cst.Integer) and holder is not None and self._past_entry_planes(value, holder):
                    return Origin.OTHER  # `entry[2]` of an lmdeploy (k, v, k_scales_zeros, v_scales_zeros) entry
                if (
                    isinstance(value, cst.Integer)
                    and holder is not None
                    and (self.from_convention(holder) or self.planes_first(holder))
                ):
                    # a constant selects a plane of a cache an engine hands over (vLLM's
                    # [2, num_blocks, ...]: kv_cache[0] is every K slot), not one slot; the
                    # blocks come next (`kv_cache[1, block_table]` gathers them)
                    return self._token_subscript(base, elements[position + 1 :])
                return Origin.GATHERED  # an index of the token dimension: some slots
            if position == 0 and isinstance(inner.lower, cst.Integer) and holder is not None:
                if self._past_entry_planes(inner.lower, holder):
                    return Origin.OTHER  # `entry[2:]`: its scales/zeros
            # a slice of the token dimension: the whole pool, or an active prefix
            if (
                holder is not None
                and self._planes_slice(inner)
                and (self.from_convention(holder) or self.planes_first(holder))
            ):
                # `kv_cache[:1]`, `kv_cache[1:2]` of a (2, num_blocks, ...) cache: one plane (K or V)
                # of every block, as `kv_cache[0]` is (`entry[:2]`: K and V); the blocks come next
                return self._token_subscript(base, elements[position + 1 :])
            if self._bounded_slice(inner):
                return Origin.PREFIX
            if (
                position == 0
                and holder is not None
                and len(elements) > 1
                and (
                    self.planes_first(holder)
                    or (
                        isinstance(elements[1].slice, cst.Slice)
                        and (self.from_convention(holder) or self.planes_first(holder, layout="opaque"))
                    )
                )
            ):
                # `cache[:, :n_used]` of a (2, num_blocks, ...) allocation, or of a cache an engine hands
                # over or allocated with a shape object (the slots may be dimension 1), sliced next
                # (`kv_cache[:, 0]` is a plane of its [num_blocks, 2, ...] layout): every plane, and the
                # blocks (the dimension after the planes) decide
                return self._token_subscript(base, elements[1:])
            if position == 0 and holder is not None and self._blocks_first_column(inner, elements[1:], holder):
                return base  # `kv_cache_tensor[:, layer_idx]` of a blocks-first pool: every block of one layer
            return self._later_dimensions(base, elements[position + 1 :])
        return base

    def _blocks_first_column(self, first: cst.Slice, rest, holder: cst.BaseExpression) -> bool:
        """Is `holder[:, i, ...]` every block of a cache an engine hands over with its blocks first
        (rules/conventions.toml `planes = false`), the later indices no evident index tensor (a layer,
        a plane: not `[:, token_ids]`)?"""
        if first.lower is not None or first.upper is not None or first.step is not None:
            return False
        if any(isinstance(e.slice, cst.Index) and self.index_kind(e.slice.value) == TENSOR for e in rest):
            return False
        return self.from_convention(holder, layout="blocks")

    def _past_entry_planes(self, index: cst.Integer, holder: cst.BaseExpression) -> bool:
        """Does a constant index an entry an engine hands over past its leading caches (rules/accessors.toml
        [cache_attributes] entry_cache_planes): the entry's scales/zeros?"""
        planes = self.tables.entry_cache_planes
        return bool(planes) and index.evaluated_value >= planes and self.from_convention(holder)

    def _entry_param(self, expr: cst.BaseExpression) -> bool:
        """Is expr a parameter that a calling convention fills with one layer's entry (`entry = true`:
        lmdeploy's past_key_value, (k_cache, v_cache, k_scales_zeros, v_scales_zeros))?"""
        if not isinstance(expr, cst.Name):
            return False
        params = [a.node if isinstance(a.node, cst.Param) else self.parents.get(a.node) for a in self.reaching(expr)]
        if not params or not all(isinstance(p, cst.Param) for p in params):
            return False
        for param in params:
            owner = self._param_owner(param)
            row = self.cache_parameter(owner, param.name.value) if isinstance(owner, cst.FunctionDef) else None
            if row is None or not row.entry:
                return False
        return True

    def _entry_scales(self, position: Optional[int], holder: cst.BaseExpression, depth: int) -> bool:
        """Is position of holder (a constant index, an unpacked position) past the caches of an entry an
        engine hands over: a convention's entry parameter, or an element of a list of entries?"""
        planes = self.tables.entry_cache_planes
        if not planes or position is None or position < planes:
            return False
        if self._entry_param(holder):
            return True
        return self.origin(holder, depth) == Origin.POOL and self.from_convention(holder)

    def _later_dimensions(self, base: Origin, elements) -> Origin:
        """After every token: a slice or a scalar of a later dimension keeps them all
        (`buf[:, :, :512]`, `buf[:, 0]`); indices there gather (`flat[:, slots]`, the blocks of
        a [2, num_blocks, ...] cache)."""
        for element in elements:
            inner = element.slice
            if isinstance(inner, cst.Slice):
                continue
            value = inner.value
            if isinstance(value, cst.Ellipsis):
                return base
            if isinstance(value, cst.Name) and value.value == "None":
                continue
            if not isinstance(value, cst.Integer) and self.index_kind(value) != SCALAR:
                return Origin.GATHERED
        return base

    def planes_first(self, expr: cst.BaseExpression, depth: int = 0, layout: str = "planes") -> bool:
        """Is expr one element of a per-layer container the class allocates with a literal count
        of planes first (`self.kv = [torch.zeros((2, size + 1, h, d)) for _ in ...]`; `self.kv[i]`,
        through names bound once)? Then a constant index picks a plane (K or V) of every token. layout
        "opaque": allocations with a shape object the file does not spell (`torch.zeros(spec.shape)`)."""
        if depth > 4:
            return False
        if isinstance(expr, cst.Name):
            values, stored = [], []
            for assignment in self.reaching(expr):
                kind, value, path = (
                    self.binding(assignment.node) if isinstance(assignment.node, cst.Name) else (None,) * 3
                )
                if kind == "for":  # `for name, cache in self.caches.items()`: the values stored there
                    elements = self._iterated_elements(value, path, depth)
                    if not elements or any(e is None for e in elements):
                        return False
                    stored.extend(elements)
                    continue
                if kind != "assign" or path:
                    return False
                values.append(value)
            return bool(values or stored) and (
                all(self.planes_first(v, depth + 1, layout) for v in values)
                and all(self._planes_value(v, depth + 1, layout) for v in stored)
            )
        if not (isinstance(expr, cst.Subscript) and len(expr.slice) == 1):
            return False
        if not isinstance(expr.value, cst.Attribute) or not self._self_held(expr.value):
            # an element the file stores (`self.groups[g].append(t)` of `t = torch.zeros((2, num_blocks,
            # ...))`): every value it may be is such an allocation
            key = expr.slice[0].slice
            constant = isinstance(key, cst.Index) and isinstance(key.value, cst.Integer)
            index = key.value.evaluated_value if constant else None
            values = self.element_values(expr.value, index)
            return bool(values) and all(self._planes_value(v, depth + 1, layout) for v in values)
        holder = expr.value
        if not (isinstance(holder.value, cst.Name) and holder.value.value == "self"):
            return False
        cls = self.enclosing_class(holder)
        values = self.self_attr_values(cls, holder.attr.value) if cls is not None else []
        return bool(values) and all(self._planes_allocation(v, False, layout) for v in values)

    def _self_held(self, holder: cst.Attribute) -> bool:
        """`self.x` whose class assigns it a comprehension (planes_first's first form)."""
        if not (isinstance(holder.value, cst.Name) and holder.value.value == "self"):
            return False
        cls = self.enclosing_class(holder)
        values = self.self_attr_values(cls, holder.attr.value) if cls is not None else []
        return any(isinstance(v, (cst.ListComp, cst.GeneratorExp, cst.DictComp)) for v in values)

    def _planes_value(self, value: cst.BaseExpression, depth: int, layout: str = "planes") -> bool:
        """Is value (through names bound once) an allocation with a literal count of planes first?"""
        if isinstance(value, cst.Name) and depth <= 4:
            found = []
            for a in self.reaching(value):
                kind, v, path = self.binding(a.node) if isinstance(a.node, cst.Name) else (None,) * 3
                if kind != "assign" or path:
                    return False
                found.append(v)
            return bool(found) and all(self._planes_value(v, depth + 1, layout) for v in found)
        return isinstance(value, cst.Call) and self._planes_allocation(value, True, layout)

    def _planes_allocation(self, value: cst.BaseExpression, direct: bool = False, layout: str = "planes") -> bool:
        if direct:
            pass
        elif isinstance(value, (cst.ListComp, cst.GeneratorExp)):
            value = value.elt
        elif isinstance(value, cst.DictComp):
            value = value.value
        else:
            return False
        if not isinstance(value, cst.Call) or self.allocation_kind(value) is None:
            return False
        if layout == "opaque":
            return self._opaque_shape(value)
        size = self._first_positional(value.args)
        if isinstance(size, cst.Name):
            found = [
                v
                for a in self.reaching(size)
                if isinstance(a.node, cst.Name)
                for k, v, p in [self.binding(a.node)]
                if k == "assign" and not p
            ]
            size = found[0] if len(found) == 1 else None
        if not isinstance(size, (cst.Tuple, cst.List)) or len(size.elements) < 3:
            return False
        first, second = size.elements[0].value, size.elements[1].value
        return (
            isinstance(first, cst.Integer)
            and 1 < int(first.value, 0) <= 4
            and not isinstance(second, cst.Integer)
            and not (self._identifiers_parts(second) & self.tables.batch_words)
        )

    def _opaque_shape(self, call: cst.Call) -> bool:
        """Is an allocation's shape one object the file does not spell (`torch.zeros(spec.shape)`,
        `torch.empty(backend.get_kv_cache_shape(...))`)? Then which dimension holds the slots is unknown."""
        if (dotted(call.func) or "").endswith("_like"):
            return False
        sizes = [a.value for a in call.args if (a.keyword is None and not a.star) or self._is_size_keyword(a)]
        return len(sizes) == 1 and not isinstance(self._bound_shape(sizes[0]), (cst.Tuple, cst.List, cst.Integer))

    @staticmethod
    def _is_size_keyword(arg: cst.Arg) -> bool:
        return arg.keyword is not None and arg.keyword.value == "size"

    def _identifiers_parts(self, expr: cst.BaseExpression) -> set:
        parts = set()
        for text in self._identifiers(expr, resolve=True):
            parts |= name_parts(text)
        return parts

    def from_convention(self, expr: cst.BaseExpression, depth: int = 0, layout: str = "planes") -> bool:
        """Does this value come from a cache parameter of an engine's calling convention
        (rules/conventions.toml), through names, parameters fed by visible calls, attributes
        of any object, views and helper returns? layout "planes": a row whose cache may hold its
        planes first (the default); "blocks": a row with `planes = false` (its blocks first)."""
        key = ("convention", layout, id(expr))
        if key in self._kind_cache:
            return self._kind_cache[key] == "yes"
        self._kind_cache[key] = "no"
        found = depth <= 6 and self._from_convention(expr, depth + 1, layout)
        self._kind_cache[key] = "yes" if found else "no"
        return found

    def _from_convention(self, expr: cst.BaseExpression, depth: int, layout: str) -> bool:
        if isinstance(expr, cst.Name):
            for assignment in self.reaching(expr):
                node = assignment.node
                param = node if isinstance(node, cst.Param) else self.parents.get(node)
                if isinstance(param, cst.Param):
                    owner = self._param_owner(param)
                    if isinstance(owner, cst.FunctionDef) and self._convention_origin(owner, param) != Origin.OTHER:
                        row = self.cache_parameter(owner, param.name.value)
                        if (row is None or row.planes) == (layout == "planes"):
                            return True
                        continue  # lmdeploy's k_cache has its blocks first: `k_cache[0]` is one block
                    name = param.name.value
                    if (
                        layout == "planes"
                        and name in self.tables.cache_parameter_names
                        and name in self.tables.cache_entry_lists
                        and self._param_origin(param, depth) == Origin.POOL_TUPLE
                    ):
                        return True  # `def bind(cls, gpu_cache)`: the engine's entries, by the name
                    calls = list(self._calls_by_name().get(id(owner), ())) + self._object_calls(owner)
                    calls += [c for c, _, _ in self.value_callers().get(id(owner), ())]
                    position = self._positional_params(owner, skip_self=False)
                    if param.name.value in position:  # `map(lambda t: t[0], caches.values())`: an element
                        index = position.index(param.name.value)
                        for call, first in self._mapped_calls().get(id(owner), ()):
                            iterables = [a.value for a in call.args[first:] if a.keyword is None and not a.star]
                            if index < len(iterables) and self.from_convention(iterables[index], depth, layout):
                                return True
                    cls = self.method_class(owner) if isinstance(owner, cst.FunctionDef) else None
                    if cls is not None:  # self.m(...) in the class and in its subclasses (an inherited helper)
                        for member in self.class_family(cls):
                            if member is cls or cls in self.class_mro(member):
                                self._index_class(member)
                                calls += self._method_calls.get((id(member), owner.name.value), [])
                    for call in calls:
                        argument = self._argument_for(call, owner, param, skip_self=cls is not None)
                        if argument is not None and self.from_convention(argument, depth, layout):
                            return True
                elif isinstance(node, cst.Name):
                    kind, value, path = self.binding(node)
                    if kind == "assign" and not path and self.from_convention(value, depth, layout):
                        return True
                    if kind == "for" and not path and self.from_convention(value, depth, layout):
                        return True  # an entry of what the engine hands over
                    if kind == "for" and path and path[0] == 1 and len(path) == 1 and isinstance(value, cst.Call):
                        # `for i, kv in enumerate(engine.gpu_cache)`: kv is an entry
                        if (dotted(value.func) or "") == "enumerate" and value.args:
                            if self.from_convention(value.args[0].value, depth, layout):
                                return True
                        # `for name, cache in kv_caches.items()`: cache is a value of the engine's dict
                        if self._items_call(value) and self.from_convention(value.func.value, depth, layout):
                            return True
            return False
        if isinstance(expr, cst.Attribute):
            if expr.attr.value in self.tables.cache_entry_lists:
                return layout == "planes"
            if (
                expr.attr.value in self.tables.view_attributes or expr.attr.value in self.tables.whole_copy_attributes
            ) and self.from_convention(expr.value, depth, layout):
                return True  # `kv_cache.mT`: the same layout, transposed
            owner = self.instance_class(expr.value) or self.class_named(expr.value)
            values = self.instance_attr_values(owner, expr.attr.value) if owner is not None else []
            return any(self.from_convention(v, depth, layout) for v in values)
        if isinstance(expr, cst.Subscript):
            return self.from_convention(expr.value, depth, layout)
        if isinstance(expr, cst.NamedExpr):  # `(kv := self.caches.get(i))[0]`: what it binds
            return self.from_convention(expr.value, depth, layout)
        if isinstance(expr, (cst.ListComp, cst.GeneratorExp, cst.SetComp)):  # `[kv for j, kv in enumerate(gpu_cache)]`
            return self.from_convention(expr.elt, depth, layout)
        if isinstance(expr, cst.DictComp):  # `{i: kv for i, kv in enumerate(gpu_cache)}`: its values are entries
            return self.from_convention(expr.value, depth, layout)
        if isinstance(expr, cst.Call):
            if (
                isinstance(expr.func, cst.Name)
                and expr.func.value in self.tables.iter_passthrough
                and len(expr.args) == 1
                and not expr.args[0].star
            ):
                return self.from_convention(expr.args[0].value, depth, layout)  # `list(gpu_cache)`: the same entries
            receiver, method, _ = self.method_parts(expr)
            t = self.tables
            if (
                isinstance(expr.func, cst.Attribute)
                and expr.func.attr.value in (*t.keep_methods, *t.item_methods, *t.take_methods)
                and self.from_convention(expr.func.value, depth, layout)
            ):
                return True  # `kv_caches.values()`, `.get(name)`: the entries the engine handed over
            if receiver is not None and (
                method in self.tables.view_methods
                or method in self.tables.whole_copy_methods
                or self.cast_target(expr) is not None
            ):
                return self.from_convention(receiver, depth, layout)  # a view or a (converted) copy: the same layout
            for target, _, _ in self.return_targets(expr):
                values = [target.body] if isinstance(target, cst.Lambda) else self._return_values(target)
                if any(self.from_convention(v, depth, layout) for v in values):
                    return True
        return False

    def _items_call(self, call: cst.Call) -> bool:
        """`d.items()` ([containers] item_methods, no arguments): (key, value) pairs of d."""
        func = call.func
        return isinstance(func, cst.Attribute) and func.attr.value in self.tables.item_methods and not call.args

    def _bounded_slice(self, s: cst.Slice) -> bool:
        """`[:n]`, `[a:b]`: bounded by a batch-sized value, not by the pool's extent; `[::2]`:
        a strided subset. A bound that comes from the step (what a per-step method is handed:
        `attn_metadata.max_num_blocks`, `used = meta.num_blocks_used`) is a window whatever it
        is named; one that reads a whole pool's extent (`buf.shape[0]`, `len(buf)`) or the
        object's own attributes (`self.size`) is decided by the extent words."""
        if self._strided(s) or self._empty_slice(s):
            return True
        upper = s.upper
        if upper is None:
            return self._bounded_tail(s.lower)
        if self._past_extent(upper):
            return False  # `[: sys.maxsize]`: every slot
        if isinstance(upper, cst.UnaryOperation) and isinstance(upper.operator, cst.Minus):
            return False  # `[:-1]`: all but a few
        fields = self._record_bound_values(upper)
        if fields:  # `kbuf[w.start : w.end]`: bounded only when every record's field is
            return all(self._step_bound(v) or not self._mentions_extent(v) for v in fields)
        if self._step_bound(upper):
            return True
        return not self._mentions_extent(upper)

    def _record_bound_values(self, bound: cst.BaseExpression, depth: int = 0) -> list:
        """What a bound read from a record's field (`w.end` of `for w in works`) may be: the arguments every
        construction that made the record passes for that field (`ChunkWork(i, 0, kbuf.shape[0], True)`),
        through copies (`c._replace(layer_id=i)`: c's own field); [] for any other bound."""
        if not isinstance(bound, cst.Attribute) or (isinstance(bound.value, cst.Name) and bound.value.value == "self"):
            return []
        owner = self.instance_class(bound.value)
        if depth > 3 or owner is None or not self.is_record(owner) or bound.attr.value not in self.record_fields(owner):
            return []
        out = []
        for value in self.field_values(bound.value, owner, bound.attr.value):
            if value is not bound:
                out.extend(self._record_bound_values(value, depth + 1) or [value])
        return out

    def _empty_slice(self, s: cst.Slice) -> bool:
        """A slice of no slot at all: a stop of 0 (`[:0]`, `[:-0]`) from a start of 0, or a start at
        (or past) the pool's end with no stop (`[buf.shape[0]:]`, `[sys.maxsize:]`)."""
        if s.step is not None and not (isinstance(s.step, cst.Integer) and s.step.evaluated_value > 0):
            return False  # a negative step runs from the end
        if s.upper is not None:
            lower = 0 if s.lower is None else self._int_constant(s.lower)
            return lower == 0 and self._int_constant(s.upper) == 0
        return s.lower is not None and (self._past_extent(s.lower) or self._exact_extent(s.lower))

    def _int_constant(self, expr: cst.BaseExpression, depth: int = 0) -> Optional[int]:
        """The int a bound folds to: literals, `-0`, `2**63 - 1`, `1 << 62`, a name assigned one once."""
        if depth > 4:
            return None
        if isinstance(expr, cst.Integer):
            return expr.evaluated_value
        if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, (cst.Minus, cst.Plus)):
            inner = self._int_constant(expr.expression, depth + 1)
            return None if inner is None else (-inner if isinstance(expr.operator, cst.Minus) else inner)
        if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, tuple(_FOLDED_OPERATORS)):
            left, right = self._int_constant(expr.left, depth + 1), self._int_constant(expr.right, depth + 1)
            if left is None or right is None or (isinstance(expr.operator, (cst.Power, cst.LeftShift)) and right > 128):
                return None
            return _FOLDED_OPERATORS[type(expr.operator)](left, right) if right >= 0 else None
        if isinstance(expr, cst.Name):
            values = [self._assigned_once(a.node) for a in self.reaching(expr)]
            if len(values) == 1 and values[0] is not None:
                return self._int_constant(values[0], depth + 1)
        return None

    def _assigned_once(self, node) -> Optional[cst.BaseExpression]:
        kind, value, path = self.binding(node) if isinstance(node, cst.Name) else (None, None, None)
        return value if kind == "assign" and not path else None

    def _past_extent(self, bound: cst.BaseExpression, depth: int = 0) -> bool:
        """Is a bound past any pool's extent ([index_values] unbounded_constants: `sys.maxsize`; an int
        literal of at least unbounded_at_least), as written or through a name assigned it once?"""
        t = self.tables
        if isinstance(bound, cst.Name) and depth < 4:
            values = [self._assigned_once(a.node) for a in self.reaching(bound)]
            if len(values) == 1 and values[0] is not None:
                return self._past_extent(values[0], depth + 1)
        if isinstance(bound, (cst.Name, cst.Attribute)) and (self.qualified(bound) or "") in t.unbounded_constants:
            return True
        value = self._int_constant(bound)
        return value is not None and value >= t.unbounded_at_least

    def _exact_extent(self, bound: cst.BaseExpression, depth: int = 0) -> bool:
        """Is a bound exactly a whole pool's token extent (`buf.shape[0]`, `buf.size(0)`, `len(buf)`,
        a name assigned one once)?"""
        t = self.tables
        if isinstance(bound, cst.Name) and depth < 4:
            values = [self._assigned_once(a.node) for a in self.reaching(bound)]
            return len(values) == 1 and values[0] is not None and self._exact_extent(values[0], depth + 1)
        holder = None
        if isinstance(bound, cst.Subscript) and len(bound.slice) == 1 and isinstance(bound.slice[0].slice, cst.Index):
            head = bound.value
            if isinstance(head, cst.Attribute) and head.attr.value in t.extent_attributes:
                if self._int_constant(bound.slice[0].slice.value) == 0:
                    holder = head.value
        elif isinstance(bound, cst.Call) and len(bound.args) == 1 and not bound.args[0].star:
            func, arg = bound.func, bound.args[0].value
            if isinstance(func, cst.Attribute) and func.attr.value in t.extent_methods:
                holder = func.value if self._int_constant(arg) == 0 else None
            elif isinstance(func, cst.Name) and func.value in t.extent_functions:
                holder = arg
        return holder is not None and self.origin(holder) == Origin.POOL

    def _bounded_tail(self, lower: Optional[cst.BaseExpression]) -> bool:
        """`[-n:]`: the last n slots, bounded as `[:n]` is (by the step, or by anything but the pool's
        own extent: `[-buf.shape[0]:]` is every slot)."""
        if not (isinstance(lower, cst.UnaryOperation) and isinstance(lower.operator, cst.Minus)):
            return False
        count = lower.expression
        return self._step_bound(count) or not self._mentions_extent(count)

    @staticmethod
    def _planes_slice(s: cst.Slice) -> bool:
        """`[:1]`, `[1:2]`, `[:2]`: literal bounds within a plane count (at most 4 planes): some planes
        (K, V, their scales) of every block, as `entry[:2]` of lmdeploy's (k, v, k_sz, v_sz) entry is."""
        if s.step is not None:
            return False
        lower = 0 if s.lower is None else (s.lower.evaluated_value if isinstance(s.lower, cst.Integer) else None)
        upper = s.upper.evaluated_value if isinstance(s.upper, cst.Integer) else None
        return lower is not None and upper is not None and 0 <= lower < upper <= 4

    @staticmethod
    def _strided(s: cst.Slice) -> bool:
        """`[::2]`: every other slot, a constant step other than 1 and -1."""
        step = s.step
        if isinstance(step, cst.UnaryOperation) and isinstance(step.operator, cst.Minus):
            step = step.expression
        return isinstance(step, cst.Integer) and step.evaluated_value not in (0, 1)

    def _step_bound(self, expr: cst.BaseExpression) -> bool:
        """Does a slice bound come only from the step: the parameters of a per-step entry point
        (`[hot_path]` entry points and step_inputs) that hold no pool, through reads of them and local names
        assigned from them, with constants? Not when it reads a whole pool's extent or `self`."""
        sources: set = set()
        self._bound_sources(expr, sources, 0)
        return "step" in sources and sources <= {"step", "const"}

    def _passed_bound_sources(self, owner: cst.FunctionDef, param: cst.Param, out: set, depth: int) -> None:
        """The sources of what the visible calls of a helper pass for param (`self._window(buf,
        attn_metadata.num_blocks_used)`); "other" when a call is not seen or passes nothing."""
        cls = self.method_class(owner)
        calls = list(self._calls_by_name().get(id(owner), ()))
        if cls is not None:
            self._index_class(cls)
            calls += self._method_calls.get((id(cls), owner.name.value), [])
        if not calls:
            out.add("other")
            return
        for call in calls:
            argument = self._argument_for(call, owner, param, skip_self=cls is not None)
            if argument is None:
                out.add("other")
            else:
                self._bound_sources(argument, out, depth + 2)

    def _bound_sources(self, expr: cst.BaseExpression, out: set, depth: int) -> None:
        t = self.tables
        if depth > 6:
            out.add("other")
            return
        if isinstance(expr, (cst.Integer, cst.Float)):
            out.add("const")
        elif isinstance(expr, cst.Name):
            if expr.value == "self":
                out.add("self")
                return
            assignments = self.reaching(expr)
            if not assignments:
                out.add("other")
            for assignment in assignments:
                node = assignment.node
                param = node if isinstance(node, cst.Param) else self.parents.get(node)
                if isinstance(param, cst.Param):
                    owner = self._param_owner(param)
                    if not isinstance(owner, cst.FunctionDef):
                        out.add("other")
                    elif owner.name.value in t.hot_path_entry_points or owner.name.value in t.step_input_methods:
                        out.add("step" if self.origin(expr) < Origin.PREFIX else "other")
                    else:  # a helper's parameter: what every visible caller passes
                        self._passed_bound_sources(owner, param, out, depth)
                    continue
                kind, value, path = self.binding(node) if isinstance(node, cst.Name) else (None, None, None)
                if kind == "assign" and not path and value is not None:
                    self._bound_sources(value, out, depth + 1)
                else:
                    out.add("other")
        elif isinstance(expr, cst.Attribute):
            fields = self._record_field_bound(expr)
            if expr.attr.value in t.extent_attributes and self.origin(expr.value) >= Origin.PREFIX:
                out.add("extent")  # `buf.shape`
            elif fields:  # `few.count` of `few = Pages(buf, 0, meta.num_pages)`: what was built in
                for value in fields:
                    self._bound_sources(value, out, depth + 1)
            else:
                self._bound_sources(expr.value, out, depth + 1)
        elif isinstance(expr, cst.Subscript):
            if self._layout_extent(expr):
                out.add("const")  # `buf.shape[1]`: a page or head size, not the token extent
                return
            self._bound_sources(expr.value, out, depth + 1)
        elif isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, _QUOTIENT_OPERATORS):
            self._bound_sources(expr.left, out, depth + 1)  # `n // self.page_size`: no more than its dividend
        elif isinstance(expr, (cst.BinaryOperation, cst.UnaryOperation)):
            for part in (getattr(expr, "left", None), getattr(expr, "right", None), getattr(expr, "expression", None)):
                if part is not None:
                    self._bound_sources(part, out, depth + 1)
        elif isinstance(expr, cst.Call):
            func = expr.func
            receiver = func.value if isinstance(func, cst.Attribute) else None
            read = [a.value for a in expr.args if not a.star and a.keyword is None]
            if isinstance(func, cst.Attribute) and func.attr.value in t.extent_methods:
                if self._layout_extent(expr):
                    out.add("const")  # `buf.size(1)`: a page or head size, not the token extent
                    return
                if self.origin(func.value) >= Origin.PREFIX:
                    out.add("extent")  # `buf.size(0)`, `buf.numel()`
                    return
            if isinstance(func, cst.Name) and func.value in t.extent_functions and read:
                if any(self.origin(v) >= Origin.PREFIX for v in read):
                    out.add("extent")  # `len(buf)`
                    return
            if (
                isinstance(func, cst.Name)
                and func.value not in t.extent_functions
                and func.value not in t.count_functions
            ):
                out.add("other")  # a function of the module or elsewhere: what it returns is unknown
                return
            for part in ([receiver] if receiver is not None else []) + read:
                self._bound_sources(part, out, depth + 1)
        else:
            out.add("other")

    def _record_field_bound(self, expr: cst.Attribute) -> List[cst.BaseExpression]:
        """The values a record field read (`rec.count`, rec an instance of a record class of the module
        by its constructions) was built with; [] for any other attribute, or when not all are known."""
        if isinstance(expr.value, cst.Name) and expr.value.value == "self":
            return []
        owner = self.instance_class(expr.value)
        if owner is None or not self.is_record(owner) or expr.attr.value not in self.record_fields(owner):
            return []
        return self.field_values(expr.value, owner, expr.attr.value)

    def _layout_extent(self, expr: cst.BaseExpression) -> bool:
        """`buf.shape[d]` / `buf.size(d)` of a pool for a constant d other than 0: the size of a
        later dimension (a page, the heads), a constant of the layout, not the token extent.
        `meta.max_kv_seqlen // k_cache.size(1)` is then a bound read from the step."""
        t = self.tables
        if isinstance(expr, cst.Subscript):
            holder = expr.value
            if not (isinstance(holder, cst.Attribute) and holder.attr.value in t.extent_attributes):
                return False
            if len(expr.slice) != 1 or not isinstance(expr.slice[0].slice, cst.Index):
                return False
            owner, index = holder.value, expr.slice[0].slice.value
        elif isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute):
            if expr.func.attr.value != "size" or len(expr.args) != 1 or expr.args[0].star:
                return False
            owner, index = expr.func.value, expr.args[0].value
        else:
            return False
        if isinstance(index, cst.UnaryOperation) and isinstance(index.operator, cst.Minus):
            index = index.expression
        if not isinstance(index, cst.Integer) or index.evaluated_value == 0:
            return False
        return self.origin(owner) >= Origin.PREFIX

    def _mentions_extent(self, expr: cst.BaseExpression) -> bool:
        """Does the expression name the pool's own extent (`self.size`, `buf.shape[0]`)?"""
        words, batch = self.tables.extent_words, self.tables.batch_words | self.tables.window_words
        for text in self._identifiers(expr, resolve=True):
            parts = name_parts(text)
            if parts & words and not parts & batch:  # `batch_size` sizes the step, `live_blocks` a window
                return True
        return False

    def subscript_keeps_whole(self, sub: cst.Subscript) -> bool:
        """buf[:, :, :512], buf[...], caches[layer_id] keep every token; pool[idx] and the
        active prefix pool[:n] do not."""
        if self.origin(sub.value) >= Origin.PREFIX:
            return self.origin(sub) >= Origin.POOL_TUPLE
        for element in self.slice_elements(sub):
            inner = element.slice
            if isinstance(inner, cst.Slice):
                if self._bounded_slice(inner):
                    return False
                continue
            value = inner.value
            if isinstance(value, cst.Ellipsis) or (isinstance(value, cst.Name) and value.value == "None"):
                continue
            return False
        return True

    def gather_consumer(self, node: cst.CSTNode) -> Optional[str]:
        """How a value is gathered right where it is used: 'subscript' (`x[idx]`, `x[:n]`),
        'method' (`x.index_select(...)`) or 'function' (`torch.index_select(x, ...)`)."""
        parent = self.parents.get(node)
        if isinstance(parent, cst.Subscript) and parent.value is node:
            return None if self.subscript_keeps_whole(parent) else "subscript"
        if (
            isinstance(parent, cst.Attribute)
            and parent.value is node
            and parent.attr.value in self.tables.gather_methods
        ):
            return "method" if isinstance(self.parents.get(parent), cst.Call) else None
        if isinstance(parent, cst.Arg):
            call = self.parents.get(parent)
            if isinstance(call, cst.Call) and self._first_positional(call.args) is node:
                if self.call_name(call) in self.tables.gather_functions:
                    return "function"
            if isinstance(call, cst.Call) and self._gathered_table(call) is node:
                return "function"  # `F.embedding(ids, <node>)`
        return None

    def _gathered_table(self, call: cst.Call) -> Optional[cst.BaseExpression]:
        """The table `F.embedding(ids, table)` ([gathers] table_functions) reads rows of: its
        second positional argument or `weight=`; None for any other call."""
        if not self.tables.gather_table_functions or self.call_name(call) not in self.tables.gather_table_functions:
            return None
        positional = [a for a in call.args if a.keyword is None]
        if any(a.star for a in positional[:2]):
            return None
        if len(positional) >= 2:
            return positional[1].value
        return next((a.value for a in call.args if a.keyword is not None and a.keyword.value == "weight"), None)

    # -- index values ----------------------------------------------------------
    def index_kind(self, expr: cst.BaseExpression, depth: int = 0) -> str:
        """SCALAR (a layer id, a loop counter), TENSOR (indices) or UNKNOWN, by value."""
        key = ("index", id(expr))
        if key in self._kind_cache:
            return self._kind_cache[key]
        self._kind_cache[key] = UNKNOWN  # cycles
        result = self._index_kind(expr, depth + 1) if depth <= MAX_DEPTH else UNKNOWN
        self._kind_cache[key] = result
        return result

    def _dict_value_kind(self, expr: cst.BaseExpression, depth: int) -> str:
        """What the values of a dict the module builds are: a map of layer ids to local
        indices (`{lid: i for i, lid in enumerate(ids)}`) holds scalars, not index tensors."""
        if isinstance(expr, cst.Attribute):
            owner = self._attr_owner(expr)
            values = list(self.instance_attr_values(owner, expr.attr.value)) if owner is not None else []
        elif isinstance(expr, cst.Name):
            values = [
                v
                for a in self.reaching(expr)
                if isinstance(a.node, cst.Name)
                for k, v, p in [self.binding(a.node)]
                if k == "assign" and not p
            ]
        else:
            values = []
        kinds = []
        for value in values:
            if isinstance(value, cst.DictComp):
                kinds.append(self.index_kind(value.value, depth))
            elif isinstance(value, cst.Dict):
                kinds.extend(self.index_kind(e.value, depth) for e in value.elements if isinstance(e, cst.DictElement))
        if TENSOR in kinds:
            return TENSOR
        return SCALAR if kinds and all(k == SCALAR for k in kinds) else UNKNOWN

    def _index_kind(self, expr: cst.BaseExpression, depth: int) -> str:
        t = self.tables
        iterated = self.__dict__.get("iteration_elements", {}).get(id(expr))
        if iterated is not None:  # an element a fold or a runner takes from iterating a container
            return self._loop_index_kind(iterated, (), depth)
        if isinstance(expr, cst.Integer):
            return SCALAR
        if isinstance(expr, cst.UnaryOperation):
            return self.index_kind(expr.expression, depth)
        if isinstance(expr, cst.Subscript) and self.dict_like(expr.value):
            return self._dict_value_kind(expr.value, depth)  # `self.layer_map[layer_id]`: a value of a dict
        if isinstance(expr, cst.Subscript) and self._scalar_table(expr.value):
            return SCALAR  # `mgr.layer_offsets[self.layer_idx]`: an engine's table of scalars
        if isinstance(expr, cst.Subscript) and len(expr.slice) == 1:
            # an element the file builds, read by structure (`self.slot[layer_id][1]` of `{lid: ("swa", i)
            # for i, lid in enumerate(ids)}`: the position i): its own kind when every element is known
            key = expr.slice[0].slice
            position = key.value if isinstance(key, cst.Index) else None
            if isinstance(position, cst.Integer):
                found = self.element_values(expr.value, int(position.value, 0), depth)
                if found:
                    kinds = [self.index_kind(v, depth) for v in found]
                    if all(k == SCALAR for k in kinds):
                        return SCALAR
        if isinstance(expr, cst.Subscript) and len(expr.slice) == 1:
            keyed = self.keyed_values(expr)  # `inp["layer_idx"]` of `dict(layer_idx=layer_idx)`: what it holds
            if keyed:
                return self._values_index_kind(keyed, depth)
        if isinstance(expr, (cst.Tuple, cst.List, cst.Comparison, cst.Subscript)):
            return TENSOR  # fancy indices, a mask, an element of a table of indices
        if isinstance(expr, cst.BinaryOperation):
            return _combine_arith(self.index_kind(expr.left, depth), self.index_kind(expr.right, depth))
        if isinstance(expr, cst.IfExp):
            return _combine_any(self.index_kind(expr.body, depth), self.index_kind(expr.orelse, depth))
        if isinstance(expr, cst.Call):
            name = (dotted(expr.func) or "").rsplit(".", 1)[-1]
            if name in t.scalar_calls:
                return SCALAR
            if name in t.tensor_calls:
                return TENSOR
            return UNKNOWN
        if isinstance(expr, cst.Attribute):
            if expr.attr.value in t.scalar_attributes:
                return SCALAR
            if isinstance(expr.value, cst.Name) and expr.value.value == "self":
                cls = self.enclosing_class(expr)
                values = self.self_attr_values(cls, expr.attr.value) if cls is not None else []
                return _combine_values([self.index_kind(v, depth) for v in values])
            return UNKNOWN
        if isinstance(expr, cst.Name):
            kinds = []
            for assignment in self.reaching(expr):
                node = assignment.node
                param = node if isinstance(node, cst.Param) else self.parents.get(node)
                if isinstance(param, cst.Param):
                    kind = _annotation_kind(self, param, for_index=True)
                    if kind == UNKNOWN and param.default is None and not param.star:
                        # unannotated: what every visible call passes (`self.blocks.get_buffers(self.layer_idx)`)
                        passed = [self.index_kind(a, depth) for a in self.passed_arguments(param)]
                        kind = passed[0] if passed and all(k == passed[0] for k in passed) else UNKNOWN
                    kinds.append(kind)
                    continue
                if not isinstance(node, cst.Name):
                    kinds.append(UNKNOWN)
                    continue
                kind, value, path = self.binding(node)
                if kind == "assign" and not path:
                    kinds.append(self.index_kind(value, depth))
                elif kind == "assign":  # `i, h = grid[-1]`, `mgr, idx = self._where(meta)`: that position
                    # of the value (a helper's returned tuple too), by structure
                    kinds.append(self._values_index_kind(self.path_values(value, path), depth))
                elif kind == "for":
                    found = self._loop_index_kind(value, path, depth)
                    kinds.append(SCALAR if found == UNKNOWN and self._keys_dict_comp(node) else found)
                else:
                    kinds.append(UNKNOWN)
            return _combine_values(kinds)

    def _keys_dict_comp(self, target: cst.Name) -> bool:
        """Is a comprehension's for target the key of its dict comprehension (`{i: mgr.get_buffers(i) for i in
        layers}`)? A dict is keyed by ids, not by index tensors (a tensor hashes by identity)."""
        node = self.parents.get(target)
        while node is not None and not isinstance(node, cst.CompFor):
            node = self.parents.get(node)
        comp = self.parents.get(node) if node is not None else None
        while isinstance(comp, cst.CompFor):
            comp = self.parents.get(comp)
        return isinstance(comp, cst.DictComp) and isinstance(comp.key, cst.Name) and comp.key.value == target.value
        return UNKNOWN

    def _scalar_table(self, expr: cst.BaseExpression) -> bool:
        """An attribute of [index_values] scalar_element_attributes that no module class assigns
        (a class of the file that builds it decides by its values, as dict_like reads)."""
        if not isinstance(expr, cst.Attribute) or expr.attr.value not in self.tables.scalar_element_attributes:
            return False
        return self._attr_owner(expr) is None

    def _values_index_kind(self, values, depth: int) -> str:
        """SCALAR when every value (None: unknown) is a scalar, TENSOR when one is indices."""
        if not values:
            return UNKNOWN
        return _combine_values([self.index_kind(v, depth) for v in values])

    def _loop_index_kind(self, iterable: cst.BaseExpression, path, depth: int = 0) -> str:
        """A for target's index kind at path: a counter (range, enumerate's position) is a scalar,
        an element of zip/product a kind of its argument's elements, an element of a display its own
        kind (`for i, half in itertools.product(ids, (0, 1))`: half is a constant)."""
        shape = self.iteration_kind(iterable)
        if shape is not None:
            args = self.iterated_args(iterable)
            if shape == "counters":
                return SCALAR if not path else UNKNOWN
            if shape == "numbered" and path:
                return SCALAR if path[0] == 0 else self._loop_index_kind(args[0], path[1:], depth)
            if shape == "pairs" and path and path[0] is not None and path[0] < len(args):
                return self._loop_index_kind(args[path[0]], path[1:], depth)
            if shape == "repeats":
                return self._values_index_kind(self.path_values(args[0], path), depth)
            return UNKNOWN
        if isinstance(iterable, (cst.Tuple, cst.List, cst.Set)) and depth <= MAX_DEPTH:
            if any(not isinstance(e, cst.Element) or isinstance(e, cst.StarredElement) for e in iterable.elements):
                return UNKNOWN
            return self._values_index_kind(self._at_path([e.value for e in iterable.elements], path, depth), depth)
        if path and isinstance(iterable, cst.Name) and depth <= MAX_DEPTH:
            # `for (half, tag), _ in product(grid, ...)` of `grid = [(0, "k"), (1, "v")]`: by structure
            return self._values_index_kind(self._iterated_elements(iterable, path, depth), depth)
        if not path and isinstance(iterable, (cst.Name, cst.Attribute)) and depth <= MAX_DEPTH:
            # `for i in self.layer_ids` of `self.layer_ids = range(n)`, `for i in layer_ids` of a parameter
            # every visible call hands such a range: what the name holds decides
            sources = self._iterable_sources(iterable)
            return _combine_values([self._loop_index_kind(v, (), depth + 1) for v in sources])
        return UNKNOWN

    def _iterable_sources(self, iterable: cst.BaseExpression) -> List[cst.BaseExpression]:
        """What a name or a self attribute iterated by a for holds: its single assignments, the values
        the class stores into the attribute, the arguments every visible call passes for a parameter."""
        if isinstance(iterable, cst.Attribute):
            is_self = isinstance(iterable.value, cst.Name) and iterable.value.value == "self"
            cls = self.enclosing_class(iterable) if is_self else None
            return self.self_attr_values(cls, iterable.attr.value) if cls is not None else []
        out: List[cst.BaseExpression] = []
        for assignment in self.reaching(iterable):
            node = assignment.node
            param = node if isinstance(node, cst.Param) else self.parents.get(node)
            if isinstance(param, cst.Param):
                passed = self.complete_arguments(param)
                if not passed:
                    return []
                out.extend(passed)
                continue
            kind, value, path = self.binding(node) if isinstance(node, cst.Name) else (None, None, None)
            if kind != "assign" or path:
                return []
            out.append(value)
        return out

    # -- names: flow-sensitive reaching assignments ------------------------------
    def reaching(self, name: cst.Name) -> List[Assignment]:
        """The assignments of `name` that can reach this use.

        Within one scope this follows the statements in order: a plain assignment
        earlier in the same block (or in every branch of an if/else before it) hides
        the ones before it; a loop body's own later assignments reach back to its
        start; try/except, with and for targets are followed. Where branches merge,
        every branch's assignment reaches (the caller takes the worst). A name from
        an enclosing scope (a closure) falls back to the assignments above the use."""
        scope = self.scopes.get(name)
        if scope is None:
            return []
        referents = set()
        for access in scope.accesses[name.value]:
            if access.node is name:
                referents.update(access.referents)
        if not referents:
            referents = set(scope.assignments[name.value])
        candidates = [r for r in referents if isinstance(r, Assignment) and not self._is_augmented(r)]
        leaked = self._leaked_walrus().get((id(scope), name.value))
        if leaked:  # `[(last := f(i)) for i in ids]`: last is bound in this scope (PEP 572)
            candidates += [c for c in leaked if c not in candidates]
        if not candidates:
            bound = self._case_binding(name)
            if bound is not None:  # a name a `case` pattern binds, read in that case's body
                return [Assignment(name.value, scope, bound, 0)]
        if candidates and all(c.scope is scope for c in candidates):
            # libcst's referents stop at the use; a loop's later assignments reach it too
            candidates = [
                r for r in scope.assignments[name.value] if isinstance(r, Assignment) and not self._is_augmented(r)
            ]
        if self.own_lines is not None and len(candidates) > 1:
            candidates = self._linked_for_imports(candidates)
        if len(candidates) <= 1:
            return candidates
        if all(c.scope is scope for c in candidates):
            found = self._flow_reaching(name, candidates, getattr(scope, "node", self.module))
            if found:
                return found
            return candidates  # e.g. read before any assignment
        use_line = self.positions[name].start.line
        before = [c for c in candidates if self._defined_at(c) <= use_line and c.node is not name]
        return before or candidates

    def _leaked_walrus(self) -> Dict[Tuple[int, str], List[Assignment]]:
        """(id(scope), name) -> the `:=` targets of that name inside comprehensions whose nearest
        enclosing scope that is no comprehension is scope: Python binds them there (PEP 572), libcst
        records them in the comprehension's own scope."""
        index = self.__dict__.get("_walrus_index")
        if index is None:
            index = self._walrus_index = {}
            for node in self.nodes.walrus_targets:
                inner = self.scopes.get(node)
                outer = inner
                while outer is not None and isinstance(outer, ComprehensionScope):
                    outer = outer.parent
                if outer is None or outer is inner:
                    continue
                for assignment in inner.assignments[node.value]:
                    if isinstance(assignment, Assignment) and assignment.node is node:
                        index.setdefault((id(outer), node.value), []).append(assignment)
        return index

    def _linked(self, assignment: Assignment) -> bool:
        # (the line in the linked module: a pruned copy's lines are mapped back first)
        return self.own_lines is not None and self.position(assignment.node).start.line > self.own_lines

    def _defined_at(self, assignment: Assignment) -> int:
        """The line an assignment takes effect: a linked definition where it is imported (first)."""
        return 0 if self._linked(assignment) else self.positions[assignment.node].start.line

    def _linked_for_imports(self, candidates: List[Assignment]) -> List[Assignment]:
        """A linked definition replaces the import that names it."""
        linked = {c.name for c in candidates if self._linked(c)}
        if not linked:
            return candidates
        return [c for c in candidates if not (isinstance(c, ImportAssignment) and c.name in linked)]

    def _is_augmented(self, assignment: Assignment) -> bool:
        return isinstance(self.parents.get(assignment.node), cst.AugAssign)

    def _ids_above(self, node: cst.CSTNode) -> frozenset:
        key = id(node)
        found = self._anc_ids.get(key)
        if found is None:
            found = frozenset([key] + [id(a) for a in self.ancestors(node)])
            self._anc_ids[key] = found
        return found

    def _flow_reaching(self, use: cst.Name, candidates: List[Assignment], scope_node) -> List[Assignment]:
        remaining = list(candidates)
        found: List[Assignment] = []
        direct = set()  # ids of the statements that bind the name outright
        for c in candidates:
            statement = self._binding_statement(c.node)
            if statement is not None:
                direct.add(id(statement))

        def take(container) -> List[Assignment]:
            inside = [c for c in remaining if id(container) in self._ids_above(c.node)]
            for c in inside:
                remaining.remove(c)
            found.extend(inside)
            return inside

        child = use
        for anc in self.ancestors(use):
            if isinstance(anc, cst.For) and child is anc.body:
                if take(anc.target):
                    return found  # assigned at the top of every iteration
                take(anc.body)  # assigned later in the body: reaches the next iteration
            elif isinstance(anc, cst.For) and child is anc.orelse:
                take(anc.target)
                take(anc.body)
            elif isinstance(anc, cst.While) and (child is anc.body or child is anc.test):
                take(anc.body)
            elif isinstance(anc, cst.With) and child is anc.body:
                if any(take(item) for item in anc.items):
                    return found
            elif isinstance(anc, cst.ExceptHandler) and child is anc.body and anc.name is not None:
                if take(anc.name):
                    return found
            elif isinstance(anc, cst.Try) and child is not anc.body:
                take(anc.body)  # an exception (or the else) after some of the body ran
                if child is anc.finalbody:
                    for handler in anc.handlers:
                        take(handler)
                    if anc.orelse is not None:
                        take(anc.orelse)
            if isinstance(anc, _BLOCKS):
                body = list(anc.body)
                index = next((i for i, s in enumerate(body) if s is child), None)
                if index is not None:
                    for statement in reversed(body[:index]):
                        if take(statement) and self._definitely_binds(statement, direct):
                            return found
            if anc is scope_node:  # the parameters are bound on entry
                found.extend(
                    c
                    for c in remaining
                    if isinstance(c.node, cst.Param) or isinstance(self.parents.get(c.node), cst.Param)
                )
                return found
            child = anc
        return found

    def _binding_statement(self, node: cst.CSTNode) -> Optional[cst.CSTNode]:
        """The Assign/AnnAssign/import/def statement that binds node outright, if any."""
        if isinstance(node, (cst.Import, cst.ImportFrom, cst.FunctionDef, cst.ClassDef)):
            return node
        current = node
        parent = self.parents.get(current)
        while isinstance(parent, (cst.Element, cst.StarredElement, cst.Tuple, cst.List, cst.AssignTarget)):
            current, parent = parent, self.parents.get(parent)
        if isinstance(parent, cst.Assign) or (isinstance(parent, cst.AnnAssign) and parent.value is not None):
            return parent
        return None

    def _definitely_binds(self, statement: cst.CSTNode, direct: set) -> bool:
        if id(statement) in direct:
            return True
        if isinstance(statement, (cst.SimpleStatementLine, cst.SimpleStatementSuite, cst.IndentedBlock)):
            return any(self._definitely_binds(s, direct) for s in statement.body)
        if isinstance(statement, cst.If):
            return (
                statement.orelse is not None
                and self._definitely_binds(statement.body, direct)
                and self._definitely_binds(statement.orelse, direct)
            )
        if isinstance(statement, (cst.Else, cst.With)):
            return self._definitely_binds(statement.body, direct)
        if isinstance(statement, cst.Try):
            return self._definitely_binds(statement.body, direct) and all(
                self._definitely_binds(h.body, direct) for h in statement.handlers
            )
        return False

    def _name_origin(self, name: cst.Name, depth: int) -> Origin:
        best = Origin.OTHER
        for assignment in self.reaching(name):
            best = max(best, self._assignment_origin(assignment, depth))
            if best == Origin.POOL:
                break
        return best

    def binding(self, target: cst.CSTNode):
        """How a Name is bound: ('assign', value, path) for `=`, annotated `=` and `:=`;
        ('for', iterable, path) for a for or comprehension target; (None, None, ())
        otherwise. path: the tuple-unpacking indices, outermost first (None: starred)."""
        path: List[Optional[int]] = []
        node = target
        parent = self.parents.get(node)
        while isinstance(parent, (cst.Element, cst.StarredElement, cst.Tuple, cst.List)):
            if isinstance(parent, (cst.Element, cst.StarredElement)):
                container = self.parents.get(parent)
                if isinstance(container, (cst.Tuple, cst.List)):
                    elements = list(container.elements)
                    index = next(i for i, e in enumerate(elements) if e is parent)
                    starred = any(isinstance(e, cst.StarredElement) for e in elements[: index + 1])
                    path.insert(0, None if starred else index)
                node = container
            else:
                node = parent
            parent = self.parents.get(node)
        if isinstance(parent, cst.AssignTarget):
            assign = self.parents.get(parent)
            if isinstance(assign, cst.Assign):
                return "assign", assign.value, tuple(path)
        if isinstance(parent, cst.AnnAssign) and parent.target is node and parent.value is not None:
            return "assign", parent.value, tuple(path)
        if isinstance(parent, cst.NamedExpr) and parent.target is node:
            return "assign", parent.value, tuple(path)
        if isinstance(parent, (cst.For, cst.CompFor)) and parent.target is node:
            return "for", parent.iter, tuple(path)
        if isinstance(parent, cst.AsName) and isinstance(self.parents.get(parent), cst.WithItem):
            entered = self.entered_value(self.parents.get(parent).item)  # `with cm as x`: what entering cm gives
            if entered is not None:
                return "assign", entered, tuple(path)
        if isinstance(parent, (cst.MatchAs, cst.MatchStar, cst.MatchMapping)):
            matched = self._matched_value(node)
            if matched is not None:
                return "assign", matched, ()
        return None, None, ()

    # -- structural pattern matching -------------------------------------------------
    def _case_binding(self, name: cst.Name) -> Optional[cst.Name]:
        """The Name a `case` pattern binds for a use of name in that case's body (libcst's scopes
        do not record pattern bindings); None otherwise."""
        for node in self.ancestors(name):
            if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
                return None
            if isinstance(node, cst.MatchCase):
                for inner in iter_nodes(node.pattern, (cst.MatchAs, cst.MatchStar, cst.MatchMapping)):
                    bound = (
                        inner.name
                        if isinstance(inner, (cst.MatchAs, cst.MatchStar))
                        else inner.rest
                        if isinstance(inner, cst.MatchMapping)
                        else None
                    )
                    if isinstance(bound, cst.Name) and bound.value == name.value and bound is not name:
                        return bound
        return None

    def _matched_value(self, bound: cst.Name) -> Optional[cst.BaseExpression]:
        """What a pattern binds, as an expression of the match's subject: a class pattern's keyword
        (`case C(buf=b)`: subject.buf) or position (subject[i], a record's field), a mapping pattern's
        key (`case {"buf": t}`: subject["buf"]), a sequence pattern's position (`case (k, v)`:
        subject[0]); a star or a mapping's rest: the subject (the rest of its elements)."""
        cache = self.__dict__.setdefault("_matched_values", {})
        if id(bound) in cache:
            return cache[id(bound)]
        steps: list = []
        node = self.parents.get(bound)
        while node is not None and not isinstance(node, cst.MatchCase):
            parent = self.parents.get(node)
            if isinstance(parent, cst.MatchKeywordElement) and parent.pattern is node:
                steps.append(("attr", parent.key))
            elif isinstance(parent, cst.MatchMappingElement) and parent.pattern is node:
                steps.append(("key", parent.key))
            elif isinstance(parent, cst.MatchSequenceElement) and parent.value is node:
                holder = self.parents.get(parent)
                elements = list(getattr(holder, "patterns", None) or getattr(holder, "elements", ()))
                index = next(i for i, e in enumerate(elements) if e is parent)
                starred = any(isinstance(e, cst.MatchStar) for e in elements[:index])
                steps.append(("key", None if starred else cst.Integer(str(index))))
            node = parent
        if node is None:
            cache[id(bound)] = None
            return None
        match = self.parents.get(node)
        value = match.subject
        for kind, key in reversed(steps):
            if kind == "attr":
                value = cst.Attribute(value, cst.Name(key.value))
                self.parents.setdefault(value, node)
                continue
            shown = _display_element(value, key)
            if shown is not None:  # `match (kv_cache, slots): case (c, s)`: s is slots itself
                value = shown
                continue
            value = cst.Subscript(value, [cst.SubscriptElement(cst.Index(key or cst.Integer("0")))])
            self.parents.setdefault(value, node)
        cache[id(bound)] = value
        return value

    def assigned_value(self, target: cst.CSTNode) -> Tuple[Optional[cst.BaseExpression], Optional[int]]:
        """For a Name being assigned, the expression assigned (and tuple index)."""
        kind, value, path = self.binding(target)
        if kind != "assign":
            return None, None
        return value, (path[0] if path else None)

    def _assignment_origin(self, assignment: Assignment, depth: int) -> Origin:
        node = assignment.node
        if isinstance(node, cst.Param) or isinstance(self.parents.get(node), cst.Param):
            param = node if isinstance(node, cst.Param) else self.parents.get(node)
            return self._param_origin(param, depth)
        if not isinstance(node, cst.Name):
            return Origin.OTHER
        kind, value, path = self.binding(node)
        if kind == "assign" and path and isinstance(self.parents.get(node), cst.StarredElement):
            # `first, *rest = caches`: rest is a list of the further elements, a container too
            container = self._unpacked(value, path[:-1], depth)
            if container != Origin.POOL_TUPLE and len(path) == 1:
                # `first, *rest = self.groups[i]` of a [k, v] list: rest holds the further whole caches
                elements = self.element_values(value, None)
                if elements and max(self.origin(e, depth) for e in elements) >= Origin.POOL_TUPLE:
                    return Origin.POOL_TUPLE
            return container if container == Origin.POOL_TUPLE else self._element(container)
        if kind == "assign":
            return self._unpacked(value, path, depth)
        if kind == "for":
            return self._iterated(value, path, depth)
        return Origin.OTHER

    @staticmethod
    def _element(origin: Origin) -> Origin:
        """What unpacking or iterating a value of this origin gives."""
        return Origin.POOL if origin >= Origin.POOL_TUPLE else origin

    def _unpacked(self, value: cst.BaseExpression, path, depth: int) -> Origin:
        if not path:
            return self.origin(value, depth)
        if self._entry_scales(path[0], value, depth):  # `k, v, kz, vz = past_key_value`: kz, vz are scales
            return Origin.OTHER
        if isinstance(value, (cst.Tuple, cst.List)):
            elements = list(value.elements)
            index = path[0]
            if index is not None and index < len(elements) and isinstance(elements[index], cst.Element):
                return self._unpacked(elements[index].value, path[1:], depth)
            return max((self._unpacked(e.value, path[1:], depth) for e in elements), default=Origin.OTHER)
        piece = self._split_piece(value, cst.Integer(str(path[0]))) if path[0] is not None else None
        if piece is not None:  # `head, rest = buf.split([64, n - 64])`: `buf[:64]`, `buf[64:]`
            return piece if len(path) == 1 else self._element(piece)
        structural = Origin.OTHER
        if isinstance(value, cst.Name) and path[0] is not None:
            # a parameter that holds a tuple: what its calls pass, by position (`buf, blocks = pair` of
            # `self._prepare(self._fetch(mgr, idx))`: the elements _fetch returns)
            arguments = self._complete_name_arguments(value)
            if arguments:
                return max(self._unpacked(a, path, depth) for a in arguments)
        if path[0] is not None:  # `k, v = pairs[i]`, `kk, vv, _ = record`: by position
            elements = self.element_values(value, path[0])
            if elements:
                structural = max(self._unpacked(v, path[1:], depth) for v in elements)
                if structural >= Origin.POOL_TUPLE:  # a pool, or a container of them: nesting kept
                    return structural
        if isinstance(value, cst.Call):  # `k, v, loc = self._buffers(batch)`: what it returns, by position
            returned = self._return_origin(value, depth, tuple(path))
            if returned is not None:
                return max(returned, structural)
        origin = self.origin(value, depth)
        for _ in path:
            origin = self._element(origin)
        return max(origin, structural)

    def _constructed_arguments(self, name: cst.Name) -> List[cst.BaseExpression]:
        """What every construction of a class passes for the __init__ parameter a name reads, when the
        module constructs it only by calls that pass it; [] otherwise."""
        param = self._plain_param(name)
        owner = self._param_owner(param) if param is not None and not param.star else None
        if not isinstance(owner, cst.FunctionDef) or owner.name.value != "__init__" or owner.decorators:
            return []
        calls = self._object_calls(owner)
        found = [self._argument_for(call, owner, param, skip_self=True) for call in calls]
        return found if found and all(f is not None for f in found) else []

    def _complete_name_arguments(self, name: cst.Name) -> List[cst.BaseExpression]:
        """complete_arguments of the parameter a name reads, when that is all that reaches it; else []."""
        param = self._plain_param(name)
        return self.complete_arguments(param) if param is not None else []

    def _protocol_iteration(self, iterable: cst.BaseExpression, depth: int) -> Origin:
        """Iterating an object of a class of the module that defines the iteration protocol
        (rules/accessors.toml [iteration] protocol: `__iter__`, then `__next__` when __iter__ hands
        back no container; a class with neither is iterated by index, `__getitem__(0)`, ...): POOL_TUPLE
        when what it yields is a whole pool (a generator `__iter__` yielding `mgr.get_buffers(i)`), else
        OTHER."""
        t = self.tables
        protocol = [(m, True) for m in sorted(t.iter_protocol)] + [(m, False) for m in sorted(t.next_protocol)]
        protocol += [(m, None) for m in sorted(t.index_protocol)]
        if not any(m in self.nodes.local_callables for m, _ in protocol) or depth > MAX_DEPTH:
            return Origin.OTHER
        if not isinstance(iterable, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)):
            return Origin.OTHER
        owner = self.instance_class(iterable)
        if owner is None:
            return Origin.OTHER
        for method, whole_container in protocol:  # __iter__ first (a container, or a generator), then __next__
            if self.find_method(owner, method) is None:
                continue
            if whole_container is None:  # the sequence protocol: `__getitem__(0)`, `(1)`, ... as elements
                if any(self.find_method(owner, m) is not None for m, w in protocol if w is not None):
                    return Origin.OTHER
                synthetic = cst.Call(func=self._attribute(iterable, method), args=[cst.Arg(cst.Integer("0"))])
                self.parents.setdefault(synthetic, self.parents.get(iterable))
                return Origin.POOL_TUPLE if self.origin(synthetic, depth) >= Origin.POOL else Origin.OTHER
            synthetic = cst.Call(func=self._attribute(iterable, method))
            self.parents.setdefault(synthetic, self.parents.get(iterable))
            found = self.origin(synthetic, depth)
            if found >= (Origin.POOL_TUPLE if whole_container else Origin.POOL):
                return Origin.POOL_TUPLE  # its elements (each __next__()) are whole pools
        return Origin.OTHER

    def _iterated(self, iterable: cst.BaseExpression, path, depth: int) -> Origin:
        """The origin of a for/comprehension target (at path) iterating over iterable."""
        if isinstance(iterable, cst.Call):
            name = (dotted(iterable.func) or "").rsplit(".", 1)[-1]
            args = [a.value for a in iterable.args if a.keyword is None and not a.star]
            shape = self.iteration_kind(iterable)
            if shape == "numbered":  # `enumerate(xs)`: (a counter, an element of xs)
                if not path or path[0] != 1:
                    return Origin.OTHER
                return self._iterated(args[0], path[1:], depth)
            if shape == "pairs":  # `zip(a, b)`, `itertools.product(a, b)`: one element of each
                if not path or path[0] is None or path[0] >= len(args):
                    return self._shaped_origin(iterable, shape, depth) if not path else Origin.OTHER
                return self._iterated(args[path[0]], path[1:], depth)
            if shape == "repeats":  # `itertools.repeat(x, n)`: x itself, each time
                return self._unpacked(args[0], path, depth)
            if shape == "counters":
                return Origin.OTHER
            if name in self.tables.iter_passthrough and args:
                return self._iterated(args[0], path, depth)
            qualified = self.qualified(iterable) if args else None
            if qualified in self.tables.iter_windows:  # `pairwise(xs)`: (xs[j], xs[j + 1])
                if not path:
                    return Origin.POOL_TUPLE if self._iterated(args[0], (), depth) >= Origin.POOL else Origin.OTHER
                return self._iterated(args[0], path[1:], depth)
            if qualified in self.tables.iter_groups:  # `groupby(xs)`: (key, an iterator over elements of xs)
                if not path or path[0] != 1:
                    return Origin.OTHER
                held = self.origin(args[0], depth)
                for _ in path[1:]:
                    held = self._element(held)
                return held
            sources = self.iteration_sources(iterable)
            if sources is not None:  # `islice(xs, a, b)`, `filter(p, xs)`, `chain.from_iterable(pairs)`
                iterables, levels = sources
                inner = (None,) * (levels - 1) + tuple(path)
                return max(self._iterated(a, inner, depth) for a in iterables)
            if isinstance(iterable.func, cst.Attribute) and not iterable.args:
                receiver = iterable.func.value
                if name in self.tables.keep_methods:  # `d.values()`: the same elements
                    return self._iterated(receiver, path, depth)
                if name in self.tables.item_methods:  # `d.items()`: (a key, a value)
                    if path and path[0] == 1:
                        return self._iterated(receiver, path[1:], depth)
                    return Origin.OTHER
        if isinstance(iterable, (cst.Tuple, cst.List)):
            return max(
                (self._unpacked(e.value, path, depth) for e in iterable.elements if isinstance(e, cst.Element)),
                default=Origin.OTHER,
            )
        if path and isinstance(iterable, cst.Name):
            # a parameter: the parts of the elements its calls pass (`for start, _ in stages` of
            # `StagedPools([(0, k[:h]), (h, k[h:])])`: the starts, not the buffers)
            arguments = self._complete_name_arguments(iterable) or self._constructed_arguments(iterable)
            if arguments and all(isinstance(a, (cst.Tuple, cst.List)) for a in arguments):
                return max(self._iterated(a, path, depth) for a in arguments)
        origin = self._element(max(self.origin(iterable, depth), self._protocol_iteration(iterable, depth)))
        for _ in path:
            origin = self._element(origin)
        if origin < Origin.POOL and (
            isinstance(iterable, cst.Name) or (path and isinstance(iterable, (cst.Attribute, cst.Subscript)))
        ):
            # a local container the function fills (`acc = []; acc.extend(entry)`): its elements; a held list
            # of records unpacked by position (`for lid, k, v in self.slots` of `LayerSlot(i, kbuf, vbuf)`)
            elements = self.element_values(iterable, None)
            if elements:
                origin = max(origin, max(self._unpacked(e, path, depth) for e in elements))
        if origin < Origin.POOL and self._list_slice(iterable):
            # `for b in self.stage_bufs[r][:1]`: a slice of a Python list the file builds keeps its elements
            elements = self.element_values(iterable.value, None)
            if elements:
                origin = max(origin, max(self._unpacked(e, path, depth) for e in elements))
        return origin

    def _list_slice(self, expr: cst.BaseExpression) -> bool:
        """Is expr a slice (`xs[:1]`, `xs[a:b]`) of a list or tuple the file builds (displays and
        comprehensions only, through names, attributes and subscripts; a None it is set to aside)?"""
        sliced = isinstance(expr, cst.Subscript) and len(expr.slice) == 1 and isinstance(expr.slice[0].slice, cst.Slice)
        return sliced and self._built_list(expr.value, 0)

    def _built_list(self, expr: cst.BaseExpression, depth: int) -> bool:
        if depth > 4 or not isinstance(expr, (cst.Name, cst.Attribute, cst.Subscript)):
            return False
        values = [v for v in self._container_sources(expr, depth) or () if not _is_none(v)]
        return bool(values) and all(self._dict_kind(v) is False or self._built_list(v, depth + 1) for v in values)

    # -- self attributes ---------------------------------------------------------
    def _index_class(self, cls: cst.ClassDef) -> None:
        if id(cls) in self._indexed_classes:
            return
        self._indexed_classes.add(id(cls))
        for target, value in self.nodes.self_assignments:
            if self.enclosing_class(target) is cls:
                self._self_attr_index.setdefault((id(cls), target.attr.value), []).append(value)
        for call in self.nodes.self_calls:
            if self.enclosing_class(call) is cls:
                self._method_calls.setdefault((id(cls), call.func.attr.value), []).append(call)
        for target, value in self.grown_attributes(cls):
            self._self_attr_index.setdefault((id(cls), target), []).append(value)
        for name, value in self.set_attributes(cls):
            self._self_attr_index.setdefault((id(cls), name), []).append(value)

    def _member_origin(self, receiver: cst.BaseExpression, depth: int) -> Origin:
        """What `receiver.buffers()` iterates ([containers] member_methods): a container's elements
        (`nn.ParameterList`), else every tensor receiver's class stores on self, under any name: a
        container of whole pools when one of them is a whole pool."""
        if self.origin(receiver, depth) == Origin.POOL_TUPLE:
            return Origin.POOL_TUPLE
        owner = self.instance_class(receiver)
        if owner is None:
            return Origin.OTHER
        for member in self.class_family(owner):
            self._index_class(member)
            values = [v for (key, _), vs in self._self_attr_index.items() if key == id(member) for v in vs]
            values.extend(self._computed_set_values(member))
            if any(self.origin(v, depth) >= Origin.POOL for v in values):
                return Origin.POOL_TUPLE
        return Origin.OTHER

    def _computed_set_values(self, cls: cst.ClassDef) -> List[cst.BaseExpression]:
        """The values cls's methods set on self under a computed name (`setattr(self, f"kv_{i}", v)`)."""
        index = self.__dict__.get("_computed_sets")
        if index is None:
            index = self._computed_sets = {}
            for call in self.nodes.calls:
                args = self.self_setter_args(call)
                if args is None:
                    continue
                if len(args) >= 2 and not any(a.star or a.keyword for a in args[:2]):
                    if self.constant_string(args[0].value) is None:
                        owner = self.enclosing_class(call)
                        if owner is not None:
                            index.setdefault(id(owner), []).append((args[0].value, args[1].value))
        return [value for _, value in index.get(id(cls), [])]

    def _computed_name_values(self, owner: cst.ClassDef, name: cst.BaseExpression) -> List[cst.BaseExpression]:
        """What an instance of owner may hold under a computed name (`getattr(self, f"kv_{layer_id}")`):
        the values its family sets under a computed name that may spell the same (`register_buffer(
        f"kv_{i}", t)`: the same literal head and tail)."""
        self._computed_set_values(owner)
        wanted = _name_shape(name)
        out = []
        for member in self.class_family(owner):
            for stored, value in self._computed_sets.get(id(member), []):
                if _shapes_meet(wanted, _name_shape(stored)):
                    out.append(value)
        return out

    def self_attr_values(self, cls: cst.ClassDef, attr: str) -> List[cst.BaseExpression]:
        self._index_class(cls)
        return self._self_attr_index.get((id(cls), attr), [])

    def _property_origin(self, expr: cst.Attribute, cls: Optional[cst.ClassDef], depth: int) -> Optional[Origin]:
        """`obj.name` where name is a @property of obj's class: what its getters return, found as
        `obj.name()` would be (return_targets: the class hierarchy, the overrides in subclasses
        that implement an abstract property, `super().name`)."""
        getter = self.property_getter(cls, expr.attr.value) if cls is not None else None
        if getter is None:
            return None
        synthetic = cst.Call(func=expr)
        self.parents.setdefault(synthetic, self.parents.get(expr))
        best = Origin.OTHER
        for target, skip, _ in self.return_targets(synthetic, depth) or [(getter, True, False)]:
            if (isinstance(target, cst.FunctionDef) and self.is_property(target)) or target is getter:
                best = max(best, self._returned(synthetic, target, skip, depth))
        return best

    def _self_attr_origin(self, expr: cst.Attribute, depth: int) -> Origin:
        cls = self.enclosing_class(expr)
        if cls is None:
            return Origin.OTHER
        prop = self._property_origin(expr, cls, depth)
        if prop is not None:
            return prop
        best = Origin.OTHER
        values = self.instance_attr_values(cls, expr.attr.value, self._reading_method(expr, cls))
        for value in values:
            best = max(best, self.origin(value, depth))
        if not values and expr.attr.value in self.tables.user_container_data:
            best = self._user_container_origin(cls, depth)
        if best >= Origin.POOL_TUPLE:
            local = self._local_store(expr)
            if local is not None:  # `self.cache = kv_cache[:, blocks]` just above: what it stored
                return self.origin(local, depth)
        return best

    def _reading_method(self, expr: cst.CSTNode, cls: cst.ClassDef) -> Optional[cst.FunctionDef]:
        """The def of cls's body that expr is read in (through nested defs and lambdas), if any."""
        for anc in self.ancestors(expr):
            if isinstance(anc, cst.FunctionDef) and self.method_class(anc) is cls:
                return anc
        return None

    def _user_container_self(self, func, param: cst.Param) -> bool:
        """Is param the instance a method of a container subclass ([containers] user_containers) is
        called on (its first)?"""
        cls = self.method_class(func) if isinstance(func, cst.FunctionDef) else None
        first = next(iter((*func.params.posonly_params, *func.params.params)), None) if cls is not None else None
        if first is not param:
            return False
        t = self.tables
        return any(self.qualified(b.value) in t.user_containers for member in self.class_mro(cls) for b in member.bases)

    def _user_container_origin(self, cls: cst.ClassDef, depth: int) -> Origin:
        """`self.data` in a subclass of a container class ([containers] user_containers: UserDict): what
        the instances hold, the constructions' first arguments and what is stored into the attribute an
        instance is assigned to (`self.table = CacheTable()`, `self.table.update(kv_caches)`)."""
        t = self.tables
        if not any(
            self.qualified(base.value) in t.user_containers for member in self.class_mro(cls) for base in member.bases
        ):
            return Origin.OTHER
        best = Origin.OTHER
        for call in self.constructor_calls(cls):
            if call.args and not call.args[0].star and call.args[0].keyword is None:
                best = max(best, self.origin(call.args[0].value, depth))
            parent = self.parents.get(call)
            target = parent.targets[0].target if isinstance(parent, cst.Assign) and len(parent.targets) == 1 else None
            holder = self.enclosing_class(parent) if parent is not None else None
            if (
                isinstance(target, cst.Attribute)
                and isinstance(target.value, cst.Name)
                and target.value.value == "self"
                and holder is not None
            ):
                for value in self.instance_attr_values(holder, target.attr.value):
                    if value is not call:
                        best = max(best, self.origin(value, depth))
                # the attribute as its class reads it (a cache attribute filled by `.extend(...)`)
                best = max(best, self.origin(target, depth + 1))
        return best

    def _local_store(self, expr: cst.Attribute) -> Optional[cst.BaseExpression]:
        """The value of `self.x = value`, a statement before this read of self.x in its function that
        every path to the read passes (an enclosing block's earlier statement, no loop between), when no
        statement in between may store self.x again (another store, a call of a method of self or
        super()); None otherwise."""
        attr = expr.attr.value
        func = self.enclosing_function(expr)
        if func is None:
            return None
        index = self.derived.get("self_stores")
        if index is None:
            index = self.derived["self_stores"] = set()
            for target, _ in self.nodes.self_assignments:
                owner = self.enclosing_function(target)
                if owner is not None:
                    index.add((id(owner), target.attr.value))
        if (id(func), attr) not in index:
            return None
        node: cst.CSTNode = expr
        while True:
            parent = self.parents.get(node)
            if parent is None or parent is func:
                return None
            if isinstance(parent, (cst.For, cst.While, cst.Lambda, cst.FunctionDef, cst.ClassDef)) or isinstance(
                parent, (cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)
            ):
                return None
            if isinstance(parent, cst.IndentedBlock):
                body = list(parent.body)
                at = next((i for i, s in enumerate(body) if s is node), None)
                if at is None:
                    return None
                for earlier in reversed(body[:at]):
                    found = self._stores_self_attr(earlier, attr)
                    if found is not False:
                        return found
            node = parent

    def _stores_self_attr(self, statement: cst.CSTNode, attr: str):
        """value when statement is `self.<attr> = value`; None when it may store self.<attr> otherwise
        (a nested or unpacking store, a call of a method of self or super()); False when it cannot."""
        if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1:
            small = statement.body[0]
            if isinstance(small, cst.Assign) and len(small.targets) == 1:
                t = small.targets[0].target
                if (
                    isinstance(t, cst.Attribute)
                    and t.attr.value == attr
                    and isinstance(t.value, cst.Name)
                    and t.value.value == "self"
                ):
                    return small.value
        for node in iter_nodes(statement, (cst.Attribute, cst.Call)):
            if isinstance(node, cst.Attribute):
                if node.attr.value == attr and isinstance(node.value, cst.Name) and node.value.value == "self":
                    parent = self.parents.get(node)
                    if isinstance(parent, (cst.AssignTarget, cst.Element, cst.AugAssign, cst.AnnAssign)):
                        return None
            else:
                f = node.func
                if isinstance(f, cst.Attribute) and (
                    (isinstance(f.value, cst.Name) and f.value.value == "self")
                    or (
                        isinstance(f.value, cst.Call)
                        and isinstance(f.value.func, cst.Name)
                        and f.value.func.value == "super"
                    )
                ):
                    return None
                if isinstance(f, cst.Name) and f.value in ("setattr", "exec"):
                    return None
        return False

    def _instance_attr_origin(self, expr: cst.Attribute, depth: int) -> Origin:
        """`obj.attr` where obj is an instance of a class of this module: where the
        constructions that made obj are known, under their arguments; `super().name`: a property
        of the base classes."""
        value = expr.value
        if isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and value.func.value == "super":
            return self._property_origin(expr, self.enclosing_class(expr), depth) or Origin.OTHER
        owner = (
            self.instance_class(expr.value)
            or self.class_named(expr.value)  # `Arena.lanes`: an attribute of the class, shared by instances
            or self.duck_class(expr.value, expr.attr.value, method=False)
        )
        if owner is None:
            return Origin.OTHER
        frames = self.construction_frames(expr.value)
        if frames and len(frames) <= 8 and self.property_getter(owner, expr.attr.value) is not None:
            # `PagedReader(q, 1).raw`: the property reads the attributes of *that* construction
            found = [
                self._under_construction(c, lambda: self._property_origin(expr, owner, depth), depth, env)
                for c, env in frames
            ]
            return max((f for f in found if f is not None), default=Origin.OTHER)
        prop = self._property_origin(expr, owner, depth)
        if prop is not None:
            return prop
        dynamic = self.dynamic_attribute(expr, owner)
        if dynamic is not None:  # `proxy.planes` of a class defining only `__getattr__`: what it returns
            return self.origin(dynamic, depth)
        if not frames:
            return max(
                (self.origin(v, depth) for v in self.instance_attr_values(owner, expr.attr.value)), default=Origin.OTHER
            )
        best = Origin.OTHER
        for call, env in frames:
            best = max(best, self._attr_under(call, expr.attr.value, depth, env))
        return best

    def _attr_under(self, call: cst.Call, attr: str, depth: int, env: Optional[Dict[int, Origin]] = None) -> Origin:
        """What attr holds on the object `call` constructs: a record's argument for that
        field, or the family's `self.attr = ...` with __init__'s parameters bound to call's
        (env: the parameters of the helper that returned the construction). A copy with fields
        replaced (`rec._replace(k=x)`, `attr.evolve(rec, k=x)`): the keyword's value for a replaced
        field, the original's field for the others."""
        replaced = self.replaced_record(call)
        if replaced is not None:
            original, changes = replaced
            value = changes[attr] if attr in changes else self._attribute(original, attr)
            if not env:
                return self.origin(value, depth)
            saved, saved_returns = self._origin_cache, self._returns_cache
            self._origin_cache, self._returns_cache = {}, {}
            self._bindings.append(env)
            try:
                return self.origin(value, depth)
            finally:
                self._bindings.pop()
                self._origin_cache, self._returns_cache = saved, saved_returns
        cls = self.instance_class(call)
        if self.is_record(cls) and attr in self.record_fields(cls):
            # a field a method reassigns (`self.k = self.k.view(...)` in `__post_init__`) holds that too, and one
            # a store on the record after it is built (`meta = super().build(fb); meta.layers = pool.kv_buffer`)
            later = [v for member in self.class_family(cls) for v in self.self_attr_values(member, attr)]
            stored = max((self.origin(v, depth) for v in self.external_values(cls, attr)), default=Origin.OTHER)
            if not env:
                return max(
                    [stored, *(self.origin(v, depth) for v in (*self._record_arguments(cls, attr, [call]), *later))]
                )
            saved, saved_returns = self._origin_cache, self._returns_cache
            self._origin_cache, self._returns_cache = {}, {}
            self._bindings.append(env)
            try:
                return max([stored, *(self.origin(v, depth) for v in self._record_arguments(cls, attr, [call]))])
            finally:
                self._bindings.pop()
                self._origin_cache, self._returns_cache = saved, saved_returns
        return self._under_construction(
            call,
            lambda: max((self.origin(v, depth) for v in self.instance_attr_values(cls, attr)), default=Origin.OTHER),
            depth,
            env,
        )

    def _cache_attr_origin(self, expr: cst.Attribute, depth: int) -> Origin:
        """A cache attribute: a container of whole caches by its name, unless the class
        allocates it itself, where the allocation's first dimension decides."""
        values: List[cst.BaseExpression] = []
        if isinstance(expr.value, cst.Name) and expr.value.value == "self":
            cls = self.enclosing_class(expr)
            if cls is not None:
                values = [
                    v
                    for v in self.self_attr_values(cls, expr.attr.value)
                    if not (isinstance(v, cst.Name) and v.value == "None")
                ]
        else:
            # `self.draft.kv_buffer`: its class's allocation; a receiver of unknown class: the one class
            # that assigns the attribute (`engine.scales_zeros` of the int8 engine's scales)
            owner = self.instance_class(expr.value)
            if owner is None and not self._read_off_another_object(expr.value):
                owner = self.duck_class(expr.value, expr.attr.value, method=False)
            if owner is not None:
                values = [
                    v
                    for v in self.instance_attr_values(owner, expr.attr.value)
                    if not (isinstance(v, cst.Name) and v.value == "None")
                ]
                if not all(self.allocation_kind(v) == "batch" for v in values):
                    values = []  # only a batch-sized allocation overrides the name
        if not values:
            return Origin.POOL_TUPLE
        best, by_name = Origin.OTHER, False
        for value in values:
            kind = self.allocation_kind(value)
            if kind == "batch":
                continue
            if kind == "pool":
                best = max(best, Origin.POOL)
            elif kind == "layers":
                best = max(best, Origin.POOL_TUPLE)
            elif kind == "unknown":
                by_name = True
            else:
                origin = self.origin(value, depth)
                if origin >= Origin.POOL_TUPLE:
                    best = max(best, origin)
                elif not self._bound_parameter(value):
                    by_name = True  # (a parameter bound by the construction followed says what it holds)
        return max(best, Origin.POOL_TUPLE) if by_name else best

    def _read_off_another_object(self, receiver: cst.BaseExpression) -> bool:
        """Is receiver `self.x` whose every assignment reads it off another object (`self.pool =
        runner.token_to_kv_pool`)? Its class is that object's, not the module's class that happens to
        assign the attribute."""
        if not (isinstance(receiver, cst.Attribute) and isinstance(receiver.value, cst.Name)):
            return False
        if receiver.value.value != "self":
            return False
        cls = self.enclosing_class(receiver)
        values = self.self_attr_values(cls, receiver.attr.value) if cls is not None else []
        return bool(values) and all(isinstance(v, cst.Attribute) for v in values)

    def _bound_parameter(self, expr: cst.BaseExpression) -> bool:
        """Is expr a parameter the calls being followed bind (`SplitView(k, ...)`: its
        `self.kv_buffer = kv_buffer` holds k, whatever the attribute is named)?"""
        if not self._bindings or not isinstance(expr, cst.Name):
            return False
        for assignment in self.reaching(expr):
            node = assignment.node
            param = node if isinstance(node, cst.Param) else self.parents.get(node)
            if not isinstance(param, cst.Param):
                return False
            if not any(id(param) in bindings for bindings in self._bindings):
                return False
        return True

    def holds_pools(self, expr: cst.BaseExpression) -> bool:
        """Is expr a container of whole pools (Origin.POOL_TUPLE)?"""
        return self.origin(expr) == Origin.POOL_TUPLE

    def _arena_allocation(self, call: cst.Call) -> bool:
        """One layer's pool: an allocation of a pool's size, in a method of a class, made once per
        layer: the element of a comprehension of per-layer arenas, a part of a (k, v) element or
        an argument of a record built per element (`[(torch.empty((num_blocks, ...)), ...) for _ in
        ...]`, `[LayerKV(i, torch.empty((num_blocks, ...)), ...) for i in ...]`), stored into a
        container in a loop, or bound to a name in a loop over the layers (`for _ in
        range(num_layers): k = torch.empty((num_blocks, ...))`)."""
        if (dotted(call.func) or "").rsplit(".", 1)[-1] not in self.tables.allocation_functions:
            return False
        element, parent = self._unwrapped(call)
        if self._instance_arena(call, element, parent):
            return True
        if isinstance(parent, cst.Element):  # a part of a (k, v) pair
            element = self.parents.get(parent)
            parent = self.parents.get(element)
        record = (
            isinstance(parent, cst.Arg)
            and isinstance(self.parents.get(parent), cst.Call)
            and self.constructed_class(self.parents.get(parent)) is not None
        )
        if record:  # an argument of a construction: the record holds it
            element = self.parents.get(parent)
            parent = self.parents.get(element)
        if isinstance(parent, (cst.Assign, cst.Arg)) and self._stored_in_loop(element, parent):
            return self.allocation_kind(call) == "pool" and self._per_layer_arenas(parent, call)
        if (
            isinstance(parent, cst.Arg)
            and element is call
            and isinstance(self.parents.get(parent), cst.Call)
            and self._in_layer_loop(self.parents.get(parent))
            and self.return_targets(self.parents.get(parent))
        ):
            # handed to a def of the module once per layer (`Registry.publish(i, torch.empty((blocks, ...)))`
            # in `for i in range(num_layers)`): one layer's pool, wherever the def puts it
            return self.allocation_kind(call) == "pool" and self._per_layer_arenas(parent, call)
        if (
            isinstance(parent, cst.Assign)
            and element is call
            and len(parent.targets) == 1
            and isinstance(parent.targets[0].target, cst.Name)
        ):
            return self._in_layer_loop(parent) and self._per_layer_arenas(parent, call)
        if not isinstance(parent, (cst.ListComp, cst.GeneratorExp, cst.SetComp, cst.DictComp)):
            return False
        own = parent.value if isinstance(parent, cst.DictComp) else parent.elt
        return own is element and self._per_layer_arenas(parent, call if record else own)

    def _unwrapped(self, value: cst.BaseExpression):
        """(value, its parent) above the identity wrappers that hold it ([callables] identity_wrappers:
        `nn.Parameter(torch.zeros(...))`, `nn.Buffer(...)` are the allocation itself)."""
        parent = self.parents.get(value)
        while isinstance(parent, cst.Arg):
            wrapper = self.parents.get(parent)
            if not isinstance(wrapper, cst.Call) or self.wrapped_value(wrapper) is not value:
                break
            value, parent = wrapper, self.parents.get(wrapper)
        return value, parent

    def _pool_sized(self, call: cst.Call) -> bool:
        """An allocation of a pool's size, or one sized by a shape passed in whole (`torch.empty(shape)`,
        `torch.zeros(cache_shape)`: [allocation] extent_attributes in the name, no batch word) where it
        is made once per layer."""
        kind = self.allocation_kind(call)
        if kind == "pool":
            return True
        if kind != "unknown":
            return False
        size = next((a.value for a in call.args if a.keyword is not None and a.keyword.value == "size"), None)
        size = size or self._first_positional(call.args)
        if not isinstance(size, (cst.Name, cst.Attribute)):
            return False
        t = self.tables
        if (
            isinstance(size, cst.Attribute)
            and size.attr.value in t.extent_attributes
            and isinstance(size.value, cst.Name)
        ):
            bound = self.reaching(size.value)
            if bound and all(isinstance(a.node, cst.Name) for a in bound):
                # `torch.empty_strided(size=weight.shape, ...)` of a tensor the function assigns: that
                # tensor's size, a pool's only when it is one
                return self.origin(size.value) >= Origin.POOL_TUPLE
        parts = name_parts(size.value if isinstance(size, cst.Name) else size.attr.value)
        return bool(parts & t.extent_attributes) and not parts & (t.batch_words | t.window_words)

    def _instance_arena(self, call: cst.Call, element: cst.BaseExpression, parent) -> bool:
        """An allocation a module class stores on self once per layer: in a method that builds the
        object (`[hot_path] run_once`: `self.k = torch.empty((blocks, ...))`,
        `self.register_buffer("k", ...)`) of a class constructed once per layer (`nn.ModuleList(
        CacheSlot(...) for _ in range(n))`, `{n: LayerCache(s) for n in names}`), or set under a
        computed name in a loop over the layers (`setattr(self, f"kv_{i}", nn.Buffer(...))`)."""
        stored = None
        if isinstance(parent, cst.Assign):
            target = parent.targets[0].target if len(parent.targets) == 1 else None
            if (
                isinstance(target, cst.Attribute)
                and isinstance(target.value, cst.Name)
                and target.value.value == "self"
                and parent.value is element
            ):
                stored = parent
        elif isinstance(parent, cst.Arg) and not parent.star and parent.keyword is None:
            setter = self.parents.get(parent)
            if (
                isinstance(setter, cst.Call)
                and self._self_setter(setter)
                and self.self_setter_args(setter).index(parent) >= 1
            ):
                stored = setter
        if stored is None or (isinstance(element, cst.Call) and self.qualified(element) in self.tables.weight_wrappers):
            return False  # `self.weight = nn.Parameter(torch.zeros(hidden_size))`: a weight
        func = self.enclosing_function(stored)
        cls = self.method_class(func) if func is not None else None
        if cls is None or not self._pool_sized(call):
            return False
        if isinstance(stored, cst.Call) and self._in_layer_loop(stored):
            return True
        if func.name.value not in self.tables.run_once_methods:
            return False
        return any(self._per_layer_element(c) for c in self.constructor_calls(cls))

    def _self_setter(self, call: cst.Call) -> bool:
        """`self.register_buffer(name, v)`, `setattr(self, name, v)` ([callables] attribute_setters,
        object_setters)."""
        return self.self_setter_args(call) is not None

    def _per_layer_element(self, made: cst.Call) -> bool:
        """A construction made once per element: the element of a comprehension (or the value of a dict
        comprehension), or stored into a container in a loop."""
        parent = self.parents.get(made)
        if isinstance(parent, (cst.ListComp, cst.GeneratorExp, cst.SetComp, cst.DictComp)):
            if (parent.value if isinstance(parent, cst.DictComp) else parent.elt) is not made:
                return False
            if self._over_layers(parent.for_in.iter):
                return True
            holder = self.parents.get(parent)
            while isinstance(holder, (cst.Arg, cst.List, cst.Element, cst.StarredElement)):
                holder = self.parents.get(holder)  # `nn.ModuleList([Slot(...) for ...])`, `nn.Sequential(*[...])`
            return isinstance(holder, cst.Call) and self.qualified(holder) in self.tables.module_containers
        return (
            isinstance(parent, (cst.Assign, cst.Arg))
            and self._stored_in_loop(made, parent)
            and self._in_layer_loop(parent)
        )

    def _over_layers(self, iterable: cst.BaseExpression) -> bool:
        """Does a loop's iterable name the layers ([allocation] layer_words: `range(num_layers)`)?"""
        return any(name_parts(text) & self.tables.layer_words for text in self._identifiers(iterable))

    def _in_layer_loop(self, statement: cst.CSTNode) -> bool:
        """Is statement in the body of a for loop over the layers, within its function: its iterable
        names them ([allocation] layer_words): `range(num_layers)`, `group.layer_names`, `self.layers`?"""
        for node in self.ancestors(statement):
            if isinstance(node, cst.For):
                if any(name_parts(text) & self.tables.layer_words for text in self._identifiers(node.iter)):
                    return True
            if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
                return False
        return False

    def _stored_in_loop(self, value: cst.BaseExpression, holder) -> bool:
        """`d[k] = value` or `xs.append(value)` in a for loop: one element per iteration."""
        if isinstance(holder, cst.Assign):
            stored = (
                holder.value is value
                and len(holder.targets) == 1
                and isinstance(holder.targets[0].target, cst.Subscript)
            )
        else:
            call = self.parents.get(holder)
            stored = (
                isinstance(call, cst.Call)
                and isinstance(call.func, cst.Attribute)
                and call.func.attr.value in ("append", "insert")
                and call.args[-1] is holder
            )
        if not stored:
            return False
        for node in self.ancestors(holder):
            if isinstance(node, cst.For):
                return True
            if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
                return False
        return False

    def _layer_stacked_allocation(self, call: cst.Call) -> Optional[str]:
        """Every layer's pool in one tensor, allocated in a method of a class: "layers" when the
        first dimension is a layer count and the second a pool's (`torch.empty((num_layers,
        num_blocks, ...))`), "inside" for the other way round (`(num_blocks, num_layers, 2, ...)`,
        TensorRT-LLM's layout); None for any other allocation."""
        if (dotted(call.func) or "").rsplit(".", 1)[-1] not in self.tables.allocation_functions:
            return None
        size = next(
            (a.value for a in call.args if a.keyword is not None and a.keyword.value == "size"),
            self._first_positional(call.args),
        )
        dims = (
            [e.value for e in size.elements if isinstance(e, cst.Element)]
            if isinstance(size, (cst.Tuple, cst.List))
            else [a.value for a in call.args if a.keyword is None]
        )
        if len(dims) < 2:
            return None
        words = []
        for dim in dims[:2]:  # the words written there (the pruner and the text gate read the same)
            parts = set()
            for text in self._identifiers(dim):
                parts |= name_parts(text)
            words.append(parts)
        t = self.tables
        if (words[0] | words[1]) & t.batch_words:
            return None
        if words[0] & t.layer_words and words[1] & t.pool_words:
            kind = "layers"
        elif words[0] & t.pool_words and words[1] & t.layer_words and not words[0] & t.layer_words:
            kind = "inside"
        else:
            return None
        func = self.enclosing_function(call)
        return kind if func is not None and self.method_class(func) is not None else None

    def _per_layer_arenas(self, comp, element: cst.BaseExpression) -> bool:
        """A comprehension in a method of a class that allocates one token-sized tensor per
        element (`[torch.zeros((size + 1, h, d)) for _ in range(layer_num)]`): a pool's
        per-layer arenas (the allocation's first dimension decides, as for cache attributes)."""
        parts = (
            [e.value for e in element.elements if isinstance(e, cst.Element)]
            if isinstance(element, (cst.Tuple, cst.List))
            else [element]
        )  # a (k, v) pair per layer
        if not parts:
            return False  # `{r: [] for r in ratios}`: empty lists, filled later
        for part in parts:
            while isinstance(part, cst.Call) and part.args and self.wrapped_value(part) is part.args[0].value:
                part = part.args[0].value  # `nn.Parameter(torch.zeros(shape))`: the allocation
            if (
                not isinstance(part, cst.Call)
                or (dotted(part.func) or "").rsplit(".", 1)[-1] not in self.tables.allocation_functions
                or not self._pool_sized(part)
            ):
                return False
        func = self.enclosing_function(comp)
        return func is not None and self.method_class(func) is not None

    def allocation_kind(self, value: cst.BaseExpression) -> Optional[str]:
        """For a buffer allocation (`torch.zeros((max_bs, 576))`, a per-layer list of them):
        'batch', 'pool', 'layers' (one per layer) or 'unknown' by its first dimension;
        None when value is no allocation."""
        if isinstance(value, (cst.ListComp, cst.GeneratorExp)):
            kind = self.allocation_kind(value.elt)
            return None if kind is None else ("batch" if kind == "batch" else "layers")
        if isinstance(value, (cst.List, cst.Tuple)):
            kinds = [self.allocation_kind(e.value) for e in value.elements if isinstance(e, cst.Element)]
            kinds = [k for k in kinds if k is not None]
            if not kinds:
                return None
            return "batch" if all(k == "batch" for k in kinds) else "layers"
        if not isinstance(value, cst.Call):
            return None
        name = (dotted(value.func) or "").rsplit(".", 1)[-1]
        if name not in self.tables.allocation_functions:
            return None
        first = self._first_positional(value.args)
        if name.endswith("_like"):
            return "pool" if first is not None and self.origin(first) >= Origin.POOL_TUPLE else "batch"
        size = next((a.value for a in value.args if a.keyword is not None and a.keyword.value == "size"), first)
        size = self._bound_shape(size)  # `shape = (blocks, bs, heads, 2)`; `torch.ones(shape)`
        dims = (
            [e.value for e in size.elements if isinstance(e, cst.Element)]
            if isinstance(size, (cst.Tuple, cst.List))
            else [a.value for a in value.args if a.keyword is None and not a.star]
        )
        if dims and all(isinstance(d, cst.Integer) for d in dims):
            return "batch"  # a fixed shape (`(16, 4)`): per-request state, no pool sized at run time
        if (
            len(dims) >= 2
            and isinstance(dims[-1], cst.Integer)
            and dims[-1].evaluated_value in self.tables.scalar_last_dims
        ):
            return "batch"  # `(size + 1, 1)`, `(blocks, block_size, heads, 2)`: scales or zeros, not KV
        if isinstance(size, (cst.Tuple, cst.List)):
            elements = [e.value for e in size.elements if isinstance(e, cst.Element)]
            # leading fixed axes (vLLM's K/V axis: `(2, num_blocks, ...)`): the first sized one decides
            named = [d for d in elements if not isinstance(d, cst.Integer)]
            size = named[0] if named else None
        if size is None:
            return "unknown"
        parts = set()
        for text in self._identifiers(size, resolve=True):
            parts |= name_parts(text)
        t = self.tables
        if parts & t.batch_words:
            return "batch"
        if parts & t.layer_words:
            return "layers"
        if parts & t.pool_words:
            return "pool"
        return "unknown"

    def _bound_shape(self, size: Optional[cst.BaseExpression]) -> Optional[cst.BaseExpression]:
        """The tuple or list display a local name holds when it is bound to one only (a shape
        written once and passed to an allocation by name); else size itself."""
        if not isinstance(size, cst.Name):
            return size
        values = []
        for assignment in self.reaching(size):
            if not isinstance(assignment.node, cst.Name):
                return size
            kind, value, path = self.binding(assignment.node)
            if kind != "assign" or path or not isinstance(value, (cst.Tuple, cst.List)):
                return size
            values.append(value)
        return values[0] if len(values) == 1 else size

    def allocated_dtype(self, expr: cst.BaseExpression, depth: int = 0) -> Optional[str]:
        """The dtype a buffer was allocated with (`torch.empty_like(x, dtype=d)`), through
        names and `self.` attributes; None when not allocated here with a dtype."""
        found = self.allocated_dtype_expr(expr, depth)
        return self.code(found) if found is not None else None

    def allocated_dtype_expr(self, expr: cst.BaseExpression, depth: int = 0) -> Optional[cst.BaseExpression]:
        """The `dtype=` expression of allocated_dtype."""
        if depth > 4:
            return None
        if isinstance(expr, cst.Call):
            name = (dotted(expr.func) or "").rsplit(".", 1)[-1]
            if name in self.tables.allocation_functions:
                for arg in expr.args:
                    if arg.keyword is not None and arg.keyword.value == "dtype":
                        return arg.value
            return None
        values: List[cst.BaseExpression] = []
        if isinstance(expr, cst.Name):
            for assignment in self.reaching(expr):
                if isinstance(assignment.node, cst.Name):
                    kind, value, path = self.binding(assignment.node)
                    if kind == "assign" and not path:
                        values.append(value)
        elif isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name) and expr.value.value == "self":
            cls = self.enclosing_class(expr)
            values = self.self_attr_values(cls, expr.attr.value) if cls is not None else []
        elif isinstance(expr, cst.Attribute):  # `self.mgr.stage`: what the other object's class allocates
            owner = self.instance_class(expr.value)
            values = self.instance_attr_values(owner, expr.attr.value) if owner is not None else []
        elif isinstance(expr, cst.Subscript):
            return self.allocated_dtype_expr(expr.value, depth + 1)
        for value in values:
            found = self.allocated_dtype_expr(value, depth + 1)
            if found is not None:
                return found
        return None

    def _identifiers(self, expr: cst.BaseExpression, resolve: bool = False) -> List[str]:
        """Names and attribute names in expr; with resolve, also those of the values
        its local names are assigned (one level: `m = self.size + page`)."""
        out, read = [], set()
        for node in iter_nodes(expr, (cst.Name, cst.Attribute)):
            if id(node) in read:
                continue
            if isinstance(node, cst.Attribute):
                fields = self._record_field_bound(node) if resolve else []
                if fields:  # a record's field: the names of what it was built with, not of the record
                    read.update(id(n) for n in iter_nodes(node.value, (cst.Name, cst.Attribute)))
                    for value in fields:
                        out.extend(self._identifiers(value))
                out.append(node.attr.value)
                continue
            out.append(node.value)
            if resolve:
                for assignment in self.reaching(node):
                    if isinstance(assignment.node, cst.Name):
                        kind, value, path = self.binding(assignment.node)
                        if kind == "assign" and not path:
                            out.extend(self._identifiers(value))
        return out

    # -- parameters ---------------------------------------------------------------
    def _param_origin(self, param: cst.Param, depth: int) -> Origin:
        for bindings in reversed(self._bindings):
            if id(param) in bindings:
                return bindings[id(param)]
        owner = self._param_owner(param)
        if owner is None:
            return Origin.OTHER
        best = Origin.OTHER
        if isinstance(owner, cst.FunctionDef):
            best = self._convention_origin(owner, param)
            if best == Origin.POOL:
                return best
            cls = self.method_class(owner)
            if cls is not None:
                best = max(best, self._method_param_origin(owner, cls, param, depth))
                if self._user_container_self(owner, param):  # `self[i]` of a UserList subclass: what it holds
                    best = max(best, self._user_container_origin(cls, depth))
        name = param.name.value
        calls = [(call, False) for call in self._calls_by_name().get(id(owner), ())]
        calls += [(call, True) for call in self._object_calls(owner) + self.super_calls(owner)]
        calls += [(call, False) for call in self._explicit_self_calls(owner)]  # `Base.m(self, kv)`
        calls += [(call, skip) for call, skip, _ in self.value_callers().get(id(owner), ())]  # a hook, a visitor
        omitted = not calls and not self._mapped_calls().get(id(owner))
        for call, skip in calls:
            argument = self._argument_for(call, owner, param, skip_self=skip)
            omitted = omitted or argument is None
            if argument is not None:
                best = max(best, self.origin(argument, depth))
        if omitted and param.default is not None:  # `lambda b=mgr.get_buffers(i): ...` called as `fns[i]()`
            best = max(best, self.origin(param.default, depth + 1))
        if isinstance(owner, cst.FunctionDef) and param is owner.params.star_arg:
            best = max(best, self._star_param_origin(owner, depth))
        if best == Origin.OTHER and name in self.tables.cache_parameter_names and not self._has_callers(owner):
            best = Origin.POOL_TUPLE  # `def bind(cls, gpu_cache)` the engine calls: its caches, by the name
        position = self._positional_params(owner, skip_self=False)
        if name in position:
            index = position.index(name)
            for call, first in self._mapped_calls().get(id(owner), ()):
                iterables = [a.value for a in call.args[first:] if a.keyword is None and not a.star]
                if self.applier(call) == "fold":
                    # reduce(f, xs, init): f(accumulated, element); the accumulated value is init, then
                    # what f returned (the fold's own value)
                    if index == 0:
                        best = max(best, self.origin(call, depth))
                        if len(iterables) > 1:
                            best = max(best, self.origin(iterables[1], depth))
                    elif index == 1 and iterables:
                        best = max(best, self._iterated(iterables[0], (), depth))
                    continue
                if index < len(iterables):
                    best = max(best, self._iterated(iterables[index], (), depth))
        return best

    def _has_callers(self, owner) -> bool:
        """Does a visible call (by name, `self.m(...)`, on an object, `super()`) reach owner?"""
        if (
            self._calls_by_name().get(id(owner))
            or self._object_calls(owner)
            or self.super_calls(owner)
            or self._explicit_self_calls(owner)
        ):
            return True
        cls = self.method_class(owner) if isinstance(owner, cst.FunctionDef) else None
        if cls is None:
            return False
        for member in self.class_family(cls):
            self._index_class(member)
            if self._method_calls.get((id(member), owner.name.value)):
                return True
        return False

    def _object_calls(self, func) -> List[cst.Call]:
        """Calls that reach method func from outside its class: `C(...)` for __init__, and
        `obj.m(...)` on an instance of its class (self.m(...) is _method_param_origin's)."""
        if not isinstance(func, cst.FunctionDef):
            return []
        cls = self.method_class(func)
        if cls is None:
            return []
        if func.name.value == "__init__":
            return self.constructor_calls(cls)
        out = []
        # `Cls.m(...)` (and `Sub.m(...)`, `cls.m(...)`) of a class or static method: the call binds
        # no instance, the class (or nothing) fills the first parameter, as self is filled
        through_class = self.class_bound(func)
        for call in self.nodes.calls:
            f = call.func
            if (
                isinstance(f, cst.Attribute)
                and f.attr.value == func.name.value
                and not (isinstance(f.value, cst.Name) and f.value.value == "self")
            ):
                # an object of unknown class: the one class of the module defining the method
                # (`attn.bind_cache(k, v)` for attn of `model.attns`), as _callers_of reads it
                owner = self.instance_class(f.value) or self.duck_class(f.value, f.attr.value, method=True)
                if owner is None and through_class:  # `Registry.publish(i, buf)`: cls is bound
                    owner = self.class_named(f.value)
                if owner is not None and self.find_method(owner, f.attr.value) is func:
                    out.append(call)
        return out

    def _explicit_self_calls(self, func) -> List[cst.Call]:
        """`Base.m(self, ...)` (`type(self).m(obj, ...)`) of an instance method m: called through a
        class, so the instance is the first argument (return_targets binds it so)."""
        if not isinstance(func, cst.FunctionDef) or self.class_bound(func):
            return []
        cls = self.method_class(func)
        if cls is None:
            return []
        index = self.__dict__.get("_attr_call_index")
        if index is None:  # the calls through an attribute, with arguments, by the attribute's name: once a module
            index = {}
            for call in self.nodes.calls:
                f = call.func
                if isinstance(f, cst.Attribute) and call.args:
                    index.setdefault(f.attr.value, []).append(call)
            self._attr_call_index = index
        out = []
        for call in index.get(func.name.value, ()):
            f = call.func
            if True:
                owner = self.class_named(f.value)
                if owner is not None and self.find_method(owner, f.attr.value) is func:
                    out.append(call)
        return out

    def super_calls(self, func) -> List[cst.Call]:
        """The `super().m(...)` calls of subclasses that reach method func (`super().__init__(**kw)`)."""
        index = self.__dict__.get("_super_call_index")
        if index is None:
            index = {}
            for call in self.nodes.calls:
                f = call.func
                if (
                    isinstance(f, cst.Attribute)
                    and isinstance(f.value, cst.Call)
                    and isinstance(f.value.func, cst.Name)
                    and f.value.func.value == "super"
                ):
                    cls = self.enclosing_class(call)
                    for target in self._super_targets(cls, f.attr.value, False) if cls is not None else ():
                        index.setdefault(id(target), []).append(call)
            self._super_call_index = index
        return list(index.get(id(func), ()))

    def _star_param_origin(self, func: cst.FunctionDef, depth: int) -> Origin:
        """`*args`: a tuple of what the calls pass beyond the named positions (and unpack)."""
        cls = self.method_class(func)
        skip = cls is not None
        calls = list(self._calls_by_name().get(id(func), ())) + self._object_calls(func) + self.super_calls(func)
        if cls is not None:
            self._index_class(cls)
            calls += self._method_calls.get((id(cls), func.name.value), [])
        named = len(self._positional_params(func, skip))
        best = Origin.OTHER
        for call in calls:
            positional = [a for a in call.args if a.keyword is None]
            for i, arg in enumerate(positional):
                origin = self.origin(arg.value, depth)
                if arg.star == "*":
                    best = max(best, origin)
                elif i >= named and origin >= Origin.PREFIX:
                    best = max(best, Origin.POOL_TUPLE)
        return best

    def _param_owner(self, param: cst.Param):
        for anc in self.ancestors(param):
            if isinstance(anc, (cst.FunctionDef, cst.Lambda)):
                return anc
        return None

    def _convention_origin(self, func: cst.FunctionDef, param: cst.Param) -> Origin:
        """Engines' calling conventions (rules/conventions.toml): this parameter of this
        method receives a whole per-layer cache from a caller outside the file."""
        rows = self.tables.cache_parameters
        if not rows:
            return Origin.OTHER
        name, method = param.name.value, func.name.value
        params = None
        best = Origin.OTHER
        for row in rows:
            if name not in row.params or method not in row.methods:
                continue
            if params is None:
                p = func.params
                params = {x.name.value for x in (*p.posonly_params, *p.params, *p.kwonly_params)}
            if all(required in params for required in row.requires):
                best = max(best, Origin.POOL_TUPLE if row.returns == "tuple" else Origin.POOL)
        return best

    def cache_parameter(self, func: cst.FunctionDef, name: str):
        """The rules/conventions.toml row that makes parameter `name` of func a whole cache."""
        for row in self.tables.cache_parameters:
            if name in row.params and func.name.value in row.methods:
                p = func.params
                params = {x.name.value for x in (*p.posonly_params, *p.params, *p.kwonly_params)}
                if all(required in params for required in row.requires):
                    return row
        return None

    def _method_param_origin(self, func: cst.FunctionDef, cls: cst.ClassDef, param: cst.Param, depth) -> Origin:
        """The arguments every `self.method(...)` call in the class passes."""
        self._index_class(cls)
        best = Origin.OTHER
        names = [func.name.value] + self._generic_names(func)  # an overload of a singledispatchmethod too
        for call in [c for name in names for c in self._method_calls.get((id(cls), name), [])]:
            argument = self._argument_for(call, func, param, skip_self=True)
            if argument is not None:
                best = max(best, self.origin(argument, depth))
        for base in self.class_mro(cls)[1:]:
            # a base's template method calls `self.m(...)` on an instance of cls: its arguments, read
            # with self a cls (the base's `self.fetch(meta)` is cls's own fetch where it overrides it)
            self._index_class(base)
            for call in self._method_calls.get((id(base), func.name.value), []):
                argument = self._argument_for(call, func, param, skip_self=True)
                if argument is not None:
                    best = max(best, self.as_instance_of(cls, lambda a=argument: self.origin(a, depth)))
        for sub, member in self._mixin_callers(cls, func):
            # a mixin's method that a subclass's MRO runs for `self.m(...)` in another base of it
            # (`class Impl(UpcastReader, GatherReader, Base)`: Base.forward's `self._read_kv(kv_cache)`)
            for call in self._method_calls.get((id(member), func.name.value), []):
                argument = self._argument_for(call, func, param, skip_self=True)
                if argument is not None:
                    best = max(best, self.as_instance_of(sub, lambda a=argument: self.origin(a, depth)))
        return best

    def _mixin_callers(self, cls: cst.ClassDef, func: cst.FunctionDef) -> List[Tuple[cst.ClassDef, cst.ClassDef]]:
        """(subclass of cls whose C3 MRO resolves func's name to func, a class of that MRO outside cls's own
        MRO): the classes whose `self.<name>(...)` calls run func on instances of that subclass."""
        out = []
        own = self.class_mro(cls)
        for sub in self.class_family(cls):
            if sub is cls or cls not in self.class_mro(sub):
                continue
            order = self.c3_mro(sub)
            runs = next((m for m in order if func.name.value in self.class_methods(m)), None)
            if runs is not cls or self.class_methods(cls).get(func.name.value) is not func:
                continue
            for member in order:
                if member not in own:
                    self._index_class(member)
                    out.append((sub, member))
        return out

    @staticmethod
    def _positional_params(owner, skip_self: bool) -> List[str]:
        params = owner.params
        names = [p.name.value for p in (*params.posonly_params, *params.params)]
        if skip_self and names and names[0] in ("self", "cls"):
            names = names[1:]
        return names

    def spread_args(self, args) -> Sequence[cst.Arg]:
        """args with `*x` and `**x` spread where the file shows what x holds (a tuple or list
        display, through names, attributes and helper returns; a dict display or the keywords
        the visible calls pass into a `**kwargs`): the values are the module's own nodes. args
        itself when nothing is starred or nothing is known."""
        if not any(a.star for a in args):
            return args
        cache = self.__dict__.setdefault("_spread_cache", {})
        key = tuple(id(a) for a in args)
        if key in cache and not self._frames:
            return cache[key]
        out: List[cst.Arg] = []
        changed = False
        for arg in args:
            if arg.star == "*" and self._star_frame(arg.value) is None:
                values = self._starred_values(arg.value)
                if values:
                    out.extend(cst.Arg(value=v) for v in values)
                    changed = True
                    continue
            elif arg.star == "**":
                held = self._double_starred_values(arg.value)
                if held and not self._open_kwargs(arg.value):
                    out.extend(cst.Arg(value=v, keyword=cst.Name(k)) for k, v in held.items())
                    changed = True
                    continue
            out.append(arg)
        result = tuple(out) if changed else args
        if not self._frames:
            cache[key] = result
        return result

    def _open_kwargs(self, expr: cst.BaseExpression) -> bool:
        """Is expr a `**kwargs` parameter (its keys are what the callers pass: not every key
        is known, so it is not spread for good; _argument_for reads it key by key)?"""
        return any(isinstance(h, cst.Param) for h in self._held_values(expr))

    def _argument_for(self, call: cst.Call, owner, param: cst.Param, skip_self: bool):
        """The expression call passes for param (positional or keyword), or None."""
        name = param.name.value
        positional = self._positional_params(owner, skip_self)
        index, unpacked = 0, False
        for arg in self.spread_args(call.args):
            if arg.keyword is not None:
                if arg.keyword.value == name:
                    return arg.value
                continue
            if arg.star == "**" and isinstance(arg.value, cst.Dict):  # f(**{"name": value})
                for element in arg.value.elements:
                    if (
                        isinstance(element, cst.DictElement)
                        and isinstance(element.key, cst.SimpleString)
                        and element.key.evaluated_value == name
                    ):
                        return element.value
                continue
            if arg.star == "**" and isinstance(arg.value, (cst.Name, cst.Attribute, cst.Call, cst.BinaryOperation)):
                # f(**kw) of kw = {"name": value}, f(**dict(name=value)), f(**(base | extra))
                held = self._double_starred_values(arg.value).get(name)
                if held is not None:
                    return held
                # f(**kwargs) of a `**kwargs` parameter: what its own callers pass as name=
                values = [
                    v
                    for holder in self._held_values(arg.value)
                    if isinstance(holder, cst.Param)
                    for v in self._keyword_arguments(holder, name)
                ]
                if values:
                    return self.either(values, call)
                continue
            if arg.star == "*" and not unpacked and name in positional and positional.index(name) >= index:
                # f(*args) of a `*args` parameter: what its own callers pass at that position
                values = self._star_param_arguments(arg.value, positional.index(name) - index)
                if values:
                    return self.either(values, call)
            if arg.star:
                unpacked = unpacked or arg.star == "*"  # positions after *args are unknown
                continue
            if not unpacked and index < len(positional) and positional[index] == name:
                return arg.value
            index += 1
        return None

    def _star_param_arguments(self, expr: cst.BaseExpression, offset: int, depth: int = 0) -> List[cst.BaseExpression]:
        """The arguments the visible calls of a function pass at position `offset` of its `*args`
        parameter (expr names it); [] when expr is no such parameter or no call shows one."""
        if not isinstance(expr, cst.Name) or depth > 3:
            return []
        out: List[cst.BaseExpression] = []
        for assignment in self.reaching(expr):
            param = assignment.node if isinstance(assignment.node, cst.Param) else self.parents.get(assignment.node)
            if not isinstance(param, cst.Param):
                return []
            func = self._param_owner(param)
            if not isinstance(func, cst.FunctionDef) or func.params.star_arg is not param:
                return []
            cls = self.method_class(func)
            calls = [(c, False) for c in self._calls_by_name().get(id(func), ())]
            calls += [(c, True) for c in self._object_calls(func) + self.super_calls(func)]
            if cls is not None:
                self._index_class(cls)
                calls += [(c, True) for c in self._method_calls.get((id(cls), func.name.value), [])]
            for call, skip in calls:
                named = len(self._positional_params(func, skip))
                position = 0
                for arg in call.args:
                    if arg.keyword is not None or arg.star == "**":
                        continue
                    if arg.star == "*":  # forwarded again: that function's callers
                        if position <= named + offset:
                            out.extend(self._star_param_arguments(arg.value, named + offset - position, depth + 1))
                        break
                    if position == named + offset:
                        out.append(arg.value)
                        break
                    position += 1
        return out

    def either(self, values: List[cst.BaseExpression], at: cst.CSTNode) -> cst.BaseExpression:
        """One expression whose origin is the worst of values' (`a if _ else b`, a node of this
        module's parent map); the value itself when there is one."""
        if len(values) == 1:
            return values[0]
        cache = self.__dict__.setdefault("_either_nodes", {})
        key = tuple(id(v) for v in values)
        if key not in cache:
            node = values[-1]
            for value in reversed(values[:-1]):
                node = cst.IfExp(test=cst.Name("_"), body=value, orelse=node)
                self.parents.setdefault(node, self.parents.get(at))
            cache[key] = node
        return cache[key]

    def _calls_by_name(self) -> Dict[int, List[cst.Call]]:
        """id(function or lambda) -> the calls `f(...)` that reach it through a name."""
        if self._callers is not None:
            return self._callers
        callers: Dict[int, List[cst.Call]] = {}
        named = self.nodes.local_callables
        for call in self.nodes.calls:
            func = call.func
            if not isinstance(func, cst.Name) or func.value not in named:
                continue
            for target in self._callable_targets(func):
                callers.setdefault(id(target), []).append(call)
        self._callers = callers
        return callers

    def _mapped_calls(self) -> Dict[int, List[Tuple[cst.Call, int]]]:
        """id(function or lambda) -> the calls applying it (and where the iterables start, one earlier
        for a bound method, whose self is no element): `map(f, xs, ...)`, `map(self.stats.widen, xs)`,
        `tree_map(f, tree)`, `functools.reduce(f, xs, init)` (applier)."""
        if self._mapped is not None:
            return self._mapped
        mapped: Dict[int, List[Tuple[cst.Call, int]]] = {}
        self._mapped = mapped  # (a read while it is built sees what is found so far)
        for call in self.nodes.calls:
            fn = self.applied_function(call)
            if fn is None:
                continue
            first = call.args[fn].value
            if isinstance(first, cst.Attribute):
                for target in self._bound_method_targets(first):
                    mapped.setdefault(id(target), []).append((call, fn))
                continue
            targets = (
                [first]
                if isinstance(first, cst.Lambda)
                else (self._callable_targets(first) if isinstance(first, cst.Name) else [])
            )
            for target in targets:
                mapped.setdefault(id(target), []).append((call, fn + 1))
        return mapped

    def _bound_method_targets(self, method: cst.Attribute) -> List[cst.FunctionDef]:
        """The plain methods of this module's classes a bound method value runs (`self.widen`,
        `self.stats.widen` of an instance the module makes), as a call of it would."""
        synthetic = cst.Call(func=method)
        self.parents.setdefault(synthetic, self.parents.get(method))
        return [
            t
            for t, skip, env in self.return_targets(synthetic)
            if skip and env is None and isinstance(t, cst.FunctionDef) and not t.decorators
        ]

    def dispatch_overloads(self) -> Dict[str, List[cst.FunctionDef]]:
        """name of a generic function -> the defs registered for it (`@name.register`,
        `@name.register(T)`: rules/accessors.toml [callables] dispatch_registers)."""
        found = self.__dict__.get("_dispatch_overloads")
        if found is None:
            found = self._dispatch_overloads = {}
            for func in self.nodes.decorated_defs:
                for decorator in func.decorators:
                    expr = decorator.decorator
                    expr = expr.func if isinstance(expr, cst.Call) else expr
                    if (
                        isinstance(expr, cst.Attribute)
                        and expr.attr.value in self.tables.dispatch_registers
                        and isinstance(expr.value, cst.Name)
                    ):
                        found.setdefault(expr.value.value, []).append(func)
        return found

    def _generic_names(self, func: cst.FunctionDef) -> List[str]:
        """The generic functions func is a registered overload of (dispatch_overloads)."""
        if not func.decorators:
            return []
        return [name for name, defs in self.dispatch_overloads().items() if any(d is func for d in defs)]

    def _dispatch_generic(self, func: cst.FunctionDef) -> bool:
        """Is func a generic function dispatched on its first argument (functools.singledispatch)?"""
        return any(self._named_in(d.decorator, self.tables.dispatch_generics) for d in func.decorators)

    def _callable_targets(self, name: cst.Name) -> list:
        """The defs (and lambdas assigned to a name) a Name refers to; for a generic function
        (functools.singledispatch), its registered overloads too: a call may run any of them."""
        out = []
        for assignment in self.reaching(name):
            node = assignment.node
            if isinstance(node, cst.FunctionDef):
                out.append(node)
                if node.decorators and self._dispatch_generic(node):
                    out.extend(self.dispatch_overloads().get(node.name.value, ()))
            elif isinstance(node, cst.Name):
                kind, value, path = self.binding(node)
                if kind == "assign" and not path and isinstance(value, cst.Lambda):
                    out.append(value)
        return out

    # -- return values ---------------------------------------------------------------
    def _return_origin(self, call: cst.Call, depth: int, path: tuple = ()) -> Optional[Origin]:
        """The origin of what a helper returns when called with these arguments: a method
        through `self.m(...)`, a module-level or nested function or a lambda through its
        name. None when the callee is not defined in this file."""
        targets = self.return_targets(call, depth)
        if not targets:
            return None
        best = Origin.OTHER
        for target, skip_self, env in targets:
            best = max(best, self._returned(call, target, skip_self, depth, path, env=env))
            if best == Origin.POOL:
                break
        return best

    def _further_arguments(self, call: cst.Call, first: int) -> cst.Tuple:
        """The tuple a def's `*args` holds under call: its positional arguments from the first-th on."""
        cache = self.__dict__.setdefault("_further_tuples", {})
        if (id(call), first) not in cache:
            positional = [a.value for a in call.args if a.keyword is None and not a.star][first:]
            node = cst.Tuple([cst.Element(v) for v in positional])
            self.parents.setdefault(node, self.parents.get(call))
            cache[(id(call), first)] = node
        return cache[(id(call), first)]

    def _bound_params(self, call: cst.Call, target, skip_self: bool, depth: int) -> Dict[int, Origin]:
        """_bind_arguments; a `self.m(...)` call that reaches an override of a subclass (a template
        method's step) runs on an instance of that subclass: its arguments are read so
        (`self.compute(q, self.fetch(meta))`: the subclass's own `fetch`, if it overrides it)."""
        sub = self._dispatched_class(call, target, skip_self)
        if sub is not None:
            return self.as_instance_of(sub, lambda: self._bind_arguments(call, target, skip_self, depth))
        return self._bind_arguments(call, target, skip_self, depth)

    def _none_params(self, call: cst.Call, target, skip_self: bool) -> Dict[tuple, bool]:
        """("none", id(param)) -> whether the call leaves param None: left out with a None default, or
        passed `None` (True); passed anything else (False). Only for parameters with a None default."""
        out: Dict[tuple, bool] = {}
        if not isinstance(target, cst.FunctionDef) or any(a.star for a in call.args):
            return out
        for param in (*target.params.params, *target.params.kwonly_params):
            if not (isinstance(param.default, cst.Name) and param.default.value == "None"):
                continue
            argument = self._argument_for(call, target, param, skip_self)
            out[("none", id(param))] = argument is None or (isinstance(argument, cst.Name) and argument.value == "None")
        return out

    def _none_test(self, test: cst.BaseExpression) -> Optional[bool]:
        """The value of `p is None` / `p is not None` / `not ...` for a parameter p whose None-ness the
        call being followed decides (_none_params) and that its function does not rebind; else None."""
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            inner = self._none_test(test.expression)
            return None if inner is None else not inner
        if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1 and isinstance(test.left, cst.Name)):
            return None
        compared = test.comparisons[0]
        if not (
            isinstance(compared.operator, (cst.Is, cst.IsNot))
            and isinstance(compared.comparator, cst.Name)
            and compared.comparator.value == "None"
        ):
            return None
        reaching = self.reaching(test.left)
        params = {id(a.node) for a in reaching if isinstance(a.node, cst.Param)} | {
            id(self.parents.get(a.node)) for a in reaching if isinstance(self.parents.get(a.node), cst.Param)
        }
        if len(params) != 1 or len(reaching) != 1 or not self._bindings:
            return None
        is_none = self._bindings[-1].get(("none", params.pop()))
        if is_none is None:
            return None
        return is_none if isinstance(compared.operator, cst.Is) else not is_none

    def _reachable_under(self, node: cst.CSTNode, func) -> bool:
        """Is node in no branch of an `if p is None:` (in func) that the call being followed rules out?"""
        child = node
        for anc in self.ancestors(node):
            if anc is func:
                return True
            if isinstance(anc, cst.If) and child is not anc.test:
                taken = self._none_test(anc.test)
                if taken is not None and (child is anc.body) != taken:
                    return False
            child = anc
        return True

    def _dispatched_class(self, call: cst.Call, target, skip_self: bool) -> Optional[cst.ClassDef]:
        """The subclass whose override a `self.m(...)` call reaches, when it is not the class self is
        known to be (the call's own class, or the context of the calls being followed)."""
        func = call.func
        if not (
            skip_self
            and isinstance(target, cst.FunctionDef)
            and isinstance(func, cst.Attribute)
            and isinstance(func.value, cst.Name)
            and func.value.value == "self"
        ):
            return None
        cls = self.method_class(target)
        here = self.self_class() or self.enclosing_class(call)
        if cls is None or here is None or cls is here or here not in self.class_mro(cls):
            return None
        return cls

    def as_instance_of(self, cls: cst.ClassDef, compute):
        """compute() with self known to be an instance of cls (its overrides run for `self.m(...)`)."""
        saved = self._origin_cache, self._returns_cache, self._kind_cache
        self._origin_cache, self._returns_cache, self._kind_cache = {}, {}, {}
        self._bindings.append({SELF_CLASS: cls.name.value})
        try:
            return compute()
        finally:
            self._bindings.pop()
            self._origin_cache, self._returns_cache, self._kind_cache = saved

    def _bind_arguments(self, call: cst.Call, target, skip_self: bool, depth: int) -> Dict[int, Origin]:
        """id(parameter) -> the origin of what call passes for it (OTHER when it passes nothing);
        ("held", id(parameter)) -> the callables it hands on (ObjectFlow.held_value); for `*args`
        and `**kwargs`, ("*", id) / ("**", id) -> what each further argument is, so that a
        wrapper's `fn(*args, **kwargs)` hands them on one by one (_forwarded)."""
        if any(a.star for a in call.args):
            forwarded = self._forwarded(call, depth)
            if forwarded is not None:
                positional, keywords = forwarded
                return self._bind_forwarded(
                    (self._receiver_slot(call, target, skip_self, depth) + positional, keywords), target, skip_self
                )
        params = target.params
        bindings: Dict = {}
        named = set()
        for param in (*params.posonly_params, *params.params, *params.kwonly_params):
            argument = self._argument_for(call, target, param, skip_self)
            if argument is None and skip_self and self._user_container_self(target, param):
                continue  # `self[i]` of a UserList subclass: what its instances hold (_param_origin)
            bindings[id(param)] = self._passed_origin(call, argument, param, depth)
            if argument is not None:
                bindings[("arg", id(param))] = argument  # what a call of the parameter calls (ObjectFlow)
            held = self.held_value(argument) if argument is not None else ()
            if held:
                bindings[("held", id(param))] = held
                self._held_params.add(param.name.value)
            named.add(param.name.value)
        if isinstance(params.star_arg, cst.Param):  # *args: a tuple of the further positional arguments
            first = len(self._positional_params(target, skip_self))
            best = Origin.OTHER
            each = self._receiver_slot(call, target, skip_self, depth)
            for i, arg in enumerate(a for a in call.args if a.keyword is None and a.star != "**"):
                origin = self.origin(arg.value, depth)
                if arg.star == "*":
                    best = max(best, origin)
                elif i >= first:
                    each.append((origin, self.held_value(arg.value)))
                    if origin >= Origin.PREFIX:
                        best = max(best, Origin.POOL_TUPLE)
            bindings[id(params.star_arg)] = best
            if not any(a.star for a in call.args):
                bindings[("*", id(params.star_arg))] = tuple(each)
                # what `args` is under this call: the tuple of its further positional arguments
                # (`reduce(getitem, path, self.table)` of `self._at("meta", "lens")` folds those keys)
                bindings[("arg", id(params.star_arg))] = self._further_arguments(call, first)
        if params.star_kwarg is not None:  # **kwargs: a dict of the further keywords
            extra = [
                (a.keyword.value, self.origin(a.value, depth), self.held_value(a.value))
                for a in call.args
                if a.keyword is not None and a.keyword.value not in named
            ]
            bindings[id(params.star_kwarg)] = (
                Origin.POOL_TUPLE if any(o >= Origin.PREFIX for _, o, _ in extra) else Origin.OTHER
            )
            if not any(a.star == "**" for a in call.args):
                bindings[("**", id(params.star_kwarg))] = tuple(sorted(extra, key=lambda e: e[0]))
        return bindings

    def _passed_origin(self, call: cst.Call, argument, param: cst.Param, depth: int) -> Origin:
        """The origin of what a call passes for param; left out, its default's (the value made with the def:
        `lambda b=mgr.get_buffers(i): b.to(dt)` called as `fns[i]()` converts that layer); not under a
        callerless call (_callerless: what the parameters hold with no call but the conventions')."""
        if argument is None:
            given = param.default is not None and id(call) not in self._callerless
            return self.origin(param.default, depth) if given else Origin.OTHER
        return self.origin(argument, depth)

    def _receiver_slot(self, call: cst.Call, target, skip_self: bool, depth: int) -> list:
        """[(origin, held)] of the receiver a method call hands a def with no named positional
        parameter (a method decorator's `wrapper(*args, **kwargs)`: self is args[0]); []."""
        if not skip_self or not isinstance(call.func, cst.Attribute) or self._positional_params(target, False):
            return []
        return [(self.origin(call.func.value, depth), ())]

    def _forwarded(self, call: cst.Call, depth: int):
        """(positional, keywords) of a call that unpacks what it was given (`fn(*args, **kwargs)`
        in a wrapper whose call is being followed, `f(*(a, b))`): (origin, held) per positional
        argument, name -> (origin, held) per keyword; None when an unpacked value is unknown."""
        positional, keywords = [], {}
        for arg in call.args:
            if arg.keyword is not None:
                keywords[arg.keyword.value] = (self.origin(arg.value, depth), self.held_value(arg.value))
            elif not arg.star:
                positional.append((self.origin(arg.value, depth), self.held_value(arg.value)))
            elif (
                arg.star == "*"
                and isinstance(arg.value, (cst.Tuple, cst.List))
                and not any(isinstance(e, cst.StarredElement) for e in arg.value.elements)
            ):
                positional.extend((self.origin(e.value, depth), self.held_value(e.value)) for e in arg.value.elements)
            else:
                held = self._held_star(arg.value, "*" if arg.star == "*" else "**")
                if held is None:
                    return None
                if arg.star == "*":
                    positional.extend(held)
                else:
                    keywords.update((name, (origin, callables)) for name, origin, callables in held)
        return positional, keywords

    def _held_star(self, expr: cst.BaseExpression, kind: str):
        """What a followed call passed into the `*args` (kind "*") or `**kwargs` ("**") parameter
        that expr names, from the bindings; None when expr is no such parameter."""
        if not isinstance(expr, cst.Name) or not self._bindings:
            return None
        for assignment in self.reaching(expr):
            node = assignment.node
            param = node if isinstance(node, cst.Param) else self.parents.get(node)
            if isinstance(param, cst.Param):
                for bindings in reversed(self._bindings):
                    if (kind, id(param)) in bindings:
                        return bindings[(kind, id(param))]
        return None

    def _bind_forwarded(self, forwarded, target, skip_self: bool) -> Dict:
        """_bound_params for the arguments _forwarded gives."""
        positional, keywords = forwarded
        params = target.params
        names = self._positional_params(target, skip_self)
        by_name = {p.name.value: p for p in (*params.posonly_params, *params.params, *params.kwonly_params)}
        given = dict(zip(names, positional))
        given.update((k, v) for k, v in keywords.items() if k in by_name)
        bindings: Dict = {}
        for name, param in by_name.items():
            origin, held = given.get(name, (Origin.OTHER, ()))
            bindings[id(param)] = origin
            if held:
                bindings[("held", id(param))] = held
                self._held_params.add(name)
        if isinstance(params.star_arg, cst.Param):
            extra = tuple(positional[len(names) :])
            bindings[id(params.star_arg)] = (
                Origin.POOL_TUPLE if any(o >= Origin.PREFIX for o, _ in extra) else Origin.OTHER
            )
            bindings[("*", id(params.star_arg))] = extra
        if params.star_kwarg is not None:
            extra_kw = tuple(sorted((k, o, h) for k, (o, h) in keywords.items() if k not in by_name))
            bindings[id(params.star_kwarg)] = (
                Origin.POOL_TUPLE if any(o >= Origin.PREFIX for _, o, _ in extra_kw) else Origin.OTHER
            )
            bindings[("**", id(params.star_kwarg))] = extra_kw
        return bindings

    @staticmethod
    def merged_args(bound, args) -> list:
        """The arguments of a call through a partial: the bound ones first, keywords last."""
        every = [*bound, *args]
        return [a for a in every if a.keyword is None and a.star != "**"] + [
            a for a in every if a.keyword is not None or a.star == "**"
        ]

    def _returned(
        self,
        call: cst.Call,
        target,
        skip_self: bool,
        depth: int,
        path: tuple = (),
        env: Optional[Dict[int, Origin]] = None,
    ) -> Origin:
        """What target returns when call reaches it; env: the parameters of the function a
        closure was made in, bound by the call that made it."""
        bindings = dict(env or {})
        bindings.update(self._bound_params(call, target, skip_self, depth))
        bindings.update(self.self_frame(call, skip_self, target))
        bindings.update(self._none_params(call, target, skip_self))
        key = (id(target), frozenset(bindings.items()), path)
        if key in self._returns_cache:
            return self._returns_cache[key]
        if id(target) in self._returns_in_progress or depth > MAX_DEPTH:
            return Origin.OTHER
        values = [target.body] if isinstance(target, cst.Lambda) else self._return_values(target)
        yields, delegated = ([], []) if isinstance(target, cst.Lambda) else self._yield_values(target)
        saved = self._origin_cache
        self._origin_cache = {}
        self._bindings.append(bindings)
        values = [v for v in values if self._reachable_under(v, target)]
        self._returns_in_progress.add(id(target))
        try:
            best = max((self._unpacked(v, path, depth) for v in values), default=Origin.OTHER)
            if yields or delegated:  # a generator: what it yields, as the elements of what it returns
                each = max((self.origin(v, depth) for v in yields), default=Origin.OTHER)
                best = max(
                    best,
                    Origin.POOL_TUPLE if each >= Origin.POOL_TUPLE else min(each, Origin.GATHERED),
                    max((self.origin(v, depth) for v in delegated), default=Origin.OTHER),
                )
        finally:
            self._returns_in_progress.discard(id(target))
            self._bindings.pop()
            self._origin_cache = saved
        self._returns_cache[key] = best
        return best

    @staticmethod
    def _yield_values(func: cst.FunctionDef) -> Tuple[List[cst.BaseExpression], List[cst.BaseExpression]]:
        """(what `yield v` yields, what `yield from it` delegates to) in func itself."""
        yields, delegated = [], []
        stack = [func.body]
        while stack:
            node = stack.pop()
            if isinstance(node, cst.Yield) and node.value is not None:
                (delegated if isinstance(node.value, cst.From) else yields).append(
                    node.value.item if isinstance(node.value, cst.From) else node.value
                )
            if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
                continue
            stack.extend(children(node))
        return yields, delegated

    def _return_values(self, func: cst.FunctionDef) -> List[cst.BaseExpression]:
        """What `return v` returns in func itself (once per function: every call resolution asks)."""
        cache = self.derived.setdefault("return_values", {})
        found = cache.get(id(func))
        if found is None:
            found = cache[id(func)] = self._own_returns(func)
        return found

    @staticmethod
    def _own_returns(func: cst.FunctionDef) -> List[cst.BaseExpression]:
        out = []
        stack = [func.body]
        while stack:
            node = stack.pop()
            if isinstance(node, cst.Return):
                if node.value is not None:
                    out.append(node.value)
                continue
            if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
                continue
            stack.extend(children(node))
        return out

    # -- casts -----------------------------------------------------------------
    def dtype_like(self, expr: cst.BaseExpression) -> bool:
        t = self.tables
        if isinstance(expr, cst.Subscript):  # options["dtype"]: what is stored under the key
            keyed = self.keyed_values(expr)
            return bool(keyed) and all(self.dtype_like(v) for v in keyed)
        text = dotted(expr)
        if text is None:
            return False
        if text.startswith("torch.") and text.split(".", 1)[1] in t.torch_dtypes:
            return True
        last = text.rsplit(".", 1)[-1]
        return self._has_word(last, t.dtype_words)

    def device_like(self, expr: cst.BaseExpression) -> bool:
        return self.value_kind(expr) == DEVICE

    def value_kind(self, expr: cst.BaseExpression, depth: int = 0) -> str:
        """What a `.to()` argument holds: DTYPE, DEVICE, TENSOR or UNKNOWN, by its value
        where the file shows it (`dev = torch.device(...)`, `self.gpu_id = 0`, a parameter
        annotated int), else by its spelling."""
        key = ("value", id(expr))
        if key in self._kind_cache:
            return self._kind_cache[key]
        self._kind_cache[key] = UNKNOWN
        result = self._value_kind(expr, depth + 1) if depth <= 6 else UNKNOWN
        self._kind_cache[key] = result
        return result

    def _value_kind(self, expr: cst.BaseExpression, depth: int) -> str:
        if isinstance(expr, (cst.SimpleString, cst.FormattedString, cst.ConcatenatedString, cst.Integer)):
            return DEVICE
        if self.dtype_like(expr):
            return DTYPE
        if isinstance(expr, cst.Call):
            name = (dotted(expr.func) or "").rsplit(".", 1)[-1]
            if name.endswith(self.tables.device_call_suffixes):
                return DEVICE
            return UNKNOWN
        members = self.enum_value(expr)  # `Precision.BF16.value`, `self.precision.value`: the members' values
        if members:
            kinds = {self.value_kind(v, depth) for v in members}
            return kinds.pop() if len(kinds) == 1 else UNKNOWN
        text = dotted(expr)
        if text is not None and self._has_word(text.rsplit(".", 1)[-1], self.tables.device_words):
            return DEVICE
        kinds: List[str] = []
        if isinstance(expr, cst.Name):
            for assignment in self.reaching(expr):
                node = assignment.node
                param = node if isinstance(node, cst.Param) else self.parents.get(node)
                if isinstance(param, cst.Param):
                    kinds.append(_annotation_kind(self, param))
                    continue
                if not isinstance(node, cst.Name):
                    kinds.append(UNKNOWN)
                    continue
                kind, value, path = self.binding(node)
                kinds.append(self.value_kind(value, depth) if kind == "assign" and not path else UNKNOWN)
        elif isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name) and expr.value.value == "self":
            cls = self.enclosing_class(expr)
            values = self.self_attr_values(cls, expr.attr.value) if cls is not None else []
            kinds = [self.value_kind(v, depth) for v in values]
        elif isinstance(expr, cst.IfExp):
            kinds = [self.value_kind(expr.body, depth), self.value_kind(expr.orelse, depth)]
        elif isinstance(expr, cst.BooleanOperation):  # `dtype or self.compute_dtype`: either operand
            kinds = [self.value_kind(expr.left, depth), self.value_kind(expr.right, depth)]
        if kinds and all(k == kinds[0] for k in kinds) and kinds[0] in (DTYPE, DEVICE, TENSOR):
            return kinds[0]
        return UNKNOWN

    def cast_target(self, call: cst.Call) -> Optional[str]:
        """The dtype a call converts to (as written), or None if it is no dtype cast.
        `x.m(...)` and the unbound `torch.Tensor.m(x, ...)` forms."""
        receiver, method, args = self.method_parts(call)
        if method is None:
            return None
        spelling = self.tables.casts.get(method)
        if spelling is None or spelling.method in self.tables.reinterpret_methods:
            return None
        if receiver is None:
            return None
        positional, keywords = self.expanded_args(args)
        if spelling.form == "no-args":
            return spelling.target if not args else None
        keyword, is_tensor = spelling.keyword_target(keywords)
        if spelling.form in ("one-arg", "tensor-arg"):
            first = positional[0] if positional else keyword
            if first is None:
                return None
            tensor = spelling.form == "tensor-arg" or (not positional and is_tensor)
            return f"{self.code(first)}.dtype" if tensor else self.code(first)
        # form "to"
        if keyword is not None and not is_tensor:
            return self.code(keyword)
        kinds = [self.value_kind(value) for value in positional]
        for value, kind in zip(positional, kinds):
            if kind == DTYPE:
                return self.code(value)
        if positional and kinds[0] != DEVICE:
            if isinstance(positional[0], (cst.Name, cst.Attribute, cst.Subscript, cst.Call)):
                return f"{self.code(positional[0])}.dtype"
        if keyword is not None and not positional:  # `.to(other=q)`: q's dtype
            return f"{self.code(keyword)}.dtype"
        return None

    def expanded_args(self, args) -> Tuple[List[cst.BaseExpression], Dict[str, cst.BaseExpression]]:
        """(positional values, keyword values) of a call's arguments, with `*x` and `**x`
        expanded where the file shows what they hold: a tuple display (through names and
        attributes of any object), a dict display with constant keys, or the `**kwargs` of
        the function whose call is being followed."""
        positional: List[cst.BaseExpression] = []
        keywords: Dict[str, cst.BaseExpression] = {}
        for arg in args:
            if arg.keyword is not None:
                keywords[arg.keyword.value] = arg.value
            elif arg.star == "*":
                positional.extend(self._starred_values(arg.value))
            elif arg.star == "**":
                keywords.update(self._double_starred_values(arg.value))
            else:
                positional.append(arg.value)
        return positional, keywords

    def _starred_values(self, expr: cst.BaseExpression) -> List[cst.BaseExpression]:
        frame = self._star_frame(expr)
        if frame is not None:  # `t.to(*args)` under a followed call: the call's further positional arguments
            return frame
        iterated = self.protocol_sequence(expr)
        if iterated is not None:  # `*LayerPair(pool, i)` of a class whose `__iter__` hands back (k, v)
            return iterated
        sources = [expr] if isinstance(expr, (cst.Tuple, cst.List)) else (self._container_sources(expr, 0) or [])
        for source in sources:
            if isinstance(source, (cst.Tuple, cst.List)) and not any(
                isinstance(e, cst.StarredElement) for e in source.elements
            ):
                return [e.value for e in source.elements]
        return self._kv_halves(expr)

    def _kv_halves(self, expr: cst.BaseExpression) -> List[cst.BaseExpression]:
        """[expr[0], expr[1]] when expr is a (K, V) pair the tables describe: what an accessor
        returning a tuple gives (`*pool.get_kv_buffer(i)`), one entry of an entry list
        (`*cache_engine.gpu_cache[i]`: lmdeploy's (k_cache, v_cache)); [] otherwise."""
        pair = False
        if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute):
            accessor = self.tables.accessors.get(expr.func.attr.value)
            pair = accessor is not None and accessor.returns == "tuple"
        elif isinstance(expr, cst.Subscript) and len(expr.slice) == 1 and isinstance(expr.slice[0].slice, cst.Index):
            holder = expr.value
            pair = isinstance(holder, cst.Attribute) and holder.attr.value in self.tables.cache_entry_lists
        if not pair:
            return []
        halves = self.__dict__.setdefault("_halves", {})
        found = halves.get(id(expr))
        if found is None:
            found = halves[id(expr)] = [
                cst.Subscript(expr, [cst.SubscriptElement(cst.Index(cst.Integer(str(j))))]) for j in (0, 1)
            ]
            for part in found:
                self.parents.setdefault(part, self.parents.get(expr))
        return found

    def _star_frame(self, expr: cst.BaseExpression) -> Optional[List[cst.BaseExpression]]:
        """What `*args` holds when expr is the `*args` parameter of a function whose call is
        being followed (call_conversions): the call's positional arguments past the named ones
        (None when expr is no such parameter, or one of them is itself unpacked)."""
        if not isinstance(expr, cst.Name) or not self._frames:
            return None
        for assignment in self.reaching(expr):
            node = assignment.node
            param = node if isinstance(node, cst.Param) else self.parents.get(node)
            if not isinstance(param, cst.Param):
                return None
            owner = self._param_owner(param)
            if not isinstance(owner, (cst.FunctionDef, cst.Lambda)) or owner.params.star_arg is not param:
                return None
            for target, call in reversed(self._frames):
                if target is owner:
                    skip = (
                        isinstance(owner, cst.FunctionDef)
                        and self.method_class(owner) is not None
                        and isinstance(call.func, cst.Attribute)
                    )
                    positional = [a for a in call.args if a.keyword is None]
                    extra = positional[len(self._positional_params(owner, skip)) :]
                    if any(a.star for a in extra):
                        return None
                    return [a.value for a in extra]
            return None
        return None

    def _double_starred_values(self, expr: cst.BaseExpression, depth: int = 0) -> Dict[str, cst.BaseExpression]:
        out: Dict[str, cst.BaseExpression] = {}
        if isinstance(expr, cst.Name):  # `kw["k"] = v` / `kw.setdefault("k", v)` into a local dict
            for key, values in self.stored_keywords(expr).items():
                out.setdefault(key, self.either(values, expr))
        for holder in self._held_values(expr):
            if isinstance(holder, cst.Dict):
                for element in reversed(holder.elements):  # later keys win
                    if isinstance(element, cst.DictElement) and isinstance(element.key, cst.SimpleString):
                        key = element.key.evaluated_value
                        if isinstance(key, str):
                            out.setdefault(key, element.value)
                    elif isinstance(element, cst.StarredDictElement) and depth < 3:  # `{**base, "dtype": d}`
                        for key, value in self._double_starred_values(element.value, depth + 1).items():
                            out.setdefault(key, value)
            elif isinstance(holder, cst.Call):  # `**dict(k=a)`
                for key, value in (self.dict_keywords(holder) or {}).items():
                    out.setdefault(key, value)
            elif isinstance(holder, tuple):  # `**rec._asdict()`: the record's fields by name
                cls = self.instance_class(holder[0])
                for name in self.record_fields(cls) if cls is not None and self.is_record(cls) else ():
                    out.setdefault(name, self._attribute(holder[0], name))
            elif isinstance(holder, cst.Param):
                func = self._param_owner(holder)
                for target, call in reversed(self._frames):
                    if target is func:
                        for arg in call.args:
                            if arg.keyword is not None:
                                out.setdefault(arg.keyword.value, arg.value)
                        break
        return out

    # -- dtype values (for CL002) --------------------------------------------
    def _returned_element(self, value: cst.BaseExpression, index) -> Optional[cst.BaseExpression]:
        """Element `index` of what `value` is: a tuple literal, or a method of this class
        (or a module function) with one `return` of a tuple literal."""
        if isinstance(value, cst.Call):
            func, target = value.func, None
            if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self":
                cls = self.enclosing_class(value)
                target = self.find_method(cls, func.attr.value) if cls is not None else None
            returns = self._return_values(target) if isinstance(target, cst.FunctionDef) else []
            value = returns[0] if len(returns) == 1 else None
        if isinstance(value, (cst.Tuple, cst.List)) and isinstance(index, int) and 0 <= index < len(value.elements):
            element = value.elements[index]
            return element.value if isinstance(element, cst.Element) else None
        return None

    def resolve_value(self, expr: cst.BaseExpression, depth: int = 0) -> Tuple[str, ...]:
        """The terminal expressions a dtype argument comes from, as source text."""
        if depth > MAX_DEPTH:
            return (self.code(expr),)
        if isinstance(expr, cst.NamedExpr):  # `(dt := self.data_type)`: what it binds
            return self.resolve_value(expr.value, depth + 1)
        if isinstance(expr, (cst.IfExp, cst.BooleanOperation)):  # `a if c else b`, `a or b`: either
            sides = (expr.body, expr.orelse) if isinstance(expr, cst.IfExp) else (expr.left, expr.right)
            return tuple(sorted({text for side in sides for text in self.resolve_value(side, depth + 1)}))
        if isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name) and expr.value.value == "self":
            cls = self.enclosing_class(expr)
            values = self.self_attr_values(cls, expr.attr.value) if cls is not None else []
            if values:
                out: List[str] = []
                for value in values:
                    out.extend(self.resolve_value(value, depth + 1))
                return tuple(sorted(set(out)))
        if isinstance(expr, cst.Attribute) and not (isinstance(expr.value, cst.Name) and expr.value.value == "self"):
            owner = self.instance_class(expr.value)  # `self.pair.kv`, `rec.kv_data_type`: a record's field
            if owner is not None and self.is_record(owner) and expr.attr.value in self.record_fields(owner):
                values = self.field_values(expr.value, owner, expr.attr.value)
                if values:
                    return tuple(sorted({t for v in values for t in self.resolve_value(v, depth + 1)}))
        if isinstance(expr, cst.Name):
            scope = self.scopes.get(expr)
            if scope is not None:
                # the assignments that reach this use, in statement order (`q_dt, kv_dt = ...` twice)
                assignments = [a for a in self.reaching(expr) if isinstance(a, Assignment)] or [
                    a for a in scope.assignments[expr.value] if isinstance(a, Assignment)
                ]
                values, covered = [], 0
                for a in assignments:
                    if isinstance(a.node, cst.Name):
                        value, index = self.assigned_value(a.node)
                        found = [value] if value is not None and index is None else []
                        if value is not None and index is not None:  # `q, kv = self.dtypes()`
                            element = self._returned_element(value, index)
                            # else by structure: a lambda of a dispatch dict, a helper's tuple
                            found = [element] if element is not None else (self.element_values(value, index) or [])
                        if found:
                            covered += 1
                            values.extend(found)
                if values and covered == len(assignments):
                    out = []
                    for value in values:
                        out.extend(self.resolve_value(value, depth + 1))
                    return tuple(sorted(set(out)))
        if (
            isinstance(expr, cst.Subscript) and len(expr.slice) == 1 and isinstance(expr.slice[0].slice, cst.Index)
        ):  # `dts["kv"]` of a dict a helper returns, `pair[1]`
            values = self.keyed_values(expr)
            key = expr.slice[0].slice.value
            if not values and isinstance(key, cst.Integer):
                values = self.element_values(expr.value, int(key.value)) or []
            if values:
                return tuple(sorted({text for value in values for text in self.resolve_value(value, depth + 1)}))
        return (self.code(expr),)


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


def _combine_arith(left: str, right: str) -> str:
    if TENSOR in (left, right):
        return TENSOR
    return SCALAR if left == right == SCALAR else UNKNOWN


def _combine_any(left: str, right: str) -> str:
    if TENSOR in (left, right):
        return TENSOR
    return SCALAR if left == right == SCALAR else UNKNOWN


def _combine_values(kinds: List[str]) -> str:
    if not kinds:
        return UNKNOWN
    if TENSOR in kinds:
        return TENSOR
    return SCALAR if all(k == SCALAR for k in kinds) else UNKNOWN
