"""torch.cat / torch.stack of whole pools before a cast."""
import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class CatStackBackend(AttentionBackend):
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        k_buf = pool.get_key_buffer(layer.layer_id)
        v_buf = pool.get_value_buffer(layer.layer_id)
        kv = torch.cat([k_buf, v_buf], dim=-1).to(q.dtype)  # positive: f5 CL001 cat of whole K and V
        kv2 = torch.stack((k_buf, v_buf)).float()  # positive: f5 CL001 stack of whole K and V
        return kv, kv2

    def export_all(self, pool):
        every_k = torch.stack(pool.k_buffer, dim=0).to(torch.bfloat16)  # positive: f5 CL001 stack of every layer
        every_v = torch.cat(pool.v_buffer).half()  # positive: f5 CL001 cat of every layer
        return every_k, every_v

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        loc = forward_batch.out_cache_loc
        k_rows = pool.get_key_buffer(layer.layer_id)[loc]
        v_rows = pool.get_value_buffer(layer.layer_id)[loc]
        kv_rows = torch.cat([k_rows, v_rows], dim=-1).to(q.dtype)  # negative: cat of gathered rows
        new_kv = torch.stack([k, v]).to(pool.dtype)  # negative: batch tensors
        return kv_rows, new_kv
