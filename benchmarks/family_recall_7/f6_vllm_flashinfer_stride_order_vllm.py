"""f6: a vLLM FlashInfer-style impl permutes kv_cache by the backend stride order and upcasts it."""
import torch


class FlashInferBackendLite:
    @staticmethod
    def get_kv_cache_stride_order():
        return (0, 1, 2, 3, 4)


class FlashInferImplLite:
    def __init__(self, num_heads, head_size, kv_cache_dtype, native_fp8=False):
        self.num_heads = num_heads
        self.head_size = head_size
        self.kv_cache_dtype = kv_cache_dtype
        self.native_fp8 = native_fp8

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        stride_order = FlashInferBackendLite.get_kv_cache_stride_order()
        kv_cache_permute = kv_cache.permute(*stride_order)
        if self.kv_cache_dtype.startswith("fp8") and not self.native_fp8:
            kv_cache_permute = kv_cache_permute.to(query.dtype)  # positive: f6 CL001 permuted whole kv_cache upcast
        k_all = kv_cache[:, 0].float()  # positive: f6 CL001 K of every block ([num_blocks, 2, ...] layout)
        fp8_view = kv_cache.view(torch.float8_e4m3fn)  # negative: reinterpret
        q = query.to(torch.bfloat16)  # negative: batch query
        lens = attn_metadata.paged_kv_last_page_len.to(torch.int32)  # negative: lengths
        return kv_cache_permute, k_all, fp8_view, q, lens
