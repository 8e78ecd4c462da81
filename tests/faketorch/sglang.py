"""Drive a *released* sglang `flashinfer_mla_backend.py` on the fake torch and FlashInfer.

The module's `from sglang... import X` statements get small, torch-free doubles by
name (the runtime-context getters, envs, ForwardMode, KVWriteLoc, the kv-index
kernel and translator, ...; the same names castlint's real-torch validator doubles
in src/castlint/validate/doubles.py), any other name an inert placeholder. The
backend is built from a fake model runner and driven as sglang's model runner does:
`init_forward_metadata` (-> the indices updaters -> `wrapper.plan`), then
`forward_decode`; then an extend batch with a cached prefix through the paged
`forward_extend`.
"""
from __future__ import annotations

import inspect
import os
import types
from typing import Any, Dict, Tuple

from faketorch.flashinfer import make_flashinfer
from castlint.validate.forward_mode import ForwardModeDouble
from faketorch.harness import (
    MODULE_NAME,
    Env,
    Namespace,
    Run,
    World,
    _force,
    fake_imports,
    kv_read_modules,
    load_companions,
)
from faketorch.module import make_torch

WORKSPACE_BYTES = 128 << 20


ForwardMode = ForwardModeDouble  # one definition: castlint.validate.forward_mode


class _EnvVar:
    def __init__(self, value):
        self.value = value

    def get(self):
        return self.value

    def __bool__(self):
        return bool(self.value)


class _Envs:
    _known = {"SGLANG_ENABLE_TORCH_COMPILE": False, "SGLANG_FLASHINFER_WORKSPACE_SIZE": WORKSPACE_BYTES}

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _EnvVar(self._known.get(name, False))


class _Translator:
    """model_runner.kv_index_translator: virtual slot ids are the physical ones."""

    needs_read_translate = False

    def __init__(self, sg):
        self.sg = sg

    def pack_read_stream(self, plan, *, req_pool_indices, seq_lens, indptr, out, **kw):
        flat = self.sg.flat_indices(req_pool_indices, seq_lens)
        out[: len(flat)] = self.sg.torch.tensor(flat, dtype=out.dtype, device=out.device)
        return True

    def translate_dcp_read_ids(self, ids):
        return ids


class _KVIndicesKernel:
    """create_flashinfer_kv_indices_triton[(bs,)](req_to_token, req_pool_indices, page_kernel_lens,
    kv_indptr, kv_start_idx, kv_indices, stride)."""

    def __init__(self, sg):
        self.sg = sg

    def __getitem__(self, grid):
        return self

    def __call__(self, req_to_token, req_pool_indices, page_kernel_lens, kv_indptr, kv_start_idx, kv_indices,
                 *rest, **kw):
        bs = len(req_pool_indices)
        flat = self.sg.flat_indices(req_pool_indices[:bs], page_kernel_lens[:bs])
        kv_indices[: len(flat)] = self.sg.torch.tensor(flat, dtype=kv_indices.dtype, device=kv_indices.device)


class _Placeholder:
    def __init__(self, *a, **k):
        pass

    def __call__(self, *a, **k):
        return None

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return None


