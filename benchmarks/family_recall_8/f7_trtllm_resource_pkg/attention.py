from .resource_manager import DenseViewManager


class ResourceAttention:
    def __init__(self, layer_idx, manager: DenseViewManager):
        self.layer_idx = layer_idx
        self.manager = manager

    def forward(self, q, k, v, metadata):
        dense = self.manager.get_dense_buffers(self.layer_idx)  # note: converted inside the accessor (CL004 there)
        raw = self.manager.get_buffers(self.layer_idx)
        up = raw[:, 0].to(q.dtype)  # positive: f7 CL001 K half of every block from resource_manager.py
        ids = self.manager.get_block_ids_per_seq(metadata.request_ids)
        return dense, up, ids
