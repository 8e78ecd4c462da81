"""Per-step attention path (index select arange sglang).

Look-alikes sit beside each whole-cache conversion.
"""
import torch


class TorchNativeDecode:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool

    def forward_decode(self, q, k, v, layer, forward_batch):
        buf = self.pool.get_key_buffer(layer.layer_id)
        every = torch.arange(buf.shape[0], device=buf.device)
        a = buf.index_select(0, every).to(q.dtype)  # positive: f5 CL001 index_select with an arange over every slot
        b = buf[torch.arange(buf.size(0))].to(q.dtype)  # positive: f5 CL001 arange fancy index keeps every slot
        live = torch.arange(forward_batch.seq_lens_sum, device=buf.device)
        c = buf.index_select(0, live).to(q.dtype)  # negative: arange over the batch's tokens only
        d = buf.index_select(0, forward_batch.out_cache_loc).to(q.dtype)  # negative: new slots
        return a, b, c, d
