"""The double of sglang's runtime: what an attention backend imports and receives.

One double, used by `castlint validate` (real torch, CPU or GPU) and by castlint's own tests
(tests/faketorch, on the pure-Python fake torch): nothing here imports torch at module level;
what needs tensor operations takes the `torch` the backend sees (`sys.modules["torch"]` while
the backend runs, or the one a caller passes).

The backend module is executed from the user's source (see loader.py). Its
`from sglang... import X` statements are answered by `StubModule`s: a name this
file knows (the runtime-context getters, ForwardMode, KVWriteLoc, the kv-index
kernels, ...) gets its double, any other name a `Placeholder` that can be
subclassed, called and attribute-accessed but does nothing. Names move between
sglang releases (global_server_args_dict -> get_global_server_args() ->
runtime_context.get_exec()), so the registry is keyed by name, not by module.

The objects the backend *receives* - model runner, pool, layer, forward batch,
page table - are real tensors wrapped in `Namespace`s that record any attribute
the code reads and the double does not define (reported as `unknown reads`, so
a new sglang release that needs more is visible rather than silently wrong).
"""

from __future__ import annotations

import contextlib
import importlib.abc
import importlib.machinery
import inspect
import os
import sys
import types
from typing import Any, Callable, Dict, Optional

from castlint.validate.doubles.backend_torch import current_torch
from castlint.validate.doubles.speculative import registry_names as speculative_names
from castlint.validate.forward_mode import ForwardModeDouble

# -- permissive namespaces ----------------------------------------------------------


class Namespace:
    """Attribute bag. Unknown attributes read as `default` and are recorded."""

    def __init__(self, _name: str = "namespace", _default: Any = None, _log: Optional[set] = None, **attrs):
        object.__setattr__(self, "_ns_name", _name)
        object.__setattr__(self, "_ns_default", _default)
        object.__setattr__(self, "_ns_log", _log if _log is not None else set())
        for key, value in attrs.items():
            object.__setattr__(self, key, value)

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        self._ns_log.add(f"{self._ns_name}.{name}")
        return self._ns_default

    def __repr__(self):
        return f"<castlint double {self._ns_name}>"


class _DefaultDict(dict):
    def __init__(self, name, log, defaults):
        super().__init__(defaults)
        self._name, self._log = name, log

    def __missing__(self, key):
        self._log.add(f"{self._name}[{key!r}]")
        return None


