"""musa-style backend: target dtypes from torch.get_autocast_dtype("musa"), torch.result_type and a conditional."""
import torch


class MusaDtypeSourcesBackend:
    def __init__(self, model_runner):
        self.fp16 = model_runner.dtype == torch.float16

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        kb = pool.get_key_buffer(layer.layer_id)
        a = kb.to(torch.get_autocast_dtype("musa"))  # positive: f5 CL001 autocast dtype
        b = pool.get_value_buffer(layer.layer_id).to(torch.result_type(q, 1.0))  # positive: f5 CL001 dtype from torch.result_type
        c = kb.to(torch.float16 if self.fp16 else torch.bfloat16)  # positive: f5 CL001 dtype from a conditional expression
        d = forward_batch.seq_lens.to(torch.result_type(forward_batch.seq_lens, 1))  # negative: lengths
        e = kb.to(kb.device)  # negative: device-only
        return a, b, c, d, e
