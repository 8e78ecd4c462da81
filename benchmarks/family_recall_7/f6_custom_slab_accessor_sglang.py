"""f6: a pool with custom accessor names (layer_slab, slab_pair) learnt from its own methods."""
import torch


class SlabKVPool:
    def __init__(self, size, layer_num, heads, dim, dtype, device, start_layer=0):
        self.start_layer = start_layer
        self._k_slabs = [torch.zeros((size + 1, heads, dim), dtype=dtype, device=device) for _ in range(layer_num)]
        self._v_slabs = [torch.zeros((size + 1, heads, dim), dtype=dtype, device=device) for _ in range(layer_num)]

    def layer_slab(self, layer_id):
        return self._k_slabs[layer_id - self.start_layer]

    def slab_pair(self, layer_id):
        i = layer_id - self.start_layer
        return self._k_slabs[i], self._v_slabs[i]

    def recent_rows(self, layer_id, n):
        return self._k_slabs[layer_id - self.start_layer][:n]


class SlabBackend:
    def __init__(self, pool: SlabKVPool, dtype):
        self.pool = pool
        self.dtype = dtype

    def forward_decode(self, q, k, v, layer, forward_batch):
        ks = self.pool.layer_slab(layer.layer_id).to(self.dtype)  # positive: f6 CL001 custom accessor returns the whole layer
        _, vs = self.pool.slab_pair(layer.layer_id)
        v_dense = vs.float()  # positive: f6 CL001 second element of the pair accessor
        tail = self.pool.recent_rows(layer.layer_id, forward_batch.batch_size).to(self.dtype)  # negative: bounded by the batch size
        return ks, v_dense, tail
