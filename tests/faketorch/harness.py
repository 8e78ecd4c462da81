"""Run an original and a fixed module side by side on the fake torch and FlashInfer.

`load(source, env)` executes a module's source with `torch` answered by the fake torch,
`flashinfer` and `sglang.*` by castlint's one double of them (castlint.validate.doubles,
bound to the fake torch; a fixture's sglang names are inert placeholders) and `triton`
missing, and
`drive_*` calls what it defines the way an engine would, recording an *outcome*
per call: the returned value (tensors by dtype, device, shape and values), or
the exception type; the KV pool after the call; and every FlashInfer plan()/run()
with its dtypes. Two runs behave the same when their outcomes are equal.
"""

from __future__ import annotations

import hashlib
import inspect
import math
import os
import random
import sys
import types
from array import array
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Tuple

from castlint.validate.doubles import MLAPoolDouble, Namespace, Registry, StubbedImports, StubModule
from faketorch.flashinfer import make_flashinfer
from faketorch.module import FakeTorchModule, make_torch
from faketorch.reorder import make_einops
from faketorch.tensor import Tensor

MODULE_NAME = "castlint_equivalence_subject"


# -- the environment ------------------------------------------------------------------


@dataclass(frozen=True)
class Env:
    """What the fake machine looks like."""

    flashinfer: str = "0.7.2"
    capability: tuple = (9, 0)
    kv_dtype: str = "float8_e4m3fn"
    model_dtype: str = "bfloat16"
    force_guard: Optional[bool] = None  # force the bool-returning functions the fix adds
    seed: int = 0

    def label(self) -> str:
        forced = "" if self.force_guard is None else f", guard forced {self.force_guard}"
        return f"FlashInfer {self.flashinfer}, SM{self.capability[0]}{self.capability[1]}, kv {self.kv_dtype}{forced}"


def fake_imports(torch, flashinfer, stub_names: Optional[Dict[str, Any]] = None, registry: Optional[Registry] = None):
    """While active, `import torch`/`flashinfer` give the fakes, `triton` is missing, and `sglang...`
    (and `sgl_kernel`) are castlint's sglang double (castlint.validate.doubles): `registry`'s names,
    else `stub_names` only (None: every name an inert placeholder)."""
    if registry is None:
        registry = Registry(bare=True)
        registry.names.update(stub_names or {})
    inert = Registry(bare=True)

    def factory(name):
        if name.startswith("torch."):
            return FakeTorchModule(name)
        if name.startswith("flashinfer."):
            return StubModule(name, inert)
        return None

    extra = {
        "torch": torch,
        **torch.submodules,
        "flashinfer": flashinfer,
        "flashinfer.mla": flashinfer.mla,
        "einops": make_einops(torch),
        "triton": None,
    }  # a machine without Triton: `import triton` raises ImportError
    return StubbedImports(
        registry,
        prefixes=("torch", "flashinfer", "sglang", "sgl_kernel"),
        extra=extra,
        factory=factory,
        clear=(MODULE_NAME,),
    )


# -- the world the backend sees ----------------------------------------------------------


_GAUSS: Dict[tuple, list] = {}


def _gauss(seed: int, n: int, scale: float, dtype) -> list:
    """n N(0, scale) values rounded to dtype (the same for every run with this seed)."""
    key = (seed, n, scale, dtype.name)
    if key not in _GAUSS:
        rng = random.Random(seed)
        _GAUSS[key] = [dtype.convert(rng.gauss(0.0, scale)) for _ in range(n)]
    return _GAUSS[key]


