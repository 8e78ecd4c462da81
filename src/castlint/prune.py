"""Cut a file down to the code a rule can fire on, before libcst sees it.

libcst's metadata (scopes, positions) costs far more than the text prefilter
saves: a 200 KB attention backend takes seconds. Most of such a file cannot
matter: a finding needs a dtype cast, helper or plan call whose operand may come
from a KV pool, and the analysis (castlint.analysis.dataflow) moves values only

- within one function (names, reaching assignments),
- within one class (``self.x`` assignments, ``self.method(arg)`` call sites,
  the hot-path call graph),
- from module-level statements (globals).

So, with the C parser (``ast``, ~20x faster than libcst), this module computes
an over-approximation of "may hold a pool" per top-level function or class: an
expression is *tainted* when it mentions an accessor call or cache attribute
from the tables, a tainted name (any identifier assigned a tainted value
anywhere in that function or class), a tainted ``self.x``, or a parameter of a
method that some ``self.method(...)`` call passes a tainted argument. Every
value the dataflow analysis calls a pool or a gather of one is tainted.

It then keeps, verbatim and at their own line numbers:

- every module-level statement that is not a def or class;
- every class body statement that is not a method;
- every method or function that holds a candidate (a cast whose receiver is
  tainted, a conversion helper given a tainted argument, any attention
  ``plan``-like call: then the whole class), assigns a tainted value to
  ``self.x``, or passes a tainted argument to ``self.method(...)``;

and replaces every other def by a one-line stub of the same name (so scopes see
the same bindings). Dropped methods hold only untainted values, whose origin is
OTHER, so dropping them changes no origin. What they still feed, the pruned tree
cannot show, is handed over explicitly: the hot-path call graph of a partly
pruned class (``hot_hints``) and the identifiers they mention
(``dropped_names``), which some rules test module-wide.

Whenever in doubt (a ``global`` statement, a pool mentioned at module level, a
BOM, a file ``ast`` cannot parse) the plan is FULL: analyse the whole file.
tests/test_corpus.py checks that pruned and whole-file analysis give the same
findings on every file of several sglang releases.
"""

from __future__ import annotations

import ast
import builtins
import re
from dataclasses import dataclass, field
from itertools import accumulate
from typing import Dict, FrozenSet, List, Optional, Set, Tuple

from castlint.analysis import hot_path
from castlint.common import pyast
from castlint.common.encoding import source_encoding
from castlint.prefilter import has_trigger as prefilter_has_trigger
from castlint.tables import Tables, fold_in_reduce_order
from castlint.triggers import may_allocate_arenas, may_plan_by_arity

_BUILTIN_NAMES = frozenset(dir(builtins))
FULL = "full"  # analyse the whole file
NOTHING = "nothing"  # no rule can fire: no need to parse with libcst
PRUNED = "pruned"

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)
_NEWLINE = re.compile(r"\r\n|\r|\n")
KEEP_RATIO = 0.9  # prune only when it drops at least a tenth of the file


@dataclass
class Pruned:
    text: str
    line_map: List[int]  # line_map[pruned line] = line in the file (index 0 unused)
    hot_hints: Dict[Tuple[str, int], FrozenSet[str]] = field(default_factory=dict)
    dropped_names: Set[str] = field(default_factory=set)
    dropped_attr_names: Set[str] = field(default_factory=set)
    # names a dropped def or a dropped class body defines (a method, property or class-level
    # assignment whose body the pruned tree no longer holds)
    dropped_members: Set[str] = field(default_factory=set)
    # those of them that read as attributes: a property-decorated def, `name = property(...)`
    dropped_properties: Set[str] = field(default_factory=set)
    # the attributes a dropped def assigns (`self.window = n`): a value of them the pruned tree no longer holds
    dropped_attr_stores: Set[str] = field(default_factory=set)


@dataclass
class PrunePlan:
    kind: str
    pruned: Optional[Pruned] = None
    reason: str = ""
    error: Optional[SyntaxError] = None  # what ast said, when it could not parse the file


class _Vocabulary:
    """What the tables make interesting, as plain sets (built once per Tables)."""

    def __init__(self, tables: Tables):
        self._read_flow_words(tables)
        self._read_rule_groups(tables)
        self._read_conventions(tables)
        self._read_gate_words(tables)
        self.scalar_attributes = frozenset(tables.scalar_attributes)
        self.dtype_words = tuple(tables.dtype_words)
        self.device_words = tuple(tables.device_words)
        self.device_call_suffixes = tuple(tables.device_call_suffixes)
        self.torch_dtypes = frozenset(tables.torch_dtypes)
        self.is_property_decorator = tables.is_property_decorator
        self._kind_words = tuple(tables.dtype_words) + tuple(tables.device_words)
        self._no_plans: Optional["_Vocabulary"] = None

    def _read_flow_words(self, tables: Tables) -> None:
        """Where a pool comes from and what it flows through (as ModuleAnalysis.origin)."""
        self.accessors = frozenset(tables.accessors)
        self.stride_ranges = frozenset(tables.stride_ranges)  # `range`: `_IDX, _BUF = range(2)` folds to ints
        # accessors by arity on any receiver (`mgr.get_buffers(i)`): whether i is a scalar decides
        self.arity_accessors = frozenset(n for n, a in tables.accessors.items() if a.arity)
        # accessors only on some receivers (`<x>.kv_cache_manager.get_buffers(i)`): the receiver's spelling decides
        self.accessor_receivers = {n: frozenset(a.receivers) for n, a in tables.accessors.items() if a.receivers}
        self.hot_entry_points = frozenset(tables.hot_path_entry_points)
        self.tuple_accessors = frozenset(n for n, a in tables.accessors.items() if a.returns == "tuple")
        self.tuple_views = frozenset(
            set(tables.tuple_view_methods) | {f.rsplit(".", 1)[-1] for f in tables.tuple_view_functions}
        )
        self.cache_attributes = frozenset(tables.cache_attributes)
        self.cache_parameter_names = frozenset(tables.cache_parameter_names)
        # calls that hold a callable for later: what they hold may be an accessor
        # partial(f, ...), getattr(obj, "name"), methodcaller("name", ...): they hold a callable
        self.holders = frozenset(
            {
                n.rsplit(".", 1)[-1]
                for n in (
                    *tables.partial_callables,
                    *tables.partial_methods,
                    *tables.method_callers,
                    *tables.attr_getters,
                    *tables.item_getters,
                    *tables.call_functions,
                    *tables.fold_functions,  # reduce(getattr, ("pool", "get_key_buffer"), obj)
                )
            }
            | {"getattr"}
        )
        # views that move dimensions ([views] dim_swaps, dim_moves, dim_orders), by their last name:
        # an index of one may select a dimension before the tokens (`kv.transpose(0, 1)[layer]`)
        self.dim_movers = frozenset(
            n.rsplit(".", 1)[-1] for n in (*tables.dim_swaps, *tables.dim_moves, *tables.dim_orders)
        )
        # `x.mT`, `x.data` keep what x holds
        self.view_attributes = frozenset(tables.view_attributes) | frozenset(tables.whole_copy_attributes)
        # `rm.get_resource_manager(Kind.DRAFT)`: the key's class spells the value (ModuleAnalysis._lookup_keys)
        self.keyed_lookups = frozenset(tables.keyed_lookups)
        # getters: a name bound to one hands its call's argument (or a part of it) back
        self.attr_getters = frozenset(n.rsplit(".", 1)[-1] for n in tables.attr_getters)
        # `setattr(self, "k", v)`, `self.register_buffer("k", v)`: self.k holds v (ObjectFlow.set_attributes)
        self.attribute_setters = frozenset(tables.attribute_setters)
        # `object.__setattr__(self, "k", v)`, `setattr(Pool, "m", f)`: functions that set on the object given first
        self.object_setter_names = frozenset(tables.object_setters)
        self.object_setters = frozenset(_last_parts(tables.object_setters))
        self.attribute_getters = frozenset(_last_parts(tables.attribute_getters))
        self.class_makers = frozenset(_last_parts(tables.class_makers))
        self.class_dict_functions = frozenset(_last_parts(tables.class_dict_functions))
        self.class_dict_attributes = frozenset(tables.class_dict_attributes)
        self.grow_pairs = frozenset(tables.grow_pairs)  # `self.__dict__.update({...})`: stores on self
        # a library base that hands a call of its object on to a method ([callables] call_delegates:
        # nn.Module, forward): a subclass's forward is what its __call__ returns (_ModuleUnits.collect_statement)
        self.delegated_call_methods = frozenset(_last_parts(tables.call_delegates))
        self.call_delegate_bases = frozenset(n.rsplit(".", 2)[-2] for n in tables.call_delegates if "." in n)
        # `with cm as x` runs cm's `__enter__`; iterating or unpacking an object its `__iter__`; `d[k]` of a dict
        # subclass its `__missing__` (ModuleAnalysis.entered_value, protocol_elements, missing_value)
        self.context_hooks = frozenset(tables.context_protocol)
        self.iter_hooks = frozenset(tables.iter_protocol | tables.index_protocol)  # (`__getitem__`: by index)
        self.missing_hooks = frozenset(tables.missing_protocol)
        self.attribute_hooks = frozenset(tables.attribute_protocol)  # `obj.x` of a class defining __getattr__
        self.read_hooks = frozenset(tables.attribute_read_hooks)  # __getattribute__: any stored attribute
        self.descriptor_hooks = frozenset(tables.descriptor_read_hooks | tables.descriptor_store_hooks)
        self.store_hooks = frozenset(tables.attribute_store_hooks)  # __setattr__: every store
        self.setter_decorators = frozenset(tables.property_setter_decorators)  # `@x.setter`
        # reads on a class itself: `Hub[i]` (__class_getitem__), a metaclass's __getitem__ / __getattr__
        self.class_item_hooks = frozenset(tables.class_item_protocol)
        self.metaclass_keywords = frozenset(tables.metaclass_keywords)
        self.iterating = frozenset(tables.iter_passthrough) | frozenset(_last_parts(tables.keep_elements))
        # `next(cursor)`: one element, what its class's `__iter__` / `__next__` hands out (ModuleAnalysis.origin)
        self.call_until = frozenset(tables.iter_call_until)
        self.duck_protocol = frozenset(tables.duck_protocol)
        self.taking = frozenset(_last_parts(tables.take_functions))
        self.next_hooks = frozenset(tables.next_protocol)
        self.property_getter_keywords = frozenset(tables.property_getter_keywords)
        self.getters = frozenset(
            n.rsplit(".", 1)[-1] for n in (*tables.attr_getters, *tables.item_getters, *tables.method_callers)
        )
        self.getter_words = tuple(sorted(name.encode() for name in self.getters))
        self.casts = frozenset(tables.casts)
        self.to_casts = frozenset(m for m, c in tables.casts.items() if c.form == "to")
        self.arg_casts = frozenset(m for m, c in tables.casts.items() if c.form in ("one-arg", "tensor-arg"))
        self.bare_casts = frozenset(m for m, c in tables.casts.items() if c.form == "no-args")
        # keywords that give a cast's target: a dtype (`dtype=`) or a tensor of that dtype (`other=`)
        self.cast_keywords = {m: frozenset((*c.dtype_keywords, *c.tensor_keywords)) for m, c in tables.casts.items()}
        self.copies = frozenset(tables.copy_methods)
        # `torch.as_tensor(x, dtype=d)`: x.to(dtype=d) (by the last name: `from torch import asarray`)
        self.slice_makers = frozenset(_last_parts(tables.slice_constructors))
        # `fn.__closure__[0].cell_contents`, `obj.m.__self__`; `p.args` of a partial (ObjectFlow.introspected_values)
        self.closure_reads = frozenset(
            tables.closure_attributes | tables.cell_value_attributes | tables.bound_self_attributes
        )
        self.partial_reads = frozenset(
            tables.partial_args_attributes | tables.partial_keywords_attributes | tables.partial_func_attributes
        )
        self.partial_makers = frozenset(_last_parts(tables.partial_callables))
        # `nn.Flatten(0, 1)`, `nn.Sequential(nn.Flatten(0, 1))`: modules that, called, keep every element
        self.keeping_modules = frozenset(_last_parts(tables.keeping_modules))
        self.module_chains = frozenset(_last_parts(tables.module_chains))
        self.function_binders = frozenset(tables.function_binders)  # `f.__get__(obj)`: f bound to obj
        self.unwrapped_attributes = frozenset(tables.unwrapped_attributes)  # `f.__wrapped__(x)`: f's def
        # `buf[torch.arange(buf.shape[0])]`, `buf.index_select(0, every)`: a range index is the slice it spells
        self.range_makers = frozenset(_last_parts(tables.range_functions))
        self.range_words = tuple(sorted(name.encode() for name in self.range_makers))
        # `torch.broadcast_tensors(a, b)`: a tuple of its arguments; `x.__getitem__(k)`: `x[k]`
        self.broadcasts = frozenset(_last_parts(tables.broadcast_functions))
        self.subscript_methods = frozenset(tables.subscript_methods)
        # `type(x).to(x, d)`, `x.__class__.float(x)`: the unbound method of x's class
        self.class_of_functions = frozenset(tables.class_of_functions)
        self.class_of_attributes = frozenset(tables.class_of_attributes)
        self.iter_copies = frozenset(_last_parts(tables.iter_copies))  # `a, b = itertools.tee(xs)`: xs twice
        self.dim_index = frozenset(set(tables.dim_index_methods) | set(_last_parts(tables.dim_index_functions)))
        self.dim_index_functions = frozenset(tables.dim_index_functions)
        self.dim_arguments = dict(tables.dim_arguments)
        self.constructors = frozenset(_last_parts(tables.conversion_constructors)) | frozenset(
            tables.conversion_constructor_methods
        )
        # `torch.nested.nested_tensor([k, v], dtype=d)`: a display of tensors, each converted
        self.element_constructors = frozenset(_last_parts(tables.conversion_element_constructors))
        self.constructors |= self.element_constructors
        # `torch.sum(pool, dtype=d)`, `pool.mean(dtype=d)`: converts its input (or receiver) first
        self.dtype_arguments = frozenset(_last_parts(tables.dtype_argument_functions)) | frozenset(
            tables.dtype_argument_methods
        )
        self.dtype_argument_keywords = frozenset(tables.dtype_argument_keywords)
        self.allocations = frozenset(tables.allocation_functions)  # a comprehension of them: per-layer arenas
        self.pool_words = frozenset(tables.pool_words)
        # the last words of cache attribute names (`buffer`, `cache`) and `pool`, plural -s dropped
        # (`_may_name_cache`)
        self.cache_name_words = frozenset(
            {name.lower().rsplit("_", 1)[-1].rstrip("s") for name in tables.cache_attributes} | {"pool"}
        )
        self.folds = frozenset(n.rsplit(".", 1)[-1] for n in tables.fold_functions)
        self.tables = tables  # (fold_in_reduce_order reads [fold_arguments])
        self.fold_names = {n.rsplit(".", 1)[-1]: n for n in tables.fold_arguments}
        # calls that run the function they are given on each element (`map(f, xs)`, `tree_map(f, tree)`):
        # its parameters take the elements (ModuleAnalysis.applier)
        self.appliers = frozenset(_last_parts((*tables.iter_apply, *tables.tree_apply)))
        self.typed_appliers = frozenset(_last_parts(tables.tree_apply_typed))  # `tree_map_only(T, f, tree)`
        # `_up = torch.compile(_up_impl)`: a stand-in for the function it is given (by the last name)
        self.function_wrappers = frozenset(_last_parts(tables.function_wrappers))
        self.not_pool_words = frozenset(tables.batch_words) | frozenset(tables.layer_words)
        self.layer_words, self.batch_words = frozenset(tables.layer_words), frozenset(tables.batch_words)
        # `torch.Tensor`, and `Tensor` as `from torch import Tensor` names it
        self.unbound = frozenset(
            set(tables.unbound_receivers) | {r.rsplit(".", 1)[-1] for r in tables.unbound_receivers}
        )
        # `torch.ops.aten.<op>[.<overload>](x, ...)`: the unbound method <op> of x (by the namespace's last name)
        self.op_namespaces = frozenset(_last_parts(tables.op_namespaces))
        # a conversion helper, or a kernel that reads a pool by row index (CL004 at the read)
        self.helpers = frozenset(tables.conversion_helpers) | frozenset(r["function"] for r in tables.row_kernels)
        self.row_kernel_imports = frozenset((m, r["function"]) for r in tables.row_kernels for m in r["modules"])
        self.narrow = frozenset(set(tables.narrow_methods) | {f.rsplit(".", 1)[-1] for f in tables.narrow_functions})
        # methods through which ModuleAnalysis.origin follows the receiver (a gather ends
        # the flow: what it gives is batch-sized, and no rule fires on a gathered value)
        self.through_methods = frozenset(
            (
                set(tables.view_methods)
                | set(tables.reinterpret_methods)
                | set(tables.casts)
                | set(tables.tuple_view_methods)
                | set(tables.narrow_methods)
                | set(tables.copy_methods)
                | set(tables.whole_copy_methods)
                | set(tables.select_methods)
                | set(tables.sized_view_methods)
                | set(tables.whole_methods)
                | set(tables.elementwise_methods)
                | set(tables.window_methods)
            )
            - set(tables.gather_methods)
        )
        self.gather_methods = frozenset(tables.gather_methods)
        # methods of tensors and pools, never of the module's own classes (obj.m(...) feeds no def)
        self.tensor_methods = self.accessors | self.through_methods | self.gather_methods | self.casts
        # functions through which it follows the first argument (by their last name part)
        self.through_functions = frozenset(
            (
                {
                    f.rsplit(".", 1)[-1]
                    for f in set(tables.view_functions)
                    | set(tables.sized_view_functions)
                    | set(tables.whole_functions)
                    | set(tables.tuple_view_functions)
                    | set(tables.narrow_functions)
                    | set(tables.concat_functions)
                    | set(tables.pack_functions)
                    | set(tables.elementwise_functions)
                    | set(tables.choose_functions)
                    | set(tables.window_functions)
                    | set(tables.einsum_functions)
                    | set(tables.select_functions)
                }
                - {f.rsplit(".", 1)[-1] for f in tables.gather_functions}
            )
            | set(tables.iter_passthrough)
            | set(tables.iter_apply)
            | _last_parts(tables.iter_pairs)
            | _last_parts(tables.iter_windows)
            | _last_parts(tables.iter_groups)
            | _last_parts(tables.iter_chain)
            | _last_parts(tables.iter_filtering)
            | _last_parts(tables.subscript_functions)  # `getitem(x, k)`, under an import alias too
            | _last_parts(tables.iter_flatten)
            # `enumerate(xs)`, `itertools.repeat(x, n)`, `tree_leaves(tree)`, `tree_flatten(tree)`,
            # `tree_map(f, tree)`: what they are given flows through (ObjectFlow.iteration_kind)
            | _last_parts(tables.iter_numbered)
            | _last_parts(tables.iter_repeats)
            | _last_parts(tables.tree_leaves)
            | _last_parts(tables.tree_flatten)
            | _last_parts(tables.tree_apply)
            | _last_parts(tables.tree_apply_typed)
            # `operator.add(acc, [buf])`, `sum(lists, [])`: what they combine (ModuleAnalysis.operator_node)
            | _last_parts((*tables.add_functions, *tables.or_functions, *tables.sum_functions))
            | {f.rsplit(".", 1)[-1] for f in (*tables.keep_elements, *tables.take_functions, *tables.dict_constructors)}
            # `weakref.proxy(pool)`, `weakref.ref(runner)` (called: runner), `SimpleNamespace(kv=pool)`:
            # what they are given flows through (ObjectFlow.wrapped_value, namespace records)
            | {
                f.rsplit(".", 1)[-1]
                for f in (
                    *tables.identity_wrappers,
                    *tables.type_casts,  # `typing.cast(T, pool)`: pool
                    *tables.reference_makers,
                    *tables.namespace_constructors,
                    *tables.coroutine_runners,  # `loop.run_until_complete(coro)`: what coro returns
                    *tables.context_values,  # `nullcontext(pool)`, entered: pool
                    *tables.context_enterers,  # `stack.enter_context(cm)`: what entering cm gives
                )
            }
        )
        self.namespace_names = frozenset(f.rsplit(".", 1)[-1] for f in tables.namespace_constructors)
        self.generator_senders = frozenset(tables.generator_senders)  # `gen.send(pool)`: the yield's value
        # calls that run a callable they are handed (ObjectFlow.run_calls), by the last name
        self.runners = frozenset(_last_parts((*tables.runners, *tables.call_functions)))
        # `ctx.run(f, kv)` only on what a runner maker made (ObjectFlow.made_by): spelled on the maker's call
        # here (`copy_context().run(f, kv)`); through a name, _made_runners sends the file to the analysis
        self.made_runner_methods = frozenset(tables.made_runner_methods)
        self.runner_makers = frozenset(_last_parts(tables.runner_makers))
        self.runners_after_one = frozenset(_last_parts(tables.runners_after_one))
        self.runners_packed = frozenset(_last_parts(tables.runners_packed))
        self.runner_keywords = (
            tuple(sorted(tables.runner_callable_keywords)),
            tuple(sorted(tables.runner_args_keywords)),
            tuple(sorted(tables.runner_kwargs_keywords)),
        )
        self.apply_methods = frozenset(tables.iter_apply_methods)  # `executor.map(f, xs)`
        self.star_appliers = frozenset(_last_parts(tables.iter_star_apply))  # `starmap(f, rows)`: f(*row)
        # calls that make an empty container a module may fill from its functions (`_READERS = dict()`)
        self.container_makers = frozenset(_last_parts((*tables.dict_constructors, *tables.keep_elements)))
        self.module_containers = frozenset(_last_parts(tables.module_containers))
        self.weight_names = frozenset(_last_parts(tables.weight_wrappers))
        self.shape_words = frozenset(tables.extent_attributes)  # `torch.empty(cache_shape)`: a pool's shape
        self.identity_names = frozenset(_last_parts(tables.identity_wrappers))  # `nn.Parameter(alloc)`: alloc
        self.run_once = frozenset(tables.run_once_methods)
        # module-level holders (`_KV = ContextVar("kv")`, `_tls = threading.local()`): what their setter
        # or an attribute store puts in them comes out elsewhere (ObjectFlow.held_values, held_attribute)
        self.holder_makers = frozenset(_last_parts((*tables.holder_constructors, *tables.attribute_holders)))
        self.holder_setters = frozenset(tables.holder_setters)
        self.element_methods = frozenset(tables.element_methods) | frozenset(tables.take_methods)  # d.get(k): d[k]
        # a container's take methods held uncalled (`self._lookup = kv_caches.get`): calling one gives an element
        self.bound_takes = frozenset(tables.take_methods) | self.subscript_methods
        # copies of a record with fields replaced by keyword (`rec._replace(k=x)`, `attr.evolve(rec, k=x)`)
        self.record_makers = frozenset(tables.record_make_methods)  # `Rec._make(pair)`: Rec(*pair)
        self.record_factories = frozenset(tables.record_factories)  # `Rec = namedtuple("Rec", ["k", "v"])`
        self.record_replacers = frozenset(
            _last_parts((*tables.record_replace_methods, *tables.record_replace_functions))
        )
        # what reads an object's fields without naming them (`vars(rec)`, `rec._asdict()`, `rec.__dict__`,
        # `getattr(rec, f.name)` of `dataclasses.fields(rec)`)
        self.field_readers = frozenset(
            _last_parts(
                (
                    *tables.record_as_dict_methods,
                    *tables.record_as_dict_functions,
                    *tables.record_as_dict_attributes,
                    *tables.record_as_tuple_functions,
                    *tables.record_field_functions,
                    *tables.record_field_names_attributes,
                )
            )
        )
        # `f.name` of `f in fields(rec)`: a field reader only where a field function is called
        self.field_functions = frozenset(_last_parts(tables.record_field_functions))
        self.field_name_readers = frozenset(tables.record_field_name_attributes)
        # bases and decorators that make a class a record (CL002 reads a plan's dtypes from its fields)
        self.dispatch_registers = frozenset(tables.dispatch_registers)  # `@generic.register`: an overload
        self.dispatch_generics = frozenset(_last_parts(tables.dispatch_generics))  # `@singledispatch`
        self.record_markers = frozenset(_last_parts((*tables.record_bases, *tables.record_decorators)))
        self.tuple_record_bases = frozenset(_last_parts(tables.record_bases))  # NamedTuple: unpacked by position
        self.item_getters = frozenset(_last_parts(tables.item_getters))  # itemgetter(k)(x) reads x[k]
        self.subscript_functions = frozenset(_last_parts(tables.subscript_functions))  # getitem(x, k): x[k]
        self.dict_names = frozenset(_last_parts(tables.dict_constructors))  # dict(k=v): an entry per keyword
        # d.values(): the same elements; d.popitem(): a (key, value) item, read as d
        self.keep_methods = frozenset(tables.keep_methods) | frozenset(tables.item_methods)
        self.grow_methods = frozenset((*tables.grow_one, *tables.grow_last, *tables.grow_many))
        self.grow_last, self.grow_many = frozenset(tables.grow_last), frozenset(tables.grow_many)
        self.grow_functions = frozenset(_last_parts(tables.grow_functions))
        self.user_containers = frozenset(_last_parts(tables.user_containers))
        self.dict_classes = frozenset(_last_parts(tables.dict_classes))  # TypedDict: its instances are dicts
        methods, functions = set(), set()
        for wrapper in tables.wrappers:
            if wrapper.function:
                functions.add(wrapper.cls)
            else:
                methods.update(wrapper.methods)
        self.wrapper_methods = frozenset(methods)
        self.wrapper_functions = frozenset(functions)
        # the MLA wrappers' run(): a consumer whose every input the MLA fix must account for
        self.mla_classes = tuple(w.cls.encode() for w in tables.wrappers if w.mla and not w.function)
        self.mla_run_methods = frozenset(w.run_method for w in tables.wrappers if w.mla and w.run_method)
        # names whose import aliases the flow follows (_import_aliases)
        self.alias_words = tuple(sorted(name.encode() for name in self.through_functions | self.helpers))

    def _read_rule_groups(self, tables: Tables) -> None:
        """CL002's prefilter groups: without one word of each set no plan() can be flagged;
        the groups of every rule prune models (not the calling conventions: see
        _convention_possible); the rules prune cannot model make a file FULL."""
        from castlint import prefilter
        from castlint.checks.base import PLAN_CALLS, POOL_FLOW, SUPPRESSIONS

        plan_groups = prefilter.trigger_groups(tables, scopes=(PLAN_CALLS,))
        self.plan_words = tuple(tuple(word.encode() for word in words) for group in plan_groups[:1] for words in group)
        conventions = set(prefilter.rule_groups_of(prefilter.TriggerWords(tables).conventions))
        modelled = prefilter.trigger_groups(tables, scopes=(POOL_FLOW, PLAN_CALLS))
        self.core_groups = prefilter.encode(tuple(g for g in modelled if g not in conventions))
        self.whole_file_groups = prefilter.encode(
            prefilter.trigger_groups(tables, exclude_scopes=(POOL_FLOW, PLAN_CALLS, SUPPRESSIONS))
        )

    def _read_conventions(self, tables: Tables) -> None:
        """Engines' calling conventions: method name -> [(parameters, required parameters,
        levels)], and a regex for `def <one of those methods>(`."""
        self.conventions: Dict[str, List[Tuple[frozenset, frozenset, int]]] = {}
        for row in tables.cache_parameters:
            levels = CONTAINER if row.returns == "tuple" else WHOLE
            # a row with `beside` applies only to a keyword read from **kwargs (_register marks those whatever
            # the requires): a requirement no signature meets keeps it off named parameters
            requires = frozenset(row.requires) | ({"**beside"} if row.beside else set())
            for method in row.methods:
                self.conventions.setdefault(method, []).append((frozenset(row.params), requires, levels))
        # a row's `beside` methods reading its keyword from **kwargs (a graph runner's `capture(self, **kwargs)`):
        # the evidence the analysis reads for the convention (kwargs_convention_rows), kept with their class
        self.beside_defs = frozenset(m for row in tables.cache_parameters for m in row.beside)
        self.beside_params = frozenset(p for row in tables.cache_parameters if row.beside for p in row.params)
        names = sorted(self.conventions)
        self.convention_def = (
            re.compile(rb"def\s+(?:" + b"|".join(re.escape(m.encode()) for m in names) + rb")\s*\(") if names else None
        )

    def _read_gate_words(self, tables: Tables) -> None:
        """A def or class whose text has none of these cannot hold a candidate by itself
        (a cache attribute that other names extend, `kv_cache` of `kv_cache_dtype`, only as
        an attribute of its own: the prefilter's words; a calling convention by the
        signatures themselves, see _has_convention)."""
        from castlint.tables import ATTRIBUTE_ENDS

        whole = set(tables.cache_attributes_whole)
        plans = self.wrapper_methods | self.wrapper_functions
        words = set(self.accessors) | (set(self.cache_attributes) - whole) | plans
        words |= {f".{name}{end}" for name in whole for end in ATTRIBUTE_ENDS}
        words |= {f"{name}{end}" for name in tables.cache_parameter_names for end in (",", ")", ":")}
        self.gate_words = tuple(sorted(word.encode() for word in words))
        self.gate_words_without_plans = tuple(sorted(word.encode() for word in words - plans))

    def kind_word(self, name: str) -> bool:
        """Does an attribute's name say it holds a dtype or a device? (ModuleAnalysis.value_kind
        decides those by the name alone, without reading the attribute's assignments.)"""
        low = name.lower()
        return any(word in low for word in self._kind_words)

    def without_plans(self) -> "_Vocabulary":
        """This vocabulary for a file where CL002 cannot fire: no plan() call is a candidate."""
        other = self._no_plans
        if other is None:
            other = object.__new__(_Vocabulary)
            other.__dict__.update(self.__dict__)
            other.wrapper_methods = other.wrapper_functions = frozenset()
            other.gate_words = self.gate_words_without_plans  # `plan` is part of many other names
            other._no_plans = None
            self._no_plans = other
        return other


_VOCABULARIES: Dict[tuple, _Vocabulary] = {}


def _last_parts(names) -> Set[str]:
    """`attr.evolve` -> `evolve`: what the pruner matches a callee by."""
    return {n.rsplit(".", 1)[-1] for n in names}


def _vocabulary(tables: Tables) -> _Vocabulary:
    """The word sets for these tables and rules, built once per process."""
    from castlint.checks import all_rules

    key = (id(tables), tables.digest, tuple(rule.code for rule in all_rules()))
    words = _VOCABULARIES.get(key)
    if words is None:
        words = _VOCABULARIES[key] = _Vocabulary(tables)
    return words


# nodes _collect does nothing with and that have no child it reads: not even pushed
_INERT = frozenset({ast.Name, ast.Constant})


def _walk(root: ast.AST, skip: tuple = ()):
    """ast.walk, depth first and about twice as fast (order does not matter here).
    Nodes of the types in skip (below the root) are left out with their subtrees."""
    stack = [root]
    pop, push, AST = stack.pop, stack.append, ast.AST
    fields = pyast.CHILD_FIELDS
    while stack:
        node = pop()
        if skip and node is not root and isinstance(node, skip):
            continue
        yield node
        names = fields.get(type(node))
        if names is None:
            names = pyast.child_fields(type(node))
        for name in names:
            value = getattr(node, name, None)
            if type(value) is list:
                for item in value:
                    if isinstance(item, AST):
                        push(item)
            elif isinstance(value, AST):
                push(value)


# What a value may be, as bits: a container of whole caches (a per-layer list, a K/V
# pair, split views: Origin.POOL_TUPLE) and a whole cache or an active prefix of one
# (Origin.POOL, Origin.PREFIX). A gather is nothing: no rule fires on one.
CONTAINER, WHOLE = 1, 2
# How an expression turns what it reads into what it is: tf[levels] (tf[0] is 0).
KEEP = (0, 1, 2, 3)
INDEXED = (0, 3, 0, 3)  # x[i]: an element of a container (itself one, when they nest); an index into one cache gathers
TUPLED = (0, 1, 3, 3)  # x.split(...): several whole views
ELEMENT = (0, 2, 2, 2)  # unpacking or iterating
PACKED = (0, 1, 1, 1)  # (a, b): a tuple of whole caches
NESTED = (0, 3, 3, 3)  # groups[g].append(a): a container of containers (indexing it once still holds caches)


def _then(first: tuple, second: tuple) -> tuple:
    """The transform that applies first, then second."""
    return tuple(second[first[i]] for i in range(4))


class _Refs:
    """What an expression's origin (ModuleAnalysis._origin) can depend on, each read with
    the transform between it and the expression."""

    __slots__ = ("names", "attrs", "base", "calls", "members", "bound", "held")

    def __init__(self):
        self.names: Set[Tuple[str, tuple]] = set()
        self.attrs: Set[Tuple[str, tuple]] = set()  # x of self.x
        self.base = 0  # levels from an accessor call or a cache attribute
        self.calls: Set[Tuple[str, tuple]] = set()  # f(...) and self.m(...) whose result flows in
        self.members: Set[str] = set()  # x of obj.x and m of obj.m(...), obj not self (_object_flow)
        self.bound = False  # an accessor held uncalled (a bound method, partial, getattr)
        self.held: Set[str] = set()  # m of obj.m read uncalled: a bound method (or a property) of another object


def _refs(node: ast.AST, vocab: _Vocabulary, aliases=frozenset(), tf: tuple = KEEP) -> _Refs:
    out = _Refs()
    _flow(node, vocab, aliases, out, tf)
    return out


# marks a name bound to a range index in the module's aliases (`every = torch.arange(n)`): `every[...]` is no call
RANGE_NAME = "[]"


def _later_dim(call: ast.Call, name: str, vocab: _Vocabulary) -> bool:
    """A dim-taking selection ([gathers] dim_index_*) whose dimension is an int literal other than 0 (by
    [dim_arguments]: its keyword, or its place after the tensor): it selects along a later dimension, the
    subscript `x[:, ..., index]` the analysis reads by the layout (a feature dimension keeps every slot)."""
    spec = vocab.dim_arguments.get(name)
    if not isinstance(spec, tuple):
        return False
    keyword, position = spec
    dims = [k.value for k in call.keywords if k.arg == keyword]
    if not dims:
        function = type(call.func) is ast.Attribute and ast.unparse(call.func) in vocab.dim_index_functions
        positional = call.args[1:] if function else call.args  # the tensor first in `torch.index_select(x, d, i)`
        dims = positional[position : position + 1]
    if not dims:
        return False
    dim = dims[0]
    if type(dim) is ast.UnaryOp and type(dim.op) is ast.USub:
        dim = dim.operand
    return type(dim) is ast.Constant and type(dim.value) is int and dim.value != 0


def _range_index(node: ast.AST, vocab: _Vocabulary, aliases) -> bool:
    """A range index tensor (`torch.arange(...)`, or a name the module binds to one): the slice it spells."""
    if type(node) is ast.Name:
        return RANGE_NAME + node.id in aliases
    return type(node) is ast.Call and (_callee_name(node.func) or "").rsplit(".", 1)[-1] in vocab.range_makers


