"""Run the original and the patched backend side by side on the same pool.

For each *site* (a path through the backend that a rewrite touches) the harness
drives the module's own entry points, exactly as sglang's model runner does:

* ``decode``: ``init_forward_metadata`` (-> FlashInferMLAIndicesUpdaterDecode,
  its ``wrapper.plan``) then ``forward_decode``;
* ``decode-cuda-graph``: ``init_cuda_graph_state``, the capture and the replay
  metadata (-> the updater's plan on a ``use_cuda_graph`` wrapper, then
  ``fast_mla_decode_plan``), then ``forward_decode`` captured in a CUDA graph
  and replayed (on CPU: called eagerly);
* ``extend-paged``: ``init_forward_metadata`` for an extend batch with a cached
  prefix (-> FlashInferMLAIndicesUpdaterPrefill's paged ``plan``) then the paged
  branch of ``forward_extend``;
* ``target-verify``, ``draft-extend`` and their ``-cuda-graph`` variants: the
  speculative-decoding paths (spec_sites.py).

Both versions see the same FP8 pool (filled with e4m3 values, non-identity page
table), the same q, and the same layer. Per site it records the outputs and
compares them, times the forward call, and collects the kernel proof.
"""

from __future__ import annotations

import contextlib
import functools
import math
import os
import time
import traceback
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Callable, Dict, List, Optional

import torch

from castlint.common.versions import parse_version
from castlint.mla_names import READ_ATTR
from castlint.validate import proof as proofmod
from castlint.validate.doubles import (
    KVIndexTranslatorDouble,
    MLAPoolDouble,
    Namespace,
    Registry,
    RuntimeSettings,
    cuda_graph_decode_metadata,
    mla_backend_class,
    real_sglang_classes,
)
from castlint.validate.doubles.flashinfer import (
    FlashInferEmulation,
    make_flashinfer_module,
    newest_pinned_flashinfer,
)
from castlint.validate.doubles.mla import mla_reference
from castlint.validate.loader import LoadedBackend, LoadError, load_backend, stubbed_imports
from castlint.validate.spec_sites import (
    SPEC_SITE_FUNCTIONS,
    SPEC_SITES,
    SiteCall,
    capture_graph,
    prepare_spec_site,
)

SITES = ("decode", "decode-cuda-graph", "extend-paged") + SPEC_SITES
# The environment variable the patched module reads when the backend is constructed: auto (default),
# native, compact (never the native FP8-KV kernel: the path of a GPU without it), off (the original path).
KV_READ_ENV = "SGLANG_MLA_KV_READ"
SITE_FUNCTIONS = {
    "decode": "init_forward_metadata -> FlashInferMLAIndicesUpdaterDecode.call_begin_forward (plan) -> forward_decode",
    "decode-cuda-graph": "init_cuda_graph_state -> init_forward_metadata_out_graph capture+replay "
    "(plan, fast_mla_decode_plan) -> forward_decode (CUDA graph)",
    "extend-paged": "init_forward_metadata -> FlashInferMLAIndicesUpdaterPrefill.call_begin_forward (paged plan) "
    "-> forward_extend (paged branch)",
    **SPEC_SITE_FUNCTIONS,
}


_MISSING = object()


class EnvironmentProblem(Exception):
    """Something validate needs is missing (exit 2, with what to do)."""


@dataclass
class HarnessConfig:
    device: str = "cuda"
    preset: str = ""  # a [preset] of the tables: castlint.validate.command fills it in from the cost model
    num_heads_total: int = 64
    tp: int = 1
    kv_lora_rank: int = 512
    rope_dim: int = 64
    qk_nope_head_dim: int = 128
    pool_tokens: int = 495552
    batch_size: int = 1
    context_len: int = 4096
    extend_len: int = 32
    draft_tokens: int = 4  # target-verify / draft-extend: queries per request
    layers: int = 1  # layers of the harness's pool (one is timed)
    model_layers: int = 0  # the preset's layers, for the per-step line (0: the preset's, from the tables)
    native_read: bool = True  # False: SGLANG_MLA_KV_READ=compact for the run (--no-native)
    seed: int = 0
    warmup: int = 5
    iters: int = 50
    flush_l2: bool = True
    atol: float = 1e-2
    rtol: float = 1e-2
    force_backend: Optional[str] = None
    # A checkpoint scale that MLATokenToKVPool never applies; a patch that
    # passes layer.k_scale to run() is caught because it is not 1.
    layer_k_scale: float = 2.0
    sites: tuple = SITES
    # --device cpu only; None: the FlashInfer the newest sglang release of the tables pins
    emulate_flashinfer: Optional[str] = None
    use_sglang: bool = True
    profile: bool = True
    # fail a site whose patched code is slower than the original beyond the timing spread;
    # None: on for CUDA (where the timings mean something), off for the CPU emulation
    speed_gate: Optional[bool] = None
    # test hook: seconds of host sleep added to every patched call (a patch made slow on purpose)
    patched_delay_s: float = 0.0

    @property
    def heads(self) -> int:
        return self.num_heads_total // self.tp

    @property
    def sm_scale(self) -> float:
        return 1.0 / math.sqrt(self.qk_nope_head_dim + self.rope_dim)


@dataclass
class Timing:
    median_ms: float
    p10_ms: float
    p90_ms: float
    n: int
    host_us: float  # Python time to issue one call (not on the GPU timeline)
    method: str


@dataclass
class VersionRun:
    """One version's run of a site: its error, timing, kernel proof and the plan()/run() calls it made."""

    error: Optional[str] = None
    error_detail: Optional[str] = None  # the traceback's tail (not rendered in the reports)
    timing: Optional[Timing] = None
    proof: Optional[proofmod.Proof] = None
    plans: List[dict] = field(default_factory=list)
    runs: List[dict] = field(default_factory=list)
    vs_fp32_max_abs: Optional[float] = None
    note: str = ""
    reads: Dict[str, str] = field(default_factory=dict)  # each planned wrapper's read (native|compact|cast)
    read: Optional[str] = None  # the read of the wrapper this site's forward runs


