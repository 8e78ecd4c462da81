"""Backends register through __init_subclass__ and are built by a classmethod factory."""
from typing import Dict

import torch


class AttnBackendBase:
    _registry: Dict[str, type] = {}

    def __init_subclass__(cls, name=None, **kwargs):
        super().__init_subclass__(**kwargs)
        if name is not None:
            AttnBackendBase._registry[name] = cls

    @classmethod
    def create(cls, name, model_runner):
        impl_cls = cls._registry[name]
        impl = impl_cls.__new__(impl_cls)
        impl.setup(model_runner)
        return impl

    def setup(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.dtype = model_runner.dtype
        self.req_slots = torch.zeros(model_runner.server_args.max_running_requests, dtype=torch.int64)


class TritonLikeBackend(AttnBackendBase, name="triton_like"):
    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kb, vb = self.pool.get_kv_buffer(layer.layer_id)
        kb = kb.to(q.dtype)  # positive: f2 CL001 pool set by the base setup() the factory calls
        vb = vb.to(q.dtype)  # positive: f2 CL001 value half of get_kv_buffer
        raw = self.pool.get_key_buffer(layer.layer_id).view(torch.uint8)  # negative: .view(dtype) reinterpret
        slots = self.req_slots.to(torch.int32)  # negative: per-request slots
        return kb, vb, raw, slots


class DraftLikeBackend(TritonLikeBackend, name="draft_like"):
    def setup(self, model_runner):
        super().setup(model_runner)
        self.scratch = torch.empty((model_runner.server_args.max_running_requests, 576), dtype=torch.float8_e4m3fn)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kc = self.pool.get_key_buffer(layer.layer_id).to(dtype=q.dtype)  # positive: f2 CL001 pool kept by the overriding setup's super() call
        sc = self.scratch.to(q.dtype)  # negative: per-request scratch, not a pool
        return kc, sc


def build(model_runner):
    return AttnBackendBase.create(model_runner.server_args.attention_backend, model_runner)