def _range_names(tree: ast.AST, source: bytes, vocab: _Vocabulary) -> frozenset:
    """RANGE_NAME + each name the module assigns a range index (`every = torch.arange(buf.shape[0])`)."""
    if not vocab.range_words or not prefilter_has_trigger(source, ((vocab.range_words,),)):
        return frozenset()
    return frozenset(
        RANGE_NAME + target.id
        for node in pyast.nodes(tree)
        if type(node) is ast.Assign and _range_index(node.value, vocab, ())
        for target in node.targets
        if type(target) is ast.Name
    )


# marks a module that builds a slice object other than as an index (`Rec(i, slice(None))`, `span = slice(0, n)`):
# an index held in a name, attribute or element may then be one (`buf[rec.span]`), read as a slice
HELD_SLICE = "[:]"
# marks a planning pass that reads slice objects as no pool at all (_plan: a pass that finds no site)
SLICES_INERT = "[:]?"
INERT_SLICES = frozenset((SLICES_INERT,))


def _held_slices(tree: ast.AST, source: bytes, vocab: _Vocabulary) -> frozenset:
    """{HELD_SLICE} when the module calls a slice maker ([views] slice_constructors) outside a subscript."""
    if not any(f"{maker}(".encode() in source for maker in vocab.slice_makers):
        return frozenset()
    indices = {id(n.slice) for n in pyast.nodes(tree) if type(n) is ast.Subscript}
    for node in pyast.nodes(tree):
        if type(node) is ast.Call and type(node.func) is ast.Name and node.func.id in vocab.slice_makers:
            if id(node) not in indices:
                return frozenset((HELD_SLICE,))
    return frozenset()


KEEPING = "keeps:"  # aliases' marker: some name or self attribute holds a keeping callable (_keeping_callables)
MOVED = "moved:"  # aliases' prefix of a name (or `self.` attribute) bound to a dimension-moving view


def _moved_names(tree: ast.AST, source: bytes, vocab: _Vocabulary) -> frozenset:
    """{MOVED + name, MOVED + "self." + attr} of names and self attributes the module assigns a dimension-moving
    view ([views] dim_swaps, dim_moves, dim_orders: `self.by_layer = kv.transpose(0, 1)`): an index of them
    may select a dimension before the tokens, every token kept (ModuleAnalysis._moved_token)."""
    if not any(f"{m}(".encode() in source for m in vocab.dim_movers):
        return frozenset()
    found = set()
    for node in pyast.nodes(tree):
        if type(node) is not ast.Assign or not _moving_view(node.value, vocab):
            continue
        for target in node.targets:
            if type(target) is ast.Name:
                found.add(MOVED + target.id)
            elif type(target) is ast.Attribute and _is_self(target.value):
                found.add(MOVED + "self." + target.attr)
    return frozenset(found)


def _keeping_callables(tree: ast.AST, source: bytes, vocab: _Vocabulary) -> frozenset:
    """Names (and "self." + attr of self attributes) the module assigns a callable that hands back every element
    of its first argument in its dtype, with KEEPING when there is one: a keeping module ([callables]
    keeping_modules: `self.merge = nn.Flatten(0, 1)`), a chain of them ([callables] module_chains), a partial of
    a function followed through given only keywords (`partial(torch.flatten, start_dim=0, end_dim=1)`): a call
    of it is that function's (ModuleAnalysis.applied_values, _callable_forms)."""
    words = vocab.keeping_modules | vocab.module_chains | vocab.partial_makers
    if not any(f"{w}(".encode() in source for w in words):
        return frozenset()
    found = set()
    for node in pyast.nodes(tree):
        if type(node) is not ast.Assign or not _keeping_callable(node.value, vocab):
            continue
        for target in node.targets:
            if type(target) is ast.Name:
                found.add(target.id)
            elif type(target) is ast.Attribute and _is_self(target.value):
                found.add("self." + target.attr)
    return frozenset(found | {KEEPING}) if found else frozenset()


def _keeping_callable(value: ast.AST, vocab: _Vocabulary, depth: int = 0) -> bool:
    if type(value) is not ast.Call or type(value.func) not in (ast.Name, ast.Attribute) or depth > 4:
        return False
    name = _callee_name(value.func)
    if name in vocab.keeping_modules:
        return True
    if name in vocab.module_chains:
        return bool(value.args) and all(_keeping_callable(a, vocab, depth + 1) for a in value.args)
    return (
        name in vocab.partial_makers
        and len(value.args) == 1
        and type(value.args[0]) in (ast.Name, ast.Attribute)
        and _callee_name(value.args[0]) in vocab.through_functions
    )


def _moving_view(node: ast.AST, vocab: _Vocabulary) -> bool:
    """Is node a call of a dimension-moving view, as a method or a function (`kv.transpose(0, 1)`,
    `torch.movedim(kv, 1, 0)`)?"""
    return (
        type(node) is ast.Call
        and type(node.func) in (ast.Attribute, ast.Name)
        and ((node.func.attr if type(node.func) is ast.Attribute else node.func.id) in vocab.dim_movers)
    )


def _moved_holder(value: ast.AST, vocab: _Vocabulary, aliases) -> bool:
    """Is value (a subscript's receiver) a dimension-moving view, or a name or self attribute bound to one?"""
    if _moving_view(value, vocab):
        return True
    if type(value) is ast.Name:
        return MOVED + value.id in aliases
    return type(value) is ast.Attribute and _is_self(value.value) and MOVED + "self." + value.attr in aliases


def _holds_slice(call: ast.Call, vocab: _Vocabulary) -> bool:
    """Is a slice maker's call an argument of call (`Cut("all", slice(None))`)?"""
    return any(
        type(a) is ast.Call and type(a.func) is ast.Name and a.func.id in vocab.slice_makers
        for a in list(call.args) + [k.value for k in call.keywords]
    )


def _keeps_tokens(sub: ast.Subscript, vocab: _Vocabulary, aliases=frozenset()) -> bool:
    """Does the first index leave the first dimension whole (a slice, a slice object, None, `[()]`, a range
    index, ...)?"""
    if type(sub.slice) is ast.Tuple and not sub.slice.elts:
        return True  # `buf[()]`: no index at all, the tensor itself
    first = sub.slice.elts[0] if type(sub.slice) is ast.Tuple and sub.slice.elts else sub.slice
    if type(first) is ast.Call and type(first.func) is ast.Name and first.func.id in vocab.slice_makers:
        return True  # `buf[slice(None)]` (the analysis reads its bounds as a slice's)
    if _range_index(first, vocab, aliases):
        return True  # `buf[torch.arange(buf.shape[0])]`: as `buf[: buf.shape[0]]`
    if HELD_SLICE in aliases and type(first) in (ast.Name, ast.Attribute, ast.Subscript):
        return True  # `buf[rec.span]` of `Rec(i, slice(None))`: maybe a slice object
    if _moved_holder(sub.value, vocab, aliases):
        return True  # `by_layer[layer]` of `by_layer = kv.transpose(0, 1)`: the tokens moved later
    if type(first) in (ast.Name, ast.Attribute) and _constant_index(first, aliases):
        return True  # `kv[KV.KEY]`, `kv[KEY]`: a constant bound once, read as the literal is
    return type(first) is ast.Slice or (
        type(first) is ast.Constant and (first.value is None or first.value is Ellipsis or type(first.value) is int)
    )


CONSTANT_INDEX = "int:"  # aliases' prefix of a name (or class attribute) the module binds only an int literal


def _constant_index(node: ast.AST, aliases) -> bool:
    """Is node a name or attribute the module binds an int literal (_constant_index_names)? The analysis
    reads it as the literal (ModuleAnalysis.constant_indices)."""
    if type(node) is ast.Name:
        return CONSTANT_INDEX + node.id in aliases
    return type(node) is ast.Attribute and CONSTANT_INDEX + "." + node.attr in aliases


def _constant_index_names(tree: ast.AST, vocab: _Vocabulary) -> frozenset:
    """CONSTANT_INDEX + each module-level name, and CONSTANT_INDEX + "." + each class attribute, bound to an
    int literal (`KEY = 0`, an IntEnum's `VALUE = 1`), and each loop target over a class of such members
    (`for kind in KV`): constant indices, as a literal is."""
    found: Set[str] = set()
    member_classes: Set[str] = set()
    body = getattr(tree, "body", [])
    for stmt in body:
        blocks = [(stmt, False)] if type(stmt) in (ast.Assign, ast.AnnAssign) else []
        if type(stmt) is ast.ClassDef:
            blocks = [(s, True) for s in stmt.body if type(s) in (ast.Assign, ast.AnnAssign)]
        for assign, in_class in blocks:
            value = assign.value
            if type(value) is ast.UnaryOp and type(value.op) is ast.USub:
                value = value.operand
            if _literal_range(value, vocab) and type(assign) is ast.Assign:  # `_IDX, _BUF = range(2)`
                for target in assign.targets:
                    for element in target.elts if type(target) in (ast.Tuple, ast.List) else ():
                        if type(element) is ast.Name:
                            found.add(CONSTANT_INDEX + ("." if in_class else "") + element.id)
                continue
            if not (type(value) is ast.Constant and type(value.value) is int):
                continue
            targets = assign.targets if type(assign) is ast.Assign else [assign.target]
            for target in targets:
                if type(target) is ast.Name:
                    found.add(CONSTANT_INDEX + ("." if in_class else "") + target.id)
                    if in_class:
                        member_classes.add(stmt.name)
    if not found:
        return frozenset()
    for node in pyast.nodes(tree):
        if type(node) in (ast.For, ast.comprehension) and type(node.iter) is ast.Name:
            if node.iter.id in member_classes and type(node.target) is ast.Name:
                found.add(CONSTANT_INDEX + node.target.id)
    return frozenset(found)


def _literal_range(value: ast.AST, vocab: _Vocabulary) -> bool:
    """`range(n)` / `range(a, b)` of int literals ([index_values] stride_ranges): what a module unpacks into
    constant indices."""
    return (
        type(value) is ast.Call
        and type(value.func) is ast.Name
        and value.func.id in vocab.stride_ranges
        and 1 <= len(value.args) <= 2
        and not value.keywords
        and all(type(a) is ast.Constant and type(a.value) is int for a in value.args)
    )


def _read_attribute(call: ast.Call, vocab: _Vocabulary) -> Optional[ast.Attribute]:
    """`getattr(obj, "name")`, `object.__getattribute__(obj, "name")` ([callables] attribute_getters) as
    the attribute `obj.name` they read; None for any other call or a name that is not a literal."""
    if _callee_name(call.func) not in vocab.attribute_getters or len(call.args) < 2:
        return None
    key = call.args[1]
    if not _str_constant(key) or not key.value.isidentifier() or type(call.args[0]) is ast.Starred:
        return None
    return ast.Attribute(value=call.args[0], attr=key.value, ctx=ast.Load())


def _flow(node: ast.AST, vocab: _Vocabulary, aliases, out: _Refs, tf: tuple) -> None:
    while True:
        if not tf[CONTAINER | WHOLE]:
            return  # nothing read through here can matter
        t = type(node)
        if t is ast.BinOp and type(node.op) is ast.Add and _constant_text(node) in vocab.accessors:
            # a constant built to name an accessor: `name = "get_" + "buffers"` for a later
            # `getattr(mgr, name)(i)` (ObjectFlow.constant_strings): an accessor held uncalled
            out.bound = True
            return
        if t is ast.Name:
            out.names.add((node.id, tf))
            out.calls.add((node.id, tf))  # a function handed on as a value: what it returns, once called
            return
        if t is ast.Attribute:
            if node.attr in vocab.bound_takes and not _unbound_receiver(node.value, vocab):
                # `self._lookup = kv_caches.get`, `take = bufs.__getitem__`: a container's bound take method
                # held uncalled; a call of it gives one element ([containers] take_methods, subscript methods)
                node, tf = node.value, _then(INDEXED, tf)
                continue
            if node.attr in vocab.cache_attributes:
                out.base |= tf[CONTAINER | WHOLE]
            if node.attr in vocab.accessors:
                out.bound = True
            if node.attr in vocab.view_attributes:  # `x.mT`, `x.T`: a view of x
                node = node.value
                continue
            if type(node.value) is ast.Name and node.value.id == "self":
                out.attrs.add((node.attr, tf))
            else:
                out.members.add(node.attr)
                out.held.add(node.attr)
            return  # the origin of obj.x is not that of obj
        if t is ast.Call:
            func = node.func
            read = _read_attribute(node, vocab)
            if read is not None:  # getattr(holder, "_caches"), object.__getattribute__(...): holder._caches
                node = read
                continue
            if _callee_name(func) in vocab.attribute_getters and len(node.args) >= 2:
                held = _named_attribute(node.args[1], aliases)
                if held is not None:  # getattr(layer, self.CACHE_ATTR) of `CACHE_ATTR = "kv_cache"`
                    key = node.args[1]
                    if type(key) is ast.Attribute and _is_self(key.value):
                        out.attrs.add((key.attr, tf))  # (the method that binds the name is read too)
                    node = ast.Attribute(value=node.args[0], attr=held, ctx=ast.Load())
                    continue
            args = list(node.args) + [k.value for k in node.keywords]
            if type(func) is ast.Attribute and func.attr in vocab.holders:  # functools.partial(f, ...)
                out.bound |= any(_names_accessor(a, vocab) for a in args) or (
                    func.attr in vocab.attr_getters and _names_cache_attribute(args, vocab)
                )
                folded = _fold_args(node, vocab) if func.attr in vocab.folds else None
                if folded and type(folded[1]) in (ast.Tuple, ast.List):
                    out.bound |= any(_names_accessor(e, vocab) for e in folded[1].elts)  # reduce(getattr, ...)
                if folded and type(folded[0]) is ast.Lambda:
                    _flow(folded[0].body, vocab, aliases, out, tf)  # reduce(lambda acc, i: ..., ids, {})
                _held_pool(args, vocab, out, tf)
                for arg in args:
                    _flow(arg, vocab, aliases, out, tf)
                return
            if (
                type(func) is ast.Attribute
                and func.attr in vocab.subscript_methods
                and not _unbound_receiver(func.value, vocab)
                and pyast.dotted(func.value) != "operator"
            ):  # x.__getitem__(k): x[k], a slice or an index
                for arg in node.args:
                    _flow(arg, vocab, aliases, out, tf)
                node = func.value
                continue
            if _callee_name(func) in vocab.subscript_functions and node.args:  # operator.getitem(x, k): x[k]
                node, tf = node.args[0], _then(INDEXED, tf)
                continue
            out.calls.add(("__call__", tf))  # an object called: what its class's __call__ returns
            if type(func) is ast.Call and _callee_name(func.func) in vocab.getters:
                # itemgetter(k)(x), attrgetter("a")(x), methodcaller("m")(x): what x holds, indexed
                for arg in node.args:
                    _flow(arg, vocab, aliases, out, _then(INDEXED, tf))
            if type(func) not in (ast.Attribute, ast.Name):  # getattr(pool, "m")(...), table["k"](...)
                inner = _Refs()
                _flow(func, vocab, aliases, inner, tf)
                if inner.bound:
                    out.base |= tf[CONTAINER | WHOLE]
                out.base |= inner.base
                out.names |= inner.names
                out.attrs |= inner.attrs
                out.calls |= inner.calls
                out.members |= inner.members
                out.held |= inner.held
                out.bound |= inner.bound
                return
            if type(func) is ast.Attribute:
                name = func.attr
                op = _op_of(func, vocab)
                if op is not None:  # `torch.ops.aten.permute.default(x, ...)`: x.permute(...)
                    inner = _then(TUPLED, tf) if op in vocab.tuple_views else tf
                    if op in vocab.through_methods or op in vocab.through_functions:
                        for arg in args:
                            _flow(arg, vocab, aliases, out, inner)
                    return
                if name in vocab.accessors:
                    out.base |= tf[CONTAINER if name in vocab.tuple_accessors else WHOLE]
                owner = func.value
                if (type(owner) is ast.Name and owner.id == "self") or _is_super(owner):
                    out.calls.add((name, tf))  # what a helper method returns
                    out.attrs.add((name, tf))  # a callable held in self.<name>
                    if KEEPING in aliases and node.args and "self." + name in aliases:
                        node = node.args[0]  # `self.merge(kv)` of `self.merge = nn.Flatten(0, 1)`: kv's elements
                        continue
                else:
                    out.members.add(name)
                    out.calls.add((name, tf))  # obj.m(...), Cls.m(...): what a method named m returns
                if name in vocab.iter_copies and node.args:  # tee(xs): iterators over xs's elements
                    node, tf = node.args[0], _then(NESTED, tf)
                    continue
                if name in vocab.broadcasts:  # broadcast_tensors(a, b): (a, b), each expanded
                    for arg in args:
                        _flow(arg, vocab, aliases, out, _then(PACKED, tf))
                    return
                if name in vocab.dim_index and (
                    any(_range_index(a, vocab, aliases) for a in node.args) or _later_dim(node, name, vocab)
                ):
                    # `buf.index_select(0, torch.arange(n))`, `torch.index_select(buf, 0, r)`; along a later
                    # dimension (`torch.index_select(buf, -1, perm)`) the subscript `buf[..., perm]` it is
                    for arg in node.args:
                        _flow(arg, vocab, aliases, out, tf)
                    node = func.value
                    continue
                inner = _then(TUPLED, tf) if name in vocab.tuple_views else tf
                if name in vocab.through_functions or _unbound_receiver(func.value, vocab):
                    for arg in args:
                        _flow(arg, vocab, aliases, out, _then(PACKED, tf) if _dict_entry(node, arg, vocab) else inner)
                if name in vocab.through_methods:
                    node, tf = func.value, inner
                    continue
                if name in vocab.element_methods:  # d.get(k) reads what d[k] does
                    out.calls.add(("__getitem__", tf))
                    for hook in vocab.missing_hooks:
                        out.calls.add((hook, tf))
                    if name in vocab.grow_last:  # d.setdefault(k, v): v too
                        for arg in args[1:]:
                            _flow(arg, vocab, aliases, out, tf)
                    node, tf = func.value, _then(INDEXED, tf)
                    continue
                if name in vocab.keep_methods:
                    node = func.value
                    continue
            if (
                HELD_SLICE in aliases
                and SLICES_INERT not in aliases
                and ((type(func) is ast.Name and func.id in vocab.slice_makers) or _holds_slice(node, vocab))
            ):
                out.base |= tf[WHOLE]  # `slice(None)`, `Rec(i, slice(None))`: it may index a pool whole
                return
            if _callee_name(func) in vocab.allocations and _may_be_layer_stack(node, vocab):
                out.base |= tf[CONTAINER]  # `torch.empty((num_layers, num_blocks, ...))`: every layer's pool
                return
            if type(func) is ast.Name:
                if func.id == "getattr" and len(node.args) >= 2 and _is_self(node.args[0]):
                    key = node.args[1]  # getattr(self, "k"): self.k; getattr(self, self._attr): any self.x
                    out.attrs.add((key.value if _str_constant(key) else ANY_ATTR, tf))
                    out.bound |= _names_accessor(key, vocab)
                    _held_pool(node.args, vocab, out, tf)
                    return
                if func.id in vocab.holders:  # partial(f, ...), getattr(obj, "name")
                    out.bound |= any(_names_accessor(a, vocab) for a in args) or (
                        func.id in vocab.attr_getters and _names_cache_attribute(args, vocab)
                    )
                    folded = _fold_args(node, vocab) if func.id in vocab.folds else None
                    if folded and type(folded[1]) in (ast.Tuple, ast.List):
                        # reduce(getattr, ("pool", "get_key_buffer"), obj): the accessor it reaches, held
                        out.bound |= any(_names_accessor(e, vocab) for e in folded[1].elts)
                    if folded and type(folded[0]) is ast.Lambda:
                        _flow(folded[0].body, vocab, aliases, out, tf)  # what the fold's step returns
                    if (
                        func.id == "getattr"
                        and len(node.args) >= 2
                        and type(node.args[1]) is ast.JoinedStr
                        and _may_name_cache(node.args[1], vocab)
                    ):
                        # getattr(mgr, f"{half}_pools") for half in ("k", "v"): the analysis folds the
                        # name (ObjectFlow.constant_strings); any attribute of obj may be named
                        out.base |= tf[CONTAINER | WHOLE]
                    if (
                        func.id == "getattr"
                        and len(node.args) >= 2
                        and type(node.args[1]) is ast.Attribute
                        and node.args[1].attr in vocab.field_name_readers
                    ):
                        # getattr(rec, f.name) of `f in fields(rec)`: under a test of f.name, the field of that
                        # name whatever rec's class (field_walk_kept); f holds what _named_fields gave the loop
                        _flow(node.args[1].value, vocab, aliases, out, tf)
                    _held_pool(args, vocab, out, tf)
                    for arg in args:
                        _flow(arg, vocab, aliases, out, tf)
                    return
                if func.id in vocab.iter_copies and node.args:  # tee(xs): iterators over xs's elements
                    node, tf = node.args[0], _then(NESTED, tf)
                    continue
                if func.id in vocab.field_readers:  # vars(rec): rec's fields (_object_flow)
                    out.members.add(func.id)
                if func.id in vocab.iterating:  # list(obj): what obj's class's __iter__ hands back
                    for hook in vocab.iter_hooks:
                        out.calls.add((hook, tf))
                if func.id in vocab.taking:  # next(obj): also what its class's __next__ returns
                    for hook in vocab.iter_hooks | vocab.next_hooks:
                        out.calls.add((hook, tf))
                if func.id in vocab.through_functions or func.id in aliases:
                    inner = _then(TUPLED, tf) if func.id in vocab.tuple_views else tf
                    for arg in args:
                        _flow(arg, vocab, aliases, out, _then(PACKED, tf) if _dict_entry(node, arg, vocab) else inner)
                else:
                    out.calls.add((func.id, tf))  # what a function or named lambda returns
                    # a local holding a container's bound take method (`layer_of = bufs.__getitem__`): an element
                    out.names.add((func.id, tf))
            return
        if t is ast.Subscript:
            out.calls.add(("__getitem__", tf))  # obj[k]: what its class's __getitem__ returns
            for hook in vocab.missing_hooks:  # or a dict subclass's __missing__
                out.calls.add((hook, tf))
            key = node.slice
            if not _keeps_tokens(node, vocab, aliases) and not (type(key) is ast.Constant and type(key.value) is str):
                tf = _then(INDEXED, tf)  # d["k"] selects a dict entry: what it holds, unindexed
            node = node.value
            continue
        if t is ast.IfExp:
            _flow(node.body, vocab, aliases, out, tf)
            node = node.orelse
            continue
        if t is ast.BoolOp:
            for value in node.values:
                _flow(value, vocab, aliases, out, tf)
            return
        if t is ast.NamedExpr or t is ast.Await:  # `await coro`: what the coroutine returns
            node = node.value
            continue
        if t is ast.UnaryOp and type(node.op) is not ast.Not:  # `-pool`, `~packed`: every slot
            node = node.operand
            continue
        if t is ast.BinOp:  # `(codes & 15)`, `buf * 2`: elementwise with a number keeps every slot
            _flow(node.left, vocab, aliases, out, tf)
            node = node.right
            continue
        if t in (ast.Tuple, ast.List):
            packed = _then(PACKED, tf)
            for element in node.elts:
                if type(element) is not ast.Starred:
                    _flow(element, vocab, aliases, out, packed)
                else:  # `[*caches, x]`: the elements of caches are its elements
                    _flow(element.value, vocab, aliases, out, tf)
            return
        if t is ast.Dict:
            packed = _then(PACKED, tf)
            for value in node.values:
                _flow(value, vocab, aliases, out, packed)
            return
        if t in _COMPREHENSIONS:
            node, tf = (node.value if t is ast.DictComp else node.elt), _then(PACKED, tf)
            parts = node.elts if type(node) in (ast.Tuple, ast.List) else (node,)  # a (k, v) pair per layer
            parts = [_unwrap_identity(p, vocab) for p in parts]  # `nn.Parameter(torch.zeros(...))`
            if parts and all(
                type(p) is ast.Call and _callee_name(p.func) in vocab.allocations and _may_be_arena(p, vocab)
                for p in parts
            ):
                # `[torch.zeros((size + 1, h, d)) for _ in range(layer_num)]`: a class's per-layer
                # arenas (the analysis decides from the allocation's first dimension)
                out.base |= tf[CONTAINER | WHOLE]
                return
            continue
        return


# a self attribute whose name is computed (`getattr(self, self._plane_attr)`, `setattr(self, name, v)`)
ANY_ATTR = "*"


def _is_self(node: ast.AST) -> bool:
    return type(node) is ast.Name and node.id == "self"


def _str_constant(node: ast.AST) -> bool:
    return type(node) is ast.Constant and type(node.value) is str


def _str_key(node: ast.AST) -> bool:
    """A mapping key with a string in it: `"k"`, `(i, "k")`, `f"layers.{i}.k"` (ObjectFlow.constant_key)."""
    return (
        _str_constant(node)
        or (type(node) is ast.Tuple and any(_str_constant(e) for e in node.elts))
        or (type(node) is ast.JoinedStr and any(_str_constant(e) and e.value for e in node.values))
    )


def _dict_entry(call: ast.Call, arg: ast.AST, vocab: _Vocabulary) -> bool:
    """Is arg a keyword's value of a dict constructor (`dict(k=pool)`: one entry, not the elements)?"""
    return _callee_name(call.func) in vocab.dict_names and any(k.value is arg for k in call.keywords)


def _may_be_arena(call: ast.Call, vocab: _Vocabulary) -> bool:
    """Might the analysis read this allocation as one whole pool (ModuleAnalysis.allocation_kind
    'pool': a pool word in its first dimension, no batch or layer word; names there may be
    resolved to their assignments, so any bare name may)?"""
    name = _callee_name(call.func) or ""
    if name.endswith("_like"):
        return True
    size = next((k.value for k in call.keywords if k.arg == "size"), call.args[0] if call.args else None)
    if type(size) in (ast.Tuple, ast.List):  # leading fixed axes (a K/V axis of 2): the first sized one
        size = next((e for e in size.elts if not (type(e) is ast.Constant and type(e.value) is int)), None)
    if size is None:
        return False
    words, bare = set(), False
    for node in pyast.nodes(size):
        if type(node) is ast.Name:
            words |= set(node.id.lower().split("_"))
            bare = True
        elif type(node) is ast.Attribute:
            words |= set(node.attr.lower().split("_"))
    if words & vocab.not_pool_words:
        return False
    return bare or bool(words & vocab.pool_words)


def _over_layers(iterable: ast.AST, vocab: _Vocabulary) -> bool:
    """`range(num_layers)`, `range(self.start_layer, self.end_layer)`, `group.layer_names`
    (ModuleAnalysis._in_layer_loop)."""
    words = set()
    for node in pyast.nodes(iterable):
        if type(node) is ast.Name:
            words |= set(node.id.lower().split("_"))
        elif type(node) is ast.Attribute:
            words |= set(node.attr.lower().split("_"))
    return bool(words & vocab.layer_words)


def _may_be_layer_stack(call: ast.Call, vocab: _Vocabulary) -> bool:
    """Might the analysis read this allocation as every layer's pool in one tensor
    (ModuleAnalysis._layer_stacked_allocation: a layer word written in its first dimension, a
    pool word in its second, or the other way round; no batch word)?"""
    size = next((k.value for k in call.keywords if k.arg == "size"), call.args[0] if call.args else None)
    dims = size.elts if type(size) in (ast.Tuple, ast.List) else [a for a in call.args if type(a) is not ast.Starred]
    if len(dims) < 2:
        return False
    words = []
    for dim in dims[:2]:
        parts = set()
        for node in pyast.nodes(dim):
            if type(node) is ast.Name:
                parts |= set(node.id.lower().split("_"))
            elif type(node) is ast.Attribute:
                parts |= set(node.attr.lower().split("_"))
        words.append(parts)
    if (words[0] | words[1]) & vocab.batch_words:
        return False
    return bool(words[0] & vocab.layer_words and words[1] & vocab.pool_words) or bool(
        words[0] & vocab.pool_words and words[1] & vocab.layer_words
    )


def _base_name(base: ast.AST) -> Optional[str]:
    if type(base) is ast.Subscript:  # Base[Meta]
        base = base.value
    return base.id if type(base) is ast.Name else base.attr if type(base) is ast.Attribute else None


def _held_conversion(node: ast.AST, vocab: _Vocabulary, called: Set[int], tree: ast.Module) -> bool:
    """partial(torch.Tensor.to, ...), getattr(x, "to"), map(torch.Tensor.float, ...), partial(helper, ...),
    or an unbound cast as a value (`[torch.Tensor.float, ...]`, `{"bf16": torch.Tensor.bfloat16}`) to be
    called later; called: id() of the callees seen so far (a walk meets a call before its callee)."""
    t = type(node)
    if t is ast.Attribute:
        return id(node) not in called and node.attr in vocab.casts and pyast.dotted(node.value) in vocab.unbound
    if t is not ast.Call:
        return False
    called.add(id(node.func))
    converters = vocab.casts | vocab.helpers
    callee = _callee_name(node.func)
    if callee == "getattr" and len(node.args) >= 2 and type(node.args[1]) is ast.Attribute:
        # getattr(x, self.CAST): a name held in an attribute the module assigns (ObjectFlow._chosen_strings) may
        # be a cast's or an accessor's (a pool read the taint does not see), when the module spells one
        return node.args[1].attr in _assigned_attributes(tree) and _spells_a_name(tree, converters | vocab.accessors)
    return callee in vocab.holders | {"map"} and any(
        (
            _callee_name(a) in converters
            and not (type(a) is ast.Name and a.id in _BUILTIN_NAMES)
            and not _dtype_spelling(a, vocab)
        )
        or (type(a) is ast.Constant and a.value in converters)
        for a in node.args
    )  # (`map(int, sizes)`: the builtin, no tensor's cast; `getattr(m, "dtype", torch.bfloat16)`: a dtype)


def _dtype_spelling(node: ast.AST, vocab: _Vocabulary) -> bool:
    """`torch.bfloat16`: a dtype ([dtype_spelling] torch_dtypes), not the cast method of that name."""
    text = pyast.dotted(node) if type(node) is ast.Attribute else None
    return text is not None and text.startswith("torch.") and text.split(".", 1)[1] in vocab.torch_dtypes


def _assigned_attributes(tree: ast.Module) -> Set[str]:
    """Attribute names the module assigns: `obj.x = ...` anywhere, and a class body's own names."""
    found = tree.__dict__.get("_castlint_assigned_attributes")
    if found is None:
        found = set()
        for n in pyast.nodes(tree):
            t = type(n)
            if t is ast.Attribute and type(n.ctx) is ast.Store:
                found.add(n.attr)
            elif t is ast.ClassDef:
                for stmt in n.body:
                    targets = (
                        stmt.targets
                        if type(stmt) is ast.Assign
                        else [stmt.target]
                        if type(stmt) is ast.AnnAssign
                        else []
                    )
                    found.update(target.id for target in targets if type(target) is ast.Name)
        tree._castlint_assigned_attributes = found
    return found


def _spells_a_name(tree: ast.Module, names: FrozenSet[str]) -> bool:
    """Can a string of the module spell one of names (ObjectFlow.constant_strings: what a getattr's name held
    in an attribute, a parameter or an enum may be): a string that is one, a piece of one over half its
    length (`"get_" + "buffers"`), or an f-string whose constant parts each spell part of one?"""
    spelled = tree.__dict__.setdefault("_castlint_spelled", {})
    found = spelled.get(names)
    if found is None:
        found = False
        for n in pyast.nodes(tree):
            if type(n) is ast.Constant and type(n.value) is str:
                piece = n.value
                found = piece in names or any(piece in name and 2 * len(piece) > len(name) for name in names)
            elif type(n) is ast.JoinedStr:
                parts = [p.value for p in n.values if type(p) is ast.Constant and type(p.value) is str and p.value]
                found = any(all(part in name for part in parts) for name in names)
            if found:
                break
        spelled[names] = found
    return found


def _passes_a_pool(module: "_ModuleUnits") -> bool:
    """Does some call of a method or function pass a pool read in its arguments (`self.m(pool.get_key_buffer(i))`)?"""
    found = getattr(module, "_passes", None)
    if found is None:
        found = module._passes = any(
            refs.base
            for unit in module.units
            for calls in (unit.self_calls, unit.name_calls, unit.object_method_calls)
            for _, positional, keywords in calls
            for _, refs in (*positional, *keywords)
        )
    return found


def _converting_defs(module: "_ModuleUnits") -> Set[str]:
    """Names of the module's defs (functions and methods) that hold a cast."""
    found = getattr(module, "_converting", None)
    if found is None:
        casts = module.vocab.casts
        found = {
            d.name
            for d in pyast.nodes(module.tree)
            if isinstance(d, _DEFS)
            and any(
                type(n) is ast.Call and type(n.func) is ast.Attribute and n.func.attr in casts for n in pyast.nodes(d)
            )
        }
        module._converting = found
    return found


def _holds_conversion(module: "_ModuleUnits") -> bool:
    called: Set[int] = set()
    return any(_held_conversion(n, module.vocab, called, module.tree) for n in pyast.nodes(module.tree))


def _callee_name(node: ast.AST) -> Optional[str]:
    return node.id if type(node) is ast.Name else node.attr if type(node) is ast.Attribute else None


def _store_root(holder: ast.AST, vocab: "_Vocabulary") -> Tuple[ast.AST, int]:
    """As ObjectFlow.store_root: the container a store into holder lands in, and how many
    containers deep (`d[g]`, `d.setdefault(g, {})`: one level into d)."""
    levels = 0
    while True:
        if type(holder) is ast.Subscript and type(holder.slice) is not ast.Slice:
            holder, levels = holder.value, levels + 1
        elif (
            type(holder) is ast.Call
            and type(holder.func) is ast.Attribute
            and holder.func.attr in vocab.element_methods
            and holder.args
        ):
            holder, levels = holder.func.value, levels + 1
        else:
            return holder, levels


def _is_super(node: ast.AST) -> bool:
    return type(node) is ast.Call and type(node.func) is ast.Name and node.func.id == "super"


def _names_accessor(node: ast.AST, vocab: _Vocabulary) -> bool:
    """A constant that names an accessor (`getattr(pool, "get_key_buffer")`), or a string built
    of pieces that may (`f"get_{kind}_buffer"`, `"get_" + self.PLANE + "_buffer"`)."""
    t = type(node)
    if t is ast.Constant:
        return node.value in vocab.accessors
    if t is ast.JoinedStr or (t is ast.BinOp and type(node.op) is ast.Add):
        pieces = [n.value for n in ast.walk(node) if type(n) is ast.Constant and type(n.value) is str and n.value]
        # a piece must say something (`"get_" + kind + "_buffer"`, not `name + "_" + key`)
        if not any(sum(c.isalnum() for c in p) >= 3 for p in pieces):
            return False
        return any(all(p in name for p in pieces) for name in vocab.accessors)
    return False


def _constant_text(node: ast.AST) -> Optional[str]:
    """The string a `+` of string constants folds to; None otherwise."""
    if type(node) is ast.Constant and type(node.value) is str:
        return node.value
    if type(node) is ast.BinOp and type(node.op) is ast.Add:
        left, right = _constant_text(node.left), _constant_text(node.right)
        return None if left is None or right is None else left + right
    return None


