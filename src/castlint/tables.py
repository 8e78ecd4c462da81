"""Load and validate the API-fact tables in rules/*.toml.

The tables ship inside the package (castlint/rules/); in a source checkout the
top-level rules/ folder is used. Users add tables through `extend-rules`.
Every validation error names the file and the key.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Optional

from castlint import tomlcompat

# What can follow an attribute's name in source: the prefilter looks for `.kv_cache[`,
# not for every `.kv_cache_dtype`.
ATTRIBUTE_ENDS = ("[", ".", ")", ",", "\n", " ")

TABLE_FILES = ("accessors.toml", "casts.toml", "flashinfer.toml", "models.toml", "sglang.toml")


class TableError(Exception):
    def __init__(self, path: Path, key: str, message: str):
        super().__init__(f"{path}: [{key}] {message}")
        self.path, self.key = path, key


def builtin_rules_dir() -> Path:
    packaged = Path(__file__).parent / "rules"
    if packaged.is_dir() and any(packaged.glob("*.toml")):
        return packaged
    source = Path(__file__).resolve().parents[2] / "rules"
    if source.is_dir():
        return source
    raise FileNotFoundError("castlint rule tables not found (neither castlint/rules nor ./rules)")


@dataclass(frozen=True)
class Accessor:
    name: str
    returns: str  # "tensor" | "tuple"
    note: str = ""
    # when set, only `<receiver>.name(...)` with the receiver's last name in this list
    # is an accessor (TensorRT-LLM's get_buffers is a common method name elsewhere)
    receivers: tuple = ()
    # with receivers: any receiver is this accessor when the call passes exactly this many
    # positional arguments (and nothing else), the first a scalar layer index
    # (`mgr.get_buffers(i)`; sglang's SplitKBufferPool.get_buffers takes five)
    arity: int = 0
    # the spellings of the dtype the returned buffer has, as the pool class writes it (`self.dtype`,
    # `torch.bfloat16`): learnt, or rules/accessors.toml `dtype`; castlint.analysis.same_dtype
    dtype: tuple = ()
    # the buffers a "tuple" accessor returns share one dtype (the K and V planes of one pool,
    # allocated with the pool's one store dtype): castlint.analysis.same_dtype
    one_dtype: bool = False
    # the dimensions of the returned buffer that index slots (tokens or blocks): a selection along any
    # other dimension keeps every slot (rules/accessors.toml `slot_dims`; empty: not known)
    slot_dims: tuple = ()
    # learnt from methods that read no buffer of their own class, only another object's accessor (`self.backend.
    # pool.get_key_buffer(i)`, `super().read(i)`): a reader of the pool, not its accessor, for CL004's attribution
    reader: bool = False
    # a reader learnt in a class that allocates no buffer and reads only a pool it holds (`self.pool =
    # token_to_kv_pool`): it converts for the caller that built it, not for every reader of the pool (CL001)
    holder: bool = False


@dataclass(frozen=True)
class CastSpelling:
    method: str
    form: str  # "to" | "no-args" | "one-arg" | "tensor-arg"
    target: Optional[str] = None
    # keywords that name the target dtype (`.to(dtype=d)`) or a tensor whose dtype is the target
    # (`.to(other=q)`, `.type_as(other=q)`)
    dtype_keywords: tuple = ()
    tensor_keywords: tuple = ()

    def keyword_target(self, keywords: dict):
        """(value, is_tensor) of the first target keyword present in keywords, else (None, False)."""
        for word in self.dtype_keywords:
            if word in keywords:
                return keywords[word], False
        for word in self.tensor_keywords:
            if word in keywords:
                return keywords[word], True
        return None, False


@dataclass(frozen=True)
class DtypeParam:
    index: Optional[int]
    keyword: str


@dataclass(frozen=True)
class Wrapper:
    cls: str
    module: str  # where it is imported from
    methods: tuple
    q_dtype: DtypeParam
    kv_dtype: DtypeParam
    aliases: tuple
    function: bool = False
    positional_until: Optional[str] = None  # last version taking the dtypes positionally
    mla: bool = False  # FlashInfer's MLA wrapper: the one the MLA fix rewrites
    run_method: Optional[str] = None  # the method that runs what plan() planned


@dataclass(frozen=True)
class ConversionHelper:
    name: str
    arg: int
    direction: str
    note: str = ""
    # the cost model of the pool it converts: the stored dtype it reads, the dtype it
    # writes (a `dtype=` keyword of the call overrides it) and the elements per scale
    # byte (block-scaled formats); unset: the configured model's kv and compute dtypes
    source_dtype: Optional[str] = None
    target_dtype: Optional[str] = None
    scale_block: int = 0


@dataclass(frozen=True)
class CacheParameter:
    """A parameter that an engine's calling convention fills with a whole per-layer KV cache."""

    engine: str
    methods: tuple  # the method (or function) names that take it
    params: tuple  # the parameter names
    requires: tuple  # other parameters the signature must have (the engine's convention)
    returns: str  # "tensor" (one whole cache) | "tuple" (several: K and V, or per layer)
    note: str = ""
    planes: bool = True  # may the cache hold its K/V planes before the blocks (`kv_cache[0]`: every K)?
    entry: bool = False  # one layer's entry: its caches first, then scales (entry_cache_planes)
    # the cache's slot (block, token) dimensions: a selection along another keeps every slot; with
    # `planes`, those of the planes-first layout, used once the function reads its dim 0 as the planes
    slot_dims: tuple = ()
    # where set, the row applies only to its parameter read by its keyword from the method's `**kwargs`,
    # when the method's class (or a base) also defines one of these methods reading the same keyword
    # from its own `**kwargs` (a CUDA-graph runner's capture beside its per-step forward): the evidence
    # of the convention instead of `requires`
    beside: tuple = ()


@dataclass(frozen=True)
class ModelPreset:
    name: str
    description: str
    layers: int
    kv_lora_rank: int
    rope_dim: int
    num_heads: int
    kv_dtype: str
    compute_dtype: str


@dataclass(frozen=True)
class CostModel:
    """The model a run costs conversions with: a preset with the config's overrides
    (castlint.config.Config.cost_model)."""

    name: str
    layers: int
    pool_tokens: int
    kv_lora_rank: int
    rope_dim: int
    kv_dtype: str
    compute_dtype: str

    @property
    def row_elems(self) -> int:
        return self.kv_lora_rank + self.rope_dim


