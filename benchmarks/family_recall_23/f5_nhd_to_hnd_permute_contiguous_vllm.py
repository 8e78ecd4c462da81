# vLLM v1 FlashInfer backend on SM80: the HND layout copy of the whole layer cache is widened for the prefill kernel.
import torch


class FlashInferSm80Impl:
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        if attn_metadata is None:
            return output
        stride_order = (0, 1, 3, 2, 4)
        hnd = kv_cache.permute(*stride_order)
        if self.kv_cache_dtype.startswith("fp8") and not self._fp8_prefill:
            hnd = hnd.contiguous().to(self.model_dtype)  # positive: f5 CL001 permuted whole cache widened
        decode_view = kv_cache[:, attn_metadata.decode_block_ids].permute(*stride_order)
        decode_view = decode_view.to(self.model_dtype)  # negative: decode blocks picked before the cast
        attn_metadata.prefill_wrapper.run(query, hnd, out=output)
        return output
