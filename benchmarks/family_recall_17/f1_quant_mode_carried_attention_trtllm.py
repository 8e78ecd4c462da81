"""TensorRT-LLM pytorch backend: each Attention module keeps the model's quant config;
the manager comes in with the step's attention metadata."""
import torch


class Attention(torch.nn.Module):
    def __init__(self, model_config, layer_idx):
        super().__init__()
        self.layer_idx = layer_idx
        self.quant_config = model_config.quant_config
        self.dtype = model_config.pretrained_config.torch_dtype
        self.has_fp8_fmha = model_config.fp8_fmha_available

    def forward(self, q, k, v, attn_metadata):
        mgr = attn_metadata.kv_cache_manager
        buf = mgr.get_buffers(self.layer_idx)
        if self.quant_config.layer_quant_mode.has_fp8_kv_cache() and not self.has_fp8_fmha:
            keys = buf[:, 0].to(self.dtype)  # positive: f1 CL001 key plane of every block of the layer
            values = buf[:, 1].to(self.dtype)  # positive: f1 CL001 value plane of every block of the layer
        else:
            keys, values = buf[:, 0], buf[:, 1]
        ctx_blocks = attn_metadata.kv_cache_block_offsets[0, : attn_metadata.num_contexts]
        ctx = buf[ctx_blocks.flatten()].to(self.dtype)  # negative: context requests' blocks only
        w = self.quant_config.kv_cache_scales.to(self.dtype)  # negative: scales
        return self._fmha(q, keys, values, ctx, w)

    def _fmha(self, q, keys, values, ctx, w):
        return q