def _may_name_cache(node: ast.JoinedStr, vocab: _Vocabulary) -> bool:
    """Does an f-string's text say a cache or pool word (`f"{half}_pools"`, `f"{side}_buffer"`; not
    `f"{prefix}_weight"`)?"""
    words = {
        w.rstrip("s")
        for v in node.values
        if type(v) is ast.Constant and type(v.value) is str
        for w in v.value.lower().split("_")
        if len(w) > 1
    }
    return bool(words & vocab.cache_name_words)


def _names_cache_attribute(args, vocab: _Vocabulary) -> bool:
    """A constant naming a cache attribute, dotted or not (`attrgetter("pool.k_buffer")`)."""
    return any(
        type(a) is ast.Constant and type(a.value) is str and a.value.rsplit(".", 1)[-1] in vocab.cache_attributes
        for a in args
    )


def _getter_names(tree: ast.AST, source: bytes, vocab: _Vocabulary) -> frozenset:
    """Names bound to a getter (`_first = itemgetter(0)`, `read = methodcaller("m", i)`): a call
    of one hands back its argument or a part of it (the pruner flows the argument through)."""
    if not prefilter_has_trigger(source, ((vocab.getter_words,),)):
        return frozenset()
    out = set()
    for node in pyast.nodes(tree):
        if (
            type(node) is ast.Assign
            and type(node.value) is ast.Call
            and (_callee_name(node.value.func) or "").rsplit(".", 1)[-1] in vocab.getters
        ):
            out.update(t.id for t in node.targets if type(t) is ast.Name)
    return frozenset(out)


NAMED_ATTRIBUTE = "named:"  # aliases' prefix of `NAME=attr` for a name bound to a cache attribute's name


def _assignments(tree: ast.AST):
    """(targets, value) of every `a = b = v` and annotated `a: T = v` in tree."""
    for node in pyast.nodes(tree):
        if type(node) is ast.Assign:
            yield node.targets, node.value
        elif type(node) is ast.AnnAssign and node.value is not None:
            yield [node.target], node.value


def _attribute_name_constants(tree: ast.AST, source: bytes, vocab: _Vocabulary) -> frozenset:
    """`named:NAME=attr` for each name (a module's or class body's, or an attribute `obj.NAME`) every
    binding of which is one constant string naming a cache attribute (`CACHE_ATTR = "kv_cache"` for a
    later `getattr(layer, self.CACHE_ATTR)`: ObjectFlow.constant_strings folds the name)."""
    if b"getattr" not in source:
        return frozenset()
    bound: Dict[str, Set[object]] = {}
    for targets, value in _assignments(tree):
        text = value.value if type(value) is ast.Constant and type(value.value) is str else None
        for target in targets:
            name = target.id if type(target) is ast.Name else target.attr if type(target) is ast.Attribute else None
            if name is not None:
                bound.setdefault(name, set()).add(text)
    return frozenset(
        f"{NAMED_ATTRIBUTE}{name}={next(iter(texts))}"
        for name, texts in bound.items()
        if len(texts) == 1 and next(iter(texts)) in vocab.cache_attributes
    )


def _named_attribute(key: ast.AST, aliases) -> Optional[str]:
    """The cache attribute a getattr's name held in a name or attribute spells (_attribute_name_constants)."""
    name = key.id if type(key) is ast.Name else key.attr if type(key) is ast.Attribute else None
    if name is None:
        return None
    prefix = f"{NAMED_ATTRIBUTE}{name}="
    return next((a[len(prefix) :] for a in aliases if a.startswith(prefix)), None)


def _held_pool(args, vocab: _Vocabulary, out: "_Refs", tf: tuple) -> None:
    """getattr(pool, "k_buffer"): the cache attribute itself."""
    if any(
        type(a) is ast.Constant and type(a.value) is str and a.value.rsplit(".", 1)[-1] in vocab.cache_attributes
        for a in args
    ):  # attrgetter("pool.k_buffer") too
        out.base |= tf[CONTAINER | WHOLE]


def _base_only(node: ast.AST, vocab: _Vocabulary) -> bool:
    for n in _walk(node):
        t = type(n)
        if t is ast.Attribute and n.attr in vocab.cache_attributes:
            return True
        if (
            t is ast.Constant
            and type(n.value) is str
            and (_names_accessor(n, vocab) or n.value in vocab.cache_attributes)
        ):
            return True  # a name for getattr(pool, NAME)
        if t is ast.Call:
            func = n.func
            name = func.attr if type(func) is ast.Attribute else func.id if type(func) is ast.Name else None
            if name in vocab.accessors:
                return True
    return False


class _Unit:
    """One method or top-level function (or a class body's other statements, or the
    module's top-level statements).

    Names are local to a unit (a method sees its own locals and module globals,
    never another method's), so each unit has its own tainted names (a nested
    function's or lambda's are its enclosing unit's); self attributes are shared
    by the units of a class."""

    __slots__ = (
        "node",
        "cls",
        "assigns",
        "self_calls",
        "name_calls",
        "map_calls",
        "casts",
        "helpers",
        "copies",
        "plans",
        "names",
        "globals",
        "self_attrs",
        "returns",
        "defs",
        "calls_made",
        "value_attrs",
        "foreign_value_attrs",
        "kind_attrs",
        "kind_defs",
        "unpacked_defs",
        "attr_values",
        "object_calls",
        "object_method_calls",
        "made_attrs",
        "fn_values",
        "class_calls",
        "name_stores",
        "key_classes",
        "foreign_stores",
        "bound_attrs",
    )

    def __init__(self, node, cls=None):
        self.node = node
        self.cls = cls  # the ast.ClassDef a method (or class-body unit) belongs to
        # target names, target self attrs, value, how the value reaches them (KEEP, or ELEMENT
        # for unpacking and for targets)
        self.assigns: List[Tuple[Set[str], Set[str], _Refs, tuple]] = []
        # self.method(...) and f(...) calls: callee, [(position, argument)], [(keyword, argument)]
        self.self_calls: List[Tuple[str, List[Tuple[int, _Refs]], List[Tuple[str, _Refs]]]] = []
        self.name_calls: List[Tuple[str, List[Tuple[int, _Refs]], List[Tuple[str, _Refs]]]] = []
        # map(f, xs, ...): (f's name, or the lambda's parameters), [xs refs]
        self.map_calls: List[Tuple[object, List[_Refs]]] = []
        self.casts: List[Tuple[_Refs, object]] = []  # receivers of dtype-cast calls, where they sit
        self.helpers: List[List[_Refs]] = []
        self.copies: List[_Refs] = []  # sources of copy_() calls
        self.plans = 0
        self.names: Dict[str, int] = {}  # tainted names -> what they may hold (CONTAINER | WHOLE)
        self.globals: Set[str] = set()  # names declared global in it
        self.self_attrs: Set[str] = set()  # every x of self.x it mentions
        self.returns: Dict[str, List[_Refs]] = {}  # def (or named lambda) -> what it returns
        self.defs: Set[str] = set()  # functions and named lambdas it defines
        self.calls_made: Set[str] = set()  # f of f(...) and m of self.m(...)
        # self attributes whose assignments the analysis reads to tell a value's kind
        # (`.to(self.dev)`, `buf[self.start_layer]`, a cache attribute's allocation)
        self.value_attrs: Set[str] = set()
        self.foreign_value_attrs: Set[str] = set()  # cache attributes of another object
        # ... when the value beside them is tainted: (its refs, the attributes)
        self.kind_attrs: List[Tuple[_Refs, Set[str]]] = []
        # defs whose return a cast unpacks (`.to(**self._cast_kwargs(q))`): it decides the dtype
        self.kind_defs: Set[str] = set()
        # defs whose returned tuple it unpacks (`mgr, idx = self._where(meta)`): kept when they return a
        # tuple display, whose elements may tell an index's kind or an accessor's receiver
        self.unpacked_defs: Set[str] = set()
        self.attr_values: Dict[str, Set[str]] = {}  # self.x -> self attributes in its assigned values
        # every call as (callee name, receiver: "" | "self" | "object", the call), for _object_flow
        self.object_calls: List[Tuple[str, str, ast.Call]] = []
        # obj.m(...) and Cls.m(...) (not a tensor method): as self_calls, for a method of any class
        self.object_method_calls: List[Tuple[str, List[Tuple[int, _Refs]], List[Tuple[str, _Refs]]]] = []
        # self.x -> the names called in its assigned values (`self.caches = LayerCaches(engine)`):
        # a construction tells the analysis the object's class (ObjectFlow.instance_class)
        self.made_attrs: Dict[str, Set[str]] = {}
        # what its calls hand on that may be a function value: `self.m` and plain names (read
        # against the module's defs), "lambda" for a lambda argument (ModuleAnalysis.value_callers)
        self.fn_values: Set[str] = set()
        # `Base.m(self, kv)`, `type(self).m(obj, kv)`: (the class named, "" for type(x) / x.__class__,
        # m, the arguments after the first): an instance method called through a class, self passed
        self.class_calls: List[Tuple[str, str, List[Tuple[int, _Refs]], List[Tuple[str, _Refs]]]] = []
        # `d[k] = v`, `xs.append(v)` of a plain name: (the name, what v reads), for a module-level container
        self.name_stores: List[Tuple[str, _Refs]] = []
        # classes whose members key a registry lookup (`rm.get_resource_manager(Kind.DRAFT)`): their
        # values spell what the lookup returns, so the analysis reads their bodies
        self.key_classes: Set[str] = set()
        # `box.k = v`, `box.k, box.v = pair`, `ns.planes += (k,)` on an object other than self: (k, what v
        # reads); another unit's `box.k` reads it (ObjectFlow._external_stores)
        self.foreign_stores: List[Tuple[str, _Refs]] = []
        # the x of a `self.x` a slice's bound reads (`k[-self.window_blocks:]`): a class body's constant decides
        self.bound_attrs: Set[str] = set()


# name -> [(unit defining it, positional parameters, every parameter, is a method)]
Params = Dict[str, List[Tuple[_Unit, List[str], Set[str], bool]]]


def _parallel(target: ast.AST, value: ast.AST) -> bool:
    """`a, self.b = x, y`: a display assigned to a display of plain names and self attributes, element by element."""
    return (
        type(target) in (ast.Tuple, ast.List)
        and type(value) in (ast.Tuple, ast.List)
        and len(target.elts) == len(value.elts)
        and all(type(e) is ast.Name or (type(e) is ast.Attribute and _is_self(e.value)) for e in target.elts)
        and not any(type(e) is ast.Starred for e in value.elts)
    )


def _targets(node: ast.AST, names: Set[str], attrs: Set[str]) -> None:
    """The names and self attributes an assignment target binds or fills: `a`, `self.a`, the holder of
    `obj.a` and `d[k]` (obj, d: not the key k), each element of `a, *b`."""
    t = type(node)
    if t is ast.Name:
        names.add(node.id)
    elif t in (ast.Tuple, ast.List):
        for element in node.elts:
            _targets(element, names, attrs)
    elif t is ast.Starred:
        _targets(node.value, names, attrs)
    elif t is ast.Attribute:
        if type(node.value) is ast.Name and node.value.id in ("self", "cls"):
            attrs.add(node.attr)  # (`cls.x = v` in a classmethod: an attribute every instance reads)
        else:
            _targets(node.value, names, attrs)  # `rec.kv = pool`: rec holds it
    elif t is ast.Subscript:
        if type(node.value) is ast.Attribute and node.value.attr == "__dict__" and _str_constant(node.slice):
            attrs.add(node.slice.value)  # `self.__dict__["x"] = v`: self.x
        else:
            _targets(node.value, names, attrs)  # `d[k] = v`: d holds v


def _op_of(func: ast.AST, vocab: _Vocabulary) -> Optional[str]:
    """The op of `torch.ops.aten.<op>` or `torch.ops.aten.<op>.<overload>` (rules/accessors.toml
    [conversions] op_namespaces, by the namespace's last name: `aten._to_copy` of `from torch.ops import
    aten` too); None for any other callee (ModuleAnalysis.namespace_op)."""
    if type(func) is not ast.Attribute or not vocab.op_namespaces:
        return None
    text = pyast.dotted(func)
    if text is None:
        return None
    parts = text.split(".")
    for i in range(len(parts) - 2, max(len(parts) - 4, -1), -1):
        if parts[i] in vocab.op_namespaces:
            return parts[i + 1]
    return None


_ELEMENT_DISPLAYS = (ast.List, ast.Tuple, ast.ListComp, ast.GeneratorExp)
_WRITTEN_DATA = (ast.List, ast.Tuple, ast.Set, ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.Constant, ast.JoinedStr)


def _written_data(node: ast.AST, name: str, vocab: "_Vocabulary") -> bool:
    """Is a constructor's data written out (`torch.tensor([0, n], dtype=d)`, a comprehension of
    pointers, a number)? It builds a new tensor from Python values, no pool's copy
    (ModuleAnalysis.constructor_parts). An element constructor's display of tensors is not
    (`torch.nested.nested_tensor([k, v], dtype=d)`)."""
    if type(node) in _ELEMENT_DISPLAYS and name in vocab.element_constructors:
        return False
    return type(node) in _WRITTEN_DATA or (type(node) is ast.Starred)


def _unbound_call(call: ast.Call, vocab: _Vocabulary) -> bool:
    """`torch.Tensor.m(x, ...)` or an op of a namespace (`torch.ops.aten.m.default(x, ...)`): x is the receiver."""
    func = call.func
    if type(func) is not ast.Attribute:
        return False
    return _unbound_receiver(func.value, vocab) or _op_of(func, vocab) is not None


def _unbound_receiver(node: ast.AST, vocab: _Vocabulary) -> bool:
    """`torch.Tensor`, or the class of a value (`type(x)`, `x.__class__`): its methods take the tensor first."""
    if type(node) is ast.Call:
        return type(node.func) is ast.Name and node.func.id in vocab.class_of_functions and len(node.args) == 1
    if type(node) is ast.Attribute and node.attr in vocab.class_of_attributes:
        return True
    return pyast.dotted(node) in vocab.unbound


def _may_cast(call: ast.Call, name: str, vocab: _Vocabulary) -> bool:
    """False for calls ModuleAnalysis.cast_target never takes for a dtype cast, whatever
    its receiver: `.to("cpu")`, `.to(0)`, `.to(self.device, non_blocking=True)`,
    `.to(torch.device(...))`, `.float(x)`, `.type()`."""
    args = call.args
    if _unbound_call(call, vocab):
        args = args[1:]
    if name in vocab.bare_casts:
        return not args and not call.keywords
    words = vocab.cast_keywords.get(name, ())
    if name in vocab.arg_casts:
        return bool(args) or any(k.arg in words for k in call.keywords)
    if name not in vocab.to_casts:
        return True
    if any(k.arg in words or k.arg is None for k in call.keywords):
        return True  # `.to(dtype=...)`, `.to(other=q)`, or **kwargs that may hold one
    return bool(args) and not all(_device_spelling(arg, vocab) for arg in args)


def _device_spelling(node: ast.AST, vocab: _Vocabulary) -> bool:
    """An argument that ModuleAnalysis.value_kind calls a device by its spelling alone."""
    t = type(node)
    if t is ast.Constant:
        return type(node.value) in (str, int)  # a bool is a name there, a bytes literal a string
    if t is ast.JoinedStr:
        return True
    if t is ast.Call:
        text = pyast.dotted(node.func) or ""
        return text.rsplit(".", 1)[-1].endswith(vocab.device_call_suffixes)
    text = pyast.dotted(node)
    if text is None:
        return False
    last = text.rsplit(".", 1)[-1].lower()
    if (
        text.startswith("torch.")
        and text.split(".", 1)[1] in vocab.torch_dtypes
        or any(d in last for d in vocab.dtype_words)
    ):
        return False
    return any(d in last for d in vocab.device_words)


def _index_attrs(node: ast.AST) -> Set[str]:
    """The x of the self.x an index's value is read from: the index itself, through
    arithmetic and conditionals (not inside calls or nested subscripts)."""
    out: Set[str] = set()
    stack = [node]
    while stack:
        n = stack.pop()
        t = type(n)
        if t is ast.Attribute:
            if type(n.value) is ast.Name and n.value.id == "self":
                out.add(n.attr)
        elif t is ast.Tuple:
            stack.extend(n.elts)
        elif t is ast.BinOp:
            stack += [n.left, n.right]
        elif t is ast.UnaryOp:
            stack.append(n.operand)
        elif t is ast.IfExp:
            stack += [n.body, n.orelse]
    return out


def _slice_subscript(node: ast.Subscript) -> bool:
    """As castlint.analysis.tree.is_slice_subscript: `x[:]`, `x[..., :d]` (a tensor's index, not a key)."""
    parts = node.slice.elts if type(node.slice) is ast.Tuple else [node.slice]
    return any(type(p) is ast.Slice or (type(p) is ast.Constant and p.value is Ellipsis) for p in parts)


def _called_methods(node: ast.AST) -> Set[str]:
    """m of every `obj.m(...)` in node."""
    return {n.func.attr for n in _walk(node) if type(n) is ast.Call and type(n.func) is ast.Attribute}


def _self_attrs(node: ast.AST) -> Set[str]:
    return {
        n.attr for n in _walk(node) if type(n) is ast.Attribute and type(n.value) is ast.Name and n.value.id == "self"
    }


def _named_fields(loop, vocab: _Vocabulary) -> List[ast.Attribute]:
    """`rec.<name>` for each cache attribute a loop over a record's fields by name (`vars(rec).items()`,
    `rec.__dict__.items()`, `asdict(rec).items()`: [records] as_dict_*; `fields(rec)`, read back by
    `getattr(rec, f.name)`: [records] field_functions) compares its key with
    (NarrowingKeyTests.record_walk_named: the field of that name, whatever rec's class)."""
    record = _walked_record(loop.iter, vocab)
    if record is None:
        return []
    tests = loop.ifs if type(loop) is ast.comprehension else loop.body
    names = {
        c.value
        for part in tests
        for node in _walk(part)
        if type(node) is ast.Compare
        for c in _walk(node)
        if type(c) is ast.Constant and isinstance(c.value, str) and c.value in vocab.cache_attributes
    }
    return [ast.Attribute(value=record, attr=name, ctx=ast.Load()) for name in sorted(names)]


def _walked_record(it: ast.AST, vocab: _Vocabulary) -> Optional[ast.AST]:
    """The record whose fields a loop iterable walks by name (_named_fields), or None."""
    if type(it) is not ast.Call:
        return None
    if it.args and (_callee_name(it.func) or "").rsplit(".", 1)[-1] in vocab.field_functions:
        return it.args[0]  # `for f in dataclasses.fields(rec)`: getattr(rec, f.name)
    if type(it.func) is not ast.Attribute or it.args:
        return None
    source = it.func.value  # `<source>.items()`
    if type(source) is ast.Attribute and source.attr in vocab.field_readers:
        return source.value  # rec.__dict__
    if type(source) is ast.Call and type(source.func) is ast.Attribute and source.func.attr in vocab.field_readers:
        return source.func.value  # rec._asdict()
    if (
        type(source) is ast.Call
        and source.args
        and (_callee_name(source.func) or "").rsplit(".", 1)[-1] in vocab.field_readers
    ):
        return source.args[0]  # vars(rec), dataclasses.asdict(rec)
    return None


def _walks_named_fields(stmt: ast.AST, vocab: _Vocabulary) -> bool:
    """Does stmt walk a record's fields by name testing the name against a cache attribute (_named_fields)?
    The field is read only by its name in a string, which the gate's words do not see."""
    return any(type(n) in (ast.For, ast.AsyncFor, ast.comprehension) and _named_fields(n, vocab) for n in _walk(stmt))


def _foreign_attrs(node: ast.AST) -> Set[str]:
    """The attribute `obj.x` reads of an object other than self (none for `self.x` or any other node)."""
    if type(node) is ast.Attribute and not _is_self(node.value):
        return {node.attr}
    return set()


def _register(
    unit: _Unit, name: str, args: ast.arguments, params: Params, is_method: bool, vocab: _Vocabulary, node=None
) -> None:
    positional = [p.arg for p in args.posonlyargs + args.args]
    every = set(positional) | {p.arg for p in args.kwonlyargs}
    if args.vararg is not None:  # *args: every further positional argument lands in it (marked "*name")
        every.add("*" + args.vararg.arg)
    if args.kwarg is not None:  # **kwargs: every other keyword lands in it (marked "**name")
        every.add("**" + args.kwarg.arg)
    params.setdefault(name, []).append((unit, positional, every, is_method))
    unit.defs.add(name)
    for conv_params, requires, levels in vocab.conventions.get(name, ()):
        if requires <= every:
            for param in conv_params & every:  # an engine fills it with a whole cache
                unit.names[param] = unit.names.get(param, 0) | levels
        if args.kwarg is not None and node is not None and _reads_keyword(node, conv_params - every):
            # `def forward(self, **kwargs)`: `kwargs["past_key_values"]` is the convention's parameter (the
            # analysis's kwargs_convention_rows); its other parameters may ride in the same **kwargs
            unit.names[args.kwarg.arg] = unit.names.get(args.kwarg.arg, 0) | CONTAINER
    for param in vocab.cache_parameter_names & every:  # `def bind(cls, gpu_cache)`: caches by the name
        unit.names[param] = unit.names.get(param, 0) | CONTAINER


def _collect(
    unit: _Unit,
    vocab: _Vocabulary,
    params: Params,
    aliases=frozenset(),
    helper_aliases=frozenset(),
    fn_aliases: Optional[Dict[str, Set[str]]] = None,
    method_names: frozenset = frozenset(),
) -> None:
    """Fill unit with what the taint fixpoint reads: every node under it, with its owner
    (the function whose return statements it is in) and its path: where its statement
    sits, ((block, index, kind), ...) from the function body inwards (kind: "" the body of
    an if or with, "loop" a loop body, "stop" any other block, whose predecessors are not
    read), or None inside a lambda or comprehension (another scope).

    One explicit stack, node kinds dispatched inline by frequency: this loop is most of
    planning after ast.parse."""
    collector = _Collector(unit, vocab, params, aliases, helper_aliases, fn_aliases)
    collector.method_names = method_names
    root = unit.node
    stack = [(root, root.name if type(root) in _DEFS else None, ())]
    pop, push, AST, fields, inert = stack.pop, stack.append, ast.AST, pyast.CHILD_FIELDS, _INERT
    Attribute, Call, Assign, Subscript = ast.Attribute, ast.Call, ast.Assign, ast.Subscript
    while stack:
        n, owner, path = pop()
        t = type(n)
        if t is Attribute:
            if type(n.value) is ast.Name and n.value.id == "self":
                unit.self_attrs.add(n.attr)
                if n.attr in vocab.cache_attributes:
                    unit.value_attrs.add(n.attr)  # its allocation decides what it is
                elif _named_attribute(n, aliases) is not None:
                    unit.value_attrs.add(n.attr)  # `self.field = "gpu_cache"` for a getattr: who binds it
                elif KEEPING in aliases and "self." + n.attr in aliases:
                    unit.value_attrs.add(n.attr)  # `self.merge = nn.Flatten(0, 1)`: what a call of it hands back
            elif n.attr in vocab.cache_attributes:
                unit.foreign_value_attrs.add(n.attr)  # `self.draft.kv_buffer`: its class's allocation decides
                holder = n.value
                if type(holder) is Attribute and type(holder.value) is ast.Name and holder.value.id == "self":
                    unit.value_attrs.add(holder.attr)  # and what `self.draft` is constructed as
        elif t is Call:
            collector.call(n, path)
        elif t is Assign:
            collector.assign(n, path)
        elif t is Subscript:
            collector.subscript(n)
        elif t is ast.Return:
            if owner is not None and n.value is not None:
                unit.returns.setdefault(owner, []).append(_refs(n.value, vocab, aliases))
        elif t is ast.Yield or t is ast.YieldFrom:
            if owner is not None and n.value is not None:  # a generator: iterating it reads what it yields
                tf = KEEP if t is ast.YieldFrom else PACKED
                unit.returns.setdefault(owner, []).append(_refs(n.value, vocab, aliases, tf))
        elif t in _DEFS:
            collector.define(n)
            if n is not root:  # its children: its own returns and block paths
                owner, path = n.name, ()
        elif t is ast.AnnAssign or t is ast.NamedExpr:
            collector.annotated_assign(n)
        elif t is ast.AugAssign and type(n.target) is Attribute:
            if (
                type(n.op) is ast.Add
                and type(n.value) in (ast.List, ast.Tuple, ast.ListComp)
                and _is_self(n.target.value)
            ):
                collector.annotated_assign(
                    n
                )  # `self.records += [...]`: the list holds these too (as the analysis reads)
            else:
                collector.foreign_store(n.target, collector.refs(n.value))  # `ns.planes += (k,)`
        elif t is ast.For or t is ast.AsyncFor or t is ast.comprehension:
            collector.loop_target(n)
        elif t is ast.Match:
            collector.match(n)
        elif t is ast.With or t is ast.AsyncWith:
            collector.with_items(n)
        elif t is ast.Global:
            unit.globals.update(n.names)
        elif t is ast.Lambda or t is ast.ClassDef:
            if t is ast.Lambda:
                collector.defaults(n.args)
            if n is not root:
                owner = None
            if t is ast.Lambda:
                path = None  # another scope
        elif t in _COMPREHENSIONS:
            path = None  # another scope
        names = fields.get(t)
        if names is None:
            names = pyast.child_fields(t)
        for child_field in names:
            value = getattr(n, child_field, None)
            if type(value) is list:
                if path is not None and child_field in _BODIES and value and isinstance(value[0], ast.stmt):
                    if child_field == "body" and t in (ast.For, ast.AsyncFor, ast.While):
                        kind = "loop"
                        if t is ast.For and _over_layers(n.iter, vocab):
                            collector.layer_loops.add(id(value))
                    elif t in (ast.If, ast.With, ast.AsyncWith):
                        kind = ""
                    else:
                        kind = "stop"
                    for i, item in enumerate(value):
                        push((item, owner, path + ((value, i, kind),)))
                    continue
                for item in value:
                    if type(item) not in inert and isinstance(item, AST):
                        push((item, owner, path if path is None or not isinstance(item, ast.stmt) else None))
            elif type(value) not in inert and isinstance(value, AST):
                push((value, owner, path))


