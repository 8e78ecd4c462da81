"""Per-layer planes exposed through data descriptors on a layer-slot class."""
import torch


class TokenKVPool:
    def __init__(self, size, head_num, head_dim, layer_num, dtype, device):
        shape = (size + 1, head_num, head_dim)
        self.k_buffer = [torch.zeros(shape, dtype=dtype, device=device) for _ in range(layer_num)]
        self.v_buffer = [torch.zeros(shape, dtype=dtype, device=device) for _ in range(layer_num)]


class PoolPlane:
    """Reads the owner's pool plane for the owner's layer."""

    def __set_name__(self, owner, name):
        self.name = name

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        planes = obj.pool.k_buffer if self.name == "k" else obj.pool.v_buffer
        return planes[obj.layer_id]


class WrittenRows:
    """Rows written by the current step: a per-step window, not the plane."""

    def __get__(self, obj, objtype=None):
        return obj.pool.k_buffer[obj.layer_id][obj.out_cache_loc]


class LayerSlot:
    k = PoolPlane()
    v = PoolPlane()
    k_written = WrittenRows()

    def __init__(self, pool, layer_id):
        self.pool = pool
        self.layer_id = layer_id
        self.out_cache_loc = None


class SlotBackend:
    def __init__(self, pool, num_layers):
        self.slots = [LayerSlot(pool, i) for i in range(num_layers)]

    def forward_decode(self, q, k, v, layer, forward_batch):
        slot = self.slots[layer.layer_id]
        slot.out_cache_loc = forward_batch.out_cache_loc
        keys = slot.k.to(q.dtype)  # positive: f1 CL001 the descriptor returns the layer's whole k plane
        vals = slot.v.to(dtype=q.dtype)  # positive: f1 CL001 the descriptor returns the layer's whole v plane
        fresh = slot.k_written.to(q.dtype)  # negative: only the rows of this step's out_cache_loc
        k_in = k.to(keys.dtype)  # negative: the step's new keys, a batch tensor
        raw = slot.v.view(torch.uint8)  # negative: reinterpret
        head = slot.k[: forward_batch.batch_size].float()  # negative: the first bs rows only
        return keys, vals, fresh, k_in
