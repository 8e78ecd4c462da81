"""f3: (k, v) pairs unzipped with zip(*pairs), and nested tuple targets in a for over zip()."""
import torch


class SplitKVManager:
    def __init__(self, num_layers, blocks, tpb, heads, dim, dtype):
        self.pairs = [
            (
                torch.empty((blocks, tpb, heads, dim), dtype=dtype, device="cuda"),
                torch.empty((blocks, tpb, heads, dim), dtype=dtype, device="cuda"),
            )
            for _ in range(num_layers)
        ]
        self.names = [f"layer_{i}" for i in range(num_layers)]


class UnzipAttention:
    def __init__(self, layer_idx, manager: SplitKVManager):
        self.layer_idx = layer_idx
        self.manager = manager

    def forward(self, q, k, v, metadata):
        keys, values = zip(*self.manager.pairs)
        k_dense = keys[self.layer_idx].to(q.dtype)  # positive: f3 CL001 zip(*pairs) keeps whole K caches
        k_used = keys[self.layer_idx][metadata.block_ids].to(q.dtype)  # negative: blocks of this step
        n_blocks = torch.tensor([kc.shape[0] for kc in keys], dtype=torch.int32)  # negative: sizes only
        out = None
        for (kc, vc), name in zip(self.manager.pairs, self.manager.names):
            if name == f"layer_{self.layer_idx}":
                out = vc.to(torch.bfloat16)  # positive: f3 CL001 nested tuple target in a zip loop
        return k_dense, k_used, out, len(values), n_blocks