class _PlaceholderMeta(type):
    def __getattr__(cls, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _make_placeholder(f"{cls.__name__}.{name}")


class Placeholder(metaclass=_PlaceholderMeta):
    """Stands in for any sglang name the harness does not need."""

    def __init__(self, *args, **kwargs):
        pass

    def __call__(self, *args, **kwargs):
        return None

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return None

    def __getitem__(self, item):
        return self

    def __class_getitem__(cls, item):
        return cls


def _make_placeholder(name: str):
    return _PlaceholderMeta(name.rsplit(".", 1)[-1], (Placeholder,), {"__qualname__": name})


# -- ForwardMode, KVWriteLoc, envs ------------------------------------------------


class KVWriteLocDouble:
    def __init__(self, loc):
        self.loc = loc

    @classmethod
    def for_batch(cls, forward_batch):
        return cls(forward_batch.out_cache_loc)


def _loc_of(loc_info, torch):
    if isinstance(loc_info, torch.Tensor):
        return loc_info
    for attr in ("loc", "out_cache_loc"):
        value = getattr(loc_info, attr, None)
        if isinstance(value, torch.Tensor):
            return value
    if isinstance(loc_info, (tuple, list)):
        return loc_info[0]
    raise TypeError(f"cannot read a write location from {loc_info!r}")


class _EnvVar:
    def __init__(self, name: str, value: Any, typed: bool = False):
        self.name, self.value, self.typed = name, value, typed

    def get(self):
        """The process environment's value where it sets the variable (validate sets the KV
        read switch there), else the double's. A variable the double declares is parsed as
        sglang's envs parse it, by the kind of its value (a bool: "1"/"true"/"yes"/"on"; an int:
        the number); any other is the text (an EnvStr, such as the KV read switch)."""
        text = os.environ.get(self.name)
        if text is None:
            return self.value
        if not self.typed:
            return text
        if isinstance(self.value, bool):
            return text.strip().lower() in ("1", "true", "yes", "y", "on")
        if isinstance(self.value, int):
            return int(text)
        return text

    def __bool__(self):
        return bool(self.value)


WORKSPACE_BYTES = 128 * 1024 * 1024


TORCH_COMPILE_ENV = "SGLANG_ENABLE_TORCH_COMPILE"


@contextlib.contextmanager
def import_environment():
    """The process environment a backend module is executed in: releases up to 0.5.1 read
    os.environ["SGLANG_ENABLE_TORCH_COMPILE"] at import (later ones through envs, below); set to
    "0" while the module runs its top level, where the caller has not set it."""
    added = TORCH_COMPILE_ENV not in os.environ
    if added:
        os.environ[TORCH_COMPILE_ENV] = "0"
    try:
        yield
    finally:
        if added:
            os.environ.pop(TORCH_COMPILE_ENV, None)


# The FlashInfer MLA backend's class, by the spellings of the releases.
MLA_BACKEND_CLASSES = ("FlashInferMLAAttnBackend", "FlashInferMlaAttnBackend")


def mla_backend_class(module) -> type:
    """The FlashInfer MLA backend class a backend module defines."""
    for name in MLA_BACKEND_CLASSES:
        cls = vars(module).get(name)
        if isinstance(cls, type):
            return cls
    raise RuntimeError(f"no {MLA_BACKEND_CLASSES[0]} class in the file")


class EnvsDouble:
    _known = {
        TORCH_COMPILE_ENV: False,
        "SGLANG_FLASHINFER_WORKSPACE_SIZE": WORKSPACE_BYTES,
    }

    def __init__(self, log: set):
        self._log = log

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        if name not in self._known:
            self._log.add(f"envs.{name}")
        return _EnvVar(name, self._known.get(name, False), typed=name in self._known)


# -- pool, page table, kv index translation ------------------------------------------


class MLAPoolDouble:
    """MLATokenToKVPool as sglang builds it: one (size + page_size, 1, 576)
    arena per layer, stored as uint8 when the KV dtype is FP8, `get_key_buffer`
    a zero-copy `.view(fp8)`, `set_kv_buffer` an unscaled cast.

    torch: the torch to build it with (None: current_torch()); buffers: the per-layer arenas
    when the caller fills them itself (the fake torch's seeded pools), their dtype the storage's."""

    def __init__(
        self, size, page_size, dtype, kv_lora_rank, qk_rope_head_dim, layer_num, device, torch=None, buffers=None
    ):
        torch = torch or current_torch()
        self.torch = torch
        self.size, self.page_size, self.dtype = size, page_size, dtype
        self.kv_lora_rank, self.qk_rope_head_dim = kv_lora_rank, qk_rope_head_dim
        self.kv_cache_dim = kv_lora_rank + qk_rope_head_dim
        self.layer_num, self.start_layer, self.end_layer = layer_num, 0, layer_num - 1
        self.device = device
        self.layer_transfer_counter = None
        if buffers is not None:
            self.kv_buffer = list(buffers)
            self.store_dtype = self.kv_buffer[0].dtype
            return
        self.store_dtype = torch.uint8 if dtype in (torch.float8_e4m3fn, torch.float8_e5m2) else dtype
        self.kv_buffer = [
            torch.zeros((size + page_size, 1, self.kv_cache_dim), dtype=self.store_dtype, device=device)
            for _ in range(layer_num)
        ]

    def get_key_buffer(self, layer_id: int):
        if self.store_dtype != self.dtype:
            return self.kv_buffer[layer_id - self.start_layer].view(self.dtype)
        return self.kv_buffer[layer_id - self.start_layer]

    def get_value_buffer(self, layer_id: int):
        return self.get_key_buffer(layer_id)[..., : self.kv_lora_rank]

    def get_kv_buffer(self, layer_id: int):
        return self.get_key_buffer(layer_id), self.get_value_buffer(layer_id)

    def set_kv_buffer(self, layer, loc_info, cache_k, cache_v=None, *args, **kwargs):
        loc = _loc_of(loc_info, self.torch)
        layer_id = layer if isinstance(layer, int) else layer.layer_id
        if cache_k.dtype != self.dtype:
            cache_k = cache_k.to(self.dtype)
        buf = self.kv_buffer[layer_id - self.start_layer]
        cache_k = cache_k.reshape(-1, 1, self.kv_cache_dim)
        buf[loc] = cache_k.view(self.store_dtype) if self.store_dtype != self.dtype else cache_k

    def set_mla_kv_buffer(self, layer, loc_info, cache_k_nope, cache_k_rope, *args, **kwargs):
        k = self.torch.cat(
            [cache_k_nope.reshape(-1, 1, self.kv_lora_rank), cache_k_rope.reshape(-1, 1, self.qk_rope_head_dim)], dim=-1
        )
        self.set_kv_buffer(layer, loc_info, k)

    def get_kv_size_bytes(self):
        return sum(b.numel() * b.element_size() for b in self.kv_buffer)


def kv_indices_from_page_table(req_to_token, req_pool_indices, seq_lens, start=None):
    """The flat kv_indices FlashInfer takes: each request's first seq_len slots."""
    torch = current_torch()
    rows = []
    starts = start if start is not None else [0] * len(seq_lens)
    for r, n, s in zip(req_pool_indices.tolist(), seq_lens.tolist(), list(starts)):
        rows.append(req_to_token[int(r), int(s) : int(s) + int(n)])
    if not rows:
        return torch.empty(0, dtype=torch.int32, device=req_to_token.device)
    return torch.cat(rows).to(torch.int32)


class _KVIndicesKernel:
    """create_flashinfer_kv_indices_triton[(bs,)](req_to_token, req_pool_indices,
    page_kernel_lens, kv_indptr, kv_start_idx, kv_indices, req_to_token_stride)."""

    def __getitem__(self, grid):
        return self

    def __call__(
        self, req_to_token, req_pool_indices, page_kernel_lens, kv_indptr, kv_start_idx, kv_indices, *rest, **kw
    ):
        bs = len(req_pool_indices)
        lens = page_kernel_lens[:bs]
        flat = kv_indices_from_page_table(
            req_to_token, req_pool_indices[:bs], lens, kv_start_idx[:bs].tolist() if kv_start_idx is not None else None
        )
        kv_indices[: flat.numel()] = flat.to(kv_indices.device)


class KVIndexTranslatorDouble:
    """sglang >= 0.5.2x `model_runner.kv_index_translator`: virtual == physical."""

    needs_read_translate = False

    def __init__(self, req_to_token):
        self.req_to_token = req_to_token

    def pack_read_stream(self, plan, *, req_pool_indices, seq_lens, indptr, out, **kw):
        flat = kv_indices_from_page_table(self.req_to_token, req_pool_indices, seq_lens)
        out[: flat.numel()] = flat.to(out.device)
        return True

    def translate_dcp_read_ids(self, ids):
        return ids

    def read_source(self, plan, *, req_pool_indices, bs, **kw):
        return Namespace(
            "kv_read_source",
            row_ids=req_pool_indices,
            ids=self.req_to_token,
            row_stride=self.req_to_token.shape[1],
            entry_page_size=1,
            v2p=None,
        )


# -- the stub-module import hook ---------------------------------------------------


class Registry:
    """Doubles by name for `from sglang... import NAME`."""

    def __init__(self, settings: Optional["RuntimeSettings"] = None, log: Optional[set] = None, bare: bool = False):
        """bare: no doubles by name, every import a placeholder (a module driven outside sglang)."""
        settings = settings or RuntimeSettings()
        log = log if log is not None else set()
        self.settings, self.log = settings, log
        s = settings
        buffers: Dict[str, Any] = {}

        def get_buffer(name, factory):
            if name not in buffers:
                buffers[name] = factory()
            return buffers[name]

        parallel = Namespace(
            "get_parallel()",
            None,
            log,
            attn_tp_size=s.tp,
            attn_tp_rank=0,
            attn_dcp_size=1,
            attn_dcp_rank=0,
            dcp_enabled=False,
            tp_size=s.tp,
            tp_rank=0,
            attn_cp_size=1,
            dcp_size=1,
            dcp_world_size=1,
        )
        kernel = Namespace("get_exec().kernel", False, log, flashinfer_mla_disable_ragged=s.disable_ragged)
        exec_ = Namespace(
            "get_exec()",
            None,
            log,
            kernel=kernel,
            enable_torch_compile=False,
            flashinfer_mla_disable_ragged=s.disable_ragged,
        )
        schedule = Namespace("get_schedule()", False, log, page_size=s.page_size, disable_chunked_prefix_cache=True)
        disagg = Namespace("get_disagg()", None, log, disaggregation_mode="null")
        platform = Namespace("get_platform()", False, log, is_sm100=False, is_sm90=s.sm90, is_cuda=True, is_hip=False)
        server_args = Namespace(
            "server_args",
            False,
            log,
            flashinfer_mla_disable_ragged=s.disable_ragged,
            disaggregation_mode="null",
            disable_chunked_prefix_cache=True,
            enable_deterministic_inference=False,
            speculative_eagle_topk=None,
            page_size=s.page_size,
            kv_cache_dtype="fp8_e4m3",
            attention_backend="flashinfer",
            enable_dp_attention=False,
            dcp_size=1,
        )
        self.names: Dict[str, Any] = {
            "get_buffer": get_buffer,
            "get_parallel": lambda: parallel,
            "get_exec": lambda: exec_,
            "get_schedule": lambda: schedule,
            "get_disagg": lambda: disagg,
            "get_platform": lambda: platform,
            "get_server_args": lambda: server_args,
            "get_global_server_args": lambda: server_args,
            "global_server_args_dict": _DefaultDict(
                "global_server_args_dict",
                log,
                {
                    "flashinfer_mla_disable_ragged": s.disable_ragged,
                    "disaggregation_mode": "null",
                    "disable_chunked_prefix_cache": True,
                    "enable_deterministic_inference": False,
                },
            ),
            "global_config": Namespace(
                "global_config", None, log, flashinfer_workspace_size=WORKSPACE_BYTES, wait_for_new_request_delay=0.0006
            ),
            "envs": EnvsDouble(log),
            "AttentionBackend": _attention_backend_base(),
            "ForwardMode": ForwardModeDouble,
            "KVWriteLoc": KVWriteLocDouble,
            "update_local_kv_lens_for_dcp": lambda *a, **k: None,
            "plan_dcp_decode_metadata": _refuse("DCP is disabled in castlint validate"),
            "is_in_breakable_cuda_graph": lambda: False,
            "is_in_tc_piecewise_cuda_graph": lambda: False,
            "is_in_piecewise_cuda_graph": lambda: False,
            "get_cuda_graph_max_batch_size": lambda size, *a, **k: int(size),
            "is_flashinfer_available": lambda: True,
            "is_sm100_supported": lambda *a, **k: False,
            "is_sm90_supported": lambda *a, **k: s.sm90,
            "next_power_of_2": lambda n: 1 if n <= 1 else 1 << (int(n) - 1).bit_length(),
            "assert_buffer_fits": lambda *a, **k: None,
            "create_flashinfer_kv_indices_triton": _KVIndicesKernel(),
            "get_attention_tp_size": lambda: s.tp,
            "get_attention_dcp_world_size": lambda: 1,
            "is_cuda": lambda: True,
            "is_hip": lambda: False,
            **speculative_names(),
        }
        if bare:
            self.names = {}

    def lookup(self, module: str, name: str):
        if name in self.settings.real:
            return self.settings.real[name]
        if name in self.names:
            return self.names[name]
        self.log.add(f"placeholder {module}.{name}")
        return _make_placeholder(f"{module}.{name}")


def filter_kwargs(fn, kwargs: dict) -> dict:
    """kwargs, less those fn's signature does not take (unless it takes **kwargs)."""
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return kwargs
    if any(p.kind == p.VAR_KEYWORD for p in params.values()):
        return kwargs
    return {k: v for k, v in kwargs.items() if k in params}


def cuda_graph_decode_metadata(backend, batch, size: int, decode_mode) -> None:
    """The decode metadata as sglang's CUDA-graph runner sets it up: the graph buffers, the
    capture-time plan (on the use_cuda_graph wrappers), then the replay-time one (the sync-free
    fast_mla_decode_plan), through whichever of the two metadata APIs the release has."""
    if not hasattr(backend, "init_forward_metadata_out_graph") and not hasattr(
        backend, "init_forward_metadata_capture_cuda_graph"
    ):
        raise NotImplementedError("this release has no cuda-graph metadata API the harness knows")
    backend.init_cuda_graph_state(
        **filter_kwargs(backend.init_cuda_graph_state, {"max_bs": size, "max_num_tokens": size})
    )
    if hasattr(backend, "init_forward_metadata_out_graph"):
        backend.init_forward_metadata_out_graph(batch, in_capture=True)
        backend.init_forward_metadata_out_graph(batch, in_capture=False)
        return
    backend.init_forward_metadata_capture_cuda_graph(
        **filter_kwargs(
            backend.init_forward_metadata_capture_cuda_graph,
            dict(
                bs=size,
                num_tokens=size,
                req_pool_indices=batch.req_pool_indices,
                seq_lens=batch.seq_lens,
                encoder_lens=None,
                forward_mode=decode_mode,
                spec_info=None,
            ),
        )
    )
    backend.init_forward_metadata_replay_cuda_graph(
        **filter_kwargs(
            backend.init_forward_metadata_replay_cuda_graph,
            dict(
                bs=size,
                req_pool_indices=batch.req_pool_indices,
                seq_lens=batch.seq_lens,
                seq_lens_sum=batch.seq_lens_sum,
                encoder_lens=None,
                forward_mode=decode_mode,
                spec_info=None,
                seq_lens_cpu=batch.seq_lens_cpu,
            ),
        )
    )


def _refuse(message: str) -> Callable:
    def fn(*a, **k):
        raise RuntimeError(message)

    return fn


def _attention_backend_base():
    class AttentionBackend:
        """Base class double: sglang's base only declares the interface."""

        def __init__(self, *args, **kwargs):
            pass

        def init_forward_metadata_in_graph(self, forward_batch):
            pass

        def forward(self, q, k, v, layer, forward_batch, save_kv_cache=True, **kwargs):
            if forward_batch.forward_mode.is_decode():
                return self.forward_decode(q, k, v, layer, forward_batch, save_kv_cache=save_kv_cache, **kwargs)
            return self.forward_extend(q, k, v, layer, forward_batch, save_kv_cache=save_kv_cache, **kwargs)

    return AttentionBackend


class StubModule(types.ModuleType):
    def __init__(self, name: str, registry: Registry):
        super().__init__(name)
        self.__path__ = []  # a package: submodules import too
        self.__castlint_stub__ = True
        self._registry = registry

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        value = self._registry.lookup(self.__name__, name)
        setattr(self, name, value)
        return value


class _StubFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def __init__(self, prefixes, registry, factory=None):
        self.prefixes, self.registry, self.factory = tuple(prefixes), registry, factory

    def find_spec(self, fullname, path=None, target=None):
        if any(fullname == p or fullname.startswith(p + ".") for p in self.prefixes):
            return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
        return None

    def create_module(self, spec):
        made = self.factory(spec.name) if self.factory is not None else None
        return made if made is not None else StubModule(spec.name, self.registry)

    def exec_module(self, module):
        pass


class RuntimeSettings:
    def __init__(self, tp=1, page_size=1, sm90=True, disable_ragged=False, real=None):
        self.tp, self.page_size, self.sm90, self.disable_ragged = tp, page_size, sm90, disable_ragged
        self.real = real or {}


class StubbedImports:
    """Context manager: while active, `sglang.*` (and any other given prefix)
    imports resolve to StubModules; `extra` modules (e.g. a stand-in
    `flashinfer`, or the fake torch) are placed in sys.modules (None: that import
    raises ImportError). `factory(name)` may make the module of a stubbed name itself
    (None: a StubModule); `clear` names more modules to take out of sys.modules while
    active. Everything is restored on exit."""

    def __init__(
        self,
        registry: Registry,
        prefixes=("sglang",),
        extra: Optional[Dict[str, Any]] = None,
        factory: Optional[Callable[[str], Optional[types.ModuleType]]] = None,
        clear=(),
    ):
        self.finder = _StubFinder(prefixes, registry, factory)
        self.prefixes = tuple(prefixes)
        self.extra = dict(extra or {})
        self.clear = tuple(clear)
        self._saved: Dict[str, Any] = {}

    def _matching(self):
        names = self.prefixes + tuple(self.extra) + self.clear
        exact, packages = set(names), tuple(p + "." for p in names)
        return [m for m in sys.modules if m in exact or m.startswith(packages)]

    def __enter__(self):
        for name in self._matching():
            self._saved[name] = sys.modules.pop(name)
        for name, module in self.extra.items():
            sys.modules[name] = module
        sys.meta_path.insert(0, self.finder)
        return self

    def __exit__(self, *exc):
        try:
            sys.meta_path.remove(self.finder)
        except ValueError:
            pass
        for name in self._matching():
            sys.modules.pop(name, None)
        sys.modules.update(self._saved)
        self._saved.clear()
        return False


def real_sglang_classes(log: set) -> Dict[str, Any]:
    """When sglang itself is importable, its plain data classes replace the
    doubles (ForwardMode, KVWriteLoc). Its runtime (server args, parallel
    state, memory pools that need a running scheduler) stays doubled."""
    import importlib.util

    found: Dict[str, Any] = {}
    if importlib.util.find_spec("sglang") is None:
        return found
    for module, name in (
        ("sglang.srt.model_executor.forward_batch_info", "ForwardMode"),
        ("sglang.srt.mem_cache.memory_pool", "KVWriteLoc"),
    ):
        try:
            mod = importlib.import_module(module)
            found[name] = getattr(mod, name)
            log.add(f"real sglang class {module}.{name}")
        except Exception as exc:  # noqa: BLE001 - report and keep the double
            log.add(f"real sglang {module}.{name} unavailable ({type(exc).__name__})")
    return found
