# vLLM v1 MLA: a Triton MLA subclass for GPUs without an FP8 decode kernel passes a
# widened cache into the parent's _forward_decode.
import torch

from vllm.v1.attention.backends.mla.common import MLACommonImpl


class TritonMLAImpl(MLACommonImpl):
    def _forward_decode(self, q, kv_c_and_k_pe_cache, attn_metadata, layer):
        return self._triton_decode(q, kv_c_and_k_pe_cache, attn_metadata)


class TritonMLANoFP8Impl(TritonMLAImpl):
    def _forward_decode(self, q, kv_c_and_k_pe_cache, attn_metadata, layer):
        if self.kv_cache_dtype.startswith("fp8"):
            q = q.to(torch.bfloat16) if isinstance(q, torch.Tensor) else torch.cat(q, dim=-1)  # negative: query
            return super()._forward_decode(q, kv_c_and_k_pe_cache.to(torch.bfloat16), attn_metadata, layer)  # positive: f2 CL001 whole cache widened into super()
        return super()._forward_decode(q, kv_c_and_k_pe_cache, attn_metadata, layer)

    def _forward_prefill(self, q, kv_c_normed, k_pe, kv_c_and_k_pe_cache, attn_metadata, k_scale, output):
        kv_c = kv_c_normed.to(torch.bfloat16)  # negative: new tokens of this batch
        return super()._forward_prefill(q, kv_c, k_pe, kv_c_and_k_pe_cache, attn_metadata, k_scale, output)