@dataclass
class Tables:
    accessors: dict = field(default_factory=dict)  # name -> Accessor
    cache_attributes: set = field(default_factory=set)
    cache_attributes_whole: set = field(default_factory=set)  # matched whole by the prefilter
    cache_parameter_names: set = field(default_factory=set)  # [cache_attributes] parameters: caches by name
    cache_entry_lists: set = field(default_factory=set)  # [cache_attributes] entry_lists: entries split by a constant
    cache_list_attributes: set = field(default_factory=set)  # [cache_attributes] python_lists: any index, one entry
    entry_cache_planes: int = 0  # [cache_attributes]: an entry holds this many caches first, then scales
    layer_index_words: tuple = ()  # kept for old tables; the analysis decides by value
    cache_parameters: list = field(default_factory=list)  # [CacheParameter]
    # how an index's value is told (castlint.analysis.dataflow.ModuleAnalysis.index_kind)
    scalar_attributes: set = field(default_factory=set)
    scalar_element_attributes: set = field(default_factory=set)  # `mgr.layer_offsets[i]`: an element is a scalar
    scalar_element_words: set = field(default_factory=set)  # `for i in self.target_layer_ids`: a layer index
    scalar_calls: set = field(default_factory=set)
    full_reductions: set = field(default_factory=set)
    reduction_dim_keywords: set = field(default_factory=set)  # [index_values]: `x.amax(dim=1)` keeps a dim
    shape_keeping_methods: set = field(default_factory=set)
    tensor_calls: set = field(default_factory=set)
    # allocations of a buffer, and the words of their first dimension
    allocation_functions: set = field(default_factory=set)
    batch_words: set = field(default_factory=set)
    layer_words: set = field(default_factory=set)
    pool_words: set = field(default_factory=set)
    # [allocation] scalar_last_dims: a literal last dimension of these sizes holds scales/zeros
    scalar_last_dims: set = field(default_factory=set)
    extent_words: set = field(default_factory=set)
    window_words: set = field(default_factory=set)
    # [allocation] slice bounds by origin: a whole pool's extent read (`buf.shape`, `buf.size(0)`,
    # `len(buf)`) and the builtins that compute a count from their arguments (`int(...)`, `max(...)`)
    extent_attributes: set = field(default_factory=set)
    extent_methods: set = field(default_factory=set)
    extent_functions: set = field(default_factory=set)
    count_functions: set = field(default_factory=set)
    tuple_view_methods: set = field(default_factory=set)
    tuple_view_functions: set = field(default_factory=set)
    concat_functions: set = field(default_factory=set)
    pack_functions: set = field(default_factory=set)  # [views] pack_functions: `einops.pack([k, v], p)`
    # [views] dim_swaps / dim_moves / dim_orders: views that move dimensions (`transpose(a, b)`,
    # `movedim(src, dst)`, `permute(order)`), by method name or qualified function name
    dim_swaps: set = field(default_factory=set)
    dim_moves: set = field(default_factory=set)
    dim_orders: set = field(default_factory=set)
    narrow_methods: set = field(default_factory=set)
    dim_index_methods: set = field(default_factory=set)  # [gathers]: `x.index_select(dim, index)`
    dim_index_functions: set = field(default_factory=set)  # [gathers]: `torch.index_select(x, dim, index)`
    range_functions: set = field(default_factory=set)  # [index_values]: `buf[torch.arange(a, b)]` is `buf[a:b]`
    stride_ranges: set = field(default_factory=set)  # [index_values]: `buf[i : i + w]` for i in range(a, b, w)
    least_functions: set = field(default_factory=set)  # [index_values]: `min(i + w, n)`
    # [index_values] unbounded_constants: a slice bound past any pool's extent (`buf[: sys.maxsize]`)
    unbounded_constants: set = field(default_factory=set)
    unbounded_at_least: int = 2**31  # [index_values]: an int literal this large is past any extent
    split_methods: set = field(default_factory=set)  # [views] split_methods: `buf.split(n)`, pieces of n
    split_functions: set = field(default_factory=set)  # [views] split_functions: `torch.split(buf, n)`
    dim_split_methods: set = field(default_factory=set)  # [views]: pieces along `dim` (after the sizes, 0 by default)
    dim_split_functions: set = field(default_factory=set)  # [views]: `torch.tensor_split(buf, 4, dim=0)`
    # [dim_arguments]: op (last name) -> (its dim keyword, the dim's position after the tensor)
    dim_arguments: dict = field(default_factory=dict)
    chunk_methods: set = field(default_factory=set)  # [views]: splits into a count of pieces (`chunk(2)`)
    unbind_methods: set = field(default_factory=set)  # [views]: one piece per index along `dim` (`unbind(0)`)
    dim_keyword_aliases: set = field(default_factory=set)  # [views]: `axis=` spelled for `dim=`
    # [guards] state_classes: `if isinstance(spec, MambaSpec):` reads a non-attention state there
    state_classes: set = field(default_factory=set)
    subscript_methods: set = field(default_factory=set)  # [views]: `buf.__getitem__(i)` is `buf[i]`
    broadcast_functions: set = field(default_factory=set)  # [views]: `torch.broadcast_tensors(a, b)[i]` is arg i
    select_methods: set = field(default_factory=set)  # [views]: x.select(dim, i) reads as x[:, ..., i]
    select_functions: set = field(default_factory=set)  # [views]: torch.select(x, dim, i), the same
    narrow_functions: set = field(default_factory=set)
    slice_constructors: set = field(default_factory=set)  # [views]: `buf[slice(None)]` is `buf[:]`
    copy_methods: set = field(default_factory=set)
    unbound_receivers: set = field(default_factory=set)
    class_of_functions: set = field(default_factory=set)  # [conversions]: `type(buf).to(buf, d)`
    class_of_attributes: set = field(default_factory=set)  # [conversions]: `buf.__class__.float(buf)`
    attribute_getters: set = field(default_factory=set)  # [conversions]: `getattr(x, "half")` is `x.half`
    op_namespaces: set = field(default_factory=set)  # [conversions] op_namespaces: torch.ops.aten.<op>(x, ...)
    conversion_constructors: set = field(default_factory=set)  # [conversions] constructors: torch.as_tensor
    # rules/casts.toml [dtype_names]: `getattr(torch, str(x.dtype).split(".")[-1])` is x.dtype
    dtype_name_modules: set = field(default_factory=set)
    dtype_text_functions: set = field(default_factory=set)
    dtype_text_methods: set = field(default_factory=set)
    # rules/paged_kernels.toml [kernel_languages]: decorators that compile a def into a GPU kernel (`@triton.jit`):
    # its `.to(tl.float32)` converts tiles of a kernel, no tensor of Python
    kernel_decorators: set = field(default_factory=set)
    # rules/casts.toml [dtype_arguments]: `torch.sum(pool, dtype=d)`, `pool.mean(dtype=d)` convert pool first
    dtype_argument_functions: set = field(default_factory=set)
    dtype_argument_methods: set = field(default_factory=set)
    dtype_argument_keywords: set = field(default_factory=set)
    conversion_constructor_methods: set = field(default_factory=set)  # [conversions]: t.new_tensor(pool, dtype=d)
    # [conversions] element_constructors: torch.nested.nested_tensor([k, v], dtype=d) converts each element
    conversion_element_constructors: set = field(default_factory=set)
    host_devices: set = field(default_factory=set)  # [conversions]: a copy into a host mirror keeps the dtype
    host_flags: set = field(default_factory=set)
    iter_passthrough: set = field(default_factory=set)
    iter_chain: set = field(default_factory=set)  # rules/accessors.toml [iteration] chain
    iter_repeat: set = field(default_factory=set)  # [iteration] repeat: itertools.repeat(x, n)
    iter_pairs: set = field(default_factory=set)  # rules/accessors.toml [iteration] pairs
    iter_windows: set = field(default_factory=set)  # [iteration] windows: itertools.pairwise
    iter_copies: set = field(default_factory=set)  # [iteration] copies: itertools.tee
    iter_call_until: set = field(default_factory=set)  # [iteration] call_until: iter(f, sentinel)
    iter_groups: set = field(default_factory=set)  # [iteration] groups: itertools.groupby
    iter_apply: set = field(default_factory=set)  # rules/accessors.toml [iteration] apply
    iter_apply_methods: set = field(default_factory=set)  # [iteration] apply_methods: executor.map(f, xs)
    iter_star_apply: set = field(default_factory=set)  # [iteration] star_apply: f(*row) for each row
    iter_filtering: set = field(default_factory=set)  # [iteration] filtering: some elements of the last argument
    iter_flatten: set = field(default_factory=set)  # [iteration] flatten: the elements of the elements
    iter_numbered: set = field(default_factory=set)  # [iteration] numbered: (a counter, an element): enumerate
    iter_repeats: set = field(default_factory=set)  # [iteration] repeats: the argument itself: itertools.repeat
    counters: set = field(default_factory=set)  # [iteration] counters: iterating gives ints: range
    tree_apply: set = field(default_factory=set)  # [iteration] tree_apply: f applied to each leaf: tree_map
    tree_apply_typed: set = field(default_factory=set)  # [iteration] tree_apply_typed: tree_map_only(T, f, tree)
    tree_leaves: set = field(default_factory=set)  # [iteration] tree_leaves: a list of the leaves
    tree_flatten: set = field(default_factory=set)  # [iteration] tree_flatten: (the leaves, a spec)
    element_methods: set = field(default_factory=set)  # rules/accessors.toml [iteration] element_methods
    # rules/accessors.toml [containers]: what container constructors and methods keep
    keep_elements: set = field(default_factory=set)
    dict_constructors: set = field(default_factory=set)
    dict_annotations: set = field(default_factory=set)
    sequence_annotations: set = field(default_factory=set)  # [containers]: `list[Pool]`, its element's class
    annotation_wrappers: set = field(default_factory=set)  # [containers]: Optional[...], Union[...], Annotated
    positional_annotations: set = field(default_factory=set)  # [containers]: Tuple[A, B] by position
    keep_methods: set = field(default_factory=set)
    ordered_value_views: set = field(default_factory=set)  # [containers]: `a, b = d.values()` by position
    user_containers: set = field(default_factory=set)  # [containers] user_containers: collections.UserDict
    user_container_data: set = field(default_factory=set)  # [containers] user_container_data: "data"
    dict_classes: set = field(default_factory=set)  # [containers] dict_classes: TypedDict (instances are dicts)
    mapping_mixins: set = field(default_factory=set)  # [containers] mapping_mixins: Mapping ABCs (values/items mixins)
    grow_functions: set = field(default_factory=set)  # [containers] grow_functions: heapq.heappush
    module_containers: set = field(default_factory=set)  # [containers] module_containers: nn.ModuleList
    member_methods: set = field(default_factory=set)  # [containers] member_methods: Module.buffers(), parameters()
    factory_dicts: set = field(default_factory=set)
    chain_maps: set = field(default_factory=set)  # [containers] chain_maps: ChainMap, the first map's value wins
    item_dicts: set = field(default_factory=set)  # [containers] item_dicts: dict(base, k=v) copies and adds items
    key_fill_dicts: set = field(default_factory=set)  # [containers] key_fill_dicts: dict.fromkeys(keys, v)
    item_methods: set = field(default_factory=set)
    item_views: set = field(default_factory=set)  # [containers] item_views: `d.items()`, pairs (not one item)
    key_tests: set = field(default_factory=set)  # [containers] key_tests: `name.endswith("scale")` on a dict key
    sequence_constructors: set = field(default_factory=set)  # [containers] sequence_constructors: list(x)
    take_methods: set = field(default_factory=set)
    lookup_methods: set = field(default_factory=set)
    take_functions: set = field(default_factory=set)
    grow_one: set = field(default_factory=set)
    grow_last: set = field(default_factory=set)
    default_last: set = field(default_factory=set)  # [containers] default_last: d.get(k, default)
    grow_many: set = field(default_factory=set)
    grow_pairs: set = field(default_factory=set)  # [containers]: `d.update((k, v) for ...)` stores each v
    key_defaults: set = field(default_factory=set)  # [containers]: `d.setdefault(k, v)` stores v if k is missing
    mapping_copies: set = field(default_factory=set)  # [containers]: `d.copy()`: a new dict of d's items
    # rules/accessors.toml [records]: classes whose constructor's arguments are their fields
    record_bases: set = field(default_factory=set)
    record_decorators: set = field(default_factory=set)
    record_field_calls: set = field(default_factory=set)
    record_default_keywords: set = field(default_factory=set)
    record_no_init_keywords: set = field(default_factory=set)
    record_replace_methods: set = field(default_factory=set)
    record_make_methods: set = field(default_factory=set)  # [records] make_methods: `Rec._make(xs)`
    record_replace_functions: set = field(default_factory=set)
    record_as_dict_methods: set = field(default_factory=set)
    record_as_dict_functions: set = field(default_factory=set)
    record_as_dict_attributes: set = field(default_factory=set)
    record_as_tuple_functions: set = field(default_factory=set)
    # [records] field_functions / field_name_attributes / field_names_attributes: what names a record's fields
    record_field_functions: set = field(default_factory=set)
    record_field_name_attributes: set = field(default_factory=set)
    record_field_names_attributes: set = field(default_factory=set)
    partial_callables: set = field(default_factory=set)  # rules/accessors.toml [callables] partial
    keyed_lookups: set = field(default_factory=set)  # [callables] keyed_lookups: `get_resource_manager(E.KEY)`
    method_callers: set = field(default_factory=set)  # rules/accessors.toml [callables] method_callers
    attr_getters: set = field(default_factory=set)  # rules/accessors.toml [callables] attr_getters
    partial_methods: set = field(default_factory=set)  # rules/accessors.toml [callables] partial_methods
    function_binders: set = field(default_factory=set)  # [callables] function_binders: `f.__get__(obj)`
    unwrapped_attributes: set = field(default_factory=set)  # [callables] `f.__wrapped__`: the undecorated def (35)
    # [callables] what a callable hands back when introspected: a partial's bound callable, positional and
    # keyword arguments; a bound method's receiver; a function's closure cells and a cell's value
    partial_func_attributes: set = field(default_factory=set)
    partial_args_attributes: set = field(default_factory=set)
    partial_keywords_attributes: set = field(default_factory=set)
    bound_self_attributes: set = field(default_factory=set)
    closure_attributes: set = field(default_factory=set)
    cell_value_attributes: set = field(default_factory=set)
    item_getters: set = field(default_factory=set)  # rules/accessors.toml [callables] item_getters
    call_functions: set = field(default_factory=set)  # rules/accessors.toml [callables] call_functions
    runners: set = field(default_factory=set)  # [callables] runners: `executor.submit(f, kv)` runs f(kv)
    runners_after_one: set = field(default_factory=set)  # [callables] runners_after_one: run_in_executor
    runners_packed: set = field(default_factory=set)  # [callables] runners_packed: Thread(target=f, args=...)
    runner_makers: set = field(default_factory=set)  # [callables] runner_makers: contextvars.copy_context
    made_runner_methods: set = field(default_factory=set)  # [callables] made_runner_methods: ctx.run(f, kv)
    runner_callable_keywords: set = field(default_factory=set)  # [callables] runner_callable_keywords: target=
    runner_args_keywords: set = field(default_factory=set)  # [callables] runner_args_keywords: args=
    runner_kwargs_keywords: set = field(default_factory=set)  # [callables] runner_kwargs_keywords: kwargs=
    generator_senders: set = field(default_factory=set)  # [callables] generator_senders: `gen.send(v)`
    module_importers: set = field(default_factory=set)  # [callables] module_importers: importlib.import_module
    subscript_functions: set = field(default_factory=set)  # [callables] subscript_functions: getitem(x, k) is x[k]
    fold_functions: set = field(default_factory=set)  # rules/accessors.toml [callables] fold_functions
    step_fold_functions: set = field(default_factory=set)  # [callables]: `accumulate` gives every step
    # [fold_arguments]: fold -> ((position, keyword) of its step function, its sequence, its initial value)
    fold_arguments: dict = field(default_factory=dict)
    add_functions: set = field(default_factory=set)  # [callables] add_functions: operator.add(a, b) is a + b
    or_functions: set = field(default_factory=set)  # [callables] or_functions: operator.or_(a, b) is a | b
    sum_functions: set = field(default_factory=set)  # [callables] sum_functions: sum(xs, start) adds them up
    pass_through_decorators: set = field(default_factory=set)  # [callables] pass_through_decorators
    record_factories: set = field(default_factory=set)  # rules/accessors.toml [callables] record_factories
    class_dict_functions: set = field(default_factory=set)  # [callables] class_dict_functions: vars
    class_dict_attributes: set = field(default_factory=set)  # [callables] class_dict_attributes: __dict__
    mro_attributes: set = field(default_factory=set)  # [callables] mro_attributes: __mro__
    mro_functions: set = field(default_factory=set)  # [callables] mro_functions: inspect.getmro
    bases_attributes: set = field(default_factory=set)  # [callables] bases_attributes: __bases__
    base_attributes: set = field(default_factory=set)  # [callables] base_attributes: __base__
    call_delegates: set = field(default_factory=set)  # [callables] call_delegates: torch.nn.Module.forward
    duck_protocol: set = field(default_factory=set)  # [callables] duck_protocol: __call__
    # [callables] tensor_container_methods: container method names tensors have too (`add`, `sort`)
    tensor_container_methods: set = field(default_factory=set)
    class_makers: set = field(default_factory=set)  # [callables] class_makers: type(name, bases, ns), types.new_class
    class_namespaces: set = field(default_factory=set)  # [callables] class_namespaces: "2", exec_body
    enum_bases: set = field(default_factory=set)  # [callables] enum_bases: a class of members
    enum_value_attributes: set = field(default_factory=set)  # [callables] enum_value_attributes: `E.M.value`
    dispatch_generics: set = field(default_factory=set)  # [callables] dispatch_generics: functools.singledispatch
    dispatch_registers: set = field(default_factory=set)  # [callables] dispatch_registers: `@f.register`
    namespace_constructors: set = field(default_factory=set)  # [callables] namespace_constructors
    identity_wrappers: set = field(default_factory=set)  # [callables] identity_wrappers
    keeping_modules: set = field(default_factory=set)  # [callables] keeping_modules: nn.Flatten(0, 1)(x) is x's slots
    module_chains: set = field(default_factory=set)  # [callables] module_chains: nn.Sequential(m1, m2)(x) is m2(m1(x))
    function_wrappers: set = field(default_factory=set)  # [callables] function_wrappers
    class_bound_decorators: set = field(default_factory=set)  # [callables] class_bound_decorators
    weight_wrappers: set = field(default_factory=set)  # [callables] weight_wrappers: nn.Parameter
    type_casts: set = field(default_factory=set)  # [callables] type_casts: typing.cast(T, x) is x
    coroutine_runners: set = field(default_factory=set)  # [callables] coroutine_runners: run_until_complete
    reference_makers: set = field(default_factory=set)  # [callables] reference_makers
    iter_protocol: set = field(default_factory=set)  # [iteration] protocol_iter: __iter__
    next_protocol: set = field(default_factory=set)  # [iteration] protocol_next: __next__
    index_protocol: set = field(default_factory=set)  # [iteration] protocol_index: __getitem__
    attribute_setters: set = field(default_factory=set)  # [callables] attribute_setters: register_buffer, setattr
    holder_constructors: set = field(default_factory=set)  # [callables] holder_constructors: ContextVar, Queue
    holder_setters: set = field(default_factory=set)  # [callables] holder_setters: set, put
    holder_getters: set = field(default_factory=set)  # [callables] holder_getters: get
    attribute_holders: set = field(default_factory=set)  # [callables] attribute_holders: threading.local
    object_setters: set = field(default_factory=set)  # [callables] object_setters: setattr, object.__setattr__
    attribute_getters: set = field(default_factory=set)  # [callables] attribute_getters: object.__getattribute__
    property_getter_keywords: set = field(default_factory=set)  # [callables] property_getter_keywords: fget
    property_getter_calls: set = field(default_factory=set)  # [callables] property_getter_calls: fget, __get__
    context_values: set = field(default_factory=set)  # [callables] context_values: contextlib.nullcontext
    self_entering_contexts: set = field(default_factory=set)  # [callables]: `with ExitStack() as stack`
    context_enterers: set = field(default_factory=set)  # [callables] context_enterers: ExitStack.enter_context
    context_protocol: set = field(default_factory=set)  # [callables] context_protocol: __enter__
    context_generators: set = field(default_factory=set)  # [callables] context_generators: contextmanager
    attribute_protocol: set = field(default_factory=set)  # [callables] attribute_protocol: __getattr__
    attribute_read_hooks: set = field(default_factory=set)  # [callables] attribute_read_hooks
    descriptor_read_hooks: set = field(default_factory=set)  # [callables] __get__
    descriptor_store_hooks: set = field(default_factory=set)  # [callables] __set__
    property_setter_decorators: set = field(default_factory=set)  # [callables] `@x.setter`
    attribute_store_hooks: set = field(default_factory=set)  # [callables] __setattr__
    class_item_protocol: set = field(default_factory=set)  # [callables] class_item_protocol: __class_getitem__
    implicit_classmethods: set = field(default_factory=set)  # [callables] implicit_classmethods: __class_getitem__
    metaclass_keywords: set = field(default_factory=set)  # [callables] metaclass_keywords: metaclass
    instance_tests: set = field(default_factory=set)  # [callables] instance_tests: isinstance
    virtual_registers: set = field(default_factory=set)  # [callables] virtual_registers: ABC.register
    missing_protocol: set = field(default_factory=set)  # [containers] missing_protocol: __missing__
    learn_packages: set = field(default_factory=set)  # rules/accessors.toml [learn] packages
    learn_skip_methods: set = field(default_factory=set)  # rules/accessors.toml [learn] skip_methods
    # [learn]: the engine's pool object by the attribute that holds it, its per-layer getters by their
    # shape (`get_*_buffer`), and the words of a getter that gives no layer's KV (scales, metadata)
    pool_receivers: set = field(default_factory=set)
    buffer_getters: set = field(default_factory=set)
    not_buffer_words: set = field(default_factory=set)
    gather_methods: set = field(default_factory=set)
    gather_functions: set = field(default_factory=set)
    gather_table_functions: set = field(default_factory=set)  # [gathers] table_functions: F.embedding(idx, table)
    view_methods: set = field(default_factory=set)
    view_functions: set = field(default_factory=set)
    view_attributes: set = field(default_factory=set)  # [views] attributes: `pool.mT`, `pool.T`
    sized_view_methods: set = field(default_factory=set)  # [views] sized_methods: `as_strided(size, ...)`
    sized_view_functions: set = field(default_factory=set)  # [views] sized_functions: `torch.as_strided(x, size, ...)`
    whole_methods: set = field(default_factory=set)  # [views] whole_methods: `clone()`, `requires_grad_()`
    whole_functions: set = field(default_factory=set)  # [views] whole_functions: `scaled_fp4_dequant(buf, s)`
    # [views] elementwise_*: ops that keep every slot of their receiver (first argument), values changed
    elementwise_methods: set = field(default_factory=set)
    elementwise_functions: set = field(default_factory=set)
    choose_functions: set = field(default_factory=set)  # [views] choose_functions: torch.where(c, x, y)
    window_methods: set = field(default_factory=set)  # [views] window_methods: unfold(dim, size, step)
    window_functions: set = field(default_factory=set)  # [views] window_functions: torch.unfold_copy
    einsum_functions: set = field(default_factory=set)  # [views] einsum_functions: torch.einsum("thd->htd", x)
    # [views] dtype_keeping_*: what returns its receiver's dtype, whatever else it changes
    dtype_keeping_methods: set = field(default_factory=set)
    dtype_keeping_attributes: set = field(default_factory=set)
    # [views] whole_copy_*: a copy (or a view) of every slot of what it is called on: `pool.clone()`,
    # `pool.data`; a whole pool stays whole through them (a converted copy of it converts every slot)
    whole_copy_methods: set = field(default_factory=set)
    whole_copy_attributes: set = field(default_factory=set)
    conversion_helpers: dict = field(default_factory=dict)  # name -> ConversionHelper
    guard_names: set = field(default_factory=set)
    hot_path_entry_points: set = field(default_factory=set)  # [hot_path]: methods every decode step runs
    run_once_methods: set = field(default_factory=set)  # [hot_path] run_once: methods that run once per object
    # [hot_path] step_inputs: further methods an engine calls each step with the step's inputs (a
    # slice bound read from their parameters is a window of the step); not entry points
    step_input_methods: set = field(default_factory=set)
    per_construction_methods: set = field(default_factory=set)  # [hot_path] per_construction: __init__, __post_init__
    # [cast_motion]: calls that only read their tensors, for CL003's proof (castlint.analysis.cast_motion)
    read_methods: set = field(default_factory=set)
    read_functions: set = field(default_factory=set)
    eager_consumers: set = field(default_factory=set)
    cast_flags: set = field(default_factory=set)
    property_decorators: set = field(default_factory=set)  # reading such an attribute runs its getter
    new_value_functions: set = field(default_factory=set)  # read-only calls whose result is always new
    new_value_methods: set = field(default_factory=set)
    idempotent_methods: set = field(default_factory=set)  # a second call right after the first changes nothing
    reorder_exceptions: set = field(default_factory=set)  # a handler of these sees CL003's swapped cast/gather
    # [cast_motion], round 3 of the blind benchmark (docs/fix.md, "Safety"):
    convertible_dtypes: set = field(default_factory=set)  # targets every tensor converts to (the cast cannot fail)
    cast_failure_exceptions: set = field(default_factory=set)  # what a cast to another target may raise
    pool_dtypes: set = field(default_factory=set)  # dtypes a pool may store (its dtype is never proven)
    gather_dtype_gaps: dict = field(default_factory=dict)  # gather -> dtypes it is not implemented for
    plain_method_decorators: set = field(default_factory=set)  # a method so decorated is not read as a property
    module_hooks: set = field(default_factory=set)  # calls that install code run on every line / call
    autograd_markers: set = field(default_factory=set)  # names whose use means tensors of the module may need grad
    tensor_classes: set = field(default_factory=set)  # bases that make a class of the file a tensor subclass
    finalizer_dunders: set = field(default_factory=set)  # run when the last reference to an object is dropped
    # [cast_motion], round 6 of the blind benchmark (docs/fix.md, "Round 6"):
    library_called_members: set = field(default_factory=set)  # non-dunder members library code calls
    construction_members: set = field(default_factory=set)  # members that run only when an object is made
    non_constructing_modules: set = field(default_factory=set)  # modules whose functions call no given class
    builtin_exceptions: set = field(default_factory=set)  # raising these constructs no class of the file
    # [cast_motion], round 4 of the blind benchmark (docs/fix.md, "Safety"):
    finalizer_registrars: set = field(default_factory=set)  # calls that register a callback run when an object dies
    identity_operators: set = field(default_factory=set)  # unary operators whose result is the tensor itself (`+t`)
    # [cast_motion], round 5 of the blind benchmark (docs/fix.md, "Safety"):
    module_conversions: set = field(default_factory=set)  # read_methods nn.Module also has (it converts in place)
    module_markers: set = field(default_factory=set)  # names a file that may hold nn.Modules refers to
    not_module_markers: set = field(default_factory=set)  # ... except these (torch.nn.functional)
    frame_functions: set = field(default_factory=set)  # calls that read a frame's locals (`locals`, `sys._getframe`)
    frame_attributes: set = field(default_factory=set)  # attributes that reach a frame (`f_locals`, `tb_frame`)
    library_bases: dict = field(default_factory=dict)  # base/decorator -> members of the class its code may call
    library_modules: set = field(default_factory=set)  # packages whose classes are library code (not the project's)
    writer_callables: set = field(default_factory=set)  # callables that write, passed on as values (`operator.setitem`)
    writer_attributes: set = field(default_factory=set)  # bound methods that write (`buf.__setitem__`)
    # [cast_motion] implicit code: what a builtin calls back into, which dunders a construct runs
    callbacks: dict = field(default_factory=dict)  # qualified name -> {"iterates", "calls", "dunders", "attribute"}
    protocols: dict = field(default_factory=dict)  # construct -> frozenset of dunder names
    container_functions: set = field(default_factory=set)  # eager: the result is a builtin container
    iterable_methods: set = field(default_factory=set)  # the result is a tuple/list of ints (`.size()`)
    # [cast_motion], round 7 of the blind benchmark (docs/fix.md, "Round 7"):
    iterable_functions: set = field(default_factory=set)  # torch functions answering a tuple of tensors / a tensor
    dataclass_decorators: set = field(default_factory=set)  # decorators that generate only field-storing __init__
    dataclass_field_functions: set = field(default_factory=set)  # `dataclasses.field`
    dataclass_replace_functions: set = field(default_factory=set)  # `dataclasses.replace` (round 8)
    cached_decorators: set = field(default_factory=set)  # `functools.lru_cache`, `functools.cache` (round 8)
    counter_operators: set = field(default_factory=set)  # round 8: `d[k] += n` on a counter dict
    counter_read_methods: set = field(default_factory=set)  # round 8: `d.get(k)`, `d.items()`
    counter_readers: set = field(default_factory=set)  # round 8: `dict(d)`, `len(d)`
    attribute_hooks: set = field(default_factory=set)  # round 8: `__setattr__`, `__getattr__`
    container_methods: set = field(default_factory=set)  # round 9: `d.get(k)`, `xs.append(x)` on a builtin container
    container_lookup_methods: set = field(default_factory=set)  # round 9: ... of which hash/compare the argument
    stream_print_functions: set = field(default_factory=set)  # round 9: `print`
    memory_stream_factories: set = field(default_factory=set)  # round 9: `io.StringIO`
    grad_mode_managers: set = field(default_factory=set)  # round 9: `with torch.inference_mode():`
    container_view_methods: set = field(default_factory=set)  # round 10: `d.items()` iterated
    pair_view_methods: set = field(default_factory=set)  # round 10: `d.items()` yields 2-tuples
    context_var_factories: set = field(default_factory=set)  # round 10: `contextvars.ContextVar`
    context_var_read_methods: set = field(default_factory=set)  # round 10: `var.get()`
    wrapper_decorators: set = field(default_factory=set)  # round 11: `functools.wraps`
    container_write_functions: set = field(default_factory=set)  # round 11: `heapq.heappush`
    suppress_managers: set = field(default_factory=set)  # round 11: `contextlib.suppress`
    container_iterating_methods: set = field(default_factory=set)  # round 11: `xs.extend(items)`
    immutable_argument_functions: set = field(default_factory=set)  # round 12: `os.path.join`, `functools.reduce@0`
    inplace_functions: set = field(default_factory=set)  # round 12: `torch.nn.init.zeros_@0,tensor`
    enum_bases: set = field(default_factory=set)  # round 12: `enum.Enum` (a lookup runs only `_missing_`)
    enum_hook_members: set = field(default_factory=set)  # round 12: members an Enum lookup or class may run
    default_dtype_functions: set = field(default_factory=set)  # round 12: `torch.get_default_dtype`
    null_context_managers: set = field(default_factory=set)  # round 13: `contextlib.nullcontext`
    exit_registrars: set = field(default_factory=set)  # round 13: `atexit.register`
    autocast_managers: set = field(default_factory=set)  # round 14: `torch.autocast` (constant arguments)
    autocast_devices: set = field(default_factory=set)  # round 14: "cpu" (constructs without a warning)
    autocast_dtypes: set = field(default_factory=set)  # round 14: the dtypes it supports there
    str_result_functions: set = field(default_factory=set)  # round 13: `json.dumps` (no `cls=`)
    literal_format_methods: set = field(default_factory=set)  # round 13: `"{0.layer_id}".format(layer)`
    group_iterators: set = field(default_factory=set)  # round 13: `itertools.groupby`
    tensor_iteration_members: set = field(default_factory=set)  # round 15: what `for row in tensor` runs
    fresh_module_constructors: set = field(default_factory=set)  # round 15: `torch.nn.Linear` (own Parameters)
    logger_factories: set = field(default_factory=set)  # calls that answer a stdlib logging.Logger
    logger_methods: set = field(default_factory=set)  # a Logger's record-emitting methods
    logger_keywords: set = field(default_factory=set)  # keywords of those that run no code of the file
    logging_functions: set = field(default_factory=set)  # module functions that log on the root logger
    logging_called_members: set = field(default_factory=set)  # members logging calls on objects it holds
    logging_hooks: set = field(default_factory=set)  # names that extend logging with other code
    logging_module_reads: set = field(default_factory=set)  # the only `logging.<name>` a file may read
    iterable_attributes: set = field(default_factory=set)  # `.shape`
    scalar_functions: set = field(default_factory=set)  # the result is a builtin scalar
    scalar_methods: set = field(default_factory=set)
    scalar_attributes: set = field(default_factory=set)
    shape_reads: set = field(default_factory=set)  # reads of a converted pool that the cast does not change
    casts: dict = field(default_factory=dict)  # method -> CastSpelling
    dtype_aliases: dict = field(default_factory=dict)  # [dtype_aliases]: alias -> its dtype (`half` -> `float16`)
    reinterpret_methods: set = field(default_factory=set)
    torch_dtypes: set = field(default_factory=set)
    dtype_words: tuple = ()
    device_words: tuple = ()
    device_call_suffixes: tuple = ()
    device_annotations: set = field(default_factory=set)
    dtype_annotations: set = field(default_factory=set)
    tensor_annotations: set = field(default_factory=set)
    scalar_annotations: set = field(default_factory=set)
    dtype_bytes: dict = field(default_factory=dict)
    wrappers: list = field(default_factory=list)  # [Wrapper]
    mla_signatures: list = field(default_factory=list)  # raw dicts
    fp8_kv_mla: list = field(default_factory=list)  # raw dicts, sorted by version
    auto_backend: dict = field(default_factory=dict)
    mla_kv_read: list = field(default_factory=list)  # raw dicts, by `since` (rules/costs_h200.toml)
    kv_pool: dict = field(default_factory=dict)  # rules/sglang.toml [kv_pool]
    compact_kv_read: dict = field(default_factory=dict)  # the fused row conversion's measured cost (costs_h200.toml)
    kv_read_switch: dict = field(default_factory=dict)  # the patched engine's on/off variable
    paged_kernels: list = field(default_factory=list)  # rules/paged_kernels.toml [[paged_kernel]] rows
    page_views: dict = field(default_factory=dict)  # rules/paged_kernels.toml [page_views]
    kv_read_module: dict = field(default_factory=dict)  # rules/sglang.toml [kv_read_module]
    switch_mechanisms: list = field(default_factory=list)  # rules/sglang.toml [[switch_mechanism]], in order
    formatting: dict = field(default_factory=dict)  # rules/sglang.toml [formatting]: castlint.fixes.style
    paged_kv_read: dict = field(default_factory=dict)  # rules/costs_h200.toml [paged_kv_read]
    row_wise_helpers: dict = field(default_factory=dict)  # rules/row_reads.toml: name -> row argument positions
    rows_getter: dict = field(default_factory=dict)  # rules/row_reads.toml [rows_getter]
    dequantizing_accessors: list = field(default_factory=list)  # rules/row_reads.toml [[dequantizing_accessor]]
    row_kernels: list = field(default_factory=list)  # rules/row_reads.toml [[row_kernel]]
    rows_read_module: dict = field(default_factory=dict)  # rules/sglang.toml [rows_read_module]
    rows_kv_read: dict = field(default_factory=dict)  # rules/costs_h200.toml [rows_kv_read]
    kv_cache_dtype_attributes: set = field(default_factory=set)
    kv_cache_dtype_holders: set = field(default_factory=set)
    kv_cache_dtype_holder_attributes: set = field(default_factory=set)
    kv_cache_dtype_fp8_words: set = field(default_factory=set)  # [kv_cache_dtype] fp8_words: an FP8 dtype's spelling
    kv_cache_dtype_other_dtypes: set = field(default_factory=set)  # [kv_cache_dtype] other_dtypes: not FP8
    presets: dict = field(default_factory=dict)  # name -> ModelPreset
    releases: list = field(default_factory=list)  # [(version tuple, version, flashinfer pin)]
    # Where a tree states its own FlashInfer pin (rules/sglang.toml [pin_source]):
    # package, version_files, project_files, distribution, requirements.
    pin_source: dict = field(default_factory=dict)
    decode_step_exclude_words: tuple = ()  # methods named so run on prefill, not in a decode step
    default_preset: str = ""  # rules/models.toml `default` (required)
    default_pool_tokens: int = 0  # rules/models.toml `default_pool_tokens` (required)
    sources: list = field(default_factory=list)  # paths loaded, in order
    digest: str = ""

    # memo of the derived views below (not table data: left out of comparisons and the cache key)
    _derived: dict = field(default_factory=dict, repr=False, compare=False)

    # -- derived -----------------------------------------------------------
    def argument_positions(self, key: str) -> dict:
        """{name: (position, ...)} of a list of `"name@0,func"` entries (position 0 or keyword func),
        parsed once: [cast_motion] immutable_argument_functions, inplace_functions."""
        found = self._derived.get(key)
        if found is None:
            found = self._derived[key] = {
                name: tuple(p for p in positions.split(",") if p)
                for name, _, positions in (entry.partition("@") for entry in getattr(self, key))
            }
        return found

    def flashinfer_pin(self, sglang_version: str) -> Optional[str]:
        """The FlashInfer that an sglang release pins (nearest older listed release)."""
        wanted = parse_version(sglang_version)
        exact = [pin for _, version, pin in self.releases if version == sglang_version]
        if exact:
            return exact[0]
        older = [pin for key, _, pin in self.releases if key <= wanted]
        return older[-1] if older else None

    def is_property_decorator(self, dotted: Optional[str]) -> bool:
        """Does a decorator spelt `dotted` make a method read as an attribute (property_decorators,
        by its last part: `property`, `functools.cached_property`)?"""
        if not dotted:
            return False
        last = {name.rsplit(".", 1)[-1] for name in self.property_decorators}
        return dotted in self.property_decorators or dotted.rsplit(".", 1)[-1] in last

    def fp8_kv_rows(self) -> list:
        """Rows of the FP8-KV MLA matrix that have a native path, newest first."""
        return [row for row in reversed(self.fp8_kv_mla) if row.get("backends")]

    def wrapper_for_method(self, method: str) -> list:
        return [w for w in self.wrappers if not w.function and method in w.methods]

    def mla_wrapper(self) -> Optional[Wrapper]:
        """FlashInfer's MLA wrapper (the row marked `mla = true`)."""
        return next((w for w in self.wrappers if w.mla), None)

    def wrapper_function(self, name: str) -> Optional[Wrapper]:
        for w in self.wrappers:
            if w.function and w.cls == name:
                return w
        return None


