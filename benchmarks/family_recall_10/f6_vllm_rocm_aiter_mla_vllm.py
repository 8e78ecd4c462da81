"""A vLLM ROCm aiter-MLA style forward_mqa: the fnuz latent cache is upcast when the kernel lacks FP8."""
import torch


class AiterMLAImplLike:
    def __init__(self, kv_cache_dtype, fp8_kernel=False):
        self.kv_cache_dtype = kv_cache_dtype
        self.fp8_kernel = fp8_kernel
        self.kv_lora_rank = 512

    def forward_mqa(self, q, kv_c_and_k_pe_cache, attn_metadata, layer):
        kv_buffer = kv_c_and_k_pe_cache.unsqueeze(2)
        if self.kv_cache_dtype.startswith("fp8") and not self.fp8_kernel:
            kv_buffer = kv_buffer.to(q.dtype)  # positive: f6 CL001 whole fnuz latent cache upcast for aiter
        qo_indptr = attn_metadata.decode.qo_indptr.to(torch.int32)  # negative: indptr
        paged_kv_indices = attn_metadata.decode.paged_kv_indices.to(torch.int32)  # negative: indices
        q_scaled = (q * layer._q_scale).to(torch.float8_e4m3fnuz)  # negative: queries
        return kv_buffer, qo_indptr, paged_kv_indices, q_scaled
