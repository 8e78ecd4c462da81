"""A generator helper returns the converted buffer; a pipeline takes it with `x = yield from`."""
import torch


class YieldFromBackend:
    def __init__(self, dtype):
        self.dtype = dtype
        self._result = None

    def _convert(self, buf):
        yield "convert"
        return buf.to(self.dtype)  # positive: f4 CL001 generator return value, only given the pool layer

    def _pipeline(self, buf):
        out = yield from self._convert(buf)
        yield "done"
        self._result = out

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        lat = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)
        for _stage in self._pipeline(lat):
            pass
        pos = forward_batch.positions.to(torch.int32)  # negative: positions
        return self._result, pos