class FakePool(MLAPoolDouble):
    """castlint's MLATokenToKVPool double on the fake torch: one (size, 1, 576) FP8 arena per layer of
    seeded N(0, 0.5) values, stored as FP8 itself; set_kv_buffer casts unscaled."""

    def __init__(self, torch, size, dtype, dim, layers=1, seed=0):
        lora = 512 if dim > 512 else dim
        buffers = [
            Tensor.from_values(
                _gauss(seed + layer, size * dim, 0.5, dtype),
                (size, 1, dim),
                dtype,
                torch.device("cuda"),
                torch,
                convert=False,
            )
            for layer in range(layers)
        ]
        super().__init__(size, 1, dtype, lora, dim - lora, layers, "cuda", torch=torch, buffers=buffers)
        self.k_buffer = self.kv_buffer
        self.v_buffer = [b[..., : self.kv_lora_rank] for b in self.kv_buffer]

    def state(self):
        return tuple(_values_key(b)[3] for b in self.kv_buffer)


class World:
    """Pool, page table, batches and inputs, built with one fake torch. Same seed: same world."""

    HEADS = 2
    POOL = 24
    DIM = 576
    ROPE = 64

    def __init__(self, torch, env: Env):
        self.torch, self.env = torch, env
        t = torch
        self.kv_dtype = getattr(t, env.kv_dtype)
        self.model_dtype = getattr(t, env.model_dtype)
        rng = random.Random(env.seed + 7)
        self.pool = FakePool(t, self.POOL, self.kv_dtype, self.DIM, seed=env.seed)
        slots = list(range(1, self.POOL))
        rng.shuffle(slots)
        self.req_slots = [slots[0:5], slots[5:10]]  # two requests, five kv slots each, scattered
        self.new_slots = [slots[10:12], slots[12:14]]  # the extend batch's new tokens
        kv = lambda *rows: t.tensor([s for r in rows for s in r], dtype=t.int32, device="cuda")  # noqa: E731

        def randn(*shape, scale=1.0):
            n = 1
            for s in shape:
                n *= s
            values = _gauss(env.seed * 1000 + sum(shape) * 7 + len(shape), n, scale, self.model_dtype)
            return Tensor.from_values(values, shape, self.model_dtype, t.device("cuda"), t, convert=False)

        H, D, R = self.HEADS, self.DIM - self.ROPE, self.ROPE
        self.q_decode = randn(2, H, self.DIM)
        self.q_extend = randn(4, H, self.DIM)
        self.k_extend = randn(4, 1, self.DIM, scale=0.5)
        self.layer = Namespace(
            layer_id=0,
            v_head_dim=D,
            head_dim=self.DIM,
            qk_head_dim=self.DIM,
            tp_q_head_num=H,
            tp_k_head_num=1,
            tp_v_head_num=1,
            scaling=1.0 / math.sqrt(192),
            k_scale=None,
            v_scale=None,
            k_scale_float=None,
            logit_cap=0.0,
            qk_rope_head_dim=R,
            qk_nope_head_dim=128,
        )
        self.model_config = Namespace(
            num_attention_heads=H,
            kv_lora_rank=D,
            qk_rope_head_dim=R,
            qk_nope_head_dim=128,
            v_head_dim=D,
            context_len=64,
            scaling=1.0 / math.sqrt(192),
            head_dim=self.DIM,
        )
        self.model_runner = Namespace(
            token_to_kv_pool=self.pool,
            dtype=self.model_dtype,
            kv_cache_dtype=self.kv_dtype,
            device="cuda",
            model_config=self.model_config,
            page_size=1,
            tp_size=1,
            gpu_id=0,
            is_draft_worker=False,
            sliding_window_size=None,
            server_args=Namespace(kv_cache_dtype="fp8_e4m3", page_size=1),
        )
        self.decode = {
            "qo_indptr": t.tensor([0, 1, 2], dtype=t.int32, device="cuda"),
            "kv_indptr": t.tensor([0, 5, 10], dtype=t.int32, device="cuda"),
            "kv_indices": kv(*self.req_slots),
            "kv_lens": t.tensor([5, 5], dtype=t.int32, device="cuda"),
            "causal": False,
        }
        self.extend = {
            "qo_indptr": t.tensor([0, 2, 4], dtype=t.int32, device="cuda"),
            "kv_indptr": t.tensor([0, 7, 14], dtype=t.int32, device="cuda"),
            "kv_indices": kv(self.req_slots[0] + self.new_slots[0], self.req_slots[1] + self.new_slots[1]),
            "kv_lens": t.tensor([7, 7], dtype=t.int32, device="cuda"),
            "causal": True,
        }
        loc = t.tensor([s for r in self.req_slots for s in r], dtype=t.int64, device="cuda")
        self.loc = loc
        self.decode_batch = Namespace(
            forward_mode=Namespace(is_decode=lambda: True, is_extend=lambda: False),
            batch_size=2,
            kv_indices=loc,
            out_cache_loc=t.tensor([self.req_slots[0][-1], self.req_slots[1][-1]], dtype=t.int64, device="cuda"),
            prefix_loc=t.tensor(self.req_slots[1][:3], dtype=t.int64, device="cuda"),
            spec_locs=[t.tensor(r[:2], dtype=t.int64, device="cuda") for r in self.req_slots],
            token_to_kv_pool=self.pool,
            seq_lens=self.decode["kv_lens"],
            seq_lens_sum=10,
            kv_indptr=self.decode["kv_indptr"],
            qo_indptr=self.decode["qo_indptr"],
        )
        self.extend_batch = Namespace(
            forward_mode=Namespace(is_decode=lambda: False, is_extend=lambda: True),
            batch_size=2,
            kv_indices=t.tensor(self.extend["kv_indices"].tolist(), dtype=t.int64, device="cuda"),
            out_cache_loc=t.tensor(self.new_slots[0] + self.new_slots[1], dtype=t.int64, device="cuda"),
            prefix_loc=t.tensor(self.req_slots[0][:3], dtype=t.int64, device="cuda"),
            spec_locs=[t.tensor(r[:2], dtype=t.int64, device="cuda") for r in self.new_slots],
            token_to_kv_pool=self.pool,
            seq_lens=self.extend["kv_lens"],
            seq_lens_sum=14,
            kv_indptr=self.extend["kv_indptr"],
            qo_indptr=self.extend["qo_indptr"],
            extend_prefix_lens=t.tensor([5, 5], dtype=t.int32, device="cuda"),
            extend_seq_lens_cpu=[2, 2],
        )

    def instance_attributes(self) -> Dict[str, Any]:
        """What generated backends read from `self` without ever assigning it."""
        return {
            "pool": self.pool,
            "token_to_kv_pool": self.pool,
            "k_buffer": self.pool.get_key_buffer(0),
            "kv_buffer": self.pool.kv_buffer,
            "scale": 0.5,
            "device": "cuda",
            "data_type": self.model_dtype,
            "castlint_native_fp8_kv": False,
            "wrapper": Namespace(plan=lambda *a, **k: None, run=lambda *a, **k: a[0] if a else None),
        }

    def module_globals(self) -> Dict[str, Any]:
        """Free names of generated code (`pool`, `forward_batch`, `wrapper`, ...) bound to world
        objects, so that more of it runs before something raises."""
        q = self.q_decode
        recorder = Namespace(plan=lambda *a, **k: None, run=lambda *a, **k: None, begin_forward=lambda *a, **k: None)
        names = {
            "pool": self.pool,
            "forward_batch": self.decode_batch,
            "layer_id": 0,
            "layer": self.layer,
            "q": q,
            "loc": self.loc,
            "flag": False,
            "wrapper": recorder,
            "model_runner": self.model_runner,
            "quantize_k_cache": lambda t, *a, **k: t.to(self.torch.float8_e4m3fn),
            "dequantize_k_cache": lambda t, *a, **k: t.to(self.torch.bfloat16),
        }
        for i, name in enumerate(("k", "x", "kv", "k_cache", "buf", "nope", "rope", "out")):
            names[name] = q[:, :, : 64 * (i + 1)]
        names["self"] = Namespace(**self.instance_attributes())
        return names

    def missing_method(self, name: str):
        """`self.<name>(...)` for a method a generated class calls but does not define."""
        return lambda *a, **k: a[0] if a else None

    def argument(self, name: str, mode: str, backend=None):
        """A value for a parameter called `name` (None: no idea)."""
        meta = self.decode if mode == "decode" else self.extend
        table = {
            "q": self.q_decode if mode == "decode" else self.q_extend,
            "k": self.k_extend if mode == "extend" else self.q_decode[:, :1, :],
            "v": self.k_extend if mode == "extend" else self.q_decode[:, :1, :],
            "layer": self.layer,
            "forward_batch": self.decode_batch if mode == "decode" else self.extend_batch,
            "loc": self.loc,
            "model_runner": self.model_runner,
            "attn_backend": backend,
            "qo_indptr": meta["qo_indptr"],
            "kv_indptr": meta["kv_indptr"],
            "kv_indices": meta["kv_indices"],
            "kv_lens": meta["kv_lens"],
            "kv_len_arr": meta["kv_lens"],
            "sm_scale": self.layer.scaling,
            "layer_id": 0,
            "pool": self.pool,
            "x": self.q_decode,
        }
        return table.get(name)


