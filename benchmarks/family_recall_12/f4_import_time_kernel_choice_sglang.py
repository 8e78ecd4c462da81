import torch


def _upcast_torch(buf, dtype):
    return buf.to(dtype)  # positive: f4 CL001 fallback picked at import time, given the whole key buffer


def _upcast_kernel(buf, dtype):
    return torch.ops.sgl_kernel.fp8_dequant(buf, dtype)


upcast = _upcast_kernel if hasattr(torch.ops, "sgl_kernel") else _upcast_torch


class ImportChoiceBackend:
    def __init__(self, model_runner):
        self.dtype = model_runner.dtype

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kbuf = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)
        dense = upcast(kbuf, self.dtype)
        qr = q.reshape(-1, layer.tp_q_head_num, layer.head_dim).to(self.dtype)  # negative: batch query
        return dense, qr
