import torch


class BackendConfig:
    def __init__(self, compute_dtype_name="float16", quant_policy=8):
        self.compute_dtype_name = compute_dtype_name
        self.quant_policy = quant_policy


class MacaPagedAttentionImpl:
    """MACA: the fp8 paged kernel is missing, the layer cache is widened to the configured dtype name."""

    def __init__(self, backend_config):
        self.cfg = backend_config

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        dtype = getattr(torch, self.cfg.compute_dtype_name)
        k = k_cache.to(dtype)  # positive: f4 CL001 dtype found by getattr(torch, name), whole key cache converted
        v = v_cache.to(getattr(torch, "float16"))  # positive: f4 CL001 constant getattr on torch, whole value cache converted
        kz = k_scales_zeros.to(dtype)  # negative: scales/zeros
        same = k_cache.to(getattr(torch, str(k_cache.dtype).split(".")[-1]))  # negative: the cache's own dtype
        return k, v, kz, same