# -- outcomes --------------------------------------------------------------------------


def _num(v):
    if isinstance(v, float) and math.isnan(v):
        return "nan"
    return v


def _values_key(t: Tensor):
    """dtype, device, shape and the values' digest (bitwise: NaN equals NaN, -0.0 is not 0.0),
    with the first values for messages."""
    values = t._values()
    digest = hashlib.blake2b(array("d", values).tobytes(), digest_size=16).hexdigest()
    return (str(t.dtype), str(t.device), tuple(t.shape), digest, "starts " + repr(values[:4]))


def summarize(value, depth: int = 0):
    """A comparable picture of a returned value."""
    if depth > 6:
        return "..."
    if isinstance(value, Tensor):
        try:
            return ("tensor",) + _values_key(value)
        except Exception as exc:  # noqa: BLE001 - a lazy giant workspace
            return ("tensor", str(value.dtype), tuple(value.shape), type(exc).__name__)
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, tuple(summarize(v, depth + 1) for v in value))
    if isinstance(value, dict):
        return ("dict", tuple((str(k), summarize(v, depth + 1)) for k, v in value.items()))
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return _num(value)
    if type(value).__name__ == "dtype":
        return str(value)
    return f"<{type(value).__name__}>"


@dataclass
class Run:
    """What one module did: per call, the outcome and the pool afterwards; FlashInfer's log."""

    calls: List[tuple] = field(default_factory=list)
    log: List[dict] = field(default_factory=list)
    load_error: Optional[str] = None
    module: Any = None
    tensors: Dict[str, Any] = field(default_factory=dict)  # label -> returned value (for tolerance checks)
    errors: Dict[str, str] = field(default_factory=dict)  # label -> the exception, for messages
    spans: Dict[str, tuple] = field(default_factory=dict)  # label -> its slice of the log
    # label of a driven forward -> the reads its backend's MlaKvRead (the fixed module's) had then
    # chosen for the backend's wrappers, by attribute name
    reads: Dict[str, Dict[str, str]] = field(default_factory=dict)

    def record(self, label: str, fn: Callable[[], Any], pool: FakePool):
        start = len(self.log)
        try:
            value = fn()
            outcome = ("ok", summarize(value))
            self.tensors[label] = value
        except Exception as exc:  # noqa: BLE001 - a raising call is an outcome
            outcome = ("raised", type(exc).__name__)
            self.errors[label] = f"{type(exc).__name__}: {str(exc)[:300]}"
        self.calls.append((label, outcome, pool.state()))
        self.spans[label] = (start, len(self.log))

    def log_of(self, label: str) -> List[dict]:
        """The FlashInfer calls made during one driven call."""
        start, end = self.spans.get(label, (0, 0))
        return self.log[start:end]

    @property
    def raised(self) -> List[str]:
        return [label for label, outcome, _ in self.calls if outcome[0] == "raised"]

    def wrapper_log(self) -> List[tuple]:
        """The FlashInfer calls with wrapper ids replaced by their order of first use."""
        order: Dict[int, int] = {}
        out = []
        for e in self.log:
            w = order.setdefault(e.get("wrapper", -1), len(order))
            out.append(tuple(sorted((k, (w if k == "wrapper" else v)) for k, v in e.items())))
        return out


