import torch


class FlashInferFallbackImpl:
    def __init__(self, num_heads, head_size, scale):
        self.num_heads = num_heads
        self.head_size = head_size
        self.scale = scale

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        stride_order = self.get_kv_cache_stride_order()
        nhd = kv_cache.permute(*stride_order)
        wide = nhd.to(query.dtype)  # positive: f5 CL001 permute by the stride order keeps every block
        k_half = kv_cache[:, 0]
        k_wide = k_half.bfloat16()  # positive: f5 CL001 key plane of every block
        head_blocks = kv_cache[: attn_metadata.num_blocks].to(query.dtype)  # negative: first blocks only
        return self._run(query, wide, k_wide, head_blocks, output)

    @staticmethod
    def get_kv_cache_stride_order():
        return (0, 1, 3, 2, 4)

    def _run(self, *a):
        return a[-1]
