"""A metaclass whose __call__ returns one shared instance: `SharedMLAPool()` is the pool."""
import torch


class _OnePerProcess(type):
    _made = {}

    def __call__(cls, *args, **kwargs):
        if cls not in cls._made:
            cls._made[cls] = super().__call__(*args, **kwargs)
        return cls._made[cls]


class SharedMLAPool(metaclass=_OnePerProcess):
    def __init__(self, size=0, num_layers=0, dtype=torch.float8_e4m3fn, device="cuda"):
        self.kv_buffer = [torch.zeros(size, 1, 576, dtype=dtype, device=device) for _ in range(num_layers)]

    def get_key_buffer(self, layer_id):
        return self.kv_buffer[layer_id]


class SharedReqLens(metaclass=_OnePerProcess):
    def __init__(self, max_reqs=0):
        self.lens = torch.zeros(max_reqs, dtype=torch.int32)


class SingletonPoolBackend:
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        lat = SharedMLAPool().get_key_buffer(layer.layer_id)
        dense = lat.to(q.dtype)  # positive: f2 CL001 key buffer of the metaclass singleton pool
        rope = SharedMLAPool().kv_buffer[layer.layer_id][..., 512:].to(q.dtype)  # positive: f2 CL001 rope part of every token of the singleton's layer
        lens = SharedReqLens().lens.to(torch.int64)  # negative: per-request lengths singleton
        return q, dense, rope, lens
