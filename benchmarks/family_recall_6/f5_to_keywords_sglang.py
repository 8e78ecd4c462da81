"""Conversion spellings with extra keywords: non_blocking, copy, memory_format; .double()/.bfloat16()."""
import torch


class SpellingBackend:
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.device = model_runner.device

    def forward_decode(self, q, k, v, layer, forward_batch):
        kb = self.token_to_kv_pool.get_key_buffer(layer.layer_id)
        vb = self.token_to_kv_pool.get_value_buffer(layer.layer_id)
        a = kb.to(q.dtype, non_blocking=True)  # positive: f5 CL001 whole key buffer, non_blocking keyword
        b = vb.to(torch.bfloat16, copy=True)  # positive: f5 CL001 whole value buffer, copy keyword
        c = kb.to(dtype=torch.float16, memory_format=torch.contiguous_format)  # positive: f5 CL001 memory_format keyword
        d = vb.double()  # positive: f5 CL001 whole value buffer to float64
        e = kb.bfloat16()  # positive: f5 CL001 whole key buffer to bf16
        f = kb.to(self.device, non_blocking=True)  # negative: device move only
        g = vb.to(vb.dtype, copy=True)  # negative: same-dtype copy
        h = kb.view(torch.uint8)  # negative: reinterpret
        i = kb[: forward_batch.seq_lens_sum].to(q.dtype, non_blocking=True)  # negative: a token window
        return a, b, c, d, e, f, g, h
