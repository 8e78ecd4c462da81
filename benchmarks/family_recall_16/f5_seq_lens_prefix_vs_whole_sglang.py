"""Per-step attention path (seq lens prefix vs whole sglang).

Look-alikes sit beside each whole-cache conversion.
"""
import torch


class DoubleBufferDecode:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool

    def forward_decode(self, q, k, v, layer, forward_batch):
        buf = self.pool.get_value_buffer(layer.layer_id)
        total = int(forward_batch.seq_lens.sum())
        head = buf[:total].to(q.dtype)  # negative: batch-sized prefix
        all_rows = buf[: buf.shape[0]].to(q.dtype)  # positive: f5 CL001 prefix as long as the buffer
        everything = buf[0:].to(q.dtype)  # positive: f5 CL001 open slice from 0
        strided = buf[::2].to(q.dtype)  # negative: every other slot
        tail = buf[-total:].to(q.dtype)  # negative: batch-sized tail
        return head, all_rows, everything, strided, tail
