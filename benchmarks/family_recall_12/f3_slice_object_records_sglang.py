from dataclasses import dataclass


@dataclass
class ViewRec:
    layer_id: int
    span: slice


class SpanBackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.dtype = model_runner.dtype
        self.full = [ViewRec(i, slice(None)) for i in range(self.pool.layer_num)]

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        rec = self.full[layer.layer_id]
        buf = self.pool.get_key_buffer(rec.layer_id)
        whole = buf[rec.span].to(self.dtype)  # positive: f3 CL001 slice(None) held in a record keeps the whole buffer
        n = forward_batch.seq_lens_sum
        bounded = ViewRec(layer.layer_id, slice(0, n))
        head = buf[bounded.span].to(self.dtype)  # negative: slice bounded by the step's tokens
        return whole, head
