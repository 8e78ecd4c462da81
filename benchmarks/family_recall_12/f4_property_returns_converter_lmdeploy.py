import torch


class ConverterPropertyImpl:
    def __init__(self, quant_policy):
        self.quant_policy = quant_policy

    @property
    def to_compute(self):
        if self.quant_policy == 8:
            return lambda t, dt: t.to(dt)  # positive: f4 CL001 lambda returned by a property, applied to k_cache in forward
        return lambda t, dt: t

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata,
                k_scales_zeros=None, v_scales_zeros=None, inplace=True):
        k = self.to_compute(k_cache, query.dtype)
        offs = attn_metadata.block_offsets
        v = v_cache[offs].to(query.dtype)  # negative: gathered blocks
        return k, v