class _Collector:
    """What _collect records for the node kinds that need more than a line. Bindings are
    what ModuleAnalysis binds: =, annotated =, :=, for and comprehension targets (a
    with/except target or an augmented assignment has origin OTHER)."""

    __slots__ = (
        "unit",
        "vocab",
        "params",
        "aliases",
        "helper_aliases",
        "fn_aliases",
        "method_node",
        "layer_loops",
        "method_names",
    )

    def __init__(self, unit: _Unit, vocab: _Vocabulary, params: Params, aliases, helper_aliases, fn_aliases=None):
        self.unit, self.vocab, self.params = unit, vocab, params
        self.aliases, self.helper_aliases = aliases, helper_aliases
        self.fn_aliases = {} if fn_aliases is None else fn_aliases  # name -> the function names it may hold
        self.method_node = unit.node if unit.cls is not None and type(unit.node) in _DEFS else None
        self.layer_loops: Set[int] = set()  # id(body) of `for ... in range(<layer word>)` loops
        self.method_names: frozenset = frozenset()  # _ModuleUnits.method_names

    def refs(self, node: ast.AST) -> _Refs:
        return _refs(node, self.vocab, self.aliases)

    def assign(self, n: ast.Assign, path=None) -> None:
        unit = self.unit
        value = self.refs(n.value)
        if (
            path
            and any(id(block) in self.layer_loops for block, _, _ in path)
            and any(type(t) in (ast.Name, ast.Subscript) for t in n.targets)
        ):
            value = self.stored(n.value)  # `k = torch.empty((num_blocks, ...))` once per layer (`self.d[i] = ...`)
        # a function stored as a value (`self.read = helper`, `{"k": helper}`) runs where it is called
        unit.calls_made.update(name for name, _ in value.calls)
        if any(type(target) in (ast.Tuple, ast.List) for target in n.targets):
            self.unpacking(value, n.value)
        attrs: Set[str] = set()
        for target in n.targets:
            self.foreign_store(target, value)
            one_names, one_attrs = set(), set()
            if _parallel(target, n.value):
                # `a, self.b = x, y`: each target holds its own element (ModuleAnalysis binds them by position)
                for element, part in zip(target.elts, n.value.elts):
                    _targets(element, one_names, one_attrs)
                    names, part_attrs = set(), set()
                    _targets(element, names, part_attrs)
                    unit.assigns.append((names, part_attrs, self.refs(part), KEEP))
                attrs |= one_attrs
                continue
            _targets(target, one_names, one_attrs)
            unpacked = type(target) not in (ast.Name, ast.Attribute) and not (
                type(target) is ast.Subscript
                and type(target.value) is ast.Attribute
                and target.value.attr == "__dict__"
            )
            unit.assigns.append((one_names, one_attrs, value, ELEMENT if unpacked else KEEP))
            if type(target) is ast.Subscript and type(target.value) is ast.Name:  # d[k] = v: d holds v
                unit.assigns.append(({target.value.id}, set(), self.stored(n.value), PACKED))
                unit.name_stores.append((target.value.id, value))
            elif type(target) is ast.Subscript and type(target.value) is ast.Attribute and _is_self(target.value.value):
                # self.d[k] = v: self.d holds v (ObjectFlow.grown_attributes); its display decides which key
                # holds what (ObjectFlow.keyed_values)
                unit.assigns.append((set(), {target.value.attr}, value, PACKED))
                if _str_key(target.slice):
                    unit.value_attrs.add(target.value.attr)
            elif type(target) is ast.Subscript and type(target.value) in (ast.Subscript, ast.Call):
                # d[g][k] = v, self.d.setdefault(g, {})[k] = v: d holds containers that hold v
                holder, levels = _store_root(target.value, self.vocab)
                if levels and type(holder) is ast.Name:
                    unit.assigns.append(({holder.id}, set(), self.stored(n.value), NESTED))
                elif levels and type(holder) is ast.Attribute and _is_self(holder.value):
                    unit.assigns.append((set(), {holder.attr}, value, NESTED))
                    # what else self.d is assigned decides whether its keys are read from these stores
                    # alone (ObjectFlow._fresh_container)
                    unit.value_attrs.add(holder.attr)
            if type(target) is ast.Subscript and _slice_subscript(target):  # `buf[:] = pool`: a copy
                self.copy(target.value, n.value)
            attrs |= one_attrs
        if attrs:
            inner = _self_attrs(n.value)
            made = {c.func.id for c in _walk(n.value) if type(c) is ast.Call and type(c.func) is ast.Name}
            if type(n.value) is ast.Name:  # `self.pool = pool` of `pool: LatentPool`: the class it names
                made |= _annotated_names(unit.node, n.value.id)
            for attr in attrs:
                unit.attr_values.setdefault(attr, set()).update(inner)
                if made:
                    unit.made_attrs.setdefault(attr, set()).update(made)
        self.alias(n.targets, n.value)
        if type(n.value) is ast.Lambda:
            for target in n.targets:
                if type(target) is ast.Name:
                    _register(unit, target.id, n.value.args, self.params, False, self.vocab, n.value)
                    unit.returns.setdefault(target.id, []).append(self.refs(n.value.body))

    def foreign_store(self, target: ast.AST, value: _Refs) -> None:
        """The attributes of objects other than self that target stores (each element of an unpacking)."""
        t = type(target)
        if t is ast.Attribute:
            if type(target.value) is ast.Name and target.value.id not in ("self", "cls"):
                self.unit.foreign_stores.append((target.attr, value))
        elif t is ast.Tuple or t is ast.List:
            for element in target.elts:
                self.foreign_store(element, value)
        elif t is ast.Starred:
            self.foreign_store(target.value, value)

    def unpacking(self, refs: _Refs, value: ast.AST) -> None:
        """`k, v = obj`: obj's class's `__iter__` hands back what is unpacked (ObjectFlow.protocol_elements);
        `mgr, idx = self._where(meta)`: what the helper returns, by position, may tell an index's kind or an
        accessor's receiver (ModuleAnalysis.index_kind, _spellings): the helper is kept with the unit."""
        for hook in self.vocab.iter_hooks:
            refs.calls.add((hook, KEEP))
            self.unit.calls_made.add(hook)
        if type(value) is ast.Call:
            func = value.func
            if type(func) is ast.Name:
                self.unit.unpacked_defs.add(func.id)
            elif type(func) is ast.Attribute and (_is_self(func.value) or _is_super(func.value)):
                self.unit.unpacked_defs.add(func.attr)

    def with_items(self, n) -> None:
        """`with cm as x`: x is what entering cm gives (ModuleAnalysis.entered_value): the value
        `nullcontext(v)` holds (a through function), what its class's `__enter__` returns."""
        for item in n.items:
            if item.optional_vars is None:
                continue
            names, attrs = set(), set()
            _targets(item.optional_vars, names, attrs)
            refs = self.refs(item.context_expr)
            for hook in self.vocab.context_hooks:
                refs.calls.add((hook, KEEP))
                self.unit.calls_made.add(hook)
            unpacked = type(item.optional_vars) in (ast.Tuple, ast.List)
            if unpacked:
                self.unpacking(refs, item.context_expr)
            self.unit.assigns.append((names, attrs, refs, ELEMENT if unpacked else KEEP))

    def stored(self, value: ast.AST) -> _Refs:
        """What storing value into a container reads: an allocation whose first dimension may be a
        pool's is one layer's pool there, when stored in a loop (ModuleAnalysis._arena_allocation)."""
        refs = self.refs(value)
        parts = value.elts if type(value) in (ast.Tuple, ast.List) else [value]  # a (k, v) pair of them too
        if any(
            type(part) is ast.Call
            and _callee_name(part.func) in self.vocab.allocations
            and _may_be_arena(part, self.vocab)
            for part in parts
        ):
            refs.base |= WHOLE
        return refs

    def alias(self, targets, value: ast.AST) -> None:
        """`_up = _up_impl`, `_up = torch.compile(_up_impl)`: calls of _up run _up_impl (fn_aliases;
        `self.up = ...` under the key ".up": `self.up(kv)`, `obj.up(kv)`)."""
        choices = _callable_choices(value, self.vocab)
        if choices is not None:  # `up = _up_kernel if fast else _up_torch`, `(self._a, self._b)[flag]`: any one
            for choice in choices:
                self.alias(targets, choice)
            return
        held = _stand_in_for(value, self.vocab) or _templated_self_method(value)
        if held is None:
            return
        for target in targets:
            if type(target) is ast.Name and target.id != held:
                self.fn_aliases.setdefault(target.id, set()).add(held)
            elif type(target) is ast.Attribute and held != "self." + target.attr:
                self.fn_aliases.setdefault("." + target.attr, set()).add(held)

    def annotated_assign(self, n) -> None:
        """`x: T = value` and `(x := value)`."""
        if n.value is not None:
            self.alias([n.target], n.value)
            names, attrs = set(), set()
            _targets(n.target, names, attrs)
            value = self.refs(n.value)
            self.unit.assigns.append((names, attrs, value, KEEP))
            self.foreign_store(n.target, value)
            for attr in attrs:
                self.unit.attr_values.setdefault(attr, set()).update(_self_attrs(n.value))

    def loop_target(self, n) -> None:
        """A for loop's or a comprehension's target, bound to an element of what it iterates."""
        names, attrs = set(), set()
        _targets(n.target, names, attrs)
        iter_refs = self.refs(n.iter)
        vocab, aliases = self.vocab, self.aliases
        if type(n.iter) is ast.Name and type(n.target) is ast.Name and _constant_index(n.target, aliases):
            self.unit.key_classes.add(n.iter.id)  # `for kind in KV`: the members it takes
        for hook in vocab.iter_hooks:  # `for x in obj`: what obj's class's __iter__ hands back
            iter_refs.calls.add((hook, KEEP))
            self.unit.calls_made.add(hook)
        for inner in _walk(n.iter):  # zip(a, b), enumerate(x), list(x), d.values(): what they iterate
            if type(inner) is ast.Call:
                for arg in inner.args:
                    _flow(arg, vocab, aliases, iter_refs, KEEP)
                if type(inner.func) is ast.Attribute:
                    _flow(inner.func.value, vocab, aliases, iter_refs, KEEP)
        for walked in _named_fields(n, vocab):  # `for k, v in vars(rec).items(): if k == "kv_cache"`: rec.kv_cache
            _flow(walked, vocab, aliases, iter_refs, KEEP)
        self.unit.assigns.append((names, attrs, iter_refs, ELEMENT))

    def match(self, n: ast.Match) -> None:
        """Names a `case` pattern binds: parts of the subject (ModuleAnalysis._matched_value), read
        as what the subject holds at any depth, and a class pattern's keywords as its attributes."""
        vocab, aliases = self.vocab, self.aliases
        for case in n.cases:
            names: Set[str] = set()
            refs = self.refs(n.subject)
            for p in ast.walk(case.pattern):
                t = type(p)
                if t in (ast.MatchAs, ast.MatchStar) and p.name:
                    names.add(p.name)
                elif t is ast.MatchMapping and p.rest:
                    names.add(p.rest)
                elif t is ast.MatchClass:
                    for attr in p.kwd_attrs:
                        _flow(ast.Attribute(value=n.subject, attr=attr, ctx=ast.Load()), vocab, aliases, refs, KEEP)
            if names:
                self.unit.assigns.append((names, set(), refs, NESTED))

    def define(self, n) -> None:
        _register(self.unit, n.name, n.args, self.params, n is self.method_node, self.vocab, n)
        self.defaults(n.args)
        self.unit.returns.setdefault(n.name, [])
        for decorator in n.decorator_list:  # an overload of a generic function: its calls reach this def
            head = decorator.func if type(decorator) is ast.Call else decorator
            if (
                type(head) is ast.Attribute
                and head.attr in self.vocab.dispatch_registers
                and type(head.value) is ast.Name
            ):
                # (a method's: `@_dense.register def _(self, x)` of a singledispatchmethod, fed by `self._dense(x)`)
                _register(self.unit, head.value.id, n.args, self.params, n is self.method_node, self.vocab, n)

    def subscript(self, n: ast.Subscript) -> None:
        """An index's value: a layer id or indices (ModuleAnalysis.index_kind reads self.x)."""
        self.unit.calls_made.add("__getitem__")  # obj[k] may run a __getitem__ of the module
        self.unit.calls_made.update(self.vocab.missing_hooks)
        attrs = {a for a in _index_attrs(n.slice) if a not in self.vocab.scalar_attributes}
        if attrs:
            self.unit.kind_attrs.append((self.refs(n.value), attrs))
        first = n.slice.elts[0] if type(n.slice) is ast.Tuple and n.slice.elts else n.slice
        for part in n.slice.elts if type(n.slice) is ast.Tuple else (n.slice,):
            if type(part) is ast.Slice:  # (ModuleAnalysis._class_constant reads a class body's value)
                for bound in (part.lower, part.upper):
                    if bound is not None:
                        self.unit.bound_attrs |= _index_attrs(bound)
        if type(first) is ast.Attribute and _constant_index(first, self.aliases):
            self.unit.key_classes.add(pyast.dotted(first.value) or "")  # `kv[KV.KEY]`: KV's body decides
        if type(n.slice) in (ast.Name, ast.Attribute) and type(n.ctx) is ast.Load:
            # `pool.layer_id_map[layer.layer_id]` may be a layer index: the dict's values decide
            # (ModuleAnalysis._dict_value_kind), whichever module class assigns that attribute
            self.unit.foreign_value_attrs |= _foreign_attrs(n.value)

    def call(self, n: ast.Call, path) -> None:
        func, unit, vocab = n.func, self.unit, self.vocab
        if type(func) is ast.Lambda:  # `(lambda t: t.half())(pool)`: its parameters take the arguments
            self.lambda_call(func, n)
        for applied in _applied_calls(n, vocab):  # `executor.submit(f, kv)`: f(kv), as the analysis runs it
            if type(applied.func) is ast.Lambda:
                self.lambda_call(applied.func, applied)
            else:
                self.call(applied, path)
        unwrapped = _unwrapped_call(n, vocab)
        if unwrapped is not None:  # `type(self).m.__wrapped__(self, kv)`: m's def, self passed
            self.call(unwrapped, path)
        self.object_call(n)
        self.handed_functions(n)
        for arg in (*n.args, *(k.value for k in n.keywords)):  # a callback, hook or visitor handed on
            t = type(arg)
            if t is ast.Attribute and type(arg.value) is ast.Name and arg.value.id == "self":
                unit.fn_values.add(arg.attr)
            elif t is ast.Name:
                unit.fn_values.add(arg.id)
            elif t is ast.Lambda and not (
                (_callee_name(func) in vocab.appliers and arg is n.args[0])
                or (_callee_name(func) in vocab.typed_appliers and len(n.args) > 1 and arg is n.args[1])
            ):
                unit.fn_values.add("lambda")
        unit.calls_made.add("__call__")  # a call of an object may run a __call__ of the module
        name = None
        if type(func) is ast.Attribute:
            name = func.attr
            if name in vocab.keyed_lookups and n.args and type(n.args[0]) is ast.Attribute:
                unit.key_classes.add(pyast.dotted(n.args[0].value) or "")
            op = _op_of(func, vocab)
            if op is not None:  # `torch.ops.aten._to_copy.default(x, dtype=d)`: x._to_copy(dtype=d)
                if op in vocab.casts and _may_cast(n, op, vocab) and n.args:
                    self.unit.casts.append((self.refs(n.args[0]), path))
                return
            if name in vocab.casts and _may_cast(n, name, vocab):
                self.cast(n, path)
            elif name in vocab.constructors and n.args and not _written_data(n.args[0], name, vocab):
                self.unit.casts.append((self.refs(n.args[0]), path))
            elif name in vocab.dtype_arguments and any(k.arg in vocab.dtype_argument_keywords for k in n.keywords):
                self.unit.casts.append((self.refs(func.value), path))  # `pool.sum(dtype=d)`
                if n.args:  # `torch.sum(pool, dtype=d)`
                    self.unit.casts.append((self.refs(n.args[0]), path))
            if name in vocab.copies and (n.args or n.keywords):
                if _unbound_receiver(func.value, vocab):  # `torch.Tensor.copy_(buf, pool)`
                    buffer, rest = (n.args[0], n.args[1:]) if n.args else (None, [])
                else:
                    buffer, rest = func.value, n.args
                source = rest[0] if rest else (n.keywords[0].value if n.keywords else None)
                if buffer is not None and source is not None:
                    self.copy(buffer, source)
            if (type(func.value) is ast.Name and func.value.id == "self") or _is_super(func.value):
                unit.self_calls.append((name,) + _call_args(n, vocab, self.aliases))
                unit.calls_made.add(name)
            elif name not in vocab.tensor_methods or name in self.method_names:  # obj.m(...), Cls.m(...)
                unit.object_method_calls.append((name,) + _call_args(n, vocab, self.aliases))
                unit.calls_made.add(name)
                owner = _class_spelling(func.value)
                if owner is not None and n.args and type(n.args[0]) is not ast.Starred:
                    positional, keywords = unit.object_method_calls[-1][1:]
                    shifted = [(i - 1, refs) for i, refs in positional if i > 0]
                    unit.class_calls.append((owner, name, shifted, keywords))
            if name in vocab.wrapper_methods:
                unit.plans += 1
        elif type(func) is ast.Name:
            name = func.id
            if name in vocab.constructors and n.args and not _written_data(n.args[0], name, vocab):
                self.unit.casts.append((self.refs(n.args[0]), path))
            elif (
                name in vocab.dtype_arguments
                and n.args
                and any(k.arg in vocab.dtype_argument_keywords for k in n.keywords)
            ):  # `softmax(pool, -1, dtype=d)` of `from torch.nn.functional import softmax`
                self.unit.casts.append((self.refs(n.args[0]), path))
            if name in vocab.wrapper_functions:
                unit.plans += 1
            self.name_call(n, name)
        elif _templated_self_method(func) is not None:  # `getattr(self, f"_forward_{phase}")(...)`
            held = _templated_self_method(func)
            self.fn_aliases.setdefault(held + "()", set()).add(held)
            self.name_call(n, held + "()")
        elif _callable_choices(func, vocab) is not None:  # `(self._paged, self._whole)[dense](...)`: any one
            chosen = f"<choice {func.lineno}:{func.col_offset}>"
            self.alias([ast.Name(id=chosen, ctx=ast.Store())], func)
            self.name_call(n, chosen)
        if name in vocab.helpers or name in self.helper_aliases:
            positional, keywords = _call_args(n, vocab, self.aliases)
            unit.helpers.append([r for _, r in positional] + [r for _, r in keywords])
        if name in vocab.attribute_setters or name in vocab.object_setters:
            self.attribute_store(n)
        elif name in vocab.grow_pairs and type(func) is ast.Attribute and _self_namespace(func.value, vocab):
            # `self.__dict__.update({...})`, `vars(self).update(q=d)`: stores under names (ObjectFlow
            # _namespace_updates): any self attribute
            for value in [*n.args, *(k.value for k in n.keywords)]:
                self.unit.assigns.append((set(), {ANY_ATTR}, self.refs(value), KEEP))
        if name in vocab.arity_accessors and n.args and type(func) is ast.Attribute:
            # the index's kind (a loop over `self.layer_ids`, a parameter) decides whether it is one:
            # the self attributes the unit reads keep their assignments (ModuleAnalysis.index_kind)
            unit.value_attrs |= _self_attrs(unit.node)
        if (name in vocab.arity_accessors or name in vocab.accessor_receivers) and type(func) is ast.Attribute:
            # `st.mgr.get_buffers(st.layer)`: what the other object's class assigns those attributes tells
            # the receiver's spelling and the index's kind (ModuleAnalysis._spellings, index_kind)
            spelled = vocab.accessor_receivers.get(name, frozenset()) | vocab.scalar_attributes
            for part in (func.value, *n.args):
                unit.foreign_value_attrs |= _foreign_attrs(part) - spelled
        if name in vocab.grow_functions and len(n.args) >= 2 and type(n.args[0]) in (ast.Attribute, ast.Name):
            # `heapq.heappush(self.heap, item)`: the first argument holds the last
            holder = n.args[0]
            if type(holder) is ast.Attribute:
                unit.assigns.append((set(), _self_attrs(holder), self.refs(n.args[-1]), PACKED))
            else:
                unit.assigns.append(({holder.id}, set(), self.stored(n.args[-1]), PACKED))
        if name in vocab.folds and _fold_args(n, vocab) is not None:
            self.fold(_fold_args(n, vocab))
        if type(func) is ast.Attribute and name in vocab.appliers and n.args:
            self.applied(n)  # `pytree.tree_map(f, tree)`
        if name in vocab.typed_appliers and len(n.args) > 1:
            self.applied(n, 1)  # `tree_map_only(torch.Tensor, f, tree)`
        if name in vocab.grow_methods and n.args and type(func) is ast.Attribute:
            # self.groups[gid].append(v), self.groups.setdefault(gid, []).append(v): a container of
            # containers (ObjectFlow.grown_attributes)
            holder, levels = _store_root(func.value, vocab)
            nested = levels > 0
            attrs = _self_attrs(holder) if type(holder) is ast.Attribute else set()
            value = n.args[-1] if name in vocab.grow_last else n.args[0]
            level = NESTED if nested else KEEP if name in vocab.grow_many else PACKED
            if attrs:  # self.x.append(v): self.x now holds v
                unit.assigns.append((set(), attrs, self.refs(value), level))
                if nested:  # (ObjectFlow._fresh_container reads what else self.x is assigned)
                    unit.value_attrs |= attrs
            elif type(holder) is ast.Name:  # xs.append(v) of a local list (ObjectFlow.filled_values)
                unit.assigns.append(({holder.id}, set(), self.stored(value), level))
                in_layers = path and any(id(block) in self.layer_loops for block, _, _ in path)
                unit.name_stores.append((holder.id, self.stored(value) if in_layers else self.refs(value)))

    def handed_functions(self, n: ast.Call) -> None:
        """`super().__init__(reader=self._widen)`, `Worker(self._widen)`: the callee's parameter holds the
        function (fn_aliases under "#kw#<keyword>" or "#<callee>#<position>#<m|f>", resolved against the
        module's defs by _handed_aliases)."""
        func = n.func
        callee = func.attr if type(func) is ast.Attribute else func.id if type(func) is ast.Name else None
        if callee is None:
            return
        for i, arg in enumerate(n.args):
            if type(arg) is ast.Starred:
                break
            held = _function_spelling(arg)
            if held is not None:
                kind = "m" if type(func) is ast.Attribute else "f"
                self.fn_aliases.setdefault(f"#{callee}#{i}#{kind}", set()).add(held)
        for keyword in n.keywords:
            held = _function_spelling(keyword.value) if keyword.arg is not None else None
            if held is not None:
                self.fn_aliases.setdefault("#kw#" + keyword.arg, set()).add(held)

    def defaults(self, args: ast.arguments) -> None:
        """A parameter holds its default when a call leaves it out (`lambda b=mgr.get_buffers(i): b.to(dt)`)."""
        positional = args.posonlyargs + args.args
        pairs = list(zip(positional[len(positional) - len(args.defaults) :], args.defaults))
        pairs += [(p, d) for p, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None]
        for param, default in pairs:
            self.unit.assigns.append(({param.arg}, set(), self.refs(default), KEEP))

    def lambda_call(self, func: ast.Lambda, n: ast.Call) -> None:
        """A lambda called where it is made (or by a runner): its parameters are names of this unit."""
        params = [p.arg for p in func.args.posonlyargs + func.args.args]
        for name, arg in zip(params, n.args):
            if type(arg) is not ast.Starred:
                self.unit.assigns.append(({name}, set(), self.refs(arg), KEEP))
        for keyword in n.keywords:
            if keyword.arg in params:
                self.unit.assigns.append(({keyword.arg}, set(), self.refs(keyword.value), KEEP))

    def attribute_store(self, n: ast.Call) -> None:
        """`setattr(self, "k", v)`, `self.register_buffer("k", v)`: self.k holds v; a name that is no
        literal (`setattr(self, _SLOTS[1], v)`, `setattr(self, name, v)`) may be any attribute."""
        args = _setter_args(n, self.vocab)
        if args is None:
            return
        if len(args) < 2 or any(type(a) is ast.Starred for a in args[:2]):
            return
        key = args[0]
        attr = key.value if _str_constant(key) else ANY_ATTR
        self.unit.assigns.append((set(), {attr}, self.refs(args[1]), KEEP))

    def object_call(self, n: ast.Call) -> None:
        func = n.func
        if type(func) is ast.Attribute:
            owner = func.value
            mine = (type(owner) is ast.Name and owner.id == "self") or (
                type(owner) is ast.Call and type(owner.func) is ast.Name and owner.func.id == "super"
            )
            receiver, name = ("self" if mine else "object"), func.attr
        elif type(func) is ast.Name:
            receiver, name = "", func.id
        else:
            return
        self.unit.object_calls.append((name, receiver, n))

    def copy(self, buffer: ast.AST, source: ast.AST) -> None:
        """`buffer.copy_(source)`, `buffer[:] = source`: a conversion when source is a whole pool and
        buffer is allocated in another dtype (its allocation, the pool's accessor, decide)."""
        unit = self.unit
        unit.copies.append(self.refs(source))
        unit.calls_made.update(_called_methods(source))  # `mgr.get_buffers(i)`: its dtype is what it returns
        attrs = _self_attrs(buffer)  # the buffer's allocated dtype
        if type(buffer) is ast.Name:  # `mirror = self.mirrors.get(name)`: any self.x of the unit may hold it
            attrs = _self_attrs(unit.node)
        if attrs:
            unit.kind_attrs.append((unit.copies[-1], attrs))
        while type(buffer) is ast.Subscript:
            buffer = buffer.value
        if type(buffer) is ast.Attribute and not (type(buffer.value) is ast.Name and buffer.value.id == "self"):
            unit.foreign_value_attrs.add(buffer.attr)  # `self.mgr.stage`: its class's allocation decides

    def cast(self, n: ast.Call, path) -> None:
        """A call that may be a dtype cast: its receiver (the first argument of an unbound
        `torch.Tensor.to(x, ...)`), where it sits, and the self.x arguments whose
        assignments tell a device from a dtype (only a name without either word is read)."""
        func, unit, vocab = n.func, self.unit, self.vocab
        unbound = _unbound_receiver(func.value, vocab)
        if unbound:
            if n.args:
                unit.casts.append((self.refs(n.args[0]), path))
        else:
            unit.casts.append((self.refs(func.value), path))
        attrs = {  # `.to(self.d)`, `.to(*self._target)`: what the attribute is assigned decides the dtype
            arg.attr
            for arg in [a.value if type(a) is ast.Starred else a for a in n.args] + [k.value for k in n.keywords]
            if type(arg) is ast.Attribute
            and type(arg.value) is ast.Name
            and arg.value.id == "self"
            and not vocab.kind_word(arg.attr)
        }
        if attrs:
            receiver = n.args[0] if unbound and n.args else func.value
            unit.kind_attrs.append((self.refs(receiver), attrs))
        for value in [a.value for a in n.args if type(a) is ast.Starred] + [
            k.value for k in n.keywords if k.arg is None
        ]:  # `.to(*self._args(q))`, `.to(**make_kwargs(q))`: what the def returns decides the dtype
            if type(value) is ast.Call:
                name = _callee_name(value.func)
                if name:
                    unit.kind_defs.add(name)

    def name_call(self, n: ast.Call, name: str) -> None:
        """f(...): map(f or lambda, xs, ...), or a call whose arguments are read once the
        callees are known (_read_name_calls)."""
        unit = self.unit
        if name in self.vocab.appliers and n.args:
            self.applied(n)
        else:
            unit.name_calls.append((name, n))
            unit.calls_made.add(name)

    def applied(self, n: ast.Call, fn: int = 0) -> None:
        """`map(f or lambda, xs, ...)`, `tree_map(f, tree)` (f at fn): f's parameters take the elements."""
        unit = self.unit
        first = n.args[fn]
        xs = [self.refs(a) for a in n.args[fn + 1 :]]
        if type(first) is ast.Name:
            unit.map_calls.append((first.id, xs))
            unit.calls_made.add(first.id)
        elif type(first) is ast.Lambda:
            unit.map_calls.append(([p.arg for p in first.args.posonlyargs + first.args.args], xs))

    def fold(self, args: list) -> None:
        """`functools.reduce(f, xs, init)` (its arguments in that order, _fold_args): f's first parameter
        takes init and what f returns, its second the elements of xs (ModuleAnalysis._param_origin)."""
        unit = self.unit
        n = ast.Call(func=ast.Name(id="reduce", ctx=ast.Load()), args=args, keywords=[])
        step = n.args[0]
        xs = self.refs(n.args[1])
        init = self.refs(n.args[2]) if len(n.args) > 2 else xs
        if type(step) is ast.Lambda:
            params = [p.arg for p in step.args.posonlyargs + step.args.args]
            if len(params) >= 2:
                body = self.refs(step.body)
                unit.assigns.append(({params[0]}, set(), init, KEEP if len(n.args) > 2 else ELEMENT))
                unit.assigns.append(({params[0]}, set(), body, KEEP))
                unit.assigns.append(({params[1]}, set(), xs, ELEMENT))
        elif type(step) is ast.Name:
            # `step(step(init, xs), xs)`: the accumulated value (init, then what step returns) first, then
            # what xs holds (read unindexed: an element of it is tainted when xs is)
            start = n.args[2] if len(n.args) > 2 else n.args[1]
            inner = ast.Call(func=step, args=[start, n.args[1]], keywords=[])
            unit.name_calls.append((step.id, ast.Call(func=step, args=[inner, n.args[1]], keywords=[])))
            unit.calls_made.add(step.id)


def _fold_args(n: ast.Call, vocab: _Vocabulary) -> Optional[list]:
    """A fold call's arguments in reduce's order (the step, the sequence, the initial value), by the last
    name (tables.fold_in_reduce_order, as ObjectFlow.fold_form): `accumulate(xs, f, initial=x)` gives
    [f, xs, x]; None when starred or left unplaced."""
    func = n.func
    name = func.attr if type(func) is ast.Attribute else func.id if type(func) is ast.Name else ""
    if any(type(a) is ast.Starred for a in n.args) or any(k.arg is None for k in n.keywords):
        return None
    keywords = {k.arg: k.value for k in n.keywords}
    return fold_in_reduce_order(vocab.tables, vocab.fold_names.get(name, name), list(n.args), keywords)


def _applied_calls(n: ast.Call, vocab: _Vocabulary) -> List[ast.Call]:
    """The calls a runner makes of the callable it is handed (ObjectFlow.run_calls, by the last name):
    `executor.submit(f, kv)`, `loop.run_in_executor(None, f, kv)`, `Thread(target=f, args=(kv,))`,
    `executor.map(f, xs)` (f(xs[0])), `functools.reduce(f, xs, x)` (f(x, xs[0])); [] for any other call."""
    func = n.func
    name = func.attr if type(func) is ast.Attribute else func.id if type(func) is ast.Name else None
    if name is None or any(type(a) is ast.Starred for a in n.args):
        return []
    args: list = list(n.args)
    keywords = [k for k in n.keywords if k.arg is not None]
    if name in vocab.runners and args:
        callee, rest = args[0], args[1:]
    elif name in vocab.made_runner_methods and args and _made_by_runner_maker(func, vocab):
        callee, rest = args[0], args[1:]
    elif name in vocab.runners_after_one and len(args) > 1:
        callee, rest = args[1], args[2:]
    elif name in vocab.runners_packed:
        targets, packed, named = vocab.runner_keywords
        by = {k.arg: k.value for k in keywords}
        callee = next((by[k] for k in targets if k in by), None)
        rest = args
        if callee is None:
            if not args:
                return []
            callee, rest = args[0], args[1:]
        given = next((by[k] for k in packed if k in by), rest[0] if rest else None)
        rest = list(given.elts) if type(given) in (ast.Tuple, ast.List) else []
        extra = next((by[k] for k in named if k in by), None)
        keywords = (
            [ast.keyword(arg=k.value, value=v) for k, v in zip(extra.keys, extra.values) if _str_constant(k)]
            if type(extra) is ast.Dict
            else []
        )
    elif name in vocab.call_until and type(func) is ast.Name and len(args) == 2 and not keywords:
        callee, rest = args[0], []  # `iter(q.next_layer, None)`: q.next_layer() (ModuleAnalysis.called_until)
    elif name in vocab.apply_methods and type(func) is ast.Attribute and len(args) >= 2:
        callee, rest, keywords = args[0], [ast.Subscript(value=a, slice=ast.Constant(0)) for a in args[1:]], []
    elif name in vocab.appliers and len(args) >= 2 and type(args[0]) is ast.Attribute:
        # `map(self.stats.widen, caches)`: the bound method on each element (ModuleAnalysis._mapped_calls)
        callee, rest, keywords = args[0], [ast.Subscript(value=a, slice=ast.Constant(0)) for a in args[1:]], []
    elif name in vocab.star_appliers and len(args) == 2 and not keywords:
        # `starmap(self._encode, pending.items())`: f(*row) for each row (ModuleAnalysis._star_mapped_calls)
        callee, rest = args[0], [ast.Starred(value=ast.Subscript(value=args[1], slice=ast.Constant(0)))]
    elif name in vocab.folds and len(_fold_args(n, vocab) or ()) == 3:
        step, seq, start = _fold_args(n, vocab)  # `accumulate(xs, f, initial=x)`: reduce's order
        if type(step) is ast.Name and step.id == "getattr":
            return []
        callee, rest, keywords = step, [start, ast.Subscript(value=seq, slice=ast.Constant(0))], []
    else:
        return []
    return [ast.Call(func=callee, args=rest, keywords=keywords)]


def _made_by_runner_maker(func, vocab: _Vocabulary) -> bool:
    """`contextvars.copy_context().run`: the method of a runner maker's call, spelled on it."""
    return (
        type(func) is ast.Attribute
        and type(func.value) is ast.Call
        and _callee_name(func.value.func) in vocab.runner_makers
    )


def _made_runners(module: "_ModuleUnits", taint: "_Taint") -> Optional[str]:
    """Why a pool may be handed to a callable through a runner a maker made and a name holds
    (`ctx = copy_context()`; `ctx.run(f, kv)`: ObjectFlow.run_calls follows the binding): the module calls
    a runner maker, and a made_runner_methods call (`.run(...)`) takes a pool."""
    makes = any(name in module.vocab.runner_makers for unit in module.units for name, receiver, _ in unit.object_calls)
    if not makes:
        return None
    for unit in module.units:
        for name, receiver, call in unit.object_calls:
            if receiver and name in module.vocab.made_runner_methods and _tainted_args(call, unit, taint, module):
                return f"a pool is passed to {receiver}.{name}, maybe a runner made by a runner maker"
    return None


def _class_spelling(node: ast.AST) -> Optional[str]:
    """The class a receiver may name: `Base` (a name other than self), "" for `type(x)` and
    `x.__class__` (whichever class); else None."""
    t = type(node)
    if t is ast.Name:
        return None if node.id in ("self", "cls") else node.id
    if t is ast.Call and type(node.func) is ast.Name and node.func.id == "type" and len(node.args) == 1:
        return ""
    if t is ast.Attribute and node.attr == "__class__":
        return ""
    return None


def _unwrapped_call(n: ast.Call, vocab) -> Optional[ast.Call]:
    """`f.__wrapped__(x)` ([callables] unwrapped_attributes) as `f(x)`, `self.m.__wrapped__(self, x)` and
    `Cls.m.__wrapped__(self, x)` as `type(self).m(self, x)` (the def itself, self explicit), as
    ModuleAnalysis._unwrapped_targets reads them; None for any other call."""
    func = n.func
    if type(func) is not ast.Attribute or func.attr not in vocab.unwrapped_attributes:
        return None
    inner = func.value
    if type(inner) is ast.Attribute and type(inner.value) is ast.Name and inner.value.id == "self":
        owner = ast.Call(func=ast.Name(id="type", ctx=ast.Load()), args=[inner.value], keywords=[])
        inner = ast.Attribute(value=ast.copy_location(owner, inner), attr=inner.attr, ctx=ast.Load())
    elif type(inner) not in (ast.Attribute, ast.Name):
        return None
    return ast.copy_location(ast.Call(func=ast.copy_location(inner, func), args=n.args, keywords=n.keywords), n)


def _read_class_calls(units: List[_Unit], classes: Set[str]) -> None:
    """`Base.m(self, kv)` of a class of the module: as `obj.m(kv)` (ModuleAnalysis._explicit_self_calls)."""
    for unit in units:
        for owner, name, positional, keywords in unit.class_calls:
            if owner == "" or owner in classes:
                unit.object_method_calls.append((name, positional, keywords))


def _stand_in_for(value: ast.AST, vocab: _Vocabulary) -> Optional[str]:
    """The name of the function value stands for, as ModuleAnalysis reads a name bound to it: a
    name (`_up = _up_impl`), or the function a wrapper is given (`torch.compile(_up_impl, ...)`,
    `torch.compile(mode=...)(_up_impl)`: rules/accessors.toml [callables] function_wrappers); a bound
    method `self.m` as "self.m"."""
    held = _function_spelling(value)
    if held is not None or type(value) is not ast.Call or not value.args:
        return held
    func = value.func
    if type(func) is ast.Call and not func.args and len(value.args) == 1 and not value.keywords:
        func = func.func  # the decorator a wrapper called without a function makes
    elif type(func) is ast.Call:
        return None
    return _function_spelling(value.args[0]) if _callee_name(func) in vocab.function_wrappers else None


def _callable_choices(value: ast.AST, vocab: _Vocabulary) -> Optional[list]:
    """The expressions a callable chosen at run time may be, as ModuleAnalysis reads a call of it
    (ObjectFlow.callable_values): either side of `a if c else b`, of `a or b` (the last of `and`), any
    element of a display picked by a computed index (`(self._paged, self._whole)[dense]`,
    `{"fp8": widen}[kind]`) or taken (`{...}.get(kind, default)`); None when value is no such choice."""
    t = type(value)
    if t is ast.IfExp:
        return [value.body, value.orelse]
    if t is ast.BoolOp:
        return list(value.values if type(value.op) is ast.Or else value.values[-1:])
    if t is ast.Subscript and type(value.value) in (ast.Tuple, ast.List):
        return list(value.value.elts)
    if t is ast.Subscript and type(value.value) is ast.Dict:
        return list(value.value.values)
    if (
        t is ast.Call
        and type(value.func) is ast.Attribute
        and type(value.func.value) is ast.Dict
        and value.func.attr in vocab.element_methods
    ):
        return [*value.func.value.values, *value.args[1:]]
    return None


def _templated_self_method(value: ast.AST) -> Optional[str]:
    """`getattr(self, "m")` as "self.m"; `getattr(self, f"_forward_{phase}")` (or `"_read_" + kind`) as a
    pattern "self.~<regex>" any method of the module whose name fits stands for (_alias_targets)."""
    if not (type(value) is ast.Call and _callee_name(value.func) == "getattr" and len(value.args) >= 2):
        return None
    if not _is_self(value.args[0]):
        return None
    name = value.args[1]
    if _str_constant(name):
        return "self." + name.value
    if type(name) is ast.JoinedStr:
        sides = [p.value if _str_constant(p) else None for p in name.values]
    elif type(name) is ast.BinOp and type(name.op) is ast.Add:
        sides = [p.value if _str_constant(p) else None for p in (name.left, name.right)]
    else:
        return None
    if not any(sides):
        return None
    return "self.~" + "".join(re.escape(side) if side is not None else ".+" for side in sides)


def _function_spelling(node: ast.AST) -> Optional[str]:
    if type(node) is ast.Name:
        return node.id
    if type(node) is ast.Attribute and type(node.value) is ast.Name and node.value.id == "self":
        return "self." + node.attr
    return None


def _call_args(call: ast.Call, vocab: _Vocabulary, aliases) -> tuple:
    """([(position, refs)], [(keyword, refs)]) of a call's arguments."""
    return (
        [(i, _refs(a, vocab, aliases)) for i, a in enumerate(call.args) if type(a) is not ast.Starred],
        [(k.arg, _refs(k.value, vocab, aliases)) for k in call.keywords if k.arg]
        # `f(*xs)` and `f(**kw)`: what the container holds may land in any parameter (_feed_call)
        + [("*", _iterated_refs(a.value, vocab, aliases)) for a in call.args if type(a) is ast.Starred]
        + [("**", _refs(k.value, vocab, aliases)) for k in call.keywords if k.arg is None],
    )


def _iterated_refs(node: ast.AST, vocab: _Vocabulary, aliases) -> _Refs:
    """What iterating node reads: node, and what its class's `__iter__` hands back (`f(*slot)`)."""
    refs = _refs(node, vocab, aliases)
    for hook in vocab.iter_hooks:
        refs.calls.add((hook, KEEP))
    return refs


def _self_namespace(node: ast.AST, vocab: _Vocabulary) -> bool:
    """`self.__dict__` or `vars(self)` ([callables] class_dict_attributes / class_dict_functions)."""
    if type(node) is ast.Attribute and node.attr in vocab.class_dict_attributes:
        return _is_self(node.value)
    return (
        type(node) is ast.Call
        and _callee_name(node.func) in vocab.class_dict_functions
        and len(node.args) == 1
        and _is_self(node.args[0])
    )


def _setter_args(call: ast.Call, vocab: _Vocabulary) -> Optional[list]:
    """(name, value, ...) of a call that sets an attribute of self (ObjectFlow.self_setter_args):
    `self.register_buffer(n, v)`, `super().__setattr__(n, v)`, `setattr(self, n, v)`,
    `object.__setattr__(self, n, v)`; None otherwise."""
    func, args = call.func, list(call.args)
    if (
        type(func) is ast.Attribute
        and func.attr in vocab.attribute_setters
        and (_is_self(func.value) or _is_super(func.value))
    ):
        return args
    name = pyast.dotted(func) or ""
    if name in vocab.object_setter_names or (type(func) is ast.Name and func.id in vocab.object_setters):
        return args[1:] if args and _is_self(args[0]) else None
    return None


def _read_name_calls(
    units: List[_Unit], params: Params, vocab: _Vocabulary, aliases, fn_aliases: Optional[Dict[str, Set[str]]] = None
) -> None:
    """Keep the f(...) calls of functions the module defines, with their arguments' refs; a call of a
    name bound to one (fn_aliases: `_up = torch.compile(_up_impl)`) is a call of that function too."""
    local = {name for name, entries in params.items() if any(not is_method for _, _, _, is_method in entries)}
    local |= {unit.cls.name for unit in units if unit.cls is not None}  # C(...): __init__ of C and its bases
    methods = {"self." + name for name, entries in params.items() if any(m for _, _, _, m in entries)}
    held = _alias_targets(_handed_aliases(fn_aliases or {}, params, local | methods), local | methods)
    ducked = vocab is not None and any(name in params for name in vocab.duck_protocol)  # (ObjectFlow._duck_called)
    for unit in units:
        for name, positional, keywords in (*unit.self_calls, *unit.object_method_calls):
            for one in sorted(held.get("." + name, ())):  # a def held in an attribute: called as it is
                unit.name_calls.append((one, (positional, keywords)))
                unit.value_attrs.add(name)  # (its stores say which: ObjectFlow.callable_values)
        if ducked:  # `self.provider(i)`, no def of that name: its stores say whether it is of unknown class
            unit.value_attrs.update(name for name, _, _ in unit.self_calls if name not in params)
        kept = []
        for name, call in unit.name_calls:
            if name == "cls" and unit.cls is not None:  # `cls(i, fetch)` in a classmethod factory: C(i, fetch)
                name = unit.cls.name  # (ObjectFlow.constructed_class)
            # (a bound method `self.m` held in an attribute: `self.reader = self._widen`, `self.reader(kv)`)
            names = ([name] if name in local or name in methods else []) + sorted(held.get(name, ()))
            if not names:
                continue
            args = _call_args(call, vocab, aliases) if not isinstance(call, tuple) else call
            for one in names:
                if one.startswith("self."):  # `f = self._up`, `self.up = torch.compile(self._up)`: a bound method
                    unit.object_method_calls.append((one[5:], *args))
                    unit.calls_made.add(one[5:])
                    continue
                kept.append((one, *args))
                unit.calls_made.add(one)
        unit.name_calls = kept


