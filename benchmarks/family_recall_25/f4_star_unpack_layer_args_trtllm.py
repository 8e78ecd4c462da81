import torch


def _dense_attention(q, kv_buf, *, compute_dtype):
    kv = kv_buf.to(compute_dtype)  # positive: f4 CL001 whole layer buffer arriving as the second star-unpacked argument
    k, v = kv.unbind(1)
    return q, k, v


def _dense_window(q, kv_buf, window, *, compute_dtype):
    return kv_buf[-window:].to(compute_dtype)  # negative: tail blocks selected before the cast


class ReferenceAttention:
    def __init__(self, layer_idx, compute_dtype=torch.bfloat16):
        self.layer_idx = layer_idx
        self.compute_dtype = compute_dtype

    def forward(self, q, k, v, metadata, attention_window_size=None):
        args = (q, metadata.kv_cache_manager.get_buffers(self.layer_idx))
        if attention_window_size:
            return _dense_window(*args, attention_window_size, compute_dtype=self.compute_dtype)
        return _dense_attention(*args, compute_dtype=self.compute_dtype)