# -- validation helpers ------------------------------------------------------


def _get(data: dict, key: str, kind, path: Path, where: str, default: Any = ...):
    if key not in data:
        if default is ...:
            raise TableError(path, f"{where}.{key}" if where else key, "is required")
        return default
    value = data[key]
    if kind is int and isinstance(value, bool):
        raise TableError(path, f"{where}.{key}", f"must be an integer, got {value!r}")
    if not isinstance(value, kind):
        expected = kind.__name__ if isinstance(kind, type) else "/".join(k.__name__ for k in kind)
        raise TableError(
            path, f"{where}.{key}" if where else key, f"must be {expected}, got {type(value).__name__} {value!r}"
        )
    return value


def _str_list(data: dict, key: str, path: Path, where: str, default=()) -> list:
    value = _get(data, key, list, path, where, list(default))
    for i, item in enumerate(value):
        if not isinstance(item, str):
            raise TableError(path, f"{where}.{key}[{i}]", f"must be a string, got {item!r}")
    return value


def _check_keys(data: dict, allowed: Iterable[str], path: Path, where: str) -> None:
    unknown = sorted(set(data) - set(allowed))
    if unknown:
        raise TableError(path, where or "<top>", f"unknown key(s): {', '.join(unknown)}")


from castlint.common.versions import parse_version  # noqa: E402 - re-exported for the table users