# -- loading -------------------------------------------------------------------------


def _force(fixed_globals: dict, baseline: set, value: bool):
    """Force the decisions of the functions the fix added, whatever their names: one that
    returns a bool returns `value`; with value False, one that returns a dict or None (a
    capability record, None meaning "cannot") returns None. Others are left alone."""
    for name, fn in list(fixed_globals.items()):
        if name in baseline or not isinstance(fn, types.FunctionType):
            continue

        def forced(*a, __fn=fn, **k):
            result = __fn(*a, **k)
            if isinstance(result, bool):
                return value
            if not value and (result is None or isinstance(result, dict) or hasattr(result, "_asdict")):
                return None
            return result

        fixed_globals[name] = forced


def load(
    source: bytes,
    torch,
    flashinfer,
    world: World,
    baseline_globals: Optional[set] = None,
    force: Optional[bool] = None,
    seed_globals: bool = False,
) -> types.ModuleType:
    """Execute source as a module (inside fake_imports)."""
    code = compile(source, f"<{MODULE_NAME}>", "exec", dont_inherit=True)
    module = types.ModuleType(MODULE_NAME)
    module.__file__ = f"<{MODULE_NAME}>"
    if seed_globals:
        module.__dict__.update(world.module_globals())
    sys.modules[MODULE_NAME] = module
    exec(code, module.__dict__)
    if force is not None and baseline_globals is not None:
        _force(module.__dict__, baseline_globals, force)
    return module


