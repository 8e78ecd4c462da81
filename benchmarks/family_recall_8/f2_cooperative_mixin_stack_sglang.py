import torch


class BasePool:
    def __init__(self, layers, size, dim, dtype):
        self.kv_buffer = [torch.zeros(size, 1, dim, dtype=dtype, device="cuda") for _ in range(layers)]

    def get_key_buffer(self, layer_id):
        return self.kv_buffer[layer_id]


class CountingMixin:
    def get_key_buffer(self, layer_id):
        self.reads = getattr(self, "reads", 0) + 1
        return super().get_key_buffer(layer_id)


class CheckingMixin:
    def get_key_buffer(self, layer_id):
        buf = super().get_key_buffer(layer_id)
        assert buf.is_contiguous()
        return buf


class WindowMixin:
    def get_key_buffer(self, layer_id):
        return super().get_key_buffer(layer_id)[: self.window]  # window of the pool, kept by the final class


class StackedPool(CountingMixin, CheckingMixin, BasePool):
    pass


class WindowedPool(WindowMixin, CountingMixin, BasePool):
    window = 128


class StackBackend:
    def __init__(self, pool: StackedPool, windowed: WindowedPool):
        self.pool = pool
        self.windowed = windowed

    def forward_decode(self, q, k, v, layer, forward_batch):
        t = self.pool.get_key_buffer(layer.layer_id)
        dense = t.to(q.dtype)  # positive: f2 CL001 cooperative super() chain returns the whole layer
        w = self.windowed.get_key_buffer(layer.layer_id).to(q.dtype)  # negative: fixed 128-row window override
        return dense, w
