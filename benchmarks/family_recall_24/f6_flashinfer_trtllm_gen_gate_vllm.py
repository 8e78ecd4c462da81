# vLLM v1 FlashInfer backend: decode goes to TRT-LLM-gen kernels when they can take an
# FP8 query; otherwise, on a pool FlashInfer's FA2 path cannot read, it is widened.
import torch


class FlashInferImpl:
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None, output_scale=None):
        num_decode = attn_metadata.num_decode_tokens
        fp8_pool = self.kv_cache_dtype.startswith("fp8")
        if attn_metadata.decode_use_trtllm:
            q_dec = query[:num_decode].to(torch.float8_e4m3fn)  # negative: decode query quantised
            self._trtllm_decode(q_dec, kv_cache, attn_metadata, output[:num_decode])
        elif fp8_pool and not self.fa2_reads_fp8:
            dense = kv_cache.to(query.dtype)  # positive: f6 CL001 whole paged cache for the FA2 decode wrapper
            attn_metadata.decode_wrapper.run(query[:num_decode], dense, out=output[:num_decode])
        if attn_metadata.num_prefills:
            cache = kv_cache if not fp8_pool or attn_metadata.prefill_use_trtllm else kv_cache.to(query.dtype)  # positive: f6 CL001 whole cache for the FA2 prefill wrapper
            attn_metadata.prefill_wrapper.run(query[num_decode:], cache, out=output[num_decode:])
        return output