def _defined_here(module, obj) -> bool:
    return getattr(obj, "__module__", None) == module.__name__


def _call(fn, world: World, mode: str, backend=None, **overrides):
    """Call fn with arguments chosen by parameter name."""
    sig = inspect.signature(fn)
    args = {}
    for name, p in sig.parameters.items():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        if name in overrides:
            args[name] = overrides[name]
            continue
        value = world.argument(name, mode, backend)
        if value is None and p.default is not p.empty:
            continue
        args[name] = value
    return fn(**args)


def _mode_of(name: str) -> str:
    return "extend" if any(w in name for w in ("extend", "prefill")) else "decode"


# -- drivers ---------------------------------------------------------------------------


# methods tests/test_fuzz.py's generator calls through self (defined or not)
GENERATED_METHODS = ("forward_decode", "forward_extend", "forward", "_helper", "_cast", "init_forward_metadata")


def drive_classes(module, world: World, run: Run, only: Optional[str] = None):
    """Every class and function the module defines, called as generically as possible:
    instances start with the attributes generated backends read, `__init__` runs, then every
    method in source order (decode arguments, then extend arguments for extend/prefill methods)."""
    pool = world.pool
    members = [(n, o) for n, o in vars(module).items() if _defined_here(module, o)]
    for name, obj in members:
        if isinstance(obj, type):
            inst = obj.__new__(obj)
            presets = dict(world.instance_attributes())
            for method in GENERATED_METHODS:
                if not hasattr(obj, method):
                    presets[method] = world.missing_method(method)
            for attr, value in presets.items():
                try:
                    object.__setattr__(inst, attr, value)
                except (AttributeError, TypeError):
                    pass
            if "__init__" in vars(obj):
                run.record(f"{name}.__init__", lambda: _call(obj.__init__, world, "decode", None, self=inst), pool)
            for mname, fn in vars(obj).items():
                if not isinstance(fn, types.FunctionType) or mname.startswith("__"):
                    continue
                if only is not None and mname != only:
                    continue
                bound = getattr(inst, mname)
                run.record(f"{name}.{mname}", lambda b=bound, m=mname: _call(b, world, _mode_of(m), inst), pool)
        elif isinstance(obj, types.FunctionType) and not name.startswith("_") and only in (None, name):
            run.record(name, lambda f=obj: _call(f, world, _mode_of(name)), pool)


