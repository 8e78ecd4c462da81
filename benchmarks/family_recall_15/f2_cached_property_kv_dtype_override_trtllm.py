import functools

import torch


class TrtllmAttentionBase:
    def __init__(self, layer_idx, kv_cache_manager, quant_config):
        self.layer_idx = layer_idx
        self.kv_cache_manager = kv_cache_manager
        self.quant_config = quant_config

    @functools.cached_property
    def read_dtype(self):
        return self.kv_cache_manager.dtype

    def forward(self, q, k, v, attn_metadata):
        buf = self.kv_cache_manager.get_buffers(self.layer_idx)
        kv = buf.to(self.read_dtype)  # positive: f2 CL001 Ampere subclass's cached_property gives bfloat16, not the pool dtype
        vplane = buf[:, 1].to(self.read_dtype)  # positive: f2 CL001 value plane of every block
        same = buf.to(dtype=buf.dtype)  # negative: same dtype
        return self._fmha(q, kv, same)

    def _fmha(self, q, kv, same):
        return q


class AmpereAttention(TrtllmAttentionBase):
    @functools.cached_property
    def read_dtype(self):
        return torch.bfloat16


class HopperAttention(TrtllmAttentionBase):
    def forward(self, q, k, v, attn_metadata):
        buf = self.kv_cache_manager.get_buffers(self.layer_idx)
        return self._fmha(q, buf, buf.view(torch.uint8))  # negative: reinterpret only