class SglangWorld:
    """World + what sglang's runtime hands a backend: page table, batches, runtime context."""

    def __init__(self, torch, env: Env):
        self.torch, self.env = torch, env
        self.world = w = World(torch, env)
        t = torch
        self.max_reqs, self.max_ctx = 4, 16
        rows = {1: w.req_slots[1] + w.new_slots[1], 2: w.req_slots[0] + w.new_slots[0]}
        self.rows = rows
        table = [[0] * self.max_ctx for _ in range(self.max_reqs)]
        for r, slots in rows.items():
            table[r][: len(slots)] = slots
        self.req_to_token = t.tensor(table, dtype=t.int32, device="cuda")
        self.req_pool_indices = t.tensor([2, 1], dtype=t.int64, device="cuda")
        H, D, R = World.HEADS, World.DIM - World.ROPE, World.ROPE
        q = w.q_decode  # (2, H, 576)
        qe = w.q_extend  # (4, H, 576)
        self.decode_q = q[:, :, :D].reshape(2, H * D)
        self.decode_q_rope = q[:, :, D:].reshape(2, H * R)
        self.extend_q = qe[:, :, :D].reshape(4, H * D)
        self.extend_q_rope = qe[:, :, D:].reshape(4, H * R)
        k = w.k_extend  # (4, 1, 576)
        self.decode_k, self.decode_k_rope = k[:2, :, :D].contiguous(), k[:2, :, D:].contiguous()
        self.extend_k, self.extend_k_rope = k[:, :, :D].contiguous(), k[:, :, D:].contiguous()
        mr = w.model_runner
        mr.req_to_token_pool = Namespace(req_to_token=self.req_to_token, size=self.max_reqs)
        mr.kv_index_translator = _Translator(self)
        mr.model_config.context_len = self.max_ctx
        w.pool.size = World.POOL - 1
        self.layer = w.layer
        self.layer.tp_q_head_num = H

    def flat_indices(self, req_pool_indices, seq_lens) -> list:
        out = []
        for r, n in zip(req_pool_indices.tolist(), seq_lens.tolist()):
            out.extend(self.rows[int(r)][: int(n)])
        return out

    def batch(self, mode: ForwardMode):
        t, w = self.torch, self.world
        decode = mode == ForwardMode.DECODE
        lens = [5, 5] if decode else [7, 7]
        seq_lens = t.tensor(lens, dtype=t.int64, device="cuda")
        rows = [self.rows[2], self.rows[1]]
        out_loc = [rows[0][4], rows[1][4]] if decode else rows[0][5:7] + rows[1][5:7]
        fields = dict(
            forward_mode=mode, batch_size=2, req_pool_indices=self.req_pool_indices, seq_lens=seq_lens,
            seq_lens_cpu=t.tensor(lens, dtype=t.int64), seq_lens_sum=sum(lens), spec_info=None, kv_loc_plan=None,
            attn_dcp_metadata=None, encoder_lens=None, token_to_kv_pool=w.pool,
            req_to_token_pool=w.model_runner.req_to_token_pool, attn_attend_prefix_cache=None,
            out_cache_loc=t.tensor(out_loc, dtype=t.int64, device="cuda"),
            positions=t.tensor([4, 4] if decode else [5, 6, 5, 6], dtype=t.int64, device="cuda"),
        )
        if not decode:
            fields.update(extend_prefix_lens=t.tensor([5, 5], dtype=t.int32, device="cuda"),
                          extend_prefix_lens_cpu=[5, 5], extend_seq_lens=t.tensor([2, 2], dtype=t.int32, device="cuda"),
                          extend_seq_lens_cpu=[2, 2], extend_num_tokens=4)
        return Namespace(**fields)

    def names(self) -> Dict[str, Any]:
        """Doubles by name, for `from sglang... import NAME`."""
        capability = tuple(self.torch.cuda.get_device_capability())
        buffers: Dict[str, Any] = {}

        def get_buffer(name, factory):
            if name not in buffers:
                buffers[name] = factory()
            return buffers[name]

        parallel = Namespace(attn_tp_size=1, attn_tp_rank=0, attn_dcp_size=1, attn_dcp_rank=0, dcp_enabled=False,
                             tp_size=1, tp_rank=0, attn_cp_size=1, dcp_size=1, dcp_world_size=1)
        kernel = Namespace(flashinfer_mla_disable_ragged=False)
        server_args = Namespace(flashinfer_mla_disable_ragged=False, disaggregation_mode="null",
                                disable_chunked_prefix_cache=True, enable_deterministic_inference=False,
                                speculative_eagle_topk=None, page_size=1, kv_cache_dtype="fp8_e4m3",
                                attention_backend="flashinfer", enable_dp_attention=False, dcp_size=1)

        class AttentionBackend:
            def __init__(self, *a, **k):
                pass

        def refuse(*a, **k):
            raise RuntimeError("DCP is not modelled")

        return {
            "get_buffer": get_buffer,
            "get_parallel": lambda: parallel,
            "get_exec": lambda: Namespace(kernel=kernel, enable_torch_compile=False,
                                          flashinfer_mla_disable_ragged=False),
            "get_schedule": lambda: Namespace(page_size=1, disable_chunked_prefix_cache=True),
            "get_disagg": lambda: Namespace(disaggregation_mode="null"),
            "get_platform": lambda: Namespace(is_sm100=False, is_sm90=capability == (9, 0), is_cuda=True,
                                              is_hip=False),
            "get_server_args": lambda: server_args,
            "get_global_server_args": lambda: server_args,
            "global_server_args_dict": {"flashinfer_mla_disable_ragged": False, "disaggregation_mode": "null",
                                        "disable_chunked_prefix_cache": True,
                                        "enable_deterministic_inference": False},
            "global_config": Namespace(flashinfer_workspace_size=WORKSPACE_BYTES),
            "envs": _Envs(),
            "AttentionBackend": AttentionBackend,
            "ForwardMode": ForwardMode,
            "KVWriteLoc": type("KVWriteLoc", (), {"for_batch": staticmethod(
                lambda fb: Namespace(loc=fb.out_cache_loc, out_cache_loc=fb.out_cache_loc))}),
            "update_local_kv_lens_for_dcp": lambda *a, **k: None,
            "plan_dcp_decode_metadata": refuse,
            "is_in_breakable_cuda_graph": lambda: False,
            "is_in_tc_piecewise_cuda_graph": lambda: False,
            "is_in_piecewise_cuda_graph": lambda: False,
            "get_cuda_graph_max_batch_size": lambda size, *a, **k: int(size),
            "is_flashinfer_available": lambda: True,
            "is_sm100_supported": lambda *a, **k: False,
            "is_sm90_supported": lambda *a, **k: capability == (9, 0),
            "next_power_of_2": lambda n: 1 if n <= 1 else 1 << (int(n) - 1).bit_length(),
            "assert_buffer_fits": lambda *a, **k: None,
            "create_flashinfer_kv_indices_triton": _KVIndicesKernel(self),
            "get_attention_tp_size": lambda: 1,
            "is_cuda": lambda: True,
            "is_hip": lambda: False,
        }


