import torch

from . import ctx
from .ctx import current


class StackBackend:
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kd = ctx.current().get_key_buffer(layer.layer_id).to(q.dtype)  # positive: f7 CL001 pool pushed on the stack by runner.py
        vd = current().get_value_buffer(layer.layer_id).float()  # positive: f7 CL001 same pool via the imported function
        lens = ctx.current_lens().to(torch.int32)  # negative: lengths pushed alongside
        return q, kd, vd, lens
