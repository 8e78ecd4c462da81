"""Less common conversion spellings on whole pools: type, type_as, to(tensor), double, copy=True."""
import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class SpellingBackend(AttentionBackend):
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        a = pool.get_key_buffer(layer.layer_id).type(torch.bfloat16)  # positive: f5 CL001 .type(dtype)
        b = pool.get_value_buffer(layer.layer_id).type_as(q)  # positive: f5 CL001 .type_as(q)
        c = pool.get_key_buffer(layer.layer_id).to(q)  # positive: f5 CL001 .to(other tensor)
        d = pool.get_value_buffer(layer.layer_id).double()  # positive: f5 CL001 .double()
        e = pool.get_key_buffer(layer.layer_id).to(q.device, torch.float16)  # positive: f5 CL001 .to(device, dtype)
        f = pool.get_key_buffer(layer.layer_id).to(torch.float32, copy=True)  # positive: f5 CL001 .to(dtype, copy=True)
        return a, b, c, d, e, f

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        t = pool.get_key_buffer(layer.layer_id).type()  # negative: .type() with no argument returns the type string
        same = pool.get_key_buffer(layer.layer_id).to(q.device, non_blocking=True)  # negative: device move
        clone = pool.get_key_buffer(layer.layer_id).clone()  # negative: same-dtype copy
        z = torch.zeros_like(pool.get_value_buffer(layer.layer_id), dtype=torch.bfloat16)  # negative: allocation, no data converted
        return t, same, clone, z
