from .manager import FP8DenseManager


class DenseUserAttention:
    def __init__(self, layer_idx):
        self.layer_idx = layer_idx

    def forward(self, q, k, v, attn_metadata):
        mgr: FP8DenseManager = attn_metadata.kv_cache_manager
        dense = mgr.dense_layer(self.layer_idx)  # note: per-step caller of the CL004 accessor
        k_half = mgr.get_buffers(self.layer_idx)[:, 0].to(q.dtype)  # positive: f7 CL001 K half of every block
        return dense, k_half
