"""Load and validate the API-fact tables in rules/*.toml.

The tables ship inside the package (castlint/rules/); in a source checkout the
top-level rules/ folder is used. Users add tables through `extend-rules`.
Every validation error names the file and the key.
"""
from __future__ import annotations

import hashlib
import re
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


@dataclass(frozen=True)
class CastSpelling:
    method: str
    form: str  # "to" | "no-args" | "one-arg" | "tensor-arg"
    target: Optional[str] = None


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


@dataclass
class Tables:
    accessors: dict = field(default_factory=dict)  # name -> Accessor
    cache_attributes: set = field(default_factory=set)
    cache_attributes_whole: set = field(default_factory=set)  # matched whole by the prefilter
    layer_index_words: tuple = ()  # kept for old tables; the analysis decides by value
    cache_parameters: list = field(default_factory=list)  # [CacheParameter]
    # how an index's value is told (castlint.analysis.dataflow.ModuleAnalysis.index_kind)
    scalar_attributes: set = field(default_factory=set)
    scalar_calls: set = field(default_factory=set)
    tensor_calls: set = field(default_factory=set)
    # allocations of a buffer, and the words of their first dimension
    allocation_functions: set = field(default_factory=set)
    batch_words: set = field(default_factory=set)
    layer_words: set = field(default_factory=set)
    pool_words: set = field(default_factory=set)
    extent_words: set = field(default_factory=set)
    tuple_view_methods: set = field(default_factory=set)
    tuple_view_functions: set = field(default_factory=set)
    narrow_methods: set = field(default_factory=set)
    narrow_functions: set = field(default_factory=set)
    copy_methods: set = field(default_factory=set)
    unbound_receivers: set = field(default_factory=set)
    iter_passthrough: set = field(default_factory=set)
    gather_methods: set = field(default_factory=set)
    gather_functions: set = field(default_factory=set)
    view_methods: set = field(default_factory=set)
    view_functions: set = field(default_factory=set)
    conversion_helpers: dict = field(default_factory=dict)  # name -> ConversionHelper
    guard_names: set = field(default_factory=set)
    casts: dict = field(default_factory=dict)  # method -> CastSpelling
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
    mla_kv_read: list = field(default_factory=list)  # raw dicts, by `since`
    kv_pool: dict = field(default_factory=dict)
    kv_cache_dtype_attributes: set = field(default_factory=set)
    kv_cache_dtype_holders: set = field(default_factory=set)
    presets: dict = field(default_factory=dict)  # name -> ModelPreset
    releases: list = field(default_factory=list)  # [(version tuple, version, flashinfer pin)]
    # Where a tree states its own FlashInfer pin (rules/sglang.toml [pin_source]):
    # package, version_files, project_files, distribution, requirements.
    pin_source: dict = field(default_factory=dict)
    decode_step_exclude_words: tuple = ()  # methods named so run on prefill, not in a decode step
    default_preset: str = "glm-5"
    default_pool_tokens: int = 495552
    sources: list = field(default_factory=list)  # paths loaded, in order
    digest: str = ""

    # -- derived -----------------------------------------------------------
    def flashinfer_pin(self, sglang_version: str) -> Optional[str]:
        """The FlashInfer that an sglang release pins (nearest older listed release)."""
        wanted = parse_version(sglang_version)
        exact = [pin for _, version, pin in self.releases if version == sglang_version]
        if exact:
            return exact[0]
        older = [pin for key, _, pin in self.releases if key <= wanted]
        return older[-1] if older else None

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
        raise TableError(path, f"{where}.{key}" if where else key, f"must be {expected}, got {type(value).__name__} {value!r}")
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

MLA_KV_READ_COSTS = ("margin", "cast_ms_per_pool_token", "gather_ms", "gather_ms_per_token", "native_ms",
                     "native_ms_per_token_query")
