import torch


class AttentionImplBase:
    def _kv_for_kernel(self, k_cache, v_cache, attn_metadata):
        return k_cache, v_cache

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        k, v = self._kv_for_kernel(k_cache, v_cache, attn_metadata)
        return self._paged(query, k, v, attn_metadata)

    def _paged(self, *args):
        return args


class DlinferAttentionImpl(AttentionImplBase):
    def _kv_for_kernel(self, k_cache, v_cache, attn_metadata):
        k, v = super()._kv_for_kernel(k_cache, v_cache, attn_metadata)
        if attn_metadata.quant_policy == 0:
            return k, v
        return k.view(torch.int8), v.view(torch.int8)  # negative: reinterpret, zero copy


class CambAttentionImpl(DlinferAttentionImpl):
    """MLU: the paged kernel reads fp16/bf16 caches only."""

    def _kv_for_kernel(self, k_cache, v_cache, attn_metadata):
        k, v = super()._kv_for_kernel(k_cache, v_cache, attn_metadata)
        if k.dtype == torch.int8:
            k, v = k.float(), v.float()  # positive: f2 CL001 whole caches widened two overrides below forward (one line, one finding)
        return k, v

    def _scales(self, k_scales_zeros):
        return k_scales_zeros.float()  # negative: scales and zeros
