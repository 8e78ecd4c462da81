import torch


class VanillaAttention:
    def __init__(self, layer_idx, compute_dtype):
        self.layer_idx = layer_idx
        self.compute_dtype = compute_dtype

    def _attend(self, q, *, cache, scale=None, dtype=None):
        kv = cache.to(dtype or self.compute_dtype)  # positive: f4 CL001 forward passes the whole manager buffer through a dict(...) | {...} splat
        return q @ kv.flatten(0, 2).T if scale is None else q @ (kv * scale).flatten(0, 2).T

    def _attend_rows(self, q, *, rows, dtype=None):
        return q @ rows.to(dtype or self.compute_dtype).T  # negative: only gathered rows reach here

    def forward(self, q, k, v, metadata):
        mgr = metadata.kv_cache_manager
        base = dict(cache=mgr.get_buffers(self.layer_idx))
        extra = {"scale": metadata.kv_scale} if metadata.kv_scale is not None else {}
        out = self._attend(q, **(base | extra))
        blk = metadata.kv_cache_block_offsets[0, :, 0]
        part = self._attend_rows(q, **dict(rows=mgr.get_buffers(self.layer_idx)[blk].flatten(0, 2)))
        return out + part
