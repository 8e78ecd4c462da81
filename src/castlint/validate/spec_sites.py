"""The speculative-decoding sites: target-verify and draft-extend, eager and as CUDA graphs.

Each drives the backend through sglang's own entry points, as its model runner and
CudaGraphRunner do:

* ``target-verify``: a TARGET_VERIFY batch whose spec_info (EagleVerifyInput)
  appends a window of ``draft_tokens`` queries after each request's prefix;
  ``init_forward_metadata`` -> FlashInferMLAIndicesUpdaterPrefill (the verify
  wrapper's causal paged plan from ``spec_info.generate_attn_arg_prefill``), then
  the paged branch of ``forward_extend``;
* ``draft-extend``: the draft model's extend over the accepted window, in the
  mode the release's worker uses: DRAFT_EXTEND where the backend has an
  ``is_draft_extend()`` branch (spec_info's CSR arguments), else
  DRAFT_EXTEND_V2 (an extend with a cached prefix; 0.5.23 plans it from host
  arrays);
* ``*-cuda-graph``: ``init_cuda_graph_state``, the capture metadata
  (``init_forward_metadata_out_graph(in_capture=True)``, or
  ``init_forward_metadata_capture_cuda_graph`` before 0.5.16) at the shapes
  sglang captures with (seq_lens filled with
  ``get_cuda_graph_seq_len_fill_value()``, request rows 0), the forward captured
  in a ``torch.cuda.CUDAGraph``, then the replay metadata
  (``in_capture=False`` / ``init_forward_metadata_replay_cuda_graph``) at the real
  shapes written into the same static tensors, and the graph replayed. A patch
  that bakes capture-time shapes into the graph therefore reads the wrong rows.
  On CPU the capture and the replay are eager calls of the same forward.

A release without a CUDA-graph path for a mode (its capture metadata raises
"Invalid mode") has the site skipped, with the reason.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any, Callable, Optional

import torch

from castlint.validate.doubles.sglang import filter_kwargs
from castlint.validate.doubles.speculative import EagleDraftInputDouble, EagleVerifyInputDouble

SPEC_SITES = ("target-verify", "target-verify-cuda-graph", "draft-extend", "draft-extend-cuda-graph")
SPEC_SITE_FUNCTIONS = {
    "target-verify": "init_forward_metadata (TARGET_VERIFY, spec_info.generate_attn_arg_prefill) -> "
    "FlashInferMLAIndicesUpdaterPrefill.call_begin_forward (verify plan) -> forward_extend",
    "target-verify-cuda-graph": "init_cuda_graph_state -> capture metadata (TARGET_VERIFY) -> forward_extend "
    "captured -> replay metadata (plan / fast_mla_prefill_plan) -> graph replay",
    "draft-extend": "init_forward_metadata (DRAFT_EXTEND, or DRAFT_EXTEND_V2 where the release has no draft-extend "
    "branch) -> FlashInferMLAIndicesUpdaterPrefill.call_begin_forward (paged plan) -> forward_extend",
    "draft-extend-cuda-graph": "init_cuda_graph_state -> capture metadata (DRAFT_EXTEND / _V2) -> forward_extend "
    "captured -> replay metadata -> graph replay",
}
_STATIC_TENSORS = (
    "req_pool_indices",
    "seq_lens",
    "seq_lens_cpu",
    "out_cache_loc",
    "positions",
    "extend_prefix_lens",
    "extend_seq_lens",
)
_STATIC_VALUES = ("seq_lens_sum", "extend_prefix_lens_cpu", "extend_seq_lens_cpu")


@dataclass
class SiteCall:
    """A prepared site: call(save_kv_cache) -> output.

    step: the site's call (on a GPU, a graph site's step is the graph's replay); eager: the same
    forward called eagerly (the kernel proof traces it: a replay runs no aten op); graph: the
    step replays a CUDA graph."""

    step: Callable[[bool], Any]
    eager: Optional[Callable[[bool], Any]] = None
    graph: bool = False

    def __call__(self, save: bool):
        return self.step(save)


def capture_graph(call: Callable[[bool], Any]):
    """Capture call(False) in a CUDA graph as sglang's runner does (two warm-up runs on a side
    stream, then the capture); return (replay, the graph's output tensor)."""
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        for _ in range(2):
            call(False)
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out = call(False)
    return graph.replay, out


def draft_extend_mode(backend) -> str:
    """DRAFT_EXTEND where the backend has a draft-extend branch of its own (releases up to 0.5.10;
    spec_info gives the plan's CSR arguments), else DRAFT_EXTEND_V2 (the eagle v2 worker's mode)."""
    try:
        source = inspect.getsource(type(backend).init_forward_metadata)
    except (OSError, TypeError):
        source = ""
    return "DRAFT_EXTEND" if "is_draft_extend()" in source else "DRAFT_EXTEND_V2"


def spec_batch(world, module, backend, site: str, capture: bool = False, fill: int = 1):
    """The forward batch of a speculative site: real shapes, or (capture) the shapes sglang's graph
    runner captures with: every request at seq_len `fill`, on request row 0, writing to slot 0."""
    cfg, window, dev = world.cfg, world.window, world.device
    bs, ctx = cfg.batch_size, cfg.context_len
    verify = site.startswith("target-verify")
    committed = torch.full((bs,), fill if capture else ctx, dtype=torch.int64, device=dev)
    seq_lens = committed if verify or capture else committed + window
    loc = torch.zeros(bs * window, dtype=torch.int64, device=dev) if capture else world.window_loc.clone()
    attrs = dict(
        req_pool_indices=torch.zeros_like(world.req_pool_indices) if capture else world.req_pool_indices.clone(),
        seq_lens=seq_lens,
        seq_lens_cpu=seq_lens.cpu().to(torch.int32) if site.endswith("cuda-graph") else seq_lens.cpu(),
        seq_lens_sum=int(seq_lens.sum()),
        out_cache_loc=loc,
        positions=world.window_positions.clone(),
        spec_info=(
            EagleVerifyInputDouble(window, world.req_to_token, world.log)
            if verify
            else EagleDraftInputDouble(window, bs, world.req_to_token, dev, world.log)
        ),
    )
    if not verify:
        prefix = seq_lens - window if not capture else seq_lens
        attrs.update(
            extend_prefix_lens=prefix.to(torch.int32),
            extend_prefix_lens_cpu=prefix.tolist(),
            extend_seq_lens=torch.full((bs,), window, dtype=torch.int32, device=dev),
            extend_seq_lens_cpu=[window] * bs,
            extend_num_tokens=bs * window,
        )
    mode = "TARGET_VERIFY" if verify else draft_extend_mode(backend)
    return world._batch(module, mode, **attrs)


def forward_call(backend, world, batch) -> Callable[[bool], Any]:
    """forward_extend on the speculative window's queries (what RadixAttention calls)."""

    def call(save: bool):
        return backend.forward_extend(
            world.spec_q,
            world.spec_k,
            world.spec_k,
            world.layer,
            batch,
            save_kv_cache=save,
            q_rope=world.spec_q_rope,
            k_rope=world.spec_k_rope,
        )

    return call


def prepare_spec_site(driver, site: str) -> SiteCall:
    """Set up a speculative site's metadata through the backend's entry points; return its call."""
    if site.endswith("-cuda-graph"):
        return _prepare_graph_site(driver, site)
    backend, world = driver.backend, driver.world
    batch = spec_batch(world, driver.module, backend, site)
    backend.init_forward_metadata(batch)
    _require_paged(backend)
    call = forward_call(backend, world, batch)
    return SiteCall(call, eager=call)


def _require_paged(backend) -> None:
    if getattr(backend.forward_metadata, "use_ragged", False):
        raise RuntimeError("init_forward_metadata chose the ragged prefill, not the paged branch")


def _prepare_graph_site(driver, site: str) -> SiteCall:
    """Capture at sglang's capture shapes, replay at the real ones (see the module docstring)."""
    backend, world, module = driver.backend, driver.world, driver.module
    cfg = world.cfg
    _graph_api(backend)
    backend.init_cuda_graph_state(
        **filter_kwargs(
            backend.init_cuda_graph_state, {"max_bs": cfg.batch_size, "max_num_tokens": cfg.batch_size * world.window}
        )
    )
    fill_value = getattr(backend, "get_cuda_graph_seq_len_fill_value", lambda: 1)()
    batch = spec_batch(world, module, backend, site, capture=True, fill=int(fill_value))
    _capture_metadata(driver, batch)
    _require_paged(backend)
    forward = forward_call(backend, world, batch)
    if world.device.type == "cuda":
        replay, out = capture_graph(forward)
    else:
        forward(False)  # the capture-time call, eagerly
    _refill(batch, spec_batch(world, module, backend, site))
    _replay_metadata(backend, module, batch)
    if world.device.type != "cuda":
        return SiteCall(forward, eager=forward)

    def step(save: bool):
        if save:  # the window's write, which the captured forward leaves out (timed replays skip it)
            world.pool.set_mla_kv_buffer(world.layer, batch.out_cache_loc, world.spec_k, world.spec_k_rope)
        replay()
        return out

    return SiteCall(step, eager=forward, graph=True)


def _graph_api(backend) -> str:
    if hasattr(backend, "init_forward_metadata_out_graph"):
        return "init_forward_metadata_out_graph"
    if hasattr(backend, "init_forward_metadata_capture_cuda_graph"):
        return "init_forward_metadata_capture_cuda_graph"
    raise NotImplementedError("this release has no cuda-graph metadata API the harness knows")


def _capture_metadata(driver, batch) -> None:
    """The capture-time metadata; a release whose graph path refuses the mode skips the site."""
    backend = driver.backend
    api = _graph_api(backend)
    try:
        if api == "init_forward_metadata_out_graph":
            backend.init_forward_metadata_out_graph(batch, in_capture=True)
        else:
            backend.init_forward_metadata_capture_cuda_graph(
                **filter_kwargs(
                    backend.init_forward_metadata_capture_cuda_graph,
                    dict(
                        bs=batch.batch_size,
                        num_tokens=int(batch.positions.numel()),
                        req_pool_indices=batch.req_pool_indices,
                        seq_lens=batch.seq_lens,
                        encoder_lens=None,
                        forward_mode=batch.forward_mode,
                        spec_info=batch.spec_info,
                    ),
                )
            )
    except ValueError as exc:
        if driver.loaded.label != "original" or "mode" not in str(exc):
            raise
        raise NotImplementedError(
            f"this release has no CUDA-graph path for {batch.forward_mode.name}: its {api} raised "
            f'"{exc}" (sglang runs this mode eagerly with FlashInfer MLA)'
        ) from exc


def _replay_metadata(backend, module, batch) -> None:
    if hasattr(backend, "init_forward_metadata_out_graph"):
        backend.init_forward_metadata_out_graph(batch, in_capture=False)
        return
    backend.init_forward_metadata_replay_cuda_graph(
        **filter_kwargs(
            backend.init_forward_metadata_replay_cuda_graph,
            dict(
                bs=batch.batch_size,
                req_pool_indices=batch.req_pool_indices,
                seq_lens=batch.seq_lens,
                seq_lens_sum=batch.seq_lens_sum,
                encoder_lens=None,
                forward_mode=batch.forward_mode,
                spec_info=batch.spec_info,
                seq_lens_cpu=batch.seq_lens_cpu,
            ),
        )
    )


def _refill(static, real) -> None:
    """Write the real batch into the captured batch's tensors in place, as sglang's runner fills its
    static buffers before a replay (the graph keeps reading the tensors it captured)."""
    for name in _STATIC_TENSORS:
        target = static.__dict__.get(name)
        if isinstance(target, torch.Tensor):
            target.copy_(real.__dict__[name])
    for name in _STATIC_VALUES:
        if name in real.__dict__:
            object.__setattr__(static, name, real.__dict__[name])