def _handed_aliases(fn_aliases: Dict[str, Set[str]], params: Params, defs: Set[str]) -> Dict[str, Set[str]]:
    """fn_aliases with the functions handed to a call (_Collector.handed_functions) as aliases of the
    parameters they land in: by keyword, that name; by position, that parameter of every def of the
    callee's name (a method's after self; a class's `__init__`'s)."""
    out = {k: v for k, v in fn_aliases.items() if not k.startswith("#")}
    for key, spellings in fn_aliases.items():
        handed = {s for s in spellings if s in defs}
        if not key.startswith("#") or not handed:
            continue
        if key.startswith("#kw#"):
            out.setdefault(key[4:], set()).update(handed)
            continue
        _, callee, index, kind = key.split("#")
        targets = [(callee, kind == "m")] + ([("__init__", True)] if kind == "f" else [])
        for name, method in targets:
            for _, positional, _, is_method in params.get(name, ()):
                at = int(index) + (1 if is_method and method else 0)
                if is_method == method and at < len(positional):
                    out.setdefault(positional[at], set()).update(handed)
    return out


def _alias_targets(fn_aliases: Dict[str, Set[str]], local: Set[str]) -> Dict[str, Set[str]]:
    """name -> the functions of local it may stand for, through chains of aliases."""
    out: Dict[str, Set[str]] = {}
    for name in fn_aliases:
        seen, todo, found = {name}, list(fn_aliases[name]), set()
        while todo:
            one = todo.pop()
            if one in seen:
                continue
            seen.add(one)
            if one in local:
                found.add(one)
            elif one.startswith("self.~"):  # a templated getattr: every method whose name fits
                fits = re.compile(one[6:]).fullmatch
                found.update(m for m in local if m.startswith("self.") and fits(m[5:]))
            todo.extend(fn_aliases.get(one, ()))
        found.discard(name)
        if found:
            out[name] = found
    return out


_BODIES = ("body", "orelse", "finalbody", "handlers")
_OBJECT_HOOKS = frozenset({"__call__", "__getitem__"})  # in every unit's calls_made: no caller by name


def _object_hooks(vocab: _Vocabulary) -> frozenset:
    """_OBJECT_HOOKS and the protocol methods the tables name (`__iter__`, `__enter__`, `__missing__`)."""
    return _OBJECT_HOOKS | vocab.iter_hooks | vocab.context_hooks | vocab.missing_hooks


_COMPREHENSIONS = frozenset({ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp})


_IDENTIFIER = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")


def _convention_possible(source: bytes, vocab: _Vocabulary) -> bool:
    """False when the file passed the prefilter only through a calling convention's words
    and no `def <method>(...)` of a convention has its parameters (read from the text, without
    parsing: the signature up to its closing parenthesis). True whenever unsure."""
    if prefilter_has_trigger(source, vocab.core_groups):
        return True
    return _convention_signature(source, vocab)


def _convention_signature(source: bytes, vocab: _Vocabulary) -> bool:
    """Does a `def <method>(...)` of a calling convention have its parameters (read from the
    text: the signature up to its closing parenthesis)? True whenever unsure."""
    if vocab.convention_def is None:
        return True
    for match in vocab.convention_def.finditer(source):
        depth, i, end = 1, match.end(), len(source)
        while i < end and depth:
            c = source[i]
            if c in b"'\"#":
                return True  # a string or a comment in the signature: let ast read it
            depth += (c == 40) - (c == 41)  # ( )
            i += 1
        if depth:
            return True
        method = source[match.start() : match.end()].split(b"(")[0].split()[-1].decode()
        signature = source[match.end() : i - 1]
        every = {m.decode() for m in _IDENTIFIER.findall(signature)}
        rows = vocab.conventions.get(method, ())
        if any(params & every and requires <= every for params, requires, _ in rows):
            return True
        if b"**" in signature:
            # `def forward(self, **kwargs)` reading `kwargs["past_key_values"]` before the next def or class
            ends = [j for j in (source.find(w, i) for w in (b"\ndef ", b"\n    def ", b"\nclass ")) if j >= 0]
            body = source[i : min(ends, default=len(source))]
            if any(q in body for params, _, _ in rows for p in params for q in _read_words(p)):
                return True
    return False


def own_pool_possible(source: bytes, tables: Tables) -> bool:
    """Can the file's own code hold a pool, by this vocabulary: its text has an accessor or a
    cache attribute (the gate words a unit needs to hold a candidate by itself), or a calling
    convention's signature with its parameters. False: only another module can hand it one."""
    vocab = _vocabulary(tables)
    return any(word in source for word in vocab.gate_words_without_plans) or _convention_signature(source, vocab)


def _has_convention(stmt: ast.AST, vocab: _Vocabulary) -> bool:
    """Does a def (or a method of a class) take a whole cache by an engine's calling convention?"""
    defs = [stmt] if isinstance(stmt, _DEFS) else [s for s in getattr(stmt, "body", ()) if isinstance(s, _DEFS)]
    if isinstance(stmt, _DEFS):
        # a class a factory makes (`def with_dense(base): class _Dense(base): def forward(..., kv_cache, ...)`):
        # its methods take what the engine hands the class its call sites name
        defs += [s for n in ast.walk(stmt) if type(n) is ast.ClassDef for s in n.body if isinstance(s, _DEFS)]
    for node in defs:
        rows = vocab.conventions.get(node.name)
        if rows:
            args = node.args
            every = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs}
            if any(params & every and requires <= every for params, requires, _ in rows):
                return True
            if args.kwarg is not None and _reads_keyword(node, {p for params, _, _ in rows for p in params} - every):
                return True  # `kwargs["past_key_values"]` of `def forward(self, **kwargs)`
    return False


def _raw_layer_accessor(node: ast.AST) -> bool:
    """`def m(self, i): return self.<buf>[i]` (through method calls: views): a class's accessor of one layer
    of its own buffer, handed out unconverted (castlint.analysis.conversions `_own_layer_accessor` reads it)."""
    if not isinstance(node, _DEFS) or len(node.args.args) != 2 or node.args.vararg or node.args.kwonlyargs:
        return False
    index = node.args.args[1].arg
    for ret in pyast.nodes(node):
        if type(ret) is not ast.Return or ret.value is None:
            continue
        value = ret.value
        while type(value) is ast.Call and type(value.func) is ast.Attribute:
            value = value.func.value
        if (
            type(value) is ast.Subscript
            and type(value.slice) is ast.Name
            and value.slice.id == index
            and type(value.value) is ast.Attribute
            and type(value.value.value) is ast.Name
            and value.value.value.id == "self"
        ):
            return True
    return False


def _beside_evidence(node: ast.AST, vocab: _Vocabulary) -> bool:
    """Is a method a conventions row's `beside` evidence: one of those methods reading the row's keyword from
    its **kwargs (`def capture(self, **kwargs)` reading `kwargs["past_key_values"]`)?"""
    return (
        isinstance(node, _DEFS)
        and node.name in vocab.beside_defs
        and node.args.kwarg is not None
        and _reads_keyword(node, vocab.beside_params)
    )


def _read_words(name: str) -> tuple:
    """Byte spellings of a read of keyword name from a dict (`["name"]`, `.get('name'`, `.pop("name"`)."""
    return tuple(
        f"{read}{q}{name}{q}{end}".encode() for q in "'\"" for read, end in (("[", "]"), (".get(", ""), (".pop(", ""))
    )


def _reads_keyword(node: ast.AST, names: set) -> bool:
    """Does a def's body hold a string constant among names (a keyword read from its **kwargs)?"""
    return bool(names) and any(
        type(n) is ast.Constant and isinstance(n.value, str) and n.value in names for n in pyast.nodes(node)
    )


def _plain_target(target: ast.AST) -> bool:
    """A name, or a tuple/list of names (no attribute, subscript or star)."""
    if type(target) is ast.Name:
        return True
    return type(target) in (ast.Tuple, ast.List) and all(type(e) is ast.Name for e in target.elts)


def _header_binds(stmt: ast.AST, cache: dict) -> Set[str]:
    """Names a compound statement binds before its body runs (for target, with ... as, a
    walrus in an if/while test); everything for a statement kind not known here."""
    t = type(stmt)
    if t in (ast.For, ast.AsyncFor):
        return _binds(stmt.target, cache) | _binds(stmt.iter, cache)
    if t in (ast.With, ast.AsyncWith):
        out: Set[str] = set()
        for item in stmt.items:
            out |= _binds(item.context_expr, cache)
            if item.optional_vars is not None:
                out |= _binds(item.optional_vars, cache)
        return out
    if t in (ast.If, ast.While):
        return _binds(stmt.test, cache)
    if t in _DEFS or t is ast.ClassDef:
        return set()
    return _binds(stmt, cache)


def _binds(stmt: ast.AST, cache: dict, grows: frozenset = frozenset()) -> Set[str]:
    """Every name a statement may bind anywhere inside it (targets, for/with/except names,
    walrus, imports, defs, global/nonlocal), or fill: `xs[k] = v`, `xs.append(v)`,
    `groups[g].append(v)` (grows: rules/accessors.toml [containers] grow_*; ObjectFlow.filled_values)."""
    key = (id(stmt), bool(grows))
    found = cache.get(key)
    if found is None:
        found = set()
        for n in _walk(stmt):
            t = type(n)
            if t is ast.Name and type(n.ctx) is not ast.Load:
                found.add(n.id)
            elif t in _DEFS or t is ast.ClassDef:
                found.add(n.name)
            elif t is ast.ExceptHandler and n.name:
                found.add(n.name)
            elif t in (ast.Import, ast.ImportFrom):
                found.update((a.asname or a.name).split(".")[0] for a in n.names)
            elif t in (ast.Global, ast.Nonlocal):
                found.update(n.names)
            elif t in (ast.MatchAs, ast.MatchStar) and n.name:
                found.add(n.name)
            elif t is ast.MatchMapping and n.rest:
                found.add(n.rest)
            elif grows and t is ast.Subscript and type(n.ctx) is ast.Store:
                holder = _filled_name(n.value)  # `d[k] = v`, `d["g"][k] = v`, `d.setdefault(g, {})[k] = v`
                if holder is not None:
                    found.add(holder)
            elif grows and t is ast.Call and type(n.func) is ast.Attribute and n.func.attr in grows:
                # `xs.append(v)`, `groups[g].append(v)`, `d.setdefault(g, []).append(v)`
                holder = _filled_name(n.func.value)
                if holder is not None:
                    found.add(holder)
        cache[key] = found
    return found


def _filled_name(holder: ast.AST) -> Optional[str]:
    """The local name a store into holder fills: holder itself, or the container under its
    subscripts and method calls (`d["g"]`, `d.setdefault(g, {})`: d)."""
    while True:
        if type(holder) is ast.Subscript:
            holder = holder.value
        elif type(holder) is ast.Call and type(holder.func) is ast.Attribute:
            holder = holder.func.value
        else:
            return holder.id if type(holder) is ast.Name else None


class _Taint:
    """The module-wide fixpoint: what each unit's names, each class's self attributes and
    each function's return value may hold (CONTAINER | WHOLE; 0: nothing a rule sees)."""

    def __init__(
        self,
        units: List[_Unit],
        params: Params,
        vocab: _Vocabulary = None,
        aliases=frozenset(),
        classes: Optional[Dict[str, ast.ClassDef]] = None,
    ):
        self.units = units
        self.params = params
        self.classes = classes or {}  # the module's top-level classes by name
        self._families: Dict[tuple, list] = {}
        self._vocab, self._aliases = vocab, aliases
        self._binds_cache: dict = {}  # (id(stmt), with fills) -> names
        self._refs_cache: Dict[tuple, _Refs] = {}
        self.attrs: Dict[int, Dict[str, int]] = {}  # class_key (0: no class) -> self attribute -> levels
        self.returns: Dict[str, int] = {}
        self._keys = _hierarchy_keys(self.classes)
        self._run()

    def class_key(self, cls) -> int:
        """One key per class hierarchy of the module: self may be an instance of any class that
        shares a base with this one, so an attribute a base (or a sibling's cooperative
        `__init__`) assigns is what a subclass's method reads (ObjectFlow's attribute reads go
        through the class family and the MRO)."""
        if cls is None:
            return 0
        return self._keys.get(id(cls), id(cls))

    def class_attrs(self, unit: _Unit) -> Dict[str, int]:
        return self.attrs.setdefault(self.class_key(unit.cls), {})

    def levels(self, refs: _Refs, unit: _Unit) -> int:
        out = refs.base
        names, attrs, returns = unit.names, self.class_attrs(unit), self.returns
        for name, tf in refs.names:
            out |= tf[names.get(name, 0)]
        if refs.attrs:
            computed = attrs.get(ANY_ATTR, 0)  # stored under a computed name: it may be any self.x
            for attr, tf in refs.attrs:
                if attr == ANY_ATTR:
                    for levels in attrs.values():
                        computed |= levels
                    out |= tf[computed]
                else:
                    out |= tf[attrs.get(attr, 0) | computed]
        for call, tf in refs.calls:
            out |= tf[returns.get(call, 0)]
        return out

    def tainted(self, refs: _Refs, unit: _Unit) -> bool:
        return self.levels(refs, unit) != 0

    def tainted_attrs(self, unit: _Unit) -> Set[str]:
        return {attr for attr, levels in self.class_attrs(unit).items() if levels}

    def _callees(self, unit: _Unit, name: str, method):
        """The defs a call may reach: method True for self.m(...) and super().m(...) (a method
        of the unit's class family: its bases and subclasses in the module), "any" for
        obj.m(...) and Cls.m(...) (a method of any class), False for f(...) (a function, or
        the __init__ of a class of that name and of its bases)."""
        if method is False and name in self.classes:
            for cls in self._family(self.classes[name], up_only=True):
                for callee, positional, every, is_method in self.params.get("__init__", ()):
                    if is_method and callee.cls is cls:
                        yield callee, positional[1:], every
        for callee, positional, every, is_method in self.params.get(name, ()):
            if method:
                if is_method and (method == "any" or callee.cls is unit.cls or callee.cls in self._family(unit.cls)):
                    bound = positional and positional[0] in ("self", "cls")
                    yield callee, positional[1:] if bound else positional, every
            elif not is_method:
                yield callee, positional, every
        if name not in self.params and name not in self.classes and name not in _BUILTIN_NAMES:
            # `self.upcast(kv)`, `up(kv)`: no def of that name, so maybe an object of a module class
            # with `__call__` (ModuleAnalysis._object_calls_index)
            for callee, positional, every, is_method in self.params.get("__call__", ()):
                if is_method and positional[1:]:  # named parameters (a forwarding `*args` one: not fed)
                    yield callee, positional[1:], [p for p in every if not p.startswith("*")]

    def family_of(self, cls, up_only: bool = False) -> list:
        return self._family(cls, up_only)

    def _family(self, cls, up_only: bool = False) -> list:
        """cls, its bases in the module and (unless up_only) its subclasses, by name."""
        if cls is None:
            return []
        key = (id(cls), up_only)
        found = self._families.get(key)
        if found is None:
            found = [cls]
            changed = True
            while changed:
                changed = False
                for other in self.classes.values():
                    if other in found:
                        continue
                    base_of = any(_base_name(b) == other.name for member in found for b in member.bases)
                    sub_of = not up_only and any(_base_name(b) in {m.name for m in found} for b in other.bases)
                    if base_of or sub_of:
                        found.append(other)
                        changed = True
            self._families[key] = found
        return found

    @staticmethod
    def _add(table: Dict[str, int], key: str, levels: int) -> bool:
        old = table.get(key, 0)
        if levels & ~old:
            table[key] = old | levels
            return True
        return False

    def _feed_call(self, unit: _Unit, name: str, positional, keywords, method, tf: tuple = KEEP) -> bool:
        changed = False
        for callee, names, every in self._callees(unit, name, method):
            star = next((p[1:] for p in every if p.startswith("*") and not p.startswith("**")), None)
            for i, arg in positional:
                if i < len(names):
                    changed |= self._add(callee.names, names[i], tf[self.levels(arg, unit)])
                elif star is not None:  # *args: a tuple of the further arguments
                    changed |= self._add(callee.names, star, PACKED[tf[self.levels(arg, unit)]])
            spill = next((p[2:] for p in every if p.startswith("**")), None)
            for keyword, arg in keywords:
                if keyword in ("*", "**"):  # an unpacked container: its elements, to any parameter
                    levels = tf[self.levels(arg, unit)]
                    for param in names if keyword == "*" else every:
                        if not param.startswith("*"):
                            changed |= self._add(callee.names, param, INDEXED[levels])
                    rest = star if keyword == "*" else spill
                    if rest is not None:
                        changed |= self._add(callee.names, rest, levels)
                elif keyword in every:
                    changed |= self._add(callee.names, keyword, tf[self.levels(arg, unit)])
                elif spill is not None:
                    changed |= self._add(callee.names, spill, PACKED[tf[self.levels(arg, unit)]])
        return changed

    def _run(self) -> None:
        changed = True
        while changed:
            changed = False
            for unit in self.units:
                attrs = self.class_attrs(unit)
                for target_names, target_attrs, value, tf in unit.assigns:
                    levels = tf[self.levels(value, unit)]
                    if levels:
                        for name in target_names:
                            changed |= self._add(unit.names, name, levels)
                        for attr in target_attrs:
                            changed |= self._add(attrs, attr, levels)
                for method, positional, keywords in unit.self_calls:
                    changed |= self._feed_call(unit, method, positional, keywords, True)
                for name, positional, keywords in unit.name_calls:
                    changed |= self._feed_call(unit, name, positional, keywords, False)
                for name, positional, keywords in unit.object_method_calls:
                    changed |= self._feed_call(unit, name, positional, keywords, "any")
                for target, xs in unit.map_calls:
                    if isinstance(target, list):  # a lambda's parameters: names of this unit
                        for name, x in zip(target, xs):
                            changed |= self._add(unit.names, name, ELEMENT[self.levels(x, unit)])
                    else:
                        changed |= self._feed_call(unit, target, list(enumerate(xs)), [], False, ELEMENT)
                for name, refs in unit.returns.items():
                    levels = 0
                    for r in refs:
                        levels |= self.levels(r, unit)
                    changed |= self._add(self.returns, name, levels)

    def has_site(self, unit: _Unit) -> bool:
        """Does the unit hold a call a rule may flag?"""
        return (
            unit.plans > 0
            or any(self.cast_levels(r, path, unit) for r, path in unit.casts)
            or any(self.tainted(r, unit) for r in unit.copies)
            or any(any(self.tainted(a, unit) for a in args) for args in unit.helpers)
        )

    def feeds(self, unit: _Unit, need_attrs: Set[str], need_defs: Set[str], need_returns: Set[str]) -> bool:
        """Does the unit give a tainted value to a self attribute, a parameter or a return
        value that kept code reads?"""
        for _, t_attrs, value, tf in unit.assigns:
            if t_attrs & need_attrs and tf[self.levels(value, unit)]:
                return True
        for calls in (unit.self_calls, unit.name_calls, unit.object_method_calls):
            for name, positional, keywords in calls:
                if self._reached_defs(name, calls is unit.name_calls) & need_defs and (
                    any(self.tainted(a, unit) for _, a in positional) or any(self.tainted(a, unit) for _, a in keywords)
                ):
                    return True
        for target, xs in unit.map_calls:
            if not isinstance(target, list) and target in need_defs and any(self.tainted(x, unit) for x in xs):
                return True
        return any(self.returns.get(name) for name in unit.defs & need_returns)

    def _reached_defs(self, name: str, plain: bool) -> Set[str]:
        """The def names a call `name(...)` runs: a construction `C(...)` of a class of the module runs
        its `__init__` (and a base's: `_callees`), whose parameters then hold what the call passes."""
        if plain and name in self.classes:
            return {name, "__init__"}
        return {name}

    # -- in statement order, as the analysis reads names ------------------------------
    def cast_levels(self, refs: _Refs, path, unit: _Unit, depth: int = 0) -> int:
        """What a cast's receiver may hold, reading each plain name at the assignment that
        precedes the cast in its block chain (ModuleAnalysis.reaching), where one does
        without any other statement in between that may rebind it; else at every
        assignment of the unit."""
        levels = self.levels(refs, unit)
        if not levels or path is None or not refs.names or depth > 4:
            return levels
        out = refs.base
        attrs, returns = self.class_attrs(unit), self.returns
        if refs.attrs:
            computed = attrs.get(ANY_ATTR, 0)  # stored under a computed name: it may be any self.x
            for attr, tf in refs.attrs:
                if attr == ANY_ATTR:
                    for levels in attrs.values():
                        computed |= levels
                    out |= tf[computed]
                else:
                    out |= tf[attrs.get(attr, 0) | computed]
        for call, tf in refs.calls:
            out |= tf[returns.get(call, 0)]
        for name, tf in refs.names:
            local = self._local(name, path, unit, depth)
            out |= tf[unit.names.get(name, 0) if local is None else local]
        return out

    def _local(self, name: str, path, unit: _Unit, depth: int) -> Optional[int]:
        """The levels of `name` just before the statement at path, or None when the
        preceding statements do not decide it."""
        cache = self._binds_cache
        for level in range(len(path) - 1, -1, -1):
            block, index, kind = path[level]
            for j in range(index - 1, -1, -1):
                stmt = block[j]
                if name not in _binds(stmt, cache, self._vocab.grow_methods if self._vocab else frozenset()):
                    continue
                t = type(stmt)
                if t is ast.Assign and len(stmt.targets) == 1:
                    target = stmt.targets[0]
                    names, attrs = set(), set()
                    _targets(target, names, attrs)
                    if name in names and _plain_target(target):
                        unpacked = type(target) is not ast.Name
                        value = self._value_refs(stmt.value, unpacked)
                        tf = ELEMENT if unpacked else KEEP
                        return tf[self.cast_levels(value, path[:level] + ((block, j, kind),), unit, depth + 1)]
                if t is ast.AugAssign and type(stmt.target) is ast.Name:
                    continue  # `x += ...` keeps what x holds
                return None  # bound some other way, or maybe: every assignment counts
            if kind:  # a loop body (reached again from its end), or a try's other blocks
                return None
            if level and name in _header_binds(path[level - 1][0][path[level - 1][1]], cache):
                return None  # the enclosing statement binds it (for target, with ... as)
        return None  # a parameter, a global, a closure

    def _value_refs(self, node: ast.AST, unpacked: bool = False) -> _Refs:
        """What an assigned value reads; unpacked (`k, v = obj`): also what obj's class's `__iter__` gives."""
        found = self._refs_cache.get((id(node), unpacked))
        if found is None:
            found = _refs(node, self._vocab, self._aliases)
            if unpacked and self._vocab is not None:
                found.calls |= {(hook, KEEP) for hook in self._vocab.iter_hooks}
            self._refs_cache[(id(node), unpacked)] = found
        return found

    def taints_globals(self, unit: _Unit) -> bool:
        return bool(unit.globals) and any(
            names & unit.globals and tf[self.levels(v, unit)] for names, _, v, tf in unit.assigns
        )


def _hierarchy_keys(classes: Dict[str, ast.ClassDef]) -> Dict[int, int]:
    """id(class) -> one id per connected hierarchy of the module's top-level classes (a class,
    its bases and subclasses by name, transitively: a union-find, linear in the bases)."""
    parent: Dict[int, int] = {id(c): id(c) for c in classes.values()}

    def root(key: int) -> int:
        while parent[key] != key:
            parent[key] = parent[parent[key]]
            key = parent[key]
        return key

    for cls in classes.values():
        for base in cls.bases:
            other = classes.get(_base_name(base) or "")
            if other is not None and other is not cls:
                a, b = root(id(cls)), root(id(other))
                if a != b:
                    parent[a] = b
    return {key: root(key) for key in parent}


def _import_aliases(tree: ast.AST, source: bytes, names, encoded: tuple = ()) -> frozenset:
    """(alias, name) for the names under which the module imports one of names
    (`torch.gather as g`, `quantize_k_cache as qk`). encoded: the names as bytes, when
    the caller has them (searched through the prefilter's anchors)."""
    if b"import" not in source:
        return frozenset()
    if not prefilter_has_trigger(source, ((encoded or tuple(name.encode() for name in names),),)):
        return frozenset()
    out = set()
    stack = list(tree.body)
    while stack:  # statements only: an import is never inside an expression
        node = stack.pop()
        t = type(node)
        if t is ast.ImportFrom:
            for alias in node.names:
                if alias.name in names:
                    out.add((alias.asname or alias.name, alias.name))
        elif t is ast.Import:
            for alias in node.names:
                if alias.asname and alias.name.rsplit(".", 1)[-1] in names:
                    out.add((alias.asname, alias.name.rsplit(".", 1)[-1]))
        else:
            for name in ("body", "orelse", "finalbody", "handlers", "cases"):
                children = getattr(node, name, None)
                if children:
                    stack.extend(children)
    return frozenset(out)


def _first_line(node) -> int:
    decorators = getattr(node, "decorator_list", None)
    return min([node.lineno] + [d.lineno for d in decorators]) if decorators else node.lineno


def _identifiers(node: ast.AST, names: Set[str], attrs: Set[str], stores: Set[str]) -> None:
    """The identifiers libcst would hold as Name (and Attribute.attr) nodes under node; stores: the
    attributes assigned (`obj.x = ...`, `obj.x += ...`)."""
    for n in _walk(node):
        t = type(n)
        if t is ast.Name:
            names.add(n.id)
        elif t is ast.Attribute:
            names.add(n.attr)
            attrs.add(n.attr)
            if type(n.ctx) is not ast.Load:
                stores.add(n.attr)
        elif t in _DEFS or t is ast.ClassDef:
            names.add(n.name)
        elif t is ast.arg:
            names.add(n.arg)
        elif t is ast.keyword:
            if n.arg:
                names.add(n.arg)
        elif t is ast.alias:
            parts = n.name.split(".")
            names.update(p for p in parts if p != "*")
            attrs.update(parts[1:])
            if n.asname:
                names.add(n.asname)
        elif t is ast.ImportFrom:
            if n.module:
                parts = n.module.split(".")
                names.update(parts)
                attrs.update(parts[1:])
        elif t in (ast.Global, ast.Nonlocal):
            names.update(n.names)
        elif t is ast.ExceptHandler:
            if n.name:
                names.add(n.name)
        elif t in (ast.MatchAs, ast.MatchStar):
            if n.name:
                names.add(n.name)
        elif t is ast.MatchMapping:
            if n.rest:
                names.add(n.rest)
        elif t is ast.MatchClass:
            names.update(n.kwd_attrs)


def _members_defined(node: ast.AST, members: Set[str], properties: Set[str], vocab: "_Vocabulary") -> None:
    """The names node defines as a def, or a class body inside it defines by assignment; into
    properties those that read as attributes (a def with a property decorator, `x = property(...)`)."""
    for n in _walk(node):
        t = type(n)
        if t in _DEFS or t is ast.ClassDef:
            members.add(n.name)
            if t in _DEFS and any(vocab.is_property_decorator(pyast.dotted(d)) for d in n.decorator_list):
                properties.add(n.name)
            if t is ast.ClassDef:
                for statement in n.body:
                    targets = (
                        statement.targets
                        if type(statement) is ast.Assign
                        else [statement.target]
                        if type(statement) is ast.AnnAssign
                        else []
                    )
                    names = [x.id for x in targets if type(x) is ast.Name]
                    members.update(names)
                    value = getattr(statement, "value", None)
                    if type(value) is ast.Call and vocab.is_property_decorator(pyast.dotted(value.func)):
                        properties.update(names)


def _stub(line: str, node) -> str:
    indent = line[: len(line) - len(line.lstrip(" \t\f"))]
    if isinstance(node, ast.ClassDef):
        # its bases stay (dotted names only): a construction of the stub runs an inherited `__init__`
        # the pruned tree keeps (`KeyUpcast(kv_cache)` of `class KeyUpcast(_Upcast): pass`)
        bases = [pyast.dotted(b) for b in node.bases]
        kept = f"({', '.join(bases)})" if bases and all(bases) else ""
        return f"{indent}class {node.name}{kept}: pass"
    prefix = "async def" if isinstance(node, ast.AsyncFunctionDef) else "def"
    return f"{indent}{prefix} {node.name}(): pass"


def plan(source: bytes, tables: Tables, keep_ratio: float = KEEP_RATIO) -> PrunePlan:
    """How to analyse this file: FULL, NOTHING (no candidate at all) or PRUNED."""
    try:
        return _plan(source, tables, keep_ratio)
    except RecursionError:  # absurdly nested code: let the whole-file analysis decide
        return PrunePlan(FULL, reason="too deeply nested to plan")


def _plan(source: bytes, tables: Tables, keep_ratio: float) -> PrunePlan:
    vocab = _vocabulary(tables)
    decided = _decide_from_text(source, vocab)
    arenas = may_allocate_arenas(source, tables)  # per-layer arenas: whole pools under any name
    by_arity = may_plan_by_arity(source, tables)  # a plan() CL002 tells by its arity, no wrapper named
    if decided is not None and decided.kind == NOTHING and (arenas or by_arity):
        decided = None  # the taint decides
    if decided is not None:
        return decided
    try:
        tree = pyast.parse(source)
    except SyntaxError as exc:
        return PrunePlan(FULL, reason="ast cannot parse it: libcst decides", error=exc)
    except (ValueError, RecursionError, MemoryError, OverflowError):
        return PrunePlan(FULL, reason="ast cannot parse it: libcst decides")
    if (
        vocab.row_kernel_imports
        and any(name.encode() in source for _, name in vocab.row_kernel_imports)
        and _imports_row_kernel(tree, vocab)
    ):
        # CL004's row reads need the import of the kernel, wherever it stands (castlint.analysis.row_reads)
        return PrunePlan(FULL, reason="a row-index kernel is imported")
    if not prefilter_has_trigger(source, (vocab.plan_words,)) and not by_arity:
        vocab = vocab.without_plans()  # CL002 cannot fire here: a plan() call is no candidate
    if any(f"{maker}(".encode() in source for maker in vocab.slice_makers):
        # a slice object only decides whether a pool's subscript keeps every slot, which the taint assumes
        # of any held index (_keeps_tokens): where no site is found with slices read as no pool, none is
        inert = _plan_module(tree, source, vocab, tables if arenas else None, keep_ratio, inert_slices=True)
        if inert.kind == NOTHING:
            return inert
    return _plan_module(tree, source, vocab, tables if arenas else None, keep_ratio)


def _plan_module(
    tree: ast.Module,
    source: bytes,
    vocab: _Vocabulary,
    arena_tables: Optional[Tables],
    keep_ratio: float,
    inert_slices: bool = False,
) -> PrunePlan:
    module = _ModuleUnits(tree, source, vocab, arena_tables, inert_slices)
    decided = module.collect_module_level()
    if decided is not None:
        return decided
    module.collect_reachable()
    _read_name_calls(module.units, module.params, vocab, module.aliases, module.fn_aliases)
    _read_class_calls(module.units, {s.name for s in module.top if isinstance(s, ast.ClassDef)})
    taint = _Taint(
        module.units,
        module.params,
        vocab,
        module.aliases,
        {**_made_class_defs(tree, source, vocab), **{s.name: s for s in module.top if isinstance(s, ast.ClassDef)}},
    )
    if any(taint.taints_globals(unit) for unit in module.units):
        return PrunePlan(FULL, reason="a global is assigned a pool")
    why = _fills_module_container(module, taint)
    if why:
        return PrunePlan(FULL, reason=why)
    if (
        not any(u.casts or u.copies or u.helpers or u.plans for u in module.units)
        and not _holds_conversion(module)
        and not _holds_a_plan(tree, vocab)
    ):
        # every rule's site is a cast, a copy, a helper or a plan call, or a conversion or a plan
        # held for later (a partial, getattr or map of one): none here, wherever a pool flows
        return PrunePlan(NOTHING, reason="no candidate site")
    why = _object_flow(module, taint)
    if why:
        return PrunePlan(FULL, reason=why)
    # a plan held uncalled (`call(w.plan, ...)`, `partial(w.plan, ...)`) is a plan site too, and in a file
    # that names an MLA wrapper so is its run(): the MLA fix accounts for every input of every run
    runs = vocab.mla_run_methods if any(cls in source for cls in vocab.mla_classes) else frozenset()
    sites = {
        id(unit)
        for unit in module.units
        if taint.has_site(unit) or (unit is not module.module_rest and _holds_a_plan(unit.node, vocab, runs))
    }
    if not sites:
        if _returns_a_pool(tree, vocab):
            # a helper's return reaches its callers through inheritance, super() and other
            # objects, which the per-unit taint does not follow: the analysis decides
            return PrunePlan(FULL, reason="a function returns a pool")
        return PrunePlan(NOTHING, reason="no candidate site")
    holders = _plan_holders(module)
    made_at = {int(n.split("_")[3]) for n in taint.classes if n.startswith("_made_at_")}
    holders |= {  # the defs that make a class by a call: the analysis reads its bases there
        id(u)
        for u in module.units
        if made_at and type(u.node) in _DEFS and any(u.node.lineno <= a <= u.node.end_lineno for a in made_at)
    }
    kept = _kept_units(module, taint, sites | holders)
    decisions, hot_hints = _decisions(module, kept, holders)
    return _render(source, decisions, hot_hints, keep_ratio, vocab)


def _plan_holders(module: _ModuleUnits) -> Set[int]:
    """id() of the units CL002 reads a plan's dtypes in: those holding a plan (called or held),
    the callers of a plan helper that passes its own parameters to plan() (a module-level
    function, a mixin's or base class's method: the dtypes are the caller's), and what those
    call (`*self.dtypes()`, `**plan_options(...)`), transitively."""
    vocab = module.vocab
    if not vocab.wrapper_methods and not vocab.wrapper_functions:
        return set()
    units = [u for u in module.units if u is not module.module_rest and type(u.node) in _DEFS]
    holders = {id(u) for u in units if u.plans or _holds_a_plan(u.node, vocab)}
    helpers = {
        u.node.name
        for u in units
        if id(u) in holders and _passes_own_parameters(u.node, vocab.wrapper_methods, vocab.wrapper_functions)
    }
    for u in units:  # `self._plan = lambda w, *a: w.plan(*a, ...)`: the lambda's callers give its *a
        if id(u) in holders:
            for n in pyast.nodes(u.node):
                if type(n) is ast.Assign and (
                    (
                        type(n.value) is ast.Lambda
                        and _passes_own_parameters(n.value, vocab.wrapper_methods, vocab.wrapper_functions)
                    )
                    or _held_plan(n.value, vocab)
                ):  # `self._plan = partial(self.wrapper.plan, q_data_type=d)`: its callers give the rest
                    helpers.update(
                        t.id if type(t) is ast.Name else t.attr
                        for t in n.targets
                        if type(t) in (ast.Name, ast.Attribute)
                    )
    changed = True
    while changed:
        changed = False
        called = set().union(*(u.calls_made for u in units if id(u) in holders)) - _object_hooks(module.vocab)
        for u in units:
            if id(u) in holders:
                continue
            if u.calls_made & helpers or u.node.name in called:
                holders.add(id(u))
                changed = True
                if u.calls_made & helpers and _passes_own_parameters(u.node, helpers, helpers):
                    helpers.add(u.node.name)  # it hands its own parameters on: its callers' dtypes
    return holders


