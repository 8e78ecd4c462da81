"""vLLM FlashInfer impl under a FULL cudagraph: torch.permute_copy of the layer cache to HND, then the cast."""
import torch

from vllm.v1.attention.backends.flashinfer import FlashInferImpl


class FlashInferHNDNoFp8Impl(FlashInferImpl):
    """Cache [num_blocks, 2, block_size, kv_heads, head_dim]; captured in the FULL decode graph; no FP8 KV read in this build."""

    fp8_read_ok = False

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None, **kw):
        if self.kv_cache_dtype.startswith("fp8") and not self.fp8_read_ok:
            first = attn_metadata.block_table_tensor[:, 0]
            self._ctx_probe = torch.permute_copy(kv_cache[first], (0, 1, 3, 2, 4)).to(query.dtype)  # negative: first block per request
            hnd = torch.permute_copy(kv_cache, (0, 1, 3, 2, 4))
            kv_cache = hnd.to(query.dtype)  # positive: f5 CL001 whole layer cache after a permute-only copy
        q_scale = layer._q_scale.to(torch.float32)  # negative: scale
        return super().forward(layer, query, key, value, kv_cache, attn_metadata, output=output, **kw)
