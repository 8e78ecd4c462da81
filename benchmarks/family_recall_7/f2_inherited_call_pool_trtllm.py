"""f2: a base manager is callable (__call__(layer_idx) -> whole layer); a subclass inherits it, another windows it."""
import torch


class CallableManager:
    def __init__(self, num_layers, blocks, tpb, heads, dim, dtype):
        self.pools = [
            torch.empty((blocks, 2, tpb, heads, dim), dtype=dtype, device="cuda")
            for _ in range(num_layers)
        ]

    def __call__(self, layer_idx):
        return self.pools[layer_idx]


class FP8Manager(CallableManager):
    dtype = torch.float8_e4m3fn


class PrefixManager(CallableManager):
    def __call__(self, layer_idx, n_blocks=1):
        return super().__call__(layer_idx)[:n_blocks]


class CallAttention:
    def __init__(self, layer_idx, mgr: FP8Manager, prefix: PrefixManager):
        self.layer_idx = layer_idx
        self.mgr = mgr
        self.prefix = prefix

    def forward(self, q, k, v, metadata):
        dense = self.mgr(self.layer_idx).to(q.dtype)  # positive: f2 CL001 inherited __call__ returns the whole layer
        k_all = self.mgr(self.layer_idx)[:, 0].to(dtype=torch.bfloat16)  # positive: f2 CL001 K half of every block
        head = self.prefix(self.layer_idx, metadata.num_ctx_blocks).to(q.dtype)  # negative: blocks in use only
        moved = self.mgr(self.layer_idx).to(q.device)  # negative: device only
        return dense, k_all, head, moved