def _only(fn, kwargs):
    params = inspect.signature(fn).parameters
    if any(p.kind == p.VAR_KEYWORD for p in params.values()):
        return kwargs
    return {k: v for k, v in kwargs.items() if k in params}


def _graph_metadata(backend, fb):
    """CUDA-graph decode as sglang's graph runner prepares it: buffers, the capture-time plan
    on a use_cuda_graph wrapper, then the replay-time (sync-free fast_mla_decode_plan) plan."""
    bs = fb.batch_size
    backend.init_cuda_graph_state(**_only(backend.init_cuda_graph_state, {"max_bs": bs, "max_num_tokens": bs}))
    if hasattr(backend, "init_forward_metadata_out_graph"):
        backend.init_forward_metadata_out_graph(fb, in_capture=True)
        backend.init_forward_metadata_out_graph(fb, in_capture=False)
        return
    common = dict(bs=bs, num_tokens=bs, req_pool_indices=fb.req_pool_indices, seq_lens=fb.seq_lens, encoder_lens=None,
                  forward_mode=fb.forward_mode, spec_info=None, seq_lens_sum=fb.seq_lens_sum,
                  seq_lens_cpu=fb.seq_lens_cpu)
    backend.init_forward_metadata_capture_cuda_graph(**_only(backend.init_forward_metadata_capture_cuda_graph, common))
    backend.init_forward_metadata_replay_cuda_graph(**_only(backend.init_forward_metadata_replay_cuda_graph, common))


