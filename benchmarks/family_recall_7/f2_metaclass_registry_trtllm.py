"""f2: a metaclass registers KV manager classes by kind; the attention builds one from the registry."""
import torch


class ManagerMeta(type):
    registry = {}

    def __new__(mcs, name, bases, ns, kind=None):
        cls = super().__new__(mcs, name, bases, ns)
        if kind:
            mcs.registry[kind] = cls
        return cls


class BaseKVManager(metaclass=ManagerMeta):
    def __init__(self, num_layers, blocks, tpb, heads, dim, dtype):
        self.layers = [
            torch.empty((blocks, 2, tpb, heads, dim), dtype=dtype, device="cuda")
            for _ in range(num_layers)
        ]

    def get_buffers(self, layer_idx):
        return self.layers[layer_idx]


class PagedKVManager(BaseKVManager, kind="paged"):
    def get_block_ids_per_seq(self, request_ids):
        return torch.zeros((len(request_ids), 128), dtype=torch.int32)


class RegistryAttention:
    def __init__(self, layer_idx, cfg):
        cls = ManagerMeta.registry["paged"]
        self.mgr = cls(cfg.num_layers, cfg.blocks, cfg.tpb, cfg.heads, cfg.dim, torch.float8_e4m3fn)
        self.layer_idx = layer_idx

    def forward(self, q, k, v, metadata):
        buf = self.mgr.get_buffers(self.layer_idx)
        dense = buf.to(torch.bfloat16)  # positive: f2 CL001 manager class taken from a metaclass registry
        v_half = buf.select(1, 1).float()  # positive: f2 CL001 V half of every block
        ids = self.mgr.get_block_ids_per_seq(metadata.request_ids).to(torch.int64)  # negative: block ids
        sizes = torch.tensor([b.shape[0] for b in self.mgr.layers], dtype=torch.int64)  # negative: sizes only
        return dense, v_half, ids, sizes