@dataclass
class SiteResult:
    name: str
    functions: str
    status: str = "pass"  # pass | fail | error | skipped
    reasons: List[str] = field(default_factory=list)
    original: VersionRun = field(default_factory=VersionRun)
    patched: VersionRun = field(default_factory=VersionRun)
    max_abs: Optional[float] = None
    max_rel: Optional[float] = None
    cosine: Optional[float] = None
    mismatched: Optional[int] = None
    elements: Optional[int] = None
    within_tolerance: Optional[bool] = None
    margin: Optional[float] = None  # the speed gate's noise margin (relative)
    baseline_warning: str = ""  # the original disagrees with the fp32 reference

    @property
    def speedup(self) -> Optional[float]:
        o, p = self.original.timing, self.patched.timing
        if o and p and p.median_ms > 0:
            return o.median_ms / p.median_ms
        return None

    def per_step(self, layers: int) -> Optional[Dict[str, float]]:
        """The site's time over a whole step of `layers` layers: original, patched, and saved
        ((original_ms - patched_ms) x layers); None without both timings."""
        o, p = self.original.timing, self.patched.timing
        if not (o and p):
            return None
        return {
            "layers": layers,
            "original_ms": o.median_ms * layers,
            "patched_ms": p.median_ms * layers,
            "saved_ms": (o.median_ms - p.median_ms) * layers,
        }


@dataclass
class ValidationResult:
    file: str
    baseline: str
    environment: Dict[str, Any]
    config: Dict[str, Any]
    guard: Dict[str, Any]
    sites: List[SiteResult]
    doubles_unknown_reads: List[str]
    plan_calls: Dict[str, Any]
    patch_changed: bool = True

    @property
    def passed(self) -> bool:
        ran = [s for s in self.sites if s.status != "skipped"]
        return bool(ran) and all(s.status == "pass" for s in ran)


def run_tables(tables=None):
    """The tables a run reads its API facts from: the caller's (builtin + its config's
    extend-rules, castlint.config.load_settings), else the builtin ones."""
    if tables is not None:
        return tables
    from castlint.tables import load_tables

    return load_tables()


# -- environment -------------------------------------------------------------------


def environment(cfg: HarnessConfig, emu: Optional[FlashInferEmulation]) -> Dict[str, Any]:
    info: Dict[str, Any] = {"torch": torch.__version__, "device": cfg.device}
    if cfg.device == "cuda":
        if not torch.cuda.is_available():
            build = "a CPU-only build" if torch.version.cuda is None else f"CUDA {torch.version.cuda}"
            raise EnvironmentProblem(
                f"no CUDA GPU is visible (torch {torch.__version__}, {build}). castlint validate runs FlashInfer's "
                "kernels on the GPU; on a machine without one, `--device cpu` runs the same harness against a "
                "pure-torch reference MLA (small shapes)."
            )
        try:
            import flashinfer  # noqa: F401
        except Exception as exc:  # noqa: BLE001
            raise EnvironmentProblem(
                f"FlashInfer is not importable ({type(exc).__name__}: {exc}). Install the FlashInfer your sglang "
                "pins (e.g. `pip install flashinfer-python==0.7.2.post1`), or use `--device cpu` for the "
                "reference harness."
            ) from exc
        props = torch.cuda.get_device_properties(0)
        info.update(
            gpu=torch.cuda.get_device_name(0),
            compute_capability=f"{props.major}.{props.minor}",
            gpu_memory_gib=round(props.total_memory / 2**30, 1),
            cuda=torch.version.cuda,
            flashinfer=getattr(flashinfer, "__version__", "?"),
            kernels="FlashInfer (real)",
        )
    else:
        info.update(
            gpu=emu.device_name,
            compute_capability="%d.%d (emulated)" % tuple(emu.compute_capability),
            flashinfer=f"{emu.version} (emulated contract)",
            kernels="pure-torch reference MLA",
        )
    try:
        import importlib.util

        info["sglang"] = "importable" if importlib.util.find_spec("sglang") else "not installed (doubles)"
    except Exception:  # noqa: BLE001
        info["sglang"] = "not installed (doubles)"
    return info


# -- the world both versions share ---------------------------------------------------


