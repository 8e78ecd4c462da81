"""sglang: splitting the layer into page chunks and converting every chunk still converts
every slot; converting only the first chunk does not."""
import torch


class ChunkedWidenBackend:
    def __init__(self, model_runner):
        self.chunk = 65536

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k_buf = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)
        pieces = [c.to(q.dtype) for c in k_buf.split(self.chunk, dim=0)]  # positive: f5 CL001 every chunk, so the whole layer
        k_dense = torch.cat(pieces)
        head = k_buf.split(self.chunk, dim=0)[0].to(q.dtype)  # negative: first chunk only
        return self._sdpa(q, k_dense, head)

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        v_buf = forward_batch.token_to_kv_pool.get_value_buffer(layer.layer_id)
        v_dense = torch.cat([c.bfloat16() for c in torch.chunk(v_buf, 8)])  # positive: f5 CL001 all eight chunks widened
        return self._sdpa(q, v_dense, None)

    def _sdpa(self, q, a, b):
        return q
