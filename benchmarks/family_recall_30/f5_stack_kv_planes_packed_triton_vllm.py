"""vLLM Triton impl without FP8 read: both whole planes stacked into [blocks, 2, ...] before the cast."""
import torch

from vllm.v1.attention.backends.triton_attn import TritonAttentionImpl


class PackedNoFp8TritonImpl(TritonAttentionImpl):
    supports_fp8 = False

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None, **kw):
        key_cache, value_cache = kv_cache.unbind(0)
        packed = torch.stack((key_cache, value_cache), dim=1)
        if self.kv_cache_dtype.startswith("fp8") and not self.supports_fp8:
            packed = packed.to(query.dtype)  # positive: f5 CL001 both whole planes of the layer, stacked
        blk = attn_metadata.block_table[:, -1]
        tail = torch.stack((key_cache[blk], value_cache[blk]), dim=1).to(query.dtype)  # negative: last block per request
        return self._unified(query, packed, tail, attn_metadata, output)

    def _unified(self, query, packed, tail, attn_metadata, output):
        output.copy_(torch.ops.vllm.unified_packed_attention(query, packed, attn_metadata.seq_lens, self.scale))
        return output
