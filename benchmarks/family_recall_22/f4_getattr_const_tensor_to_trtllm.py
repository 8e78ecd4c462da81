import torch


def _materialize(buf, dtype, method="to"):
    return getattr(buf, method)(dtype)  # positive: f4 CL001 whole layer buffer converted through getattr(buf, "to")


class VanillaAttention:
    def __init__(self, layer_idx, dtype=torch.bfloat16):
        self.layer_idx = layer_idx
        self.dtype = dtype

    def forward(self, q, k, v, metadata, **kwargs):
        buf = metadata.kv_cache_manager.get_buffers(self.layer_idx)
        dense = _materialize(buf, self.dtype)
        dev = getattr(buf, "to")(q.device)  # negative: device move
        same = getattr(buf, "to")(buf.dtype)  # negative: same dtype
        return dense, dev, same
