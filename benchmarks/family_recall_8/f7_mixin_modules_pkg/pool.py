import torch

from .mixins import RowsMixin, TracingMixin


class _Base:
    def __init__(self, layers, size, width):
        self.kv_buffer = [torch.zeros(size, 1, width, dtype=torch.float8_e4m3fn) for _ in range(layers)]
        self.active_rows = torch.arange(16)

    def get_key_buffer(self, layer_id):
        return self.kv_buffer[layer_id]


class CheckedPool(TracingMixin, _Base):
    pass


class ActivePool(RowsMixin, _Base):
    pass