# -- loaders per section -----------------------------------------------------

# in the order of the emitted _MLA_KV_READ_COSTS rows (castlint/fixes/templates/mla_kv_read.py)
MLA_KV_READ_COSTS = (
    "cast_ms_per_pool_token",
    "gather_ms",
    "gather_ms_per_token",
    "native_ms",
    "native_ms_per_token_query",
    "bf16_ms_per_token_query",
    "margin",
)
COMPACT_KV_READ_KEYS = ("ms", "ms_per_row", "whole_pool_share")
# Where each section lives among the builtin tables: facts are filed by what they
# describe, not by the code that reads them. Pools and accessors (accessors.toml), the
# engines' calling conventions (conventions.toml), torch's casts and dtypes (casts.toml),
# FlashInfer's API by version (flashinfer.toml), sglang's API by release (sglang.toml),
# the model presets (models.toml), kernel contracts (paged_kernels.toml, row_reads.toml),
# runtime tracing (trace.toml, read by castlint.trace.table) and measured costs, one
# file per GPU (costs_<gpu>.toml). A user's extend-rules table may carry any section.
COSTS_FILES = "costs_*.toml"
SECTION_FILES = {
    **dict.fromkeys(
        (
            "accessor",
            "cache_attributes",
            "layer_index",
            "index_values",
            "allocation",
            "gathers",
            "views",
            "dim_arguments",
            "fold_arguments",
            "conversions",
            "iteration",
            "containers",
            "records",
            "callables",
            "learn",
            "conversion_helper",
            "guards",
            "hot_path",
        ),
        ("accessors.toml",),
    ),
    "cache_parameter": ("conventions.toml",),
    **dict.fromkeys(
        (
            "cast",
            "reinterpret",
            "dtype_spelling",
            "dtype_aliases",
            "dtype_names",
            "dtype_arguments",
            "dtype_bytes",
            "cast_motion",
        ),
        ("casts.toml",),
    ),
    "wrapper": ("flashinfer.toml", "sglang.toml"),  # FlashInfer's wrappers; sglang's fast_mla_*_plan
    **dict.fromkeys(("mla_signature", "fp8_kv_mla", "auto_backend"), ("flashinfer.toml",)),
    **dict.fromkeys(
        (
            "release",
            "pin_source",
            "decode_step",
            "kv_pool",
            "kv_cache_dtype",
            "kv_read_switch",
            "kv_read_module",
            "switch_mechanism",
            "formatting",
            "rows_read_module",
        ),
        ("sglang.toml",),
    ),
    **dict.fromkeys(("default", "default_pool_tokens", "preset"), ("models.toml",)),
    **dict.fromkeys(("paged_kernel", "page_views", "kernel_languages"), ("paged_kernels.toml",)),
    **dict.fromkeys(("row_wise_helper", "rows_getter", "dequantizing_accessor", "row_kernel"), ("row_reads.toml",)),
    **dict.fromkeys(("mla_kv_read", "compact_kv_read", "paged_kv_read", "rows_kv_read"), (COSTS_FILES,)),
    "trace": ("trace.toml",),
}
TOP_KEYS = {"schema", *SECTION_FILES}
PIN_SOURCE_KEYS = ("package", "version_files", "project_files", "distribution", "requirements")


def _load_into(tables: Tables, data: dict, path: Path) -> None:
    """Add one table file's sections to tables, section by section, in a fixed order
    (so that a file with several mistakes always reports the same one first)."""
    _check_keys(data, TOP_KEYS, path, "")
    schema = _get(data, "schema", int, path, "", 1)
    if schema != 1:
        raise TableError(path, "schema", f"unsupported schema {schema} (this castlint reads 1)")
    for load_section in _SECTION_LOADERS:
        load_section(tables, data, path)


def _merged(words: tuple, more: Iterable[str]) -> tuple:
    """A sorted word tuple with more words added."""
    return tuple(sorted(set(words) | set(more)))


def _section(data: dict, name: str, allowed: Iterable[str], path: Path) -> Optional[dict]:
    """The [name] table of a file, its keys checked; None when the file has none."""
    if name not in data:
        return None
    section = _get(data, name, dict, path, "")
    _check_keys(section, allowed, path, name)
    return section


def _load_word_sets(tables: Tables, data: dict, path: Path, name: str, attribute_of: dict) -> None:
    """A [name] table of string lists: each list `key` is added to the set tables.<attribute_of[key]>."""
    section = _section(data, name, attribute_of, path)
    if section is None:
        return
    for key, attribute in attribute_of.items():
        getattr(tables, attribute).update(_str_list(section, key, path, name))


def _returns(item: dict, path: Path, where: str) -> str:
    returns = _get(item, "returns", str, path, where, "tensor")
    if returns not in ("tensor", "tuple"):
        raise TableError(path, f"{where}.returns", f"must be 'tensor' or 'tuple', got {returns!r}")
    return returns


# accessors.toml: how code reaches a KV pool, and what its values are


def _slot_dims(item: dict, path: Path, where: str) -> tuple:
    """A row's `slot_dims`: the layout's slot dimensions, non-negative ints (empty: not known)."""
    dims = _get(item, "slot_dims", list, path, where, [])
    if any(not isinstance(d, int) or isinstance(d, bool) or d < 0 for d in dims):
        raise TableError(path, f"{where}.slot_dims", "must be a list of non-negative integers")
    return tuple(dims)


def _load_accessors(tables: Tables, data: dict, path: Path) -> None:
    for i, item in enumerate(_get(data, "accessor", list, path, "", [])):
        where = f"accessor[{i}]"
        keys = {"name", "returns", "note", "receivers", "arity", "one_dtype", "dtype", "slot_dims"}
        _check_keys(item, keys, path, where)
        returns = _returns(item, path, where)
        accessor = Accessor(
            _get(item, "name", str, path, where),
            returns,
            _get(item, "note", str, path, where, ""),
            tuple(_str_list(item, "receivers", path, where)),
            arity=_get(item, "arity", int, path, where, 0),
            one_dtype=_get(item, "one_dtype", bool, path, where, False),
            dtype=tuple(_str_list(item, "dtype", path, where)),
            slot_dims=_slot_dims(item, path, where),
        )
        tables.accessors[accessor.name] = accessor


