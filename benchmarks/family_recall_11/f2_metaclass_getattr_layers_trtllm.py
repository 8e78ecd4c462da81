import torch


class _LayerNS(type):
    """Class-level attribute lookup: Layers.L12 -> the manager's buffer of layer 12."""

    manager = None

    def __getattr__(cls, name):
        if name.startswith("L") and name[1:].isdigit():
            return cls.manager.get_buffers(int(name[1:]))
        raise AttributeError(name)


class Layers(metaclass=_LayerNS):
    lens = torch.zeros(8, dtype=torch.int64)


class MetaAttention:
    def __init__(self, layer_idx):
        self.layer_idx = layer_idx

    def forward(self, q, k, v, metadata, **kwargs):
        _LayerNS.manager = metadata.kv_cache_manager
        buf = getattr(Layers, f"L{self.layer_idx}")
        k_half = buf[:, 0].to(q.dtype)  # positive: f2 CL001 K half of every block, reached through a metaclass __getattr__
        first = Layers.L0.bfloat16()  # positive: f2 CL001 whole buffer of layer 0 through the metaclass
        lens = Layers.lens.to(torch.int32)  # negative: small class attribute
        return k_half, first, lens
