"""Whole-keeping reshapes between a cast and a later gather (should gather first)."""
import torch
from einops import rearrange

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class CastThenGatherBackend(AttentionBackend):
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        kv_idx = forward_batch.kv_indices
        k_rows = pool.get_key_buffer(layer.layer_id).view(-1, layer.qk_head_dim).to(q.dtype)[kv_idx]  # positive: f5 CL003 view, cast, then gather
        v_up = pool.get_value_buffer(layer.layer_id).float()  # positive: f5 CL003 cast to a variable, reshaped and gathered later
        v_rows = v_up.reshape(v_up.shape[0], -1)[kv_idx]
        return k_rows, v_rows

    def forward_decode_v2(self, q, layer, forward_batch):
        pool = forward_batch.token_to_kv_pool
        pages = forward_batch.page_table
        k_pages = rearrange(pool.get_key_buffer(layer.layer_id).to(q.dtype), "(p s) h d -> p s h d", s=64)[pages]  # positive: f5 CL003 cast inside rearrange, then page gather
        v_pages = torch.gather(pool.get_value_buffer(layer.layer_id).half(), 0, pages.view(-1, 1, 1).expand(-1, layer.tp_v_head_num, layer.v_head_dim))  # positive: f5 CL003 cast then torch.gather
        k_ok = rearrange(pool.get_key_buffer(layer.layer_id), "(p s) h d -> p s h d", s=64)[pages].to(q.dtype)  # negative: gather then cast
        return k_pages, v_pages, k_ok
