"""attrs records per layer; attr.evolve either keeps the whole buffer or swaps in gathered blocks."""
import attr
import torch


@attr.s(slots=True)
class LayerBuffers:
    kv = attr.ib()
    block_ids = attr.ib()
    scale = attr.ib(default=None)


@attr.s(frozen=True)
class BufferTable:
    layers = attr.ib(factory=list)


class AttrsAttention:
    def __init__(self, layer_idx, kv_cache_manager, num_layers, num_heads, head_dim):
        self.layer_idx = layer_idx
        self.num_heads = num_heads
        self.head_dim = head_dim
        self.table = BufferTable(
            layers=[
                LayerBuffers(kv=kv_cache_manager.get_buffers(i), block_ids=torch.zeros(0, dtype=torch.int32))
                for i in range(num_layers)
            ]
        )

    def forward(self, q, k, v, metadata, **kwargs):
        rec = self.table.layers[self.layer_idx]
        t = rec.kv.to(q.dtype)  # positive: f3 CL001 attrs field holds get_buffers(i)
        bids = rec.block_ids.to(torch.int64)  # negative: block ids field
        narrowed = attr.evolve(rec, kv=rec.kv[metadata.block_ids])
        used = narrowed.kv.to(q.dtype)  # negative: evolve swapped in the gathered blocks
        kplane = attr.evolve(rec, scale=1.0).kv[:, 0].bfloat16()  # positive: f3 CL001 evolve kept kv, whole key plane
        return self._attend(q, t, used, kplane, bids)

    def _attend(self, q, *tensors):
        return torch.empty_like(q)
