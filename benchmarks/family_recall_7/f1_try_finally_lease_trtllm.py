"""f1: a lease object taken around try/finally; lease.buf is the manager's whole layer."""
import torch


class Lease:
    def __init__(self, owner, layer_idx):
        self.owner = owner
        self.buf = owner.pools[layer_idx]
        self.live = True

    def release(self):
        self.live = False


class KVManager:
    def __init__(self, num_layers, blocks, tpb, heads, dim, dtype):
        self.pools = [
            torch.zeros((blocks, 2, tpb, heads, dim), dtype=dtype, device="cuda")
            for _ in range(num_layers)
        ]

    def acquire(self, layer_idx):
        return Lease(self, layer_idx)


class LeasedAttention:
    def __init__(self, layer_idx, manager: KVManager):
        self.layer_idx = layer_idx
        self.manager = manager

    def forward(self, q, metadata):
        lease = self.manager.acquire(self.layer_idx)
        try:
            full = lease.buf.to(q.dtype)  # positive: f1 CL001 the lease holds the whole layer
            used = lease.buf[metadata.block_ids].to(q.dtype)  # negative: the step's blocks
        finally:
            lease.release()
        try:
            k_half = self.manager.acquire(self.layer_idx).buf[:, 0].float()  # positive: f1 CL001 K half of every block
        except RuntimeError:
            k_half = None
        finally:
            moved = lease.buf.to("cuda:0")  # negative: device move, no dtype
        return full, used, k_half, moved
