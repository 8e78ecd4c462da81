"""TensorRT-LLM-style attention that binds its KV reader with a conditional expression."""
import torch


class TrtllmGenFallbackAttention:
    def __init__(self, layer_idx, has_fp8_fmha):
        self.layer_idx = layer_idx
        self.has_fp8_fmha = has_fp8_fmha

    def _dense(self, buf, dtype):
        return buf.to(dtype)  # positive: f4 CL001 chosen by the ternary when no FP8 FMHA; gets the whole layer

    def _fp8_view(self, buf, dtype):
        return buf.view(torch.float8_e4m3fn)  # negative: reinterpretation only

    def _ctx_blocks(self, buf, blocks, dtype):
        return buf[blocks].to(dtype)  # negative: context blocks only

    def forward(self, q, k, v, metadata):
        buf = metadata.kv_cache_manager.get_buffers(self.layer_idx)
        reader = self._fp8_view if self.has_fp8_fmha else self._dense
        kv = reader(buf, q.dtype)
        if metadata.num_contexts:
            blocks = metadata.kv_cache_block_offsets[0, : metadata.num_contexts, 0].flatten()
            ctx = self._ctx_blocks(buf, blocks, q.dtype)
            return self._attend(q, ctx, metadata)
        return self._attend(q, kv, metadata)

    def _attend(self, q, kv, metadata):
        return q
