import torch


class AttentionBackendBase:
    __slots__ = ("layer_idx", "dtype")

    def __init__(self, layer_idx, dtype):
        self.layer_idx = layer_idx
        self.dtype = dtype

    def _prepare(self, buf, metadata):
        return buf

    def forward(self, q, k, v, metadata):
        buf = metadata.kv_cache_manager.get_buffers(self.layer_idx)
        buf = self._prepare(buf, metadata)
        return q @ buf.flatten(0, 2).transpose(0, 1)


class VanillaFp8Fallback(AttentionBackendBase):
    __slots__ = ("fp8_fmha",)

    def __init__(self, layer_idx, dtype):
        super().__init__(layer_idx, dtype)
        self.fp8_fmha = False

    def _prepare(self, buf, metadata):
        if not self.fp8_fmha:
            return buf.to(self.dtype)  # positive: f2 CL001 override of the hook the base forward calls with the manager buffer
        return buf


class PagedGatherBackend(AttentionBackendBase):
    __slots__ = ()

    def _prepare(self, buf, metadata):
        return buf[metadata.kv_cache_block_offsets[0, :, 0]].to(self.dtype)  # negative: block gather