def _held_plan(value: ast.AST, vocab: "_Vocabulary") -> bool:
    """Is value a plan() held uncalled under the name it is assigned to: `w.plan`, or a call of a
    holder ([partial] makers, getattr) given one (`partial(w.plan, q_data_type=d)`)?"""
    if type(value) is ast.Attribute:
        return value.attr in vocab.wrapper_methods
    return (
        type(value) is ast.Call
        and _callee_name(value.func) in vocab.holders
        and any(
            (type(a) is ast.Attribute and a.attr in vocab.wrapper_methods)
            or (type(a) is ast.Constant and isinstance(a.value, str) and a.value in vocab.wrapper_methods)
            for a in value.args
        )
    )


def _passes_own_parameters(node: ast.AST, methods, functions) -> bool:
    """Does a def call one of these (`x.<method>(...)`, `<function>(...)`) with one of its own
    parameters (not self) as an argument?"""
    args = node.args
    params = {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)} - {"self", "cls"}
    params |= {a.arg for a in (args.vararg, args.kwarg) if a is not None}  # `w.plan(*rest, ...)`
    for n in pyast.nodes(node):
        if type(n) is ast.Call and _callee_name(n.func) in (methods if type(n.func) is ast.Attribute else functions):
            values = [a.value if type(a) is ast.Starred else a for a in n.args] + [k.value for k in n.keywords]
            if any(type(a) is ast.Name and a.id in params for a in values):
                return True
    return False


def _returns_a_pool(tree: ast.AST, vocab: "_Vocabulary") -> bool:
    """Does a function return a pool as it is (an accessor's result, a cache attribute or one layer of it, or a
    tuple of those) to code of the module: a def the module may call (it names it again, or a string of it
    may spell its name for getattr), that is decorated, or that the language calls unnamed (a dunder, a
    delegated call method such as nn.Module's forward)? A def nothing here names hands its pool to other
    files only, and a def named as an accessor is read as one wherever it is called by that name."""
    names = vocab.accessors | vocab.cache_attributes
    returning: Set[str] = set()
    for node in pyast.nodes(tree):
        if type(node) in _DEFS:
            for inner in _walk(node, skip=_DEFS):  # its own returns (a nested def is its own node here)
                if type(inner) is ast.Return and inner.value is not None:
                    values = inner.value.elts if type(inner.value) is ast.Tuple else [inner.value]
                    if any(_names_pool(v, names) for v in values):
                        implicit = node.name.startswith("__") or node.name in vocab.delegated_call_methods
                        if node.decorator_list or implicit:
                            return True
                        returning.add(node.name)
                        break
    if not returning:
        return False
    if _spells_a_name(tree, frozenset(returning)):  # `getattr(mgr, "get_" + "buffers")`, an enum value
        return True
    for node in pyast.nodes(tree):
        t = type(node)
        if (t is ast.Name and node.id in returning and node.id not in names) or (
            t is ast.Attribute and node.attr in returning and node.attr not in names
        ):
            return True
    return False


def _names_pool(value: ast.AST, names) -> bool:
    if isinstance(value, ast.Call):
        value = value.func
    elif isinstance(value, ast.Subscript):
        value = value.value
    return isinstance(value, ast.Attribute) and value.attr in names


def _imports_row_kernel(tree: ast.AST, vocab: "_Vocabulary") -> bool:
    for node in pyast.nodes(tree):
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            if any((node.module, alias.name) in vocab.row_kernel_imports for alias in node.names):
                return True
    return False


def _object_flow(module: "_ModuleUnits", taint: "_Taint") -> Optional[str]:
    """Why a pool may flow through objects, classes or held callables here (the analysis
    follows those, castlint.analysis.object_flow; the per-unit taint does not): then the
    whole file is analysed. None when no tainted value takes such a path."""
    vocab = module.vocab
    classes = {s.name: s for s in module.top if isinstance(s, ast.ClassDef)}
    tensor_methods = vocab.accessors | vocab.casts | vocab.copies | vocab.through_methods | vocab.gather_methods
    method_names = {c: {m.name for m in node.body if isinstance(m, _DEFS)} for c, node in classes.items()}
    fed: Set[str] = set()  # members of the classes constructed with a pool
    # the analysis knows an object's class only from a construction in the module
    made = {
        _constructed(name, unit)
        for unit in module.units
        for name, receiver, _ in unit.object_calls
        if receiver == "" and _constructed(name, unit) in classes
    }
    fed |= _held_arenas(module, taint)
    for unit in module.units:  # `md.ref = pool.get_key_buffer(i)` on an object made or given elsewhere
        if unit.cls is None or type(unit.node) in _DEFS:
            fed |= _pool_holding_attrs(unit.node, vocab, self_too=False)
        # `box.k, box.v = kv_cache.unbind(0)`: a tainted value stored on a local or given object (a cache
        # attribute, `state.kv_cache = caches`, is read by its name wherever it is read)
        fed |= {
            attr
            for attr, refs in unit.foreign_stores
            if attr not in vocab.cache_attributes and taint.tainted(refs, unit)
        }
    why = (
        _instance_arenas(module)
        or _arenas_handed_on(module)
        or _made_classes(module)
        or _class_dict_reads(module)
        or _made_runners(module, taint)
        or _introspected_callables(module)
        or _converting_read_hooks(module)
        or (SLICES_INERT not in module.aliases and _slices_in_objects(module))
    )
    why = why or _class_level_reads(classes, vocab)
    if why:
        return why
    for name, node in classes.items():  # `class CacheTable(UserDict)`: `self.data` is what instances hold
        if any(_base_name(b) in vocab.user_containers for b in node.bases):
            return f"{name} subclasses a container class"
    fed_keys: Set[int] = set()  # the hierarchies of the classes constructed with a pool
    factory_records = _factory_records(module)
    tuple_records = set(factory_records) | {
        name for name, node in classes.items() if any(_base_name(b) in vocab.tuple_record_bases for b in node.bases)
    }
    dict_classes = {
        name for name, node in classes.items() if any(_base_name(b) in vocab.dict_classes for b in node.bases)
    }
    for unit in module.units:  # every unit's constructions first: a read may come before them in the file
        for name, receiver, call in unit.object_calls:
            if receiver == "":
                name = _constructed(name, unit)
            if any(
                type(a) is ast.Starred and taint.tainted(_refs(a.value, vocab, module.aliases), unit) for a in call.args
            ) and not (receiver == "" and name not in vocab.helpers and name in _imported_only(module.tree)):
                # (`kernel(*args)` of an imported kernel: no body here binds what *args hands on; a linked
                # module's definitions are the module's own)
                return f"a pool is passed through *args to {name}"
            if (
                name in vocab.record_makers
                and type(call.func.value) is ast.Name
                and call.func.value.id in classes
                and _tainted_args(call, unit, taint, module)
            ):  # `Rec._make(pool.get_kv_buffer(i))`: Rec(*pair)
                receiver, name = "", call.func.value.id
            if (
                name in vocab.holders
                and call.args
                and type(call.args[0]) is ast.Name
                and call.args[0].id in classes
                and _tainted_args(call, unit, taint, module)
            ):  # `partial(Reader, pool.k_buffer)`: calling it constructs a Reader with the pool
                receiver, name = "", call.args[0].id
            if receiver == "" and name in tuple_records and _tainted_args(call, unit, taint, module):
                # `for lid, k, v in self.slots` of `LayerKV(i, pool.get_key_buffer(i), ...)`: its fields by position
                return f"a pool is held in {name}, a tuple record (unpacked by position)"
            if receiver == "" and name in dict_classes and _tainted_args(call, unit, taint, module):
                return f"a pool is held in {name}, a dict class (read by key)"  # `StepInputs(k_caches=ks)`
            if receiver == "" and name in factory_records and _tainted_args(call, unit, taint, module):
                fed |= factory_records[name]  # `LayerKV(i, pool.get_key_buffer(i))`: its fields
            if receiver == "" and name in classes and _tainted_args(call, unit, taint, module):
                for cls_name in _class_and_bases(name, classes):  # a base's __init__ may store it
                    fed |= method_names[cls_name] | _assigned_attrs(module, classes[cls_name])
                    fed_keys.add(taint.class_key(classes[cls_name]))
            elif (
                receiver != ""
                and name not in tensor_methods
                and taint.returns.get(name)
                and any(name in method_names[c] for c in _method_owners(receiver, unit, classes, made))
            ):
                return f"a pool is returned by the method {name} of another object or a base class"
            if name in vocab.namespace_names and _tainted_args(call, unit, taint, module):
                fed |= {k.arg for k in call.keywords if k.arg}  # `SimpleNamespace(kv=pool)`: its kv
            if name in vocab.record_replacers and call.keywords:  # `replace(rec, k=pool)`: its copy's k
                fed |= {
                    k.arg for k in call.keywords if k.arg and taint.tainted(_refs(k.value, vocab, module.aliases), unit)
                }
    if fed:
        fed |= vocab.field_readers  # `vars(rec)["k"]`, `rec._asdict()`: any field of such an object
        if any(type(n) is ast.Call and _callee_name(n.func) in vocab.field_functions for n in pyast.nodes(module.tree)):
            fed |= vocab.field_name_readers  # `getattr(rec, f.name)` of `f in fields(rec)`
    for unit in module.units:
        if unit.cls is not None and taint.class_key(unit.cls) in fed_keys:
            # `self.kv_pool` in a method of a record (or its subclass) built with a pool: a field
            # the construction binds, inherited dataclass fields included (ObjectFlow.record_fields)
            mine = {attr for refs, _ in unit.casts for attr, _ in refs.attrs} | {
                attr for refs in unit.copies for attr, _ in refs.attrs
            }
            if mine & fed:
                return f"a cast reads a field of an object built with a pool ({sorted(mine & fed)[0]})"
        for _, _, value, _ in unit.assigns:
            if value.bound:
                return "an accessor is held uncalled (a bound method, partial or getattr)"
            if any(taint.returns.get(member) for member in value.held):
                # `self._get = {"k": view.key_of}`: calling what is held calls the method
                # (ObjectFlow.callable_values), or reads the property, of the other object
                return "a method of another object that returns a pool is held uncalled"
            if value.members & fed:
                return f"a pool is read through an object built with it ({sorted(value.members & fed)[0]})"
        if any(
            refs.bound or any(taint.returns.get(member) for member in refs.members)
            for calls in (unit.self_calls, unit.name_calls, unit.object_method_calls)
            for _, positional, keywords in calls
            for _, refs in (*positional, *keywords)
        ):
            return "an accessor is passed uncalled to a function (a call of its parameter reads a pool)"
        if (
            any(refs.members & fed for refs, _ in unit.casts)
            or any(refs.members & fed for refs in unit.copies)
            or any(refs.members & fed for args in unit.helpers for refs in args)
            or any(
                refs.members & fed
                for calls in (unit.self_calls, unit.name_calls, unit.object_method_calls)
                for _, positional, keywords in calls
                for _, refs in (*positional, *keywords)
            )
        ):
            return "a cast reads a pool through an object built with it"
    for name in sorted(made):
        # a class of the module, constructed here, with a method named like a known accessor, that
        # allocates per-request state: what that method returns decides whether a call of it reads a
        # pool (ModuleAnalysis._small_state_method)
        if method_names[name] & vocab.accessors and _allocates_small_state(classes[name], vocab):
            return f"{name} defines an accessor's name ({sorted(method_names[name] & vocab.accessors)[0]})"
    why = _through_own_decorator(module, taint) or _holder_stores(module, taint) or _foreign_grows(module, taint)
    why = why or _callables_constructed_with(module, classes, taint)
    why = why or _installed_functions(module, classes, taint)
    if not why and any(taint.returns.get(hook) for hook in vocab.attribute_hooks):
        # `view.latent` of a class whose `__getattr__` returns a pool (ModuleAnalysis: dynamic_attribute)
        if any(refs.members for unit in module.units for refs, _ in unit.casts):
            why = "a pool is returned by a class's __getattr__"
    return (
        why
        or _held_getters(module, classes, taint)
        or _through_function_values(module, taint)
        or _dtype_to_base_init(module)
    )


def _converting_read_hooks(module: "_ModuleUnits") -> Optional[str]:
    """Why a hook Python runs on attribute reads may convert a pool an instance stores ([callables]
    attribute_read_hooks, ModuleAnalysis.hook_stored_values): a `__getattribute__(self, name)` that casts and
    reads the storage under its name parameter (`super().__getattribute__(name)`, an attribute getter such
    as `object.__getattribute__(self, name)`). None when no method is such a hook."""
    vocab = module.vocab
    for unit in module.units:
        node = unit.node
        if unit.cls is None or type(node) not in _DEFS or node.name not in vocab.read_hooks or not unit.casts:
            continue
        for call in pyast.nodes(node):
            if type(call) is not ast.Call:
                continue
            func = call.func
            if (type(func) is ast.Attribute and func.attr in vocab.read_hooks and _is_super(func.value)) or (
                _callee_name(func) in vocab.attribute_getters and len(call.args) >= 2
            ):
                return f"{unit.cls.name}.{node.name} converts what its instances store"
    return _converting_store_hooks(module)


def _converting_store_hooks(module: "_ModuleUnits") -> Optional[str]:
    """Why a store `obj.attr = v` may run a def that converts v (ModuleAnalysis.store_calls): a `__setattr__`
    ([callables] attribute_store_hooks) or a property setter (`@attr.setter`: property_setter_decorators) of
    attr, stored somewhere in the module, that casts. None when there is none."""
    vocab = module.vocab
    hooks = []
    for unit in module.units:
        node = unit.node
        if unit.cls is None or type(node) not in _DEFS or not unit.casts:
            continue
        if node.name in vocab.store_hooks or node.name in vocab.descriptor_hooks:
            return f"{unit.cls.name}.{node.name} converts what is stored"
        if any(type(d) is ast.Attribute and d.attr in vocab.setter_decorators for d in node.decorator_list):
            hooks.append(node)
    if not hooks:
        return None
    names = {h.name for h in hooks}
    for n in pyast.nodes(module.tree):
        if type(n) is ast.Assign and any(type(t) is ast.Attribute and t.attr in names for t in n.targets):
            return "a store runs a property setter that converts"
    return None


def _class_dict_reads(module: "_ModuleUnits") -> Optional[str]:
    """Why a method may be read out of a class's namespace (`vars(cls)["read"]`, `C.__dict__["read"]`:
    [callables] class_dict_functions / class_dict_attributes, ObjectFlow.class_dict_functions) and called
    as a function: the analysis follows it. None when no such read names a method of the module."""
    vocab = module.vocab
    methods = {m.name for s in module.top if isinstance(s, ast.ClassDef) for m in s.body if isinstance(m, _DEFS)}
    for node in pyast.nodes(module.tree):
        if type(node) is not ast.Subscript or not _str_constant(node.slice) or node.slice.value not in methods:
            continue
        holder = node.value
        if (type(holder) is ast.Call and _callee_name(holder.func) in vocab.class_dict_functions) or (
            type(holder) is ast.Attribute and holder.attr in vocab.class_dict_attributes
        ):
            return "a method is read out of a class's namespace"
    return None


def _introspected_callables(module: "_ModuleUnits") -> Optional[str]:
    """Why a value may be read back out of a callable (ObjectFlow.introspected_values): the module reads a
    function's closure cells or a bound method's receiver, or a partial's bound arguments through a name or
    attribute it assigns a partial (`self._bound = partial(f, kv)`; `self._bound.args[0]`)."""
    vocab = module.vocab
    held: Set[str] = set()
    for node in pyast.nodes(module.tree):
        if type(node) is ast.Assign and type(node.value) is ast.Call:
            if (_callee_name(node.value.func) or "") in vocab.partial_makers:
                held |= {_last_name(t) for t in node.targets}
    # `p.func is fast_plan`, `p.args == ()`: a comparison hands nothing read back on
    compared = {
        id(operand)
        for node in pyast.nodes(module.tree)
        if type(node) is ast.Compare
        for operand in (node.left, *node.comparators)
    }
    for node in pyast.nodes(module.tree):
        if type(node) is not ast.Attribute:
            continue
        if node.attr in vocab.closure_reads:
            return "a callable's closure or receiver is read back"
        if node.attr in vocab.partial_reads and _last_name(node.value) in held and id(node) not in compared:
            return "a partial's bound arguments are read back"
    return None


def _slices_in_objects(module: "_ModuleUnits") -> Optional[str]:
    """Why a slice object may reach a subscript through an object (`Cut("all", slice(None))` in a list held by
    self, `self.span = slice(None)`): the analysis follows it into the record's field (DataFlow._held_slice),
    which the per-unit taint does not. A slice held by a plain name is read where it is."""
    makers = module.vocab.slice_makers
    if not makers or HELD_SLICE not in module.aliases:
        return None

    def is_slice(node: ast.AST) -> bool:
        return type(node) is ast.Call and type(node.func) is ast.Name and node.func.id in makers

    classes = {s.name for s in module.top if isinstance(s, ast.ClassDef)}

    def held(node: ast.AST) -> bool:  # a slice, or a display of them, or a module class built with one
        t = type(node)
        if t in (ast.List, ast.Tuple, ast.Set):
            return any(held(e) for e in node.elts)
        if t is ast.Dict:
            return any(held(v) for v in node.values)
        if t in (ast.ListComp, ast.GeneratorExp, ast.SetComp):
            return held(node.elt)
        if t is ast.Call and type(node.func) is ast.Name and node.func.id in classes:
            return any(is_slice(a) or held(a) for a in list(node.args) + [k.value for k in node.keywords])
        return False

    for node in pyast.nodes(module.tree):
        if type(node) is ast.Call and held(node):
            return "a slice object is held in an object"
        if type(node) is ast.Assign and any(type(target) is not ast.Name for target in node.targets):
            if is_slice(node.value) or held(node.value):
                return "a slice object is held in an object"
    return None


def _last_name(node: ast.AST) -> str:
    return node.id if type(node) is ast.Name else node.attr if type(node) is ast.Attribute else ""


def _factory_records(module: "_ModuleUnits") -> Dict[str, Set[str]]:
    """name -> field names of each module-level `Name = namedtuple("Name", fields)` ([callables]
    record_factories, ObjectFlow._factory_records): fields written as names or (name, type) pairs."""
    out: Dict[str, Set[str]] = {}
    for stmt in module.tree.body:
        value = stmt.value if type(stmt) is ast.Assign and len(stmt.targets) == 1 else None
        if not (
            type(value) is ast.Call
            and type(stmt.targets[0]) is ast.Name
            and pyast.dotted(value.func) in module.vocab.record_factories
            and len(value.args) >= 2
        ):
            continue
        spec = value.args[1]
        if type(spec) is ast.Constant and isinstance(spec.value, str):
            out[stmt.targets[0].id] = set(spec.value.replace(",", " ").split())
        elif type(spec) in (ast.List, ast.Tuple):
            firsts = [e.elts[0] if type(e) in (ast.List, ast.Tuple) and e.elts else e for e in spec.elts]
            out[stmt.targets[0].id] = {e.value for e in firsts if type(e) is ast.Constant and isinstance(e.value, str)}
    return out


def _class_level_reads(classes: Dict[str, ast.ClassDef], vocab: _Vocabulary) -> Optional[str]:
    """Why a subscript or attribute of a class itself may run a method of the module: a class defining
    `__class_getitem__` ([callables] class_item_protocol), or one whose metaclass (metaclass_keywords) is a
    class of the module defining `__getitem__` or `__getattr__` (ObjectFlow.class_level_call)."""
    hooks = vocab.subscript_methods | vocab.attribute_hooks
    for name, node in classes.items():
        if any(type(m) in _DEFS and m.name in vocab.class_item_hooks for m in node.body):
            return f"{name} answers subscripts of the class ({sorted(vocab.class_item_hooks)[0]})"
        for keyword in node.keywords:
            meta = classes.get(keyword.value.id) if type(keyword.value) is ast.Name else None
            if keyword.arg not in vocab.metaclass_keywords or meta is None:
                continue
            for member in _class_and_bases(meta.name, classes):  # (a hook the metaclass inherits)
                if any(type(m) in _DEFS and m.name in hooks for m in classes[member].body):
                    return f"{name}'s metaclass {meta.name} answers reads on the class"
    return None


def _made_class_defs(tree: ast.Module, source: bytes, vocab: "_Vocabulary") -> Dict[str, ast.ClassDef]:
    """Stand-ins (`class _made_at_<line>_<k>(A, B): pass`) for the classes a class maker ([callables]
    class_makers: `type("N", bases, ns)`, `types.new_class`) makes anywhere in the module, one per
    alternative of its bases (a tuple display, a choice between displays, a name assigned those), as
    ObjectFlow.made_classes reads them: their bases are one family, so `self.m(...)` in a base feeds a
    mixin's m. {} when no maker is spelled."""
    if not any(f"{m.rsplit('.', 1)[-1]}(".encode() in source for m in vocab.class_makers):
        return {}
    calls, assigned = [], {}
    for node in pyast.nodes(tree):
        if type(node) is ast.Call and _callee_name(node.func) in vocab.class_makers and len(node.args) >= 2:
            calls.append(node)
        elif type(node) is ast.Assign and len(node.targets) == 1 and type(node.targets[0]) is ast.Name:
            assigned.setdefault(node.targets[0].id, []).append(node.value)

    def alternatives(expr: ast.AST, depth: int = 0) -> list:
        if depth > 4:
            return []
        if type(expr) is ast.Tuple:
            names = [_base_name(e) for e in expr.elts]
            return [names] if names and all(names) else []
        if type(expr) is ast.IfExp:
            return alternatives(expr.body, depth + 1) + alternatives(expr.orelse, depth + 1)
        if type(expr) is ast.Name:
            return [b for v in assigned.get(expr.id, ()) for b in alternatives(v, depth + 1)]
        return []

    made = {}
    for call in calls:
        for k, names in enumerate(alternatives(call.args[1])):
            name = f"_made_at_{call.lineno}_{k}"
            made[name] = ast.ClassDef(
                name=name, bases=[ast.Name(id=n) for n in names], keywords=[], body=[], decorator_list=[]
            )
    return made


def _made_classes(module: "_ModuleUnits") -> Optional[str]:
    """Why a class may be made by a call at module level (`Pool = type("Pool", (Mixin, Base), ns)`,
    `types.new_class(...)`: [callables] class_makers, ObjectFlow.made_classes): its constructions,
    bases and namespace's methods are the analysis's to follow. None when the module makes none."""
    for stmt in module.tree.body:
        value = stmt.value if type(stmt) is ast.Assign else None
        if (
            type(value) is ast.Call
            and _callee_name(value.func) in module.vocab.class_makers
            and len(value.args) >= 2
            and type(value.args[1]) is ast.Tuple
        ):
            return "a class is made by a call (its bases and namespace)"
    return None


def _dtype_to_base_init(module: "_ModuleUnits") -> Optional[str]:
    """Why a base's allocation dtype may be told by a subclass (`super().__init__(..., torch.float8_e5m2)`:
    castlint.analysis.same_dtype reads the dtype a pool is allocated in through it); None if no
    `super().__init__` call passes a torch dtype."""
    if b"super().__init__(" not in module.source:
        return None
    dtypes = module.vocab.torch_dtypes
    for node in pyast.nodes(module.tree):
        if (
            type(node) is ast.Call
            and type(node.func) is ast.Attribute
            and node.func.attr == "__init__"
            and _is_super(node.func.value)
            and any(
                type(a) is ast.Attribute and (pyast.dotted(a) or "").startswith("torch.") and a.attr in dtypes
                for a in (*node.args, *(k.value for k in node.keywords))
            )
        ):
            return "a subclass passes its base a dtype (the allocation dtype of its pools)"
    return None


def _through_function_values(module: "_ModuleUnits", taint: "_Taint") -> Optional[str]:
    """A function value (a method `self.m` or def handed to a call, a lambda argument, a def a
    decorator of the module wraps) and a call through a parameter or loop variable given a pool
    (`hook(kv_cache)` for `hook in self._hooks`, `fn(self.kv_buffer[i])`, a wrapper's `fn(self, ...,
    **kw)`): the analysis binds the function's parameters where it is called as a value
    (ModuleAnalysis.value_callers), which the per-unit taint does not."""
    defs = {name for name, entries in module.params.items() if entries}
    if any(is_method for _, _, _, is_method in module.params.get("__call__", ())) or _closure_factories(module):
        # `self.densify(kv_cache)` of `self.densify = Densify(dtype)`: the analysis runs Densify's
        # __call__ with the pool (ModuleAnalysis._object_calls_index); `self._widen(kv)` of
        # `self._widen = make_widen(d)`: the closure the factory returns; a call of a name no def has
        for unit in module.units:
            for calls in (unit.self_calls, unit.name_calls):
                for name, positional, keywords in calls:
                    if (name in defs and name not in _nested_only_defs(module)) or name in _BUILTIN_NAMES:
                        continue  # (a nested def's name: `self.widen = self._make(d)` may hold what a factory made)
                    if any(taint.tainted(refs, unit) for _, refs in (*positional, *keywords)):
                        return f"a pool is passed to {name}, maybe an object whose class has __call__"
        found = _local_object_calls(module, taint)
        if found:
            return found
    found = _local_class_calls(module, taint)
    if found:
        return found
    for unit in module.units:  # `self._up.send(pool.get_key_buffer(i))`: `buf = yield out` in a generator
        for name, receiver, call in unit.object_calls:
            if receiver and name in module.vocab.generator_senders and _tainted_args(call, unit, taint, module):
                return f"a pool is sent into a generator ({name})"
    registering = _registering_decorators(module)
    if registering or any(_tables_of_defs(module)):
        # `self.converters[fmt](pool)` of a table a decorator of the module fills with the defs it decorates
        # (`@Backend.register("fp8") def _to_bf16(buf)`), `_CONV[mode](pool)` of `_CONV = {"fp32": _widen}`: the
        # analysis runs them (ObjectFlow.decorator_params, ModuleAnalysis.value_callers)
        for unit in module.units:
            if type(unit.node) not in _DEFS:
                continue
            for n in pyast.nodes(unit.node):
                if (
                    type(n) is ast.Call
                    and (_table_call(n, module, registering) or _held_entry_call(n, module))
                    and _tainted_args(n, unit, taint, module)
                ):
                    return "a pool is passed to an entry of a table of the module's defs (a display, a decorator's)"
    found = _held_converter_called(module, taint, defs)
    if found:
        return found
    passed = set().union(*(u.fn_values for u in module.units)) if module.units else set()
    if not (
        passed & defs
        or "lambda" in passed
        or _held_defs(module)  # `hooks = [_identity, _upcast]` in a class body: a converting def held as a value
        or any(
            getattr(n, "decorator_list", None)
            for s in module.top
            for n in ([s] if type(s) in _DEFS else getattr(s, "body", ()))
            if type(n) in _DEFS
        )
    ):
        return None
    for unit in module.units:
        if type(unit.node) not in _DEFS and type(unit.node) is not ast.ClassDef:
            continue
        holders = None
        for name, receiver, call in unit.object_calls:
            if receiver or name in defs or name in ("self", "cls") or not (call.args or call.keywords):
                continue
            if holders is None:  # the parameters and loop targets of its defs (and their nested ones)
                holders = set()
                for n in pyast.nodes(unit.node):
                    if type(n) is ast.arg:
                        holders.add(n.arg)
                    elif type(n) in (ast.For, ast.AsyncFor, ast.comprehension) and type(n.target) is ast.Name:
                        holders.add(n.target.id)
            if name in holders and _tainted_args(call, unit, taint, module):
                return f"a pool is passed to {name}, a function value"
    return None


def _nested_only_defs(module: "_ModuleUnits") -> Set[str]:
    """Names only defs nested in a def spell (no top-level def or method of that name): a call spelled so
    may run what a factory returned, held under that name (`widen = self._make_widener(d)`)."""
    found = getattr(module, "_nested_only", None)
    if found is None:
        outer = [s for s in module.top if type(s) in _DEFS]
        outer += [n for s in module.top if type(s) is ast.ClassDef for n in s.body if type(n) in _DEFS]
        ids = {id(n) for n in outer}
        nested = {n.name for n in pyast.nodes(module.tree) if type(n) in _DEFS and id(n) not in ids}
        found = module._nested_only = nested - {n.name for n in outer}
    return found


def _closure_factories(module: "_ModuleUnits") -> bool:
    """Does a def of the module return a def nested in a def or a lambda (`return widen`, `return
    lambda c: c.float()`)? A call of what it made runs that closure (ObjectFlow.callable_values)."""
    found = getattr(module, "_closure_factories", None)
    if found is None:
        outer = {id(s) for s in module.top if type(s) in _DEFS}
        outer.update(id(n) for s in module.top if type(s) is ast.ClassDef for n in s.body if type(n) in _DEFS)
        everything = pyast.nodes(module.tree)
        nested = {n.name for n in everything if type(n) in _DEFS and id(n) not in outer}
        found = any(
            type(n) is ast.Return
            and (type(n.value) is ast.Lambda or (type(n.value) is ast.Name and n.value.id in nested))
            for n in everything
        )
        module._closure_factories = found
    return found


def _held_converter_called(module: "_ModuleUnits", taint: "_Taint", defs: Set[str]) -> Optional[str]:
    """A converting def held as a value (`fn = self._upcast if c else ident`, stored in a record or an
    attribute, not called there) and a pool passed to a callable read off an object that no def of the
    module names (`self.meta.kv_transform(kv)`): the analysis follows the value to that call
    (ModuleAnalysis.value_callers); the per-unit taint does not."""
    if not _converting_defs(module):
        return None
    modules = None
    for unit in module.units:
        for name, receiver, call in unit.object_calls:
            if receiver != "object" or name in defs or not _tainted_args(call, unit, taint, module):
                continue
            if modules is None:  # `torch.cat(...)`: a library's function, no held value
                modules = _imported_only(module.tree)
            if (pyast.dotted(call.func.value) or "").split(".")[0] not in modules:
                held = _held_defs(module)
                return f"a pool is passed to {name}, maybe a held converter ({sorted(held)[0]})" if held else None
    return None


def _held_defs(module: "_ModuleUnits") -> Set[str]:
    """The module's converting defs read as values, not called: `self.m` or a def's name outside a callee."""
    found = getattr(module, "_held_defs", None)
    if found is None:
        converting, called, found = _converting_defs(module), set(), set()
        if converting:
            for n in pyast.nodes(module.tree):
                if type(n) is ast.Call:
                    called.add(id(n.func))
                elif id(n) in called or type(getattr(n, "ctx", None)) is not ast.Load:
                    continue
                elif type(n) is ast.Attribute and n.attr in converting and _is_self(n.value):
                    found.add(n.attr)
                elif type(n) is ast.Name and n.id in converting:
                    found.add(n.id)
        module._held_defs = found
    return found


def _registering_decorators(module: "_ModuleUnits") -> bool:
    """Is some def decorated by a decorator the module defines (`@register("fp8")` of a top-level def,
    `@Backend.register("fp8")` of a method of a class of the module), which may store the def it is
    given in a table (ObjectFlow.decorator_params)?"""
    found = getattr(module, "_registering", None)
    if found is None:
        defined = {s.name for s in module.top if type(s) in _DEFS}
        methods = {m.name for s in module.top if type(s) is ast.ClassDef for m in s.body if type(m) in _DEFS}
        found = False
        for node in pyast.nodes(module.tree):
            if type(node) in _DEFS:
                for decorator in node.decorator_list:
                    head = decorator.func if type(decorator) is ast.Call else decorator
                    if (type(head) is ast.Name and head.id in defined) or (
                        type(head) is ast.Attribute and head.attr in methods
                    ):
                        found = True
        module._registering = found
    return found


def _tables_of_defs(module: "_ModuleUnits") -> Tuple[Set[str], Set[str]]:
    """(names, self attributes) bound to a display that holds a def or method of the module as an element
    or value (`_CONV = {"fp32": _widen}`, `self.stages = [self._densify, ...]`): entry tables whose calls run
    them (ModuleAnalysis.value_callers)."""
    found = getattr(module, "_def_tables", None)
    if found is None:
        defs = set(module.top_defs) | {
            m.name for s in module.top if type(s) is ast.ClassDef for m in s.body if type(m) in _DEFS
        }
        names: Set[str] = set()
        attrs: Set[str] = set()
        for targets, value in _assignments(module.tree):
            if type(value) is ast.Dict:
                values = value.values
            elif type(value) in (ast.List, ast.Tuple, ast.Set):
                values = value.elts
            else:
                continue
            if any(
                (type(v) is ast.Name and v.id in defs)
                or (type(v) is ast.Attribute and _is_self(v.value) and v.attr in defs)
                or (type(v) is ast.Lambda and _converting_lambda(v, module.vocab))
                or (type(v) is ast.Name and v.id in _converting_defs(module))  # a nested def that casts
                for v in values
            ):
                names |= {t.id for t in targets if type(t) is ast.Name}
                attrs |= {t.attr for t in targets if type(t) is ast.Attribute and _is_self(t.value)}
        found = module._def_tables = (names, attrs)
    return found


def _converting_lambda(fn: ast.Lambda, vocab: "_Vocabulary") -> bool:
    """Does a lambda of a table hold a cast (`"full": lambda buf, _lens: buf.to(self.compute_dtype)`)? A call
    of the table's entry runs it with the call's arguments (ObjectFlow.callable_values)."""
    return any(
        type(n) is ast.Call and type(n.func) is ast.Attribute and n.func.attr in vocab.casts
        for n in pyast.nodes(fn.body)
    )


def _table_call(call: ast.Call, module: "_ModuleUnits", registering: bool) -> bool:
    """Is call a call of an entry of a table that may hold the module's defs: one _tables_of_defs names, or
    (a decorator of the module registering defs) any subscripted container that is no def itself (a Triton
    launch `kernel[grid](...)` subscripts a def)?"""
    func = call.func
    if type(func) is not ast.Subscript:
        return False
    base = func.value
    names, attrs = _tables_of_defs(module)
    if (type(base) is ast.Name and base.id in names) or (
        type(base) is ast.Attribute and base.attr in (attrs | names) and (_is_self(base.value) or base.attr in names)
    ):
        return True
    if not registering:
        return False
    defs = set(module.top_defs)
    return not (type(base) is ast.Name and base.id in defs) and not (type(base) is ast.Attribute and base.attr in defs)


def _held_table_entries(module: "_ModuleUnits") -> Tuple[Set[str], Set[str]]:
    """(names, self attributes) bound to an entry of a table of the module's defs, chosen at runtime:
    `reader = _READERS[key]`, `self.reader = self._table.get(key, _identity)` (a subscript, or a take
    method of [containers], of a name or self attribute _tables_of_defs names); a call of one runs any entry
    (ObjectFlow.callable_values)."""
    found = getattr(module, "_held_entries", None)
    if found is None:
        tables, table_attrs = _tables_of_defs(module)
        names: Set[str] = set()
        attrs: Set[str] = set()
        if tables or table_attrs:

            def is_table(node: ast.AST) -> bool:
                return (type(node) is ast.Name and node.id in tables) or (
                    type(node) is ast.Attribute and node.attr in (table_attrs | tables)
                )

            for node in pyast.nodes(module.tree):
                if type(node) is not ast.Assign:
                    continue
                value = node.value
                if type(value) is ast.Subscript:
                    held = is_table(value.value)
                elif type(value) is ast.Call and type(value.func) is ast.Attribute:
                    held = value.func.attr in module.vocab.element_methods and is_table(value.func.value)
                else:
                    held = False
                if held:
                    names |= {t.id for t in node.targets if type(t) is ast.Name}
                    attrs |= {t.attr for t in node.targets if type(t) is ast.Attribute and _is_self(t.value)}
        found = module._held_entries = (names, attrs)
    return found


