# TensorRT-LLM attention backends composed with small mixins; the "no FP8 read" mixin sets
# a class attribute the base forward consults.
import torch


class _NativeRead:
    kv_read_dtype = None


class _WidenedRead:
    kv_read_dtype = torch.bfloat16


class VanillaAttentionBase:
    def forward(self, q, k, v, metadata, **kwargs):
        buf = metadata.kv_cache_manager.get_buffers(self.layer_idx)
        if self.kv_read_dtype is not None:
            buf = buf.to(self.kv_read_dtype)  # positive: f2 CL001 whole buffer when the mixin sets a read dtype
        scale = metadata.kv_scale_orig_quant
        if scale is not None and self.kv_read_dtype is not None:
            scale = scale.to(self.kv_read_dtype)  # negative: scale
        return self._attend(q, buf, scale, metadata)


class VanillaAttention(_NativeRead, VanillaAttentionBase):
    pass


class VanillaAttentionSM75(_WidenedRead, VanillaAttentionBase):
    pass
