import torch


class VanillaLayerIO:
    """Holds the buffer one TRT-LLM vanilla attention layer reads; the setter adapts the dtype."""

    def __init__(self, compute_dtype):
        self.compute_dtype = compute_dtype
        self._kv = None

    @property
    def kv(self):
        return self._kv

    @kv.setter
    def kv(self, buf):
        self._kv = buf if buf.dtype == self.compute_dtype else buf.to(self.compute_dtype)  # positive: f1 CL001 whole layer converted inside a property setter, set every forward


class VanillaAttention:
    def __init__(self, layer_idx, dtype=torch.bfloat16):
        self.layer_idx = layer_idx
        self.io = VanillaLayerIO(dtype)

    def forward(self, q, k, v, metadata):
        mgr = metadata.kv_cache_manager
        self.io.kv = mgr.get_buffers(self.layer_idx)
        scale = mgr.kv_cache_pool_scales[self.layer_idx].to(self.io.compute_dtype)  # negative: per-layer scales, not the pool
        q = q.to(self.io.compute_dtype)  # negative: the query
        return q, self.io.kv, scale