class World:
    """Pool, page table, inputs and the doubles handed to the backend."""

    def __init__(self, cfg: HarnessConfig, log: set):
        self.cfg, self.log = cfg, log
        dev = torch.device(cfg.device)
        self.device = dev
        gen = torch.Generator(device="cpu").manual_seed(cfg.seed)
        bs, ctx = cfg.batch_size, cfg.context_len
        # the speculative sites' window: draft_tokens slots after each request's prefix
        self.window = cfg.draft_tokens if any(site in SPEC_SITES for site in cfg.sites) else 0
        if self.window < 0 or (self.window == 0 and any(site in SPEC_SITES for site in cfg.sites)):
            raise EnvironmentProblem(f"the speculative sites need at least one draft token, got {cfg.draft_tokens}")
        if bs * (ctx + self.window) > cfg.pool_tokens:
            window = f" + {self.window} draft" if self.window else ""
            raise EnvironmentProblem(
                f"batch {bs} x (context {ctx}{window}) = {bs * (ctx + self.window)} tokens do "
                f"not fit a pool of {cfg.pool_tokens} tokens"
            )
        self.pool = MLAPoolDouble(
            cfg.pool_tokens, 1, torch.float8_e4m3fn, cfg.kv_lora_rank, cfg.rope_dim, cfg.layers, dev
        )
        self._fill_pool()
        # page table: request rows 1..bs (row 0 unused), each a random, non-contiguous slot list
        self.max_reqs = bs + 2
        self.max_context = ctx + self.window + 64
        self.req_to_token = torch.zeros(self.max_reqs, self.max_context, dtype=torch.int32, device=dev)
        slots = torch.randperm(cfg.pool_tokens, generator=gen)[: bs * (ctx + self.window)] + 1  # 0: padding slot
        self.req_pool_indices = torch.arange(1, bs + 1, dtype=torch.int64, device=dev).flip(0)
        self._place_requests(slots.to(torch.int32).to(dev))
        self.translator = KVIndexTranslatorDouble(self.req_to_token)
        h, d, r = cfg.heads, cfg.kv_lora_rank, cfg.rope_dim
        self.layer = Namespace(
            "layer",
            None,
            log,
            layer_id=0,
            tp_q_head_num=h,
            tp_k_head_num=1,
            tp_v_head_num=1,
            head_dim=d + r,
            qk_head_dim=d + r,
            v_head_dim=d,
            scaling=cfg.sm_scale,
            logit_cap=0.0,
            k_scale=torch.tensor(cfg.layer_k_scale, dtype=torch.float32, device=dev),
            v_scale=torch.tensor(cfg.layer_k_scale, dtype=torch.float32, device=dev),
            k_scale_float=cfg.layer_k_scale,
            v_scale_float=cfg.layer_k_scale,
            is_cross_attention=False,
            sliding_window_size=-1,
            attn_type=None,
            qk_nope_head_dim=cfg.qk_nope_head_dim,
            qk_rope_head_dim=cfg.rope_dim,
        )

        def randn(*shape, scale=1.0):
            return (torch.randn(*shape, generator=gen) * scale).to(torch.bfloat16).to(dev)

        self.decode_q = randn(bs, h * d)
        self.decode_q_rope = randn(bs, h * r)
        self.decode_k = randn(bs, 1, d, scale=0.5)
        self.decode_k_rope = randn(bs, 1, r, scale=0.5)
        ext = cfg.extend_len
        self.extend_q = randn(bs * ext, h * d)
        self.extend_q_rope = randn(bs * ext, h * r)
        self.extend_k = randn(bs * ext, 1, d, scale=0.5)
        self.extend_k_rope = randn(bs * ext, 1, r, scale=0.5)
        if self.window:
            tokens = bs * self.window
            self.spec_q, self.spec_q_rope = randn(tokens, h * d), randn(tokens, h * r)
            self.spec_k, self.spec_k_rope = randn(tokens, 1, d, scale=0.5), randn(tokens, 1, r, scale=0.5)

    def _place_requests(self, slots: torch.Tensor) -> None:
        """Request i: its prefix slots[i*ctx:(i+1)*ctx], then its window from the slots after all
        prefixes (so the prefixes are laid out as without a window)."""
        bs, ctx, w = self.cfg.batch_size, self.cfg.context_len, self.window
        rows = self.req_pool_indices.tolist()
        for i, r in enumerate(rows):
            self.req_to_token[r, :ctx] = slots[i * ctx : (i + 1) * ctx]
            self.req_to_token[r, ctx : ctx + w] = slots[bs * ctx + i * w : bs * ctx + (i + 1) * w]
        if w:
            self.window_loc = torch.cat([self.req_to_token[r, ctx : ctx + w] for r in rows]).to(torch.int64)
            self.window_positions = torch.arange(ctx, ctx + w, device=self.device).repeat(bs)

    def _fill_pool(self):
        cfg = self.cfg
        chunk = 1 << 16
        for layer in range(cfg.layers):
            buf = self.pool.kv_buffer[layer]
            rows = buf.shape[0]
            g = torch.Generator(device=self.device).manual_seed(cfg.seed + 1 + layer)
            for start in range(0, rows, chunk):
                n = min(chunk, rows - start)
                vals = torch.randn(n, 1, buf.shape[-1], generator=g, device=self.device, dtype=torch.float32) * 0.5
                buf[start : start + n] = vals.to(torch.float8_e4m3fn).view(torch.uint8)

    @property
    def pool_elements(self) -> int:
        return int(self.pool.kv_buffer[0].numel())

    def model_runner(self, module) -> Namespace:
        cfg = self.cfg
        model_config = Namespace(
            "model_config",
            None,
            self.log,
            num_attention_heads=cfg.num_heads_total,
            kv_lora_rank=cfg.kv_lora_rank,
            qk_nope_head_dim=cfg.qk_nope_head_dim,
            qk_rope_head_dim=cfg.rope_dim,
            v_head_dim=cfg.qk_nope_head_dim,
            scaling=cfg.sm_scale,
            context_len=self.max_context,
            head_dim=cfg.kv_lora_rank + cfg.rope_dim,
            num_key_value_heads=1,
            is_encoder_decoder=False,
        )
        req_to_token_pool = Namespace(
            "req_to_token_pool", None, self.log, req_to_token=self.req_to_token, size=self.max_reqs
        )
        return Namespace(
            "model_runner",
            None,
            self.log,
            model_config=model_config,
            device="cuda",
            gpu_id=0,
            dtype=torch.bfloat16,
            kv_cache_dtype=torch.float8_e4m3fn,
            req_to_token_pool=req_to_token_pool,
            token_to_kv_pool=self.pool,
            kv_index_translator=self.translator,
            page_size=1,
            sliding_window_size=None,
            is_draft_worker=False,
            tp_size=cfg.tp,
            server_args=Namespace(
                "server_args",
                False,
                self.log,
                kv_cache_dtype="fp8_e4m3",
                speculative_eagle_topk=None,
                enable_deterministic_inference=False,
            ),
        )

    def _batch(self, module, mode_name: str, **attrs) -> Namespace:
        cfg = self.cfg
        mode = getattr(module.ForwardMode, mode_name)
        seq_lens = torch.full((cfg.batch_size,), cfg.context_len, dtype=torch.int64, device=self.device)
        base = dict(
            forward_mode=mode,
            batch_size=cfg.batch_size,
            req_pool_indices=self.req_pool_indices,
            seq_lens=seq_lens,
            seq_lens_cpu=seq_lens.cpu(),
            seq_lens_sum=int(cfg.batch_size * cfg.context_len),
            spec_info=None,
            kv_loc_plan=None,
            attn_dcp_metadata=None,
            encoder_lens=None,
            token_to_kv_pool=self.pool,
            req_to_token_pool=Namespace(
                "req_to_token_pool", None, self.log, req_to_token=self.req_to_token, size=self.max_reqs
            ),
            attn_attend_prefix_cache=None,
            num_prefix_chunks=None,
            mha_one_shot=False,
            mha_return_lse=False,
            extend_prefix_lens=None,
            extend_prefix_lens_cpu=None,
            extend_seq_lens=None,
            extend_seq_lens_cpu=None,
            num_token_non_padded=None,
            global_num_tokens_cpu=None,
        )
        base.update(attrs)
        return Namespace("forward_batch", None, self.log, **base)

    def decode_batch(self, module) -> Namespace:
        ctx = self.cfg.context_len
        loc = torch.stack([self.req_to_token[r, ctx - 1] for r in self.req_pool_indices.tolist()]).to(torch.int64)
        positions = torch.full((self.cfg.batch_size,), ctx - 1, dtype=torch.int64, device=self.device)
        return self._batch(module, "DECODE", out_cache_loc=loc, positions=positions)

    def extend_batch(self, module) -> Namespace:
        cfg = self.cfg
        ctx, ext = cfg.context_len, cfg.extend_len
        prefix = ctx - ext
        loc = torch.cat([self.req_to_token[r, prefix:ctx] for r in self.req_pool_indices.tolist()]).to(torch.int64)
        prefix_lens = torch.full((cfg.batch_size,), prefix, dtype=torch.int32, device=self.device)
        ext_lens = torch.full((cfg.batch_size,), ext, dtype=torch.int32, device=self.device)
        positions = torch.cat([torch.arange(prefix, ctx, device=self.device)] * cfg.batch_size)
        return self._batch(
            module,
            "EXTEND",
            out_cache_loc=loc,
            positions=positions,
            extend_prefix_lens=prefix_lens,
            extend_prefix_lens_cpu=[prefix] * cfg.batch_size,
            extend_seq_lens=ext_lens,
            extend_seq_lens_cpu=[ext] * cfg.batch_size,
            extend_num_tokens=cfg.batch_size * ext,
        )

    def truth(self, site: str) -> torch.Tensor:
        """float32 MLA over the dequantized pool (real = stored x 1.0), in chunks of queries
        (reference.REFERENCE_CHUNK_BYTES). Extend and the speculative sites are causal: query i of
        a request's n new tokens sees its prefix and new tokens 0..i."""
        cfg = self.cfg
        kb = self.pool.get_key_buffer(0)
        d = cfg.kv_lora_rank
        bs, ctx, h = cfg.batch_size, cfg.context_len, cfg.heads
        if site in SPEC_SITES:
            q, qr, qlen, kv_len, causal = self.spec_q, self.spec_q_rope, self.window, ctx + self.window, True
        elif site == "extend-paged":
            q, qr, qlen, kv_len, causal = self.extend_q, self.extend_q_rope, cfg.extend_len, ctx, True
        else:
            q, qr, qlen, kv_len, causal = self.decode_q, self.decode_q_rope, 1, ctx, False
        qo = torch.arange(bs + 1, dtype=torch.int32) * qlen
        kvp = torch.arange(bs + 1, dtype=torch.int32) * kv_len
        idx = torch.cat([self.req_to_token[r, :kv_len] for r in self.req_pool_indices.tolist()])
        out, _ = mla_reference(
            q.view(-1, h, d),
            qr.view(-1, h, cfg.rope_dim),
            kb[:, :, :d],
            kb[:, :, d:],
            qo,
            kvp,
            idx,
            cfg.sm_scale,
            causal,
        )
        return out.reshape(-1, h * d)


