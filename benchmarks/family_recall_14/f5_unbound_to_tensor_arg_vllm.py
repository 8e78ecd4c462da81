"""Unbound torch.Tensor.to and .to(tensor) spellings beside the writer's key.to(cache)."""
import torch


class SDPAFallbackImpl:
    def __init__(self, num_heads, head_size, scale, kv_sharing_target_layer_name=None):
        self.num_heads = num_heads
        self.scale = scale
        self.kv_sharing_target_layer_name = kv_sharing_target_layer_name

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        key_cache, value_cache = kv_cache.unbind(0)
        if self.kv_sharing_target_layer_name is None:
            k_new = key.to(key_cache)  # negative: the step's keys cast to the cache dtype (writer side)
            torch.ops._C_cache_ops.reshape_and_cache_flash(
                k_new, value, key_cache, value_cache, attn_metadata.slot_mapping, "auto", layer._k_scale, layer._v_scale)
        moved = torch.Tensor.to(key_cache, query.device)  # negative: a device, dtype kept
        same = torch.Tensor.to(value_cache, dtype=value_cache.dtype)  # negative: same dtype
        k_all = torch.Tensor.to(key_cache, query.dtype)  # positive: f5 CL001 unbound Tensor.to of the whole key plane
        v_all = value_cache.to(query)  # positive: f5 CL001 .to(tensor) takes query's dtype
        return self._sdpa(query, k_all, v_all, moved, same, attn_metadata, output)