def _held_entry_call(call: ast.Call, module: "_ModuleUnits") -> bool:
    """Is call a call of a name or self attribute holding an entry of a table of the module's defs?"""
    func = call.func
    names, attrs = _held_table_entries(module)
    return (type(func) is ast.Name and func.id in names) or (
        type(func) is ast.Attribute and func.attr in attrs and _is_self(func.value)
    )


def _module_containers(tree: ast.Module, vocab: _Vocabulary) -> Set[str]:
    """Names the module's own statements bind to a container (`_READERS = {}`, `_CACHES = dict()`): what a
    function stores in one (`_READERS[fmt] = fn`, `_CACHES[name] = cache`) another reads
    (ObjectFlow.filled_values of a module-level container)."""
    found: Set[str] = set()
    for stmt in tree.body:
        if type(stmt) is ast.Assign:
            value, targets = stmt.value, stmt.targets
        elif type(stmt) is ast.AnnAssign and stmt.value is not None:
            value, targets = stmt.value, [stmt.target]
        else:
            continue
        if type(value) in (ast.Dict, ast.List, ast.Set) or (
            type(value) is ast.Call and _callee_name(value.func) in vocab.container_makers
        ):
            found |= {t.id for t in targets if type(t) is ast.Name}
    return found


def _container_members(tree: ast.Module, containers: Set[str]) -> Dict[bytes, Set[bytes]]:
    """name -> the identifiers a module-level container's own display names (`{"fp32": _widen}`)."""
    out: Dict[bytes, Set[bytes]] = {}
    if not containers:
        return out
    for stmt in tree.body:
        targets = stmt.targets if type(stmt) is ast.Assign else [stmt.target] if type(stmt) is ast.AnnAssign else []
        names = [t.id for t in targets if type(t) is ast.Name and t.id in containers]
        if names and stmt.value is not None:
            held = {n.id.encode() for n in _walk(stmt.value) if type(n) is ast.Name}
            for name in names:
                out.setdefault(name.encode(), set()).update(held)
    return out


def _fills_module_container(module: "_ModuleUnits", taint: "_Taint") -> Optional[str]:
    """Why a pool may be stored in a module-level container by a function (`_CACHES[name] = cache` in
    `register_kv_caches`, read in `forward`): the analysis reads every function's stores into it."""
    names = _module_containers(module.tree, module.vocab)
    if not names:
        return None
    for unit in module.units:
        if type(unit.node) not in _DEFS:
            continue
        for name, value in unit.name_stores:
            if name in names and taint.tainted(value, unit):
                return f"a pool is stored in the module-level container {name}"
    return None


def _module_holders(tree: ast.Module, vocab: _Vocabulary) -> Set[str]:
    """Names the module's own statements bind to a holder (`_KV = ContextVar("kv")`)."""
    holders: Set[str] = set()
    if not vocab.holder_makers:
        return holders
    for stmt in tree.body:
        if type(stmt) is ast.Assign:
            value, targets = stmt.value, stmt.targets
        elif type(stmt) is ast.AnnAssign:
            value, targets = stmt.value, [stmt.target]
        else:
            continue
        if type(value) is ast.Call and _callee_name(value.func) in vocab.holder_makers:
            holders |= {t.id for t in targets if type(t) is ast.Name}
    return holders


def _holder_stores(module: "_ModuleUnits", taint: "_Taint") -> Optional[str]:
    """Why a pool may be put in a module-level holder (`_KV.set(self.kv_caches)` of `_KV =
    ContextVar(...)`, `_tls.caches = runner.kv_caches` of `_tls = threading.local()`) and read back
    in another unit (ObjectFlow.held_values, held_attribute); None when no holder is given a pool."""
    vocab = module.vocab
    holders = _module_holders(module.tree, vocab)
    # a holder made anywhere (a local `box = queue.SimpleQueue()`, `self._q = queue.Queue()`): a setter
    # call's receiver may be it (ObjectFlow._holder_makings reads which)
    makes = vocab.holder_makers and any(
        name in vocab.holder_makers for unit in module.units for name, _, _ in unit.object_calls
    )
    if not holders and not makes:
        return None
    for unit in module.units:
        for name, receiver, call in unit.object_calls:
            func = call.func
            if (
                name in vocab.holder_setters
                and type(func) is ast.Attribute
                and (makes or (type(func.value) is ast.Name and func.value.id in holders))
                and _tainted_args(call, unit, taint, module)
            ):
                return f"a pool is stored in a holder ({name})"
        for node in pyast.nodes(unit.node):
            if type(node) is ast.Assign and any(
                type(t) is ast.Attribute and type(t.value) is ast.Name and t.value.id in holders for t in node.targets
            ):
                if taint.tainted(_refs(node.value, vocab, module.aliases), unit):
                    return "a pool is stored as an attribute of a module-level holder"
    return None


def _foreign_grows(module: "_ModuleUnits", taint: "_Taint") -> Optional[str]:
    """Why a pool may be appended to a list field of another object (`self.caches.keys.append(k)`,
    `rec.keys.extend(ks)`, `heappush(rec.heap, k)`) and read back wherever that object's class is read
    (ObjectFlow._external_grows); None when no such store is given a pool."""
    vocab = module.vocab
    for unit in module.units:
        for name, _, call in unit.object_calls:
            if name in vocab.grow_methods and call.args and type(call.func) is ast.Attribute:
                holder = _store_root(call.func.value, vocab)[0]
                value = call.args[-1] if name in vocab.grow_last else call.args[0]
            elif name in vocab.grow_functions and len(call.args) >= 2:
                holder, value = call.args[0], call.args[-1]
            else:
                continue
            if (
                type(holder) is ast.Attribute
                and not _is_self(holder.value)
                and taint.tainted(_refs(value, vocab, module.aliases), unit)
            ):
                return f"a pool is stored into a list field of another object ({name})"
    return None


def _allocates_small_state(cls: ast.ClassDef, vocab: _Vocabulary) -> bool:
    """Does the class allocate a tensor whose first dimension is a batch size or whose shape is
    literal (ModuleAnalysis._small_allocation)?"""
    for node in pyast.nodes(cls):
        if type(node) is not ast.Call or _callee_name(node.func) not in vocab.allocations or not node.args:
            continue
        size = node.args[0]
        dims = size.elts if type(size) in (ast.Tuple, ast.List) else node.args
        if dims and all(type(d) is ast.Constant for d in dims):
            return True
        words = set()
        for n in pyast.nodes(dims[0]):
            if type(n) is ast.Name:
                words |= set(n.id.lower().split("_"))
            elif type(n) is ast.Attribute:
                words |= set(n.attr.lower().split("_"))
        if words & vocab.batch_words:
            return True
    return False


def _imported_only(tree: ast.Module) -> Set[str]:
    """Names the module binds by an import and by nothing else (no def, class, assignment or parameter)."""
    found = tree.__dict__.get("_castlint_imported_only")
    if found is None:
        found = tree._castlint_imported_only = _imported_names_only(tree)
    return found


def _imported_names_only(tree: ast.Module) -> Set[str]:
    imported: Set[str] = set()
    bound: Set[str] = set()
    for n in pyast.nodes(tree):
        t = type(n)
        if t is ast.ImportFrom or t is ast.Import:
            imported.update((a.asname or a.name).split(".")[0] for a in n.names)
        elif t is ast.Name:
            if type(n.ctx) is not ast.Load:
                bound.add(n.id)
        elif t in _DEFS or t is ast.ClassDef:
            bound.add(n.name)
        elif t is ast.arg:
            bound.add(n.arg)
        elif t is ast.alias:
            continue
        elif t in (ast.Global, ast.Nonlocal):
            bound.update(n.names)
    return imported - bound


def _constructed(name: str, unit: "_Unit") -> str:
    """The class a call `name(...)` constructs, as the analysis reads it: `cls(...)` in a method
    (a classmethod factory) makes the method's own class (ObjectFlow.constructed_class)."""
    if name == "cls" and unit.cls is not None:
        return unit.cls.name
    return name


def _callables_constructed_with(module: "_ModuleUnits", classes, taint: "_Taint") -> Optional[str]:
    """A module class constructed with a callable that returns a pool (`Probe(self._all_k)`, `Probe(lambda:
    self.kv_caches)`): the object may store and call it (ObjectFlow.callable_values through the constructions),
    which the per-unit taint does not follow."""
    for unit in module.units:
        for name, receiver, call in unit.object_calls:
            if receiver != "" or _constructed(name, unit) not in classes:
                continue
            for arg in (*call.args, *(k.value for k in call.keywords)):
                if type(arg) is ast.Lambda:
                    returned = taint.tainted(_refs(arg.body, module.vocab, module.aliases), unit)
                elif type(arg) is ast.Attribute and _is_self(arg.value):
                    returned = bool(taint.returns.get(arg.attr))
                else:
                    returned = type(arg) is ast.Name and bool(taint.returns.get(arg.id))
                if returned:
                    return f"{name} is constructed with a callable that returns a pool"
    return None


def _through_own_decorator(module: "_ModuleUnits", taint: "_Taint") -> Optional[str]:
    """A def that a decorator of the module wraps (`@deco`, `@deco(dtype)`, `@Deco`: a top-level
    def or class of the file) and that is called with a pool, holds a site or returns a pool:
    the analysis follows the call through the decorator's wrapper (ObjectFlow.decorated), which
    the per-unit taint does not."""
    defined = {
        s.name
        for s in module.top
        if any(  # a def that can return a wrapper, a class with __call__
            isinstance(n, _DEFS + (ast.Lambda,)) and n is not s for n in pyast.nodes(s)
        )
    }
    wrapped = set()
    for node in pyast.nodes(module.tree):
        if isinstance(node, _DEFS):
            for decorator in node.decorator_list:
                head = decorator.func if isinstance(decorator, ast.Call) else decorator
                if isinstance(head, ast.Name) and head.id in defined:
                    wrapped.add(node.name)
    if not wrapped:
        return None
    for unit in module.units:
        if (
            type(unit.node) in _DEFS
            and unit.node.name in wrapped
            and (taint.has_site(unit) or taint.returns.get(unit.node.name))
        ):
            return f"{unit.node.name}, which a decorator of the module wraps, converts or returns a pool"
        for name, _, call in unit.object_calls:
            if name in wrapped and _tainted_args(call, unit, taint, module):
                return f"a pool is passed to {name}, which a decorator of the module wraps"
    return None


def _unwrap_identity(node: ast.AST, vocab: _Vocabulary) -> ast.AST:
    """`nn.Parameter(torch.zeros(...))`, `nn.Buffer(...)`: the allocation ([callables] identity_wrappers)."""
    while type(node) is ast.Call and node.args and _callee_name(node.func) in vocab.identity_names:
        node = node.args[0]
    return node


def _instance_arenas(module: "_ModuleUnits") -> Optional[str]:
    """A class that stores an allocation on self (`self.k = torch.empty(...)`, `self.register_buffer("k",
    nn.Buffer(...))`) in a run-once method and is constructed once per element (a comprehension's
    element, `nn.ModuleList(Slot(...) for _ in ...)`), or sets one under a computed name in a loop: the
    analysis reads those attributes as one layer's pool on any object (ModuleAnalysis._instance_arena)."""
    vocab = module.vocab
    storing: Set[str] = set()
    for cls in module.top:
        if not isinstance(cls, ast.ClassDef):
            continue
        for method in cls.body:
            if not isinstance(method, _DEFS) or method.name not in vocab.run_once:
                continue
            for node in _walk(method):
                value, looped = None, False
                if type(node) is ast.Assign and any(
                    type(t) is ast.Attribute and _is_self(t.value) for t in node.targets
                ):
                    value = node.value
                elif type(node) is ast.Call and _setter_args(node, vocab) is not None:
                    args = _setter_args(node, vocab)
                    value, looped = (args[1], not _str_constant(args[0])) if len(args) >= 2 else (None, False)
                if type(value) is ast.Call and _callee_name(value.func) in vocab.weight_names:
                    continue  # `nn.Parameter(torch.zeros(hidden_size))`: a weight
                value = _unwrap_identity(value, vocab) if value is not None else None
                if (
                    type(value) is ast.Call
                    and _callee_name(value.func) in vocab.allocations
                    and _may_be_arena(value, vocab)
                    and _pool_sized_words(value, vocab)
                ):
                    if looped:
                        return f"{cls.name} sets an allocation under a computed name"
                    storing.add(cls.name)
    if not storing:
        return None
    for node in _walk(module.tree):
        if type(node) is ast.Call and _callee_name(node.func) in vocab.module_containers:
            for arg in node.args:  # `nn.ModuleList(Slot(...) for _ in ...)`, `nn.Sequential(*[...])`
                inner = arg.value if type(arg) is ast.Starred else arg
                element = (
                    (inner.value if type(inner) is ast.DictComp else inner.elt)
                    if type(inner) in _COMPREHENSIONS
                    else next((v for v in inner.values if v is not None), None)
                    if type(inner) is ast.Dict
                    else None
                )
                if type(element) is ast.Call and _callee_name(element.func) in storing:
                    return (
                        f"{_callee_name(element.func)} allocates on self and is built per element of a module container"
                    )
        if type(node) in _COMPREHENSIONS:
            element = node.value if type(node) is ast.DictComp else node.elt
            if (
                type(element) is ast.Call
                and _callee_name(element.func) in storing
                and any(_over_layers(g.iter, vocab) for g in node.generators)
            ):
                return f"{_callee_name(element.func)} allocates on self and is built per layer"
        elif type(node) is ast.For and _over_layers(node.iter, vocab):
            for inner in _walk(node):  # `xs.append(Slot(...))`, `d[k] = Slot(...)` (ModuleAnalysis._stored_in_loop)
                made = None
                if type(inner) is ast.Call and _callee_name(inner.func) in ("append", "insert") and inner.args:
                    made = inner.args[-1]
                elif type(inner) is ast.Assign and any(type(t) is ast.Subscript for t in inner.targets):
                    made = inner.value
                if type(made) is ast.Call and _callee_name(made.func) in storing:
                    return f"{_callee_name(made.func)} allocates on self and is stored per element in a loop"
    return None


def _pool_sized_words(call: ast.Call, vocab: _Vocabulary) -> bool:
    """A pool word or a shape name in the allocation's first sized dimension (ModuleAnalysis._pool_sized)."""
    size = next((k.value for k in call.keywords if k.arg == "size"), call.args[0] if call.args else None)
    if type(size) in (ast.Tuple, ast.List):
        size = next((e for e in size.elts if not (type(e) is ast.Constant and type(e.value) is int)), None)
    words = set()
    for node in pyast.nodes(size) if size is not None else ():
        if type(node) is ast.Name:
            words |= set(node.id.lower().split("_"))
        elif type(node) is ast.Attribute:
            words |= set(node.attr.lower().split("_"))
    return bool(words & (vocab.pool_words | vocab.shape_words)) and not words & vocab.not_pool_words


def _arenas_handed_on(module: "_ModuleUnits") -> Optional[str]:
    """An allocation handed to a call in a loop over the layers (`Registry.publish(i, torch.empty((blocks,
    ...)))`): the analysis reads it as one layer's pool wherever the callee puts it
    (ModuleAnalysis._arena_allocation)."""
    vocab = module.vocab
    allocations = vocab.allocations
    if not any(  # the one index walk first: most files hand no allocation to a call at all
        type(node) is ast.Call and any(type(a) is ast.Call and _callee_name(a.func) in allocations for a in node.args)
        for node in pyast.nodes(module.tree)
    ):
        return None
    for loop in _walk(module.tree):
        if type(loop) is not ast.For or not _over_layers(loop.iter, vocab):
            continue
        for node in _walk(loop):
            if type(node) is ast.Call and any(
                type(a) is ast.Call and _callee_name(a.func) in vocab.allocations and _may_be_arena(a, vocab)
                for a in node.args
            ):
                return f"an allocation is handed to {_callee_name(node.func)} once per layer"
    return None


def _held_arenas(module: "_ModuleUnits", taint: Optional["_Taint"] = None) -> Set[str]:
    """The attributes a class assigns a pool itself (an accessor's result, a cache attribute,
    per-layer arenas: `self.arenas = {"k": [torch.zeros(...) for _ in range(n)]}`) and those
    assigned from them (`self.v_list = self.arenas["v"]`): read on another object
    (`self.pool.arenas["k"][i]`, `pool.v_list`), the analysis follows them."""
    held: Dict[int, Set[str]] = {}

    def key(cls) -> int:  # one per hierarchy, as the taint's: a base's __post_init__ or __init__ may assign it
        return taint.class_key(cls) if taint is not None else id(cls)

    for unit in module.units:
        if unit.cls is not None:
            mine = held.setdefault(key(unit.cls), set())
            for names, attrs, value, _ in unit.assigns:
                if attrs and (value.base or (taint is not None and value.names and taint.tainted(value, unit))):
                    mine |= attrs  # also `self.pairs.append((k, v))` of arenas bound to names
    changed = True
    while changed:
        changed = False
        for unit in module.units:
            mine = held.get(key(unit.cls)) if unit.cls is not None else None
            if not mine:
                continue
            for attr, inner in unit.attr_values.items():
                if attr not in mine and inner & mine:
                    mine.add(attr)
                    changed = True
    return set().union(*held.values()) if held else set()


def _held_getters(module: "_ModuleUnits", classes: Dict[str, ast.ClassDef], taint: "_Taint") -> Optional[str]:
    """A property that returns a pool (read as `obj.name`, no call), or a lambda that reads one
    (held under a name or attribute and called later): the analysis follows both."""
    vocab = module.vocab
    for cls in classes.values():
        for method in cls.body:
            if isinstance(method, _DEFS) and any(
                vocab.is_property_decorator(pyast.dotted(d)) for d in method.decorator_list
            ):
                if taint.returns.get(method.name) or any(
                    type(n) is ast.Return and n.value is not None and _refs(n.value, vocab, module.aliases).base
                    for n in pyast.nodes(method)
                ):
                    return f"a pool is returned by the property {cls.name}.{method.name}"
    tainted = (
        any(any(unit.names.values()) for unit in module.units)
        or any(any(attrs.values()) for attrs in taint.attrs.values())
        or any(taint.returns.values())
    )
    named = set()  # lambdas bound to a plain name or mapped: the per-unit taint follows those
    for node in pyast.nodes(module.tree):
        if (
            type(node) is ast.Assign
            and type(node.value) is ast.Lambda
            and all(type(t) is ast.Name for t in node.targets)
        ):
            named.add(id(node.value))
        elif (
            type(node) is ast.Call
            and _callee_name(node.func) == "map"
            and node.args
            and type(node.args[0]) is ast.Lambda
        ):
            named.add(id(node.args[0]))
    called: Set[int] = set()
    for node in pyast.nodes(module.tree):
        t = type(node)
        if t is ast.Lambda and _refs(node.body, vocab, module.aliases).base:
            return "a lambda reads a pool"
        if (
            t is ast.Lambda
            and id(node) not in named
            and tainted
            and any(
                type(n) is ast.Call and type(n.func) is ast.Attribute and n.func.attr in vocab.casts
                for n in pyast.nodes(node.body)
            )
        ):
            return "a lambda converts what it is given (the call that passes a pool converts it)"
        if t is ast.Call and tainted and _callee_name(node.func) in vocab.item_getters:
            return "an item getter is held (itemgetter(k)(x) reads x[k] where it is called)"
        if _held_conversion(node, vocab, called, module.tree):
            return "a conversion is held uncalled (a partial, getattr or map of a cast or helper)"
        if (
            t is ast.Call
            and _callee_name(node.func) in vocab.holders
            and node.args
            and _callee_name(node.args[0]) in _converting_defs(module)
            and (tainted or _passes_a_pool(module))
        ):
            return "a def that converts what it is given is held uncalled (a partial, partialmethod)"
        if (
            t is ast.Call
            and _callee_name(node.func) in vocab.holders
            and node.args
            and taint.returns.get(_callee_name(node.args[0]) or "")
        ):
            return "a function or method that returns a pool is held uncalled (a partial, staticmethod)"
        if t is ast.Yield and node.value is not None and _reads_pool(node.value, module, taint):
            return "a generator yields a pool"
        if (
            t is ast.YieldFrom
            and type(node.value) is ast.Call
            and any(taint.returns.get(name) for name, _ in _refs(node.value, vocab, module.aliases).calls)
        ):
            return "a generator delegates to another (yield from)"
        if t is ast.Call:
            if type(node.func) is ast.IfExp and _refs(node.func, vocab, module.aliases).bound:
                return "a pool accessor is picked by a conditional expression"
            for keyword in node.keywords:
                if (
                    keyword.arg is None
                    and type(keyword.value) is ast.Dict
                    and any(v is not None and _reads_pool(v, module, taint) for v in keyword.value.values)
                ):
                    return "a pool is passed in a **{...} dict"
    return None


def _reads_pool(expr: ast.AST, module: "_ModuleUnits", taint: "_Taint") -> bool:
    """Does expr read a pool: an accessor or cache attribute, a held accessor, what a def of the module returning
    one returns, an attribute some class of the module assigns one, or an attribute of an object a unit holds a
    pool in (`yield frame.to_ndarray()` of an object nothing here fills reads none)?"""
    refs = _refs(expr, module.vocab, module.aliases)
    if refs.base or refs.bound or any(taint.returns.get(name) for name, _ in refs.calls):
        return True
    if not refs.members:
        return False
    found = getattr(module, "_pool_holders", None)
    if found is None:  # the attributes a class fills with a pool, the names a unit holds one in
        found = module._pool_holders = (
            {attr for attrs in taint.attrs.values() for attr, levels in attrs.items() if levels},
            {name for unit in module.units for name, levels in unit.names.items() if levels},
        )
    filled, held = found
    if ANY_ATTR in filled or refs.members & filled:
        return True
    # `yield ns.kv` of an object some unit holds a pool in (a namespace, a record of another module)
    return any(type(n) is ast.Name and n.id in held for n in pyast.nodes(expr))


def _method_owners(receiver: str, unit: "_Unit", classes: Dict[str, ast.ClassDef], made: Set[str]) -> List[str]:
    """Classes whose method a call may reach beyond the unit's own class: any class of the module
    for `obj.m()` (a constructed one, or the one that defines m: ObjectFlow.duck_class), the unit's
    bases (in the module) for `self.m()` or `super().m()`."""
    if receiver == "object":
        return sorted(classes)
    if unit.cls is None:
        return []
    bases, stack = [], [unit.cls]
    while stack:
        for base in stack.pop().bases:
            name = base.id if isinstance(base, ast.Name) else getattr(base, "attr", None)
            if name in classes and name not in bases:
                bases.append(name)
                stack.append(classes[name])
    return bases


def _local_class_calls(module: "_ModuleUnits", taint: "_Taint") -> Optional[str]:
    """A def that defines a class in its body and calls a name or a name's method with a pool (`up =
    _Up(dt)`, `up(pool)`): the analysis runs the local class's methods (ModuleAnalysis's object calls),
    whose parameters the per-unit taint does not bind."""
    for unit in module.units:
        if type(unit.node) not in _DEFS:
            continue
        nodes = list(pyast.nodes(unit.node))
        if not any(type(n) is ast.ClassDef for n in nodes):
            continue
        stored = {n.attr for n in nodes if type(n) is ast.Attribute and type(n.ctx) is not ast.Load}
        for n in nodes:
            target = n.func if type(n) is ast.Call else None
            if (
                _is_self(getattr(target, "value", None))
                and target.attr not in unit.defs
                and target.attr not in stored
                and target.attr not in module.method_names
            ):
                # `self.do_update(layer, kv_cache)` in a local class's method, of a method no def of the module
                # defines nor a store holds: the base's the factory is handed (another module's), no local object
                continue
            while type(target) in (ast.Attribute, ast.Call):  # `up(pool)`, `Up(dt).apply(pool)`: the root name
                target = target.value if type(target) is ast.Attribute else target.func
            if type(target) is ast.Name and target.id not in _BUILTIN_NAMES and _tainted_args(n, unit, taint, module):
                return "a pool is passed to an object of a class a def defines"
    return None


def _local_object_calls(module: "_ModuleUnits", taint: "_Taint") -> Optional[str]:
    """A local name assigned a call's result and then called with a pool (`read = self.reader_type(meta)`,
    `read(k_cache)`): the object may be an instance of a class of the module whose `__call__` the analysis
    runs with the pool (ObjectFlow._called_objects); the per-unit taint keeps only calls of defs. A
    module-level one too (`dense_latent = _DenseLatent()`, `dense_latent(buf, dtype)` in a method)."""
    instances = {
        t.id
        for s in module.module_rest.node.body
        if type(s) in (ast.Assign, ast.AnnAssign) and type(s.value) is ast.Call
        for t in (s.targets if type(s) is ast.Assign else [s.target])
        if type(t) is ast.Name
    }
    for unit in module.units:
        if type(unit.node) not in _DEFS:
            continue
        made = instances | {
            t.id
            for n in pyast.nodes(unit.node)
            if type(n) is ast.Assign and type(n.value) is ast.Call
            for t in n.targets
            if type(t) is ast.Name
        }
        for n in pyast.nodes(unit.node) if made else ():
            if type(n) is ast.Call and type(n.func) is ast.Name and n.func.id in made:
                if _tainted_args(n, unit, taint, module):
                    return f"a pool is passed to {n.func.id}, maybe an object whose class has __call__"
    return None


def _tainted_args(call: ast.Call, unit: "_Unit", taint: "_Taint", module: "_ModuleUnits") -> bool:
    args = list(call.args) + [k.value for k in call.keywords]
    vocab = module.vocab
    return any(
        taint.tainted(_refs(a, vocab, module.aliases), unit)
        or (type(a) is ast.Call and _callee_name(a.func) in vocab.allocations and _may_be_arena(a, vocab))
        for a in args
    )  # a record built over a pool-sized allocation (ModuleAnalysis._arena_allocation)


def _class_and_bases(name: str, classes: Dict[str, ast.ClassDef]) -> List[str]:
    """name and its bases among the module's classes, by name, transitively."""
    out, stack = [], [name]
    while stack:
        current = stack.pop()
        if current in out or current not in classes:
            continue
        out.append(current)
        stack.extend(pyast.dotted(b) or "" for b in classes[current].bases)
    return out


def _assigned_attrs(module: "_ModuleUnits", cls: ast.ClassDef) -> Set[str]:
    """The self attributes cls's methods assign, and the fields a record class declares."""
    out: Set[str] = set()
    for node in pyast.nodes(cls):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.ctx, ast.Store)
            and isinstance(node.value, ast.Name)
            and node.value.id == "self"
        ):
            out.add(node.attr)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            out.add(node.target.id)
    for stmt in cls.body:  # class-body names: a record's fields declared by a call (`kv = attr.ib()`)
        if isinstance(stmt, ast.Assign):
            for target in stmt.targets:
                if isinstance(target, ast.Name):
                    out.add(target.id)
    return out


def _decide_from_text(source: bytes, vocab: _Vocabulary) -> Optional[PrunePlan]:
    """FULL or NOTHING when the bytes alone decide, before parsing; else None."""
    if source.startswith(b"\xef\xbb\xbf"):
        return PrunePlan(FULL, reason="byte-order mark")
    if vocab.whole_file_groups and prefilter_has_trigger(source, vocab.whole_file_groups):
        return PrunePlan(FULL, reason="a rule that prune does not model may fire here")
    if not _convention_possible(source, vocab):
        return PrunePlan(NOTHING, reason="only a calling convention's words, and no signature that has it")
    return None


class _ModuleUnits:
    """The units of one parsed file that planning reads: the module's own statements, and
    the top-level defs and classes that pass the words gate or are called from those."""

    def __init__(
        self,
        tree: ast.Module,
        source: bytes,
        vocab: _Vocabulary,
        arena_tables: Optional[Tables] = None,
        inert_slices: bool = False,
    ):
        self.tree, self.source, self.vocab = tree, source, vocab
        # arena_tables, when the file may allocate per-layer arenas (whole pools under any name): a
        # definition allocating them passes the words gate
        self.arena_tables = arena_tables
        both = _import_aliases(tree, source, vocab.through_functions | vocab.helpers, vocab.alias_words)
        self.aliases = (
            frozenset(a for a, original in both if original in vocab.through_functions)
            | _getter_names(tree, source, vocab)
            | _range_names(tree, source, vocab)
            | _held_slices(tree, source, vocab)
            | _moved_names(tree, source, vocab)
            | _keeping_callables(tree, source, vocab)
            | _attribute_name_constants(tree, source, vocab)
            | _constant_index_names(tree, vocab)
            | (INERT_SLICES if inert_slices else frozenset())
        )
        self.helper_aliases = frozenset(a for a, original in both if original in vocab.helpers) - vocab.helpers
        self.fn_aliases: Dict[str, Set[str]] = {}  # `_up = torch.compile(_up_impl)`: _up -> {_up_impl}
        self.params: Params = {}
        self.module_rest = _Unit(tree)
        self.units: List[_Unit] = [self.module_rest]
        self.top = [s for s in tree.body if isinstance(s, _DEFS + (ast.ClassDef,))]
        self.top_defs = {s.name: s for s in self.top if isinstance(s, _DEFS)}
        # id(statement) -> its _Unit (a def) or (method units, the rest of the class)
        self.collected: Dict[int, object] = {}
        # methods of the module's classes named as tensor methods are (`def take(self, k, v)`): `obj.take(kv)`
        # may run them (ObjectFlow.duck_class), so such calls feed their parameters
        self.method_names = frozenset(
            n.name for c in self.top if isinstance(c, ast.ClassDef) for n in c.body if isinstance(n, _DEFS)
        ) & (vocab.through_methods | vocab.gather_methods)

    def _collect(self, unit: _Unit) -> None:
        _collect(unit, self.vocab, self.params, self.aliases, self.helper_aliases, self.fn_aliases, self.method_names)

    def installs_in(self) -> Dict[str, ast.ClassDef]:
        """Top-level defs that decorate a class of the module (`@with_accessors`, `@with_accessors(...)`)
        and store on their first parameter (`cls.plane = plane`, `setattr(cls, "plane", plane)`, in
        their body or in the def they return): def name -> the first class they decorate."""
        found = self.__dict__.get("_installs")
        if found is not None:
            return found
        found = self._installs = {}
        attrs = self._installed_attrs = {}
        for cls in self.top:
            if not isinstance(cls, ast.ClassDef):
                continue
            for decorator in cls.decorator_list:
                func = decorator.func if type(decorator) is ast.Call else decorator
                deco = self.top_defs.get(func.id) if type(func) is ast.Name else None
                if deco is None:
                    continue
                for node in ast.walk(deco):
                    if type(node) in _DEFS and node.args.args:
                        param = node.args.args[0].arg
                        stores = [s for s in node.body if _stores_on(s, param)]
                        if stores:
                            found.setdefault(deco.name, cls)
                            for attr, value in map(_stored_attribute, stores):
                                # `cls.plane = _plane`: the decorated class gets _plane as its method plane
                                if attr is not None and type(value) is ast.Name and value.id in self.top_defs:
                                    found.setdefault(value.id, cls)
                                    attrs.setdefault(value.id, set()).add(attr)
                            break
        classes = {c.name: c for c in self.top if isinstance(c, ast.ClassDef)}
        for cls, value in _installed_values(self.tree, classes, self.vocab):
            # `Pool.plane = _plane`, `setattr(Pool, "plane", _plane)` at module level, `v = property(fget=_v)`
            # in a class body
            getter = _property_getter(value, self.vocab)
            held = getter if getter is not None else value
            if type(held) is ast.Name and held.id in self.top_defs:
                found.setdefault(held.id, cls)
        for cls in classes.values():
            for stmt in cls.body:  # a class body's `n = f`: `self.n(kv)` runs f
                if type(stmt) is ast.Assign and len(stmt.targets) == 1 and type(stmt.targets[0]) is ast.Name:
                    if type(stmt.value) is ast.Name and stmt.value.id in self.top_defs:
                        attrs.setdefault(stmt.value.id, set()).add(stmt.targets[0].id)
            for attr, name in _bound_to_self(cls, self.top_defs, self.vocab):
                # `self.n = types.MethodType(f, self)` in a method: f is a method n of cls
                found.setdefault(name, cls)
                attrs.setdefault(name, set()).add(attr)
        return found

    def delegating_classes(self) -> Set[str]:
        """The top-level classes with a call_delegates base (`nn.Module`), directly or through the module's."""
        found = self.__dict__.get("_delegating")
        if found is None:
            found = self._delegating = set()
            bases = {c.name: {_base_name(b) for b in c.bases} for c in self.top if isinstance(c, ast.ClassDef)}
            changed = True
            while changed:
                changed = False
                for name, named in bases.items():
                    if name not in found and named & (self.vocab.call_delegate_bases | found):
                        found.add(name)
                        changed = True
        return found

    def collect_module_level(self) -> Optional[PrunePlan]:
        """Module level: globals flow everywhere, so any pool here means FULL (returned).
        Its other statements are kept verbatim; they form one unit (defs in an if, named
        lambdas)."""
        for stmt in self.tree.body:
            if isinstance(stmt, _DEFS + (ast.ClassDef,)):
                continue
            if _base_only(stmt, self.vocab):
                return PrunePlan(FULL, reason="a pool is named at module level")
            part = _Unit(stmt)
            self._collect(part)
            if part.plans or part.helpers or part.casts and any(r.base for r, _ in part.casts):
                return PrunePlan(FULL, reason="a candidate at module level")
            if any(value.bound for _, _, value, _ in part.assigns):  # `_kv = attrgetter("pool.k_buffer")`
                return PrunePlan(FULL, reason="an accessor is held uncalled at module level")
            _merge(self.module_rest, part, self.params)
        return None

    def collect_statement(self, stmt: ast.stmt) -> None:
        """Collect a top-level def, or a class: each method, and the rest (decorators,
        bases and non-method statements) as one unit."""
        if isinstance(stmt, _DEFS):
            unit = _Unit(stmt)
            self._collect(unit)
            # a class decorator that installs defs as methods (`cls.plane = plane`): their `self.x`
            # is the decorated class's (ObjectFlow.installed_methods)
            unit.cls = self.installs_in().get(stmt.name)
            for attr in sorted(self._installed_attrs.get(stmt.name, ())):  # `self.plane(kv)` runs it
                _register(unit, attr, stmt.args, self.params, True, self.vocab, stmt)
            self.collected[id(stmt)] = unit
            self.units.append(unit)
            return
        methods = [_Unit(s, stmt) for s in stmt.body if isinstance(s, _DEFS)]
        rest = _Unit(stmt, stmt)
        delegating = stmt.name in self.delegating_classes()
        for method in methods:
            self._collect(method)
            if delegating and method.node.name in self.vocab.delegated_call_methods:
                # `pool(i)` of an nn.Module runs forward: what it returns is its __call__'s (a pool passed to
                # such a call is _object_flow's "maybe an object whose class has __call__")
                method.returns.setdefault("__call__", []).extend(method.returns.get(method.node.name, ()))
                method.defs.add("__call__")  # kept where kept code reads what a call of such an object returns
        for node in (
            list(stmt.decorator_list)
            + list(stmt.bases)
            + list(stmt.keywords)
            + [s for s in stmt.body if not isinstance(s, _DEFS)]
        ):
            part = _Unit(node, stmt)
            self._collect(part)
            _merge(rest, part, self.params)
        self.collected[id(stmt)] = (methods, rest)
        self.units.extend(methods)
        self.units.append(rest)

    def collect_reachable(self) -> None:
        """A def or class that names no pool (the module level names none either) can only
        matter through a call from code that does: collect those that pass the words gate,
        then the top-level functions they call, transitively."""
        source, vocab = self.source, self.vocab
        offsets = [0, *accumulate(map(len, source.splitlines(keepends=True)))]  # line -> its first byte
        gate = ((vocab.gate_words,),)
        words: Dict[int, Set[bytes]] = {}  # id(statement) -> the identifiers its text mentions
        # the members of a class allocating arenas: an object of unknown class used through one of
        # them may be an instance of it (ObjectFlow.duck_class)
        members: Set[bytes] = set()
        for stmt in self.top:
            segment = source[offsets[_first_line(stmt) - 1] : offsets[min(stmt.end_lineno, len(offsets) - 1)]]
            arenas = self.arena_tables is not None and may_allocate_arenas(segment, self.arena_tables, converts=False)
            if (
                prefilter_has_trigger(segment, gate)
                or b"global" in segment
                or _has_convention(stmt, vocab)
                or arenas
                or ((b".items()" in segment or b"fields(" in segment) and _walks_named_fields(stmt, vocab))
            ):
                self.collect_statement(stmt)
                if arenas and isinstance(stmt, ast.ClassDef):
                    members |= {m.encode() for m in _class_members(stmt)}
                # `self.held[i] = pool.get_key_buffer(i)`, `md.ref = pool.k_buffer`: read on other objects
                members |= {m.encode() for m in _pool_holding_attrs(stmt, vocab)}
            else:
                words[id(stmt)] = set(_IDENTIFIER.findall(segment))
        # A value moves between top-level definitions only through a name one of them
        # mentions: a call or construction of the other, a subclass naming its base, a
        # decorator, a callable handed on. Collect, transitively, every definition that
        # mentions a collected one, and every definition a collected one mentions.
        mentioned: Set[bytes] = set()
        collected_names: Set[bytes] = set()
        # a module-level holder (`_KV = ContextVar(...)`) links every definition that names it
        containers = _module_containers(self.tree, vocab)
        holders = {h.encode() for h in _module_holders(self.tree, vocab) | containers}
        # what a module-level container's display names (`_CONV = {"fp32": _widen}`): read where it is read
        held_in = _container_members(self.tree, containers)
        # a method one class of the module defines, called on some object (`attn.bind_cache(k, v)`):
        # the analysis takes the object for an instance of that class (ObjectFlow.duck_class)
        definers: Dict[bytes, List[ast.ClassDef]] = {}
        for stmt in self.top:
            if isinstance(stmt, ast.ClassDef) and id(stmt) not in self.collected:
                for m in stmt.body:
                    if isinstance(m, _DEFS) and not m.name.startswith("__"):
                        definers.setdefault(m.name.encode(), []).append(stmt)
        unique = {name: found[0] for name, found in definers.items() if len(found) == 1}
        # a dict one class assigns to self, looked up on some object (`pool.layer_id_map[layer.layer_id]`):
        # its values may decide an index's kind (ModuleAnalysis._dict_value_kind through duck_class)
        dict_holders = _dict_holders(self.top, self.collected)
        # an object of unknown class called (`self.provider(i)`) may be the one class defining `__call__`
        # (ObjectFlow._duck_called): once that class is collected, so is every def calling a held object
        callers = _duck_callers(self.top, self.collected, vocab, source, offsets)
        instances = _module_instances(self.tree)
        pending = [s for s in self.top if id(s) in self.collected]
        while pending:
            ducks = []
            for stmt in pending:
                collected_names.add(stmt.name.encode())
                segment = source[offsets[_first_line(stmt) - 1] : offsets[min(stmt.end_lineno, len(offsets) - 1)]]
                mentioned |= set(_IDENTIFIER.findall(segment))
                if unique:
                    ducks.extend(unique[n] for n in _OBJECT_CALL.findall(segment) if n in unique)
                if dict_holders:
                    ducks.extend(dict_holders[n] for n in _OBJECT_SUBSCRIPT.findall(segment) if n in dict_holders)
                if callers and stmt in callers[0]:
                    ducks.extend(callers[1])
            for name, held in self.fn_aliases.items():  # a call of `_up` (`self._up`) runs `_up_impl`
                if name.lstrip(".").encode() in mentioned:
                    mentioned |= {h.rsplit(".", 1)[-1].encode() for h in held}
            for name, held in held_in.items():
                if name in mentioned:
                    mentioned |= held
            for name, made_by in instances.items():  # `ops = LatentOps()`: a use of ops runs LatentOps's methods
                if name in mentioned:
                    mentioned.add(made_by)
            pending = [
                s
                for s in self.top
                if id(s) not in self.collected
                and (
                    s.name.encode() in mentioned
                    or words[id(s)] & collected_names
                    or words[id(s)] & members
                    or words[id(s)] & holders & mentioned
                    or any(d is s for d in ducks)
                )
            ]
            for stmt in pending:
                self.collect_statement(stmt)


