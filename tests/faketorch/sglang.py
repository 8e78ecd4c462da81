"""Drive a *released* sglang `flashinfer_mla_backend.py` on the fake torch and FlashInfer.

The module's `from sglang... import X` statements get castlint's one sglang double
(castlint.validate.doubles: the runtime-context getters, envs, ForwardMode, KVWriteLoc,
the kv-index kernel and translator, ...; the same objects `castlint validate` uses), any
other name an inert placeholder. The
backend is built from a fake model runner and driven as sglang's model runner does:
`init_forward_metadata` (-> the indices updaters -> `wrapper.plan`), then
`forward_decode`; then an extend batch with a cached prefix through the paged
`forward_extend`.
"""

from __future__ import annotations

import types
from typing import Tuple

from castlint.validate.doubles import KVIndexTranslatorDouble, Namespace, Registry, RuntimeSettings
from castlint.validate.doubles.sglang import cuda_graph_decode_metadata, import_environment, mla_backend_class
from castlint.validate.forward_mode import ForwardModeDouble
from faketorch.flashinfer import make_flashinfer
from faketorch.harness import (
    MODULE_NAME,
    Env,
    Run,
    World,
    _force,
    fake_imports,
    kv_read_modules,
    load_companions,
)
from faketorch.module import make_torch

ForwardMode = ForwardModeDouble  # one definition: castlint.validate.forward_mode


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
        mr.kv_index_translator = KVIndexTranslatorDouble(self.req_to_token)
        mr.model_config.context_len = self.max_ctx
        w.pool.size = World.POOL - 1
        self.layer = w.layer
        self.layer.tp_q_head_num = H

    def batch(self, mode: ForwardMode):
        t, w = self.torch, self.world
        decode = mode == ForwardMode.DECODE
        lens = [5, 5] if decode else [7, 7]
        seq_lens = t.tensor(lens, dtype=t.int64, device="cuda")
        rows = [self.rows[2], self.rows[1]]
        out_loc = [rows[0][4], rows[1][4]] if decode else rows[0][5:7] + rows[1][5:7]
        fields = dict(
            forward_mode=mode,
            batch_size=2,
            req_pool_indices=self.req_pool_indices,
            seq_lens=seq_lens,
            seq_lens_cpu=t.tensor(lens, dtype=t.int64),
            seq_lens_sum=sum(lens),
            spec_info=None,
            kv_loc_plan=None,
            attn_dcp_metadata=None,
            encoder_lens=None,
            token_to_kv_pool=w.pool,
            req_to_token_pool=w.model_runner.req_to_token_pool,
            attn_attend_prefix_cache=None,
            out_cache_loc=t.tensor(out_loc, dtype=t.int64, device="cuda"),
            positions=t.tensor([4, 4] if decode else [5, 6, 5, 6], dtype=t.int64, device="cuda"),
        )
        if not decode:
            fields.update(
                extend_prefix_lens=t.tensor([5, 5], dtype=t.int32, device="cuda"),
                extend_prefix_lens_cpu=[5, 5],
                extend_seq_lens=t.tensor([2, 2], dtype=t.int32, device="cuda"),
                extend_seq_lens_cpu=[2, 2],
                extend_num_tokens=4,
            )
        return Namespace(**fields)

    def registry(self) -> Registry:
        """castlint's sglang double (the one validate uses) for `from sglang... import NAME`, on
        this fake machine."""
        capability = tuple(self.torch.cuda.get_device_capability())
        return Registry(RuntimeSettings(sm90=capability == (9, 0)), set())


def execute_release(source: bytes, env: Env, baseline_globals=None, companions=None) -> Run:
    torch = make_torch(capability=env.capability)
    log = []
    flashinfer = make_flashinfer(torch, env.flashinfer, log)
    sg = SglangWorld(torch, env)
    pool = sg.world.pool
    run = Run(log=log)
    with import_environment(), fake_imports(torch, flashinfer, registry=sg.registry()):
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
        cls = mla_backend_class(module)
        holder = {}
        run.record("backend()", lambda: holder.setdefault("b", cls(sg.world.model_runner)), pool)
        backend = holder.get("b")
        if backend is None:
            return run
        layer = sg.layer
        decode = sg.batch(ForwardMode.DECODE)
        run.record("init_forward_metadata[decode]", lambda: backend.init_forward_metadata(decode), pool)
        run.record(
            "forward_decode",
            lambda: backend.forward_decode(
                sg.decode_q,
                sg.decode_k,
                sg.decode_k,
                layer,
                decode,
                save_kv_cache=True,
                q_rope=sg.decode_q_rope,
                k_rope=sg.decode_k_rope,
            ),
            pool,
        )
        graph = sg.batch(ForwardMode.DECODE)
        run.record(
            "cuda-graph capture+replay metadata",
            lambda: cuda_graph_decode_metadata(backend, graph, graph.batch_size, ForwardMode.DECODE),
            pool,
        )
        run.record(
            "forward_decode[cuda-graph]",
            lambda: backend.forward_decode(
                sg.decode_q,
                sg.decode_k,
                sg.decode_k,
                layer,
                graph,
                save_kv_cache=False,
                q_rope=sg.decode_q_rope,
                k_rope=sg.decode_k_rope,
            ),
            pool,
        )
        extend = sg.batch(ForwardMode.EXTEND)
        run.record("init_forward_metadata[extend]", lambda: backend.init_forward_metadata(extend), pool)
        run.record(
            "forward_extend",
            lambda: backend.forward_extend(
                sg.extend_q,
                sg.extend_k,
                sg.extend_k,
                layer,
                extend,
                save_kv_cache=True,
                q_rope=sg.extend_q_rope,
                k_rope=sg.extend_k_rope,
            ),
            pool,
        )
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