def _load_cache_attributes(tables: Tables, data: dict, path: Path) -> None:
    section = data.get("cache_attributes")
    if isinstance(section, dict) and "entry_cache_planes" in section:
        planes = section["entry_cache_planes"]
        if not isinstance(planes, int) or isinstance(planes, bool) or planes <= 0:
            raise TableError(path, "cache_attributes.entry_cache_planes", "must be a positive integer")
        tables.entry_cache_planes = planes
        data = {**data, "cache_attributes": {k: v for k, v in section.items() if k != "entry_cache_planes"}}
    _load_word_sets(
        tables,
        data,
        path,
        "cache_attributes",
        {
            "names": "cache_attributes",
            "prefilter_whole": "cache_attributes_whole",
            "entry_lists": "cache_entry_lists",
            "python_lists": "cache_list_attributes",
            "parameters": "cache_parameter_names",
        },
    )


def _load_layer_index(tables: Tables, data: dict, path: Path) -> None:
    section = _section(data, "layer_index", {"words"}, path)
    if section is not None:
        tables.layer_index_words = _merged(tables.layer_index_words, _str_list(section, "words", path, "layer_index"))


def _load_gathers(tables: Tables, data: dict, path: Path) -> None:
    _load_word_sets(
        tables,
        data,
        path,
        "gathers",
        {
            "methods": "gather_methods",
            "functions": "gather_functions",
            "table_functions": "gather_table_functions",
            "dim_index_methods": "dim_index_methods",
            "dim_index_functions": "dim_index_functions",
        },
    )


def _load_views(tables: Tables, data: dict, path: Path) -> None:
    _load_word_sets(
        tables,
        data,
        path,
        "views",
        {
            "methods": "view_methods",
            "functions": "view_functions",
            "tuple_methods": "tuple_view_methods",
            "tuple_functions": "tuple_view_functions",
            "narrow_methods": "narrow_methods",
            "split_methods": "split_methods",
            "split_functions": "split_functions",
            "dim_split_methods": "dim_split_methods",
            "dim_split_functions": "dim_split_functions",
            "chunk_methods": "chunk_methods",
            "unbind_methods": "unbind_methods",
            "dim_keyword_aliases": "dim_keyword_aliases",
            "broadcast_functions": "broadcast_functions",
            "subscript_methods": "subscript_methods",
            "concat_functions": "concat_functions",
            "pack_functions": "pack_functions",
            "dim_swaps": "dim_swaps",
            "dim_moves": "dim_moves",
            "dim_orders": "dim_orders",
            "narrow_functions": "narrow_functions",
            "slice_constructors": "slice_constructors",
            "select_methods": "select_methods",
            "select_functions": "select_functions",
            "attributes": "view_attributes",
            "dtype_keeping_methods": "dtype_keeping_methods",
            "dtype_keeping_attributes": "dtype_keeping_attributes",
            "whole_copy_methods": "whole_copy_methods",
            "whole_copy_attributes": "whole_copy_attributes",
            "sized_methods": "sized_view_methods",
            "sized_functions": "sized_view_functions",
            "whole_methods": "whole_methods",
            "whole_functions": "whole_functions",
            "elementwise_methods": "elementwise_methods",
            "elementwise_functions": "elementwise_functions",
            "choose_functions": "choose_functions",
            "window_methods": "window_methods",
            "window_functions": "window_functions",
            "einsum_functions": "einsum_functions",
        },
    )


def _load_dim_arguments(tables: Tables, data: dict, path: Path) -> None:
    """[dim_arguments]: op name -> [dim keyword, position among the arguments after the tensor], or the
    dimension itself for an op that takes none (`vsplit = 0`)."""
    section = data.get("dim_arguments")
    if section is None:
        return
    if not isinstance(section, dict):
        raise TableError(path, "dim_arguments", "must be a table")
    for name, item in section.items():
        if isinstance(item, int) and not isinstance(item, bool):
            tables.dim_arguments[name] = item  # an op whose dimension is its own (`vsplit`: 0)
            continue
        if not (isinstance(item, list) and len(item) == 2 and isinstance(item[0], str) and isinstance(item[1], int)):
            raise TableError(
                path, f"dim_arguments.{name}", f"must be [dim keyword, dim position] or a dimension, got {item!r}"
            )
        tables.dim_arguments[name] = (item[0], item[1])


def _load_fold_arguments(tables: Tables, data: dict, path: Path) -> None:
    """[fold_arguments]: fold name -> [[position, keyword] of the step function, of the sequence, of the
    initial value] (position -1: by keyword only)."""
    section = data.get("fold_arguments")
    if section is None:
        return
    if not isinstance(section, dict):
        raise TableError(path, "fold_arguments", "must be a table")
    for name, item in section.items():
        if not (
            isinstance(item, list)
            and len(item) == 3
            and all(
                isinstance(p, list)
                and len(p) == 2
                and isinstance(p[0], int)
                and not isinstance(p[0], bool)
                and isinstance(p[1], str)
                for p in item
            )
        ):
            raise TableError(path, f"fold_arguments.{name}", f"must be three [position, keyword], got {item!r}")
        tables.fold_arguments[name] = tuple((p[0], p[1]) for p in item)


def fold_in_reduce_order(tables: Tables, name: str, positional: list, keywords: dict) -> Optional[list]:
    """A fold call's arguments in reduce's order, [step, sequence] or [step, sequence, initial value], from
    its positional arguments and keywords (any node kind) and [fold_arguments]; None when the step or the
    sequence is missing or an argument is left unplaced."""
    spec = tables.fold_arguments.get(name)
    if spec is None:
        return None if keywords or not 2 <= len(positional) <= 3 else list(positional)
    out: list = []
    used_positions = set()
    used_keywords = set()
    for position, keyword in spec:
        if 0 <= position < len(positional):
            out.append(positional[position])
            used_positions.add(position)
        elif keyword in keywords:
            out.append(keywords[keyword])
            used_keywords.add(keyword)
        else:
            out.append(None)
    if out[0] is None or out[1] is None or len(used_positions) != len(positional) or set(keywords) - used_keywords:
        return None
    return out if out[2] is not None else out[:2]


def _load_index_values(tables: Tables, data: dict, path: Path) -> None:
    section = data.get("index_values")
    if isinstance(section, dict) and "unbounded_at_least" in section:
        least = section["unbounded_at_least"]
        if not isinstance(least, int) or isinstance(least, bool) or least <= 0:
            raise TableError(path, "index_values.unbounded_at_least", "must be a positive integer")
        tables.unbounded_at_least = least
        data = {**data, "index_values": {k: v for k, v in section.items() if k != "unbounded_at_least"}}
    _load_word_sets(
        tables,
        data,
        path,
        "index_values",
        {
            "scalar_attributes": "scalar_attributes",
            "scalar_element_attributes": "scalar_element_attributes",
            "scalar_element_words": "scalar_element_words",
            "scalar_calls": "scalar_calls",
            "full_reductions": "full_reductions",
            "reduction_dim_keywords": "reduction_dim_keywords",
            "shape_keeping_methods": "shape_keeping_methods",
            "tensor_calls": "tensor_calls",
            "range_functions": "range_functions",
            "stride_ranges": "stride_ranges",
            "least_functions": "least_functions",
            "unbounded_constants": "unbounded_constants",
        },
    )


def _load_allocation(tables: Tables, data: dict, path: Path) -> None:
    section = data.get("allocation")
    if isinstance(section, dict) and "scalar_last_dims" in section:
        sizes = section["scalar_last_dims"]
        if not isinstance(sizes, list) or not all(isinstance(n, int) and not isinstance(n, bool) for n in sizes):
            raise TableError(path, "allocation.scalar_last_dims", "must be a list of integers")
        tables.scalar_last_dims.update(sizes)
        data = {**data, "allocation": {k: v for k, v in section.items() if k != "scalar_last_dims"}}
    _load_word_sets(
        tables,
        data,
        path,
        "allocation",
        {
            "functions": "allocation_functions",
            "batch_words": "batch_words",
            "layer_words": "layer_words",
            "pool_words": "pool_words",
            "extent_words": "extent_words",
            "window_words": "window_words",
            "extent_attributes": "extent_attributes",
            "extent_methods": "extent_methods",
            "extent_functions": "extent_functions",
            "count_functions": "count_functions",
        },
    )


def _load_conversions(tables: Tables, data: dict, path: Path) -> None:
    _load_word_sets(
        tables,
        data,
        path,
        "conversions",
        {
            "copy_methods": "copy_methods",
            "unbound_receivers": "unbound_receivers",
            "class_of_functions": "class_of_functions",
            "class_of_attributes": "class_of_attributes",
            "attribute_getters": "attribute_getters",
            "op_namespaces": "op_namespaces",
            "constructors": "conversion_constructors",
            "constructor_methods": "conversion_constructor_methods",
            "element_constructors": "conversion_element_constructors",
            "host_devices": "host_devices",
            "host_flags": "host_flags",
        },
    )


def _load_iteration(tables: Tables, data: dict, path: Path) -> None:
    _load_word_sets(
        tables,
        data,
        path,
        "iteration",
        {
            "passthrough": "iter_passthrough",
            "chain": "iter_chain",
            "repeat": "iter_repeat",
            "pairs": "iter_pairs",
            "windows": "iter_windows",
            "copies": "iter_copies",
            "call_until": "iter_call_until",
            "groups": "iter_groups",
            "apply": "iter_apply",
            "apply_methods": "iter_apply_methods",
            "star_apply": "iter_star_apply",
            "filtering": "iter_filtering",
            "flatten": "iter_flatten",
            "numbered": "iter_numbered",
            "repeats": "iter_repeats",
            "counters": "counters",
            "tree_apply": "tree_apply",
            "tree_apply_typed": "tree_apply_typed",
            "tree_leaves": "tree_leaves",
            "tree_flatten": "tree_flatten",
            "element_methods": "element_methods",
            "protocol_iter": "iter_protocol",
            "protocol_next": "next_protocol",
            "protocol_index": "index_protocol",
        },
    )
    _load_word_sets(
        tables,
        data,
        path,
        "callables",
        {
            "partial": "partial_callables",
            "keyed_lookups": "keyed_lookups",
            "method_callers": "method_callers",
            "attr_getters": "attr_getters",
            "partial_methods": "partial_methods",
            "function_binders": "function_binders",
            "unwrapped_attributes": "unwrapped_attributes",
            "partial_func_attributes": "partial_func_attributes",
            "partial_args_attributes": "partial_args_attributes",
            "partial_keywords_attributes": "partial_keywords_attributes",
            "bound_self_attributes": "bound_self_attributes",
            "closure_attributes": "closure_attributes",
            "cell_value_attributes": "cell_value_attributes",
            "item_getters": "item_getters",
            "call_functions": "call_functions",
            "runners": "runners",
            "runners_after_one": "runners_after_one",
            "runners_packed": "runners_packed",
            "runner_makers": "runner_makers",
            "made_runner_methods": "made_runner_methods",
            "runner_callable_keywords": "runner_callable_keywords",
            "runner_args_keywords": "runner_args_keywords",
            "runner_kwargs_keywords": "runner_kwargs_keywords",
            "generator_senders": "generator_senders",
            "module_importers": "module_importers",
            "subscript_functions": "subscript_functions",
            "fold_functions": "fold_functions",
            "step_fold_functions": "step_fold_functions",
            "add_functions": "add_functions",
            "or_functions": "or_functions",
            "sum_functions": "sum_functions",
            "pass_through_decorators": "pass_through_decorators",
            "record_factories": "record_factories",
            "class_makers": "class_makers",
            "call_delegates": "call_delegates",
            "duck_protocol": "duck_protocol",
            "tensor_container_methods": "tensor_container_methods",
            "class_dict_functions": "class_dict_functions",
            "class_dict_attributes": "class_dict_attributes",
            "mro_attributes": "mro_attributes",
            "mro_functions": "mro_functions",
            "bases_attributes": "bases_attributes",
            "base_attributes": "base_attributes",
            "class_namespaces": "class_namespaces",
            "enum_bases": "enum_bases",
            "enum_value_attributes": "enum_value_attributes",
            "dispatch_generics": "dispatch_generics",
            "dispatch_registers": "dispatch_registers",
            "namespace_constructors": "namespace_constructors",
            "identity_wrappers": "identity_wrappers",
            "keeping_modules": "keeping_modules",
            "module_chains": "module_chains",
            "function_wrappers": "function_wrappers",
            "class_bound_decorators": "class_bound_decorators",
            "type_casts": "type_casts",
            "weight_wrappers": "weight_wrappers",
            "coroutine_runners": "coroutine_runners",
            "reference_makers": "reference_makers",
            "holder_constructors": "holder_constructors",
            "attribute_setters": "attribute_setters",
            "holder_setters": "holder_setters",
            "holder_getters": "holder_getters",
            "attribute_holders": "attribute_holders",
            "object_setters": "object_setters",
            "attribute_getters": "attribute_getters",
            "property_getter_keywords": "property_getter_keywords",
            "property_getter_calls": "property_getter_calls",
            "context_values": "context_values",
            "self_entering_contexts": "self_entering_contexts",
            "context_enterers": "context_enterers",
            "context_protocol": "context_protocol",
            "context_generators": "context_generators",
            "attribute_protocol": "attribute_protocol",
            "attribute_read_hooks": "attribute_read_hooks",
            "descriptor_read_hooks": "descriptor_read_hooks",
            "descriptor_store_hooks": "descriptor_store_hooks",
            "property_setter_decorators": "property_setter_decorators",
            "attribute_store_hooks": "attribute_store_hooks",
            "class_item_protocol": "class_item_protocol",
            "implicit_classmethods": "implicit_classmethods",
            "metaclass_keywords": "metaclass_keywords",
            "instance_tests": "instance_tests",
            "virtual_registers": "virtual_registers",
        },
    )
    _load_word_sets(
        tables,
        data,
        path,
        "learn",
        {
            "packages": "learn_packages",
            "skip_methods": "learn_skip_methods",
            "pool_receivers": "pool_receivers",
            "buffer_getters": "buffer_getters",
            "not_buffer_words": "not_buffer_words",
        },
    )


