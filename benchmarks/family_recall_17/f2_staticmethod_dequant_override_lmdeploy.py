"""lmdeploy pytorch: the base impl's staticmethod dequant is the identity; the subclass for
parts without the FP8 paged kernel overrides it with a widening one."""
import torch


class TritonPagedImpl:
    @staticmethod
    def dequant(cache, scale):
        return cache

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        self.fill_kv_cache(key, value, k_cache, v_cache, attn_metadata)
        k_read = self.dequant(k_cache, k_scales_zeros)
        v_read = self.dequant(v_cache, v_scales_zeros)
        return self.paged_attention_fwd(query, k_read, v_read, attn_metadata)


class NoFp8KernelTritonImpl(TritonPagedImpl):
    @staticmethod
    def dequant(cache, scale):
        out = cache.to(torch.float16)  # positive: f2 CL001 whole layer cache, via the overriding staticmethod
        return out if scale is None else out * scale.to(torch.float16)  # negative: scale tensor

    def fill_kv_cache(self, key, value, k_cache, v_cache, attn_metadata):
        loc = attn_metadata.fill_seqlens
        k_cache.view(-1, k_cache.size(-1))[loc] = key.to(k_cache.dtype)  # negative: writer casting the new keys
