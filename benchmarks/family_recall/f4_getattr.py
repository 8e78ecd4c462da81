"""getattr with constant names reaching the pool and the cast."""
import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend

_KEY_ACCESSOR = "get_key_buffer"


class GetattrBackend(AttentionBackend):
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        k_cache = getattr(pool, "get_key_buffer")(layer.layer_id).to(q.dtype)  # positive: f4 CL001 getattr accessor
        v_cache = getattr(pool, "v_buffer")[layer.layer_id - pool.start_layer].half()  # positive: f4 CL001 getattr buffer list
        k2 = getattr(pool.get_key_buffer(layer.layer_id), "to")(torch.bfloat16)  # positive: f4 CL001 getattr of the cast method
        k3 = getattr(pool, _KEY_ACCESSOR)(layer.layer_id).float()  # positive: f4 CL001 getattr via module constant
        return k_cache, v_cache, k2, k3

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        dt = getattr(pool, "dtype")  # negative: reads the dtype attribute
        rows = getattr(pool, "get_key_buffer")(layer.layer_id)[forward_batch.out_cache_loc].to(dt)  # negative: gather first
        has_scale = getattr(layer, "k_scale", None)  # negative: reads layer scale
        return rows, has_scale