def _load_containers(tables: Tables, data: dict, path: Path) -> None:
    _load_word_sets(
        tables,
        data,
        path,
        "containers",
        {
            key: key
            for key in (
                "keep_elements",
                "dict_constructors",
                "dict_annotations",
                "sequence_annotations",
                "annotation_wrappers",
                "positional_annotations",
                "keep_methods",
                "ordered_value_views",
                "member_methods",
                "grow_functions",
                "module_containers",
                "user_containers",
                "user_container_data",
                "dict_classes",
                "mapping_mixins",
                "factory_dicts",
                "chain_maps",
                "item_dicts",
                "key_fill_dicts",
                "item_methods",
                "item_views",
                "key_tests",
                "sequence_constructors",
                "take_methods",
                "lookup_methods",
                "take_functions",
                "grow_one",
                "grow_last",
                "default_last",
                "grow_many",
                "grow_pairs",
                "key_defaults",
                "mapping_copies",
                "missing_protocol",
            )
        },
    )
    _load_word_sets(
        tables,
        data,
        path,
        "records",
        {
            "bases": "record_bases",
            "decorators": "record_decorators",
            "field_calls": "record_field_calls",
            "default_keywords": "record_default_keywords",
            "no_init_keywords": "record_no_init_keywords",
            "replace_methods": "record_replace_methods",
            "make_methods": "record_make_methods",
            "replace_functions": "record_replace_functions",
            "as_dict_methods": "record_as_dict_methods",
            "as_dict_functions": "record_as_dict_functions",
            "as_dict_attributes": "record_as_dict_attributes",
            "as_tuple_functions": "record_as_tuple_functions",
            "field_functions": "record_field_functions",
            "field_name_attributes": "record_field_name_attributes",
            "field_names_attributes": "record_field_names_attributes",
        },
    )


def _load_cache_parameters(tables: Tables, data: dict, path: Path) -> None:
    for i, item in enumerate(_get(data, "cache_parameter", list, path, "", [])):
        where = f"cache_parameter[{i}]"
        _check_keys(
            item,
            {"engine", "methods", "params", "requires", "returns", "note", "planes", "entry", "slot_dims", "beside"},
            path,
            where,
        )
        returns = _returns(item, path, where)
        methods = tuple(_str_list(item, "methods", path, where))
        params = tuple(_str_list(item, "params", path, where))
        if not methods or not params:
            raise TableError(path, where, "needs at least one method and one parameter")
        tables.cache_parameters.append(
            CacheParameter(
                _get(item, "engine", str, path, where),
                methods,
                params,
                tuple(_str_list(item, "requires", path, where)),
                returns,
                _get(item, "note", str, path, where, ""),
                _get(item, "planes", bool, path, where, True),
                _get(item, "entry", bool, path, where, False),
                _slot_dims(item, path, where),
                tuple(_str_list(item, "beside", path, where)),
            )
        )


def _load_conversion_helpers(tables: Tables, data: dict, path: Path) -> None:
    for i, item in enumerate(_get(data, "conversion_helper", list, path, "", [])):
        where = f"conversion_helper[{i}]"
        _check_keys(
            item, {"name", "arg", "direction", "note", "source_dtype", "target_dtype", "scale_block"}, path, where
        )
        direction = _get(item, "direction", str, path, where)
        if direction not in ("quantize", "dequantize"):
            raise TableError(path, f"{where}.direction", f"must be 'quantize' or 'dequantize', got {direction!r}")
        scale_block = _get(item, "scale_block", int, path, where, 0)
        if scale_block < 0:
            raise TableError(path, f"{where}.scale_block", "must be 0 (no scales) or positive")
        helper = ConversionHelper(
            _get(item, "name", str, path, where),
            _get(item, "arg", int, path, where, 0),
            direction,
            _get(item, "note", str, path, where, ""),
            _get(item, "source_dtype", str, path, where, None),
            _get(item, "target_dtype", str, path, where, None),
            scale_block,
        )
        tables.conversion_helpers[helper.name] = helper


def _load_guards(tables: Tables, data: dict, path: Path) -> None:
    _load_word_sets(tables, data, path, "guards", {"names": "guard_names", "state_classes": "state_classes"})


def _load_hot_path(tables: Tables, data: dict, path: Path) -> None:
    _load_word_sets(
        tables,
        data,
        path,
        "hot_path",
        {
            "entry_points": "hot_path_entry_points",
            "run_once": "run_once_methods",
            "setup": "run_once_methods",  # setup hooks run once, as __init__ does (conversions.runs_once)
            "step_inputs": "step_input_methods",
            "per_construction": "per_construction_methods",
        },
    )


# casts.toml: how a dtype cast is spelled, and what the dtypes are

_CALLBACK_KEYS = ("iterates", "calls", "dunders", "attribute")


def _load_cast_motion(tables: Tables, data: dict, path: Path) -> None:
    section = data.get("cast_motion")
    if isinstance(section, dict) and (
        "callbacks" in section or "protocols" in section or "library_bases" in section or "gather_dtype_gaps" in section
    ):
        section = dict(section)
        callbacks = section.pop("callbacks", [])
        protocols = section.pop("protocols", {})
        library_bases = section.pop("library_bases", {})
        gaps = section.pop("gather_dtype_gaps", {})
        data = dict(data, cast_motion=section)
        if not isinstance(gaps, dict):
            raise TableError(path, "cast_motion.gather_dtype_gaps", "must be a table")
        for key in gaps:
            tables.gather_dtype_gaps[key] = frozenset(_str_list(gaps, key, path, "cast_motion.gather_dtype_gaps"))
        if not isinstance(library_bases, dict):
            raise TableError(path, "cast_motion.library_bases", "must be a table")
        for key in library_bases:
            tables.library_bases[key] = frozenset(_str_list(library_bases, key, path, "cast_motion.library_bases"))
        if not isinstance(callbacks, list):
            raise TableError(path, "cast_motion.callbacks", "must be an array of tables")
        for i, item in enumerate(callbacks):
            where = f"cast_motion.callbacks[{i}]"
            _check_keys(item, {"name", *_CALLBACK_KEYS}, path, where)
            name = _get(item, "name", str, path, where)
            tables.callbacks[name] = {key: frozenset(_str_list(item, key, path, where)) for key in _CALLBACK_KEYS}
        if not isinstance(protocols, dict):
            raise TableError(path, "cast_motion.protocols", "must be a table")
        for key in protocols:
            tables.protocols[key] = frozenset(_str_list(protocols, key, path, "cast_motion.protocols"))
    _load_word_sets(
        tables,
        data,
        path,
        "cast_motion",
        {
            "read_methods": "read_methods",
            "read_functions": "read_functions",
            "eager_consumers": "eager_consumers",
            "cast_flags": "cast_flags",
            "property_decorators": "property_decorators",
            "new_value_functions": "new_value_functions",
            "new_value_methods": "new_value_methods",
            "idempotent_methods": "idempotent_methods",
            "reorder_exceptions": "reorder_exceptions",
            "convertible_dtypes": "convertible_dtypes",
            "cast_failure_exceptions": "cast_failure_exceptions",
            "pool_dtypes": "pool_dtypes",
            "library_called_members": "library_called_members",
            "construction_members": "construction_members",
            "non_constructing_modules": "non_constructing_modules",
            "builtin_exceptions": "builtin_exceptions",
            "plain_method_decorators": "plain_method_decorators",
            "module_hooks": "module_hooks",
            "autograd_markers": "autograd_markers",
            "tensor_classes": "tensor_classes",
            "finalizer_dunders": "finalizer_dunders",
            "finalizer_registrars": "finalizer_registrars",
            "identity_operators": "identity_operators",
            "module_conversions": "module_conversions",
            "module_markers": "module_markers",
            "not_module_markers": "not_module_markers",
            "frame_functions": "frame_functions",
            "frame_attributes": "frame_attributes",
            "writer_callables": "writer_callables",
            "library_modules": "library_modules",
            "writer_attributes": "writer_attributes",
            "container_functions": "container_functions",
            "iterable_methods": "iterable_methods",
            "iterable_functions": "iterable_functions",
            "dataclass_decorators": "dataclass_decorators",
            "dataclass_field_functions": "dataclass_field_functions",
            "dataclass_replace_functions": "dataclass_replace_functions",
            "cached_decorators": "cached_decorators",
            "counter_operators": "counter_operators",
            "counter_read_methods": "counter_read_methods",
            "counter_readers": "counter_readers",
            "attribute_hooks": "attribute_hooks",
            "container_methods": "container_methods",
            "container_lookup_methods": "container_lookup_methods",
            "stream_print_functions": "stream_print_functions",
            "memory_stream_factories": "memory_stream_factories",
            "grad_mode_managers": "grad_mode_managers",
            "container_view_methods": "container_view_methods",
            "pair_view_methods": "pair_view_methods",
            "context_var_factories": "context_var_factories",
            "context_var_read_methods": "context_var_read_methods",
            "wrapper_decorators": "wrapper_decorators",
            "container_write_functions": "container_write_functions",
            "suppress_managers": "suppress_managers",
            "container_iterating_methods": "container_iterating_methods",
            "immutable_argument_functions": "immutable_argument_functions",
            "inplace_functions": "inplace_functions",
            "enum_bases": "enum_bases",
            "enum_hook_members": "enum_hook_members",
            "default_dtype_functions": "default_dtype_functions",
            "null_context_managers": "null_context_managers",
            "exit_registrars": "exit_registrars",
            "autocast_managers": "autocast_managers",
            "autocast_devices": "autocast_devices",
            "autocast_dtypes": "autocast_dtypes",
            "str_result_functions": "str_result_functions",
            "literal_format_methods": "literal_format_methods",
            "group_iterators": "group_iterators",
            "tensor_iteration_members": "tensor_iteration_members",
            "fresh_module_constructors": "fresh_module_constructors",
            "logger_factories": "logger_factories",
            "logger_methods": "logger_methods",
            "logger_keywords": "logger_keywords",
            "logging_functions": "logging_functions",
            "logging_called_members": "logging_called_members",
            "logging_hooks": "logging_hooks",
            "logging_module_reads": "logging_module_reads",
            "iterable_attributes": "iterable_attributes",
            "scalar_functions": "scalar_functions",
            "scalar_methods": "scalar_methods",
            "scalar_attributes": "scalar_attributes",
            "shape_reads": "shape_reads",
        },
    )


def _load_casts(tables: Tables, data: dict, path: Path) -> None:
    for i, item in enumerate(_get(data, "cast", list, path, "", [])):
        where = f"cast[{i}]"
        _check_keys(item, {"method", "form", "target", "dtype_keywords", "tensor_keywords"}, path, where)
        form = _get(item, "form", str, path, where)
        if form not in ("to", "no-args", "one-arg", "tensor-arg"):
            raise TableError(path, f"{where}.form", f"must be one of to/no-args/one-arg/tensor-arg, got {form!r}")
        spelling = CastSpelling(
            _get(item, "method", str, path, where),
            form,
            _get(item, "target", str, path, where, None),
            tuple(_get(item, "dtype_keywords", list, path, where, [])),
            tuple(_get(item, "tensor_keywords", list, path, where, [])),
        )
        tables.casts[spelling.method] = spelling


def _load_dtype_aliases(tables: Tables, data: dict, path: Path) -> None:
    if "dtype_aliases" not in data:
        return
    section = _get(data, "dtype_aliases", dict, path, "")
    for key in section:
        for alias in _str_list(section, key, path, "dtype_aliases"):
            tables.dtype_aliases[alias] = key


def _load_reinterpret(tables: Tables, data: dict, path: Path) -> None:
    _load_word_sets(tables, data, path, "reinterpret", {"methods": "reinterpret_methods"})


def _load_dtype_names(tables: Tables, data: dict, path: Path) -> None:
    _load_word_sets(
        tables,
        data,
        path,
        "dtype_names",
        {
            "modules": "dtype_name_modules",
            "text_functions": "dtype_text_functions",
            "text_methods": "dtype_text_methods",
        },
    )


