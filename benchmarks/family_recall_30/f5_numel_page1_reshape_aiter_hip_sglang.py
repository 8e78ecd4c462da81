"""sglang ROCm aiter decode without an FP8 path: the whole layer reshaped to page-size-1 pages via numel() // d."""
import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class AiterPage1DecodeFallback(AttentionBackend):
    def __init__(self, model_runner):
        self.fp8_decode_ok = False  # gfx90a: no fp8 decode kernel

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        k_buf = pool.get_key_buffer(layer.layer_id)
        v_buf = pool.get_value_buffer(layer.layer_id)
        d = k_buf.shape[-1]
        k_pages = k_buf.reshape(k_buf.numel() // d, 1, 1, d)
        v_pages = v_buf.reshape(-1, 1, 1, layer.v_head_dim)
        k_fnuz = k_buf.view(torch.float8_e4m3fnuz)  # negative: zero-copy reinterpret
        if not self.fp8_decode_ok:
            k_pages = k_pages.to(q.dtype)  # positive: f5 CL001 whole key layer as page-1 pages
            v_pages = v_pages.to(q.dtype)  # positive: f5 CL001 whole value layer as page-1 pages
        seq = forward_batch.seq_lens.to(torch.int32)  # negative: lengths
        return torch.ops.aiter.paged_attention_v1(q, k_pages, v_pages, seq, k_fnuz.shape)
