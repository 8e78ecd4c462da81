from functools import partialmethod

import torch


class MLADecodeBase:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool

    def _read(self, layer_id, dtype=None):
        buf = self.pool.get_key_buffer(layer_id)
        return buf if dtype is None else buf.to(dtype)  # positive: f2 CL001 the bf16 partialmethod reaches this per step

    read_native = partialmethod(_read, dtype=None)
    read_bf16 = partialmethod(_read, dtype=torch.bfloat16)

    def forward_decode(self, q, k, v, layer, forward_batch):
        return q @ self.read_native(layer.layer_id).T


class MusaMLADecode(MLADecodeBase):
    def forward_decode(self, q, k, v, layer, forward_batch):
        kv = self.read_bf16(layer.layer_id)
        rope = forward_batch.positions.to(torch.float32)  # negative: positions
        return q @ kv.T, rope
