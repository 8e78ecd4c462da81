"""vLLM-style CUTLASS MLA impl: FP8 query on parts with the FP8 kernel, whole-cache dequant elsewhere."""
import torch


class CutlassMLAImpl:
    def __init__(self, num_heads, kv_lora_rank, kv_cache_dtype, has_fp8_kernel, workspace):
        self.num_heads = num_heads
        self.kv_lora_rank = kv_lora_rank
        self.kv_cache_dtype = kv_cache_dtype
        self.has_fp8_kernel = has_fp8_kernel
        self._workspace = workspace

    def forward_mqa(self, q, kv_c_and_k_pe_cache, attn_metadata, layer):
        ws = self._workspace.to(q.dtype)  # negative: kernel workspace, not the cache
        if self.kv_cache_dtype.startswith("fp8") and self.has_fp8_kernel:
            q_fp8 = (q / layer._q_scale).to(torch.float8_e4m3fn)  # negative: the query is quantized to the cache dtype
            return self._run(q_fp8, kv_c_and_k_pe_cache.view(torch.float8_e4m3fn), attn_metadata, ws)
        if self.kv_cache_dtype.startswith("fp8"):
            cache = kv_c_and_k_pe_cache.view(torch.float8_e4m3fn).to(q.dtype) * layer._k_scale  # positive: f6 CL001 whole latent cache dequantized
            return self._run(q, cache, attn_metadata, ws)
        return self._run(q, kv_c_and_k_pe_cache, attn_metadata, ws)

    def _run(self, q, cache, attn_metadata, ws):
        return q