def _backend_class(module):
    for name in ("FlashInferMLAAttnBackend", "FlashInferMlaAttnBackend"):
        cls = vars(module).get(name)
        if isinstance(cls, type):
            return cls
    raise RuntimeError("no FlashInferMLAAttnBackend class in the file")


def execute_release(source: bytes, env: Env, baseline_globals=None, companions=None) -> Run:
    torch = make_torch(capability=env.capability)
    log = []
    flashinfer = make_flashinfer(torch, env.flashinfer, log)
    sg = SglangWorld(torch, env)
    pool = sg.world.pool
    run = Run(log=log)
    added = "SGLANG_ENABLE_TORCH_COMPILE" not in os.environ
    if added:  # releases up to 0.5.1 read it at import
        os.environ["SGLANG_ENABLE_TORCH_COMPILE"] = "0"
    try:
        with fake_imports(torch, flashinfer, sg.names()):
            load_companions(kv_read_modules(companions), env.force_guard)
            module = types.ModuleType(MODULE_NAME)
            module.__file__ = f"<{MODULE_NAME}>"
            module.__package__ = "sglang.srt.layers.attention"
            import sys

            sys.modules[MODULE_NAME] = module
            try:
                exec(compile(source, f"<{MODULE_NAME}>", "exec", dont_inherit=True), module.__dict__)
            except Exception as exc:  # noqa: BLE001
                run.load_error = f"{type(exc).__name__}: {exc}"[:300]
                return run
            if env.force_guard is not None and baseline_globals is not None:
                _force(module.__dict__, baseline_globals, env.force_guard)
            run.module = module
            cls = _backend_class(module)
            holder = {}
            run.record("backend()", lambda: holder.setdefault("b", cls(sg.world.model_runner)), pool)
            backend = holder.get("b")
            if backend is None:
                return run
            layer = sg.layer
            decode = sg.batch(ForwardMode.DECODE)
            run.record("init_forward_metadata[decode]", lambda: backend.init_forward_metadata(decode), pool)
            run.record("forward_decode", lambda: backend.forward_decode(
                sg.decode_q, sg.decode_k, sg.decode_k, layer, decode, save_kv_cache=True, q_rope=sg.decode_q_rope,
                k_rope=sg.decode_k_rope), pool)
            graph = sg.batch(ForwardMode.DECODE)
            run.record("cuda-graph capture+replay metadata", lambda: _graph_metadata(backend, graph), pool)
            run.record("forward_decode[cuda-graph]", lambda: backend.forward_decode(
                sg.decode_q, sg.decode_k, sg.decode_k, layer, graph, save_kv_cache=False, q_rope=sg.decode_q_rope,
                k_rope=sg.decode_k_rope), pool)
            extend = sg.batch(ForwardMode.EXTEND)
            run.record("init_forward_metadata[extend]", lambda: backend.init_forward_metadata(extend), pool)
            run.record("forward_extend", lambda: backend.forward_extend(
                sg.extend_q, sg.extend_k, sg.extend_k, layer, extend, save_kv_cache=True, q_rope=sg.extend_q_rope,
                k_rope=sg.extend_k_rope), pool)
    finally:
        if added:
            os.environ.pop("SGLANG_ENABLE_TORCH_COMPILE", None)
    return run


def release_names(source: bytes, env: Env) -> set:
    run = execute_release(source, Env(**{**env.__dict__, "force_guard": None}))
    return set(vars(run.module).keys()) if run.module is not None else set()


def drive_release(source: bytes, new: bytes, env: Env, companions=None) -> Tuple[Run, Run]:
    """(the original's run, the fixed module's run, with the modules its fix added) on one
    fake machine."""
    baseline = release_names(source, env) if env.force_guard is not None else None
    original = execute_release(source, Env(**{**env.__dict__, "force_guard": None}))
    return original, execute_release(new, env, baseline, companions)