def _load_kernel_languages(tables: Tables, data: dict, path: Path) -> None:
    _load_word_sets(tables, data, path, "kernel_languages", {"decorators": "kernel_decorators"})


def _load_dtype_arguments(tables: Tables, data: dict, path: Path) -> None:
    _load_word_sets(
        tables,
        data,
        path,
        "dtype_arguments",
        {
            "functions": "dtype_argument_functions",
            "methods": "dtype_argument_methods",
            "keywords": "dtype_argument_keywords",
        },
    )


DTYPE_ANNOTATION_KEYS = ("device_annotations", "dtype_annotations", "tensor_annotations", "scalar_annotations")


def _load_dtype_spelling(tables: Tables, data: dict, path: Path) -> None:
    name = "dtype_spelling"
    section = _section(
        data, name, {"torch_dtypes", "name_words", "device_words", "device_call_suffixes", *DTYPE_ANNOTATION_KEYS}, path
    )
    if section is None:
        return
    tables.device_call_suffixes = _merged(
        tables.device_call_suffixes, _str_list(section, "device_call_suffixes", path, name)
    )
    for key in DTYPE_ANNOTATION_KEYS:
        getattr(tables, key).update(_str_list(section, key, path, name))
    tables.torch_dtypes.update(_str_list(section, "torch_dtypes", path, name))
    tables.dtype_words = _merged(tables.dtype_words, _str_list(section, "name_words", path, name))
    tables.device_words = _merged(tables.device_words, _str_list(section, "device_words", path, name))


def _load_dtype_bytes(tables: Tables, data: dict, path: Path) -> None:
    if "dtype_bytes" not in data:
        return
    section = _get(data, "dtype_bytes", dict, path, "")
    for key in section:
        size = _get(section, key, (int, float), path, "dtype_bytes")  # 0.5 for a 4-bit format
        if isinstance(size, bool) or size <= 0:
            raise TableError(path, f"dtype_bytes.{key}", f"must be a positive number, got {size!r}")
        tables.dtype_bytes[key] = size


# flashinfer.toml, sglang.toml and costs_<gpu>.toml: the attention wrappers (FlashInfer's and
# sglang's plan functions), FlashInfer's API by release, the FP8-KV MLA capability matrix,
# and the measured costs of reading an FP8 pool


def _dtype_param(item: dict, key: str, path: Path, where: str) -> DtypeParam:
    """A wrapper's q_dtype/kv_dtype: where plan() takes it."""
    spec = _get(item, key, dict, path, where)
    _check_keys(spec, {"index", "keyword"}, path, f"{where}.{key}")
    return DtypeParam(
        _get(spec, "index", int, path, f"{where}.{key}", None), _get(spec, "keyword", str, path, f"{where}.{key}")
    )


def _load_wrappers(tables: Tables, data: dict, path: Path) -> None:
    for i, item in enumerate(_get(data, "wrapper", list, path, "", [])):
        where = f"wrapper[{i}]"
        _check_keys(
            item,
            {
                "class",
                "module",
                "methods",
                "q_dtype",
                "kv_dtype",
                "aliases",
                "run_method",
                "function",
                "positional_until",
                "mla",
            },
            path,
            where,
        )
        q_dtype = _dtype_param(item, "q_dtype", path, where)
        kv_dtype = _dtype_param(item, "kv_dtype", path, where)
        function = _get(item, "function", bool, path, where, False)
        methods = tuple(_str_list(item, "methods", path, where, ()))
        if not function and not methods:
            raise TableError(path, f"{where}.methods", "a class wrapper needs at least one method")
        tables.wrappers.append(
            Wrapper(
                cls=_get(item, "class", str, path, where),
                module=_get(item, "module", str, path, where),
                methods=methods,
                q_dtype=q_dtype,
                kv_dtype=kv_dtype,
                aliases=tuple(_str_list(item, "aliases", path, where, ())),
                function=function,
                positional_until=_get(item, "positional_until", str, path, where, None),
                mla=_get(item, "mla", bool, path, where, False),
                run_method=_get(item, "run_method", str, path, where, None),
            )
        )


def _load_mla_signatures(tables: Tables, data: dict, path: Path) -> None:
    for i, item in enumerate(_get(data, "mla_signature", list, path, "", [])):
        _get(item, "version", str, path, f"mla_signature[{i}]")
        _str_list(item, "plan_positional", path, f"mla_signature[{i}]")
        tables.mla_signatures.append(item)


def _load_fp8_kv_mla(tables: Tables, data: dict, path: Path) -> None:
    for i, item in enumerate(_get(data, "fp8_kv_mla", list, path, "", [])):
        where = f"fp8_kv_mla[{i}]"
        _check_keys(
            item,
            {
                "since",
                "backends",
                "compute_capability",
                "head_dim_ckv",
                "head_dim_kpe",
                "kv_dtypes",
                "q_dtypes",
                "note",
            },
            path,
            where,
        )
        _get(item, "since", str, path, where)
        if _str_list(item, "backends", path, where):  # a native path: what the fix's guard checks
            for key in ("compute_capability", "head_dim_ckv", "head_dim_kpe"):
                if not all(isinstance(v, int) for v in _get(item, key, list, path, where)):
                    raise TableError(path, f"{where}.{key}", "must be a list of integers")
            for key in ("kv_dtypes", "q_dtypes"):
                if not _str_list(item, key, path, where):
                    raise TableError(path, f"{where}.{key}", "must name at least one dtype")
        tables.fp8_kv_mla.append(item)
    tables.fp8_kv_mla.sort(key=lambda row: parse_version(row["since"]))


def _load_auto_backend(tables: Tables, data: dict, path: Path) -> None:
    if "auto_backend" in data:
        tables.auto_backend.update(_get(data, "auto_backend", dict, path, ""))


def _load_mla_kv_read(tables: Tables, data: dict, path: Path) -> None:
    for i, item in enumerate(_get(data, "mla_kv_read", list, path, "", [])):
        where = f"mla_kv_read[{i}]"
        _check_keys(item, set(MLA_KV_READ_COSTS) | {"since", "gpu", "measured", "source"}, path, where)
        _get(item, "since", str, path, where)
        for key in MLA_KV_READ_COSTS:
            value = _get(item, key, (int, float), path, where)
            if not 0 <= value < 1e3:
                raise TableError(path, f"{where}.{key}", f"must be a cost in ms between 0 and 1000, got {value!r}")
        tables.mla_kv_read.append(item)
    tables.mla_kv_read.sort(key=lambda row: parse_version(row["since"]))


def _load_compact_kv_read(tables: Tables, data: dict, path: Path) -> None:
    section = _section(data, "compact_kv_read", set(COMPACT_KV_READ_KEYS) | {"gpu", "measured", "source", "note"}, path)
    if section is None:
        return
    for key in COMPACT_KV_READ_KEYS:
        value = _get(section, key, (int, float), path, "compact_kv_read")
        if not 0 <= value < 1e3:
            raise TableError(path, f"compact_kv_read.{key}", f"must be between 0 and 1000, got {value!r}")
    tables.compact_kv_read.update(section)


SWITCH_MECHANISM_KEYS = (
    "name",
    "declaration",
    "declaration_class",
    "field",
    "field_comment",
    "import",
    "import_section",
    "read",
)


def _load_kv_read_module(tables: Tables, data: dict, path: Path) -> None:
    module = _section(data, "kv_read_module", {"module", "cuda_graph_keyword"}, path)
    if module is not None:
        name = _get(module, "module", str, path, "kv_read_module")
        if not all(part.isidentifier() for part in name.split(".")):
            raise TableError(path, "kv_read_module.module", f"must be a dotted module name, got {name!r}")
        keyword = _get(module, "cuda_graph_keyword", str, path, "kv_read_module")
        tables.kv_read_module.update(module=name, cuda_graph_keyword=keyword)
    for i, row in enumerate(_get(data, "switch_mechanism", list, path, "", [])):
        where = f"switch_mechanism[{i}]"
        if not isinstance(row, dict):
            raise TableError(path, where, "must be a table")
        _check_keys(row, SWITCH_MECHANISM_KEYS, path, where)
        for key in ("name", "import", "import_section", "read"):
            _get(row, key, str, path, where)
        if row["import_section"] not in ("stdlib", "first-party"):
            raise TableError(
                path, f"{where}.import_section", f"must be stdlib or first-party, got {row['import_section']!r}"
            )
        if "declaration" in row and not all(k in row for k in ("declaration_class", "field")):
            raise TableError(path, where, "a row with a `declaration` needs `declaration_class` and `field`")
        tables.switch_mechanisms.append(dict(row))


FORMATTING_KEYS = {
    "line_length": int,
    "skip_magic_trailing_comma": bool,
    "isort_profile": str,
    "isort_line_length": int,
    "known_first_party": list,
}


def _load_formatting(tables: Tables, data: dict, path: Path) -> None:
    section = _section(data, "formatting", FORMATTING_KEYS, path)
    if section is None:
        return
    for key, kind in FORMATTING_KEYS.items():
        if key in section:
            value = _get(section, key, kind, path, "formatting")
            if kind is int and not 40 <= value <= 400:
                raise TableError(path, f"formatting.{key}", f"must be between 40 and 400, got {value!r}")
            tables.formatting[key] = tuple(_str_list(section, key, path, "formatting")) if kind is list else value


def _load_kv_read_switch(tables: Tables, data: dict, path: Path) -> None:
    section = _section(data, "kv_read_switch", {"variable", "values", "paged_compact_modes"}, path)
    if section is None:
        return
    variable = _get(section, "variable", str, path, "kv_read_switch")
    values = _str_list(section, "values", path, "kv_read_switch")
    if not variable.isidentifier() or not values:
        raise TableError(path, "kv_read_switch", "needs an identifier `variable` and at least one of `values`")
    paged = _str_list(section, "paged_compact_modes", path, "kv_read_switch")
    if any(mode not in values for mode in paged):
        raise TableError(path, "kv_read_switch.paged_compact_modes", f"must be some of {values}, got {paged}")
    tables.kv_read_switch.update(variable=variable, values=values, paged_compact_modes=paged)


def _argument(item: dict, key: str, path: Path, where: str) -> tuple:
    value = item.get(key)
    if not (
        isinstance(value, list)
        and len(value) == 2
        and isinstance(value[0], str)
        and value[0].isidentifier()
        and isinstance(value[1], int)
        and value[1] >= 0
    ):
        raise TableError(path, f"{where}.{key}", f"must be [keyword, position], got {value!r}")
    return value[0], value[1]


def _load_paged_kernels(tables: Tables, data: dict, path: Path) -> None:
    rows = _get(data, "paged_kernel", list, path, "", [])
    for i, item in enumerate(rows):
        where = f"paged_kernel[{i}]"
        if not isinstance(item, dict):
            raise TableError(path, where, "must be a table")
        _check_keys(
            item, {"function", "caches", "page_table", "seqlens", "writes", "refuse", "cache_rank"}, path, where
        )
        function = _get(item, "function", str, path, where)
        lists = {}
        for key in ("caches", "writes", "refuse"):
            raw = _get(item, key, list, path, where, [])
            lists[key] = tuple(_argument({key: arg}, key, path, where) for arg in raw)
        if not lists["caches"]:
            raise TableError(path, f"{where}.caches", "needs at least one cache argument")
        rank = _get(item, "cache_rank", int, path, where, 0)
        tables.paged_kernels.append(
            {
                "function": function,
                "page_table": _argument(item, "page_table", path, where),
                "seqlens": _argument(item, "seqlens", path, where),
                "cache_rank": rank,
                **lists,
            }
        )
    views = _section(data, "page_views", {"functions", "methods", "unflatten", "row_keeping", "metadata"}, path)
    if views is not None:
        functions = tuple(
            _argument({"functions": f}, "functions", path, "page_views")
            for f in _get(views, "functions", list, path, "page_views", [])
        )
        keeping = []
        for item in _get(views, "row_keeping", list, path, "page_views", []):
            if not (
                isinstance(item, list)
                and len(item) == 3
                and isinstance(item[0], str)
                and isinstance(item[1], str)
                and isinstance(item[2], int)
            ):
                raise TableError(
                    path, "page_views.row_keeping", f"must be [method, dim keyword, dim position], got {item!r}"
                )
            keeping.append(tuple(item))
        tables.page_views.update(
            functions=functions,
            methods=tuple(_str_list(views, "methods", path, "page_views")),
            unflatten=_get(views, "unflatten", str, path, "page_views", ""),
            row_keeping=tuple(keeping),
            metadata=tuple(_str_list(views, "metadata", path, "page_views")),
        )
    paged = _section(data, "paged_kv_read", {"gpu", "measured", "source", "whole_pool_share"}, path)
    if paged is not None:
        share = _get(paged, "whole_pool_share", (int, float), path, "paged_kv_read")
        if not 0 < share <= 1:
            raise TableError(path, "paged_kv_read.whole_pool_share", f"must be in (0, 1], got {share!r}")
        tables.paged_kv_read.update(paged)