# -- driving the module -------------------------------------------------------------


class SiteDriver:
    """Builds one backend instance per version and prepares each site's call."""

    def __init__(self, loaded: LoadedBackend, world: World):
        self.loaded, self.world = loaded, world
        self.module = loaded.module
        self.model_runner = world.model_runner(self.module)
        self.backend = mla_backend_class(self.module)(self.model_runner)

    def guard(self) -> Dict[str, Any]:
        """What the patched backend decided at init (its READ_ATTR's `allowed` reads), JSON-ready:
        None (the original cast everywhere) or a dict."""
        reads = vars(self.backend).get(READ_ATTR, _MISSING)
        if reads is _MISSING:
            return {}
        allowed = getattr(reads, "allowed", None)
        if allowed is None:
            return {READ_ATTR: None}
        fields = allowed._asdict() if hasattr(allowed, "_asdict") else dict(vars(allowed))
        return {READ_ATTR: {k: _jsonable(v) for k, v in fields.items()}}

    def _read_of(self, wrapper) -> Optional[str]:
        """How the backend's last plan of `wrapper` chose to read the pool (None: never planned)."""
        reads = vars(self.backend).get(READ_ATTR)
        if reads is None or wrapper is None:
            return None
        try:
            return read_kind(reads.read(wrapper, None))
        except TypeError:  # not a wrapper (no weak reference to it can exist)
            return None

    def reads(self) -> Dict[str, str]:
        """How each planned MLA wrapper of the backend reads the pool after its last plan
        (native | compact | cast), by attribute name; wrappers kept in a dict (the CUDA-graph
        ones) are named attribute[key]."""
        found: Dict[str, str] = {}
        seen: set = set()
        for name, wrapper in _wrappers(self.backend):
            kind = self._read_of(wrapper)
            if kind and id(wrapper) not in seen:
                seen.add(id(wrapper))
                found[name] = kind
        return found

    def read_modes(self) -> List[str]:
        """reads() as "name=kind" words."""
        return [f"{name}={kind}" for name, kind in self.reads().items()]

    def site_read(self) -> Optional[str]:
        """The read of the wrapper the last prepared site's forward runs (forward_metadata's)."""
        metadata = getattr(self.backend, "forward_metadata", None)
        for attr in ("prefill_wrapper", "decode_wrapper"):
            wrapper = getattr(metadata, attr, None)
            if wrapper is not None:
                return self._read_of(wrapper)
        return None

    def prepare(self, site: str) -> Callable[[bool], Any]:
        """Set up metadata for `site`; return call(save_kv_cache) -> output."""
        world, backend = self.world, self.backend
        if site in SPEC_SITES:
            return prepare_spec_site(self, site)
        if site == "decode":
            batch = world.decode_batch(self.module)
            backend.init_forward_metadata(batch)
            return self._decode_call(batch)
        if site == "decode-cuda-graph":
            batch = world.decode_batch(self.module)
            # sglang's CudaGraphRunner hands the backend seq_lens_cpu from an int32 buffer
            # (releases before 0.5.16 pass it to FlashInfer's plan as kv_len_arr unconverted)
            batch.seq_lens_cpu = batch.seq_lens_cpu.to(torch.int32)
            self._cuda_graph_metadata(batch)
            return self._decode_call(batch)
        if site == "extend-paged":
            batch = world.extend_batch(self.module)
            backend.init_forward_metadata(batch)
            if getattr(backend.forward_metadata, "use_ragged", False):
                raise RuntimeError("init_forward_metadata chose the ragged prefill, not the paged branch")

            def call(save: bool):
                return backend.forward_extend(
                    world.extend_q,
                    world.extend_k,
                    world.extend_k,
                    world.layer,
                    batch,
                    save_kv_cache=save,
                    q_rope=world.extend_q_rope,
                    k_rope=world.extend_k_rope,
                )

            return call
        raise ValueError(f"unknown site {site}")

    def _cuda_graph_metadata(self, batch: Namespace) -> None:
        cuda_graph_decode_metadata(self.backend, batch, self.world.cfg.batch_size, self.module.ForwardMode.DECODE)

    def _decode_call(self, batch: Namespace):
        world, backend = self.world, self.backend

        def call(save: bool):
            out = backend.forward_decode(
                world.decode_q,
                world.decode_k,
                world.decode_k,
                world.layer,
                batch,
                save_kv_cache=save,
                q_rope=world.decode_q_rope,
                k_rope=world.decode_k_rope,
            )
            return out[0] if isinstance(out, tuple) else out

        return call


