import torch


class PagedAttentionBase:
    @staticmethod
    def _pick(caches, idx):
        return caches[idx]

    @staticmethod
    def _pick_rows(cache, block_offsets):
        return cache[block_offsets]


class FP8PagedAttention(PagedAttentionBase):
    def __init__(self, layer_idx, gpu_cache):
        self.layer_idx = layer_idx
        self.gpu_cache = gpu_cache

    def forward(self, query, key, value, attn_metadata):
        k_cache, v_cache = self._pick(self.gpu_cache, self.layer_idx)
        k16 = k_cache.to(query.dtype)  # positive: f2 CL001 static pick of the layer's k_cache
        v16 = PagedAttentionBase._pick(self.gpu_cache, self.layer_idx)[1].to(query.dtype)  # positive: f2 CL001 static pick via class name, V cache
        sel = self._pick_rows(k_cache, attn_metadata.block_offsets).to(query.dtype)  # negative: gathered blocks
        return k16, v16, sel