def _load_row_reads(tables: Tables, data: dict, path: Path) -> None:
    for i, item in enumerate(_get(data, "row_wise_helper", list, path, "", [])):
        where = f"row_wise_helper[{i}]"
        _check_keys(item, {"name", "rows"}, path, where)
        rows = _get(item, "rows", list, path, where)
        if not rows or not all(isinstance(r, int) and r >= 0 for r in rows):
            raise TableError(path, f"{where}.rows", f"must be argument positions, got {rows!r}")
        tables.row_wise_helpers[_get(item, "name", str, path, where)] = tuple(rows)
    getter = _section(data, "rows_getter", {"suffix", "parameter"}, path)
    if getter is not None:
        suffix, parameter = (_get(getter, k, str, path, "rows_getter") for k in ("suffix", "parameter"))
        if not (("x" + suffix).isidentifier() and parameter.isidentifier()):
            raise TableError(path, "rows_getter", "suffix and parameter must make identifiers")
        tables.rows_getter.update(suffix=suffix, parameter=parameter)
    for i, item in enumerate(_get(data, "dequantizing_accessor", list, path, "", [])):
        where = f"dequantizing_accessor[{i}]"
        _check_keys(item, {"engine", "since", "key", "value", "pools", "helper"}, path, where)
        tables.dequantizing_accessors.append(
            {k: _get(item, k, str, path, where, "") for k in ("engine", "since", "key", "value", "pools", "helper")}
        )
    for i, item in enumerate(_get(data, "row_kernel", list, path, "", [])):
        where = f"row_kernel[{i}]"
        _check_keys(item, {"function", "caches", "rows", "modules"}, path, where)
        caches = tuple(_argument({"caches": a}, "caches", path, where) for a in _get(item, "caches", list, path, where))
        if len(caches) != 2:
            raise TableError(path, f"{where}.caches", "must name the K and the V buffer")
        tables.row_kernels.append(
            {
                "function": _get(item, "function", str, path, where),
                "caches": caches,
                "rows": _argument(item, "rows", path, where),
                "modules": tuple(_str_list(item, "modules", path, where)),
            }
        )
    module = _section(data, "rows_read_module", {"module", "pool_rows", "switch", "switch_values"}, path)
    if module is not None:
        name = _get(module, "module", str, path, "rows_read_module")
        if not all(part.isidentifier() for part in name.split(".")):
            raise TableError(path, "rows_read_module.module", f"must be a dotted module name, got {name!r}")
        values = _str_list(module, "switch_values", path, "rows_read_module")
        if not values:
            raise TableError(path, "rows_read_module.switch_values", "needs at least one value")
        tables.rows_read_module.update(
            module=name,
            pool_rows=_get(module, "pool_rows", str, path, "rows_read_module"),
            switch=_get(module, "switch", str, path, "rows_read_module"),
            switch_values=values,
        )
    share = _section(data, "rows_kv_read", {"gpu", "measured", "source", "whole_pool_share"}, path)
    if share is not None:
        value = _get(share, "whole_pool_share", (int, float), path, "rows_kv_read")
        if not 0 < value <= 1:
            raise TableError(path, "rows_kv_read.whole_pool_share", f"must be in (0, 1], got {value!r}")
        tables.rows_kv_read.update(share)


def _load_kv_pool(tables: Tables, data: dict, path: Path) -> None:
    section = _section(
        data,
        "kv_pool",
        {
            "pool",
            "size",
            "padding",
            "runner_parameter",
            "runner_annotation",
            "backend_parameter",
            "backend_annotation",
            "dcp_attribute",
            "dcp_buffer_attribute",
        },
        path,
    )
    if section is None:
        return
    for key, value in section.items():
        if not isinstance(value, str) or not value.isidentifier():
            raise TableError(path, f"kv_pool.{key}", f"must be an identifier, got {value!r}")
    tables.kv_pool.update(section)


# sglang.toml and models.toml: the engine's releases and the model presets


def _load_kv_cache_dtype(tables: Tables, data: dict, path: Path) -> None:
    _load_word_sets(
        tables,
        data,
        path,
        "kv_cache_dtype",
        {
            "attributes": "kv_cache_dtype_attributes",
            "holders": "kv_cache_dtype_holders",
            "holder_attributes": "kv_cache_dtype_holder_attributes",
            "fp8_words": "kv_cache_dtype_fp8_words",
            "other_dtypes": "kv_cache_dtype_other_dtypes",
        },
    )


def _load_releases(tables: Tables, data: dict, path: Path) -> None:
    for i, item in enumerate(_get(data, "release", list, path, "", [])):
        where = f"release[{i}]"
        _check_keys(item, {"version", "flashinfer"}, path, where)
        version = _get(item, "version", str, path, where)
        pin = _get(item, "flashinfer", str, path, where)
        if not parse_version(version) or not parse_version(pin):
            raise TableError(path, where, f"versions must look like 1.2.3, got {version!r} / {pin!r}")
        tables.releases.append((parse_version(version), version, pin))
    tables.releases.sort()


def _load_pin_source(tables: Tables, data: dict, path: Path) -> None:
    section = _section(data, "pin_source", PIN_SOURCE_KEYS, path)
    if section is None:
        return
    for key in ("package", "distribution"):
        tables.pin_source[key] = _get(section, key, str, path, "pin_source")
    for key in ("version_files", "project_files", "requirements"):
        tables.pin_source[key] = tuple(_str_list(section, key, path, "pin_source"))


def _load_decode_step(tables: Tables, data: dict, path: Path) -> None:
    section = _section(data, "decode_step", {"exclude_words"}, path)
    if section is not None:
        tables.decode_step_exclude_words = _merged(
            tables.decode_step_exclude_words, _str_list(section, "exclude_words", path, "decode_step")
        )


def _load_defaults(tables: Tables, data: dict, path: Path) -> None:
    if "default" in data:
        tables.default_preset = _get(data, "default", str, path, "")
    if "default_pool_tokens" in data:
        tables.default_pool_tokens = _get(data, "default_pool_tokens", int, path, "")


def _load_presets(tables: Tables, data: dict, path: Path) -> None:
    for name, item in _get(data, "preset", dict, path, "", {}).items():
        where = f"preset.{name}"
        _check_keys(
            item,
            {"description", "layers", "kv_lora_rank", "rope_dim", "num_heads", "kv_dtype", "compute_dtype"},
            path,
            where,
        )
        if _get(item, "layers", int, path, where) <= 0:
            raise TableError(path, f"{where}.layers", "must be positive")
        preset = ModelPreset(
            name=name,
            description=_get(item, "description", str, path, where, name),
            layers=item["layers"],
            kv_lora_rank=_get(item, "kv_lora_rank", int, path, where),
            rope_dim=_get(item, "rope_dim", int, path, where),
            num_heads=_get(item, "num_heads", int, path, where),
            kv_dtype=_get(item, "kv_dtype", str, path, where),
            compute_dtype=_get(item, "compute_dtype", str, path, where),
        )
        tables.presets[name] = preset


# The order in which _load_into reads a file's sections.
_SECTION_LOADERS = (
    _load_accessors,
    _load_cache_attributes,
    _load_layer_index,
    _load_gathers,
    _load_views,
    _load_dim_arguments,
    _load_fold_arguments,
    _load_index_values,
    _load_allocation,
    _load_conversions,
    _load_iteration,
    _load_containers,
    _load_cache_parameters,
    _load_conversion_helpers,
    _load_guards,
    _load_hot_path,
    _load_casts,
    _load_cast_motion,
    _load_reinterpret,
    _load_dtype_names,
    _load_dtype_arguments,
    _load_kernel_languages,
    _load_dtype_spelling,
    _load_dtype_aliases,
    _load_dtype_bytes,
    _load_wrappers,
    _load_mla_signatures,
    _load_fp8_kv_mla,
    _load_auto_backend,
    _load_mla_kv_read,
    _load_kv_pool,
    _load_compact_kv_read,
    _load_kv_read_switch,
    _load_kv_read_module,
    _load_formatting,
    _load_paged_kernels,
    _load_row_reads,
    _load_kv_cache_dtype,
    _load_releases,
    _load_pin_source,
    _load_decode_step,
    _load_defaults,
    _load_presets,
)


# The sections the fixes and the code they write read key by key: a builtin table must
# state every one of these keys (a user's extend-rules table may override some of them).
REQUIRED_SECTIONS = {
    "kv_pool": (
        "pool",
        "size",
        "padding",
        "runner_parameter",
        "runner_annotation",
        "backend_parameter",
        "backend_annotation",
        "dcp_attribute",
        "dcp_buffer_attribute",
    ),
    "auto_backend": ("sm90", "other"),
    "kv_read_switch": ("variable", "values", "paged_compact_modes"),
    "kv_read_module": ("module", "cuda_graph_keyword"),
    "rows_read_module": ("module", "pool_rows", "switch", "switch_values"),
    "pin_source": PIN_SOURCE_KEYS,
    "rows_getter": ("suffix", "parameter"),
    "compact_kv_read": COMPACT_KV_READ_KEYS,
    "paged_kv_read": ("whole_pool_share",),
    "rows_kv_read": ("whole_pool_share",),
}


def _home(base: Path, section: str) -> Path:
    """The builtin file a section belongs in (SECTION_FILES)."""
    return base / SECTION_FILES[section][0]


def _check_complete(tables: Tables, base: Path, origins: dict) -> None:
    """Every fact the fixes and the code they write read is in the tables: a missing one is an
    error here, naming the file and the key, never a default in Python."""
    for name in ("default", "default_pool_tokens"):
        if name not in origins:
            raise TableError(_home(base, name), name, "is required")
    if tables.default_preset not in tables.presets:
        raise TableError(origins["default"], "default", f"preset {tables.default_preset!r} is not defined")
    for section, keys in REQUIRED_SECTIONS.items():
        values = getattr(tables, section)
        path = origins.get(section, _home(base, section))
        for key in keys:
            if key not in values:
                raise TableError(path, f"{section}.{key}", "is required")
    for key, backend in tables.auto_backend.items():
        if not isinstance(backend, str) or not backend.isidentifier():
            raise TableError(origins["auto_backend"], f"auto_backend.{key}", f"must be a backend name, got {backend!r}")
    if not tables.switch_mechanisms or "declaration" in tables.switch_mechanisms[-1]:
        raise TableError(
            origins.get("switch_mechanism", _home(base, "switch_mechanism")),
            "switch_mechanism",
            "the last row must be the fallback (a row without `declaration`)",
        )
    if not any(row.get("run_scales") for row in tables.mla_signatures):
        raise TableError(
            origins.get("mla_signature", _home(base, "mla_signature")), "mla_signature", "needs a row with `run_scales`"
        )
    if tables.mla_wrapper() is None:
        raise TableError(origins.get("wrapper", _home(base, "wrapper")), "wrapper", "needs the row with `mla = true`")
    known = ", ".join(sorted(tables.dtype_bytes))
    for preset in tables.presets.values():
        for key in ("kv_dtype", "compute_dtype"):
            if getattr(preset, key) not in tables.dtype_bytes:
                raise TableError(
                    origins[("preset", preset.name)],
                    f"preset.{preset.name}.{key}",
                    f"unknown dtype {getattr(preset, key)!r}: [dtype_bytes] lists {known}",
                )
    for helper in tables.conversion_helpers.values():
        for key in ("source_dtype", "target_dtype"):
            dtype = getattr(helper, key)
            if dtype is not None and dtype not in tables.dtype_bytes:
                raise TableError(
                    origins[("conversion_helper", helper.name)],
                    f"conversion_helper.{helper.name}.{key}",
                    f"unknown dtype {dtype!r}: [dtype_bytes] lists {known}",
                )


def _note_origins(origins: dict, data: dict, path: Path) -> None:
    """Which file last stated each section, each preset and each conversion helper."""
    for key in data:
        origins[key] = path
    for name in data.get("preset", {}) if isinstance(data.get("preset"), dict) else ():
        origins[("preset", name)] = path
    for item in data.get("conversion_helper", []):
        if isinstance(item, dict) and "name" in item:
            origins[("conversion_helper", item["name"])] = path


_PARSED: dict = {}  # a table file's bytes -> its TOML, read once a process (the loaders only read it)


def _parsed(path: Path, raw: bytes) -> dict:
    key = hashlib.sha256(raw).digest()
    data = _PARSED.get(key)
    if data is None:
        try:
            data = tomlcompat.loads(raw.decode("utf-8"))
        except (tomlcompat.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise TableError(path, "<file>", f"invalid TOML: {exc}") from exc
        _PARSED[key] = data
    return data


def load_tables(extra: Iterable[Path] = ()) -> Tables:
    tables = Tables()
    base = builtin_rules_dir()
    paths = [base / name for name in TABLE_FILES if (base / name).exists()]
    paths += sorted(p for p in base.glob("*.toml") if p.name not in TABLE_FILES)
    paths += [Path(p) for p in extra]
    digest = hashlib.sha256()
    origins: dict = {}
    for path in paths:
        try:
            raw = path.read_bytes()
        except OSError as exc:
            raise TableError(path, "<file>", f"cannot read: {exc.strerror or exc}") from exc
        data = _parsed(path, raw)
        _load_into(tables, data, path)
        _note_origins(origins, data, path)
        tables.sources.append(str(path))
        digest.update(path.name.encode() + b"\0" + raw)
    _check_complete(tables, base, origins)
    tables.digest = digest.hexdigest()[:16]
    return tables