def _wrapper_for(backend, updater_name: str, wrapper_cls):
    wrappers = {k: v for k, v in vars(backend).items() if isinstance(v, wrapper_cls)}
    want = "decode" if _mode_of(updater_name) == "decode" else ("prefill", "extend")
    for k, v in wrappers.items():
        if (want == "decode" and "decode" in k) or (want != "decode" and any(w in k for w in want)):
            return v
    return next(iter(wrappers.values()), None)


def mla_backends(module) -> List[type]:
    return [
        o
        for o in vars(module).values()
        if isinstance(o, type)
        and _defined_here(module, o)
        and hasattr(o, "forward_decode")
        and "model_runner" in inspect.signature(o.__init__).parameters
    ]


def drive_mla(module, world: World, run: Run, wrapper_cls):
    """Construct each MLA backend, plan through its own updaters (or init_forward_metadata),
    then forward_decode and forward_extend (paged)."""
    pool = world.pool
    for cls in mla_backends(module):
        holder = {}
        run.record(f"{cls.__name__}()", lambda: holder.setdefault("b", cls(model_runner=world.model_runner)), pool)
        backend = holder.get("b")
        if backend is None:
            continue
        for mode, method in (("decode", "forward_decode"), ("extend", "forward_extend")):
            if not hasattr(backend, method):
                continue
            batch = world.decode_batch if mode == "decode" else world.extend_batch
            if hasattr(backend, "init_forward_metadata"):
                run.record(f"init_forward_metadata[{mode}]", lambda b=batch: backend.init_forward_metadata(b), pool)
            else:
                for uname, updater in vars(backend).items():
                    plan = getattr(updater, "plan", None)
                    if not callable(plan) or not _defined_here(module, type(updater)) or _mode_of(uname) != mode:
                        continue
                    wrapper = _wrapper_for(backend, uname, wrapper_cls)
                    run.record(
                        f"{uname}.plan", lambda p=plan, w=wrapper: _call(p, world, mode, backend, wrapper=w), pool
                    )
            run.record(method, lambda m=method, md=mode: _call(getattr(backend, m), world, md, backend), pool)
            reads = vars(backend).get("kv_read")
            if reads is not None and hasattr(reads, "read"):
                run.reads[method] = {
                    name: reads.read(w).kind for name, w in vars(backend).items() if isinstance(w, wrapper_cls)
                }


_WRITTEN_MODULE: Dict[str, Any] = {}  # "tables": the built-in tables; their digest -> the module castlint writes
_CODE: Dict[Tuple[str, bytes], types.CodeType] = {}  # (name, source) -> its compiled code


def kv_read_modules(companions: Optional[Dict[str, bytes]] = None) -> Dict[str, bytes]:
    """The module the MLA fixes add, by every name a fixed file may import it by: the fix's
    own (path -> source) where given, else the one castlint writes (full profile; made once
    per process for the same tables)."""
    from castlint.fixes.kv_read_module import module_source
    from castlint.tables import load_tables

    tables = _WRITTEN_MODULE.get("tables")
    if tables is None:  # the built-in tables, read once per process
        tables = _WRITTEN_MODULE["tables"] = load_tables()
    name = tables.kv_read_module["module"]
    stem = name.rsplit(".", 1)[-1]
    source = next((text for path, text in (companions or {}).items() if os.path.basename(path) == stem + ".py"), None)
    if source is None:
        written = _WRITTEN_MODULE.get(tables.digest)
        if written is None:
            written = _WRITTEN_MODULE[tables.digest] = module_source(tables)
        source = written.encode("utf-8")
    return {stem: source, name: source}


def load_companions(modules: Dict[str, bytes], force: Optional[bool]) -> None:
    """Execute each companion module (inside fake_imports) under its names; with `force`, its
    decisions are forced like the fix's own functions. Each source is compiled once per process."""
    done: Dict[bytes, types.ModuleType] = {}
    for name, text in modules.items():
        module = done.get(text)
        if module is None:
            module = done[text] = types.ModuleType(name)
            code = _CODE.get((name, text))
            if code is None:
                code = _CODE[(name, text)] = compile(text, f"<{name}>", "exec", dont_inherit=True)
            exec(code, module.__dict__)
            if force is not None:  # its public decisions (the private helpers are left alone)
                _force(module.__dict__, {n for n in vars(module) if n.startswith("_")}, force)
        sys.modules[name] = module


