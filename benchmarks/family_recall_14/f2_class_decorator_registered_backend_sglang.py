"""Backends registered by a class decorator; the registered subclasses supply _layer_kv."""
import torch

ATTENTION_BACKENDS = {}


def register_attention_backend(name):
    def decorator(cls):
        ATTENTION_BACKENDS[name] = cls
        return cls

    return decorator


class TorchFallbackBase:
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k_cache, v_cache = self._layer_kv(layer, forward_batch)
        return self._sdpa_decode(q, k_cache, v_cache, layer, forward_batch)


@register_attention_backend("torch_fallback_bf16")
class Bf16TorchBackend(TorchFallbackBase):
    def _layer_kv(self, layer, forward_batch):
        pool = forward_batch.token_to_kv_pool
        k_cache = pool.get_key_buffer(layer.layer_id).to(torch.bfloat16)  # positive: f2 CL001 whole key layer, used by the inherited forward_decode
        v_cache = pool.get_value_buffer(layer.layer_id).to(torch.bfloat16)  # positive: f2 CL001 whole value layer
        return k_cache, v_cache


@register_attention_backend("torch_fallback_paged")
class PagedTorchBackend(TorchFallbackBase):
    def _layer_kv(self, layer, forward_batch):
        pool = forward_batch.token_to_kv_pool
        idx = self.forward_metadata.kv_indices
        k_rows = pool.get_key_buffer(layer.layer_id)[idx].to(torch.bfloat16)  # negative: gathered rows
        v_rows = pool.get_value_buffer(layer.layer_id)[idx].to(torch.bfloat16)  # negative: gathered rows
        return k_rows, v_rows