def read_kind(choice) -> Optional[str]:
    """The kind of a wrapper's read choice (the backend's MlaKvRead.read): its `.kind` (native | compact |
    cast) where it has one, else from the older `.native` / `.rows` (rows: compact)."""
    if choice is None:
        return None
    kind = getattr(choice, "kind", None)
    if kind:
        return str(kind)
    if getattr(choice, "native", False):
        return "native"
    return "compact" if getattr(choice, "rows", None) is not None else "cast"


def _wrappers(backend):
    """(name, object) of the backend's attributes, and of the values of its dict attributes."""
    for name, value in sorted(vars(backend).items()):
        if isinstance(value, dict):
            for key, item in value.items():
                yield f"{name}[{key}]", item
        else:
            yield name, value


def _jsonable(value):
    if isinstance(value, (bool, int, float, str)) or value is None:
        return value
    if isinstance(value, torch.dtype):
        return str(value).replace("torch.", "")
    if hasattr(value, "_asdict"):  # a row of the module's tables (a NamedTuple)
        value = value._asdict()
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (tuple, list)):
        return [_jsonable(v) for v in value]
    return repr(value)


# -- timing ------------------------------------------------------------------------


def time_call(fn: Callable[[], Any], cfg: HarnessConfig) -> Timing:
    if cfg.device == "cuda":
        flush = torch.empty(256 << 20, dtype=torch.uint8, device="cuda") if cfg.flush_l2 else None
        for _ in range(cfg.warmup):
            fn()
        torch.cuda.synchronize()
        starts = [torch.cuda.Event(enable_timing=True) for _ in range(cfg.iters)]
        ends = [torch.cuda.Event(enable_timing=True) for _ in range(cfg.iters)]
        host = []
        for i in range(cfg.iters):
            if flush is not None:
                flush.zero_()
            # keep the GPU busy while Python issues the call, so the events
            # time the kernels, not the host (sglang replays decode as a graph)
            torch.cuda._sleep(2_000_000)
            starts[i].record()
            t0 = time.perf_counter()
            fn()
            host.append(time.perf_counter() - t0)
            ends[i].record()
        torch.cuda.synchronize()
        ms = sorted(s.elapsed_time(e) for s, e in zip(starts, ends))
        method = "CUDA events, median of %d after %d warm-up%s" % (
            cfg.iters,
            cfg.warmup,
            ", L2 flushed" if flush is not None else "",
        )
    else:
        for _ in range(max(1, min(cfg.warmup, 2))):
            fn()
        ms = []
        host = []
        for _ in range(max(3, min(cfg.iters, 7))):
            t0 = time.perf_counter()
            fn()
            dt = time.perf_counter() - t0
            ms.append(dt * 1e3)
            host.append(dt)
        ms.sort()
        method = f"wall clock on CPU, median of {len(ms)} (reference kernels: not a GPU speed)"
    n = len(ms)
    host.sort()
    return Timing(
        median_ms=ms[n // 2],
        p10_ms=ms[max(0, n // 10)],
        p90_ms=ms[min(n - 1, (9 * n) // 10)],
        n=n,
        host_us=host[len(host) // 2] * 1e6,
        method=method,
    )


def _delayed(call: Callable[[bool], Any], seconds: float) -> SiteCall:
    """call, made slower on purpose (tests of the speed gate)."""

    def slow(save: bool):
        time.sleep(seconds)
        return call(save)

    return SiteCall(slow, eager=getattr(call, "eager", None), graph=getattr(call, "graph", False))


# -- comparison --------------------------------------------------------------------


def compare(site: SiteResult, original: torch.Tensor, patched: torch.Tensor, cfg: HarnessConfig):
    """Patched output against the original's: within atol + rtol x |original|, finite; records the numerics."""
    a32, b32 = original.float().reshape(-1), patched.float().reshape(-1)
    if a32.shape != b32.shape:
        site.status = "fail"
        site.reasons.append(f"output shapes differ: original {tuple(original.shape)}, patched {tuple(patched.shape)}")
        return
    diff = (b32 - a32).abs()
    finite = bool(torch.isfinite(b32).all())
    bound = cfg.atol + cfg.rtol * a32.abs()
    bad = ~(diff <= bound)
    site.elements = int(a32.numel())
    site.mismatched = int(bad.sum())
    site.max_abs = float(diff.max()) if diff.numel() else 0.0
    site.max_rel = float((diff / a32.abs().clamp_min(1e-6)).max()) if diff.numel() else 0.0
    denom = float(a32.norm() * b32.norm())
    site.cosine = float((a32 @ b32) / denom) if denom > 0 else (1.0 if float(diff.max()) == 0 else 0.0)
    site.within_tolerance = finite and site.mismatched == 0
    if not finite:
        site.status = "fail"
        site.reasons.append("patched output has NaN/Inf")
    elif site.mismatched:
        site.status = "fail"
        site.reasons.append(
            f"{site.mismatched} of {site.elements} outputs differ beyond atol={cfg.atol:g} + rtol={cfg.rtol:g}·|ref| "
            f"(max |Δ| {site.max_abs:.3g}, cosine {site.cosine:.6f})"
        )


def speed_margin(timing: Timing) -> float:
    """The noise of one timing: its p10-p90 spread relative to its median."""
    return (timing.p90_ms - timing.p10_ms) / timing.median_ms if timing.median_ms > 0 else 0.0


def speed_gate(site: SiteResult, floor: float = 0.02) -> None:
    """Fail a site whose patched path is slower than the original beyond noise.

    Slower beyond noise: the patched median exceeds the original's by more than the
    margin, where the margin is the larger p10-p90 spread of the two (relative to its
    median), and at least `floor`."""
    o, p = site.original.timing, site.patched.timing
    if not (o and p) or o.median_ms <= 0:
        return
    margin = max(floor, speed_margin(o), speed_margin(p))
    site.margin = margin
    if p.median_ms > o.median_ms * (1 + margin):
        site.status = "fail"
        site.reasons.insert(
            0,
            f"patched path is slower: {p.median_ms:.4f} ms against {o.median_ms:.4f} ms for the "
            f"original ({o.median_ms / p.median_ms:.2f}x), beyond the noise margin of "
            f"{margin * 100:.1f} % (p10-p90 spread)",
        )


def _unchecked_releases(tables) -> str:
    """The FlashInfer releases whose run() takes a KV buffer of another dtype than planned without a
    word: those before the first [[mla_signature]] with run_checks_dtypes."""
    checking = [sig["version"] for sig in tables.mla_signatures if sig.get("run_checks_dtypes")]
    if not checking:
        return "a FlashInfer whose run() does not check dtypes"
    return f"FlashInfer < {min(checking, key=parse_version)}"


def _diagnose(site: SiteResult, tables) -> None:
    """Explain a failure from the recorded calls (scale, planned dtype, guard)."""
    err = site.patched.error or ""
    if "does not match the planned" in err and "kv_data_type" in err:
        kinds = ", ".join(f"{p['via']} (line {p.get('line')}) kv={p['kv_dtype']}" for p in site.patched.plans)
        site.reasons = [r for r in site.reasons if not r.startswith("patched: ")]
        site.reasons.insert(
            0,
            f"FlashInfer rejected the patched run(): {err} The plan call(s) [{kinds}] left "
            "kv_data_type as the model dtype while the FP8 pool is passed to run(); on the "
            "native path the plan's kv dtype must be the KV-cache dtype.",
        )
        return
    for run in site.patched.runs:
        planned = run.get("planned_kv_dtype")
        if planned not in (None, "-") and planned != run.get("ckv_dtype"):
            site.reasons.append(
                f"patched plan() declared kv_data_type={planned} but run() is given a {run.get('ckv_dtype')} KV "
                f"buffer ({_unchecked_releases(tables)} reads it as the planned dtype: silently wrong output)"
            )
            break
    for run in site.patched.runs:
        if run.get("ckv_dtype") != "float8_e4m3fn":
            continue
        for name in ("ckv_scale", "kpe_scale"):
            value = run.get(name)
            if isinstance(value, (int, float)) and abs(float(value) - 1.0) > 1e-12:
                site.reasons.append(
                    f"patched run() passes {name}={float(value):g}, but MLATokenToKVPool stores e4m3 unscaled "
                    "(real = stored x 1.0): the scale must be 1.0"
                )
                return


# -- the run -----------------------------------------------------------------------


def run_validation(
    original: bytes,
    patched: bytes,
    cfg: HarnessConfig,
    *,
    filename: str = "<backend>",
    baseline_label: str = "in-memory `castlint fix`",
    progress: Optional[Callable[[str], None]] = None,
    tables=None,
    companions: Optional[Dict[str, bytes]] = None,
) -> ValidationResult:
    """Run both versions at every site of cfg.sites; compare, time and prove them. companions:
    the modules the fix adds (name -> source); by default the one castlint writes, where the
    patched source imports it."""
    say = progress or (lambda msg: None)
    tables = run_tables(tables)
    companions = companions if companions is not None else default_companions(patched, tables)
    if cfg.emulate_flashinfer is None:
        cfg = replace(cfg, emulate_flashinfer=newest_pinned_flashinfer(tables))
    if not cfg.model_layers:
        preset = tables.presets.get(cfg.preset)
        cfg = replace(cfg, model_layers=preset.layers if preset else 1)
    emu = FlashInferEmulation(tables, version=cfg.emulate_flashinfer) if cfg.device == "cpu" else None
    env = environment(cfg, emu)
    env["kv_read"] = kv_read_label(cfg)
    log: set = set()
    registry = Registry(runtime_settings(cfg, emu, log), log)
    flashinfer_module = make_flashinfer_module(emu) if emu else None
    torch.manual_seed(cfg.seed)
    sites: List[SiteResult] = []
    with kv_read_environment(cfg.native_read), stubbed_imports(registry, flashinfer_module):
        say("loading the original and the patched module")
        loaded = _load_versions({"original": original, "patched": patched}, cfg, emu, filename, tables, companions)
        say(f"filling a {cfg.pool_tokens}-token FP8 pool")
        world = World(cfg, log)
        drivers = _drivers(loaded, world)
        guard = _guard(drivers["patched"])
        for name in cfg.sites:
            say(f"site {name}")
            sites.append(_run_site(name, cfg, loaded, drivers, world, tables))
        plan_calls = {label: _plan_call_sites(backend) for label, backend in loaded.items()}
    unknown = sorted(x for x in log if not x.startswith(("placeholder", "real sglang")))
    return ValidationResult(
        file=filename,
        baseline=baseline_label,
        environment=env,
        config={k: (list(v) if isinstance(v, tuple) else v) for k, v in asdict(cfg).items()} | {"heads": cfg.heads},
        guard=guard,
        sites=sites,
        doubles_unknown_reads=unknown,
        plan_calls=plan_calls,
        patch_changed=original != patched,
    )


NATIVE_READ_OFF = "native read off"


def kv_read_label(cfg: HarnessConfig) -> str:
    """How the patched backend was told to read the pool, for the report."""
    if not cfg.native_read:
        return f"{NATIVE_READ_OFF} ({KV_READ_ENV}=compact)"
    value = os.environ.get(KV_READ_ENV)
    return f"{KV_READ_ENV}={value} (from the environment)" if value else f"auto ({KV_READ_ENV} unset)"


@contextlib.contextmanager
def kv_read_environment(native_read: bool):
    """--no-native: SGLANG_MLA_KV_READ=compact while the run lasts (the patched module reads it when
    the backend is constructed; the original does not read it), restored afterwards."""
    if native_read:
        yield
        return
    saved = os.environ.get(KV_READ_ENV)
    os.environ[KV_READ_ENV] = "compact"
    try:
        yield
    finally:
        if saved is None:
            os.environ.pop(KV_READ_ENV, None)
        else:
            os.environ[KV_READ_ENV] = saved


def runtime_settings(cfg: HarnessConfig, emu: Optional[FlashInferEmulation], log: set) -> RuntimeSettings:
    """What the sglang doubles answer: parallelism, page size, whether the device (the emulated one
    under --device cpu) is an SM90 part (sglang's is_sm90_supported), sglang's real classes."""
    real = real_sglang_classes(log) if cfg.use_sglang else {}
    capability = emu.compute_capability if emu else torch.cuda.get_device_capability(0)
    return RuntimeSettings(tp=cfg.tp, page_size=1, sm90=capability[0] == 9, real=real)


def default_companions(patched: bytes, tables) -> Dict[str, bytes]:
    """The module the MLA fix adds, as castlint writes it, when `patched` imports it."""
    name = tables.kv_read_module["module"]
    if name.rsplit(".", 1)[-1].encode() not in patched:
        return {}
    from castlint.fixes.kv_read_module import module_source

    source = module_source(tables).encode("utf-8")
    return {name: source, name.rsplit(".", 1)[-1]: source}


def _load_versions(
    sources: Dict[str, bytes],
    cfg: HarnessConfig,
    emu: Optional[FlashInferEmulation],
    filename: str,
    tables,
    companions: Dict[str, bytes],
) -> Dict[str, LoadedBackend]:
    """Each version's bytes run as the backend module (inside stubbed_imports); the patched
    one's companions load first."""
    try:
        return {
            label: load_backend(
                source,
                label,
                tables=tables,
                cpu_emulation=emu,
                force_backend=cfg.force_backend,
                filename=filename,
                companions=companions if label == "patched" else None,
            )
            for label, source in sources.items()
        }
    except (LoadError, RuntimeError) as exc:
        raise EnvironmentProblem(str(exc)) from exc


def _drivers(loaded: Dict[str, LoadedBackend], world: World) -> Dict[str, Any]:
    """A SiteDriver per version, or the exception its backend's construction raised."""
    drivers: Dict[str, Any] = {}
    for label, backend in loaded.items():
        try:
            drivers[label] = SiteDriver(backend, world)
        except Exception as exc:  # noqa: BLE001 - reported per site
            drivers[label] = exc
    return drivers


def _guard(patched_driver) -> Dict[str, Any]:
    """What the patched backend's init-time guard decided, and which branch that is."""
    guard = {} if isinstance(patched_driver, Exception) else patched_driver.guard()
    decided = guard.get(READ_ATTR, _MISSING) if guard else _MISSING
    guard["branch"] = (
        "FP8-KV reads enabled (each plan picks native, compact or cast)"
        if isinstance(decided, dict)
        else "fallback (original cast)"
        if decided is None
        else "no FP8-KV read choice in the file"
    )
    return guard


def _run_site(
    name: str, cfg: HarnessConfig, loaded: Dict[str, LoadedBackend], drivers: Dict[str, Any], world: World, tables
) -> SiteResult:
    """One site: both versions' first call, then their comparison, timing, proof and verdict."""
    site = SiteResult(name=name, functions=SITE_FUNCTIONS[name])
    outputs, calls = _first_calls(site, cfg, loaded, drivers)
    if site.status == "skipped":
        return site
    if site.patched.error:
        site.status = "fail"
        site.reasons.insert(0, f"patched: {site.patched.error}")
    if site.original.error:
        # the baseline itself does not run here: nothing to compare against
        site.status = "error"
        site.reasons.insert(
            0,
            f"original: {site.original.error} (the unpatched code fails in this "
            "environment too, so this site cannot be validated here)",
        )
    if "original" in outputs and "patched" in outputs:
        _compare_outputs(site, outputs, world, cfg)
        # time and prove both, each with the call that produced its output
        for label in ("original", "patched"):
            _time_and_prove(getattr(site, label), calls[label], name, world, cfg)
    if not cfg.native_read:
        _require_native_off(site)
    gate = cfg.speed_gate if cfg.speed_gate is not None else cfg.device == "cuda"
    if gate and site.status == "pass":
        speed_gate(site)
    _diagnose(site, tables)
    return site


def _require_native_off(site: SiteResult) -> None:
    """--no-native: the patched code must honour SGLANG_MLA_KV_READ=compact (no run() on the FP8 pool as
    stored); otherwise the "native read off" numbers would be the native path's."""
    native = [r for r in site.patched.runs if str(r.get("ckv_dtype", "")).startswith("float8")]
    if native or site.patched.read == "native":
        site.status = "fail" if site.status == "pass" else site.status
        site.reasons.insert(
            0,
            f"{KV_READ_ENV}=compact (--no-native), yet the patched run() read the FP8 pool "
            "natively: the patched module does not honour the switch",
        )


def _first_calls(site: SiteResult, cfg: HarnessConfig, loaded: Dict[str, LoadedBackend], drivers: Dict[str, Any]):
    """Prepare the site in each version and make its real step (write the new token, then attend).

    Returns ({label: output}, {label: call}) for the versions that ran; records errors, the
    plan()/run() calls and the patched wrappers' read modes on the site."""
    outputs: Dict[str, Any] = {}
    calls: Dict[str, Callable] = {}
    for label in ("original", "patched"):
        run: VersionRun = getattr(site, label)
        driver = drivers[label]
        backend = loaded[label]
        backend.log.site = site.name
        if isinstance(driver, Exception):
            run.error = f"backend construction failed: {type(driver).__name__}: {driver}"
            run.error_detail = "".join(traceback.format_exception(type(driver), driver, driver.__traceback__))[-3000:]
            continue
        try:
            call = driver.prepare(site.name)
            if label == "patched" and cfg.patched_delay_s:
                call = _delayed(call, cfg.patched_delay_s)
            out = call(True)
            if cfg.device == "cuda":
                torch.cuda.synchronize()
            outputs[label] = out.detach().clone()
            calls[label] = call
            run.reads, run.read = driver.reads(), driver.site_read()
            if label == "patched":
                run.note = ", ".join(driver.read_modes())
        except NotImplementedError as exc:
            site.status = "skipped"
            site.reasons.append(str(exc))
            break
        except Exception as exc:  # noqa: BLE001 - a failing site is a finding
            run.error = f"{type(exc).__name__}: {exc}"
            run.error_detail = traceback.format_exc()[-3000:]
        finally:
            run.plans = [dict(e) for e in backend.log.for_site(site.name, "plan")]
            run.runs = [dict(e) for e in backend.log.for_site(site.name, "run")]
            backend.log.site = ""
    return outputs, calls


def _compare_outputs(site: SiteResult, outputs: Dict[str, Any], world: World, cfg: HarnessConfig) -> None:
    """Patched against original, and each against the fp32 reference on the dequantized pool."""
    compare(site, outputs["original"], outputs["patched"], cfg)
    truth = world.truth(site.name).to(outputs["original"].device)
    for label in ("original", "patched"):
        getattr(site, label).vs_fp32_max_abs = float((outputs[label].float().reshape(truth.shape) - truth).abs().max())
    off = site.original.vs_fp32_max_abs
    if off is not None and off > cfg.atol:
        site.baseline_warning = (
            f"the ORIGINAL code itself differs from the fp32 reference at site {site.name} by max |Δ| "
            f"{off:.3g} (beyond atol {cfg.atol:g}); the patched output is compared with that "
            "baseline, so a pass here does not mean the site is right"
        )


def _time_and_prove(
    run: VersionRun, call: Callable[[bool], Any], site_name: str, world: World, cfg: HarnessConfig
) -> None:
    """Time one version's call (a CUDA-graph replay for decode-cuda-graph on a GPU) and, with
    cfg.profile, collect its kernel proof; a failure here is a note, not a verdict."""
    try:
        fn: Callable[[], Any] = functools.partial(call, False)
        if getattr(call, "graph", False):
            run.note = _joined(run.note, "timed as CUDA-graph replay")
        elif site_name == "decode-cuda-graph" and cfg.device == "cuda":
            try:
                fn, _ = capture_graph(call)
                run.note = _joined(run.note, "timed as CUDA-graph replay")
            except Exception as exc:  # noqa: BLE001
                torch.cuda.synchronize()
                run.note = _joined(run.note, f"graph capture failed ({type(exc).__name__}: {exc}); timed eagerly"[:300])
                fn = lambda: call(False)  # noqa: E731
        run.timing = time_call(fn, cfg)
        if cfg.profile:
            # a graph replay runs no aten op: the byte trace follows the same forward, eagerly
            eager = getattr(call, "eager", None) or call
            run.proof = proofmod.collect(lambda: eager(False), world.pool_elements, cfg.device)
            run.proof.attention_kv_bytes = _attention_kv_bytes(run, site_name, cfg)
    except Exception as exc:  # noqa: BLE001
        run.note = (run.note + f"; timing/profiling failed: {type(exc).__name__}: {exc}")[:400]


def _joined(note: str, more: str) -> str:
    return f"{note}; {more}" if note else more


def _attention_kv_bytes(run: VersionRun, site_name: str, cfg: HarnessConfig) -> int:
    """What the MLA kernel itself moves: the active KV rows in the dtype it is given, q in, out
    back (the pool beyond the page table is untouched)."""
    spec = site_name in SPEC_SITES
    kv_rows = cfg.batch_size * (cfg.context_len + (cfg.draft_tokens if spec else 0))
    item = 1 if any(r.get("ckv_dtype", "").startswith("float8") for r in run.runs) else 2
    new = cfg.draft_tokens if spec else cfg.extend_len if site_name == "extend-paged" else 1
    q_rows = cfg.batch_size * new
    return (
        kv_rows * (cfg.kv_lora_rank + cfg.rope_dim) * item
        + q_rows * cfg.heads * (2 * cfg.kv_lora_rank + cfg.rope_dim) * 2
    )


def _plan_call_sites(backend: LoadedBackend) -> Dict[str, Any]:
    """Which plan calls in the file ran (by line), and which did not."""
    ran = sorted(
        {(e.get("line"), e.get("function")) for e in backend.log.entries if e["kind"] == "plan" and e.get("line")}
    )
    return {"executed": [{"line": line, "function": fn} for line, fn in ran]}