def _module_instances(tree: ast.Module) -> Dict[bytes, bytes]:
    """{name: class name} of the module-level `name = Cls(...)` (`dense_latent = _DenseLatent(512)`)."""
    out: Dict[bytes, bytes] = {}
    for s in tree.body:
        if type(s) in (ast.Assign, ast.AnnAssign) and type(s.value) is ast.Call and type(s.value.func) is ast.Name:
            for t in s.targets if type(s) is ast.Assign else [s.target]:
                if type(t) is ast.Name:
                    out[t.id.encode()] = s.value.func.id.encode()
    return out


def _duck_callers(top, collected, vocab: "_Vocabulary", source: bytes, offsets) -> Optional[tuple]:
    """([the one class defining a [callables] duck_protocol method], [the uncollected top-level statements
    that call a held object: `self.x(` or `name(` with no def of that name]), or None."""
    definers = [
        s
        for s in top
        if isinstance(s, ast.ClassDef) and any(isinstance(m, _DEFS) and m.name in vocab.duck_protocol for m in s.body)
    ]
    if len(definers) != 1:
        return None
    defined = {
        m.name.encode()
        for s in top
        for m in ([s] + list(getattr(s, "body", ())))
        if isinstance(m, (*_DEFS, ast.ClassDef))
    }
    out = []
    for stmt in top:
        if id(stmt) in collected or not isinstance(stmt, (*_DEFS, ast.ClassDef)):
            continue
        segment = source[offsets[_first_line(stmt) - 1] : offsets[min(stmt.end_lineno, len(offsets) - 1)]]
        if any(n not in defined and n.decode() not in _BUILTIN_NAMES for n in _HELD_CALL.findall(segment)):
            out.append(stmt)
    return (definers, out) if out else None


# `self.provider(`, `read(`: a held callable (or a method, an imported function)
_HELD_CALL = re.compile(rb"(?:\bself\.|(?<![\w.]))(\w+)\s*\(")
_OBJECT_CALL = re.compile(rb"(?<!\bself)\.(\w+)\s*\(")  # `obj.m(`: a method called on some object
_OBJECT_SUBSCRIPT = re.compile(rb"(?<!\bself)\.(\w+)\s*\[")  # `obj.x[`: an attribute of some object indexed


def _dict_holders(top: List[ast.AST], collected: Dict[int, object]) -> Dict[bytes, ast.ClassDef]:
    """Attribute name -> the one uncollected class that assigns `self.name` a dict display or comprehension."""
    found: Dict[bytes, List[ast.ClassDef]] = {}
    for stmt in top:
        if not isinstance(stmt, ast.ClassDef) or id(stmt) in collected:
            continue
        for node in pyast.nodes(stmt):
            if type(node) is ast.Assign and type(node.value) in (ast.Dict, ast.DictComp):
                for target in node.targets:
                    if type(target) is ast.Attribute and _is_self(target.value):
                        found.setdefault(target.attr.encode(), []).append(stmt)
    return {name: classes[0] for name, classes in found.items() if len(set(map(id, classes))) == 1}


def _annotated_names(func: ast.AST, param: str) -> Set[str]:
    """The names a parameter's annotation spells (`pool: "Pool"`, `Optional[Pool]`), when func is a def."""
    if type(func) not in _DEFS:
        return set()
    args = func.args
    for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs):
        if arg.arg == param and arg.annotation is not None:
            out = set()
            for node in ast.walk(arg.annotation):
                if type(node) is ast.Name:
                    out.add(node.id)
                elif type(node) is ast.Constant and type(node.value) is str:
                    out.update(re.findall(r"[A-Za-z_]\w*", node.value))
            return out
    return set()


def _installed_values(tree: ast.Module, classes: Dict[str, ast.ClassDef], vocab: _Vocabulary):
    """(class, value) for what a class holds outside its defs (ObjectFlow.installed_methods): a class
    body's `name = value`, a module-level `Cls.name = value` or `setattr(Cls, "name", value)`."""
    for cls in classes.values():
        for stmt in cls.body:
            if type(stmt) is ast.Assign and len(stmt.targets) == 1 and type(stmt.targets[0]) is ast.Name:
                yield cls, stmt.value
    for stmt in tree.body:
        if type(stmt) is ast.Assign and len(stmt.targets) == 1:
            target = stmt.targets[0]
            if type(target) is ast.Attribute and type(target.value) is ast.Name and target.value.id in classes:
                yield classes[target.value.id], stmt.value
        elif type(stmt) is ast.Expr and type(stmt.value) is ast.Call:
            call = stmt.value
            if (
                _callee_name(call.func) in vocab.object_setters
                and len(call.args) == 3
                and type(call.args[0]) is ast.Name
                and call.args[0].id in classes
            ):
                yield classes[call.args[0].id], call.args[2]


def _bound_to_self(cls: ast.ClassDef, top_defs: Dict[str, ast.AST], vocab: _Vocabulary) -> List[Tuple[str, str]]:
    """(attribute, def name) for each top-level def a method of cls binds to its instance and stores on it
    (ObjectFlow._bound_to_self): `self.n = types.MethodType(f, self)`, `partial(f, self)`, `f.__get__(self)`,
    `setattr(self, "n", <such>)`; f a def, or a local name assigned defs (`fn = f if c else g`)."""
    out = []
    for method in cls.body:
        if type(method) not in _DEFS or not method.args.args:
            continue
        me = method.args.args[0].arg
        locals_: Dict[str, List[ast.AST]] = {}
        stores = []
        for node in pyast.nodes(method):
            if type(node) is ast.Assign and len(node.targets) == 1:
                target = node.targets[0]
                if type(target) is ast.Name:
                    locals_.setdefault(target.id, []).append(node.value)
                elif type(target) is ast.Attribute and type(target.value) is ast.Name and target.value.id == me:
                    stores.append((target.attr, node.value))
            elif (
                type(node) is ast.Call
                and _callee_name(node.func) in vocab.object_setters
                and len(node.args) == 3
                and type(node.args[0]) is ast.Name
                and node.args[0].id == me
                and type(node.args[1]) is ast.Constant
                and isinstance(node.args[1].value, str)
            ):
                stores.append((node.args[1].value, node.args[2]))

        def defs_of(expr, depth=0):
            if type(expr) is ast.IfExp:
                return defs_of(expr.body, depth) + defs_of(expr.orelse, depth)
            if type(expr) is not ast.Name:
                return []
            if expr.id in locals_ and depth < 3:
                return [d for v in locals_[expr.id] for d in defs_of(v, depth + 1)]
            return [expr.id] if expr.id in top_defs else []

        for attr, value in stores:
            if type(value) is not ast.Call:
                continue
            func = value.func
            held = None
            if type(func) is ast.Attribute and func.attr in vocab.function_binders:
                if value.args and type(value.args[0]) is ast.Name and value.args[0].id == me:
                    held = func.value
            elif (
                (_callee_name(func) or "") in vocab.partial_makers
                and len(value.args) >= 2
                and type(value.args[1]) is ast.Name
                and value.args[1].id == me
            ):
                held = value.args[0]
            if held is not None:
                out.extend((attr, name) for name in defs_of(held))
    return out


def _property_getter(value: ast.AST, vocab: _Vocabulary) -> Optional[ast.AST]:
    """The getter a property call holds (`property(lambda self: ...)`, `property(fget=_read)`), else None."""
    if type(value) is not ast.Call or not vocab.is_property_decorator(pyast.dotted(value.func)):
        return None
    held = value.args[0] if value.args and type(value.args[0]) is not ast.Starred else None
    return next((k.value for k in value.keywords if k.arg in vocab.property_getter_keywords), held)


def _installed_functions(module: "_ModuleUnits", classes: Dict[str, ast.ClassDef], taint: "_Taint") -> Optional[str]:
    """A lambda stored on a class as a method or a property's getter (`get_planes = lambda self, i: ...`,
    `setattr(Pool, "get_planes", lambda self, i: ...)`, `k = property(lambda self: ...)`), or a def stored
    as a property's getter, that reads a pool: reading or calling it on an object runs it with self that
    object (ObjectFlow.installed_methods), which the per-unit taint does not follow."""
    vocab = module.vocab
    for cls, value in _installed_values(module.tree, classes, vocab):
        getter = _property_getter(value, vocab)
        held = getter if getter is not None else value
        if type(held) is ast.Lambda:
            if taint.tainted(_refs(held.body, vocab, module.aliases), _Unit(held, cls)):
                return f"a function stored on {cls.name} reads a pool"
        elif getter is not None and type(held) is ast.Name and taint.returns.get(held.id):
            return f"a property of {cls.name} returns a pool"
    return None


def _stored_attribute(stmt: ast.stmt) -> Tuple[Optional[str], Optional[ast.AST]]:
    """(attribute, value) of `obj.attr = value` or `setattr(obj, "attr", value)` (_stores_on); (None, None)
    for another target or a computed name."""
    if type(stmt) is ast.Assign:
        target = stmt.targets[0]
        return (target.attr, stmt.value) if type(target) is ast.Attribute else (None, None)
    call = stmt.value
    if len(call.args) == 3 and _str_constant(call.args[1]):
        return call.args[1].value, call.args[2]
    return None, None


def _stores_on(stmt: ast.stmt, name: str) -> bool:
    """`name.attr = value` or `setattr(name, ...)`: a statement storing an attribute on name."""
    if type(stmt) is ast.Assign:
        return any(type(t) is ast.Attribute and type(t.value) is ast.Name and t.value.id == name for t in stmt.targets)
    if type(stmt) is ast.Expr and type(stmt.value) is ast.Call:
        call = stmt.value
        return (
            type(call.func) is ast.Name
            and call.func.id == "setattr"
            and bool(call.args)
            and type(call.args[0]) is ast.Name
            and call.args[0].id == name
        )
    return False


def _pool_holding_attrs(stmt: ast.AST, vocab: _Vocabulary, self_too: bool = True) -> Set[str]:
    """The attributes a definition assigns (or stores into: `self.held[i] = v`) an accessor's result or
    a cache attribute, on self or on another object (`md.ref = pool.get_key_buffer(i)`): another
    object's `runner.held[i]`, `meta.ref` reads them (ModuleAnalysis._instance_attr_origin,
    ObjectFlow.held_attribute)."""
    out: Set[str] = set()
    for node in pyast.nodes(stmt):  # (a slice of the module's index: no walk)
        if (
            type(node) is ast.Call
            and _callee_name(node.func) in vocab.object_setters
            and len(node.args) == 3
            and type(node.args[0]) is ast.Name
            and (self_too or not _is_self(node.args[0]))
            and _str_constant(node.args[1])
        ):  # `setattr(meta, "kv", pool.get_key_buffer(i))`, `object.__setattr__(rec, "kv", ...)`
            attrs, value = [node.args[1].value], node.args[2]
        elif type(node) is ast.Assign:
            value = node.value
            attrs = []
            for target in node.targets:
                if type(target) is ast.Subscript:
                    target = target.value
                if type(target) is not ast.Attribute or type(target.value) is not ast.Name:
                    continue
                if self_too or not _is_self(target.value):
                    attrs.append(target.attr)
        else:
            continue
        if attrs and any(  # (an accessor called, or held uncalled: `self.read_layer = mgr.get_buffers`)
            type(n) is ast.Attribute and (n.attr in vocab.accessors or n.attr in vocab.cache_attributes)
            for n in _walk(value)
        ):
            out.update(attrs)
    return out


def _class_members(cls: ast.ClassDef) -> Set[str]:
    """The methods a class defines and the attributes it assigns on self (not dunder names)."""
    out = {m.name for m in cls.body if isinstance(m, _DEFS)}
    for node in pyast.nodes(cls):
        if (
            type(node) is ast.Attribute
            and type(node.ctx) is ast.Store
            and type(node.value) is ast.Name
            and node.value.id == "self"
        ):
            out.add(node.attr)
    return {m for m in out if not m.startswith("__")}


def _kept_units(module: _ModuleUnits, taint: "_Taint", sites: Set[int]) -> Set[int]:
    """id() of the units to keep: those with a site or a global statement, the module's
    own statements, and what the kept code's values can come from (units assigning a
    tainted self.x they read, passing a tainted argument to a function they define,
    defining a function whose tainted result they use, or assigning a self.x whose value
    decides a kind: device, index, allocation), transitively."""
    units = module.units
    kept = sites | {id(unit) for unit in units if unit.globals}
    kept.add(id(module.module_rest))
    class_units: Dict[int, List[_Unit]] = {}
    for unit in units:
        if unit.cls is not None:
            class_units.setdefault(taint.class_key(unit.cls), []).append(unit)
    # the module's classes with a method that returns a pool (a `__getitem__`, `__call__`, accessor):
    # a kept read of `self.x` built as one of them needs the construction (its class decides)
    returning = {name for name, levels in taint.returns.items() if levels}
    pool_classes = {
        name
        for name, cls in taint.classes.items()
        if any(type(m) in _DEFS and m.name in returning for c in taint.family_of(cls, up_only=True) for m in c.body)
    }
    changed = True
    while changed:
        changed = False
        kept_units = [unit for unit in units if id(unit) in kept]
        need_defs = set().union(*(unit.defs for unit in kept_units))
        site_defs = set().union(*(unit.defs for unit in kept_units if id(unit) in sites))
        need_returns = set().union(*(unit.calls_made for unit in kept_units))
        kind_defs = set().union(*(unit.kind_defs for unit in kept_units))
        unpacked_defs = set().union(*(unit.unpacked_defs for unit in kept_units))
        need_attrs, resolve = _attributes_read(kept_units, taint, class_units)
        held_calls = _held_site_calls(kept_units, sites)
        for unit in units:
            if id(unit) in kept:
                continue
            key = taint.class_key(unit.cls)
            attrs = need_attrs.get(key, set()) & taint.tainted_attrs(unit)
            assigned = set().union(*(t_attrs for _, t_attrs, _, _ in unit.assigns)) if unit.assigns else set()
            # every caller of a def with a site: whether a helper converts for all its callers or
            # only for some decides where its cast is reported (ModuleAnalysis._for_some_callers)
            if (
                taint.feeds(unit, attrs, need_defs, need_returns)
                or unit.defs & kind_defs
                or (unit.defs & unpacked_defs and _returns_tuple_display(unit.node))
                or assigned & resolve.get(key, set())
                or (unit.calls_made & site_defs) - _object_hooks(module.vocab)
                or unit.fn_values & site_defs  # `super().__init__(reader=self._widen)`: who holds it, and calls it
                or _kept_generic(unit, need_returns, module.vocab)
                or _mixes_kept_bases(unit, kept_units, taint)
                or any(
                    attr in need_attrs.get(key, ()) and made & pool_classes for attr, made in unit.made_attrs.items()
                )
                or _makes_called_holder(unit, held_calls, taint)
            ):
                kept.add(id(unit))
                changed = True
    return kept


def _held_site_calls(kept_units: List[_Unit], sites: Set[int]) -> tuple:
    """({(class, method)} of the kept methods holding a site, {(attr, method)} of the kept `self.attr.m(...)`
    calls), for _makes_called_holder: once per pass."""
    site_methods = {
        (u.cls.name, u.node.name) for u in kept_units if id(u) in sites and u.cls is not None and type(u.node) in _DEFS
    }
    calls = set()
    if site_methods:
        for u in kept_units:
            for name, receiver, call in u.object_calls:
                holder = call.func.value if receiver == "object" and type(call.func) is ast.Attribute else None
                if type(holder) is ast.Attribute and _is_self(holder.value):
                    calls.add((holder.attr, name))
    return site_methods, calls


def _makes_called_holder(unit: _Unit, held_calls: tuple, taint: "_Taint") -> bool:
    """Does unit build `self.x = C(...)` (or take `x: C`) where kept code calls `self.x.m(...)` and m is a
    method of C (or a base) holding a site? The analysis tells which m runs by the class the construction
    makes (ModuleAnalysis: instance_class), needed where several classes define m (`self.policy.forward(k)`
    beside the caller's own `forward`)."""
    site_methods, calls = held_calls
    if not unit.made_attrs or not calls:
        return False
    for attr, name in calls:
        for made in unit.made_attrs.get(attr, ()):
            cls = taint.classes.get(made)
            if cls is not None and any((c.name, name) in site_methods for c in taint.family_of(cls, up_only=True)):
                return True
    return False


def _mixes_kept_bases(unit: _Unit, kept_units: List[_Unit], taint: "_Taint") -> bool:
    """Is unit a class's header whose bases mix module classes where a kept method of one calls `self.m(...)`
    and another defines a kept m (`class Impl(UpcastReader, GatherReader, Base)`)? Its MRO decides which m
    runs (ModuleAnalysis._mixin_callers), so the bases are kept."""
    cls = unit.node
    if type(cls) is not ast.ClassDef or unit.cls is not cls:
        return False
    bases = [taint.classes.get(_base_name(b) or "") for b in cls.bases]
    mixed = {id(c) for b in bases if b is not None for c in taint.family_of(b, up_only=True)}
    if len(mixed) < 2:
        return False
    kept_here = [u for u in kept_units if u.cls is not None and id(u.cls) in mixed and type(u.node) in _DEFS]
    defined = {(id(u.cls), u.node.name) for u in kept_here}
    for u in kept_here:
        for name in _called_methods(u.node):
            if any(key[1] == name and key[0] != id(u.cls) for key in defined):
                return True
    return False


def _returns_tuple_display(node: ast.AST) -> bool:
    """Does a def return a tuple display (`return metadata.kv_cache_manager, self.layer_idx`)?"""
    return type(node) in _DEFS and any(type(n) is ast.Return and type(n.value) is ast.Tuple for n in pyast.nodes(node))


def _kept_generic(unit: _Unit, called: Set[str], vocab: _Vocabulary) -> bool:
    """A generic function (`@functools.singledispatch`) that kept code calls: the analysis reaches
    its registered overloads through it."""
    node = unit.node
    return (
        unit.cls is None
        and type(node) in _DEFS
        and node.name in called
        and any(
            (pyast.dotted(d.func if type(d) is ast.Call else d) or "").rsplit(".", 1)[-1] in vocab.dispatch_generics
            for d in node.decorator_list
        )
    )


def _attributes_read(kept_units: List[_Unit], taint: "_Taint", class_units: Dict[int, List[_Unit]]):
    """Per class (by id): the self attributes the kept units mention, and those whose
    assigned values decide a kind (with the attributes those values mention, transitively)."""
    need_attrs: Dict[int, Set[str]] = {}
    resolve: Dict[int, Set[str]] = {}
    for unit in kept_units:
        if unit.cls is not None:
            need_attrs.setdefault(taint.class_key(unit.cls), set()).update(unit.self_attrs)
            wanted = resolve.setdefault(taint.class_key(unit.cls), set())
            wanted |= unit.value_attrs
            for refs, attrs in unit.kind_attrs:
                if taint.tainted(refs, unit):
                    wanted |= attrs
    foreign = set().union(*(unit.foreign_value_attrs for unit in kept_units))
    if foreign:  # `obj.kv_buffer`: whichever class obj is, its allocation of that attribute decides
        for key in class_units:
            resolve.setdefault(key, set()).update(foreign)
            need_attrs.setdefault(key, set()).update(foreign)
    for key, wanted in resolve.items():
        grow = True
        while grow:
            grow = False
            for unit in class_units.get(key, ()):
                for attr, inner in unit.attr_values.items():
                    if attr in wanted and not inner <= wanted:
                        wanted |= inner
                        grow = True
    return need_attrs, resolve


def _decisions(module: _ModuleUnits, kept: Set[int], holders: Set[int] = frozenset()):
    """([(def, class or method node, keep it)], hot_hints) for the top-level statements."""
    decisions: List[Tuple[ast.AST, bool]] = []
    hot_hints: Dict[Tuple[str, int], FrozenSet[str]] = {}
    planned = _plan_records(module, holders) | _bound_records(module, kept)
    keys = set().union(*(u.key_classes for u in module.units if id(u) in kept))
    bounds = set().union(*(u.bound_attrs for u in module.units if id(u) in kept))
    for stmt in module.top:
        entry = module.collected.get(id(stmt))
        if type(stmt) is ast.ClassDef and (stmt.name in keys or (bounds and _body_assigns(stmt, bounds))):
            # whose members key a kept lookup, or whose body assigns a kept slice's `self.x` bound
            decisions.append((stmt, True))
            continue
        if entry is None:
            decisions.append((stmt, False))
            continue
        if isinstance(stmt, _DEFS):
            decisions.append((stmt, id(entry) in kept))
            continue
        if stmt.name in planned:  # a record a plan's dtypes are read from (`**asdict(rec)`, `*pair`)
            decisions.append((stmt, True))
            continue
        methods, rest = entry
        keep = [id(method) in kept or _beside_evidence(method.node, module.vocab) for method in methods]
        if not any(keep) and id(rest) not in kept:
            decisions.append((stmt, False))
            continue
        if any(keep):  # a pool class's raw per-layer accessor tells that its converting one is the pool's (CL004)
            keep = [k or _raw_layer_accessor(method.node) for k, method in zip(keep, methods)]
        if rest.plans:
            decisions.append((stmt, True))
            continue
        if any(method.plans or id(method) in holders or _holds_a_plan(method.node, module.vocab) for method in methods):
            _keep_plan_inputs(methods, rest, keep, module.vocab, holders)
        decisions.append((stmt, True))  # header and non-method statements
        # a getter runs on every read of its property: the fix's proofs read it (cast_motion); getters are small
        for i, method in enumerate(methods):
            if not keep[i] and any(
                module.vocab.is_property_decorator(pyast.dotted(d)) for d in method.node.decorator_list
            ):
                keep[i] = True
        if all(keep):
            continue
        decisions.extend((method.node, k) for method, k in zip(methods, keep))
        hot_hints[(stmt.name, stmt.lineno)] = _hot_set(stmt, module.vocab)
    return decisions, hot_hints


def _body_assigns(cls: ast.ClassDef, names: Set[str]) -> bool:
    """Does cls's body itself assign one of names (`window_blocks = 4`)?"""
    for stmt in cls.body:
        t = type(stmt)
        if t is ast.Assign and any(type(x) is ast.Name and x.id in names for x in stmt.targets):
            return True
        if t is ast.AnnAssign and type(stmt.target) is ast.Name and stmt.target.id in names:
            return True
    return False


def _record_classes(module: _ModuleUnits) -> Set[str]:
    """The module's record classes (rules/accessors.toml [records] bases and decorators)."""
    markers = module.vocab.record_markers
    records = set()
    for stmt in module.top:
        if type(stmt) is ast.ClassDef:
            named = [pyast.dotted(d.func if type(d) is ast.Call else d) for d in (*stmt.decorator_list, *stmt.bases)]
            if any(n and n.rsplit(".", 1)[-1] in markers for n in named):
                records.add(stmt.name)
    return records


def _bound_records(module: _ModuleUnits, kept: Set[int]) -> Set[str]:
    """The record classes a kept unit constructs when it slices by a field of an object (`kbuf[w.start :
    w.end]` of `ChunkWork(i, 0, kbuf.shape[0], True)`): the analysis reads the bound through the fields."""
    records = _record_classes(module)
    if not records:
        return set()
    called: Set[str] = set()
    for unit in module.units:
        if id(unit) in kept and any(_field_bound(n) for n in pyast.nodes(unit.node) if type(n) is ast.Slice):
            called |= unit.calls_made
    return records & called


def _field_bound(s: ast.Slice) -> bool:
    return any(
        type(b) is ast.Attribute and type(b.value) is ast.Name and b.value.id != "self" for b in (s.lower, s.upper)
    )


def _plan_records(module: _ModuleUnits, holders: Set[int]) -> Set[str]:
    """The record classes (rules/accessors.toml [records]) the module's plan-holding classes and
    functions construct: CL002 reads a plan's dtypes through their fields."""
    records = _record_classes(module)
    if not records:
        return set()
    called: Set[str] = set()
    for stmt in module.top:
        entry = module.collected.get(id(stmt))
        if entry is None:
            continue
        units = [entry] if isinstance(stmt, _DEFS) else [*entry[0], entry[1]]
        if any(u.plans or id(u) in holders or _holds_a_plan(u.node, module.vocab) for u in units):
            for u in units:
                called |= u.calls_made
    return records & called


def _holds_a_plan(node: ast.AST, vocab: "_Vocabulary", runs: frozenset = frozenset()) -> bool:
    """A plan() held uncalled: `partial(w.plan, ...)`, `getattr(w, "plan")`, `p = w.plan`; or a
    call of one of the runs (run() methods), in the same walk."""
    methods = vocab.wrapper_methods
    for n in pyast.nodes(node):
        t = type(n)
        if t is ast.Attribute and (n.attr in methods or n.attr in runs):
            return True
        if t is ast.Constant and isinstance(n.value, str) and n.value in methods:
            return True
    return False


def _keep_plan_inputs(
    methods: List[_Unit], rest: _Unit, keep: List[bool], vocab: "_Vocabulary", holders: Set[int] = frozenset()
) -> None:
    """CL002 resolves a plan's dtype arguments (and its receiver's class) through the
    self.x they mention and what those are assigned from: keep (in keep, by method
    index) every method with a plan call or that assigns one of them, transitively."""
    needed: Set[str] = set(rest.self_attrs)
    names = {m.node.name: i for i, m in enumerate(methods)}
    for i, method in enumerate(methods):
        if method.plans or id(method) in holders or _holds_a_plan(method.node, vocab):
            keep[i] = True
            needed |= method.self_attrs
    changed = True
    while changed:
        changed = False
        for i, method in enumerate(methods):
            if keep[i]:  # the helpers a kept method calls may return its dtypes (`q, kv = self.dtypes()`)
                for callee in method.calls_made:
                    j = names.get(callee)
                    if j is not None and not keep[j]:
                        keep[j] = True
                        needed |= methods[j].self_attrs
                        changed = True
            if any(t_attrs & needed or ANY_ATTR in t_attrs for _, t_attrs, _, _ in method.assigns):
                if not keep[i]:
                    keep[i] = True
                    changed = True
                if not method.self_attrs <= needed:
                    needed |= method.self_attrs
                    changed = True


def _hot_set(cls: ast.ClassDef, vocab: _Vocabulary) -> FrozenSet[str]:
    """ModuleAnalysis.hot_functions, computed on the whole class (castlint.analysis.hot_path)."""
    methods = {stmt.name for stmt in cls.body if isinstance(stmt, _DEFS)}
    self_calls = []
    for stmt in cls.body:
        if isinstance(stmt, _DEFS):
            for n in _walk(stmt, skip=_DEFS):  # the method, less the functions nested in it
                if (
                    type(n) is ast.Call
                    and type(n.func) is ast.Attribute
                    and type(n.func.value) is ast.Name
                    and n.func.value.id == "self"
                ):
                    self_calls.append((stmt.name, n.func.attr))
    return hot_path.hot_methods(methods, self_calls, vocab.hot_entry_points, vocab.accessors)


def _merge(into: _Unit, part: _Unit, params: Params) -> None:
    """Fold the unit of one statement into the unit it belongs to."""
    for entries in params.values():
        for i, (unit, positional, every, is_method) in enumerate(entries):
            if unit is part:
                entries[i] = (into, positional, every, is_method)
    into.assigns += part.assigns
    into.self_calls += part.self_calls
    into.name_calls += part.name_calls
    into.map_calls += part.map_calls
    into.object_calls += part.object_calls
    into.object_method_calls += part.object_method_calls
    into.class_calls += part.class_calls
    into.name_stores += part.name_stores
    into.casts += part.casts
    into.copies += part.copies
    into.helpers += part.helpers
    into.plans += part.plans
    for name, levels in part.names.items():
        into.names[name] = into.names.get(name, 0) | levels
    into.globals |= part.globals
    into.self_attrs |= part.self_attrs
    into.defs |= part.defs
    into.calls_made |= part.calls_made
    into.value_attrs |= part.value_attrs
    into.foreign_value_attrs |= part.foreign_value_attrs
    into.kind_attrs += part.kind_attrs
    into.kind_defs |= part.kind_defs
    into.unpacked_defs |= part.unpacked_defs
    into.key_classes |= part.key_classes
    into.bound_attrs |= part.bound_attrs
    for name, refs in part.returns.items():
        into.returns.setdefault(name, []).extend(refs)
    for attr, inner in part.attr_values.items():
        into.attr_values.setdefault(attr, set()).update(inner)


def _render(source: bytes, decisions, hot_hints, keep_ratio: float, vocab: _Vocabulary) -> PrunePlan:
    """The pruned text: kept code verbatim at its own lines, dropped defs as stubs."""
    text = source.decode(source_encoding(source))
    parts = _NEWLINE.split(text)
    seps = _NEWLINE.findall(text)
    lines = [p + (seps[i] if i < len(seps) else "") for i, p in enumerate(parts)]  # 0-based
    drop: Dict[int, Tuple[int, ast.AST]] = {}  # first line -> (last line, node)
    for node, keep in decisions:
        if not keep:
            drop[_first_line(node)] = (node.end_lineno, node)
    if not drop:
        return PrunePlan(FULL, reason="every def holds a candidate")
    dropped = sum(last - first + 1 for first, (last, _) in drop.items())
    if len(lines) and (len(lines) - dropped) > keep_ratio * len(lines):
        return PrunePlan(FULL, reason="pruning would keep most of the file")
    out: List[str] = []
    line_map = [0]
    names: Set[str] = set()
    attrs: Set[str] = set()
    members: Set[str] = set()
    properties: Set[str] = set()
    stores: Set[str] = set()
    i = 1
    n_lines = len(lines)
    while i <= n_lines:
        if i in drop:
            last, node = drop[i]
            newline = _NEWLINE.search(lines[last - 1])
            out.append(_stub(lines[i - 1], node) + (newline.group(0) if newline else "\n"))
            line_map.append(node.lineno)
            _identifiers(node, names, attrs, stores)
            _members_defined(node, members, properties, vocab)
            i = last + 1
            continue
        out.append(lines[i - 1])
        line_map.append(i)
        i += 1
    line_map.append(n_lines + 1)  # libcst may place an end position one line past the text
    pruned = Pruned("".join(out), line_map, hot_hints, names, attrs, members, properties, stores)
    return PrunePlan(PRUNED, pruned)
