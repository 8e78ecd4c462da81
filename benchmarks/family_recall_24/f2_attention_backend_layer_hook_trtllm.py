# TensorRT-LLM pytorch attention backends: TrtllmAttention runs the fused op; a
# reference backend subclass overrides the hook that supplies the paged cache.
import torch


class TrtllmAttention:
    def forward(self, q, k, v, metadata, **kwargs):
        kv = self.paged_kv(metadata)
        return self._fused(q, k, v, kv, metadata)

    def paged_kv(self, metadata):
        return metadata.kv_cache_manager.get_buffers(self.layer_idx)


class ReferenceAttention(TrtllmAttention):
    def paged_kv(self, metadata):
        buf = super().paged_kv(metadata)
        if buf.dtype == torch.float8_e4m3fn:
            return buf.to(torch.float32)  # positive: f2 CL001 whole manager buffer from super(), per forward
        return buf

    def paged_kv_rows(self, metadata, block_ids):
        return super().paged_kv(metadata)[block_ids].to(torch.float32)  # negative: blocks selected first
