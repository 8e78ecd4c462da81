"""The model runner publishes its pool into a module-level registry; the backend reads it back."""
from typing import Dict

import torch

_KV_REGISTRY: Dict[str, object] = {}


def publish(name: str, obj) -> None:
    _KV_REGISTRY[name] = obj


def lookup(name: str):
    return _KV_REGISTRY[name]


class RunnerHooks:
    def __init__(self, model_runner):
        max_bs = model_runner.server_args.max_running_requests
        publish("token_to_kv", model_runner.token_to_kv_pool)
        publish("seq_lens_cpu", torch.zeros(max_bs, dtype=torch.int64))
        publish("latent_scale", torch.ones(1, dtype=torch.float32, device=model_runner.device))


class RegistryMLABackend:
    def __init__(self, model_runner):
        self.kv_lora_rank = model_runner.model_config.kv_lora_rank
        self.qk_rope_head_dim = model_runner.model_config.qk_rope_head_dim
        self.model_dtype = model_runner.dtype
        self._registry_key = "token_to_kv"
        self.decode_kernel = model_runner.attn_kernels.mla_decode

    def _source(self):
        return lookup(self._registry_key)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if save_kv_cache and k is not None:
            self._source().set_mla_kv_buffer(layer, forward_batch.out_cache_loc, k, v)
        src = self._source().get_key_buffer(layer.layer_id)
        t = src.to(q.dtype)  # positive: f1 CL001 pool fetched back from the module-level registry
        lens = lookup("seq_lens_cpu").to(torch.int32)  # negative: registry entry is a small per-request table
        sc = lookup("latent_scale").to(q.dtype)  # negative: one-element scale from the same registry
        return self.decode_kernel(q, t, lens, sc, layer.scaling)

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        arena = _KV_REGISTRY.get("token_to_kv")
        blob = arena.get_value_buffer(layer.layer_id).bfloat16()  # positive: f1 CL001 dict.get on the registry yields the pool
        rows = arena.get_key_buffer(layer.layer_id)[forward_batch.out_cache_loc].to(q.dtype)  # negative: rows gathered before the cast
        q_nope = q[..., : self.kv_lora_rank].to(self.model_dtype)  # negative: batch q
        return blob, rows, q_nope