def execute(
    source: bytes,
    env: Env,
    driver: str,
    baseline_globals: Optional[set] = None,
    only: Optional[str] = None,
    companions: Optional[Dict[str, bytes]] = None,
) -> Run:
    """Load and drive one module in a fresh fake world (the modules its fix added beside it)."""
    torch = make_torch(capability=env.capability)
    log: List[dict] = []
    flashinfer = make_flashinfer(torch, env.flashinfer, log)
    world = World(torch, env)
    run = Run(log=log)
    with fake_imports(torch, flashinfer):
        try:
            load_companions(kv_read_modules(companions), env.force_guard)
            module = load(
                source, torch, flashinfer, world, baseline_globals, env.force_guard, seed_globals=(driver == "classes")
            )
        except Exception as exc:  # noqa: BLE001
            run.load_error = type(exc).__name__ + ": " + str(exc)[:200]
            return run
        run.module = module
        if driver == "mla":
            drive_mla(module, world, run, flashinfer.BatchMLAPagedAttentionWrapper)
        else:
            drive_classes(module, world, run, only)
    return run


def module_names(source: bytes, env: Env) -> set:
    """The global names a module defines (to tell which functions a fix added)."""
    torch = make_torch(capability=env.capability)
    flashinfer = make_flashinfer(torch, env.flashinfer, [])
    world = World(torch, env)
    with fake_imports(torch, flashinfer):
        return set(vars(load(source, torch, flashinfer, world)).keys())


# -- comparisons ------------------------------------------------------------------------


def differences(a: Run, b: Run) -> List[str]:
    """Every call whose outcome or pool state differs ('<load>' when loading does)."""
    if a.load_error != b.load_error:
        return ["<load>"]
    out = []
    for (label, out_a, pool_a), (label_b, out_b, pool_b) in zip(a.calls, b.calls):
        if label != label_b or out_a != out_b or pool_a != pool_b:
            out.append(label)
    if len(a.calls) != len(b.calls):
        out.append("<number of calls>")
    return out


def same_behaviour(a: Run, b: Run, ignore=("form",)) -> Optional[str]:
    """None when both runs did the same (outcomes, pool, FlashInfer calls and their dtypes;
    not the call *form*, positional or keyword); else the first difference."""
    if a.load_error != b.load_error:
        return f"loading: {a.load_error!r} vs {b.load_error!r}"
    if len(a.calls) != len(b.calls):
        return f"{len(a.calls)} calls vs {len(b.calls)}"
    for (label, out_a, pool_a), (_, out_b, pool_b) in zip(a.calls, b.calls):
        if out_a != out_b:
            why = f" ({a.errors.get(label) or b.errors.get(label)})" if label in a.errors or label in b.errors else ""
            return f"{label}: {_short(out_a)} vs {_short(out_b)}{why}"
        if pool_a != pool_b:
            return f"{label}: the KV pool differs afterwards"
    log_a = [tuple(kv for kv in e if kv[0] not in ignore) for e in a.wrapper_log()]
    log_b = [tuple(kv for kv in e if kv[0] not in ignore) for e in b.wrapper_log()]
    if log_a != log_b:
        return f"FlashInfer calls differ: {log_a} vs {log_b}"
    return None


def _short(outcome) -> str:
    text = repr(outcome)
    return text if len(text) < 300 else text[:300] + "..."


def close(a: Tensor, b: Tensor, rtol=1e-2, atol=1e-2) -> bool:
    if tuple(a.shape) != tuple(b.shape) or a.dtype is not b.dtype:
        return False
    for x, y in zip(a._values(), b._values()):
        if math.isnan(x) or math.isnan(y):
            if not (math.isnan(x) and math.isnan(y)):
                return False
        elif abs(x - y) > atol + rtol * abs(x):
            return False
    return True
