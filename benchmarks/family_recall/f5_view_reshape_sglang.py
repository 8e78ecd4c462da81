"""view / reshape / flatten / unflatten of the pool, then a cast."""
import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class ReshapeBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.page_size = model_runner.page_size

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        k_flat = pool.get_key_buffer(layer.layer_id).view(-1, layer.tp_k_head_num * layer.qk_head_dim).to(q.dtype)  # positive: f5 CL001 view then cast
        v_paged = pool.get_value_buffer(layer.layer_id).reshape(-1, self.page_size, layer.tp_v_head_num, layer.v_head_dim).to(q.dtype)  # positive: f5 CL001 reshape to pages then cast
        k_1d = pool.get_key_buffer(layer.layer_id).flatten(1).half()  # positive: f5 CL001 flatten then cast
        return k_flat, v_paged, k_1d

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        heads = pool.get_key_buffer(layer.layer_id).unflatten(-1, (2, -1)).bfloat16()  # positive: f5 CL001 unflatten then cast
        k_e4m3 = pool.get_key_buffer(layer.layer_id).view(torch.float8_e4m3fn)  # negative: dtype view reinterprets bytes, no conversion
        paged = pool.get_key_buffer(layer.layer_id).view(-1, self.page_size, layer.qk_head_dim)
        pages = paged[forward_batch.page_table].to(q.dtype)  # negative: page gather first
        return heads, k_e4m3, pages

    def forward_chain(self, q, layer, forward_batch):
        pool = forward_batch.token_to_kv_pool
        out = (
            pool.get_value_buffer(layer.layer_id)  # positive: f5 CL001 multi-line chain of view, contiguous and cast
            .view(-1, layer.v_head_dim)
            .contiguous()
            .to(dtype=q.dtype)
        )
        return out
