import operator

import torch

_CASTS = {
    "bf16": torch.Tensor.bfloat16,
    "fp16": torch.Tensor.half,
    "fp32": torch.Tensor.float,
}


class DispatchBackend:
    def __init__(self, model_runner):
        self.mode = "bf16"
        self.to_bf16 = operator.methodcaller("to", torch.bfloat16)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        kc = _CASTS[self.mode](pool.get_key_buffer(layer.layer_id))  # positive: f4 CL001 dispatch-table cast given the whole key pool
        vc = self.to_bf16(pool.get_value_buffer(layer.layer_id))  # positive: f4 CL001 methodcaller cast given the whole value pool
        qc = _CASTS[self.mode](q)  # negative: batch q
        return kc, vc, qc