TOP_KEYS = {
    "schema", "accessor", "cache_attributes", "layer_index", "gathers", "views",
    "conversion_helper", "guards", "cast", "reinterpret", "dtype_spelling",
    "dtype_bytes", "wrapper", "mla_signature", "fp8_kv_mla", "auto_backend",
    "default", "default_pool_tokens", "preset", "kv_cache_dtype", "release",
    "index_values", "allocation", "cache_parameter", "conversions", "iteration",
    "trace",  # runtime tracing (rules/trace.toml): read by castlint.trace.table
    "mla_kv_read", "kv_pool",  # rules/crossover.toml: castlint.fixes.flashinfer_mla
    "pin_source", "decode_step",  # rules/sglang.toml: castlint.fixes.target, castlint.models
}
PIN_SOURCE_KEYS = ("package", "version_files", "project_files", "distribution", "requirements")


def _load_into(tables: Tables, data: dict, path: Path) -> None:
    _check_keys(data, TOP_KEYS, path, "")
    schema = _get(data, "schema", int, path, "", 1)
    if schema != 1:
        raise TableError(path, "schema", f"unsupported schema {schema} (this castlint reads 1)")

    for i, item in enumerate(_get(data, "accessor", list, path, "", [])):
        where = f"accessor[{i}]"
        _check_keys(item, {"name", "returns", "note", "receivers"}, path, where)
        returns = _get(item, "returns", str, path, where, "tensor")
        if returns not in ("tensor", "tuple"):
            raise TableError(path, f"{where}.returns", f"must be 'tensor' or 'tuple', got {returns!r}")
        acc = Accessor(_get(item, "name", str, path, where), returns, _get(item, "note", str, path, where, ""),
                       tuple(_str_list(item, "receivers", path, where)))
        tables.accessors[acc.name] = acc

    if "cache_attributes" in data:
        section = _get(data, "cache_attributes", dict, path, "")
        _check_keys(section, {"names", "prefilter_whole"}, path, "cache_attributes")
        tables.cache_attributes.update(_str_list(section, "names", path, "cache_attributes"))
        tables.cache_attributes_whole.update(_str_list(section, "prefilter_whole", path, "cache_attributes"))
    if "layer_index" in data:
        section = _get(data, "layer_index", dict, path, "")
        _check_keys(section, {"words"}, path, "layer_index")
        tables.layer_index_words = tuple(sorted(set(tables.layer_index_words) | set(_str_list(section, "words", path, "layer_index"))))
    if "gathers" in data:
        section = _get(data, "gathers", dict, path, "")
        _check_keys(section, {"methods", "functions"}, path, "gathers")
        tables.gather_methods.update(_str_list(section, "methods", path, "gathers"))
        tables.gather_functions.update(_str_list(section, "functions", path, "gathers"))
    if "views" in data:
        section = _get(data, "views", dict, path, "")
        _check_keys(section, {"methods", "functions", "tuple_methods", "tuple_functions", "narrow_methods",
                              "narrow_functions"}, path, "views")
        tables.view_methods.update(_str_list(section, "methods", path, "views"))
        tables.view_functions.update(_str_list(section, "functions", path, "views"))
        tables.tuple_view_methods.update(_str_list(section, "tuple_methods", path, "views"))
        tables.tuple_view_functions.update(_str_list(section, "tuple_functions", path, "views"))
        tables.narrow_methods.update(_str_list(section, "narrow_methods", path, "views"))
        tables.narrow_functions.update(_str_list(section, "narrow_functions", path, "views"))
    if "index_values" in data:
        section = _get(data, "index_values", dict, path, "")
        _check_keys(section, {"scalar_attributes", "scalar_calls", "tensor_calls"}, path, "index_values")
        tables.scalar_attributes.update(_str_list(section, "scalar_attributes", path, "index_values"))
        tables.scalar_calls.update(_str_list(section, "scalar_calls", path, "index_values"))
        tables.tensor_calls.update(_str_list(section, "tensor_calls", path, "index_values"))
    if "allocation" in data:
        section = _get(data, "allocation", dict, path, "")
        _check_keys(section, {"functions", "batch_words", "layer_words", "pool_words", "extent_words"}, path,
                    "allocation")
        tables.allocation_functions.update(_str_list(section, "functions", path, "allocation"))
        tables.batch_words.update(_str_list(section, "batch_words", path, "allocation"))
        tables.layer_words.update(_str_list(section, "layer_words", path, "allocation"))
        tables.pool_words.update(_str_list(section, "pool_words", path, "allocation"))
        tables.extent_words.update(_str_list(section, "extent_words", path, "allocation"))
    if "conversions" in data:
        section = _get(data, "conversions", dict, path, "")
        _check_keys(section, {"copy_methods", "unbound_receivers"}, path, "conversions")
        tables.copy_methods.update(_str_list(section, "copy_methods", path, "conversions"))
        tables.unbound_receivers.update(_str_list(section, "unbound_receivers", path, "conversions"))
    if "iteration" in data:
        section = _get(data, "iteration", dict, path, "")
        _check_keys(section, {"passthrough"}, path, "iteration")
        tables.iter_passthrough.update(_str_list(section, "passthrough", path, "iteration"))
    for i, item in enumerate(_get(data, "cache_parameter", list, path, "", [])):
        where = f"cache_parameter[{i}]"
        _check_keys(item, {"engine", "methods", "params", "requires", "returns", "note"}, path, where)
        returns = _get(item, "returns", str, path, where, "tensor")
        if returns not in ("tensor", "tuple"):
            raise TableError(path, f"{where}.returns", f"must be 'tensor' or 'tuple', got {returns!r}")
        methods = tuple(_str_list(item, "methods", path, where))
        params = tuple(_str_list(item, "params", path, where))
        if not methods or not params:
            raise TableError(path, where, "needs at least one method and one parameter")
        tables.cache_parameters.append(CacheParameter(
            _get(item, "engine", str, path, where), methods, params,
            tuple(_str_list(item, "requires", path, where)), returns, _get(item, "note", str, path, where, "")))
    for i, item in enumerate(_get(data, "conversion_helper", list, path, "", [])):
        where = f"conversion_helper[{i}]"
        _check_keys(item, {"name", "arg", "direction", "note", "source_dtype", "target_dtype", "scale_block"},
                    path, where)
        direction = _get(item, "direction", str, path, where)
        if direction not in ("quantize", "dequantize"):
            raise TableError(path, f"{where}.direction", f"must be 'quantize' or 'dequantize', got {direction!r}")
        scale_block = _get(item, "scale_block", int, path, where, 0)
        if scale_block < 0:
            raise TableError(path, f"{where}.scale_block", "must be 0 (no scales) or positive")
        helper = ConversionHelper(
            _get(item, "name", str, path, where), _get(item, "arg", int, path, where, 0), direction,
            _get(item, "note", str, path, where, ""), _get(item, "source_dtype", str, path, where, None),
            _get(item, "target_dtype", str, path, where, None), scale_block,
        )
        tables.conversion_helpers[helper.name] = helper
    if "guards" in data:
        section = _get(data, "guards", dict, path, "")
        _check_keys(section, {"names"}, path, "guards")
        tables.guard_names.update(_str_list(section, "names", path, "guards"))

    for i, item in enumerate(_get(data, "cast", list, path, "", [])):
        where = f"cast[{i}]"
        _check_keys(item, {"method", "form", "target"}, path, where)
        form = _get(item, "form", str, path, where)
        if form not in ("to", "no-args", "one-arg", "tensor-arg"):
            raise TableError(path, f"{where}.form", f"must be one of to/no-args/one-arg/tensor-arg, got {form!r}")
        spelling = CastSpelling(_get(item, "method", str, path, where), form, _get(item, "target", str, path, where, None))
        tables.casts[spelling.method] = spelling
    if "reinterpret" in data:
        section = _get(data, "reinterpret", dict, path, "")
        _check_keys(section, {"methods"}, path, "reinterpret")
        tables.reinterpret_methods.update(_str_list(section, "methods", path, "reinterpret"))
    if "dtype_spelling" in data:
        section = _get(data, "dtype_spelling", dict, path, "")
        _check_keys(section, {"torch_dtypes", "name_words", "device_words", "device_call_suffixes",
                              "device_annotations", "dtype_annotations", "tensor_annotations",
                              "scalar_annotations"}, path, "dtype_spelling")
        tables.device_call_suffixes = tuple(sorted(set(tables.device_call_suffixes) | set(
            _str_list(section, "device_call_suffixes", path, "dtype_spelling"))))
        for key in ("device_annotations", "dtype_annotations", "tensor_annotations", "scalar_annotations"):
            getattr(tables, key).update(_str_list(section, key, path, "dtype_spelling"))
        tables.torch_dtypes.update(_str_list(section, "torch_dtypes", path, "dtype_spelling"))
        tables.dtype_words = tuple(sorted(set(tables.dtype_words) | set(_str_list(section, "name_words", path, "dtype_spelling"))))
        tables.device_words = tuple(sorted(set(tables.device_words) | set(_str_list(section, "device_words", path, "dtype_spelling"))))
    if "dtype_bytes" in data:
        section = _get(data, "dtype_bytes", dict, path, "")
        for key, value in section.items():
            size = _get(section, key, (int, float), path, "dtype_bytes")  # 0.5 for a 4-bit format
            if isinstance(size, bool) or size <= 0:
                raise TableError(path, f"dtype_bytes.{key}", f"must be a positive number, got {size!r}")
            tables.dtype_bytes[key] = size

    for i, item in enumerate(_get(data, "wrapper", list, path, "", [])):
        where = f"wrapper[{i}]"
        _check_keys(item, {"class", "module", "methods", "q_dtype", "kv_dtype", "aliases", "run_method", "function",
                           "positional_until", "mla"}, path, where)
        params = []
        for key in ("q_dtype", "kv_dtype"):
            spec = _get(item, key, dict, path, where)
            _check_keys(spec, {"index", "keyword"}, path, f"{where}.{key}")
            params.append(DtypeParam(_get(spec, "index", int, path, f"{where}.{key}", None), _get(spec, "keyword", str, path, f"{where}.{key}")))
        function = _get(item, "function", bool, path, where, False)
        methods = tuple(_str_list(item, "methods", path, where, ()))
        if not function and not methods:
            raise TableError(path, f"{where}.methods", "a class wrapper needs at least one method")
        tables.wrappers.append(Wrapper(
            cls=_get(item, "class", str, path, where), module=_get(item, "module", str, path, where),
            methods=methods, q_dtype=params[0], kv_dtype=params[1],
            aliases=tuple(_str_list(item, "aliases", path, where, ())),
            function=function, positional_until=_get(item, "positional_until", str, path, where, None),
            mla=_get(item, "mla", bool, path, where, False), run_method=_get(item, "run_method", str, path, where, None),
        ))
    for i, item in enumerate(_get(data, "mla_signature", list, path, "", [])):
        _get(item, "version", str, path, f"mla_signature[{i}]")
        _str_list(item, "plan_positional", path, f"mla_signature[{i}]")
        tables.mla_signatures.append(item)
    for i, item in enumerate(_get(data, "fp8_kv_mla", list, path, "", [])):
        where = f"fp8_kv_mla[{i}]"
        _check_keys(item, {"since", "backends", "compute_capability", "head_dim_ckv", "head_dim_kpe", "kv_dtypes", "q_dtypes", "note"}, path, where)
        _get(item, "since", str, path, where)
        _str_list(item, "backends", path, where)
        tables.fp8_kv_mla.append(item)
    tables.fp8_kv_mla.sort(key=lambda row: parse_version(row["since"]))
    if "auto_backend" in data:
        tables.auto_backend.update(_get(data, "auto_backend", dict, path, ""))
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
    if "kv_pool" in data:
        section = _get(data, "kv_pool", dict, path, "")
        _check_keys(section, {"pool", "size", "padding", "cuda_graph_attribute"}, path, "kv_pool")
        for key, value in section.items():
            if not isinstance(value, str) or not value.isidentifier():
                raise TableError(path, f"kv_pool.{key}", f"must be an identifier, got {value!r}")
        tables.kv_pool.update(section)

    if "kv_cache_dtype" in data:
        section = _get(data, "kv_cache_dtype", dict, path, "")
        _check_keys(section, {"attributes", "holders"}, path, "kv_cache_dtype")
        tables.kv_cache_dtype_attributes.update(_str_list(section, "attributes", path, "kv_cache_dtype"))
        tables.kv_cache_dtype_holders.update(_str_list(section, "holders", path, "kv_cache_dtype"))
    for i, item in enumerate(_get(data, "release", list, path, "", [])):
        where = f"release[{i}]"
        _check_keys(item, {"version", "flashinfer"}, path, where)
        version = _get(item, "version", str, path, where)
        pin = _get(item, "flashinfer", str, path, where)
        if not parse_version(version) or not parse_version(pin):
            raise TableError(path, where, f"versions must look like 1.2.3, got {version!r} / {pin!r}")
        tables.releases.append((parse_version(version), version, pin))
    tables.releases.sort()
    if "pin_source" in data:
        section = _get(data, "pin_source", dict, path, "")
        _check_keys(section, PIN_SOURCE_KEYS, path, "pin_source")
        for key in ("package", "distribution"):
            tables.pin_source[key] = _get(section, key, str, path, "pin_source")
        for key in ("version_files", "project_files", "requirements"):
            tables.pin_source[key] = tuple(_str_list(section, key, path, "pin_source"))
    if "decode_step" in data:
        section = _get(data, "decode_step", dict, path, "")
        _check_keys(section, {"exclude_words"}, path, "decode_step")
        words = set(tables.decode_step_exclude_words) | set(_str_list(section, "exclude_words", path, "decode_step"))
        tables.decode_step_exclude_words = tuple(sorted(words))
    if "default" in data:
        tables.default_preset = _get(data, "default", str, path, "")
    if "default_pool_tokens" in data:
        tables.default_pool_tokens = _get(data, "default_pool_tokens", int, path, "")
    for name, item in _get(data, "preset", dict, path, "", {}).items():
        where = f"preset.{name}"
        _check_keys(item, {"description", "layers", "kv_lora_rank", "rope_dim", "num_heads", "kv_dtype", "compute_dtype"}, path, where)
        preset = ModelPreset(
            name=name, description=_get(item, "description", str, path, where, name),
            layers=_get(item, "layers", int, path, where), kv_lora_rank=_get(item, "kv_lora_rank", int, path, where),
            rope_dim=_get(item, "rope_dim", int, path, where), num_heads=_get(item, "num_heads", int, path, where, 128),
            kv_dtype=_get(item, "kv_dtype", str, path, where), compute_dtype=_get(item, "compute_dtype", str, path, where),
        )
        if preset.layers <= 0:
            raise TableError(path, f"{where}.layers", "must be positive")
        tables.presets[name] = preset


def load_tables(extra: Iterable[Path] = ()) -> Tables:
    tables = Tables()
    base = builtin_rules_dir()
    paths = [base / name for name in TABLE_FILES if (base / name).exists()]
    paths += sorted(p for p in base.glob("*.toml") if p.name not in TABLE_FILES)
    paths += [Path(p) for p in extra]
    digest = hashlib.sha256()
    for path in paths:
        try:
            raw = path.read_bytes()
        except OSError as exc:
            raise TableError(path, "<file>", f"cannot read: {exc.strerror or exc}") from exc
        try:
            data = tomlcompat.loads(raw.decode("utf-8"))
        except (tomlcompat.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise TableError(path, "<file>", f"invalid TOML: {exc}") from exc
        _load_into(tables, data, path)
        tables.sources.append(str(path))
        digest.update(path.name.encode() + b"\0" + raw)
    if tables.default_preset not in tables.presets:
        raise TableError(paths[-1] if paths else base, "default", f"preset {tables.default_preset!r} is not defined")
    tables.digest = digest.hexdigest()[:16]
    return tables
