"""Conversions of pool buffers inside expressions: conditional expressions, walrus, chained no-op calls."""
import torch


class ExprBackend:
    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.use_value = model_runner.server_args.use_value_plane

    def forward_extend(self, q, k, v, layer, forward_batch):
        pool = self.token_to_kv_pool
        a = (pool.get_value_buffer(layer.layer_id) if self.use_value else pool.get_key_buffer(layer.layer_id)).to(q.dtype)  # positive: f5 CL001 either branch is a whole buffer
        if (kb := pool.get_key_buffer(layer.layer_id)).dtype != q.dtype:
            b = kb.to(q.dtype)  # positive: f5 CL001 walrus-bound whole key buffer
        else:
            b = kb
        c = (x := pool.get_value_buffer(layer.layer_id)).contiguous().float()  # positive: f5 CL001 walrus in the expression, contiguous
        d = pool.get_key_buffer(layer.layer_id).requires_grad_(False).half()  # positive: f5 CL001 requires_grad_ returns the buffer
        e = (k if k is not None else q).to(torch.float32)  # negative: batch tensors
        f = (x[forward_batch.out_cache_loc] if x is not None else q).to(q.dtype)  # negative: gathered rows or q
        g = (kb if kb.dtype == q.dtype else kb.view(q.dtype)).contiguous()  # negative: reinterpret, no conversion
        return a, b, c, d, e, f
